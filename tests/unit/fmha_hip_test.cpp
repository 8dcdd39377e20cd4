// The HIP/MFMA attention kernel (kernels/fmha/hip/, CK's qr pipeline on gfx90a and
// gfx942) from the host: no AMD GPU exists here, the kernel is compiled by hipcc and
// never run. These tests check what can be checked without it:
//  * the register layouts the kernel relies on (S^T accumulators = P V operands,
//    Q/K fragments cover each head dim once), by brute force over every lane;
//  * the mask band arithmetic (key blocks visited, blocks needing the per-element
//    test) against the definitions of docs/fmha.md, on random problems;
//  * the arch tables against the kernel: every qr key the gfx90a/gfx942 tables
//    accept is one the kernel builds, with the tables' LDS and accumulator counts;
//  * the DSL's refusals of keys the kernel cannot build, and the kernel's why_not;
//  * in a build with the HIP backend, the dispatcher's offline selection over the
//    shipped set (instances/fmha_hip_mfma.cpp) for gfx90a and gfx942.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "kdecl/dsl/dsl.hpp"
#include "kdecl/fmha/fmha_dispatcher.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_band.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_geometry.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_layout.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_rules.hpp"
#include "kdecl/registry/registry.hpp"

namespace {

using namespace kdecl;
namespace khip = kdecl::kernels::hip;
namespace layout = kdecl::kernels::hip::fmha_layout;
namespace tables = kdecl::arch::fmha;

// ---- register layouts

TEST(FmhaHipLayout, ScoreAccumulatorsAreThePvOperands) {
  for (int mn : {32, 16}) {
    const int k_instr = khip::native_mfma(dtype::fp16, arch_id::gfx90a, mn).k;
    const int acc = mn * mn / 64;
    for (int lane = 0; lane < 64; ++lane)
      for (int q = 0; q < acc / 4; ++q)
        for (int r = 0; r < 4; ++r)
          ASSERT_EQ(layout::s_key(4 * q + r, lane, mn), layout::pv_key(q, r, lane, mn, k_instr))
              << "mn " << mn << " lane " << lane << " q " << q << " r " << r;
    // The P V instructions of one tile cover its mn keys: each (instruction, lane group, element) once.
    ASSERT_EQ((acc / 4) * k_instr, mn);
    // Every (query, key) of an S^T tile is held by exactly one (lane, accumulator).
    std::vector<int> seen(mn * mn, 0);
    for (int lane = 0; lane < 64; ++lane)
      for (int v = 0; v < acc; ++v) ++seen[layout::s_key(v, lane, mn) * mn + layout::query_of(lane, mn)];
    for (int c : seen) ASSERT_EQ(c, 1) << "mn " << mn;
  }
}

TEST(FmhaHipLayout, QkFragmentsCoverEachHeadDimOncePerPair) {
  for (int mn : {32, 16}) {
    const int pair = 2 * khip::native_mfma(dtype::bf16, arch_id::gfx942, mn).k;
    for (int p = 0; p < 4; ++p)
      for (int query = 0; query < mn; ++query) {
        std::vector<int> seen(pair, 0);
        for (int g = 0; g < 64 / mn; ++g)
          for (int e = 0; e < 8; ++e) {
            const int d = layout::qk_dim(p, e, query + g * mn, mn) - p * pair;
            ASSERT_GE(d, 0);
            ASSERT_LT(d, pair);
            ++seen[d];
          }
        for (int c : seen) ASSERT_EQ(c, 1) << "mn " << mn;
      }
  }
}

TEST(FmhaHipLayout, OutputStoresCoverEachDimOnceInFourContiguousValues) {
  for (int mn : {32, 16}) {
    const int acc = mn * mn / 64;
    std::vector<int> seen(mn * mn, 0);
    for (int lane = 0; lane < 64; ++lane)
      for (int c = 0; c < acc / 4; ++c)
        for (int e = 0; e < 4; ++e) {
          // The kernel stores accumulators 4c .. 4c + 3 at dims o_dim(4c) + 0..3.
          ASSERT_EQ(layout::o_dim(4 * c + e, lane, mn), layout::o_dim(4 * c, lane, mn) + e);
          ASSERT_EQ(layout::o_dim(4 * c, lane, mn) % 4, 0);
          ++seen[layout::o_dim(4 * c + e, lane, mn) * mn + layout::query_of(lane, mn)];
        }
    for (int c : seen) ASSERT_EQ(c, 1);
  }
}

// ---- the mask band

// docs/fmha.md's definitions, written out.
bool reference_visible(fmha_mask mask, int sq, int skv, int left, int right, int i, int j) {
  if (j < 0 || j >= skv) return false;
  const int diag = i + skv - sq;  // bottom-right
  switch (mask) {
    case fmha_mask::none: return true;
    case fmha_mask::top_left: return j <= i;
    case fmha_mask::bottom_right: return j <= diag;
    case fmha_mask::generic: return (left < 0 || diag - left <= j) && (right < 0 || j <= diag + right);
  }
  return false;
}

khip::fmha_band band_of(fmha_mask mask, int sq, int skv, int left, int right) {
  khip::fmha_band b;
  b.masked = mask != fmha_mask::none;
  b.offset = mask == fmha_mask::top_left ? 0 : skv - sq;
  if (mask == fmha_mask::top_left || mask == fmha_mask::bottom_right) b.right = 0;
  if (mask == fmha_mask::generic) {
    b.left = left;
    b.right = right;
  }
  return b;
}

TEST(FmhaHipBand, BlocksCoverEveryVisibleKeyAndInteriorBlocksNeedNoTest) {
  std::mt19937 rng(20261203);
  const fmha_mask masks[] = {fmha_mask::none, fmha_mask::top_left, fmha_mask::bottom_right, fmha_mask::generic};
  int interior = 0, edges = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const fmha_mask mask = masks[trial % 4];
    const int sq = int(rng() % 300) + 1, skv = int(rng() % 300);
    const int left = int(rng() % 80) - 10, right = int(rng() % 80) - 10;
    const int m0 = (trial % 3 == 0) ? 128 : 64, n0 = (trial % 2 == 0) ? 64 : 128;
    const khip::fmha_band b = band_of(mask, sq, skv, left, right);
    for (int mb = 0; mb * m0 < sq; ++mb) {
      const int i0 = mb * m0, rows = std::min(m0, sq - i0);
      const khip::fmha_key_blocks blocks = khip::fmha_blocks_of(b, i0, rows, skv, n0);
      for (int i = i0; i < i0 + rows; ++i)
        for (int j = 0; j < skv; ++j) {
          const bool want = reference_visible(mask, sq, skv, left, right, i, j);
          ASSERT_EQ(khip::fmha_visible(b, i, j, skv), want) << "i " << i << " j " << j;
          if (want) ASSERT_TRUE(j / n0 >= blocks.begin && j / n0 < blocks.begin + blocks.count) << "key " << j;
        }
      for (int t = 0; t < blocks.count; ++t) {
        const int j0 = (blocks.begin + t) * n0;
        if (khip::fmha_block_is_edge(b, i0, rows, j0, n0, skv)) {
          ++edges;
          continue;
        }
        ++interior;
        for (int i = i0; i < i0 + rows; ++i)
          for (int j = j0; j < j0 + n0; ++j)
            ASSERT_TRUE(reference_visible(mask, sq, skv, left, right, i, j)) << "interior block, i " << i << " j " << j;
      }
    }
  }
  EXPECT_GT(interior, 1000);  // both kinds occur
  EXPECT_GT(edges, 1000);
}

