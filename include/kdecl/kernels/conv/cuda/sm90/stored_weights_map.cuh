// Backward-data's weights as the caller stores them, as the sm_90 kernel's B operand for a
// phase's forward convolution (kernels/conv/bwd_data_stored_weights.hpp): a 4-D TMA map of
// (C/G channels, lines, K/G, G), each box 64 channels of one line x the k-block's 64 output
// channels, written with the 128-byte swizzle: the N-major B slot of an rrr GEMM config.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/kernels/conv/bwd_data_stored_weights.hpp"
#include "kdecl/kernels/cuda/sm90/tensor_map.cuh"

namespace kdecl::kernels::cuda::sm90 {

struct stored_weights_operand {
  const void* base = nullptr;
  dtype type = dtype::bf16;
  std::int64_t cg = 0, kg = 0, groups = 1;  // the backward problem's C/G, K/G, G
  kernels::stored_weights_lines lines;
  std::int64_t k_stride = 0, g_stride = 0;  // W's elements between output channels, between groups
};

// Of a normalized backward-data problem and its weights.
inline stored_weights_operand stored_weights_operand_of(const grouped_conv_problem& p, const void* w) {
  stored_weights_operand o;
  o.base = w;
  o.type = p.wei_type;
  o.cg = p.c_per_group();
  o.kg = p.k_per_group();
  o.groups = p.g;
  o.lines = kernels::stored_weights_lines_of(p);
  o.k_stride = p.wei_strides.n;
  o.g_stride = p.wei_strides.g;
  return o;
}

// Empty on success, else why TMA cannot read W so (alignment, strides, sizes).
inline std::optional<std::string> encode_stored_weights_map(CUtensorMap& map, const stored_weights_operand& w) {
  if (w.lines.count > std::numeric_limits<int>::max())
    return "the filter spans " + std::to_string(w.lines.count) + " lines of W (at most 2^31 - 1)";
  tiled_view<4> v{w.base,
                  w.type,
                  {w.cg, w.lines.count, w.kg, w.groups},
                  {w.lines.stride, w.k_stride, w.g_stride},
                  {64, 1, 64, 1},
                  CU_TENSOR_MAP_SWIZZLE_128B};
  return encode_tiled(map, v);
}

}  // namespace kdecl::kernels::cuda::sm90
