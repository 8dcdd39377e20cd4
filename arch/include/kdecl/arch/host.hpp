// The host (CPU) target: the host_blocked pipeline, a cache-blocked,
// multi-threaded GEMM (and grouped convolutions computed as their implicit
// GEMM). A "warp" is one thread computing a register micro-tile
// (mr x nr); the block tile is the cache block. The values are what
// include/kdecl/kernels/gemm/host/ builds.
#pragma once

#include "kdecl/arch/arch_spec.hpp"

namespace kdecl::arch::host_cpu {

inline constexpr shape3 micro_tiles[] = {{4, 8, 1}, {4, 16, 1}, {8, 8, 1}, {8, 16, 1}};
inline constexpr std::uint32_t c_float = bits(dtype::fp16, dtype::bf16, dtype::fp32);

// Every dtype combination of ck_tile::dtype_combinations except packed 4-bit,
// every layout triple (A, B and C each row or column major); fp8/bf8 also block-scaled.
inline constexpr dtype_offer host_dtypes[] = {
    {dtype::fp16, dtype::fp16, dtype::fp32, dtype::fp16, c_float, all_layouts, micro_tiles, {}},
    {dtype::bf16, dtype::bf16, dtype::fp32, dtype::bf16, c_float, all_layouts, micro_tiles, {}},
    {dtype::fp32, dtype::fp32, dtype::fp32, dtype::fp32, bits(dtype::fp32), all_layouts, micro_tiles, {}},
    {dtype::fp32, dtype::fp32, dtype::fp32, dtype::tf32, bits(dtype::fp32), all_layouts, micro_tiles, {}},
    // The preshuffled-B format is defined for 8, 16 and 32-bit elements only.
    {dtype::fp64, dtype::fp64, dtype::fp64, dtype::fp64, bits(dtype::fp64), all_layouts, micro_tiles, {},
     unshuffled_variants},
    {dtype::int8, dtype::int8, dtype::int32, dtype::int8, bits(dtype::int32, dtype::int8), all_layouts, micro_tiles, {}},
    {dtype::fp8, dtype::fp8, dtype::fp32, dtype::fp8, c_float, all_layouts, micro_tiles, {},
     block_scaled_fp8_variants},
    {dtype::fp8, dtype::bf8, dtype::fp32, dtype::fp8, c_float, all_layouts, micro_tiles, {},
     block_scaled_fp8_variants},
    {dtype::bf8, dtype::fp8, dtype::fp32, dtype::bf8, c_float, all_layouts, micro_tiles, {},
     block_scaled_fp8_variants},
    {dtype::bf8, dtype::bf8, dtype::fp32, dtype::bf8, c_float, all_layouts, micro_tiles, {},
     block_scaled_fp8_variants},
};
inline constexpr shape3 one_thread[] = {{1, 1, 1}};
inline constexpr int cache_block_mn[] = {16, 32, 64, 128, 256};
inline constexpr int cache_block_k[] = {32, 64, 128, 256, 512};
inline constexpr int any_alignment[] = {1};
inline constexpr shape2 no_cluster[] = {{1, 1}};

constexpr pipeline_caps host_blocked() {
  pipeline_caps c{pipeline::host_blocked, host_dtypes, one_thread, 0, {1, 1, 1}, {1, 1, 1}, false, 0,
                  cache_block_mn, cache_block_mn, cache_block_k, {1, 1, 1}, bits(epilogue::direct),
                  bits(scheduler::intrawave), any_alignment, 1, smem_formula::none, 0, no_cluster, false};
  // standard, multi_d, the preshuffled B (read through preshuffled_offset) and block_scaled (fp8 offers)
  c.variants = block_scaled_fp8_variants;
  // Grouped convolution (kernels/conv/host/): the implicit GEMM gathered straight from the
  // tensors (no im2col buffer) in every direction, rank and layout, with fp16, bf16 or fp32
  // data (and fp8/bf8 forward) and fp32 accumulation; no filter specialization, one group per GEMM.
  c.conv = {bits(conv_direction::fwd, conv_direction::bwd_data, conv_direction::bwd_weight),
            bits(conv_layout::nwgc, conv_layout::nhwgc, conv_layout::ndhwgc, conv_layout::gnwc, conv_layout::gnhwc,
                 conv_layout::gndhwc),
            bits(dtype::fp16, dtype::bf16, dtype::fp32), bits(conv_specialization::none), 1};
  // fwd_operands.hpp's store applies a fused epilogue, compiled in or read from the problem.
  c.conv.fused_specializations = bits(conv_specialization::none);
  c.conv.dynamic_fusion = true;
  // fp8/bf8 input and weights forward (mixed or not), the output in fp16, bf16 or fp32.
  c.conv.fp8_forward_outputs = bits(dtype::fp16, dtype::bf16, dtype::fp32);
  c.epilogue_any_alignment = true;
  c.width_one_is_scalar = true;  // elements are read one by one wherever they lie
  return c;
}
inline constexpr pipeline_caps pipelines_host[] = {host_blocked()};

inline constexpr arch_spec host = {
    arch_id::host, backend::host, "host", "host", "CPU (cache-blocked, multi-threaded)",
    1, 1, 0, 0, true, {}, 0, 0.0, {}, {}, {}, {}, {}, {}, pipelines_host, /*kernels_available=*/true};

}  // namespace kdecl::arch::host_cpu
