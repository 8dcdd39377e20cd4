// Where a block of the sm_90 GEMM spends its time, for a probe: with KDECL_SM90_TIMELINE
// defined, the kernel stamps its SM clock (clock64) at a few points of its first work unit
// into kdecl_sm90_timeline[block][mark] (the probe zeroes the array, launches once, reads it
// back). Without it every mark compiles to nothing. Only a TU that defines the macro sees the
// array (internal linkage): a probe binary of its own, never the library or the shipped sets.
//
// Marks: the consumer's first thread (thread 128) stamps them unless stated; a persistent block
// stamps its first unit's set-up and first data, its last unit's main loop and epilogue.
#pragma once

#include <cstdint>

namespace kdecl::kernels::cuda::sm90 {

enum timeline_mark : int {
  tl_entry = 0,          // thread 0 at entry
  tl_ready,              // barriers set up, prerequisite grids waited for
  tl_first_data,         // first k-block's stage full
  tl_mainloop_done,      // last wgmma group retired
  tl_partial_shared,     // split-K: partial in shared memory, cluster barrier passed
  tl_reduced,            // split-K: the block's slice reduced and stored
  tl_tile_done,          // epilogue (or split-K reduction) finished
  tl_exit,               // after the last cluster barrier
  tl_producer_first,     // thread 0: first k-block's copies issued
  tl_producer_done,      // thread 0: every copy issued
  tl_smid,               // the SM the block ran on (not a time)
  tl_globaltimer,        // thread 0 at entry: %globaltimer (ns), to line blocks up
  tl_marks
};

#ifdef KDECL_SM90_TIMELINE
inline constexpr bool timeline_enabled = true;
inline constexpr int timeline_max_blocks = 2048;
static __device__ unsigned long long kdecl_sm90_timeline[timeline_max_blocks][tl_marks];

// Stamps `m` from thread `by` only. Stores only (a read of the array would cost the stamping
// thread a memory round trip per mark and shift every later mark): a mark reached again (a
// persistent block's next unit) overwrites, so callers stamp where the first unit's is meant.
__device__ __forceinline__ void timeline(timeline_mark m, unsigned by = 128) {
  if (threadIdx.x != by) return;
  const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  if (block >= timeline_max_blocks) return;
  kdecl_sm90_timeline[block][m] = static_cast<unsigned long long>(clock64());
  if (m == tl_entry) {
    unsigned long long ns;
    unsigned smid;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    kdecl_sm90_timeline[block][tl_globaltimer] = ns;
    kdecl_sm90_timeline[block][tl_smid] = smid + 1;  // + 1: 0 means "not stamped"
  }
}
#else
inline constexpr bool timeline_enabled = false;
__device__ __forceinline__ void timeline(timeline_mark, unsigned = 128) {}
#endif

}  // namespace kdecl::kernels::cuda::sm90
