// The sm_90a forward convolution: the implicit GEMM of each group on the
// tma_wgmma GEMM's consumers (wgmma from the 128-byte swizzled ring, the direct
// and cshuffle epilogues) and persistent tile scheduler, fed by a gathering
// producer instead of TMA:
//
//   warpgroup 0      producer: all 128 threads copy with cp.async. For a k-block
//                    each thread owns one 16-byte chunk column (8 channels) of
//                    the 64-deep slice and every 16th row: it decodes its chunk's
//                    filter tap once, then for each of its rows (output pixels)
//                    copies 8 input channels of that tap (zeros in the padding)
//                    and for each of its weight rows 8 taps x channels. Chunk j
//                    of row r lands at chunk j ^ (r % 8): the layout TMA's
//                    128-byte swizzle gives, which the wgmma descriptors expect.
//                    It commits one cp.async group per stage and, stages - 2
//                    behind, waits for a group, fences the proxies and arrives
//                    on that stage's full barrier (cp_async_barrier.cuh).
//   warpgroups 1..W  consumers, as in the GEMM (intrawave): wait for a full
//                    stage, fence the proxies, issue the wgmma, free the previous
//                    stage when its group retires; the fused epilogue runs from
//                    registers while the producer fills the ring for the next tile.
//   split-K          layers whose tiles fill less than half the SMs (deep layers of a
//                    small batch): the GEMM's cluster split-K (split_k.cuh), each block
//                    one k-range of a tile, reduced through distributed shared memory.
//
//   A (M x K) = im2col(input of group g), M = N x output pixels, K = C/G x taps
//   B (N x K) = weights of group g (each output channel's taps x C/G contiguous)
//   C (M x N) = output of group g: the GEMM's batch g, stride = the group stride
//
// Entry point: sm90::conv_fwd<K> with the conv_kernel contract (kernels/conv/conv_kernel.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/cuda/implicit_gemm_fwd_problem.hpp"
#include "kdecl/kernels/conv/cuda/sm80/im2col_index.hpp"
#include "kdecl/kernels/conv/cuda/sm90/conv_fwd_sm90_config.cuh"
#include "kdecl/kernels/cuda/sm80/ptx.cuh"
#include "kdecl/kernels/cuda/sm90/cluster_launch.cuh"
#include "kdecl/kernels/cuda/sm90/cp_async_barrier.cuh"
#include "kdecl/kernels/cuda/device_info.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90_kernel.cuh"

namespace kdecl::kernels::cuda::sm90 {

struct conv_fwd_sm90_params {
  gemm_sm90_params out;            // the epilogue's view: C, M, N, ldc, group stride; the scheduler
  sm80::conv_gather_geometry geo;  // the im2col gather (kernels/conv/cuda/sm80/im2col_index.hpp)
  const void* in;                  // group 0
  const void* wei;                 // group 0
  std::int64_t in_g, wei_g;        // group strides (elements)
  std::int64_t wei_k;              // stride between output channels' filters
};

// Register budgets (setmaxnreg): two consumer warpgroups with 128 accumulators each
// need more than the 168 a thread gets at launch; the producer's gather keeps its
// rows' positions in registers and cannot go as low as the TMA producer's 40. The
// block can only share out what it was given at launch (384 x 168 = 64,512): a
// consumer asking for more than the producer gave up waits forever.
template <class Cfg>
struct conv_sm90_registers {
  static constexpr bool reallocate = Cfg::consumer_warpgroups == 2 && Cfg::m_blocks * Cfg::acc_regs > 64;
  static constexpr int producer = 72;
  static constexpr int consumer = 216;
  static_assert(128 * producer + 256 * consumer <= 384 * 168, "more registers than the block holds");
};

// One producer thread's share of every stage: chunk column `chunk` of rows
// `lane_row`, `lane_row` + 16, ... of the A slot (tile_m rows) and of the B slot
// (tile_n rows). Spatial dimensions are the trailing Ndim of the 3-D geometry.
template <class Cfg, class T, int Ndim>
struct conv_gather_thread {
  static constexpr int a_rows = Cfg::tile_m / 16;
  static constexpr int b_rows = Cfg::tile_n / 16;
  static constexpr int first_dim = 3 - Ndim;
  static constexpr int outside = -(1 << 30);  // a row past M: every tap falls outside