// ---- the tables against the kernel

TEST(FmhaHipTables, EveryKeyTheTablesAcceptIsOneTheKernelBuilds) {
  long accepted = 0, checked = 0;
  std::set<dsl::rule> refusals;
  for (arch_id arch : {arch_id::gfx90a, arch_id::gfx942})
    for (dtype d : {dtype::fp16, dtype::bf16})
      for (const auto& hd : tables::hdims_16bit)
        for (int m0 : tables::sweep_m0)
          for (int n0 : tables::sweep_n0)
            for (int k0 : tables::sweep_k0)
              for (int k1 : {0, 16, 64})
                for (int w : {1, 2, 4, 8})
                  for (const auto& wt : tables::warp_tiles_16bit) {
                    fmha_key k;
                    k.sig.qkv = k.sig.o = d;
                    k.sig.hdim_q = hd.q;
                    k.sig.hdim_v = hd.v;
                    k.algo.pipe = fmha_pipeline::qr;
                    k.algo.tile = {m0, n0, k0, 0, k1, 0};
                    k.algo.warps0 = k.algo.warps1 = {w, 1, 1};
                    k.algo.warp_tile0 = k.algo.warp_tile1 = {wt.m, wt.n, wt.k};
                    ++checked;
                    const dsl::diagnostic verdict = dsl::validate(k, arch);
                    if (!verdict.ok()) {
                      refusals.insert(verdict.r);
                      continue;
                    }
                    ++accepted;
                    k.algo.arch = arch;
                    const fmha_key full = dsl::fmha_rules::with_defaults(k);
                    const char* why = khip::fmha_hip_unbuildable(full);
                    ASSERT_EQ(why, nullptr) << kernel_name(full) << ": " << why;
                    const khip::fmha_hip_geometry g = khip::fmha_geometry_of(full);
                    ASSERT_EQ(tables::smem_bytes(tables::smem_formula::mfma_k_vt_slices, full), g.lds_bytes)
                        << kernel_name(full);
                    ASSERT_EQ(tables::accumulators_per_thread(full), g.accumulators) << kernel_name(full);
                  }
  EXPECT_GT(accepted, 10000) << "of " << checked;
  // The rules that cut the grid are the kernel's limits and CK's tile rules.
  EXPECT_TRUE(refusals.count(dsl::rule::fmha_smem_exceeds_capacity));
  EXPECT_TRUE(refusals.count(dsl::rule::fmha_accumulators_exceed_register_cap));
  EXPECT_TRUE(refusals.count(dsl::rule::fmha_tile_not_multiple_of_warps_x_warp_tile));
}

