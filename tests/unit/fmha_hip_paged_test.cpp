// The HIP serving-attention kernels (kernels/fmha/hip/fmha_paged_hip.hpp: decode,
// split-KV + combine, batch_prefill over a paged cache, append-KV; gfx90a and gfx942)
// from the host: no AMD GPU exists here, the kernels are compiled by hipcc and never
// run. These tests check what can be checked without one:
//  * the block descriptors the kernels build (fmha_hip_paged_blocks.hpp, the same
//    functions, from the arguments run() fills) walked as the kernel walks its rows
//    and key blocks, on random paged problems (GQA, query tokens, every mask, page
//    tables and page lists, padded strides, splits, chunked prefill, empty sequences):
//    every (query row, key) pair the host reference lets see is visited exactly once
//    over the splits and blocks and no other, at the K/V, Q, O and LSE offsets of the
//    reference's own addressing (kernels/fmha/host/fmha_paged_host.hpp), the partial
//    results at the layout the host's split-KV combine reads;
//  * the key-span band arithmetic against brute force;
//  * the arch tables against the kernel (every qr_pagedkv key they accept is one it
//    builds; fp8 caches and bias refused) and the kernels' run-time refusals;
//  * in a build with the HIP backend, the dispatcher's offline selection for gfx90a and
//    gfx942 of the shipped set (instances/fmha_paged_hip.cpp).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "kdecl/dsl/dsl.hpp"
#include "kdecl/fmha/fmha_paged_dispatcher.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_band.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_geometry.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_paged_blocks.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_paged_rules.hpp"
#include "kdecl/kernels/fmha/host/fmha_paged_host.hpp"
#include "kdecl/numeric/host_storage.hpp"
#include "kdecl/registry/registry.hpp"
#include "kdecl/runtime/fmha_paged_case.hpp"
#include "paged_kernels.hpp"

namespace {

using namespace kdecl;
namespace khip = kdecl::kernels::hip;
namespace khost = kdecl::kernels::host;
namespace tables = kdecl::arch::fmha;
using bf16_t = host_storage_t<dtype::bf16>;

// ---- the key-span band

TEST(FmhaHipPagedBand, SpansLimitTheKeysAndMarkTheirEndsAsEdges) {
  std::mt19937 rng(20261205);
  int interior = 0, edges = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    khip::fmha_band b;
    b.masked = trial % 4 != 0;
    b.offset = int(rng() % 200) - 50;
    b.left = int(rng() % 60) - 10;
    b.right = int(rng() % 60) - 10;
    const int skv = int(rng() % 400), n0 = trial % 2 ? 64 : 16;
    const int s0 = skv ? int(rng() % (skv + 1)) : 0, s1 = skv ? s0 + int(rng() % (skv - s0 + 1)) : 0;
    const khip::fmha_key_span span{s0, s1};
    const int m0 = int(rng() % 100), rows = int(rng() % 20) + 1;
    const khip::fmha_key_blocks blocks = khip::fmha_blocks_of(b, m0, rows, span, n0);
    for (int i = m0; i < m0 + rows; ++i)
      for (int j = -2; j < skv + 2; ++j) {
        const bool want = j >= s0 && j < s1 && khip::fmha_visible(b, i, j, skv);
        ASSERT_EQ(khip::fmha_visible(b, i, j, span), want);
        if (want) ASSERT_TRUE(j / n0 >= blocks.begin && j / n0 < blocks.begin + blocks.count) << "key " << j;
      }
    for (int t = 0; t < blocks.count; ++t) {
      const int j0 = (blocks.begin + t) * n0;
      if (khip::fmha_block_is_edge(b, m0, rows, j0, n0, span)) {
        ++edges;
        continue;
      }
      ++interior;
      for (int i = m0; i < m0 + rows; ++i)
        for (int j = j0; j < j0 + n0; ++j) ASSERT_TRUE(khip::fmha_visible(b, i, j, span)) << "interior, i " << i << " j " << j;
    }
  }
  EXPECT_GT(interior, 100);
  EXPECT_GT(edges, 100);
}

// ---- the blocks' walk against the host reference

