// Expansion of kernel sets: per-target tables, defaults, order, de-duplication,
// and the run-time validate() that the CLI and JSON import use.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include "kdecl/dsl/dsl.hpp"

namespace sets {
using namespace kdecl::dsl;
using kdecl::dsl::any;

// One declaration, warps left open, on a CDNA3 and a CDNA4 part.
inline constexpr auto warps_942 = kernel_set(targets(gfx942), gemm().dtype(fp16).tile(256, 256, 32).warps(any)
                                                 .warp_tile(32, 32, 16).pipeline(compv3).epilogue(cshuffle)
                                                 .scheduler(intrawave));
inline constexpr auto warps_950 = kernel_set(targets(gfx950), gemm().dtype(fp16).tile(256, 256, 32).warps(any)
                                                 .warp_tile(32, 32, 16).pipeline(compv3).epilogue(cshuffle)
                                                 .scheduler(intrawave));
// The same declaration for a GPU and the host.
inline constexpr auto gpu_and_host = kernel_set(targets(sm_90, host), gemm().dtype(fp32).tile(64, 64, 32)
                                                    .warps(any).warp_tile(any).pipeline(any).epilogue(direct));
// Explicit declarations: defaults resolved per pipeline (an explicit pipeline
// must exist on every target of its set, so one set per target).
inline constexpr auto default_nv = kernel_set(targets(sm_90), gemm().dtype(fp16).tile(128, 128, 32).warps(2, 2, 1)
                                                  .warp_tile(64, 64, 16).pipeline(cp_async).epilogue(cshuffle)
                                                  .scheduler(intrawave));
inline constexpr auto default_amd = kernel_set(targets(gfx942), gemm().dtype(fp16).tile(128, 128, 32).warps(2, 2, 1)
                                                   .warp_tile(32, 32, 16).pipeline(compv4).epilogue(cshuffle)
                                                   .scheduler(intrawave));
inline constexpr auto default_host = kernel_set(targets(host), gemm().dtype(fp16).tile(64, 64, 64).warps(1, 1, 1)
                                                    .warp_tile(8, 8, 1).pipeline(host_blocked).epilogue(direct)
                                                    .scheduler(intrawave));
// Two overlapping declarations: the second adds only what the first lacks.
inline constexpr auto overlapping = kernel_set(
    targets(sm_80),
    gemm().dtype(bf16).tile(128, 128, 32).warps(2, 2, 1).warp_tile(64, 64, 16).pipeline(cp_async).epilogue(any)
        .scheduler(intrawave),
    gemm().dtype(bf16).tile(128, 128, 32).warps(2, 2, 1).warp_tile(64, 64, 16).pipeline(cp_async)
        .epilogue(cshuffle).scheduler(intrawave).stages(any));
inline constexpr auto stage_range = kernel_set(targets(sm_80), gemm().dtype(fp16).tile(64, 64, 32).warps(2, 2, 1)
                                                   .warp_tile(32, 32, 16).pipeline(cp_async).epilogue(direct)
                                                   .scheduler(intrawave).stages(any).vector_bytes(any));
inline constexpr auto convs = kernel_set(targets(gfx942), grouped_conv().direction(bwd_weight).dtype(bf16)
                                             .tile(128, 128, 32).warps(any).warp_tile(any).pipeline(any)
                                             .epilogue(cshuffle).scheduler(intrawave));
// sm_90 builds forward convolutions with cp_async only: a wildcard pipeline keeps those.
inline constexpr auto convs_nv = kernel_set(targets(sm_90), grouped_conv().direction(fwd).dtype(bf16)
                                                .tile(128, 128, 32).warps(any).warp_tile(any).pipeline(any)
                                                .epilogue(cshuffle).scheduler(intrawave));
inline constexpr auto host_convs = kernel_set(targets(host), grouped_conv().direction(bwd_data).dtype(any).ndim(3)
                                                  .layout(gndhwc).pipeline(host_blocked).tile(64, 64, 256)
                                                  .warp_tile(8, 8, 1));
inline constexpr auto attention = kernel_set(targets(gfx942, gfx950), fmha().dtype(fp16).hdim(128)
                                                 .tile(128, any, 32).warp_tile(32, 32, 16).pipeline(any)
                                                 .pad(true, true, false, false));
// tma_wgmma with the scheduler left open: one consumer warpgroup gives a cooperative
// and a pingpong kernel; two consumer warpgroups only the cooperative one.
inline constexpr auto sched_any_one_wg = kernel_set(targets(sm_90), gemm().dtype(bf16).layout(rcr).pipeline(tma_wgmma)
                                                        .epilogue(cshuffle).tile(128, 128, 64).warps(4, 1, 1)
                                                        .warp_tile(16, 128, 16).stages(4));
inline constexpr auto sched_any_two_wg = kernel_set(targets(sm_90), gemm().dtype(bf16).layout(rcr).pipeline(tma_wgmma)
                                                        .epilogue(cshuffle).tile(128, 128, 64).warps(8, 1, 1)
                                                        .warp_tile(16, 128, 16).stages(4));
// Deep enough that a pingpong block's second set of cshuffle strips no longer fits.
inline constexpr auto sched_any_deep = kernel_set(targets(sm_90), gemm().dtype(bf16).layout(rcr).pipeline(tma_wgmma)
                                                      .epilogue(cshuffle).tile(64, 128, 64).warps(4, 1, 1)
                                                      .warp_tile(16, 128, 16).stages(9));
}  // namespace sets

