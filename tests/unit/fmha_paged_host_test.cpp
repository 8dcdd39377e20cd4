// The serving families' problem validation and host references: paged decode
// against kdecl::reference::fmha on the same keys gathered into a contiguous varlen
// problem (random block tables and page lists, pages out of order, masks, soft-cap,
// sinks, GQA/MQA, speculative query tokens), split-KV partials + combine against
// the one-stage decode, and append-KV with rotary embedding against hand formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kdecl/runtime/fmha_paged_case.hpp"
#include "kdecl/kernels/fmha/cuda/decode/decode_plan.hpp"
#include "kdecl/kernels/fmha/host/fmha_paged_host.hpp"
#include "kdecl/numeric/host_storage.hpp"
#include "kdecl/reference/fmha_reference.hpp"

namespace kdecl {
namespace {

using bf16 = host_storage_t<dtype::bf16>;
using fp16 = host_storage_t<dtype::fp16>;

fmha_paged_problem valid_problem() {
  fmha_paged_problem p;
  p.family = fmha_family::fwd_splitkv;
  p.batch = 2;
  p.heads_q = 32;
  p.heads_kv = 8;
  p.hdim = 128;
  p.page_size = 16;
  p.num_pages = 100;
  p.max_pages_per_seq = 8;
  p.seqlens_kv = {100, 128};
  return p;
}

void expect_error(const fmha_paged_problem& p, const std::string& fragment) {
  const auto e = p.validate();
  ASSERT_TRUE(e.has_value()) << "expected an error containing: " << fragment;
  EXPECT_NE(e->find(fragment), std::string::npos) << *e;
}

TEST(FmhaPagedProblem, ValidationNamesValueAndRule) {
  EXPECT_FALSE(valid_problem().validate().has_value()) << *valid_problem().validate();
  auto p = valid_problem();
  p.page_size = 24;
  expect_error(p, "page_size = 24 must be a power of two from 1 to 256");
  p.page_size = 512;
  expect_error(p, "page_size = 512");
  p = valid_problem();
  p.heads_q = 12;
  p.heads_kv = 5;
  expect_error(p, "heads_q = 12 is not a multiple of heads_kv = 5");
  p = valid_problem();
  p.seqlens_kv = {100, 129};
  expect_error(p, "sequence 1 has 129 keys, 9 pages of 16, but the block table holds 8 per sequence");
  p = valid_problem();
  p.seqlens_kv = {1};
  expect_error(p, "seqlens_kv holds 1 lengths; batch is 2");
  p = valid_problem();
  p.table_stride = 4;
  expect_error(p, "table_stride = 4 is smaller than the block table's width max_pages_per_seq = 8");
  p = valid_problem();
  p.seqlen_q = 65;
  expect_error(p, "seqlen_q = 65: decode takes 1 to 64");
  p = valid_problem();
  p.hdim = 100;
  expect_error(p, "hdim = 100");
  p = valid_problem();
  p.splits = 300;
  expect_error(p, "splits = 300");
  p = valid_problem();
  p.qkv = dtype::fp32;
  expect_error(p, "dtype fp32");
  p = valid_problem();
  p.seqlens_kv = {-1, 3};
  expect_error(p, "seqlens_kv[0] = -1 must not be negative");
  p = valid_problem();
  p.k_strides.row = 130;
  expect_error(p, "K cache strides (0, 130, 0) must be multiples of 8");

  p = valid_problem();
  p.table = page_table_kind::page_list;
  p.page_offsets = {0, 6, 20};
  expect_error(p, "sequence 0 has 100 keys, 7 pages of 16, but the page list gives it 6");
  p.page_offsets = {0, 7};
  expect_error(p, "page_offsets holds 2 offsets; a page list needs batch + 1 = 3");
  p.page_offsets = {0, 9, 8};
  expect_error(p, "page_offsets[2] = 8 is below page_offsets[1] = 9");

  p = valid_problem();
  p.family = fmha_family::fwd_appendkv;
  p.seqlen_q = 4;
  p.seqlens_kv = {100, 126};  // 130 keys after appending: 9 pages
  expect_error(p, "sequence 1 has 130 keys after appending 4, 9 pages of 16");
  p.seqlens_kv = {100, 120};
  p.rope = rope_kind::half;
  p.rotary_dim = 7;
  expect_error(p, "rotary_dim = 7 must be even");
  p.rotary_dim = 64;
  p.rope_max_position = 110;
  expect_error(p, "sequence 1 reaches position 123 but the rotary tables hold 110 positions");
  p.family = fmha_family::fwd;
  expect_error(p, "family fwd is not a paged family");
}

TEST(FmhaPagedProblem, PageIndicesOutsideThePool) {
  auto p = valid_problem();
  std::vector<std::int32_t> table(16, 0);
  table[8 + 7] = 100;  // sequence 1 uses 8 pages
  const auto e = p.validate_pages(table.data());
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(*e, "page 7 of sequence 1 is index 100, outside the pool of 100 pages");
  table[8 + 7] = 99;
  EXPECT_FALSE(p.validate_pages(table.data()).has_value());
}

TEST(FmhaPagedProblem, SplitRangesCoverTheBandInWholeTiles) {
  for (std::int64_t n : {0, 1, 63, 64, 65, 1000, 4096}) {
    for (int splits : {1, 2, 3, 7, 64}) {
      const paged_key_range band{5, 5 + n};
      std::int64_t at = band.begin;
      for (int s = 0; s < splits; ++s) {
        const auto r = paged_split_range(band, s, splits, 64);
        EXPECT_EQ(r.begin, std::min(at, band.end));
        if (r.end > r.begin && r.end < band.end) EXPECT_EQ((r.end - r.begin) % 64, 0);
        at = std::max(at, r.end);
      }
      EXPECT_EQ(at, band.end) << n << " keys, " << splits << " splits";
    }
  }
  // Bottom-right causal with 3 query tokens over 10 keys: every key; a window of 2: keys 5..9.
  EXPECT_EQ(paged_band(fmha_mask::bottom_right, -1, -1, 3, 10).end, 10);
  const auto w = paged_band(fmha_mask::generic, 2, 0, 3, 10);
  EXPECT_EQ(w.begin, 5);
  EXPECT_EQ(w.end, 10);
}

template <class T>
void expect_matches_reference(const test::paged_config& cfg, dtype dt) {
  auto c = test::make_paged_case<T>(cfg, dt);
  ASSERT_FALSE(c.p.validate().has_value()) << *c.p.validate();
  ASSERT_FALSE(c.p.validate_pages(c.table.data()).has_value());
  std::vector<T> o(c.q.size(), T(std::numeric_limits<float>::quiet_NaN()));
  std::vector<float> lse(std::size_t(c.p.total_q() * c.p.heads_q), std::numeric_limits<float>::quiet_NaN());
  auto a = c.host_args();
  a.o = o.data();
  a.lse = lse.data();
  kernels::host::paged_decode<T>(c.p, a);

  auto g = c.gathered();
  fmha_args ga;
  ga.q = g.q.data();
  ga.k = g.k.data();
  ga.v = g.v.data();
  ga.sinks = c.sinks.empty() ? nullptr : c.sinks.data();
  ga.cu_seqlens_q = g.p.cu_seqlens_q.data();
  ga.cu_seqlens_kv = g.p.cu_seqlens_kv.data();
  const auto ref = reference::fmha(g.p, ga);
  const std::int64_t hq = c.p.heads_q, d = c.p.hdim;
  const double tol = dt == dtype::bf16 ? 1.0 / 128 : 1.0 / 1024;
  for (std::int64_t b = 0; b < c.p.batch; ++b)
    for (std::int64_t s = 0; s < c.p.q_len(b); ++s)
      for (std::int64_t h = 0; h < hq; ++h) {
        const std::int64_t row = c.p.q_at(c.p.o_strides, b, s, h) / d;  // packed: (query row) * hq + h
        for (std::int64_t x = 0; x < d; ++x) {
          const double got = double(float(o[std::size_t(row * d + x)])), want = ref.o[std::size_t(row * d + x)];
          ASSERT_TRUE(std::abs(got - want) <= tol) << "b " << b << " s " << s << " h " << h << " d " << x << ": " << got
                                                   << " vs " << want;
        }
        const double got_lse = lse[std::size_t(c.p.lse_at(b, h, s))], want_lse = ref.lse[std::size_t(row)];
        if (std::isinf(want_lse)) EXPECT_EQ(got_lse, want_lse);
        else EXPECT_NEAR(got_lse, want_lse, 1e-4 * std::max(1.0, std::abs(want_lse)));
      }
}

TEST(FmhaPagedHost, DecodeMatchesContiguousReference) {
  test::paged_config cfg;
  cfg.lengths = {1, 17, 0, 200, 64};
  cfg.heads_q = 8;
  cfg.heads_kv = 2;
  cfg.hdim = 64;
  expect_matches_reference<bf16>(cfg, dtype::bf16);
  cfg.page_size = 1;
  cfg.table = page_table_kind::page_list;
  expect_matches_reference<fp16>(cfg, dtype::fp16);
  cfg.page_size = 256;
  cfg.hdim = 256;
  cfg.heads_q = 4;
  cfg.heads_kv = 1;  // MQA
  expect_matches_reference<bf16>(cfg, dtype::bf16);
}

TEST(FmhaPagedHost, SpeculativeTokensWithMasksSoftCapAndSinks) {
  test::paged_config cfg;
  cfg.lengths = {5, 40, 3, 130};
  cfg.seqlen_q = 4;
  cfg.heads_q = 6;
  cfg.heads_kv = 3;
  cfg.hdim = 128;
  cfg.page_size = 8;
  for (auto mask : {fmha_mask::bottom_right, fmha_mask::top_left, fmha_mask::generic}) {
    cfg.mask = mask;
    cfg.window_left = mask == fmha_mask::generic ? 9 : -1;
    cfg.window_right = mask == fmha_mask::generic ? 0 : -1;
    cfg.soft_cap = mask == fmha_mask::top_left ? 0.0f : 3.0f;
    cfg.sinks = mask != fmha_mask::bottom_right;
    cfg.seed += 1;
    expect_matches_reference<bf16>(cfg, dtype::bf16);
  }
}

template <class T>
void expect_split_equals_one_stage(const test::paged_config& cfg, int splits) {
  auto c = test::make_paged_case<T>(cfg, dtype::bf16);
  const std::size_t rows = std::size_t(c.p.batch * c.p.heads_q * c.p.seqlen_q);
  std::vector<T> o1(c.q.size()), o2(c.q.size());
  std::vector<float> lse1(rows), lse2(rows);
  std::vector<float> part_o(rows * std::size_t(splits * c.p.hdim)), part_lse(rows * std::size_t(splits));
  auto a = c.host_args();
  a.o = o1.data();
  a.lse = lse1.data();
  kernels::host::paged_decode<T>(c.p, a);
  a.o = o2.data();
  a.lse = lse2.data();
  kernels::host::paged_split_partials<T>(c.p, a, splits, 64, part_o.data(), part_lse.data());
  kernels::host::paged_split_combine<T>(c.p, a, splits, part_o.data(), part_lse.data());
  for (std::size_t i = 0; i < o1.size(); ++i)
    ASSERT_NEAR(float(o1[i]), float(o2[i]), 1.0f / 128) << "element " << i << " with " << splits << " splits";
  for (std::size_t i = 0; i < rows; ++i) {
    if (std::isinf(lse1[i])) EXPECT_EQ(lse1[i], lse2[i]);
    else EXPECT_NEAR(lse1[i], lse2[i], 1e-4f * std::max(1.0f, std::abs(lse1[i])));
  }
}

TEST(FmhaPagedHost, BatchPrefillChunkedOverPages) {
  test::paged_config cfg;
  cfg.family = fmha_family::batch_prefill;
  cfg.lengths = {100, 1, 0, 300, 77};   // keys: a cached prefix, then the new queries
  cfg.q_lengths = {30, 1, 0, 300, 5};   // query tokens (the last keys of each sequence)
  cfg.heads_q = 8;
  cfg.heads_kv = 2;
  cfg.hdim = 64;
  cfg.mask = fmha_mask::bottom_right;
  expect_matches_reference<bf16>(cfg, dtype::bf16);
  cfg.table = page_table_kind::page_list;
  cfg.page_size = 4;
  cfg.mask = fmha_mask::generic;
  cfg.window_left = 50;
  cfg.window_right = 0;
  cfg.sinks = true;
  cfg.soft_cap = 5.0f;
  expect_matches_reference<fp16>(cfg, dtype::fp16);
  auto p = valid_problem();
  p.family = fmha_family::batch_prefill;
  p.cu_seqlens_q = {0, 5};
  expect_error(p, "cu_seqlens_q holds 2 offsets; batch_prefill needs batch + 1 = 3");
  p.cu_seqlens_q = {0, 5, 4};
  expect_error(p, "cu_seqlens_q[2] = 4 is below cu_seqlens_q[1] = 5");
}

TEST(FmhaPagedHost, SplitKvPartialsCombineToTheOneStageResult) {
  test::paged_config cfg;
  cfg.family = fmha_family::fwd_splitkv;
  cfg.lengths = {1000, 3, 0, 129, 640};
  cfg.heads_q = 4;
  cfg.heads_kv = 2;
  cfg.hdim = 64;
  cfg.sinks = true;
  for (int splits : {1, 2, 5, 16}) expect_split_equals_one_stage<bf16>(cfg, splits);
  cfg.mask = fmha_mask::generic;
  cfg.window_left = 100;
  cfg.window_right = 0;
  cfg.seqlen_q = 3;
  cfg.sinks = false;
  cfg.table = page_table_kind::page_list;
  for (int splits : {3, 11}) expect_split_equals_one_stage<bf16>(cfg, splits);
}

TEST(FmhaPagedHost, AppendWritesRotatedKeysIntoTheirPages) {
  for (auto rope : {rope_kind::none, rope_kind::interleaved, rope_kind::half}) {
    test::paged_config cfg;
    cfg.family = fmha_family::fwd_appendkv;
    cfg.lengths = {5, 0, 31};
    cfg.seqlen_q = 3;
    cfg.heads_q = 4;
    cfg.heads_kv = 2;
    cfg.hdim = 16;
    cfg.page_size = 4;
    auto c = test::make_paged_case<fp16>(cfg, dtype::fp16);
    c.p.rope = rope;
    c.p.rotary_dim = 8;  // dims 8..15 pass through
    c.p.rope_max_position = 64;
    ASSERT_FALSE(c.p.validate().has_value()) << *c.p.validate();
    const std::int64_t half = 4, d = 16;
    std::vector<float> cosv(std::size_t(64 * half)), sinv(cosv.size());
    for (std::int64_t pos = 0; pos < 64; ++pos)
      for (std::int64_t i = 0; i < half; ++i) {
        const double theta = double(pos) * std::pow(10000.0, -2.0 * double(i) / 8.0);
        cosv[std::size_t(pos * half + i)] = float(std::cos(theta));
        sinv[std::size_t(pos * half + i)] = float(std::sin(theta));
      }
    std::vector<fp16> k_new(std::size_t(3 * 3 * 2 * d)), v_new(k_new.size()), q_out(c.q.size());
    for (std::size_t i = 0; i < k_new.size(); ++i) {
      k_new[i] = fp16(float(int(i % 13) - 6) / 8.0f);
      v_new[i] = fp16(float(int(i % 7) - 3) / 4.0f);
    }
    const auto k_before = c.k_cache;
    auto a = c.host_args();
    a.k_new = k_new.data();
    a.v_new = v_new.data();
    a.q_out = q_out.data();
    a.rope_cos = cosv.data();
    a.rope_sin = sinv.data();
    kernels::host::paged_append<fp16>(c.p, a);

    std::size_t written = 0;
    for (std::int64_t b = 0; b < 3; ++b)
      for (std::int64_t i = 0; i < 3; ++i)
        for (std::int64_t hk = 0; hk < 2; ++hk) {
          const std::int64_t pos = c.p.seqlens_kv[std::size_t(b)] + i;
          const std::int32_t* t = kernels::host::paged_table_of(c.p, a, b);
          const std::int64_t at = kernels::host::paged_offset(c.p, t, c.p.k_strides, hk, pos);
          const std::int64_t src = ((b * 3 + i) * 2 + hk) * d;
          for (std::int64_t x = 0; x < d; ++x) {
            double want = float(k_new[std::size_t(src + x)]);
            if (rope != rope_kind::none && x < 8) {
              const bool inter = rope == rope_kind::interleaved;
              const std::int64_t pair = inter ? x / 2 : x % 4;
              const std::int64_t x0 = inter ? 2 * pair : pair, x1 = inter ? 2 * pair + 1 : pair + 4;
              const double cs = cosv[std::size_t(pos * half + pair)], sn = sinv[std::size_t(pos * half + pair)];
              const double a0 = float(k_new[std::size_t(src + x0)]), a1 = float(k_new[std::size_t(src + x1)]);
              want = x == x0 ? a0 * cs - a1 * sn : a0 * sn + a1 * cs;
            }
            EXPECT_NEAR(float(c.k_cache[std::size_t(at + x)]), want, 2e-3) << "b " << b << " token " << i << " d " << x;
            EXPECT_EQ(float(c.v_cache[std::size_t(at + x)]), float(v_new[std::size_t(src + x)]));
            ++written;
          }
        }
    // Nothing else changed.
    std::size_t changed = 0;
    for (std::size_t i = 0; i < k_before.size(); ++i) changed += float(k_before[i]) != float(c.k_cache[i]);
    EXPECT_LE(changed, written);
    // Q rotated the same way (position of token 0 of sequence 0 is 5).
    if (rope == rope_kind::none)
      for (std::size_t i = 0; i < c.q.size(); ++i) ASSERT_EQ(float(q_out[i]), float(c.q[i]));
  }
}

TEST(FmhaPagedHost, Fp8CacheMatchesDequantizedReference) {
  for (bool per_head : {false, true}) {
    test::paged_config cfg;
    cfg.lengths = {1, 300, 0, 77};
    cfg.heads_q = 8;
    cfg.heads_kv = 4;
    cfg.hdim = 64;
    cfg.seqlen_q = 2;
    cfg.mask = fmha_mask::bottom_right;
    cfg.fp8_cache = true;
    cfg.scale_per_head = per_head;
    cfg.sinks = per_head;
    auto c = test::make_paged_case<bf16>(cfg, dtype::bf16);
    ASSERT_FALSE(c.p.validate().has_value()) << *c.p.validate();
    std::vector<bf16> o(c.q.size());
    std::vector<float> lse(std::size_t(c.p.batch * c.p.heads_q * c.p.seqlen_q));
    auto a = c.host_args();
    a.o = o.data();
    a.lse = lse.data();
    kernels::host::paged_decode<bf16>(c.p, a);
    auto g = c.gathered_fp32();
    fmha_args ga;
    ga.q = g.q.data();
    ga.k = g.k.data();
    ga.v = g.v.data();
    ga.sinks = c.sinks.empty() ? nullptr : c.sinks.data();
    ga.cu_seqlens_q = g.p.cu_seqlens_q.data();
    ga.cu_seqlens_kv = g.p.cu_seqlens_kv.data();
    const auto ref = reference::fmha(g.p, ga);
    const std::int64_t hq = c.p.heads_q, d = c.p.hdim, sq = c.p.seqlen_q;
    for (std::int64_t b = 0; b < c.p.batch; ++b)
      for (std::int64_t s = 0; s < sq; ++s)
        for (std::int64_t h = 0; h < hq; ++h) {
          const std::int64_t row = (b * sq + s) * hq + h;
          for (std::int64_t x = 0; x < d; ++x)
            ASSERT_NEAR(float(o[std::size_t(row * d + x)]), ref.o[std::size_t(row * d + x)], 1.0 / 128)
                << "b " << b << " s " << s << " h " << h;
        }
  }
  // Validation of the fp8 cache.
  auto p = valid_problem();
  p.cache = dtype::fp8;
  p.hdim = 72;
  expect_error(p, "hdim = 72: an fp8 cache needs head dims that are multiples of 16");
  p.hdim = 128;
  p.k_strides.row = 1032;
  expect_error(p, "must be multiples of 16 elements for an fp8 cache");
  p = valid_problem();
  p.cache = dtype::fp16;
  expect_error(p, "cache dtype fp16: the cache holds Q's dtype or fp8");
}

TEST(FmhaPagedHost, AppendQuantizesIntoAnFp8Cache) {
  test::paged_config cfg;
  cfg.family = fmha_family::fwd_appendkv;
  cfg.lengths = {3, 17};
  cfg.seqlen_q = 2;
  cfg.heads_q = 2;
  cfg.heads_kv = 2;
  cfg.hdim = 32;
  cfg.page_size = 8;
  cfg.fp8_cache = true;
  cfg.scale_per_head = true;
  auto c = test::make_paged_case<bf16>(cfg, dtype::bf16);
  std::vector<bf16> kn(std::size_t(2 * 2 * 2 * 32)), vn(kn.size());
  for (std::size_t i = 0; i < kn.size(); ++i) {
    kn[i] = bf16(float(int(i % 17) - 8) / 8.0f);
    vn[i] = bf16(float(int(i % 5) - 2) / 2.0f);
  }
  auto a = c.host_args();
  a.k_new = kn.data();
  a.v_new = vn.data();
  kernels::host::paged_append<bf16>(c.p, a);
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t i = 0; i < 2; ++i)
      for (std::int64_t hk = 0; hk < 2; ++hk) {
        const std::int64_t at = kernels::host::paged_offset(c.p, kernels::host::paged_table_of(c.p, a, b), c.p.k_strides,
                                                            hk, c.p.seqlens_kv[std::size_t(b)] + i);
        for (std::int64_t x = 0; x < 32; ++x) {
          const std::size_t src = std::size_t(((b * 2 + i) * 2 + hk) * 32 + x);
          const double k = float(c.k8[std::size_t(at + x)]) * c.k_scale[std::size_t(hk)];
          const double v = float(c.v8[std::size_t(at + x)]) * c.v_scale[std::size_t(hk)];
          EXPECT_NEAR(k, float(kn[src]), std::abs(float(kn[src])) / 16 + 1e-6);
          EXPECT_NEAR(v, float(vn[src]), std::abs(float(vn[src])) / 16 + 1e-6);
        }
      }
}

// The CUDA decode's plan (pure C++): under 80% of a wave, the fewest splits within 85% of
// the best wave efficiency on 2 blocks per SM, each at least two tiles; one to three waves,
// splits of at least 8 tiles where they even the waves out; more, one stage.
TEST(FmhaPagedPlan, SplitsFillTheDeviceWithFewWaves) {
  namespace dec = kernels::cuda::decode;
  fmha_paged_problem p;
  p.family = fmha_family::fwd_splitkv;
  p.heads_q = 32;
  p.heads_kv = 8;
  p.hdim = 128;
  auto plan_for = [&](std::int64_t batch, std::int32_t len) {
    p.batch = batch;
    p.seqlens_kv.assign(std::size_t(batch), len);
    return dec::plan_paged_decode(p, 132, 2);
  };
  const auto b1 = plan_for(1, 32768);  // 8 blocks on 264 slots
  EXPECT_EQ(b1.splits, 29);
  EXPECT_EQ(b1.blocks, 232);
  EXPECT_EQ(b1.workspace_bytes, std::size_t(32) * 29 * 129 * 4);
  EXPECT_EQ(plan_for(1, 4096).splits, 32);  // 64 tiles: 32 splits of 2 (22 of 3 fill less)
  EXPECT_EQ(plan_for(1, 200).splits, 2);    // 4 tiles: at most 2 splits of 2 tiles
  EXPECT_EQ(plan_for(8, 32768).splits, 4);  // 64 blocks: 4 splits make 256 of 264
  EXPECT_EQ(plan_for(64, 32768).splits, 1);
  EXPECT_EQ(plan_for(64, 32768).workspace_bytes, 0u);
  EXPECT_EQ(plan_for(256, 4096).splits, 1);
  // One to three waves: splits even the waves out. 512 blocks on 396 slots (3 per SM) leave the
  // second wave a third full (0.65 busy); 3 splits fill 4 waves to 0.97.
  auto plan_3_per_sm = [&](std::int64_t batch, std::int32_t len) {
    p.batch = batch;
    p.seqlens_kv.assign(std::size_t(batch), len);
    return dec::plan_paged_decode(p, 132, 3);
  };
  // Under one wave, splits fill at most 2 blocks per SM whatever the occupancy (decode_split_blocks_per_sm).
  EXPECT_EQ(plan_3_per_sm(1, 32768).splits, 29);
  EXPECT_EQ(plan_3_per_sm(8, 32768).splits, 4);
  EXPECT_EQ(plan_3_per_sm(32, 4096).splits, 1);  // 256 blocks: 0.97 of 264 slots
  EXPECT_EQ(plan_3_per_sm(64, 32768).splits, 3);
  EXPECT_EQ(plan_3_per_sm(64, 256).splits, 1);    // 4 tiles: no split of 8 tiles or more
  EXPECT_EQ(plan_3_per_sm(48, 32768).splits, 1);  // 384 blocks: 0.97 of one wave
  EXPECT_EQ(plan_3_per_sm(256, 4096).splits, 1);  // 2048 blocks: five waves and more stay one stage
  p.splits = 7;
  EXPECT_EQ(plan_for(64, 32768).splits, 7);  // explicit
  p.splits = 0;
  p.family = fmha_family::fwd_pagedkv;
  EXPECT_EQ(plan_for(1, 32768).splits, 1);
  // MQA with 64 query heads: 4 groups of 16 rows.
  p.family = fmha_family::fwd_splitkv;
  p.heads_q = 64;
  p.heads_kv = 1;
  EXPECT_EQ(plan_for(1, 1024).row_groups, 4);
  EXPECT_EQ(dec::decode_padded_hdim(80), 128);
  for (int shift = 0; shift <= 8; ++shift) {  // page sizes 1 to 256: key j in page j >> shift
    p.page_size = std::int64_t(1) << shift;
    EXPECT_EQ(p.page_shift(), shift);
  }
}

}  // namespace
}  // namespace kdecl
