// The validation rules, each named by what it demands, and the diagnostic a
// failed rule produces. The enumerator names are part of the compile error
// (clang and nvcc print them), so they state the rule in words.
#pragma once

#include <cstdint>

#include "kdecl/core/enums.hpp"

namespace kdecl::dsl {

enum class rule : std::uint8_t {
  ok,
  // ---- sets and expansion
  one_operation_per_set,
  target_list_empty,
  wildcards_leave_no_valid_kernel,
  no_kernel_built_for_arch,               // expand<>: the tables accept the target, kdecl builds no kernel there
  key_has_wildcard,                       // run-time validate() of a key that is not concrete
  value_not_positive,
  // ---- pipeline and data types
  pipeline_not_offered_on_arch,
  fp8_requires_sm_89_or_gfx940,
  tf32_compute_requires_fp32_data,
  dtype_combination_not_offered_by_pipeline,
  c_dtype_not_offered_for_dtype_combination,
  layout_not_offered_for_dtype,
  // ---- variants
  preshuffle_requires_preshuffle_pipeline,
  preshuffle_pipeline_requires_preshuffle_variant,
  multi_d_num_d_out_of_range,
  elementwise_op_requires_multi_d,
  variant_not_offered_for_dtype,
  // ---- warps and warp tiles
  warps_not_offered_for_pipeline_on_arch,
  threads_per_block_exceed_limit,
  warp_tile_not_offered_for_dtype_on_arch,
  // ---- block tile
  tile_below_minimum_for_pipeline,
  tile_not_aligned_for_pipeline,
  tile_m_not_multiple_of_warps_m_x_warp_tile_m,
  tile_n_not_multiple_of_warps_n_x_warp_tile_n,
  tile_k_not_multiple_of_warps_k_x_warp_tile_k,
  tile_n_must_equal_warp_tile_n,
  tile_k_bytes_must_equal_swizzle_row,
  tile_above_maximum_for_pipeline,
  accumulators_per_thread_exceed_register_cap,
  gemv_chunks_in_flight_exceed_register_cap,  // gemv: (tile_m + tile_n) x chunks per lane per step
  tile_extent_bytes_not_multiple_of_chunk,
  smem_row_bytes_not_swizzle_friendly,
  mn_major_tile_not_multiple_of_box,  // TMA: an M/N-major operand's tile extent, in whole boxes
  preshuffle_tile_k_bytes_not_multiple_of_block,
  block_scaled_tile_k_not_scale_block,
  block_scaled_tile_n_straddles_scale_block,
  block_scaled_accumulators_exceed_register_cap,
  block_scaled_c_dtype_not_16_or_32_bit,
  block_scaled_layout_not_offered_by_pipeline,
  warp_region_not_multiple_of_simt_grid,
  // ---- stages and shared memory
  stages_out_of_range_for_pipeline,
  lds_exceeds_capacity_for_pipeline,      // AMD
  stages_do_not_fit_shared_memory,        // NVIDIA
  // ---- traits
  epilogue_not_offered_by_pipeline,
  scheduler_not_offered_by_pipeline,
  interwave_scheduler_not_allowed_with_pipeline,
  pingpong_needs_one_consumer_warpgroup,  // NVIDIA tma_wgmma: warps (4,1,1), run twice
  // ---- global access width
  vector_bytes_not_offered_by_pipeline,
  vector_bytes_not_multiple_of_element_size,
  vector_bytes_do_not_divide_tile_row_bytes,
  // ---- clusters
  cluster_requires_sm_90,
  cluster_not_offered_by_pipeline,
  multicast_cluster_unsupported,          // NVIDIA tma_wgmma: what its 2-block clusters build
  // ---- offsets
  index_bits_not_offered_by_pipeline,
  // ---- grouped convolution
  conv_ndim_out_of_range,
  conv_layout_does_not_match_ndim,
  conv_backward_requires_compv3_or_mem,
  conv_vector_size_not_power_of_two,
  conv_vector_bytes_exceed_pipeline_width,
  conv_groups_to_merge_not_positive,
  conv_not_built_by_pipeline,             // the target builds convolutions, this pipeline does not
  conv_direction_not_offered_by_pipeline,
  conv_layout_not_offered_by_pipeline,
  conv_dtypes_not_offered_by_pipeline,
  conv_specialization_not_offered_by_pipeline,
  conv_groups_to_merge_above_pipeline_maximum,
  conv_groups_to_merge_not_offered_for_signature,  // merging groups: some directions and layouts only
  conv_stride1_not_offered_for_signature,  // the stride1 specialization: some directions and ranks, one group per GEMM
  conv_stride1_rows_not_offered_for_signature,  // the same for stride1_rows
  conv_stride1_rows_shape_not_built,  // stride1_rows: its kernel's tiles, schedule, epilogue and ring
  conv_tile_n_not_built,              // the pipeline's convolutions: tile_n a multiple of conv_offer::tile_n_multiple
  conv_scheduler_not_offered_by_pipeline,
  conv_fusion_requires_forward,           // a fused epilogue (bias, residual, activation) is forward-only
  conv_fusion_activation_not_offered,     // multi_d_add is the GEMM's D sum, not an activation
  conv_fusion_not_offered_by_pipeline,    // the pipeline's kernels of this specialization fuse no epilogue
  conv_dynamic_fusion_not_offered_by_pipeline,
  conv_fp8_forward_not_plain,  // the pipeline's 8-bit keys: no specialization, merged groups or fused epilogue  // fusion read at run time: the host kernels only
  conv_fusion_requires_output_vector,     // a one-element output vector writes through a copy, not in place
  conv_computes_in_its_input_dtype,       // direct_conv multiplies in its input dtype (no tf32)
  conv_vector_bytes_not_offered_by_pipeline,
  conv_direct_needs_explicit_shape,       // direct_conv: tile, warps and warp_tile are named, not wildcards
  conv_direct_threads_not_offered,
  conv_direct_shape_not_one_dimensional,  // warps (w, 1, 1), warp_tile (p, c, 1), stages 1 or 2, groups_to_merge 1
  conv_direct_channels_per_thread_not_vector,
  conv_direct_tile_not_threads_x_pixels,
  conv_direct_tile_above_maximum,
  conv_direct_smem_exceeds_capacity,
  conv_direct_weight_vector_not_one,
  conv_direct_staged_not_offered,         // stages 2 (TMA-staged depthwise): targets with TMA only
  conv_direct_staged_shape_not_built,     // stages 2: fwd 2-D nhwgc, rows per thread, 16-byte channel lines
  // ---- fmha
  fmha_dtype_not_offered_on_arch,
  fmha_pipeline_not_offered_on_arch,
  fmha_hdim_not_multiple_of_8,
  fmha_hdim_not_offered_for_dtype,
  fmha_backward_dtype_not_offered,
  fmha_k0max_does_not_match_hdim_q,
  fmha_tile_k0_does_not_divide_hdim_q,
  fmha_tile_not_multiple_of_warps_x_warp_tile,
  fmha_warp_tile_not_offered_for_dtype,
  fmha_lds_exceeds_capacity,
  fmha_logits_soft_cap_requires_no_bias,
  fmha_group_mode_requires_seq_padding,
  fmha_hdim_192_128_forbids_bias_and_dropout,
  fmha_pipeline_requires_hdim_64_or_128,
  fmha_v3_pipeline_requires_tile_m0_256,
  fmha_family_not_offered_on_arch,
  fmha_dropout_not_offered_on_arch,
  fmha_v_col_major_not_offered_on_arch,
  fmha_warps_not_offered_for_pipeline,
  fmha_stage_1_warps_must_equal_stage_0,
  fmha_tile_k0_must_equal_k0max,
  fmha_tile_k1_must_equal_n0,
  fmha_tile_n1_must_equal_padded_hdim_v,
  fmha_tile_m0_must_be_64_rows_per_consumer_warpgroup,
  fmha_tile_n_above_maximum,
  fmha_stages_out_of_range,
  fmha_smem_exceeds_capacity,
  fmha_accumulators_exceed_register_cap,
  fmha_pipeline_does_not_serve_family,
  fmha_cache_dtype_not_offered,
  fmha_paged_cache_requires_equal_hdims,
  fmha_pipeline_requires_hdim_64_128_or_256,
  fmha_tile_not_offered_for_pipeline,
  fmha_family_requires_mode,
  fmha_pipeline_requires_hdim_multiple_of_64,
  fmha_pipeline_does_not_compute_dtype,   // a built pipeline computes fewer Q/K/V dtypes than the target offers
  no_kernel_built_for_fmha_pipeline,      // expand<>: the tables accept the pipeline, kdecl builds no kernel for it
};

// Bits naming the key fields a rule read; a failure whose fields are all
// explicit (no wildcard) in the declaration is an error for every expansion.
namespace field {
inline constexpr std::uint32_t a = 1u << 0, b = 1u << 1, c = 1u << 2, acc = 1u << 3, compute = 1u << 4;
inline constexpr std::uint32_t dtypes = a | b | c | acc | compute;
inline constexpr std::uint32_t layout = 1u << 5, variant = 1u << 6;
inline constexpr std::uint32_t tile_m = 1u << 7, tile_n = 1u << 8, tile_k = 1u << 9;
inline constexpr std::uint32_t tile = tile_m | tile_n | tile_k;
inline constexpr std::uint32_t warps_m = 1u << 10, warps_n = 1u << 11, warps_k = 1u << 12;
inline constexpr std::uint32_t warps = warps_m | warps_n | warps_k;
inline constexpr std::uint32_t warp_tile_m = 1u << 13, warp_tile_n = 1u << 14, warp_tile_k = 1u << 15;
inline constexpr std::uint32_t warp_tile = warp_tile_m | warp_tile_n | warp_tile_k;
inline constexpr std::uint32_t pipe = 1u << 16, stages = 1u << 17, epi = 1u << 18, sched = 1u << 19;
inline constexpr std::uint32_t pad = 1u << 20, vector = 1u << 21, cluster = 1u << 22;
inline constexpr std::uint32_t op_specific = 1u << 23;  // conv / fmha signature fields
inline constexpr std::uint32_t index = 1u << 24;        // gemm_algorithm::index_bits
}  // namespace field

// The outcome of one rule on one key and target.
// `v` holds the offending values; their meaning is fixed per rule (see describe.hpp).
struct diagnostic {
  rule r = rule::ok;
  arch_id arch = arch_id::host;
  pipeline pipe = pipeline::any;
  dtype a = dtype::any, b = dtype::any;
  long v[4]{};
  std::uint32_t fields = 0;

  constexpr bool ok() const { return r == rule::ok; }
};

}  // namespace kdecl::dsl
