// How fast can the blocks of a thread-block cluster add up their fp32 partial tiles (cluster
// split-K) and store the sum? A probe, not a test: the shipped reduction (split_k.cuh) costs
// 0.35-0.5 us per group of 4 columns a thread reduces, 2-4 us for a 128x128 or 128x256 tile at
// 2-4 splits (kdecl_sm90_timeline, docs/perf/h100-2026-12-06-launch-start-gemm/), more than the
// main loop on few-tile long-K GEMMs. Each variant below starts from every block holding its
// partial tile in shared memory (row-major, rows of `tile_n + 8` floats, as split_k.cuh) and ends
// with its share of the rows summed in rank order and stored to global memory as bf16:
//
//   pull     every thread reads its groups' float4s from all ranks through distributed shared
//            memory (ld.shared::cluster), one group at a time (what split_k.cuh does)
//   pull4    the same with 4 groups' loads in flight before any is added
//   push     each block bulk-copies (cp.async.bulk.shared::cluster.shared::cta) the rows other
//            ranks own into their receive buffers, completing on their mbarrier; owners then add
//            from their own shared memory
//   l2       each block stores its partial to global memory (L2), cluster barrier, each reads
//            its rows of every partial back
//   none     no exchange: each block stores its own partial's rows (the floor: set-up, barriers,
//            the bf16 store)
//
// Grid: as many clusters of `splits` blocks as fit at once, 256 threads, one launch = one
// exchange per cluster; CUDA events around 200 launches (after 20), median of 7 batches. Every
// variant's C is checked against the exact sum (partials hold small integers).
//   kdecl_dsmem_reduce_probe
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check_cuda.hpp"
#include "kdecl/kernels/cuda/sm90/cluster.cuh"
#include "kdecl/kernels/cuda/sm90/cp_async_barrier.cuh"
#include "kdecl/kernels/cuda/sm90/mbarrier.cuh"
#include "kdecl/kernels/cuda/sm90/shared_address.cuh"

namespace {

using namespace kdecl::kernels::cuda::sm90;

#define CHECK_CUDA(x) kdecl_bench::check_cuda((x), #x)

enum class exchange { none, pull, pull4, push, l2 };
const char* name_of(exchange x) {
  switch (x) {
    case exchange::none: return "none";
    case exchange::pull: return "pull";
    case exchange::pull4: return "pull4";
    case exchange::push: return "push";
    case exchange::l2: return "l2";
  }
  return "?";
}

constexpr int threads = 256, tile_m = 128;

struct probe_params {
  __nv_bfloat16* c;     // [clusters][tile_m][tile_n]
  float* scratch;       // l2: [blocks][tile_m][ld]
  int splits;
};

__device__ __forceinline__ void bulk_copy_to_cluster(std::uint32_t dst_cluster, std::uint32_t src, std::uint32_t bytes,
                                                     std::uint32_t bar_cluster) {
  asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   dst_cluster),
               "r"(src), "r"(bytes), "r"(bar_cluster)
               : "memory");
}