  int chunk, lane_row, swizzled;  // swizzled: byte offset of the chunk in each of this thread's rows
  std::int64_t a_off[a_rows];     // row's image offset + its first tap's position x input strides
  int a_pos[a_rows][Ndim];        // row's first tap position per spatial dimension
  const T* b_base;                // the group's weights
  const T* b_row0;                // this thread's first weight row (may be past N: then b_left <= 0)
  int b_left;                     // weight rows from b_row0 up to N

  __device__ conv_gather_thread(int tid) : chunk(tid % 8), lane_row(tid / 8) {
    swizzled = (chunk ^ (lane_row % 8)) * 16;
  }

  __device__ void start_tile(const conv_fwd_sm90_params& p, int m0, int n0, int g) {
    const auto& geo = p.geo;
#pragma unroll
    for (int i = 0; i < a_rows; ++i) {
      const int m = m0 + lane_row + 16 * i;
      const sm80::im2col_row row = sm80::im2col_row_of(geo, m < geo.m ? m : 0);
      std::int64_t off = row.base;
#pragma unroll
      for (int d = 0; d < Ndim; ++d) {
        a_pos[i][d] = m < geo.m ? row.start[first_dim + d] : outside;
        off += std::int64_t(row.start[first_dim + d]) * geo.in_s[first_dim + d];
      }
      a_off[i] = off;
    }
    b_base = static_cast<const T*>(p.wei) + g * p.wei_g;
    b_row0 = b_base + std::int64_t(n0 + lane_row) * p.wei_k;
    b_left = p.out.n - (n0 + lane_row);
  }