fmha_key shipped_like(arch_id arch) {
  fmha_key k;
  k.sig.qkv = k.sig.o = dtype::bf16;
  k.sig.hdim_q = k.sig.hdim_v = 128;
  k.algo.pipe = fmha_pipeline::qr;
  k.algo.tile = {128, 128, 32, 0, 0, 0};
  k.algo.warps0 = k.algo.warps1 = {4, 1, 1};
  k.algo.warp_tile0 = k.algo.warp_tile1 = {32, 32, 16};
  k.algo.arch = arch;
  return k;
}

TEST(FmhaHipTables, RulesRefuseWhatTheKernelCannotBuild) {
  for (arch_id arch : {arch_id::gfx90a, arch_id::gfx942}) {
    EXPECT_TRUE(dsl::validate(shipped_like(arch), arch).ok()) << dsl::describe(dsl::validate(shipped_like(arch), arch)).view();
    EXPECT_TRUE(tables::find_pipeline(tables::spec_of(arch), fmha_pipeline::qr)->kernel_built);
    EXPECT_FALSE(tables::find_pipeline(tables::spec_of(arch), fmha_pipeline::qr_async)->kernel_built);

    fmha_key fp32 = shipped_like(arch);
    fp32.sig.qkv = fp32.sig.o = dtype::fp32;
    fp32.algo.warp_tile0 = fp32.algo.warp_tile1 = {16, 16, 16};
    EXPECT_EQ(dsl::describe(dsl::validate(fp32, arch)).view(),
              "fmha pipeline qr does not compute fp32 on " + std::string(to_string(arch)) +
                  " (kdecl's kernel for it computes fp16 and bf16)");

    fmha_key split = shipped_like(arch);
    split.algo.warps0 = split.algo.warps1 = {2, 2, 1};
    EXPECT_EQ(dsl::validate(split, arch).r, dsl::rule::fmha_warps_not_offered_for_pipeline);

    fmha_key stages = shipped_like(arch);
    stages.algo.warps1 = {2, 1, 1};
    EXPECT_EQ(dsl::validate(stages, arch).r, dsl::rule::fmha_stage_1_warps_must_equal_stage_0);

    fmha_key bwd = shipped_like(arch);
    bwd.sig.family = fmha_family::bwd;
    EXPECT_EQ(dsl::validate(bwd, arch).r, dsl::rule::fmha_pipeline_does_not_serve_family);

    // 256 / 256 with 128 x 128 tiles: O (256) and S (128) per lane on 4 waves is 192 accumulators,
    // but the K and V^T slices with k1 = 256 need 64 + 133 KiB.
    fmha_key wide = shipped_like(arch);
    wide.sig.hdim_q = wide.sig.hdim_v = 256;
    wide.algo.tile = {128, 128, 256, 0, 256, 0};
    EXPECT_EQ(dsl::validate(wide, arch).r, dsl::rule::fmha_smem_exceeds_capacity);
    wide.algo.tile = {128, 128, 32, 0, 32, 0};
    EXPECT_TRUE(dsl::validate(wide, arch).ok()) << dsl::describe(dsl::validate(wide, arch)).view();
    wide.algo.warps0 = wide.algo.warps1 = {2, 1, 1};  // 384 per lane on 2 waves
    EXPECT_EQ(dsl::validate(wide, arch).r, dsl::rule::fmha_accumulators_exceed_register_cap);
  }
  // Other AMD targets keep CK's rules without a kdecl kernel.
  EXPECT_FALSE(tables::find_pipeline(tables::spec_of(arch_id::gfx950), fmha_pipeline::qr)->kernel_built);
}

