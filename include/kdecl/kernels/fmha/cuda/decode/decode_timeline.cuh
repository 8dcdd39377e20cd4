// Where a split-KV decode's time goes, for a probe (benchmarks/decode_timeline.cu): with
// KDECL_DECODE_TIMELINE defined, thread 0 of every split-kernel block and of every combine
// block stamps %globaltimer (ns, one clock for every SM) at a few points into
// kdecl_decode_timeline[kernel][block][mark]; the probe zeroes the array, launches once and
// reads it back. Without the macro every mark compiles to nothing. Only a translation unit
// that defines the macro sees the array (internal linkage), and it must not link the shipped
// instances (they instantiate the same kernels without the stamps): a probe of its own.
#pragma once

#include <cstdint>

namespace kdecl::kernels::cuda::decode {

enum decode_mark : int {
  dm_entry = 0,     // thread 0 at entry
  dm_copies,        // the first tiles' copies issued (the first page-table read has returned)
  dm_first_tile,    // the first tile is in shared memory (split kernel); prerequisite grids waited for (combine)
  dm_loop_done,     // the last tile computed (split); the partial rows staged (combine)
  dm_exit,          // the block's results written
  dm_smid,          // the SM the block ran on, + 1 (not a time)
  dm_marks
};
enum decode_timeline_kernel : int { dk_split = 0, dk_combine = 1 };

#ifdef KDECL_DECODE_TIMELINE
inline constexpr int decode_timeline_max_blocks = 8192;
static __device__ unsigned long long kdecl_decode_timeline[2][decode_timeline_max_blocks][dm_marks];

// Stamps mark `m` of this block from thread 0 (stores only: a mark reached again overwrites).
__device__ __forceinline__ void decode_timeline(decode_timeline_kernel k, decode_mark m) {
  if (threadIdx.x != 0) return;
  const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  if (block >= decode_timeline_max_blocks) return;
  unsigned long long ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  kdecl_decode_timeline[k][block][m] = ns;
  if (m == dm_entry) {
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    kdecl_decode_timeline[k][block][dm_smid] = smid + 1;
  }
}
#else
__device__ __forceinline__ void decode_timeline(decode_timeline_kernel, decode_mark) {}
#endif

}  // namespace kdecl::kernels::cuda::decode