template <int TileN, exchange X>
__global__ void __launch_bounds__(threads, 1) reduce_kernel(const probe_params p) {
  constexpr int ld = TileN + 8, groups_per_row = TileN / 4;
  extern __shared__ __align__(128) unsigned char smem[];
  auto* bar = reinterpret_cast<std::uint64_t*>(smem);
  float* part = reinterpret_cast<float*>(smem + 128);
  float* recv = part + tile_m * ld;  // push: (splits - 1) slices of the owner's rows
  const int rank = cluster_rank(), splits = p.splits;
  const int cluster = static_cast<int>(blockIdx.x) / splits;
  const int rows_per = tile_m / splits, r0 = rank * rows_per, r1 = rank == splits - 1 ? tile_m : r0 + rows_per;
  const int max_rows = tile_m - rows_per * (splits - 1);  // the last rank's share, the largest

  // The partial: rank s holds (s + 1) * (row + 3 * col) % 7, small integers (exact in fp32).
  for (int i = threadIdx.x; i < tile_m * TileN; i += threads) {
    const int r = i / TileN, col = i % TileN;
    part[r * ld + col] = float((rank + 1) * ((r + 3 * col) % 7));
  }
  if constexpr (X == exchange::push) fence_proxy_async_shared();  // the bulk copies read it (async proxy)
  if (threadIdx.x == 0) {
    mbarrier_init(bar, 1);
    mbarrier_init_fence();
  }
  __syncthreads();
  if constexpr (X == exchange::l2) {
    float* mine = p.scratch + std::size_t(blockIdx.x) * tile_m * ld;
    for (int i = threadIdx.x; i < tile_m * ld / 4; i += threads)
      reinterpret_cast<float4*>(mine)[i] = reinterpret_cast<const float4*>(part)[i];
  }
  cluster_sync();  // partials written, barriers initialised cluster-wide

  __nv_bfloat16* c = p.c + std::size_t(cluster) * tile_m * TileN;
  auto store = [&](int r, int g, const float (&v)[4]) {
    __nv_bfloat162 lo = __floats2bfloat162_rn(v[0], v[1]), hi = __floats2bfloat162_rn(v[2], v[3]);
    uint2 packed;
    packed.x = *reinterpret_cast<unsigned*>(&lo);
    packed.y = *reinterpret_cast<unsigned*>(&hi);
    *reinterpret_cast<uint2*>(c + std::size_t(r) * TileN + 4 * g) = packed;
  };
  const int first = r0 * groups_per_row, last = r1 * groups_per_row;
  const std::uint32_t part_addr = shared_address(part);

  if constexpr (X == exchange::none) {
    for (int g = first + threadIdx.x; g < last; g += threads) {
      const int r = g / groups_per_row, cg = g % groups_per_row;
      const float4 q = *reinterpret_cast<const float4*>(part + r * ld + 4 * cg);
      const float v[4] = {q.x, q.y, q.z, q.w};
      store(r, cg, v);
    }
  } else if constexpr (X == exchange::pull || X == exchange::pull4) {
    constexpr int batch = X == exchange::pull ? 1 : 4;
    for (int g0 = first + threadIdx.x; g0 < last; g0 += batch * threads) {
      float4 q[batch][8];
#pragma unroll
      for (int b = 0; b < batch; ++b) {
        const int g = g0 + b * threads;
        if (g >= last) continue;
        const std::uint32_t at = part_addr + std::uint32_t(((g / groups_per_row) * ld + 4 * (g % groups_per_row)) * 4);
#pragma unroll
        for (int s = 0; s < 8; ++s)
          if (s < splits) q[b][s] = cluster_load_float4(cluster_map_shared(at, s));
      }
#pragma unroll
      for (int b = 0; b < batch; ++b) {
        const int g = g0 + b * threads;
        if (g >= last) continue;
        float v[4] = {q[b][0].x, q[b][0].y, q[b][0].z, q[b][0].w};
#pragma unroll
        for (int s = 1; s < 8; ++s)
          if (s < splits) { v[0] += q[b][s].x; v[1] += q[b][s].y; v[2] += q[b][s].z; v[3] += q[b][s].w; }
        store(g / groups_per_row, g % groups_per_row, v);
      }
    }
  } else if constexpr (X == exchange::push) {
    // Owner o's rows of every other rank land in o's recv, slot (sender rank, minus one past o).
    const std::uint32_t slice_floats = std::uint32_t(max_rows * ld);  // one receive slot
    if (threadIdx.x == 0) {
      std::uint32_t incoming = 0;
      for (int s = 0; s < splits; ++s)
        if (s != rank) incoming += std::uint32_t((r1 - r0) * ld * 4);
      mbarrier_arrive_expect_tx(bar, incoming);
    }
    cluster_sync();  // every owner expects its bytes before any lands
    if (threadIdx.x == 0) {
      for (int o = 0; o < splits; ++o) {
        if (o == rank) continue;
        const int o0 = o * rows_per, o1 = o == splits - 1 ? tile_m : o0 + rows_per;
        const int slot = rank < o ? rank : rank - 1;
        const std::uint32_t dst = shared_address(recv + slot * slice_floats + 0);
        bulk_copy_to_cluster(cluster_map_shared(dst, o), part_addr + std::uint32_t(o0 * ld * 4),
                             std::uint32_t((o1 - o0) * ld * 4), cluster_map_shared(shared_address(bar), o));
      }
    }
    mbarrier_wait(bar, 0);
    for (int g = first + threadIdx.x; g < last; g += threads) {
      const int r = g / groups_per_row, cg = g % groups_per_row;
      float v[4] = {0.f, 0.f, 0.f, 0.f};
      for (int s = 0; s < splits; ++s) {  // rank order
        const float* src = s == rank ? part + r * ld : recv + (s < rank ? s : s - 1) * slice_floats + (r - r0) * ld;
        const float4 q = *reinterpret_cast<const float4*>(src + 4 * cg);
        v[0] += q.x; v[1] += q.y; v[2] += q.z; v[3] += q.w;
      }
      store(r, cg, v);
    }
  } else {  // l2
    const float* base = p.scratch + std::size_t(cluster) * splits * tile_m * ld;
    for (int g = first + threadIdx.x; g < last; g += threads) {
      const int r = g / groups_per_row, cg = g % groups_per_row;
      float4 q[8];
#pragma unroll
      for (int s = 0; s < 8; ++s)
        if (s < splits) q[s] = *reinterpret_cast<const float4*>(base + std::size_t(s) * tile_m * ld + r * ld + 4 * cg);
      float v[4] = {q[0].x, q[0].y, q[0].z, q[0].w};
#pragma unroll
      for (int s = 1; s < 8; ++s)
        if (s < splits) { v[0] += q[s].x; v[1] += q[s].y; v[2] += q[s].z; v[3] += q[s].w; }
      store(r, cg, v);
    }
  }
  cluster_sync();  // no block leaves while another reads its shared memory
}