// The host reference's visibility (fmha_paged_host.hpp paged_attention_partial).
bool reference_visible(const fmha_paged_problem& p, std::int64_t b, std::int64_t s, std::int64_t j) {
  const std::int64_t skv = p.seqlens_kv[std::size_t(b)];
  const std::int64_t offset = p.mask == fmha_mask::top_left ? 0 : skv - p.q_len(b);
  std::int64_t left = -1, right = -1;
  if (p.mask == fmha_mask::top_left || p.mask == fmha_mask::bottom_right) right = 0;
  if (p.mask == fmha_mask::generic) {
    left = p.window_left;
    right = p.window_right;
  }
  const std::int64_t diag = s + offset;
  return j >= 0 && j < skv && (left < 0 || j >= diag - left) && (right < 0 || j <= diag + right);
}

using pair_key = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>;  // (b, head, token, key)

// Walks one block as the kernel does (rows, key blocks, edge tests) and checks its offsets.
void walk_block(const fmha_paged_problem& p, const fmha_paged_args& a, const khip::fmha_hip_paged_params& kp,
                const khip::fmha_hip_paged_block& d, std::int64_t b, int split, int n0, std::map<pair_key, int>& seen) {
  const std::int32_t* table = khost::paged_table_of(p, a, b);
  const khip::paged_kv_rows k_rows{table, kp.k_page, kp.k_row, kp.page_shift}, v_rows{table, kp.v_page, kp.v_row, kp.page_shift};
  const int t_first = d.rows.token(0), t_count = d.rows.token(d.row_count - 1) - t_first + 1;
  const khip::fmha_key_blocks blocks = khip::fmha_blocks_of(d.band, t_first, t_count, d.keys, n0);
  for (int r = 0; r < d.row_count; ++r) {
    const int token = d.rows.token(r), head = d.rows.head(r);
    ASSERT_EQ(head / p.group(), d.kv_head);
    ASSERT_EQ(d.q + token * kp.q_seq + head * kp.q_head, p.q_at(p.q_strides, b, token, head)) << "Q of row " << r;
    if (d.partial) {
      const std::int64_t row = ((b * p.heads_q + head) * p.seqlen_q + token) * kp.splits + split;
      ASSERT_EQ(d.part_o + token * d.part_seq + head * d.part_head, row * p.hdim) << "partial O of row " << r;
      ASSERT_EQ(d.part_lse + token * d.part_lse_seq + head * d.part_lse_head, row) << "partial LSE of row " << r;
    } else {
      ASSERT_EQ(d.o + token * kp.o_seq + head * kp.o_head, p.q_at(p.o_strides, b, token, head)) << "O of row " << r;
      ASSERT_EQ(d.lse + head * d.lse_head + token, p.lse_at(b, head, token)) << "LSE of row " << r;
    }
    for (int t = 0; t < blocks.count; ++t) {
      const int j0 = (blocks.begin + t) * n0;
      const bool edge = khip::fmha_block_is_edge(d.band, t_first, t_count, j0, n0, d.keys);
      for (int j = j0; j < j0 + n0 && j < d.keys.end; ++j) {
        const bool visible = !edge || khip::fmha_visible(d.band, token, j, d.keys);
        if (!visible) continue;
        ASSERT_TRUE(reference_visible(p, b, token, j)) << "b " << b << " token " << token << " key " << j
                                                       << (edge ? " (edge block)" : " (interior block)");
        ++seen[{b, head, token, j}];
        ASSERT_EQ(d.kv_head * kp.k_head + k_rows.at(j), khost::paged_offset(p, table, p.k_strides, d.kv_head, j));
        ASSERT_EQ(d.kv_head * kp.v_head + v_rows.at(j), khost::paged_offset(p, table, p.v_strides, d.kv_head, j));
      }
    }
  }
}

// Every pair the reference lets see, seen exactly once; nothing else.
void expect_each_visible_pair_once(const fmha_paged_problem& p, const std::map<pair_key, int>& seen) {
  std::size_t want = 0;
  for (std::int64_t b = 0; b < p.batch; ++b)
    for (std::int64_t h = 0; h < p.heads_q; ++h)
      for (std::int64_t s = 0; s < p.q_len(b); ++s)
        for (std::int64_t j = 0; j < p.seqlens_kv[std::size_t(b)]; ++j) {
          if (!reference_visible(p, b, s, j)) continue;
          ++want;
          const auto it = seen.find({b, h, s, j});
          ASSERT_TRUE(it != seen.end()) << "b " << b << " head " << h << " token " << s << " key " << j << " never visited";
          ASSERT_EQ(it->second, 1) << "b " << b << " head " << h << " token " << s << " key " << j;
        }
  EXPECT_EQ(seen.size(), want);
}

