// The text of a diagnostic, formatted in constexpr code from the rule, target
// and values (the same text at compile time and at run time).
#pragma once

#include "kdecl/arch/arch.hpp"
#include "kdecl/conv/grouped_conv_key.hpp"
#include "kdecl/dsl/message.hpp"
#include "kdecl/dsl/rule.hpp"
#include "kdecl/fmha/fmha_key.hpp"
#include "kdecl/gemm/gemm_key.hpp"

namespace kdecl::dsl {

namespace detail {

template <class E>
constexpr std::string_view name(long v) { return to_string(static_cast<E>(v)); }

constexpr message& shape(message& m, long x, long y, long z) { return m << x << "x" << y << "x" << z; }

// Byte counts read best in KiB when they are whole KiB.
constexpr message& bytes(message& m, long b) {
  if (b % 1024 == 0) return m << b / 1024 << " KiB";
  return m << b << " bytes";
}

constexpr message& dtype_pair(message& m, dtype a, dtype b) {
  m << to_string(a);
  if (b != a && b != dtype::any) m << " x " << to_string(b);
  return m;
}

constexpr message& offered_pipelines(message& m, arch_id a) {
  m << " (offered:";
  for (const auto& p : spec_of(a).pipelines) m << " " << to_string(p.pipe);
  return m << ")";
}

template <class E>
constexpr message& enum_set(message& m, std::uint32_t set) {
  bool first = true;
  for (std::size_t i = 0; i < enum_count<E>(); ++i)
    if (set >> i & 1u) {
      m << (first ? "" : ", ") << to_string(static_cast<E>(i));
      first = false;
    }
  return m;
}

constexpr std::string_view layout_name(long index) {
  constexpr std::string_view names[8] = {"rrr", "rrc", "rcr", "rcc", "crr", "crc", "ccr", "ccc"};
  return index >= 0 && index < 8 ? names[index] : "?";
}

}  // namespace detail

// One sentence saying which rule failed, with the offending values and target.
constexpr message describe(const diagnostic& d) {
  using namespace detail;
  message m{};
  const auto arch = to_string(d.arch);
  const auto pipe = to_string(d.pipe);
  const long* v = d.v;
  switch (d.r) {
    case rule::ok: m << "ok"; break;
    case rule::one_operation_per_set:
      m << "a kernel set holds one operation: declaration " << v[0] << " is " << name<op_kind>(v[1])
        << " but the set is " << name<op_kind>(v[2]);
      break;
    case rule::target_list_empty: m << "targets() names no target"; break;
    case rule::wildcards_leave_no_valid_kernel:
      m << "declaration " << v[0] << " leaves no valid kernel for " << arch;
      break;
    case rule::no_kernel_built_for_arch:
      m << "no kdecl kernel is built for " << arch << " yet (" << name<op_kind>(v[0])
        << "); expand_legal<> validates without building";
      break;
    case rule::key_has_wildcard: m << "key is not concrete (wildcards left); validate() needs a concrete key"; break;
    case rule::value_not_positive: {
      constexpr std::string_view what[4] = {"tile", "warps", "warp tile", "cluster"};
      m << what[v[3] & 3] << " ";
      if (v[3] == 3) m << v[0] << "x" << v[1]; else shape(m, v[0], v[1], v[2]);
      m << " must be positive";
      break;
    }
    case rule::pipeline_not_offered_on_arch:
      m << "pipeline " << pipe << " is not offered on " << arch;
      offered_pipelines(m, d.arch);
      break;
    case rule::fp8_requires_sm_89_or_gfx940:
      m << "fp8/bf8 needs sm_89+ or gfx940+, not " << arch;
      break;
    case rule::tf32_compute_requires_fp32_data:
      dtype_pair(m << "tf32 compute needs fp32 A and B, not ", d.a, d.b);
      break;
    case rule::dtype_combination_not_offered_by_pipeline:
      dtype_pair(m << "dtypes ", d.a, d.b) << " (acc " << name<dtype>(v[0]) << ", compute " << name<dtype>(v[1])
                                            << ") not offered by " << pipe << " on " << arch;
      break;
    case rule::c_dtype_not_offered_for_dtype_combination:
      dtype_pair(m << "C dtype " << name<dtype>(v[0]) << " not offered for ", d.a, d.b)
          << " with " << pipe << " on " << arch << " (offered: ";
      enum_set<dtype>(m, static_cast<std::uint32_t>(v[1])) << ")";
      break;
    case rule::layout_not_offered_for_dtype:
      dtype_pair(m << "layout " << layout_name(v[0]) << " not offered for ", d.a, d.b)
          << " with " << pipe << " on " << arch;
      // Offers limited to A row-major, B column-major (rcr = 2, rcc = 3): say why.
      if (v[1] != 0 && (v[1] & ~long{0xC}) == 0)
        m << " (these operands must be K-major: A row-major, B column-major, layout rcr or rcc; the matrix "
             "instructions read 8-bit and tf32 operands only K-major)";
      break;
    case rule::preshuffle_requires_preshuffle_pipeline:
      m << "preshuffle variant not built by " << pipe << " on " << arch << " (preshufflev2 and cp_async build it)";
      break;
    case rule::preshuffle_pipeline_requires_preshuffle_variant:
      m << "pipeline " << pipe << " builds only the preshuffle variant";
      break;
    case rule::multi_d_num_d_out_of_range:
      m << "multi_d needs 1.." << v[1] << " D tensors, got " << v[0];
      break;
    case rule::elementwise_op_requires_multi_d:
      m << "elementwise op " << name<elementwise>(v[0]) << " with " << v[1] << " D tensors needs the multi_d variant";
      break;
    case rule::variant_not_offered_for_dtype:
      dtype_pair(m << "variant " << name<gemm_variant>(v[0]) << " not offered for ", d.a, d.b)
          << " with " << pipe << " on " << arch;
      break;
    case rule::warps_not_offered_for_pipeline_on_arch:
      shape(m << "warps ", v[0], v[1], v[2]) << " not offered for " << pipe << " on " << arch;
      break;
    case rule::threads_per_block_exceed_limit:
      m << "block of " << v[0] << " threads exceeds " << v[1] << " on " << arch;
      break;
    case rule::warp_tile_not_offered_for_dtype_on_arch:
      dtype_pair(shape(m << "warp tile ", v[0], v[1], v[2]) << " not offered for ", d.a, d.b)
          << " on " << arch << " (" << pipe << ")";
      break;
    case rule::tile_below_minimum_for_pipeline:
      shape(m << "tile ", v[0], v[1], v[2]) << " is below the minimum block tile of " << pipe;
      break;
    case rule::tile_not_aligned_for_pipeline:
      shape(m << "tile ", v[0], v[1], v[2]) << " is not aligned to the block-tile alignment of " << pipe;
      break;
    case rule::tile_m_not_multiple_of_warps_m_x_warp_tile_m:
      m << "tile_m " << v[0] << " is not a multiple of warps_m x warp_tile_m = " << v[1] << " on " << arch;
      break;
    case rule::tile_n_not_multiple_of_warps_n_x_warp_tile_n:
      m << "tile_n " << v[0] << " is not a multiple of warps_n x warp_tile_n = " << v[1] << " on " << arch;
      break;
    case rule::tile_k_not_multiple_of_warps_k_x_warp_tile_k:
      m << "tile_k " << v[0] << " is not a multiple of warps_k x warp_tile_k = " << v[1] << " on " << arch;
      break;
    case rule::tile_n_must_equal_warp_tile_n:
      m << "tile_n " << v[0] << " must equal warp_tile_n " << v[1] << " with " << pipe;
      break;
    case rule::tile_k_bytes_must_equal_swizzle_row:
      m << "tile_k " << v[0] << " of " << to_string(d.a) << " is " << v[1] << " bytes; " << pipe << " needs "
        << v[2] << "-byte rows";
      break;
    case rule::tile_above_maximum_for_pipeline: {
      constexpr std::string_view dim[3] = {"tile_m", "tile_n", "tile_k"};
      m << dim[v[0] % 3] << " " << v[1] << " is above the maximum " << v[2] << " of " << pipe << " on " << arch;
      break;
    }
    case rule::accumulators_per_thread_exceed_register_cap:
      m << "tile_m*tile_n over " << v[2] << " threads is " << v[0] << " accumulators per thread, over " << v[1]
        << " for " << pipe << " on " << arch;
      break;
    case rule::gemv_chunks_in_flight_exceed_register_cap:
      m << "(tile_m + tile_n) x " << v[1] << " chunks per lane per step (tile_k values over warps_k x 32 lanes, 16 bytes a chunk) is " << v[0]
        << " 16-byte chunks in registers, over " << v[2] << " for " << pipe;
      break;
    case rule::tile_extent_bytes_not_multiple_of_chunk: {
      constexpr std::string_view dim[3] = {"tile_m", "tile_n", "tile_k"};
      m << dim[v[0] % 3] << " " << v[1] << " spans " << v[2] << " bytes, not a multiple of " << v[3]
        << "-byte chunks for " << pipe;
      break;
    }
    case rule::smem_row_bytes_not_swizzle_friendly:
      m << (v[0] == 0 ? "A" : "B") << " shared-memory row of " << v[1]
        << " bytes is not 16, 32, 64 or a multiple of 128 (swizzle) for " << pipe;
      break;
    case rule::mn_major_tile_not_multiple_of_box:
      m << (v[0] == 0 ? "tile_m " : "tile_n ") << v[1] << " spans " << v[2] << " bytes of an operand read "
        << (v[0] == 0 ? "M-major" : "N-major") << ", not a multiple of the " << v[3] << "-byte boxes " << pipe
        << " loads it in (read it K-major: " << (v[0] == 0 ? "A row-major" : "B column-major")
        << ", or with column-major C " << (v[0] == 0 ? "B column-major" : "A row-major") << ")";
      break;
    case rule::preshuffle_tile_k_bytes_not_multiple_of_block:
      m << "preshuffle: tile_k " << v[0] << " of B is " << v[1] << " bytes, not a multiple of the " << v[2]
        << "-byte k block of " << pipe;
      break;
    case rule::block_scaled_tile_k_not_scale_block:
      if (v[2] != 0)
        m << "block_scaled: tile_k " << v[0] << " does not divide the scale block's depth " << v[1]
          << " (a k tile may not straddle two scale blocks) for " << pipe;
      else
        m << "block_scaled: tile_k " << v[0] << " is not the scale block's depth " << v[1]
          << " (one A and one B scale per k tile) for " << pipe;
      break;
    case rule::block_scaled_tile_n_straddles_scale_block:
      if (v[2] != 0)
        m << "block_scaled: tile_n " << v[0] << " does not divide the " << v[1]
          << " columns one B scale covers (one B scale per tile) for " << pipe;
      else
        m << "block_scaled: tile_n " << v[0] << " neither divides nor is a multiple of the " << v[1]
          << " columns one B scale covers for " << pipe;
      break;
    case rule::block_scaled_accumulators_exceed_register_cap:
      m << "block_scaled: tile_m*tile_n over " << v[2] << " threads is " << v[0]
        << " accumulators per thread, twice that with each scale block's partial sums, over " << v[1] << " for "
        << pipe << " on " << arch;
      break;
    case rule::block_scaled_c_dtype_not_16_or_32_bit:
      m << "block_scaled: C dtype " << name<dtype>(v[0]) << " is not fp16, bf16 or fp32";
      break;
    case rule::block_scaled_layout_not_offered_by_pipeline:
      m << "block_scaled: layout " << layout_name(v[0]) << " is not offered by " << pipe << " on " << arch
        << " (its scales are per row of A and per 128 columns of B)";
      break;
    case rule::warp_region_not_multiple_of_simt_grid:
      m << "SIMT warp region " << (v[0] == 0 ? "m " : "n ") << v[1] << " is not a multiple of the lane grid "
        << v[2] << " for " << pipe << " on " << arch;
      break;
    case rule::stages_out_of_range_for_pipeline:
      m << "stages " << v[0] << " outside " << v[1] << ".." << v[2] << " for " << pipe << " on " << arch;
      break;
    case rule::lds_exceeds_capacity_for_pipeline:
      bytes(bytes(m << "LDS use ", v[0]) << " exceeds ", v[1]) << " for " << pipe << " on " << arch;
      break;
    case rule::stages_do_not_fit_shared_memory:
      bytes(bytes(m << v[2] << " stages use ", v[0]) << " of shared memory, over ", v[1])
          << " for " << pipe << " on " << arch;
      break;
    case rule::epilogue_not_offered_by_pipeline:
      m << "epilogue " << name<epilogue>(v[0]) << " not offered by " << pipe << " on " << arch;
      break;
    case rule::scheduler_not_offered_by_pipeline:
      m << "scheduler " << name<scheduler>(v[0]) << " not offered by " << pipe << " on " << arch;
      break;
    case rule::interwave_scheduler_not_allowed_with_pipeline:
      m << "interwave scheduler not allowed with " << pipe << " (" << name<epilogue>(v[0]) << " epilogue)";
      break;
    case rule::pingpong_needs_one_consumer_warpgroup:
      m << "pingpong scheduler needs warps 4x1x1 (one consumer warpgroup, run twice on alternate tiles), not "
        << v[0] << "x" << v[1] << "x" << v[2];
      break;
    case rule::vector_bytes_not_offered_by_pipeline:
      m << "vector_bytes " << v[0] << " not offered by " << pipe << " on " << arch;
      break;
    case rule::vector_bytes_not_multiple_of_element_size:
      m << "vector_bytes " << v[0] << " is not a multiple of the " << name<dtype>(v[2]) << " element size";
      break;
    case rule::vector_bytes_do_not_divide_tile_row_bytes: {
      constexpr std::string_view op[3] = {"A", "B", "C"};
      m << "vector_bytes " << v[0] << " does not divide the " << op[v[2] % 3] << " tile row of " << v[1]
        << " bytes";
      break;
    }
    case rule::cluster_requires_sm_90:
      m << "cluster " << v[0] << "x" << v[1] << " needs sm_90, not " << arch;
      break;
    case rule::multicast_cluster_unsupported: {
      constexpr std::string_view why[5] = {
          "is built for the standard variant only",
          "is built for the cooperative (intrawave) schedule only",
          "with column-major A needs tile_m a multiple of 128 (the two blocks share A's 64-row boxes)",
          "with row-major B needs tile_n a multiple of 128 (the two blocks share B's 64-column boxes)",
          "is built for row-major C only (column-major C runs as its transpose)"};
      m << "cluster " << v[1] << "x" << v[2] << " " << why[v[0] % 5] << " on " << arch;
      break;
    }
    case rule::cluster_not_offered_by_pipeline:
      m << "cluster " << v[0] << "x" << v[1] << " not offered by " << pipe << " on " << arch;
      break;
    case rule::index_bits_not_offered_by_pipeline:
      m << "index_bits " << v[0] << " not offered by " << pipe << " on " << arch << " (32, or 64 where listed)";
      break;
    case rule::conv_ndim_out_of_range: m << "conv ndim " << v[0] << " outside 1..3"; break;
    case rule::conv_layout_does_not_match_ndim:
      m << "conv layout " << name<conv_layout>(v[0]) << " does not match ndim " << v[1];
      break;
    case rule::conv_backward_requires_compv3_or_mem:
      m << "conv " << name<conv_direction>(v[0]) << " needs compv3 or mem on " << arch << ", not " << pipe;
      break;
    case rule::conv_vector_size_not_power_of_two: {
      constexpr std::string_view op[3] = {"input", "weight", "output"};
      m << "conv " << op[v[0] % 3] << " vector size " << v[1] << " is not a power of two";
      break;
    }
    case rule::conv_vector_bytes_exceed_pipeline_width: {
      constexpr std::string_view op[3] = {"input", "weight", "output"};
      m << "conv " << op[v[0] % 3] << " vector of " << v[1] << " elements is " << v[2] << " bytes, over "
        << v[3] << " for " << pipe;
      break;
    }
    case rule::conv_groups_to_merge_not_positive: m << "groups_to_merge " << v[0] << " must be positive"; break;
    case rule::conv_not_built_by_pipeline:
      m << "pipeline " << pipe << " builds no convolution kernels on " << arch << " (" << name<conv_direction>(v[0])
        << ")";
      break;
    case rule::conv_direction_not_offered_by_pipeline:
      m << "conv " << name<conv_direction>(v[0]) << " not built by " << pipe << " on " << arch << " (offered: ";
      enum_set<conv_direction>(m, static_cast<std::uint32_t>(v[1])) << ")";
      break;
    case rule::conv_layout_not_offered_by_pipeline:
      m << "conv layout " << name<conv_layout>(v[0]) << " not built by " << pipe << " on " << arch << " (offered: ";
      enum_set<conv_layout>(m, static_cast<std::uint32_t>(v[1])) << ")";
      break;
    case rule::conv_dtypes_not_offered_by_pipeline:
      m << "conv dtypes " << name<dtype>(v[0]) << "-" << name<dtype>(v[1]) << "-" << name<dtype>(v[2])
        << " (in-wei-out) not built by " << pipe << " on " << arch << " (offered: in = wei = out, ";
      enum_set<dtype>(m, static_cast<std::uint32_t>(v[3] & 0xffffffffL));
      if (v[3] >> 32) enum_set<dtype>(m << "; 8-bit fwd into ", static_cast<std::uint32_t>(v[3] >> 32));
      m << ")";
      break;
    case rule::conv_specialization_not_offered_by_pipeline:
      m << "conv specialization " << name<conv_specialization>(v[0]) << " not built by " << pipe << " on " << arch
        << " (offered: ";
      enum_set<conv_specialization>(m, static_cast<std::uint32_t>(v[1])) << ")";
      break;
    case rule::conv_computes_in_its_input_dtype:
      m << "conv pipeline " << pipe << " multiplies in its input dtype " << name<dtype>(v[0]) << ", not "
        << name<dtype>(v[1]) << " (tf32 is an implicit-GEMM pipeline's)";
      break;
    case rule::conv_vector_bytes_not_offered_by_pipeline: {
      constexpr std::string_view op[3] = {"input", "weight", "output"};
      m << "conv " << op[v[0] % 3] << " vector of " << v[1] << " elements is " << v[2]
        << " bytes, not an access width " << pipe << " issues on " << arch;
      break;
    }
    case rule::conv_direct_needs_explicit_shape: {
      constexpr std::string_view what[3] = {"tile", "warps", "warp_tile"};
      m << "direct_conv declarations name their " << what[v[0] % 3] << " (no wildcard)";
      break;
    }
    case rule::conv_direct_threads_not_offered:
      m << "direct_conv block of " << v[0] << " threads is not offered on " << arch << " (64, 128, 256 or 512)";
      break;
    case rule::conv_direct_shape_not_one_dimensional:
      m << "direct_conv takes warps (w, 1, 1), warp_tile (pixels, channels, rows) with rows 1 unless stages 2, "
           "stages 1 or 2, groups_to_merge 1 and the direct epilogue";
      break;
    case rule::conv_direct_channels_per_thread_not_vector:
      m << "direct_conv channels per thread (warp_tile n = " << v[0] << ") must equal the input and output vectors ("
        << v[1] << ", " << v[2] << ")";
      break;
    case rule::conv_direct_tile_not_threads_x_pixels:
      m << "direct_conv tile " << v[0] << "x" << v[1] << "x" << v[2]
        << ": tile k must be a multiple of the channels per thread, tile n of the pixels per thread, and "
           "tile m x tile n = (threads / channel lanes) x pixels x rows per thread = "
        << v[3];
      break;
    case rule::conv_direct_tile_above_maximum:
      m << "direct_conv tile of " << v[0] << " pixels x " << v[1] << " channels, " << v[2]
        << " pixels per thread: above what " << arch << " offers";
      break;
    case rule::conv_direct_smem_exceeds_capacity:
      m << "direct_conv needs " << v[0] << " bytes of shared memory for a 3x3 filter, " << arch << " has " << v[1];
      break;
    case rule::conv_direct_staged_not_offered:
      m << "direct_conv stages 2 (the TMA-staged depthwise kernel) is not offered on " << arch
        << " (it needs TMA: sm_90)";
      break;
    case rule::conv_direct_staged_shape_not_built: {
      constexpr std::string_view what[4] = {
          "is a 2-D nhwgc forward kernel",
          "takes 1 to the arch's maximum output rows per thread (warp_tile k)",
          "stages whole 16-byte lines of channels (tile k x element size a multiple of 16)",
          "needs tile m a multiple of the rows per thread and tile n of the columns per thread"};
      m << "direct_conv stages 2 (staged depthwise) " << what[v[0] % 4] << "; got " << v[1];
      break;
    }
    case rule::conv_direct_weight_vector_not_one:
      m << "direct_conv stages the taps element by element: the weight vector is 1, not " << v[0];
      break;
    case rule::conv_fusion_requires_forward:
      m << "a fused epilogue (bias, residual, activation) is for conv fwd only, not " << name<conv_direction>(v[0]);
      break;
    case rule::conv_fusion_activation_not_offered:
      m << "conv activation " << name<elementwise>(v[0])
        << " is not one a fused epilogue applies (pass_through, relu, gelu, sigmoid, tanh)";
      break;
    case rule::conv_fusion_not_offered_by_pipeline:
      m << "fused conv epilogue not built by " << pipe << " on " << arch << " for specialization "
        << name<conv_specialization>(v[0]);
      if (v[1] == 0) {
        m << " (its kernels store plain results)";
      } else {
        m << " (fused for: ";
        enum_set<conv_specialization>(m, static_cast<std::uint32_t>(v[1])) << ")";
      }
      break;
    case rule::conv_dynamic_fusion_not_offered_by_pipeline:
      m << "a conv fusion read at run time (dynamic_fusion) is not built by " << pipe << " on " << arch
        << ": name the kernel's bias, residual and activation";
      break;
    case rule::conv_fp8_forward_not_plain:
      m << "8-bit conv on " << pipe << " (" << arch << ") is a plain GEMM: ";
      if (v[2]) m << "no fused epilogue";
      else if (v[1] != 1) m << "groups_to_merge " << v[1] << " not built";
      else m << "specialization " << name<conv_specialization>(v[0]) << " not built";
      m << " (no specialization, merged groups or fusion)";
      break;
    case rule::conv_fusion_requires_output_vector:
      m << "a fused conv epilogue writes the output in place: " << pipe << " on " << arch
        << " takes a one-element output vector through a channel-padded copy; give the output a vector of "
           "several elements";
      break;
    case rule::conv_scheduler_not_offered_by_pipeline:
      m << "conv scheduler " << name<scheduler>(v[0]) << " not built by " << pipe << " on " << arch << " (offered: ";
      enum_set<scheduler>(m, static_cast<std::uint32_t>(v[1])) << ")";
      break;
    case rule::conv_groups_to_merge_above_pipeline_maximum:
      m << "groups_to_merge " << v[0] << " above the " << v[1] << " that " << pipe << " builds on " << arch;
      break;
    case rule::conv_groups_to_merge_not_offered_for_signature:
      m << "groups_to_merge " << v[0] << " with conv " << name<conv_direction>(v[1]) << " in layout "
        << name<conv_layout>(v[2]) << ": " << pipe << " on " << arch << " merges groups for ";
      enum_set<conv_direction>(m, static_cast<std::uint32_t>(v[3] & 0xffffffffL)) << " in layouts ";
      enum_set<conv_layout>(m, static_cast<std::uint32_t>(v[3] >> 32)) << " only";
      break;
    case rule::conv_stride1_not_offered_for_signature:
    case rule::conv_stride1_rows_not_offered_for_signature:
      m << "specialization " << (d.r == rule::conv_stride1_rows_not_offered_for_signature ? "stride1_rows" : "stride1")
        << " with conv " << name<conv_direction>(v[0]) << ", " << v[1]
        << "-D, groups_to_merge " << v[2] << ": " << pipe << " on " << arch << " builds it for ";
      enum_set<conv_direction>(m, static_cast<std::uint32_t>(v[3] & 0xffffffffL)) << " in ";
      {
        bool first = true;
        for (long d = 1; d <= 3; ++d)
          if ((v[3] >> 32 >> d & 1) != 0) {
            m << (first ? "" : ", ") << d << "-D";
            first = false;
          }
      }
      m << ", groups_to_merge 1 only";
      break;
    case rule::conv_tile_n_not_built:
      m << "conv tile_n " << v[0] << " is not built by " << pipe << " on " << arch << ": its convolutions take multiples of "
        << v[1];
      break;
    case rule::conv_stride1_rows_shape_not_built:  // within message::capacity
      m << "stride1_rows on " << arch << " (" << pipe << "): tile 64|128|192 x 64 x 64, pingpong 4x1x1, epilogue "
        << "direct, stages >= 5, smem <= " << v[3] << "; key: tile m " << v[0] << ", " << v[1] << " stages, "
        << v[2] << " B";
      break;
    case rule::fmha_dtype_not_offered_on_arch:
      m << "fmha " << to_string(d.a) << " -> " << to_string(d.b) << " not offered on " << arch;
      break;
    case rule::fmha_pipeline_not_offered_on_arch:
      m << "fmha pipeline " << name<fmha_pipeline>(v[3]) << " not offered on " << arch;
      break;
    case rule::fmha_hdim_not_multiple_of_8:
      m << "fmha hdim " << v[0] << "/" << v[1] << " is not a multiple of 8";
      break;
    case rule::fmha_hdim_not_offered_for_dtype:
      m << "fmha hdim " << v[0] << "/" << v[1] << " not offered for " << to_string(d.a) << " on " << arch;
      break;
    case rule::fmha_backward_dtype_not_offered:
      m << "fmha bwd needs fp16, bf16 or fp32, not " << to_string(d.a);
      break;
    case rule::fmha_k0max_does_not_match_hdim_q:
      m << "fmha k0max " << v[0] << " must be " << v[1] << " for hdim_q " << v[2];
      break;
    case rule::fmha_tile_k0_does_not_divide_hdim_q:
      m << "fmha tile k0 " << v[0] << " does not divide hdim_q " << v[1];
      break;
    case rule::fmha_tile_not_multiple_of_warps_x_warp_tile: {
      constexpr std::string_view dim[6] = {"m0", "n0", "k0", "n1", "k1", "m0 (stage 1)"};
      m << "fmha tile " << dim[v[0] % 6] << " " << v[1] << " is not a multiple of warps x warp tile = " << v[2];
      break;
    }
    case rule::fmha_warp_tile_not_offered_for_dtype:
      shape(m << "fmha warp tile ", v[0], v[1], v[2]) << " not offered for " << to_string(d.a);
      break;
    case rule::fmha_lds_exceeds_capacity:
      bytes(bytes(m << "fmha LDS use ", v[0]) << " exceeds ", v[1]) << " for " << name<fmha_pipeline>(v[3])
          << " on " << arch;
      break;
    case rule::fmha_logits_soft_cap_requires_no_bias: m << "fmha logits soft-cap needs bias none"; break;
    case rule::fmha_group_mode_requires_seq_padding: m << "fmha group mode needs pad_s and pad_sk"; break;
    case rule::fmha_hdim_192_128_forbids_bias_and_dropout:
      m << "fmha hdim 192/128 allows neither bias nor dropout";
      break;
    case rule::fmha_pipeline_requires_hdim_64_or_128:
      m << "fmha pipeline " << name<fmha_pipeline>(v[3]) << " needs hdim 64/64 or 128/128, not " << v[1] << "/"
        << v[2];
      break;
    case rule::fmha_v3_pipeline_requires_tile_m0_256:
      m << "fmha pipeline v3 needs tile m0 256, not " << v[0];
      break;
    case rule::fmha_family_not_offered_on_arch:
      m << "fmha family " << name<fmha_family>(v[0]) << " not offered on " << arch
        << " (kdecl's NVIDIA and host targets offer fwd and the paged families; no bwd yet)";
      break;
    case rule::fmha_dropout_not_offered_on_arch: m << "fmha dropout not offered on " << arch; break;
    case rule::fmha_v_col_major_not_offered_on_arch:
      m << "fmha column-major V not offered on " << arch << " (V is row-major: any strides, head dim contiguous)";
      break;
    case rule::fmha_warps_not_offered_for_pipeline:
      shape(m << "fmha warps ", v[0], v[1], v[2]) << " not offered for " << name<fmha_pipeline>(v[3]) << " on "
                                                  << arch;
      break;
    case rule::fmha_stage_1_warps_must_equal_stage_0:
      m << "fmha " << name<fmha_pipeline>(v[3]) << " runs both stages on the same warps: stage-1 "
        << (v[0] == 0 ? "warps" : "warp tile") << " must equal stage 0's";
      break;
    case rule::fmha_tile_k0_must_equal_k0max:
      m << "fmha tile k0 " << v[0] << " must equal k0max " << v[1] << " (the whole padded hdim_q) for "
        << name<fmha_pipeline>(v[3]);
      break;
    case rule::fmha_tile_k1_must_equal_n0:
      m << "fmha tile k1 " << v[0] << " must equal n0 " << v[1] << " for " << name<fmha_pipeline>(v[3]);
      break;
    case rule::fmha_tile_n1_must_equal_padded_hdim_v:
      m << "fmha tile n1 " << v[0] << " must be " << v[1] << " (hdim_v " << v[2] << " padded) on " << arch;
      break;
    case rule::fmha_tile_m0_must_be_64_rows_per_consumer_warpgroup:
      m << "fmha tile m0 " << v[0] << " must be " << v[1] << " (64 rows per consumer warpgroup) for "
        << name<fmha_pipeline>(v[3]);
      break;
    case rule::fmha_tile_n_above_maximum:
      m << "fmha tile " << (v[2] == 0 ? "n0 " : "n1 ") << v[0] << " is above the maximum " << v[1] << " of "
        << name<fmha_pipeline>(v[3]);
      break;
    case rule::fmha_stages_out_of_range:
      m << "fmha stages " << v[0] << " outside " << v[1] << ".." << v[2] << " for " << name<fmha_pipeline>(v[3])
        << " on " << arch;
      break;
    case rule::fmha_smem_exceeds_capacity:
      bytes(bytes(m << "fmha shared memory ", v[0]) << " exceeds ", v[1]) << " (" << v[2] << " stages) for "
          << name<fmha_pipeline>(v[3]) << " on " << arch;
      break;
    case rule::fmha_accumulators_exceed_register_cap:
      m << "fmha O and S tiles are " << v[0] << " fp32 accumulators per thread, over " << v[1] << " for "
        << name<fmha_pipeline>(v[3]) << " on " << arch;
      break;
    case rule::fmha_pipeline_does_not_serve_family:
      m << "fmha pipeline " << name<fmha_pipeline>(v[3]) << " does not serve family " << name<fmha_family>(v[0])
        << " on " << arch;
      break;
    case rule::fmha_cache_dtype_not_offered:
      m << "fmha cache dtype " << name<dtype>(v[0]) << " not offered for family " << name<fmha_family>(v[1])
        << " on " << arch << " (a paged decode or append cache holds Q's dtype or fp8)";
      break;
    case rule::fmha_paged_cache_requires_equal_hdims:
      m << "fmha paged cache holds K and V of one head dim: hdim_q " << v[0] << " != hdim_v " << v[1];
      break;
    case rule::fmha_pipeline_requires_hdim_64_128_or_256:
      m << "fmha pipeline " << name<fmha_pipeline>(v[3]) << " needs hdim 64, 128 or 256 (smaller ones run padded), not "
        << v[0];
      break;
    case rule::fmha_pipeline_requires_hdim_multiple_of_64:
      m << "fmha pipeline " << name<fmha_pipeline>(v[3]) << " holds head dims in whole 128-byte rows: hdim_q and "
        << "hdim_v must be multiples of 64 up to 256 (smaller problems run on them zero-padded), not " << v[1] << "/"
        << v[2];
      break;
    case rule::fmha_tile_not_offered_for_pipeline:
      m << "fmha tile m0 x n0 " << v[0] << "x" << v[1] << " not offered for " << name<fmha_pipeline>(v[3])
        << " (its one tile: " << v[2] / 1000 << "x" << v[2] % 1000 << ")";
      break;
    case rule::fmha_family_requires_mode:
      m << "fmha family " << name<fmha_family>(v[0]) << " needs " << name<fmha_mode>(v[1])
        << " mode (batch_prefill: variable query lengths; decode and append: batch)";
      break;
    case rule::fmha_pipeline_does_not_compute_dtype:
      m << "fmha pipeline " << name<fmha_pipeline>(v[3]) << " does not compute " << name<dtype>(v[0]) << " on " << arch
        << " (kdecl's kernel for it computes fp16 and bf16)";
      break;
    case rule::no_kernel_built_for_fmha_pipeline:
      m << "no kdecl fmha kernel is built for pipeline " << name<fmha_pipeline>(v[3]) << " on " << arch
        << " yet (rules only); name another pipeline, or validate with expand_legal<>";
      break;
  }
  return m;
}

// A GEMM key in one line, e.g. "sm_90 tma_wgmma fp16,fp16->fp32 (acc fp32, compute fp16) rcr standard
// tile 128x256x64 warps 8x1x1 wt 16x256x16 st 4 cshuffle intrawave v16 pad yyy" (truncated at capacity).
constexpr message describe_key(const gemm_key& k) {
  using detail::shape;
  message m{};
  const auto& g = k.sig;
  const auto& a = k.algo;
  m << to_string(a.arch) << " " << to_string(a.pipe) << " " << to_string(g.a) << "," << to_string(g.b) << "->"
    << to_string(g.c) << " (acc " << to_string(g.acc) << ", compute " << to_string(g.compute) << ") "
    << detail::layout_name(arch::layout_index(g.lay)) << " " << to_string(g.variant);
  if (g.variant == gemm_variant::multi_d) m << "(" << to_string(g.ew) << "," << g.num_d << ")";
  shape(m << " tile ", a.tile.m, a.tile.n, a.tile.k);
  shape(m << " warps ", a.warps.m, a.warps.n, a.warps.k);
  shape(m << " wt ", a.warp_tile.m, a.warp_tile.n, a.warp_tile.k);
  m << " st " << a.stages << " " << to_string(a.epi) << " " << to_string(a.sched) << " v" << a.vector_bytes;
  auto yn = [](tristate t) { return t == tristate::yes ? "y" : t == tristate::no ? "n" : "*"; };
  m << " pad " << yn(a.pad_m) << yn(a.pad_n) << yn(a.pad_k);
  if (a.cluster_m != 1 || a.cluster_n != 1) m << " cluster " << a.cluster_m << "x" << a.cluster_n;
  if (a.index_bits != 32) m << " i" << a.index_bits;
  return m;
}

}  // namespace kdecl::dsl
