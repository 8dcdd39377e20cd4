// Split-K for tiles too few to occupy every SM (small M): the K range of a tile
// is cut into `splits` units that run on different blocks. Each unit stores its
// fp32 partial tile to the workspace and counts itself in; the unit that arrives
// last sums all partials and runs the epilogue. The sum runs in split order
// 0, 1, ..., so the result does not depend on which unit arrived last.
//
// Partials are stored in fragment order (float4 q of every thread, then q+1, ...)
// so that each store and load instruction of a warpgroup is fully coalesced.
#pragma once

#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90_params.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/warpgroup.cuh"

namespace kdecl::kernels::cuda::sm90 {

inline constexpr int consumer_barrier_id = 1;

template <class Cfg>
struct split_k_slot {
  static constexpr int per_warpgroup_floats = Cfg::m_blocks * Cfg::acc_regs * 128;
  static constexpr int per_tile_floats = Cfg::tile_m * Cfg::tile_n;
  static constexpr int vec4_per_thread = Cfg::m_blocks * Cfg::acc_regs / 4;
};

template <class Cfg>
__device__ __forceinline__ float4* partial_slot(const gemm_sm90_params& p, const tile_work& w, int split,
                                                int consumer) {
  using slot = split_k_slot<Cfg>;
  const long long index = static_cast<long long>(w.tile) * p.sched.splits + split;
  return reinterpret_cast<float4*>(p.partials + index * slot::per_tile_floats +
                                   consumer * slot::per_warpgroup_floats);
}

// Stores this unit's partial, counts it in; true when this unit is the tile's last
// and now holds the full sum in `acc`.
template <class Cfg>
__device__ bool split_k_combine(float (&acc)[Cfg::m_blocks][Cfg::acc_regs], const gemm_sm90_params& p,
                                const tile_work& w, int consumer, int thread_in_wg, int* last_flag) {
  using slot = split_k_slot<Cfg>;
  constexpr int per_block = Cfg::acc_regs / 4;
  float4* mine = partial_slot<Cfg>(p, w, w.split, consumer);
#pragma unroll
  for (int q = 0; q < slot::vec4_per_thread; ++q) {
    const float* a = &acc[q / per_block][4 * (q % per_block)];
    __stcg(mine + q * 128 + thread_in_wg, make_float4(a[0], a[1], a[2], a[3]));
  }
  __threadfence();
  named_barrier_sync(consumer_barrier_id, Cfg::consumer_threads);
  if (consumer == 0 && thread_in_wg == 0) {
    const int before = atomicAdd(p.tile_arrivals + w.tile, 1);
    *last_flag = before == p.sched.splits - 1;
  }
  named_barrier_sync(consumer_barrier_id, Cfg::consumer_threads);
  if (!*last_flag) return false;
  __threadfence();

  // Sum in split order, a chunk of registers at a time so loads overlap.
  constexpr int chunk = 4;
  static_assert(slot::vec4_per_thread % chunk == 0);
#pragma unroll
  for (int q0 = 0; q0 < slot::vec4_per_thread; q0 += chunk) {
    float4 sum[chunk];
    for (int s = 0; s < p.sched.splits; ++s) {
      const float4* src = partial_slot<Cfg>(p, w, s, consumer);
#pragma unroll
      for (int e = 0; e < chunk; ++e) {
        const int q = q0 + e;
        const float* a = &acc[q / per_block][4 * (q % per_block)];
        const float4 v = s == w.split ? make_float4(a[0], a[1], a[2], a[3]) : __ldcg(src + q * 128 + thread_in_wg);
        if (s == 0) {
          sum[e] = v;
        } else {
          sum[e].x += v.x; sum[e].y += v.y; sum[e].z += v.z; sum[e].w += v.w;
        }
      }
    }
#pragma unroll
    for (int e = 0; e < chunk; ++e) {
      const int q = q0 + e;
      float* a = &acc[q / per_block][4 * (q % per_block)];
      a[0] = sum[e].x; a[1] = sum[e].y; a[2] = sum[e].z; a[3] = sum[e].w;
    }
  }
  return true;
}

}  // namespace kdecl::kernels::cuda::sm90
