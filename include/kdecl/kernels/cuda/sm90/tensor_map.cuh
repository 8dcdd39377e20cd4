// Host side of TMA: encoding a 3-D (inner, outer, batch) tensor map for one GEMM
// operand. cuTensorMapEncodeTiled is a driver API entry point; we fetch it through
// the runtime (cudaGetDriverEntryPointByVersion) so nothing links libcuda.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include "kdecl/core/enums.hpp"

namespace kdecl::kernels::cuda::sm90 {

// The driver entry point `name` (CUDA 12.0's version of it) as a `Fn`, or nullptr where the
// driver lacks it. Callers keep the result in a static: one lookup per process.
template <class Fn>
Fn driver_entry_point(const char* name) {
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion(name, &entry, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess)
    return nullptr;
  return reinterpret_cast<Fn>(entry);
}

inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const auto fn = driver_entry_point<PFN_cuTensorMapEncodeTiled_v12000>("cuTensorMapEncodeTiled");
  return fn;
}

// TMA's element type of 16-bit data (the convolution maps'), or nothing for other dtypes.
inline std::optional<CUtensorMapDataType> tma_16bit_type(dtype t) {
  switch (t) {
    case dtype::fp16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case dtype::bf16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    default: return std::nullopt;
  }
}

// One operand as TMA sees it: `inner` contiguous elements per line, `outer` lines
// `ld` elements apart, `batch` matrices `batch_stride` elements apart. Boxes are
// box_inner x box_outer elements, written to shared memory with the 128-byte
// swizzle (box_inner * element size == 128 bytes) or, with swizzle = false, as
// plain row-major boxes (box_inner * element size a multiple of 16 bytes; the
// epilogue's D tiles). Out-of-bounds elements read as zero.
struct operand_view {
  const void* base;
  dtype type;
  std::int64_t inner, outer, batch;
  std::int64_t ld, batch_stride;
  int box_inner, box_outer;
  bool swizzle = true;
};

// Empty on success, else why the map could not be built.
inline std::optional<std::string> encode_tensor_map(CUtensorMap& map, const operand_view& v) {
  auto encode = tensor_map_encoder();
  if (encode == nullptr) return "cuTensorMapEncodeTiled is not available from the driver";
  CUtensorMapDataType type;
  switch (v.type) {
    case dtype::fp16: type = CU_TENSOR_MAP_DATA_TYPE_FLOAT16; break;
    case dtype::bf16: type = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16; break;
    case dtype::fp32: type = CU_TENSOR_MAP_DATA_TYPE_FLOAT32; break;  // also tf32 GEMMs' data
    case dtype::int32: type = CU_TENSOR_MAP_DATA_TYPE_INT32; break;
    // 8-bit data moves as bytes; the consumer (wgmma) knows their type.
    case dtype::fp8: case dtype::bf8: case dtype::int8: type = CU_TENSOR_MAP_DATA_TYPE_UINT8; break;
    default: return "no TMA data type for this dtype";
  }
  const std::int64_t elem = bits_of(v.type) / 8;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(v.inner), static_cast<cuuint64_t>(v.outer),
                              static_cast<cuuint64_t>(v.batch)};
  // With one matrix the batch stride is never used; give TMA a legal one.
  const std::int64_t batch_stride = v.batch > 1 ? v.batch_stride : v.ld * v.outer;
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(v.ld * elem), static_cast<cuuint64_t>(batch_stride * elem)};
  const cuuint32_t box[3] = {static_cast<cuuint32_t>(v.box_inner), static_cast<cuuint32_t>(v.box_outer), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult r = encode(&map, type, 3, const_cast<void*>(v.base), dims, strides, box, element_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE,
                            v.swizzle ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) return "cuTensorMapEncodeTiled failed with CUresult " + std::to_string(static_cast<int>(r));
  return std::nullopt;
}

}  // namespace kdecl::kernels::cuda::sm90

namespace kdecl::kernels::cuda::sm90 {

// A tensor of rank `Rank` as TMA sees it, innermost (contiguous) dimension first: sizes,
// element strides of dimensions 1..Rank-1, the box copied per load and its shared-memory
// swizzle. Dimensions of extent 1 never step; they get a legal packed stride.
template <int Rank>
struct tiled_view {
  const void* base;
  dtype type;
  std::int64_t dims[Rank];
  std::int64_t strides[Rank - 1];
  std::uint32_t box[Rank];
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
};

// Empty on success, else why TMA cannot address the view or the map could not be built:
// every rule of cuTensorMapEncodeTiled that a caller's sizes can break is checked here
// first, so the message names the value and the rule.
template <int Rank>
std::optional<std::string> encode_tiled(CUtensorMap& map, const tiled_view<Rank>& v) {
  static_assert(Rank >= 1 && Rank <= 5, "TMA tiled maps have rank 1 to 5");
  const std::optional<CUtensorMapDataType> type = tma_16bit_type(v.type);
  if (!type) return std::string("TMA tiled map: 16-bit data only (fp16, bf16)");
  const std::int64_t elem = bits_of(v.type) / 8;
  if (reinterpret_cast<std::uintptr_t>(v.base) % 16 != 0) return std::string("TMA needs a 16-byte aligned base address");
  if (v.box[0] * elem % 16 != 0)
    return "TMA box rows must be multiples of 16 bytes (" + std::to_string(v.box[0] * elem) + ")";
  cuuint64_t dims[Rank];
  cuuint32_t box[Rank], element_strides[Rank];
  for (int i = 0; i < Rank; ++i) {
    if (v.dims[i] <= 0 || v.dims[i] > (std::int64_t{1} << 32))
      return "TMA needs every dimension in [1, 2^32] (dimension " + std::to_string(i) + " is " +
             std::to_string(v.dims[i]) + ")";
    if (v.box[i] < 1 || v.box[i] > 256)
      return "TMA boxes span 1 to 256 elements per dimension (dimension " + std::to_string(i) + ": " +
             std::to_string(v.box[i]) + ")";
    dims[i] = static_cast<cuuint64_t>(v.dims[i]);
    box[i] = v.box[i];
    element_strides[i] = 1;
  }
  cuuint64_t strides[Rank > 1 ? Rank - 1 : 1];
  std::uint64_t packed = static_cast<std::uint64_t>((v.dims[0] * elem + 15) / 16 * 16);
  for (int i = 0; i + 1 < Rank; ++i) {
    const std::int64_t bytes = v.strides[i] * elem;
    if (v.dims[i + 1] > 1 && (bytes % 16 != 0 || bytes <= 0 || bytes >= (std::int64_t{1} << 40)))
      return "TMA needs strides that are positive multiples of 16 bytes below 2^40 (stride of dimension " +
             std::to_string(i + 1) + " is " + std::to_string(bytes) + " bytes)";
    strides[i] = v.dims[i + 1] > 1 ? static_cast<cuuint64_t>(bytes) : packed;
    packed = strides[i] * static_cast<std::uint64_t>(v.dims[i + 1]);
  }
  auto encode = tensor_map_encoder();
  if (encode == nullptr) return std::string("cuTensorMapEncodeTiled is not available from the driver");
  const CUresult r = encode(&map, *type, Rank, const_cast<void*>(v.base), dims, strides, box, element_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, v.swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) return "cuTensorMapEncodeTiled failed with CUresult " + std::to_string(static_cast<int>(r));
  return std::nullopt;
}

}  // namespace kdecl::kernels::cuda::sm90
