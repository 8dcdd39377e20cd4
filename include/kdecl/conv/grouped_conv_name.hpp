// The canonical name of a grouped-convolution kernel: one string per key, one key per string.
//
//   conv_<direction>_<ndim>d_<dtypes>_<layout>[_<specialization>][_<fusion>]_<pipeline>_<epilogue>_<scheduler>_
//        <tile>_<warps>_<warp_tile>_s<stages>_v<in>x<wei>x<out>[_gm<groups_to_merge>]_<arch>
//
//   <dtypes>          "fp16" when in = wei = out and acc = default_accumulator(in);
//                     otherwise "in-wei-out-acc", e.g. "fp16-fp16-fp32-fp32"; either with
//                     "-<compute>" appended when the multiply is not the input's dtype: "fp32-tf32".
//   <specialization>  omitted for none; filter1x1_pad0, filter1x1_stride1_pad0, stride1 or stride1_rows.
//   <fusion>          omitted for none; fused[-bias][-residual][-<activation>] (at least one part), or
//                     fused-dynamic for a kernel that reads the fusion from the problem.
//   <v...>            elements per global access of input, weight and output.
//   gm                omitted when 1.
//
// Example: conv_fwd_2d_fp16_nhwgc_host_blocked_direct_intrawave_64x64x256_1x1x1_8x16x1_s1_v1x1x1_host
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "kdecl/conv/grouped_conv_key.hpp"

namespace kdecl {

// Requires key.concrete().
std::string kernel_name(const grouped_conv_key& key);

// Parses a name made by kernel_name(). Throws std::invalid_argument naming the
// offending segment when the string is not such a name.
grouped_conv_key parse_conv_name(std::string_view name);

// A fused epilogue as one name segment: "fused-bias-residual-relu", "fused-dynamic" (requires
// f.fused()); and back, nullopt for text that is no such segment.
std::string fusion_segment(const conv_fusion& f);
std::optional<conv_fusion> parse_fusion_segment(std::string_view segment);

}  // namespace kdecl
