// Warpgroup-wide controls around wgmma: ordering fences, commit/wait of
// asynchronous MMA groups, and the per-warpgroup register budget (setmaxnreg).
#pragma once

#include <cstdint>

namespace kdecl::kernels::cuda::sm90 {

// Orders prior register writes (e.g. zeroed accumulators) before the next wgmma.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }

// Closes the batch of wgmma issued since the last commit into one group.
__device__ __forceinline__ void wgmma_commit_group() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

// Waits until at most `Pending` committed groups are still running.
template <int Pending>
__device__ __forceinline__ void wgmma_wait_group() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");
}

// Keeps the compiler from moving accesses to accumulator registers across the
// asynchronous MMA window (the asm reads and writes each register in place).
template <int N>
__device__ __forceinline__ void fence_accumulators(float (&acc)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(acc[i])::"memory");
}
// The same for s32 accumulators (int8 wgmma), kept in integer registers.
template <int N>
__device__ __forceinline__ void fence_accumulators(std::uint32_t (&acc)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+r"(acc[i])::"memory");
}

// setmaxnreg: hand registers from the producer warpgroup to the consumers.
// Takes effect only with a register cap at kernel entry (__launch_bounds__(t, 1)).
template <int Regs>
__device__ __forceinline__ void warpgroup_release_registers() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Regs));
}
template <int Regs>
__device__ __forceinline__ void warpgroup_claim_registers() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Regs));
}

// Barrier among the consumer warpgroups only (id 0 is __syncthreads).
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

}  // namespace kdecl::kernels::cuda::sm90
