// Thread-block clusters (sm_90): the cluster-wide barrier and reads of another
// block's shared memory (distributed shared memory, DSMEM), arrivals on another
// block's mbarriers. Used by the split-K reduction, whose blocks of one output tile
// form one cluster, and by the GEMM's multicast clusters (tma_multicast.cuh).
#pragma once

#include <cstdint>

namespace kdecl::kernels::cuda::sm90 {

// Every thread of every block of the cluster must arrive before any wait returns.
// Release/acquire: shared-memory writes before the arrive are visible to reads
// (local or remote) after the wait.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
}

// The shared-memory address `local` (a 32-bit shared-window address of this block)
// mapped into block `rank` of the cluster.
__device__ __forceinline__ std::uint32_t cluster_map_shared(std::uint32_t local, int rank) {
  std::uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
  return remote;
}

// This block's rank in its cluster (0 .. cluster size - 1).
__device__ __forceinline__ int cluster_rank() {
  std::uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return static_cast<int>(r);
}

// One arrival on an mbarrier of another block of the cluster (`cluster_addr` from
// cluster_map_shared). CTA-scope release, as CUTLASS's ClusterBarrier: what it guards
// is this block's finished reads of a slot the other block's TMA will overwrite, and a
// cluster-scope release would make every arrival wait on a cluster-wide fence.
__device__ __forceinline__ void mbarrier_arrive_remote(std::uint32_t cluster_addr) {
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(cluster_addr) : "memory");
}

__device__ __forceinline__ float4 cluster_load_float4(std::uint32_t cluster_addr) {
  float4 v;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(cluster_addr)
               : "memory");
  return v;
}

}  // namespace kdecl::kernels::cuda::sm90