  // The copies of k-block `kb` into the stage at shared addresses a_slot / b_slot.
  __device__ void load(const conv_fwd_sm90_params& p, const T* in, int kb, std::uint32_t a_slot,
                       std::uint32_t b_slot) const {
    const auto& geo = p.geo;
    const int kk = kb * Cfg::tile_k + chunk * 8;
    const bool k_inside = kk < geo.k;
    // This chunk's tap and channel (the same for every row), and the tap's offset.
    const int tap = kk / geo.cg;
    const int c = kk - tap * geo.cg;
    int f[3];
    f[2] = tap % geo.filter[2];
    f[1] = tap / geo.filter[2] % geo.filter[1];
    f[0] = tap / (geo.filter[2] * geo.filter[1]);
    int reach[Ndim];
    std::int64_t tap_off = c;
#pragma unroll
    for (int d = 0; d < Ndim; ++d) {
      reach[d] = f[first_dim + d] * geo.dilation[first_dim + d];
      tap_off += std::int64_t(reach[d]) * geo.in_s[first_dim + d];
    }
#pragma unroll
    for (int i = 0; i < a_rows; ++i) {
      bool inside = k_inside;
#pragma unroll
      for (int d = 0; d < Ndim; ++d)
        inside = inside && unsigned(a_pos[i][d] + reach[d]) < unsigned(geo.in[first_dim + d]);
      // With 0 valid bytes nothing is read (cp.async zero-fills); src stays a valid address anyway.
      sm80::cp_async<16>(a_slot + (lane_row + 16 * i) * swizzle_row_bytes + swizzled,
                         inside ? in + a_off[i] + tap_off : in, inside ? 16 : 0);
    }
#pragma unroll
    for (int j = 0; j < b_rows; ++j) {
      const bool inside = k_inside && 16 * j < b_left;
      sm80::cp_async<16>(b_slot + (lane_row + 16 * j) * swizzle_row_bytes + swizzled,
                         inside ? b_row0 + std::int64_t(16 * j) * p.wei_k + kk : b_base, inside ? 16 : 0);
    }
  }
};

template <class Cfg, class T, int Ndim>
__device__ __forceinline__ void conv_produce_tiles(const conv_fwd_sm90_params& p, unsigned char* ring_a,
                                                   unsigned char* ring_b, std::uint64_t* full, std::uint64_t* empty,
                                                   int tid) {
  conv_gather_thread<Cfg, T, Ndim> gather(tid);
  const std::uint32_t a_ring = shared_address(ring_a), b_ring = shared_address(ring_b);
  // Each thread commits one cp.async group per stage and marks a stage full once its copies
  // have landed, `lag` stages behind the one it is filling: the copies of lag + 1 stages are
  // in flight at once. A consumer frees a stage only after it has started on the next one,
  // so the producer may run at most stages - 2 ahead of its arrivals (else both wait).
  constexpr int lag = Cfg::stages - 2;
  ring_position pos, landed;
  int in_flight = 0;
  const auto mark_landed = [&] {
    fence_proxy_async_shared();  // the copies, seen by this thread, before the consumers' wgmma reads
    mbarrier_arrive(&full[landed.stage]);
    landed.advance<Cfg::stages>();
  };
  const int units = p.out.sched.units();
  for (int unit = blockIdx.x; unit < units; unit += gridDim.x) {
    const tile_work w = p.out.sched.at(unit);
    gather.start_tile(p, w.tile_m * Cfg::tile_m, w.tile_n * Cfg::tile_n, w.batch);
    const T* in = static_cast<const T*>(p.in) + w.batch * p.in_g;
    for (int kb = w.k_block_begin; kb < w.k_block_end; ++kb) {
      mbarrier_wait(&empty[pos.stage], pos.phase ^ 1);
      gather.load(p, in, kb, a_ring + pos.stage * Cfg::a_stage_bytes, b_ring + pos.stage * Cfg::b_stage_bytes);
      sm80::cp_async_commit();
      pos.advance<Cfg::stages>();
      if (++in_flight > lag) {
        sm80::cp_async_wait<lag>();
        mark_landed();
        --in_flight;
      }
    }
  }
  sm80::cp_async_wait<0>();
  for (; in_flight > 0; --in_flight) mark_landed();
  if (p.out.sched.splits > 1) split_k_producer_wait();
}

template <gemm_key G, class Cfg>
__device__ __forceinline__ void conv_consume_tiles(const conv_fwd_sm90_params& p, unsigned char* ring_a,
                                                   unsigned char* ring_b, std::uint64_t* full, std::uint64_t* empty,
                                                   float* strips, int consumer, int thread_in_wg) {
  const int lane = thread_in_wg % 32, warp = thread_in_wg / 32;
  const std::uint32_t a_ring = shared_address(ring_a) + consumer * Cfg::m_blocks * mn_block_bytes;
  const std::uint32_t b_ring = shared_address(ring_b);
  float acc[Cfg::m_blocks][Cfg::acc_regs];
  ring_position pos;
  const int units = p.out.sched.units();
  for (int unit = blockIdx.x; unit < units; unit += gridDim.x) {
    const tile_work w = p.out.sched.at(unit);
#pragma unroll
    for (int i = 0; i < Cfg::m_blocks; ++i)
#pragma unroll
      for (int r = 0; r < Cfg::acc_regs; ++r) acc[i][r] = 0.0f;
    // The GEMM's mainloop (gemm_sm90_kernel.cuh) over the gathered stages.
    const int previous_stage = consume_k_blocks<Cfg, /*Gathered=*/true>(acc, a_ring, b_ring, full, empty, pos,
                                                                         w.k_block_begin, w.k_block_end, lane, 0);
    wgmma_wait_group<0>();
#pragma unroll
    for (int i = 0; i < Cfg::m_blocks; ++i) fence_accumulators(acc[i]);
    if (previous_stage >= 0 && lane == 0) release_slot<Cfg>(empty, previous_stage, 0);
    if constexpr (Cfg::split_k_fits) {
      if (p.out.sched.splits > 1) {  // a cluster launch: this block's only unit
        split_k_cluster_reduce<G, Cfg>(acc, p.out, w, ring_a, consumer, thread_in_wg);
        return;
      }
    }

    const int tile_row0 = consumer * Cfg::rows_per_warpgroup + warp * 16;
    const int warp_row0 = w.tile_m * Cfg::tile_m + tile_row0;
    if constexpr (Cfg::staged_epilogue) {
      float* strip = strips + (consumer * 4 + warp) * cshuffle_warp_floats;
      const d_ring_view no_d{ring_a, ring_b, full, empty, 0, 0};  // the conv epilogue reads no D tensors
      epilogue_cshuffle<G, Cfg, false>(acc, p.out, w.batch, warp_row0, w.tile_n * Cfg::tile_n, strip, lane, no_d,
                                       tile_row0);
    } else {
      epilogue_direct<G, Cfg>(acc, p.out, w.batch, warp_row0 + lane / 4, w.tile_n * Cfg::tile_n + 2 * (lane % 4));
    }
  }
}

// Templated on types and ints, not the key (nvcc's host stubs cannot spell class-type
// template arguments): the GEMM config, the data type and the spatial rank.
template <class Cfg, class T, int Ndim>
__global__ void __launch_bounds__(Cfg::threads, 1) conv_fwd_sm90_kernel(const __grid_constant__ conv_fwd_sm90_params p) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __trap();  // sm_90a only (wgmma, setmaxnreg); run() never launches it elsewhere
#else
  using regs = conv_sm90_registers<Cfg>;
  extern __shared__ unsigned char smem_raw[];
  // The 128-byte swizzle pattern repeats every 1 KiB: slots must start on that boundary.
  unsigned char* smem = smem_raw + ((1024 - (shared_address(smem_raw) & 1023)) & 1023);
  unsigned char* ring_a = smem;
  unsigned char* ring_b = smem + Cfg::stages * Cfg::a_stage_bytes;
  auto* full = reinterpret_cast<std::uint64_t*>(smem + Cfg::stages * Cfg::stage_bytes);
  std::uint64_t* empty = full + Cfg::stages;
  float* strips = reinterpret_cast<float*>(smem + Cfg::stages * Cfg::stage_bytes + 2 * 8 * Cfg::stages + 16);
  if (threadIdx.x == 0) {
    for (int s = 0; s < Cfg::stages; ++s) {
      mbarrier_init(&full[s], 128);                              // each producer thread, its copies landed
      mbarrier_init(&empty[s], Cfg::consumer_warpgroups * 4);    // each consumer warp
    }
    mbarrier_init_fence();
  }
  __syncthreads();
  const int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    if constexpr (regs::reallocate) warpgroup_release_registers<regs::producer>();
    conv_produce_tiles<Cfg, T, Ndim>(p, ring_a, ring_b, full, empty, threadIdx.x);
  } else {
    if constexpr (regs::reallocate) warpgroup_claim_registers<regs::consumer>();
    conv_consume_tiles<Cfg::key, Cfg>(p, ring_a, ring_b, full, empty, strips, warpgroup - 1, threadIdx.x % 128);
  }
  __syncthreads();  // no thread leaves while another may still wait on a barrier it feeds
