// The NVIDIA arch tables' convolution offers against the CUDA convolution
// kernels: every key the tables accept must be one the kernels build (the
// tables may be narrower, never wider). Authority:
// kernels::cuda::sm80::conv_fwd_unsupported_reason(key) and, for bwd_data and
// bwd_weight, conv_bwd_unsupported_reason(key) (which include the cp_async
// GEMM's own key_unsupported_reason on the implicit GEMM); for tma_wgmma,
// sm90::conv_sm90_unsupported_reason(key) (with the tma_wgmma GEMM's; backward-data
// keys through their forward keys, backward-weight ones through their crr GEMM keys).
//
// Compile time: static_assert over a wildcard set expanded with dsl::expand.
// Run time: broader wildcard sets walked with dsl::for_each_key.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "kdecl/conv/grouped_conv_name.hpp"
#include "kdecl/dsl/dsl.hpp"
#include "kdecl/kernels/conv/cuda/sm80/conv_bwd_config.cuh"
#include "kdecl/kernels/conv/cuda/sm80/conv_fwd_config.cuh"
#include "kdecl/kernels/conv/cuda/sm90/conv_fwd_sm90_config.cuh"

namespace conv_agreement {

using namespace kdecl;

constexpr const char* kernel_reason(const grouped_conv_key& k) {
  if (k.algo.pipe == pipeline::tma_wgmma) return kernels::cuda::sm90::conv_sm90_unsupported_reason(k);
  if (k.algo.pipe != pipeline::cp_async) return "no CUDA convolution kernel implements this pipeline";
  if (k.sig.dir != conv_direction::fwd) return kernels::cuda::sm80::conv_bwd_unsupported_reason(k);
  return kernels::cuda::sm80::conv_fwd_unsupported_reason(k);
}

namespace sets {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto fwd_16bit = kernel_set(
    targets(sm_80, sm_90), grouped_conv().direction(fwd).dtype(fp16).tile(128, 128, 32).warps(any).warp_tile(any)
                               .pipeline(any).epilogue(any).vector_sizes(8, 4, 2),
    grouped_conv().direction(fwd).dtype(bf16).ndim(3).layout(gndhwc).tile(64, 64, 64).warps(any).warp_tile(any)
        .stages(any).epilogue(direct));
// sm_90's TMA + wgmma pipeline (no other target offers it).
inline constexpr auto fwd_sm90 = kernel_set(
    targets(sm_90), grouped_conv().direction(fwd).dtype(bf16).ndim(2).layout(nhwgc).tile(128, 256, 64).warps(any)
                        .warp_tile(any).pipeline(tma_wgmma).stages(any).epilogue(any).scheduler(any));
// Broad: every tile, warp layout, warp tile and epilogue the tables sweep.
inline constexpr auto broad = kernel_set(targets(sm_80, sm_86, sm_89, sm_90),
                                         grouped_conv().direction(fwd).dtype(bf16).tile(any).warps(any)
                                             .warp_tile(any).pipeline(cp_async).epilogue(any),
                                         grouped_conv().direction(fwd).dtype(fp16).ndim(1).layout(gnwc).tile(any)
                                             .warps(any).warp_tile(any).pipeline(cp_async).vector_sizes(2, 2, 2),
                                         grouped_conv().direction(bwd_data).dtype(bf16).tile(any).warps(any)
                                             .warp_tile(any).pipeline(cp_async).epilogue(any),
                                         grouped_conv().direction(bwd_weight).dtype(fp16).ndim(3).layout(ndhwgc)
                                             .tile(any).warps(any).warp_tile(any).pipeline(cp_async).epilogue(any),
                                         grouped_conv().direction(bwd_weight).dtype(bf16).tile(any).warps(any)
                                             .warp_tile(any).pipeline(cp_async).vector_sizes(2, 4, 2));
// Every tile, warp layout, warp tile, stage count, epilogue and schedule of one direction and dtype on
// sm_90's TMA + wgmma pipeline.
constexpr auto wgmma_sweep(kdecl::conv_direction d, kdecl::dtype t) {
  return grouped_conv().direction(d).dtype(t).tile(any).warps(any).warp_tile(any).pipeline(tma_wgmma).stages(any)
      .epilogue(any).scheduler(any);
}
constexpr auto fwd_dir = kdecl::conv_direction::fwd;
inline constexpr auto broad_sm90 = kernel_set(
    targets(sm_90), wgmma_sweep(fwd_dir, fp16), wgmma_sweep(bwd_data, bf16), wgmma_sweep(bwd_weight, fp16),
    // Operands element by element (channel-padded copies, backward-data's flipped weights and pixel-mapped dx).
    wgmma_sweep(fwd_dir, bf16).vector_sizes(1, 1, 8), wgmma_sweep(bwd_data, fp16).vector_sizes(1, 8, 8),
    wgmma_sweep(bwd_weight, bf16).vector_sizes(8, 1, 8), wgmma_sweep(fwd_dir, bf16).vector_sizes(1, 1, 1),
    wgmma_sweep(bwd_data, bf16).vector_sizes(1, 1, 1), wgmma_sweep(bwd_weight, bf16).vector_sizes(1, 1, 1));
// Merged groups (forward and backward-data, channels-last): every tile and schedule with 2 to 16
// groups side by side.
inline constexpr auto merged_sm90 = kernel_set(
    targets(sm_90), wgmma_sweep(fwd_dir, bf16).groups_to_merge(2), wgmma_sweep(fwd_dir, fp16).groups_to_merge(16),
    wgmma_sweep(bwd_data, bf16).groups_to_merge(8),
    wgmma_sweep(fwd_dir, bf16).ndim(3).layout(ndhwgc).groups_to_merge(4),
    wgmma_sweep(fwd_dir, fp16).ndim(1).layout(nwgc).groups_to_merge(8).vector_sizes(1, 1, 1));
// The stride1 specialization (halo tiles: forward and backward-data, 2-D and 3-D, one group per GEMM): every tile,
// stage count and schedule, whose halo stages must fit beside the key's weight stages.
inline constexpr auto stride1_sm90 = kernel_set(
    targets(sm_90), wgmma_sweep(fwd_dir, bf16).ndim(2).layout(nhwgc).specialization(stride1),
    wgmma_sweep(fwd_dir, fp16).ndim(3).layout(ndhwgc).specialization(stride1),
    wgmma_sweep(bwd_data, bf16).ndim(2).layout(nhwgc).specialization(stride1));
// The stride1_rows specialization (forward and backward-data, 2-D, one group per GEMM): of every tile,
// stage count, epilogue and schedule the tables sweep, the shapes its kernel builds remain.
inline constexpr auto stride1_rows_sm90 = kernel_set(
    targets(sm_90), wgmma_sweep(fwd_dir, bf16).ndim(2).layout(nhwgc).specialization(stride1_rows),
    wgmma_sweep(bwd_data, fp16).ndim(2).layout(nhwgc).specialization(stride1_rows));
// Fused forward epilogues (bias, residual, activation): every tile, stage count, epilogue and schedule of
// the im2col/gather kernel, 3-D, the halo tiles, merged groups, an input taken element by element.
inline constexpr auto fused_sm90 = kernel_set(
    targets(sm_90), wgmma_sweep(fwd_dir, bf16).bias().residual().activation(relu),
    wgmma_sweep(fwd_dir, fp16).ndim(3).layout(ndhwgc).bias().activation(gelu),
    wgmma_sweep(fwd_dir, bf16).ndim(2).layout(nhwgc).specialization(stride1).residual().activation(tanh_op),
    wgmma_sweep(fwd_dir, bf16).groups_to_merge(4).bias(),
    wgmma_sweep(fwd_dir, fp16).vector_sizes(1, 1, 8).bias().activation(sigmoid));
// And on the cp_async pipeline (sm_80 family and sm_90): every tile, warp layout, warp tile and epilogue,
// 16-bit data and fp32 (tf32 and exact), vectors of 16 and 4 bytes.
inline constexpr auto fused_cp_async = kernel_set(
    targets(sm_80, sm_90),
    grouped_conv().direction(fwd).dtype(bf16).bias().residual().activation(relu).tile(any).warps(any)
        .warp_tile(any).pipeline(cp_async).epilogue(any),
    grouped_conv().direction(fwd).dtype(fp32).compute(tf32).ndim(3).layout(ndhwgc).bias().activation(gelu)
        .tile(any).warps(any).warp_tile(any).pipeline(cp_async).vector_sizes(1, 1, 1),
    grouped_conv().direction(fwd).dtype(fp32).residual().activation(tanh_op).tile(any).warps(any).warp_tile(any)
        .pipeline(cp_async).epilogue(any));
// 8-bit floating data forward (each group's GEMM on the fp8 wgmma kernel): every tile, stage count,
// epilogue and schedule, each dtype mix, 1-D to 3-D and a G-major layout.
constexpr auto fp8_sweep(kdecl::dtype in, kdecl::dtype wei, kdecl::dtype out) {
  return grouped_conv().direction(fwd).dtypes(in, wei, out).tile(any).warps(any).warp_tile(any).pipeline(tma_wgmma)
      .stages(any).epilogue(any).scheduler(any).vector_sizes(1, 1, 1);
}
inline constexpr auto fp8_sm90 = kernel_set(
    targets(sm_90), fp8_sweep(fp8, fp8, bf16), fp8_sweep(bf8, bf8, bf16).ndim(3).layout(ndhwgc),
    fp8_sweep(fp8, bf8, fp32).ndim(1).layout(gnwc), fp8_sweep(bf8, fp8, fp16));
inline constexpr auto merged_fixed = kernel_set(
    targets(sm_90), grouped_conv().direction(fwd).dtype(bf16).ndim(2).layout(nhwgc).groups_to_merge(16)
                        .pipeline(tma_wgmma).tile(128, 64, 64).warps(8, 1, 1).warp_tile(16, 64, 16));
}  // namespace sets

constexpr auto compiled = dsl::expand<sets::fwd_16bit>();
constexpr auto compiled_sm90 = dsl::expand<sets::fwd_sm90>();
constexpr auto compiled_merged = dsl::expand<sets::merged_fixed>();
template <const auto& Keys>
consteval bool all_built() {
  for (const auto& k : Keys)
    if (kernel_reason(k) != nullptr) return false;
  return Keys.size() > 0;
}
static_assert(all_built<compiled>(), "a convolution key the NVIDIA tables accept is one the sm80 conv kernels cannot build");
static_assert(all_built<compiled_sm90>(), "a convolution key the sm_90 tables accept is one the sm90 conv kernel cannot build");
static_assert(all_built<compiled_merged>(), "a merged-groups key the sm_90 tables accept is one the sm90 conv kernel cannot build");

// Walks one set's keys: each must be built (kernel_reason) and pass `also`; the set must expand
// without a diagnostic. The number of keys walked.
template <class Set, class Also>
long walk_built(const Set& set, Also&& also) {
  long keys = 0;
  auto diag = dsl::for_each_key(set, [&](const grouped_conv_key& k) {
    ++keys;
    also(k);
    const char* why = kernel_reason(k);
    EXPECT_EQ(why, nullptr) << kernel_name(k) << ": " << (why ? why : "");
  });
  EXPECT_TRUE(diag.ok()) << dsl::describe(diag).view();
  return keys;
}

TEST(ConvTableKernelAgreement, EveryTableKeyIsBuilt) {
  const auto nothing_more = [](const grouped_conv_key&) {};
  const long broad_keys = walk_built(sets::broad, nothing_more);
  EXPECT_GT(broad_keys, 100);
  const long sm90_keys = walk_built(sets::broad_sm90, nothing_more);
  EXPECT_GT(sm90_keys, 20);
  const long merged_keys =
      walk_built(sets::merged_sm90, [](const grouped_conv_key& k) { EXPECT_GT(k.algo.groups_to_merge, 1); });
  EXPECT_GT(merged_keys, 4);
  const long stride1_keys = walk_built(
      sets::stride1_sm90, [](const grouped_conv_key& k) { EXPECT_EQ(k.sig.spec, conv_specialization::stride1); });
  EXPECT_GT(stride1_keys, 4);
  const long rows_keys = walk_built(sets::stride1_rows_sm90, [](const grouped_conv_key& k) {
    EXPECT_EQ(k.sig.spec, conv_specialization::stride1_rows);
    EXPECT_EQ(k.algo.tile.n, 64);
    EXPECT_EQ(k.algo.sched, scheduler::pingpong);
  });
  EXPECT_GE(rows_keys, 2);
  const auto fused = [](const grouped_conv_key& k) { EXPECT_TRUE(k.sig.fuse.fused()); };
  const long fused_keys = walk_built(sets::fused_sm90, fused);
  EXPECT_GT(fused_keys, 20);
  const long fused_cp_async_keys = walk_built(sets::fused_cp_async, fused);
  EXPECT_GT(fused_cp_async_keys, 20);
  const long fp8_keys = walk_built(sets::fp8_sm90, [](const grouped_conv_key& k) {
    EXPECT_EQ(k.sig.dir, conv_direction::fwd);
    EXPECT_EQ(k.sig.spec, conv_specialization::none);
  });
  EXPECT_GT(fp8_keys, 8);
  const long keys = broad_keys + sm90_keys + merged_keys + stride1_keys + rows_keys + fused_keys +
                    fused_cp_async_keys + fp8_keys;
  std::printf("%ld convolution keys of the NVIDIA tables, every one built by the sm80 or sm90 conv kernels\n", keys);
}

}  // namespace conv_agreement