TEST(FmhaHipTables, KernelRulesNameTheirReason) {
  fmha_key k = dsl::fmha_rules::with_defaults(shipped_like(arch_id::gfx942));
  EXPECT_EQ(khip::fmha_hip_unbuildable(k), nullptr);
  const khip::fmha_hip_geometry g = khip::fmha_geometry_of(k);
  EXPECT_EQ(g.mn, 32);
  EXPECT_EQ(g.rep_m, 1);
  EXPECT_EQ(g.n_tiles, 4);
  EXPECT_EQ(g.k_slices, 4);
  EXPECT_EQ(g.v_slices, 4);
  EXPECT_EQ(g.lds_bytes, 128 * (32 * 2 + 16) + 128 * (32 * 2 + 8));
  EXPECT_EQ(g.accumulators, 128);
  fmha_key odd = k;
  odd.algo.tile.k0 = 96;  // hdim 128 in 96-wide slices: the kernel pads the head dim to 192
  EXPECT_EQ(khip::fmha_geometry_of(odd).d_pad, 192);
  fmha_key k1 = k;
  k1.algo.tile.k1 = 12;
  EXPECT_STREQ(khip::fmha_hip_unsupported(k1), "k1 is a multiple of the MFMA k step");
  fmha_key async = k;
  async.algo.pipe = fmha_pipeline::qr_async;
  EXPECT_STREQ(khip::fmha_hip_unsupported(async), "the HIP attention kernel implements CK's qr and qr_pagedkv pipelines");
  fmha_key paged = k;
  paged.sig.family = fmha_family::fwd_pagedkv;
  EXPECT_STREQ(khip::fmha_hip_unsupported(paged), "qr is the forward pass (family fwd)");
  paged.algo.pipe = fmha_pipeline::qr_pagedkv;
  paged.sig.bias = fmha_bias::alibi;
  EXPECT_STREQ(khip::fmha_hip_unsupported(paged), "qr_pagedkv takes no bias or ALiBi");
  paged.sig.bias = fmha_bias::none;
  paged.sig.cache = dtype::fp8;
  EXPECT_STREQ(khip::fmha_hip_unsupported(paged), "the HIP kernels keep the cache in Q's dtype (no fp8 cache)");
  fmha_key big = k;
  big.algo.tile.k1 = 256;
  big.algo.tile.n1 = 256;
  big.sig.hdim_v = 256;
  EXPECT_STREQ(khip::fmha_hip_unbuildable(big), "the K and V^T slices exceed 64 KiB of LDS");
}

