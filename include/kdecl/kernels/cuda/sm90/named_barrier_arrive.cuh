// The non-blocking half of a named barrier: bar.arrive counts this warp's threads
// towards barrier `id` without waiting (bar.sync, named_barrier_sync in
// warpgroup.cuh, is the blocking half). A pair of them hands a turn from one
// warpgroup to another, as attention's ping-pong schedule does: warpgroup A
// waits on its barrier (bar.sync, its 128 threads) until warpgroup B has
// arrived on it (bar.arrive, B's 128 threads), so `threads` is 256.
#pragma once

namespace kdecl::kernels::cuda::sm90 {

__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

}  // namespace kdecl::kernels::cuda::sm90