// Pads the strides of Q, O and the caches (multiples of 8 elements, as validate() asks).
void pad_strides(fmha_paged_problem& p, std::mt19937& rng) {
  const std::int64_t d = p.hdim;
  const std::int64_t kh = d + 8 * std::int64_t(rng() % 3), kr = kh * p.heads_kv + 8 * std::int64_t(rng() % 2);
  p.k_strides = {kr * p.page_size + 8 * std::int64_t(rng() % 3), kr, kh};
  p.v_strides = {kr * p.page_size, kr, kh};
  const std::int64_t qh = d + 8 * std::int64_t(rng() % 2), qs = qh * p.heads_q + 8 * std::int64_t(rng() % 2);
  p.q_strides = {qs * std::max<std::int64_t>(p.seqlen_q, 1) + 16, qs, qh};
  p.o_strides = {qs * std::max<std::int64_t>(p.seqlen_q, 1), qs, qh};
}

// Page size 1-32, table kind and mask by trial (each mask in turn), random windows.
void random_pages_and_mask(test::paged_config& cfg, std::mt19937& rng, int trial) {
  const fmha_mask masks[] = {fmha_mask::none, fmha_mask::top_left, fmha_mask::bottom_right, fmha_mask::generic};
  cfg.page_size = std::int64_t(1) << (rng() % 6);
  cfg.table = trial % 2 ? page_table_kind::page_list : page_table_kind::block_table;
  cfg.mask = masks[trial % 4];
  cfg.window_left = int(rng() % 70) - 5;
  cfg.window_right = int(rng() % 20) - 5;
  if (cfg.mask == fmha_mask::generic && cfg.window_left < 0 && cfg.window_right < 0) cfg.window_left = 30;
}

TEST(FmhaHipPagedBlocks, DecodeVisitsEachVisiblePairOnceAtTheReferenceOffsets) {
  std::mt19937 rng(7);
  int split_cases = 0;
  for (int trial = 0; trial < 120; ++trial) {
    test::paged_config cfg;
    cfg.family = trial % 3 == 0 ? fmha_family::fwd_pagedkv : fmha_family::fwd_splitkv;
    const int batch = 1 + int(rng() % 3);
    for (int b = 0; b < batch; ++b) cfg.lengths.push_back(int(rng() % 300));
    cfg.heads_kv = 1 + int(rng() % 2);
    cfg.heads_q = cfg.heads_kv * std::int64_t(std::array{1, 4, 8}[rng() % 3]);
    cfg.seqlen_q = 1 + int(rng() % 4);
    for (auto& l : cfg.lengths) l = std::max<std::int32_t>(l, std::int32_t(cfg.seqlen_q));  // queries are the last keys
    cfg.hdim = 64;
    random_pages_and_mask(cfg, rng, trial);
    cfg.splits = cfg.family == fmha_family::fwd_splitkv ? 1 + int(rng() % 5) : 0;
    cfg.seed = std::uint64_t(trial);
    auto c = test::make_paged_case<bf16_t>(cfg, dtype::bf16);
    pad_strides(c.p, rng);
    ASSERT_FALSE(c.p.validate()) << *c.p.validate();
    const fmha_paged_problem p = c.p.normalized();
    fmha_paged_args a = c.host_args();
    float workspace_stand_in[4];
    a.workspace = workspace_stand_in;  // only offsets are computed from it
    const int splits = p.family == fmha_family::fwd_splitkv ? p.splits : 1;
    split_cases += splits > 1;
    const khip::fmha_hip_paged_params kp = khip::paged_params_of(p, a, splits);
    const int m0 = 16, n0 = 64;
    const bool masked = p.mask != fmha_mask::none;
    const int row_blocks = int((p.group() * p.seqlen_q + m0 - 1) / m0);
    std::map<pair_key, int> seen;
    for (std::int64_t b = 0; b < p.batch; ++b)
      for (int hk = 0; hk < p.heads_kv; ++hk)
        for (int x = 0; x < row_blocks * splits; ++x) {
          const khip::fmha_hip_paged_block d =
              khip::decode_block_of(kp, masked, x, hk, int(b), int(p.seqlens_kv[std::size_t(b)]), m0, n0);
          ASSERT_FALSE(d.empty);
          ASSERT_EQ(d.partial, splits > 1);
          walk_block(p, a, kp, d, b, x % splits, n0, seen);
          if (HasFatalFailure()) return;
        }
    expect_each_visible_pair_once(p, seen);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(split_cases, 40);
}

TEST(FmhaHipPagedBlocks, PrefillVisitsEachVisiblePairOnceAtTheReferenceOffsets) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 60; ++trial) {
    test::paged_config cfg;
    cfg.family = fmha_family::batch_prefill;
    const int batch = 1 + int(rng() % 3);
    for (int b = 0; b < batch; ++b) {
      const int q = trial % 7 == 0 && b == 0 ? 0 : int(rng() % 150);  // an empty sequence now and then
      cfg.q_lengths.push_back(q);
      cfg.lengths.push_back(q + int(rng() % 100));  // a cached prefix before the queries
    }
    cfg.heads_kv = 1 + int(rng() % 2);
    cfg.heads_q = cfg.heads_kv * std::int64_t(std::array{1, 4}[rng() % 2]);
    cfg.hdim = 64;
    random_pages_and_mask(cfg, rng, trial);
    cfg.seed = std::uint64_t(100 + trial);
    auto c = test::make_paged_case<bf16_t>(cfg, dtype::bf16);
    pad_strides(c.p, rng);
    ASSERT_FALSE(c.p.validate()) << *c.p.validate();
    const fmha_paged_problem p = c.p.normalized();
    const fmha_paged_args a = c.host_args();
    const khip::fmha_hip_paged_params kp = khip::paged_params_of(p, a, 1);
    const int m0 = trial % 2 ? 128 : 16, n0 = 64;
    const int q_blocks = int((p.seqlen_q + m0 - 1) / m0);
    std::map<pair_key, int> seen;
    for (std::int64_t b = 0; b < p.batch; ++b)
      for (int h = 0; h < p.heads_q; ++h)
        for (int mb = 0; mb < q_blocks; ++mb) {
          const int q_row0 = p.cu_seqlens_q[std::size_t(b)], sq = int(p.q_len(b));
          const khip::fmha_hip_paged_block d = khip::prefill_block_of(kp, p.mask != fmha_mask::none, mb, h, int(b), q_row0,
                                                                      sq, int(p.seqlens_kv[std::size_t(b)]), m0);
          ASSERT_EQ(d.empty, mb * m0 >= sq);
          if (d.empty) continue;
          walk_block(p, a, kp, d, b, 0, n0, seen);
          if (HasFatalFailure()) return;
        }
    expect_each_visible_pair_once(p, seen);
    if (HasFatalFailure()) return;
  }
}