namespace {

using namespace kdecl;

constexpr auto k942 = dsl::expand<sets::warps_942>();
// gfx950, conv and fmha have tables but no kernels yet: validate and expand without building.
constexpr auto k950 = dsl::expand_legal<sets::warps_950>();
constexpr auto kgh = dsl::expand<sets::gpu_and_host>();
constexpr auto kdef_nv = dsl::expand<sets::default_nv>();
constexpr auto kdef_amd = dsl::expand<sets::default_amd>();
constexpr auto kdef_host = dsl::expand<sets::default_host>();
constexpr auto kover = dsl::expand<sets::overlapping>();
constexpr auto kstages = dsl::expand<sets::stage_range>();
constexpr auto kconv = dsl::expand_legal<sets::convs>();
constexpr auto kconv_nv = dsl::expand<sets::convs_nv>();
constexpr auto kfmha = dsl::expand_legal<sets::attention>();
constexpr auto khost_conv = dsl::expand<sets::host_convs>();  // built: the host tables offer convolutions

template <std::size_t N>
std::set<std::tuple<int, int, int>> warps_of(const std::array<gemm_key, N>& keys) {
  std::set<std::tuple<int, int, int>> out;
  for (const auto& k : keys) out.insert({k.algo.warps.m, k.algo.warps.n, k.algo.warps.k});
  return out;
}

TEST(DslExpand, WarpWildcardFollowsEachArchTable) {
  using W = std::set<std::tuple<int, int, int>>;
  EXPECT_EQ(warps_of(k942), (W{{1, 4, 1}, {2, 2, 1}, {4, 1, 1}}));
  EXPECT_EQ(warps_of(k950), (W{{1, 4, 1}, {2, 2, 1}, {4, 1, 1}, {8, 2, 1}, {4, 4, 1}}));
  EXPECT_EQ(k942.size(), 3u);
  EXPECT_EQ(k950.size(), 5u);
}

TEST(DslExpand, EachTargetGetsOnlyItsValidKeys) {
  std::size_t gpu = 0, cpu = 0;
  for (const auto& k : kgh) {
    EXPECT_TRUE(k.concrete());
    EXPECT_TRUE(dsl::validate(k, k.algo.arch).ok()) << dsl::describe(dsl::validate(k, k.algo.arch)).view();
    if (k.algo.arch == arch_id::sm_90) {
      ++gpu;
      EXPECT_TRUE(k.algo.pipe == pipeline::cp_async || k.algo.pipe == pipeline::tma_wgmma);
      EXPECT_NE(k.algo.pipe, pipeline::tma_wgmma) << "tma_wgmma has no fp32-compute offer";
      EXPECT_EQ(k.sig.compute, dtype::fp32);
    } else {
      ++cpu;
      EXPECT_EQ(k.algo.arch, arch_id::host);
      EXPECT_EQ(k.algo.pipe, pipeline::host_blocked);
      EXPECT_EQ(k.algo.warps, (mnk{1, 1, 1}));
    }
    // A key is never valid on the other target.
    const arch_id other = k.algo.arch == arch_id::host ? arch_id::sm_90 : arch_id::host;
    EXPECT_FALSE(dsl::validate(k, other).ok());
  }
  EXPECT_GT(gpu, 0u);
  EXPECT_EQ(cpu, 4u);  // the four register micro-tiles
  // Targets come out in the order given.
  EXPECT_TRUE(std::is_partitioned(kgh.begin(), kgh.end(), [](const gemm_key& k) { return k.algo.arch == arch_id::sm_90; }));
}

TEST(DslExpand, DefaultsAreResolvedPerPipeline) {
  ASSERT_EQ(kdef_nv.size(), 1u);
  ASSERT_EQ(kdef_amd.size(), 1u);
  ASSERT_EQ(kdef_host.size(), 1u);
  EXPECT_EQ(kdef_nv[0].algo.arch, arch_id::sm_90);
  EXPECT_EQ(kdef_nv[0].algo.stages, 3);
  EXPECT_EQ(kdef_nv[0].algo.vector_bytes, 16);
  EXPECT_EQ(kdef_amd[0].algo.arch, arch_id::gfx942);
  EXPECT_EQ(kdef_amd[0].algo.stages, 2);  // compv4 double-buffers LDS
  EXPECT_EQ(kdef_amd[0].algo.vector_bytes, 16);
  EXPECT_EQ(kdef_host[0].algo.stages, 1);
  EXPECT_EQ(kdef_host[0].algo.vector_bytes, 1);
  for (const auto& k : {kdef_nv[0], kdef_amd[0], kdef_host[0]}) {
    EXPECT_TRUE(k.concrete());
    EXPECT_EQ(k.algo.pad_m, tristate::yes);  // padding defaults on
  }
}

TEST(DslExpand, DuplicatesAcrossDeclarationsAreDropped) {
  // First: 2 epilogues at the default 3 stages. Second: cshuffle at stages 2..5,
  // whose stage-3 key repeats the first declaration's.
  EXPECT_EQ(kover.size(), 2u + 4u - 1u);
  std::set<std::tuple<int, int>> seen;
  for (const auto& k : kover) EXPECT_TRUE(seen.insert({static_cast<int>(k.algo.epi), k.algo.stages}).second);
  // Order: the first declaration's keys come first, in table order.
  EXPECT_EQ(kover[0].algo.epi, epilogue::direct);
  EXPECT_EQ(kover[1].algo.epi, epilogue::cshuffle);
  EXPECT_EQ(kover[1].algo.stages, 3);
  EXPECT_EQ(kover[2].algo.stages, 2);
  EXPECT_EQ(kover[3].algo.stages, 4);
}

TEST(DslExpand, StageAndWidthWildcardsWalkTheTable) {
  EXPECT_EQ(kstages.size(), 4u * 4u);  // stages 2..5 x fp16 widths {16, 8, 4, 2} (1 is below an element)
  for (std::size_t i = 1; i < kstages.size(); ++i) {
    const auto& a = kstages[i - 1].algo;
    const auto& b = kstages[i].algo;
    EXPECT_TRUE(a.stages < b.stages || (a.stages == b.stages && a.vector_bytes > b.vector_bytes));
  }
}

TEST(DslExpand, ExpansionIsDeterministic) {
  constexpr auto again = dsl::expand<sets::gpu_and_host>();
  ASSERT_EQ(again.size(), kgh.size());
  EXPECT_TRUE(std::equal(again.begin(), again.end(), kgh.begin()));
}

TEST(DslExpand, ConvolutionUsesItsImplicitGemmAndOwnRules) {
  bool amd = false, nv = false;
  for (const auto& k : kconv) {
    EXPECT_TRUE(dsl::validate(k, k.algo.arch).ok()) << dsl::describe(dsl::validate(k, k.algo.arch)).view();
    amd = true;
    EXPECT_TRUE(k.algo.pipe == pipeline::compv3 || k.algo.pipe == pipeline::mem);  // backward rule
    EXPECT_EQ(k.algo.vector_in * 2, 16);  // default width 16 bytes of bf16
  }
  for (const auto& k : kconv_nv) {
    EXPECT_TRUE(dsl::validate(k, k.algo.arch).ok()) << dsl::describe(dsl::validate(k, k.algo.arch)).view();
    nv = true;
    EXPECT_EQ(k.algo.pipe, pipeline::cp_async);  // tma_wgmma builds no convolution
    EXPECT_EQ(k.algo.vector_in * 2, 16);
  }
  EXPECT_TRUE(amd);
  EXPECT_TRUE(nv);
}

TEST(DslExpand, HostConvolutionsAreWhatTheHostKernelsBuild) {
  // dtype(any) walks the implicit GEMM's host offers; the conv offer keeps fp16, bf16 and
  // fp32 with input = weight = output, fp32 twice: multiplied exactly and in tf32.
  std::set<std::pair<dtype, dtype>> types;
  for (const auto& k : khost_conv) {
    EXPECT_TRUE(dsl::validate(k, arch_id::host).ok()) << dsl::describe(dsl::validate(k, arch_id::host)).view();
    EXPECT_EQ(k.sig.in, k.sig.out);
    EXPECT_EQ(k.sig.acc, dtype::fp32);
    EXPECT_EQ(k.algo.vector_in, 1);
    EXPECT_EQ(k.algo.stages, 1);
    EXPECT_TRUE(k.concrete());
    types.insert({k.sig.in, k.sig.compute});
  }
  EXPECT_EQ(khost_conv.size(), 4u);
  EXPECT_EQ(types, (std::set<std::pair<dtype, dtype>>{{dtype::fp16, dtype::fp16}, {dtype::bf16, dtype::bf16},
                                                      {dtype::fp32, dtype::fp32}, {dtype::fp32, dtype::tf32}}));
}

TEST(DslExpand, AttentionExpandsPipelinesAndTiles) {
  std::set<fmha_pipeline> on_942, on_950;
  for (const auto& k : kfmha) {
    EXPECT_TRUE(dsl::validate(k, k.algo.arch).ok()) << dsl::describe(dsl::validate(k, k.algo.arch)).view();
    EXPECT_EQ(k.algo.tile.k0max, 128);
    EXPECT_EQ(k.algo.tile.n1, 128);
    (k.algo.arch == arch_id::gfx942 ? on_942 : on_950).insert(k.algo.pipe);
  }
  EXPECT_FALSE(on_942.count(fmha_pipeline::qr_async_trload));  // gfx950-only pipeline
  EXPECT_TRUE(on_950.count(fmha_pipeline::qr_async_trload));
}

TEST(DslExpand, PingpongNeedsOneConsumerWarpgroupAndRoomForItsStrips) {
  constexpr auto one = dsl::expand<sets::sched_any_one_wg>();
  constexpr auto two = dsl::expand<sets::sched_any_two_wg>();
  constexpr auto deep = dsl::expand<sets::sched_any_deep>();
  std::set<scheduler> one_scheds, two_scheds, deep_scheds;
  for (const auto& k : one) one_scheds.insert(k.algo.sched);
  for (const auto& k : two) two_scheds.insert(k.algo.sched);
  for (const auto& k : deep) deep_scheds.insert(k.algo.sched);
  EXPECT_EQ(one_scheds, (std::set<scheduler>{scheduler::intrawave, scheduler::pingpong}));
  EXPECT_EQ(two_scheds, (std::set<scheduler>{scheduler::intrawave}));
  EXPECT_EQ(deep_scheds, (std::set<scheduler>{scheduler::intrawave}));

  gemm_key k = one[0];
  k.algo.sched = scheduler::pingpong;
  k.algo.warps = {8, 1, 1};
  auto d = dsl::validate(k, arch_id::sm_90);
  EXPECT_EQ(d.r, dsl::rule::pingpong_needs_one_consumer_warpgroup);
  EXPECT_EQ(std::string(dsl::describe(d).view()),
            "pingpong scheduler needs warps 4x1x1 (one consumer warpgroup, run twice on alternate tiles), not 8x1x1");
  k.algo.warps = {4, 1, 1};
  EXPECT_TRUE(dsl::validate(k, arch_id::sm_90).ok());
}

TEST(DslValidate, MulticastClustersAreCooperativeStandardKernels) {
  gemm_key k = dsl::expand<sets::sched_any_two_wg>()[0];  // bf16 rcr 128x128, cooperative
  k.algo.cluster_m = 2;
  EXPECT_TRUE(dsl::validate(k, arch_id::sm_90).ok());
  k.algo.cluster_m = 1;
  k.algo.cluster_n = 2;
  EXPECT_TRUE(dsl::validate(k, arch_id::sm_90).ok());
  k.algo.cluster_m = 2;  // 2x2: not offered
  EXPECT_EQ(dsl::validate(k, arch_id::sm_90).r, dsl::rule::cluster_not_offered_by_pipeline);
  k.algo.cluster_m = 1;
  k.sig.variant = gemm_variant::multi_d;
  k.sig.num_d = 1;
  auto d = dsl::validate(k, arch_id::sm_90);
  EXPECT_EQ(d.r, dsl::rule::multicast_cluster_unsupported);
  EXPECT_EQ(std::string(dsl::describe(d).view()), "cluster 1x2 is built for the standard variant only on sm_90");
}

// Column-major C on tma_wgmma (run as C^T = B^T A^T on the row-major kernel): every 16-bit
// layout, rcc for 8-bit and tf32, no multicast cluster.
TEST(DslValidate, TmaWgmmaTakesColumnMajorC) {
  gemm_key k = dsl::expand<sets::sched_any_two_wg>()[0];  // bf16 rcr 128x128, cooperative
  for (const gemm_layout lay : {rcc, rrc, crc, ccc}) {
    k.sig.lay = lay;
    EXPECT_TRUE(dsl::validate(k, arch_id::sm_90).ok()) << dsl::describe(dsl::validate(k, arch_id::sm_90)).view();
  }
  k.sig.lay = rcc;
  k.algo.cluster_m = 2;
  auto d = dsl::validate(k, arch_id::sm_90);
  EXPECT_EQ(d.r, dsl::rule::multicast_cluster_unsupported);
  EXPECT_EQ(std::string(dsl::describe(d).view()),
            "cluster 2x1 is built for row-major C only (column-major C runs as its transpose) on sm_90");
  k.algo.cluster_m = 1;
  k.sig.a = k.sig.b = k.sig.compute = dtype::fp8;  // K-major types: rcc, not rrc
  k.sig.c = dtype::bf16;
  k.algo.tile.k = 128;
  k.algo.warp_tile.k = 32;
  EXPECT_TRUE(dsl::validate(k, arch_id::sm_90).ok()) << dsl::describe(dsl::validate(k, arch_id::sm_90)).view();
  k.sig.lay = rrc;
  EXPECT_FALSE(dsl::validate(k, arch_id::sm_90).ok());
}

TEST(DslValidate, RunTimeDiagnosticsNameRuleAndValues) {
  gemm_key k{};
  k.sig = {dtype::fp16, dtype::fp16, dtype::fp16, dtype::fp32, dtype::fp16};
  k.algo.tile = {96, 128, 32};
  k.algo.warps = {2, 2, 1};
  k.algo.warp_tile = {32, 32, 16};
  k.algo.pipe = pipeline::compv3;
  k.algo.epi = epilogue::cshuffle;
  k.algo.sched = scheduler::intrawave;
  auto d = dsl::validate(k, arch_id::gfx942);
  EXPECT_EQ(d.r, dsl::rule::tile_m_not_multiple_of_warps_m_x_warp_tile_m);
  EXPECT_EQ(std::string(dsl::describe(d).view()), "tile_m 96 is not a multiple of warps_m x warp_tile_m = 64 on gfx942");
  k.algo.tile = {128, 128, 32};
  EXPECT_TRUE(dsl::validate(k, arch_id::gfx942).ok());
  k.algo.sched = scheduler::interwave;  // our gfx942 kernels build intrawave only
  EXPECT_EQ(dsl::validate(k, arch_id::gfx942).r, dsl::rule::scheduler_not_offered_by_pipeline);
  k.algo.pipe = pipeline::compv4;  // CK's rule on gfx950's seed tables: interwave only with mem
  EXPECT_EQ(dsl::validate(k, arch_id::gfx950).r, dsl::rule::interwave_scheduler_not_allowed_with_pipeline);
  k.algo.pipe = pipeline::compv3;
  k.algo.sched = scheduler::any;
  EXPECT_EQ(dsl::validate(k, arch_id::gfx942).r, dsl::rule::key_has_wildcard);
}

TEST(DslExpand, CandidateCounts) {
  EXPECT_EQ(dsl::candidates_considered<sets::warps_942>(), 3);
  EXPECT_EQ(dsl::candidates_considered<sets::warps_950>(), 5);
}

}  // namespace