#endif
}

template <grouped_conv_key K>
struct conv_fwd {
  static_assert(conv_fwd_sm90_unsupported_reason(K) == nullptr,
                "key not supported by the sm90 forward convolution: see sm90::conv_fwd_sm90_unsupported_reason(K)");
  static constexpr gemm_key G = conv_fwd_sm90_gemm_key(K);
  using cfg = sm90_config<G>;
  using data_t = storage_t<K.sig.in>;

  static std::size_t workspace_bytes(const grouped_conv_problem&) { return 0; }

  static std::optional<std::string> why_not(const grouped_conv_problem& p, const grouped_conv_args& a) {
    return implicit_gemm_fwd_reason(K, p, a, "sm90 conv", {K.algo.vector_in, K.algo.vector_wei, K.algo.vector_out,
                                                            int(sizeof(typename cfg::out_t))});
  }

  // How the problem is laid over the device: the persistent grid, the raster and, where the
  // tiles fill less than half the SMs, the split of K over a cluster.
  static launch_plan plan(const grouped_conv_problem& p) {
    const auto e = p.implicit_gemm();
    gemm_problem gp;
    gp.m = e.m;
    gp.n = e.n;
    gp.k = e.k;
    gp.batch = p.g;
    const device_info dev = current_device_info();
    return plan_launch(gp, cfg::tile_m, cfg::tile_n, cfg::tile_k, dev.sm_count,
                       cfg::split_k_fits ? &cluster_capacity_of(dev) : nullptr);
  }