template <int TileN>
constexpr int smem_bytes(int splits, exchange x) {
  // barrier + own partial + (push) a receive slot per other rank, each the largest share (the last rank's)
  const int rows_last = tile_m - (tile_m / splits) * (splits - 1);
  return 128 + tile_m * (TileN + 8) * 4 + (x == exchange::push ? (splits - 1) * rows_last * (TileN + 8) * 4 : 0);
}

template <int TileN, exchange X>
double time_variant(int splits, int clusters, __nv_bfloat16* c, float* scratch, bool* ok) {
  auto kernel = reduce_kernel<TileN, X>;
  const int smem = smem_bytes<TileN>(splits, X);
  CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(unsigned(clusters * splits));
  cfg.blockDim = dim3(threads);
  cfg.dynamicSmemBytes = unsigned(smem);
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = unsigned(splits);
  attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  const probe_params p{c, scratch, splits};
  CHECK_CUDA(cudaMemset(c, 0xFF, std::size_t(clusters) * tile_m * TileN * 2));
  CHECK_CUDA(cudaLaunchKernelEx(&cfg, kernel, p));
  CHECK_CUDA(cudaDeviceSynchronize());
  // Check: C = sum over s of (s + 1) * ((row + 3 col) % 7), every cluster (none: the own rows only).
  std::vector<__nv_bfloat16> host(std::size_t(clusters) * tile_m * TileN);
  CHECK_CUDA(cudaMemcpy(host.data(), c, host.size() * 2, cudaMemcpyDeviceToHost));
  *ok = true;
  const int rows_per = tile_m / splits;
  for (int k = 0; k < clusters && *ok; ++k)
    for (int r = 0; r < tile_m && *ok; ++r)
      for (int col = 0; col < TileN; ++col) {
        const int owner = std::min(r / rows_per, splits - 1);
        const float unit = float((r + 3 * col) % 7);
        const float want = X == exchange::none ? (owner + 1) * unit : unit * splits * (splits + 1) / 2;
        if (__bfloat162float(host[(std::size_t(k) * tile_m + r) * TileN + col]) != want) {
          *ok = false;
          break;
        }
      }
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (int i = 0; i < 20; ++i) CHECK_CUDA(cudaLaunchKernelEx(&cfg, kernel, p));
  std::vector<double> batches;
  for (int b = 0; b < 7; ++b) {
    cudaEventRecord(e0);
    for (int i = 0; i < 200; ++i) cudaLaunchKernelEx(&cfg, kernel, p);
    cudaEventRecord(e1);
    CHECK_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    batches.push_back(ms * 1e3 / 200);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  std::sort(batches.begin(), batches.end());
  return batches[batches.size() / 2];
}

template <int TileN>
void probe_tile(int sm_count, __nv_bfloat16* c, float* scratch) {
  for (int splits : {2, 3, 4, 6, 8}) {
    const int clusters = std::max(1, sm_count / splits);
    std::printf("128x%d, %d splits, %d clusters (one launch = every cluster reduces one tile):\n", TileN, splits, clusters);
    double floor_us = 0;
    for (exchange x : {exchange::none, exchange::pull, exchange::pull4, exchange::push, exchange::l2}) {
      bool ok = false;
      double us = 0;
      if (smem_bytes<TileN>(splits, x) > 227 * 1024) {
        std::printf("  %-6s needs %d bytes of shared memory, skipped\n", name_of(x), smem_bytes<TileN>(splits, x));
        continue;
      }
      switch (x) {
        case exchange::none: us = time_variant<TileN, exchange::none>(splits, clusters, c, scratch, &ok); break;
        case exchange::pull: us = time_variant<TileN, exchange::pull>(splits, clusters, c, scratch, &ok); break;
        case exchange::pull4: us = time_variant<TileN, exchange::pull4>(splits, clusters, c, scratch, &ok); break;
        case exchange::push: us = time_variant<TileN, exchange::push>(splits, clusters, c, scratch, &ok); break;
        case exchange::l2: us = time_variant<TileN, exchange::l2>(splits, clusters, c, scratch, &ok); break;
      }
      if (x == exchange::none) floor_us = us;
      std::printf("  %-6s %7.2f us per launch (%+6.2f us over none) %s\n", name_of(x), us, us - floor_us,
                  ok ? "sum exact" : "WRONG SUM");
    }
    std::fflush(stdout);
  }
}

}  // namespace

int main() {
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  if (prop.major < 9) {
    std::printf("needs sm_90 (thread-block clusters)\n");
    return 0;
  }
  const int sms = prop.multiProcessorCount;
  __nv_bfloat16* c = nullptr;
  float* scratch = nullptr;
  CHECK_CUDA(cudaMalloc(&c, std::size_t(sms) * tile_m * 256 * 2));
  CHECK_CUDA(cudaMalloc(&scratch, std::size_t(sms) * tile_m * (256 + 8) * 4));
  probe_tile<128>(sms, c, scratch);
  probe_tile<256>(sms, c, scratch);
  cudaFree(c);
  cudaFree(scratch);
  return 0;
}
