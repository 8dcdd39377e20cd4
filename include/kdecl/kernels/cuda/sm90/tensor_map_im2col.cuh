// Host side of TMA's im2col mode for a channels-last activation tensor (N, spatial..., C):
// each load copies `pixels` consecutive output pixels' worth of input pixels, `channels`
// channels each, at one filter tap, into shared memory with the 128-byte swizzle: rows
// of one pixel, zeros where the tap falls into the padding or past the last image. The
// tensor map holds the convolution's geometry (padding, stride; the bounding box of the
// first tap's window); the load names the first pixel's window origin and the tap's
// offset (tma_load_im2col.cuh). Checked on an H100 against a host im2col (asymmetric
// padding, stride 2, dilation 2, loads across images and past the end).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include "kdecl/core/enums.hpp"
#include "kdecl/kernels/cuda/sm90/tensor_map.cuh"

namespace kdecl::kernels::cuda::sm90 {

inline PFN_cuTensorMapEncodeIm2col_v12000 im2col_tensor_map_encoder() {
  static const auto fn = driver_entry_point<PFN_cuTensorMapEncodeIm2col_v12000>("cuTensorMapEncodeIm2col");
  return fn;
}

// A channels-last tensor and the convolution that reads it, spatial dimensions innermost
// first (W, H, D): `rank` of them (1 to 3).
struct im2col_view {
  const void* base;
  dtype type;
  int rank;
  std::int64_t channels;      // the extent of the contiguous dimension
  std::int64_t size[3];       // input size per spatial dimension (W, H, D)
  std::int64_t images;        // N
  std::int64_t stride[3];     // element strides of W, H, D
  std::int64_t image_stride;  // element stride of N
  int pad_lo[3], pad_hi[3], dilation[3], filter[3], conv_stride[3];
  int channels_per_load, pixels_per_load;
};

// Empty on success, else why TMA cannot load the view.
inline std::optional<std::string> encode_im2col_tensor_map(CUtensorMap& map, const im2col_view& v) {
  if (v.rank < 1 || v.rank > 3) return "im2col TMA takes 1 to 3 spatial dimensions";
  const std::optional<CUtensorMapDataType> type = tma_16bit_type(v.type);
  if (!type) return "no 16-bit TMA data type for this dtype";
  const std::int64_t elem = bits_of(v.type) / 8;
  if (reinterpret_cast<std::uintptr_t>(v.base) % 16 != 0) return "im2col TMA needs a 16-byte aligned base address";
  // The corners' range shrinks with the rank: 2^15, 2^7, 2^4 (cuTensorMapEncodeIm2col).
  const int corner_limit = v.rank == 1 ? 32768 : v.rank == 2 ? 128 : 16;
  cuuint64_t dims[5];
  cuuint64_t strides[4];
  int lower[3], upper[3];
  cuuint32_t element_strides[5] = {1, 1, 1, 1, 1};
  dims[0] = static_cast<cuuint64_t>(v.channels);
  for (int d = 0; d < v.rank; ++d) {
    dims[d + 1] = static_cast<cuuint64_t>(v.size[d]);
    strides[d] = static_cast<cuuint64_t>(v.stride[d] * elem);
    lower[d] = -v.pad_lo[d];
    upper[d] = v.pad_hi[d] - v.dilation[d] * (v.filter[d] - 1);
    if (lower[d] < -corner_limit || lower[d] >= corner_limit || upper[d] < -corner_limit || upper[d] >= corner_limit)
      return "im2col TMA: padding or dilated filter beyond its bounding-box range (" + std::to_string(corner_limit) + ")";
    if (v.conv_stride[d] < 1 || v.conv_stride[d] > 8) return "im2col TMA takes strides 1 to 8";
    element_strides[d + 1] = static_cast<cuuint32_t>(v.conv_stride[d]);
  }
  dims[v.rank + 1] = static_cast<cuuint64_t>(v.images);
  strides[v.rank] = static_cast<cuuint64_t>(v.image_stride * elem);
  for (int i = 0; i <= v.rank; ++i) {
    if (dims[i + 1] > 1 && (strides[i] % 16 != 0 || strides[i] == 0 || strides[i] >= (cuuint64_t{1} << 40)))
      return "im2col TMA needs strides that are positive multiples of 16 bytes below 2^40";
    if (dims[i + 1] <= 1) strides[i] = i == 0 ? (dims[0] * elem + 15) / 16 * 16 : strides[i - 1] * dims[i];
  }
  for (int i = 0; i <= v.rank + 1; ++i)
    if (dims[i] == 0 || dims[i] > (cuuint64_t{1} << 32)) return "im2col TMA needs every dimension in [1, 2^32]";
  auto encode = im2col_tensor_map_encoder();
  if (encode == nullptr) return "cuTensorMapEncodeIm2col is not available from the driver";
  const CUresult r = encode(&map, *type, static_cast<cuuint32_t>(v.rank + 2), const_cast<void*>(v.base), dims, strides,
                            lower, upper, static_cast<cuuint32_t>(v.channels_per_load),
                            static_cast<cuuint32_t>(v.pixels_per_load), element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                            CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) return "cuTensorMapEncodeIm2col failed with CUresult " + std::to_string(static_cast<int>(r));
  return std::nullopt;
}

}  // namespace kdecl::kernels::cuda::sm90