// ---- the kernel's why_not

fmha_problem problem(std::int64_t hdim = 128) {
  fmha_problem p;
  p.dtype(dtype::bf16).sizes(2, 300, 300).heads(8, 2).head_dim(hdim);
  return p;
}

fmha_args pointers(const fmha_problem& p) {
  static std::vector<float> storage(64);
  fmha_args a;
  a.q = a.k = a.v = storage.data();
  a.o = storage.data();
  if (p.lse) a.lse = storage.data();
  if (p.group_mode()) {
    a.cu_seqlens_q = p.cu_seqlens_q.data();
    a.cu_seqlens_kv = p.cu_seqlens_kv.data();
  }
  return a;
}

TEST(FmhaHipWhyNot, RefusalsNameTheValueAndTheRule) {
  auto why = [](const fmha_problem& p, const fmha_args& a) {
    const auto r = khip::fmha_hip_refusal(p.normalized(), a, 128, 128, 128);
    return r ? *r : std::string("accepted");
  };
  const fmha_problem ok = problem();
  EXPECT_EQ(why(ok, pointers(ok)), "accepted");
  EXPECT_EQ(why(problem(64), pointers(problem(64))), "accepted");  // padded onto 128
  EXPECT_EQ(why(problem(256), pointers(problem(256))), "hip attention: hdim_q = 256 exceeds the kernel's k0max 128");
  fmha_problem narrow_v = problem();
  narrow_v.head_dims(128, 160);
  EXPECT_EQ(why(narrow_v, pointers(narrow_v)), "hip attention: hdim_v = 160 exceeds the kernel's n1 128");
  EXPECT_EQ(why(problem(100), pointers(problem(100))),
            "hip attention: hdim_q = 100 is not a multiple of 8 (16-byte fragments)");
  fmha_args no_q = pointers(ok);
  no_q.q = nullptr;
  EXPECT_EQ(why(ok, no_q), "hip attention: Q or O pointer is null");
  fmha_problem lse = problem();
  lse.return_lse();
  fmha_args no_lse = pointers(ok);
  EXPECT_EQ(why(lse, no_lse), "hip attention: the problem asks for the LSE but its pointer is null");
  fmha_problem varlen = problem();
  varlen.varlen({17, 0, 300}, {40, 9, 0});
  fmha_args no_cu = pointers(ok);
  EXPECT_EQ(why(varlen, no_cu), "hip attention: group mode needs cu_seqlens_q and cu_seqlens_kv pointers");
  EXPECT_EQ(why(varlen, pointers(varlen)), "accepted");
  fmha_problem sinks = problem();
  sinks.with_sinks();
  EXPECT_EQ(why(sinks, pointers(ok)), "hip attention: sinks pointer is null");
  fmha_problem alibi = problem();
  alibi.alibi();
  EXPECT_EQ(why(alibi, pointers(ok)), "hip attention: ALiBi slopes pointer is null");
}

// ---- offline selection over the shipped set (a build with the HIP backend registers it)

