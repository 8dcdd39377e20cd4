// A warpgroup's wgmma accumulators stored transposed into shared memory, as 16-bit values:
// the m64 x N fragment (rows = the instruction's M, e.g. output channels; columns = its N,
// e.g. pixels) lands as N rows of 64 contiguous elements, so that each N index (a pixel)
// holds its 64 M values (its channels) side by side, ready for row stores to a
// channels-last tensor. `stmatrix .trans` moves four 8x8 blocks per instruction.
//
// The fragment layout (wgmma, fp32 accumulators, as the GEMM epilogues read it): thread t of
// the warpgroup, warp w = t / 32, lane l = t % 32; for column block j (8 columns),
// acc[4j + 2h + e] is row 16w + l/4 + 8h, column 8j + 2(l%4) + e (h, e in {0, 1}).
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kdecl/kernels/cuda/sm90/shared_address.cuh"

namespace kdecl::kernels::cuda::sm90 {

// Two floats as one 32-bit register of two 16-bit values (the lower column first).
template <class T>
__device__ __forceinline__ std::uint32_t pack_pair(float lo, float hi) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&v);
  } else {
    const __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&v);
  }
}

// Stores the warpgroup's accumulators `acc` (an m64 x N fragment, N a multiple of 16) at
// `out`: element (row r, column c) to out[c * ld + r]. `ld` (elements) a multiple of 8, the
// rows 16-byte aligned; 72 (144 bytes) keeps the eight rows of each 8x8 block in distinct banks.
// Every thread of the warpgroup calls it with its own fragment.
template <class T, int N>
__device__ __forceinline__ void store_fragment_transposed(const float (&acc)[N / 2], T* out, int ld,
                                                          int thread_in_warpgroup) {
  static_assert(N % 16 == 0, "two column blocks per stmatrix x4");
  const int warp = thread_in_warpgroup / 32, lane = thread_in_warpgroup % 32;
  // Lane l gives the address of row l % 8 of matrix l / 8: matrices (column block j, rows 0-7),
  // (j, rows 8-15), (j + 1, rows 0-7), (j + 1, rows 8-15) of this warp's 16 rows. Transposed,
  // row i of a matrix is column i: its 8 elements (8 consecutive M) go to one N row of `out`.
  const int matrix = lane / 8, within = lane % 8;
  const int half = matrix % 2, next_block = matrix / 2;
#pragma unroll
  for (int j = 0; j < N / 8; j += 2) {
    const int column = 8 * (j + next_block) + within;
    const std::uint32_t at = shared_address(out + column * ld + 16 * warp + 8 * half);
    const std::uint32_t r0 = pack_pair<T>(acc[4 * j + 0], acc[4 * j + 1]);
    const std::uint32_t r1 = pack_pair<T>(acc[4 * j + 2], acc[4 * j + 3]);
    const std::uint32_t r2 = pack_pair<T>(acc[4 * j + 4], acc[4 * j + 5]);
    const std::uint32_t r3 = pack_pair<T>(acc[4 * j + 6], acc[4 * j + 7]);
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(at), "r"(r0),
                 "r"(r1), "r"(r2), "r"(r3)
                 : "memory");
  }
}

}  // namespace kdecl::kernels::cuda::sm90
