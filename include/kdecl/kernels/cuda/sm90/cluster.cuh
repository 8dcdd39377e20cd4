// Thread-block clusters (sm_90): the cluster-wide barrier and reads of another
// block's shared memory (distributed shared memory, DSMEM). Used by the split-K
// reduction, whose blocks of one output tile form one cluster.
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

__device__ __forceinline__ float4 cluster_load_float4(std::uint32_t cluster_addr) {
  float4 v;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(cluster_addr)
               : "memory");
  return v;
}

}  // namespace kdecl::kernels::cuda::sm90