std::vector<std::shared_ptr<const fmha_instance>> hip_kernels(arch_id arch) {
  std::vector<std::shared_ptr<const fmha_instance>> out;
  for (const auto& e : registry::global().filter([&](const registered_kernel& k) {
         return k.instance->op() == op_kind::fmha && k.instance->arch() == arch;
       }))
    if (auto f = std::static_pointer_cast<const fmha_instance>(e.instance); !is_paged_family(f->key().sig.family))
      out.push_back(f);  // (the serving kernels: fmha_hip_paged_test.cpp)
  return out;
}

TEST(FmhaHipDispatch, OfflineSelectionPicksTheMfmaKernelForGfxTargets) {
#if !defined(KDECL_TEST_HIP_INSTANCES)
  GTEST_SKIP() << "built without the HIP backend: the gfx90a/gfx942 attention kernels are not registered";
#else
  for (arch_id arch : {arch_id::gfx90a, arch_id::gfx942}) {
    const auto kernels = hip_kernels(arch);
    ASSERT_EQ(kernels.size(), 32u) << to_string(arch);  // 2 dtypes x 2 head dims x 4 masks x 2 modes
    const device dev{arch, -1, std::string(to_string(arch)) + " (offline)"};
    fmha_dispatcher d(dev, registry::global());

    fmha_problem llama = problem();  // GQA 8:2, bf16, head dim 128, causal
    llama.causal(fmha_mask::bottom_right).return_lse();
    auto sel = d.select(llama);
    ASSERT_TRUE(sel) << sel.explain();
    EXPECT_EQ(sel.kernel->key().algo.pipe, fmha_pipeline::qr);
    EXPECT_EQ(sel.kernel->key().algo.arch, arch);
    EXPECT_EQ(sel.kernel->key().sig.hdim_q, 128);
    EXPECT_EQ(sel.kernel->key().sig.mask, fmha_mask::bottom_right);

    auto small = d.select(problem(64));
    ASSERT_TRUE(small) << small.explain();
    EXPECT_EQ(small.kernel->key().sig.hdim_q, 64);
    auto padded = d.select(problem(80));  // runs on the 128 kernel, zero-padded
    ASSERT_TRUE(padded) << padded.explain();
    EXPECT_EQ(padded.kernel->key().sig.hdim_q, 128);

    fmha_problem varlen = problem(64);
    varlen.dtype(dtype::fp16).varlen({17, 0, 300}, {40, 9, 0});
    varlen.sliding_window(32, 0);
    auto group = d.select(varlen);
    ASSERT_TRUE(group) << group.explain();
    EXPECT_EQ(group.kernel->key().sig.mode, fmha_mode::group);
    EXPECT_EQ(group.kernel->key().sig.qkv, dtype::fp16);

    fmha_problem bhsd = problem();
    bhsd.bhsd();
    EXPECT_TRUE(d.select(bhsd)) << d.select(bhsd).explain();

    // Refusals, with reasons.
    auto refused = [&](const fmha_problem& p) {
      auto s = d.select(p);
      EXPECT_FALSE(s) << s.kernel->name();
      return s.explain();
    };
    EXPECT_NE(refused(problem(256)).find("hdim_q = 256 is larger than the kernel's 128"), std::string::npos);
    fmha_problem capped = problem();
    capped.logits_soft_cap(30.0f);
    EXPECT_NE(refused(capped).find("the logit soft-cap"), std::string::npos);
    fmha_problem odd = problem(68);
    EXPECT_NE(refused(odd).find("16-byte access width"), std::string::npos);
    fmha_problem strided = problem();
    strided.strides({300 * 8 * 128, 8 * 128 + 4, 128}, {300 * 2 * 128, 2 * 128, 128}, {300 * 2 * 128, 2 * 128, 128},
                    {300 * 8 * 128, 8 * 128, 128});
    EXPECT_NE(refused(strided).find("seq stride of Q"), std::string::npos);

    // The registered kernel's own why_not runs offline too.
    EXPECT_EQ(*sel.kernel->why_not(llama.normalized(), fmha_args{}), "hip attention: Q or O pointer is null");
  }
#endif
}

}  // namespace
