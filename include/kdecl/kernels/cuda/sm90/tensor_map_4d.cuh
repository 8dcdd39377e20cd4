// Host side of TMA for 4-D tensors with one contiguous dimension: attention's
// Q, K, V as (head dim, sequence, head, batch) with any element strides for the
// outer three (BSHD, BHSD, packed varlen rows). Boxes are box_inner x box_rows
// x 1 x 1 elements written with the 128-byte swizzle (box_inner * element size
// == 128 bytes). Out-of-bounds elements read as zero.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kdecl/kernels/cuda/sm90/tensor_map.cuh"

namespace kdecl::kernels::cuda::sm90 {

struct tensor_view_4d {
  const void* base;
  dtype type;
  std::int64_t dims[4];     // innermost first; dims[0] contiguous
  std::int64_t strides[3];  // elements, of dims[1..3]
  int box_inner, box_rows;
};

// Why TMA cannot address the view (base or strides not 16-byte aligned, sizes
// or strides out of range), or empty.
inline std::optional<std::string> tma_view_unsupported(const tensor_view_4d& v) {
  const std::int64_t elem = bits_of(v.type) / 8;
  if (reinterpret_cast<std::uintptr_t>(v.base) % 16 != 0) return "TMA needs a 16-byte aligned base address";
  for (int i = 0; i < 4; ++i)
    if (v.dims[i] <= 0 || v.dims[i] > (std::int64_t{1} << 32))
      return "TMA needs every dimension in [1, 2^32] (dimension " + std::to_string(i) + " is " +
             std::to_string(v.dims[i]) + ")";
  for (int i = 0; i < 3; ++i) {
    const std::int64_t bytes = v.strides[i] * elem;
    if (v.dims[i + 1] > 1 && (bytes % 16 != 0 || bytes <= 0 || bytes >= (std::int64_t{1} << 40)))
      return "TMA needs strides that are positive multiples of 16 bytes below 2^40 (stride " + std::to_string(i + 1) +
             " is " + std::to_string(bytes) + " bytes)";
  }
  return std::nullopt;
}

// Empty on success, else why the map could not be built.
inline std::optional<std::string> encode_tensor_map_4d(CUtensorMap& map, const tensor_view_4d& v) {
  if (auto why = tma_view_unsupported(v)) return why;
  auto encode = tensor_map_encoder();
  if (encode == nullptr) return "cuTensorMapEncodeTiled is not available from the driver";
  const std::optional<CUtensorMapDataType> type = tma_16bit_type(v.type);
  if (!type) return "no 16-bit TMA data type for this dtype";
  const std::int64_t elem = bits_of(v.type) / 8;
  cuuint64_t dims[4];
  for (int i = 0; i < 4; ++i) dims[i] = static_cast<cuuint64_t>(v.dims[i]);
  // A dimension of extent 1 never steps: give TMA a legal (packed) stride for it.
  cuuint64_t strides[3];
  std::uint64_t packed = static_cast<std::uint64_t>((v.dims[0] * elem + 15) / 16 * 16);
  for (int i = 0; i < 3; ++i) {
    strides[i] = v.dims[i + 1] > 1 ? static_cast<cuuint64_t>(v.strides[i] * elem) : packed;
    packed = strides[i] * static_cast<std::uint64_t>(v.dims[i + 1]);
  }
  const cuuint32_t box[4] = {static_cast<cuuint32_t>(v.box_inner), static_cast<cuuint32_t>(v.box_rows), 1, 1};
  const cuuint32_t element_strides[4] = {1, 1, 1, 1};
  const CUresult r = encode(&map, *type, 4, const_cast<void*>(v.base), dims, strides, box, element_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) return "cuTensorMapEncodeTiled failed with CUresult " + std::to_string(static_cast<int>(r));
  return std::nullopt;
}

}  // namespace kdecl::kernels::cuda::sm90