// The arguments run() passes: the mask's encoding, the scale, the split workspace's layout.
TEST(FmhaHipPagedBlocks, ParamsCarryTheMaskScaleAndWorkspace) {
  test::paged_config cfg;
  cfg.family = fmha_family::fwd_splitkv;
  cfg.lengths = {100, 37};
  cfg.seqlen_q = 2;
  cfg.heads_q = 8;
  cfg.heads_kv = 2;
  cfg.hdim = 128;
  cfg.mask = fmha_mask::generic;
  cfg.window_left = 16;
  cfg.window_right = std::int64_t(1) << 40;  // beyond any sequence: unbounded
  cfg.soft_cap = 30.0f;
  cfg.sinks = true;
  auto c = test::make_paged_case<bf16_t>(cfg, dtype::bf16);
  const fmha_paged_problem p = c.p.normalized();
  fmha_paged_args a = c.host_args();
  std::vector<float> ws(1);
  a.workspace = ws.data();
  const khip::fmha_hip_paged_params kp = khip::paged_params_of(p, a, 3);
  EXPECT_FALSE(kp.top_left);
  EXPECT_EQ(kp.window_left, 16);
  EXPECT_EQ(kp.window_right, -1);
  EXPECT_FLOAT_EQ(kp.scale, 1.0f / std::sqrt(128.0f));
  EXPECT_FLOAT_EQ(kp.inv_soft_cap, 1.0f / 30.0f);
  EXPECT_EQ(kp.sinks, a.sinks);
  EXPECT_EQ(kp.part_o, ws.data());
  EXPECT_EQ(kp.part_lse, ws.data() + 2 * 8 * 2 * 3 * 128);  // after [batch, heads_q, seqlen_q, splits, hdim]
  fmha_paged_problem causal = p;
  causal.mask = fmha_mask::top_left;
  EXPECT_TRUE(khip::paged_params_of(causal, a, 1).top_left);
  EXPECT_EQ(khip::paged_params_of(causal, a, 1).window_right, 0);
  causal.mask = fmha_mask::bottom_right;
  EXPECT_FALSE(khip::paged_params_of(causal, a, 1).top_left);
  EXPECT_EQ(khip::paged_params_of(causal, a, 1).window_left, -1);
  EXPECT_EQ(khip::paged_params_of(causal, a, 1).window_right, 0);
  causal.mask = fmha_mask::none;
  EXPECT_EQ(khip::paged_params_of(causal, a, 1).window_right, -1);
  EXPECT_EQ(khip::paged_params_of(causal, a, 1).part_o, nullptr);
}

