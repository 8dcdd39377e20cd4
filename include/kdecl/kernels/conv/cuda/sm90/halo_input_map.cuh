// The input of a convolution as the halo tiles load it (kernels/conv/halo_tiles.hpp):
// a 5-D TMA tensor (channels, W, H, D, images) whose box is 64 channels x the halo's
// columns x its rows x one depth x one image, written with the 128-byte swizzle (one
// 128-byte row per pixel). Coordinates start at the tile's first input pixel, negative
// or past the edge in the padding, where TMA fills zeros.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/kernels/conv/halo_tiles.hpp"
#include "kdecl/kernels/cuda/sm90/tensor_map.cuh"

namespace kdecl::kernels::cuda::sm90 {

// Why TMA cannot address `p`'s input at `in` as halo boxes (a 16-byte aligned base and
// strides that are multiples of 16 bytes), or nothing.
inline std::optional<std::string> halo_input_reason(const grouped_conv_problem& p, const void* in) {
  const std::int64_t elem = bits_of(p.in_type) / 8;
  if (reinterpret_cast<std::uintptr_t>(in) % 16 != 0) return std::string("halo tiles need a 16-byte aligned input");
  const conv_tensor_strides& s = p.in_strides;
  for (std::int64_t stride : {s.n, s.spatial[0], s.spatial[1], s.spatial[2]})
    if (stride * elem % 16 != 0) return std::string("halo tiles need input strides that are multiples of 16 bytes");
  return std::nullopt;
}

// The halo map of `p`'s input at `in` (normalized, halo_reason and halo_input_reason
// empty) for the tiling `t`. Empty on success.
inline std::optional<std::string> encode_halo_input_map(CUtensorMap& map, const grouped_conv_problem& p,
                                                        const void* in, const halo_tiling& t) {
  if (auto why = halo_input_reason(p, in)) return why;
  auto encode = tensor_map_encoder();
  if (encode == nullptr) return std::string("cuTensorMapEncodeTiled is not available from the driver");
  const std::optional<CUtensorMapDataType> type = tma_16bit_type(p.in_type);
  if (!type) return std::string("no 16-bit TMA data type for the input's dtype");
  const std::uint64_t elem = std::uint64_t(bits_of(p.in_type) / 8);
  const conv_tensor_strides& s = p.in_strides;
  const cuuint64_t dims[5] = {cuuint64_t(p.g * p.c_per_group()), cuuint64_t(p.input_dims[2]),
                              cuuint64_t(p.input_dims[1]), cuuint64_t(p.input_dims[0]), cuuint64_t(p.n)};
  const std::int64_t element_strides[4] = {s.spatial[2], s.spatial[1], s.spatial[0], s.n};
  // A dimension of extent 1 never steps: give TMA a legal (packed) stride for it.
  cuuint64_t strides[4];
  std::uint64_t packed = (dims[0] * elem + 15) / 16 * 16;
  for (int i = 0; i < 4; ++i) {
    strides[i] = dims[i + 1] > 1 ? cuuint64_t(element_strides[i]) * elem : packed;
    packed = strides[i] * dims[i + 1];
  }
  const cuuint32_t box[5] = {cuuint32_t(halo_chunk_channels), cuuint32_t(t.box_cols), cuuint32_t(t.box_rows), 1, 1};
  const cuuint32_t steps[5] = {1, 1, 1, 1, 1};
  const CUresult r = encode(&map, *type, 5, const_cast<void*>(in), dims, strides, box, steps,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return "cuTensorMapEncodeTiled (halo input) failed with CUresult " + std::to_string(static_cast<int>(r));
  return std::nullopt;
}

}  // namespace kdecl::kernels::cuda::sm90
