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