  static std::optional<std::string> device_reason() {
    return device_shortfall("sm90 conv", {9, 0, /*exact=*/true, cfg::smem_bytes});
  }

  static status run(const grouped_conv_problem& p, const grouped_conv_args& a, void* stream) {
    if (auto why = why_not(p, a)) return status::error(*why);
    if (auto why = device_reason()) return status::error(*why);
    const auto e = p.implicit_gemm();
    if (e.m == 0 || e.n == 0) return status::ok();

    if (const cudaError_t attr = prepare_kernel(); attr != cudaSuccess)
      return status::error(std::string("cudaFuncSetAttribute: ") + cudaGetErrorString(attr));
    const launch_plan shape = plan(p);

    conv_fwd_sm90_params kp{};
    kp.out.sched = shape.sched;
    kp.out.c = a.out;
    kp.out.m = int(e.m);
    kp.out.n = int(e.n);
    kp.out.ldc = p.out_strides.spatial[2];
    kp.out.stride_c = p.out_strides.g;
    kp.out.alpha = 1.0f;
    kp.out.beta = 0.0f;
    kp.out.d_via_tma = false;
    constexpr std::int64_t run_bytes = 4 * std::int64_t(sizeof(typename cfg::out_t));  // cshuffle's vector
    const std::int64_t elem = std::int64_t(sizeof(typename cfg::out_t));
    kp.out.c_rows_aligned = reinterpret_cast<std::uintptr_t>(a.out) % run_bytes == 0 &&
                            (kp.out.ldc * elem) % run_bytes == 0 && (p.g == 1 || (kp.out.stride_c * elem) % run_bytes == 0);
    kp.geo = sm80::gather_geometry_of(p);
    kp.in = a.in;
    kp.wei = a.wei;
    kp.in_g = p.in_strides.g;
    kp.wei_g = p.wei_strides.g;
    kp.wei_k = p.wei_strides.n;

    // The splits of a tile form a cluster.
    if (const cudaError_t err = launch_in_clusters(kernel, unsigned(shape.grid), cfg::threads, cfg::smem_bytes,
                                                   static_cast<cudaStream_t>(stream),
                                                   static_cast<unsigned>(shape.sched.splits), kp);
        err != cudaSuccess)
      return status::error(std::string("sm90 conv launch: ") + cudaGetErrorString(err));
    return status::ok();
  }

 private:
  static constexpr auto kernel = conv_fwd_sm90_kernel<cfg, data_t, K.sig.ndim>;

  // Raises the kernel's dynamic shared-memory limit, once per process.
  static cudaError_t prepare_kernel() {
    static const cudaError_t attr =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, cfg::smem_bytes);
    return attr;
  }

  // Blocks of each cluster size that fit at once on the device, asked once per device.
  static const cluster_capacity& cluster_capacity_of(const device_info& dev) {
    static cluster_capacity_table table;
    prepare_kernel();
    return table.of(reinterpret_cast<const void*>(kernel), cfg::threads, cfg::smem_bytes, dev);
  }
};

}  // namespace kdecl::kernels::cuda::sm90