fmha_key decode_key(arch_id arch, int hdim) {
  fmha_key k;
  k.sig.family = fmha_family::fwd_splitkv;
  k.sig.qkv = k.sig.o = dtype::bf16;
  k.sig.hdim_q = k.sig.hdim_v = hdim;
  k.sig.mask = fmha_mask::generic;
  k.sig.lse = k.sig.logits_soft_cap = k.sig.sink = true;
  k.algo.pipe = fmha_pipeline::qr_pagedkv;
  k.algo.tile = {16, 64, 32, 0, 0, 0};
  k.algo.warps0 = k.algo.warps1 = {1, 1, 1};
  k.algo.warp_tile0 = k.algo.warp_tile1 = {16, 16, 32};
  k.algo.arch = arch;
  return k;
}

// ---- estimates on the reference parts (gfx90a: MI210, gfx942: MI300X)

// A long decode is bandwidth-bound and a long prefill compute-bound: each estimate lies between the
// datasheet time and a few times it (the prefill's was 166,639 us for 2 x 4k before the CDNA tables
// had peaks), and the MI300X's is the shorter.
TEST(FmhaHipPagedDispatch, EstimatesFollowTheReferencePartsFigures) {
  test::paged_config dec;
  dec.family = fmha_family::fwd_splitkv;
  dec.lengths = {8192, 8192};
  const fmha_paged_problem decode = test::make_paged_case<bf16_t>(dec, dtype::bf16).p.normalized();
  test::paged_config pre;
  pre.family = fmha_family::batch_prefill;
  pre.lengths = pre.q_lengths = {4096, 4096};
  const fmha_paged_problem prefill = test::make_paged_case<bf16_t>(pre, dtype::bf16).p.normalized();
  double previous_decode = 0.0, previous_prefill = 0.0;
  for (arch_id arch : {arch_id::gfx90a, arch_id::gfx942}) {
    const auto& spec = arch::spec_of(arch);
    const double peak = spec.peak_tflops(dtype::bf16);
    const double decode_us = fmha_paged_estimate_us(decode_key(arch, 128), decode);
    const double bytes_us = decode.bytes() / (spec.mem_bandwidth_gbs * 1e3);
    EXPECT_GT(decode_us, bytes_us) << to_string(arch);
    EXPECT_LT(decode_us, 3.0 * bytes_us + 10.0) << to_string(arch);

    fmha_key pk = decode_key(arch, 128);
    pk.sig.family = fmha_family::batch_prefill;
    pk.algo.tile = {128, 64, 32, 0, 0, 0};
    const double prefill_us = fmha_paged_estimate_us(pk, prefill);
    const double flops_us = 4.0 * 32 * 128 * 2 * 4096.0 * 4096.0 / (peak * 1e6);
    EXPECT_GT(prefill_us, flops_us) << to_string(arch);
    EXPECT_LT(prefill_us, 3.0 * flops_us) << to_string(arch);
    if (previous_decode > 0.0) {
      EXPECT_LT(decode_us, previous_decode);
      EXPECT_LT(prefill_us, previous_prefill / 3.0);
    }
    previous_decode = decode_us;
    previous_prefill = prefill_us;
  }
}

// ---- the tables against the kernels, and their refusals

