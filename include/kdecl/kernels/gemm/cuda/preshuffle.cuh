// Device-side shuffle of B into the preshuffle format (kdecl/kernels/gemm/preshuffle.hpp).
// One thread per 4-byte word of the output: writes are coalesced, reads gather.
#pragma once

#include <cstdint>
#include <cuda_runtime.h>

#include "kdecl/core/enums.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/gemm/preshuffle.hpp"

namespace kdecl::kernels::cuda {

namespace detail {
template <int Bytes>
__global__ void preshuffle_b_kernel(const unsigned char* src, bool row_major, std::int64_t ldb,
                                    std::int64_t stride_src, std::int64_t k, std::int64_t n, unsigned char* dst,
                                    std::int64_t stride_dst, std::int64_t words) {
  const std::int64_t w = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words) return;
  src += std::int64_t(blockIdx.y) * stride_src * Bytes;
  dst += std::int64_t(blockIdx.y) * stride_dst * Bytes;
  // Invert the format: word -> (block, lane, slot) -> (column j, first k of the word).
  const std::int64_t kb_count = preshuffle_format::k_blocks(k, Bytes * 8);
  const std::int64_t block = w / (preshuffle_format::block_bytes / 4);
  const int in_block = int(w % (preshuffle_format::block_bytes / 4));
  const int lane = in_block / 4, slot = in_block % 4;
  const int g = lane / 4, t = lane % 4;
  const std::int64_t j = (block / kb_count) * preshuffle_format::block_cols + g;
  const std::int64_t k0 = (block % kb_count) * (preshuffle_format::block_k_bytes / Bytes) + (slot * 4 + t) * 4 / Bytes;
  unsigned char out[4];
#pragma unroll
  for (int e = 0; e < 4 / Bytes; ++e) {
    const std::int64_t kk = k0 + e;
    const bool inside = kk < k && j < n;
    const std::int64_t from = row_major ? kk * ldb + j : j * ldb + kk;
#pragma unroll
    for (int b = 0; b < Bytes; ++b) out[e * Bytes + b] = inside ? src[from * Bytes + b] : 0;
  }
  *reinterpret_cast<std::uint32_t*>(dst + w * 4) =
      std::uint32_t(out[0]) | std::uint32_t(out[1]) << 8 | std::uint32_t(out[2]) << 16 | std::uint32_t(out[3]) << 24;
}
}  // namespace detail

// Shuffle `batch` logical B matrices (k x n, layout `lay`, leading dim ldb, batch
// stride stride_src elements) into dst, one format image every stride_dst elements
// (stride_dst >= preshuffled_elements(k, n, bits); dst 4-byte aligned). bits: 8, 16 or 32.
inline status preshuffle_b(const void* src, layout lay, std::int64_t ldb, std::int64_t stride_src, std::int64_t k,
                           std::int64_t n, int bits, void* dst, std::int64_t stride_dst, std::int64_t batch,
                           cudaStream_t stream) {
  const std::int64_t elems = preshuffled_elements(k, n, bits);
  if (stride_dst < elems && batch > 1) return status::error("preshuffle_b: stride_dst is smaller than one image");
  if (batch < 1 || batch > 65535) return status::error("preshuffle_b: batch must be 1..65535");
  if (elems == 0) return status::ok();
  const std::int64_t words = elems * (bits / 8) / 4;
  const dim3 grid(unsigned((words + 255) / 256), unsigned(batch));
  const auto* s = static_cast<const unsigned char*>(src);
  auto* d = static_cast<unsigned char*>(dst);
  const bool row = lay == layout::row;
  switch (bits) {
    case 8: detail::preshuffle_b_kernel<1><<<grid, 256, 0, stream>>>(s, row, ldb, stride_src, k, n, d, stride_dst, words); break;
    case 16: detail::preshuffle_b_kernel<2><<<grid, 256, 0, stream>>>(s, row, ldb, stride_src, k, n, d, stride_dst, words); break;
    case 32: detail::preshuffle_b_kernel<4><<<grid, 256, 0, stream>>>(s, row, ldb, stride_src, k, n, d, stride_dst, words); break;
    default: return status::error("preshuffle_b: bits must be 8, 16 or 32");
  }
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? status::ok() : status::error(std::string("preshuffle_b: ") + cudaGetErrorString(e));
}

}  // namespace kdecl::kernels::cuda