TEST(FmhaHipPagedTables, EveryPagedKeyTheTablesAcceptIsOneTheKernelBuilds) {
  long accepted = 0;
  for (arch_id arch : {arch_id::gfx90a, arch_id::gfx942})
    for (fmha_family family : {fmha_family::fwd_pagedkv, fmha_family::fwd_splitkv, fmha_family::batch_prefill})
      for (dtype d : {dtype::fp16, dtype::bf16})
        for (int hdim : {64, 128, 256})
          for (int m0 : tables::sweep_m0)
            for (int n0 : tables::sweep_n0)
              for (int w : {1, 2, 4, 8})
                for (const auto& wt : tables::warp_tiles_16bit) {
                  fmha_key k = decode_key(arch, hdim);
                  k.sig.family = family;
                  if (family == fmha_family::batch_prefill) k.sig.mode = fmha_mode::group;
                  k.sig.qkv = k.sig.o = d;
                  k.algo.tile = {m0, n0, 32, 0, 0, 0};
                  k.algo.warps0 = k.algo.warps1 = {w, 1, 1};
                  k.algo.warp_tile0 = k.algo.warp_tile1 = {wt.m, wt.n, wt.k};
                  k.algo.arch = fmha_key{}.algo.arch;
                  if (!dsl::validate(k, arch).ok()) continue;
                  ++accepted;
                  k.algo.arch = arch;
                  const fmha_key full = dsl::fmha_rules::with_defaults(k);
                  const char* why = khip::fmha_hip_unbuildable(full);
                  ASSERT_EQ(why, nullptr) << kernel_name(full) << ": " << why;
                }
  EXPECT_GT(accepted, 1000);
}

TEST(FmhaHipPagedTables, TablesRefuseWhatTheHipKernelsCannotDo) {
  for (arch_id arch : {arch_id::gfx90a, arch_id::gfx942}) {
    const fmha_key decode = decode_key(arch, 128);
    EXPECT_TRUE(dsl::validate(decode, arch).ok()) << dsl::describe(dsl::validate(decode, arch)).view();
    EXPECT_TRUE(tables::find_pipeline(tables::spec_of(arch), fmha_pipeline::qr_pagedkv)->kernel_built);
    EXPECT_TRUE(tables::find_pipeline(tables::spec_of(arch), fmha_pipeline::appendkv)->kernel_built);

    fmha_key fp8 = decode;
    fp8.sig.cache = dtype::fp8;
    EXPECT_EQ(dsl::validate(fp8, arch).r, dsl::rule::fmha_cache_dtype_not_offered);

    fmha_key forward = decode;  // qr_pagedkv serves the paged families only
    forward.sig.family = fmha_family::fwd;
    EXPECT_EQ(dsl::validate(forward, arch).r, dsl::rule::fmha_pipeline_does_not_serve_family);
    fmha_key paged_on_qr = decode;  // and qr the forward pass only
    paged_on_qr.algo.pipe = fmha_pipeline::qr;
    EXPECT_EQ(dsl::validate(paged_on_qr, arch).r, dsl::rule::fmha_pipeline_does_not_serve_family);

    fmha_key append;
    append.sig.family = fmha_family::fwd_appendkv;
    append.sig.qkv = append.sig.o = dtype::fp16;
    append.sig.hdim_q = append.sig.hdim_v = 256;
    append.algo.pipe = fmha_pipeline::appendkv;
    append.algo.tile = {1, 1, 0, 0, 0, 0};
    EXPECT_TRUE(dsl::validate(append, arch).ok()) << dsl::describe(dsl::validate(append, arch)).view();
    append.algo.arch = arch;
    EXPECT_EQ(khip::fmha_hip_append_unsupported(dsl::fmha_rules::with_defaults(append)), nullptr);
  }
  // gfx950 keeps CK's rules without a kdecl kernel.
  EXPECT_FALSE(tables::find_pipeline(tables::spec_of(arch_id::gfx950), fmha_pipeline::qr_pagedkv)->kernel_built);
}

TEST(FmhaHipPagedRules, RefusalsNameTheValueAndTheRule) {
  fmha_paged_problem p;
  p.family = fmha_family::fwd_splitkv;
  p.heads_q = 32;
  p.heads_kv = 8;
  p.hdim = 128;
  p.num_pages = 4;
  p.max_pages_per_seq = 4;
  p.seqlens_kv = {60};
  ASSERT_FALSE(p.validate());
  EXPECT_FALSE(khip::fmha_hip_paged_refusal(p.normalized(), 16, 128));
  EXPECT_EQ(*khip::fmha_hip_paged_refusal(p.normalized(), 16, 64),
            "hip paged attention: hdim = 128 exceeds the kernel's head dim 64");
  fmha_paged_problem fp8 = p;
  fp8.cache = dtype::fp8;
  EXPECT_EQ(*khip::fmha_hip_paged_refusal(fp8.normalized(), 16, 128),
            "hip paged attention: no fp8 cache kernel on HIP (the cache holds Q's dtype)");
  fmha_paged_problem wide = p;
  wide.batch = 70000;
  wide.seqlens_kv.assign(70000, 1);
  EXPECT_EQ(*khip::fmha_hip_paged_refusal(wide.normalized(), 16, 128),
            "hip paged attention: batch = 70000 exceeds 65,535 (the grid's z dimension)");
}

// ---- offline selection of the shipped set

using kdecl::testing::paged_kernels;

TEST(FmhaHipPagedDispatch, OfflineSelectionPicksTheHipKernelsForGfxTargets) {
#if !defined(KDECL_TEST_HIP_INSTANCES)
  GTEST_SKIP() << "built without the HIP backend: the gfx90a/gfx942 serving kernels are not registered";
#else
  for (arch_id arch : {arch_id::gfx90a, arch_id::gfx942}) {
    ASSERT_EQ(paged_kernels(arch).size(), 18u) << to_string(arch);  // 2 dtypes x (3 hdims x 2 families + 2 prefill) + 2 append
    const device dev{arch, -1, std::string(to_string(arch)) + " (offline)"};
    const fmha_paged_dispatcher d(dev, registry::global());

    test::paged_config cfg;  // Llama-3-8B-like decode: 32 query heads on 8 KV heads, head dim 128
    cfg.family = fmha_family::fwd_splitkv;
    cfg.lengths = {4096};
    cfg.mask = fmha_mask::bottom_right;
    cfg.sinks = true;
    auto c = test::make_paged_case<bf16_t>(cfg, dtype::bf16);
    const fmha_paged_selection sel = d.select(c.p);
    ASSERT_TRUE(sel) << sel.explain();
    EXPECT_EQ(sel.kernel->key().algo.pipe, fmha_pipeline::qr_pagedkv);
    EXPECT_EQ(sel.kernel->key().sig.hdim_q, 128);
    EXPECT_GT(sel.splits, 1) << "batch 1 x 8 KV heads fills a few of the compute units: split-KV";
    EXPECT_EQ(sel.workspace_bytes, std::size_t(32) * sel.splits * (128 + 1) * sizeof(float));

    cfg.hdim = 80;  // runs on the 128 kernel, zero-padded
    cfg.family = fmha_family::fwd_pagedkv;
    auto padded = test::make_paged_case<bf16_t>(cfg, dtype::bf16);
    const auto one_stage = d.select(padded.p);
    ASSERT_TRUE(one_stage) << one_stage.explain();
    EXPECT_EQ(one_stage.kernel->key().sig.hdim_q, 128);
    EXPECT_EQ(one_stage.splits, 1);

    test::paged_config pre;
    pre.family = fmha_family::batch_prefill;
    pre.lengths = {700, 64};
    pre.q_lengths = {200, 64};
    pre.mask = fmha_mask::bottom_right;
    pre.soft_cap = 50.0f;
    auto prefill = test::make_paged_case<bf16_t>(pre, dtype::bf16);
    const auto psel = d.select(prefill.p);
    ASSERT_TRUE(psel) << psel.explain();
    EXPECT_EQ(psel.kernel->key().sig.family, fmha_family::batch_prefill);
    EXPECT_EQ(psel.kernel->key().algo.tile.m0, 128);

    test::paged_config app;
    app.family = fmha_family::fwd_appendkv;
    app.lengths = {100, 7};
    app.seqlen_q = 3;
    auto append = test::make_paged_case<bf16_t>(app, dtype::bf16);
    const auto asel = d.select(append.p);
    ASSERT_TRUE(asel) << asel.explain();
    EXPECT_EQ(asel.kernel->key().algo.pipe, fmha_pipeline::appendkv);

    // An fp8 cache has no HIP kernel: the refusal says why.
    cfg.hdim = 128;
    cfg.fp8_cache = true;
    auto fp8 = test::make_paged_case<bf16_t>(cfg, dtype::bf16);
    const auto none = d.select(fp8.p);
    EXPECT_FALSE(none);
    EXPECT_NE(none.explain().find("fp8"), std::string::npos) << none.explain();

    // The registered kernel's own why_not runs offline too.
    EXPECT_EQ(*sel.kernel->why_not_paged(c.p, fmha_paged_args{}), "the K and V caches and seqlens_kv must be given");
  }
#endif
}

}  // namespace
