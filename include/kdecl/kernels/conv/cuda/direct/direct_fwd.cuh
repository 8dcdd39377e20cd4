// The direct forward convolution (pipeline::direct_conv): a memory-bound
// kernel on CUDA cores for depthwise layers and layers with few channels per
// group (stems with C = 3, ResNeXt-like groups), where an implicit GEMM wastes
// most of its MMA tile. 2-D, channels-last (NHWGC / GKYXC / NHWGK), 16-bit data,
// fp32 accumulation.
//
// One block computes a tile.m x tile.n tile of output pixels for tile.k
// consecutive output channels of one image; each thread `vector` consecutive
// channels of `warp_tile.m` consecutive pixels of one row.
//
// Depthwise layers (C/G = K/G = 1; direct_dw_fwd_kernel) stage only the taps:
// every thread reads its input vectors straight from global memory along a
// sliding window (L1 serves the halo its neighbours share), so no block waits
// for a tile to land and many stay in flight.
//
// Layers with several channels per group (direct_fwd_kernel):
//   1. the block stages the input tile + halo of the input channels those output
//      channels read ((tile.m-1)*stride + (filter-1)*dilation + 1 rows, the same
//      for columns) in shared memory, once, with vector loads along channels
//      (zeros outside the image: any padding);
//   2. it stages the taps of its output channels in shared memory as fp32;
//   3. each thread computes `vector` consecutive output channels (one vector)
//      for `warp_tile.m` consecutive output pixels of one row, reading the input
//      from shared memory (depthwise: one vector per tap and pixel), and stores
//      one vector per pixel.
// The filter size is a template parameter for 3x3, 5x5 and 7x7 (fully unrolled
// tap loops, the taps of a row kept in registers) and a run-time value otherwise.
// Every size, stride, dilation and padding is predicated; C and K must be
// multiples of the vector (the dispatcher picks a narrower instance otherwise).
//
// Entry point: direct::conv_direct_fwd<K> with the conv_kernel contract (kernels/conv/conv_kernel.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "kdecl/arch/arch.hpp"
#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/cuda/direct/direct_config.cuh"
#include "kdecl/kernels/cuda/device_info.cuh"
#include "kdecl/kernels/cuda/device_types.cuh"
#include "kdecl/kernels/cuda/dynamic_smem.cuh"
#include "kdecl/kernels/cuda/sm80/ptx.cuh"

namespace kdecl::kernels::cuda::direct {

struct direct_fwd_params {
  const void* in;
  const void* wei;
  void* out;
  int h, w, c, k, cg, kg;    // input size, channels, channels per group
  int ho, wo;                // output size
  int fy, fx, sy, sx, dy, dx, py, px;
  long long in_n, in_h, in_w;       // element strides (channels packed: group stride = C/G)
  long long out_n, out_h, out_w;    // (group stride = K/G)
  long long wei_k, wei_g, wei_y, wei_x;
  int tiles_w;               // output tiles along W
  int kblocks;               // blocks of tile.k output channels (forward: grid x = tiles x kblocks)
  int rows, cols, pitch;     // staged input tile: rows x cols pixels x pitch channels
  int in_bytes;              // bytes of the staged input (16-byte multiple); the taps follow
};

template <int Bytes> struct raw_vector;
template <> struct raw_vector<16> { using type = uint4; };
template <> struct raw_vector<8> { using type = uint2; };
template <> struct raw_vector<4> { using type = unsigned; };
template <> struct raw_vector<2> { using type = unsigned short; };

template <class T> __device__ __forceinline__ float to_float(T v);
template <> __device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ __half from_float(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float(float v) { return __float2bfloat16_rn(v); }

// V elements of T moved as one access.
template <class T, int V>
struct elements {
  using raw = typename raw_vector<V * int(sizeof(T))>::type;
  union {
    raw r;
    T e[V];
  };
};

// One V-element vector from global memory through the read-only path, or zeros where
// `inside` is false. Branch-free: the load always goes to a valid address (`fallback`
// outside) and a select zeroes it, so a thread's loads share one basic block and the
// compiler issues them together rather than one round trip after another.
__device__ __forceinline__ void zero_unless(uint4& r, bool keep) {
  r.x = keep ? r.x : 0u;
  r.y = keep ? r.y : 0u;
  r.z = keep ? r.z : 0u;
  r.w = keep ? r.w : 0u;
}
__device__ __forceinline__ void zero_unless(uint2& r, bool keep) {
  r.x = keep ? r.x : 0u;
  r.y = keep ? r.y : 0u;
}
__device__ __forceinline__ void zero_unless(unsigned& r, bool keep) { r = keep ? r : 0u; }
__device__ __forceinline__ void zero_unless(unsigned short& r, bool keep) {
  r = keep ? r : static_cast<unsigned short>(0);
}
template <class T, int V>
__device__ __forceinline__ void load_or_zero(const T* at, bool inside, const T* fallback, float (&xf)[V]) {
  using vec = elements<T, V>;
  vec v;
  v.r = __ldg(reinterpret_cast<const typename vec::raw*>(inside ? at : fallback));
  zero_unless(v.r, inside);
#pragma unroll
  for (int j = 0; j < V; ++j) xf[j] = to_float(v.e[j]);
}

// Stages `count` vectors of V elements into shared memory: where(i) gives vector i's
// shared destination, its global source and whether it lies inside the tensor (else
// zeros). 4-, 8- and 16-byte vectors go by cp.async (every copy of the thread in
// flight at once; the caller commits and waits), 2-byte ones through registers,
// four loads in flight per thread.
template <class T, int V, int THREADS, class Where>
__device__ __forceinline__ void stage_vectors(int count, int tid, Where where) {
  constexpr int bytes = V * int(sizeof(T));
  using raw = typename raw_vector<bytes>::type;
  if constexpr (bytes >= 4) {
    for (int i = tid; i < count; i += THREADS) {
      T* dst;
      const T* src;
      const bool inside = where(i, dst, src);
      sm80::cp_async<bytes>(sm80::smem_address(dst), src, inside ? bytes : 0);
    }
  } else {
    constexpr int batch = 4;
    for (int i0 = tid; i0 < count; i0 += batch * THREADS) {
      raw x[batch];
      T* dst[batch];
#pragma unroll
      for (int u = 0; u < batch; ++u) {
        const int i = i0 + u * THREADS;
        x[u] = raw{};
        dst[u] = nullptr;
        if (i < count) {
          const T* src;
          if (where(i, dst[u], src)) x[u] = *reinterpret_cast<const raw*>(src);
        }
      }
#pragma unroll
      for (int u = 0; u < batch; ++u)
        if (dst[u]) *reinterpret_cast<raw*>(dst[u]) = x[u];
    }
  }
}
template <class T, int V>
__device__ __forceinline__ void staged_vectors_landed() {
  if constexpr (V * int(sizeof(T)) >= 4) {
    sm80::cp_async_commit();
    sm80::cp_async_wait<0>();
  }
}

// V fp32 taps from shared memory (16-byte aligned when V is a multiple of 4: CB and lane * V are).
template <int V>
__device__ __forceinline__ void load_taps(float (&w)[V], const float* from) {
  if constexpr (V % 4 == 0) {
#pragma unroll
    for (int j = 0; j < V; j += 4) {
      const float4 t = *reinterpret_cast<const float4*>(from + j);
      w[j] = t.x;
      w[j + 1] = t.y;
      w[j + 2] = t.z;
      w[j + 3] = t.w;
    }
  } else {
#pragma unroll
    for (int j = 0; j < V; ++j) w[j] = from[j];
  }
}

// Tiles: TH x TW output pixels, CB output channels, V channels per thread, PPT pixels per thread.
// FY, FX: compile-time filter (0: run time). Layers with C/G > 1 or K/G > 1 (depthwise
// layers take direct_dw_fwd_kernel). CG > 0: C/G = K/G = CG known at compile time
// (ResNeXt-like groups of 4, 8, 16 or 32 channels, 8-element vectors): the thread's
// output vector reads its groups' input channels as 16-byte vectors from the staged
// tile (max(V, CG) contiguous channels per pixel and tap) and every index is a
// compile-time constant; CG = 0 is the general path (scalar reads per input channel).
template <class T, int TH, int TW, int CB, int THREADS, int PPT, int V, int FY, int FX, int CG = 0>
__global__ void __launch_bounds__(THREADS) direct_fwd_kernel(const __grid_constant__ direct_fwd_params p) {
  static_assert(CG == 0 || (V == 8 && (CG == 4 || CG % 8 == 0)), "compile-time groups need 8-element vectors");
  constexpr int lanes = CB / V;
  using vec = elements<T, V>;
  extern __shared__ __align__(16) unsigned char smem[];
  T* in_s = reinterpret_cast<T*>(smem);
  float* w_s = reinterpret_cast<float*>(smem + p.in_bytes);

  const int tid = int(threadIdx.x);
  const int fy = FY > 0 ? FY : p.fy, fx = FX > 0 ? FX : p.fx;
  // Channel blocks fastest: the blocks of one pixel tile run together and use whole lines.
  const int tile = int(blockIdx.x) / p.kblocks, kblock = int(blockIdx.x) - tile * p.kblocks;
  const int oy0 = tile / p.tiles_w * TH, ox0 = tile % p.tiles_w * TW;
  const int k0 = kblock * CB;
  const long long img = blockIdx.z;
  const int k_end = min(k0 + CB, p.k);
  const int cin0 = k0 / p.kg * p.cg;
  const int cin_end = (k_end - 1) / p.kg * p.cg + p.cg;
  const int cin_vecs = (cin_end - cin0 + V - 1) / V;

  // 1. the input tile + halo (zeros outside the image).
  const int iy0 = oy0 * p.sy - p.py, ix0 = ox0 * p.sx - p.px;
  const T* in = static_cast<const T*>(p.in) + img * p.in_n + cin0;
  const int staged = p.rows * p.cols * cin_vecs;
  stage_vectors<T, V, THREADS>(staged, tid, [&](int i, T*& dst, const T*& src) {
    const int v = i % cin_vecs, pix = i / cin_vecs;
    const int col = pix % p.cols, row = pix / p.cols;
    const int gy = iy0 + row, gx = ix0 + col;
    dst = in_s + (row * p.cols + col) * p.pitch + v * V;
    const bool inside = gy >= 0 && gy < p.h && gx >= 0 && gx < p.w;
    src = inside ? in + gy * p.in_h + gx * p.in_w + v * V : in;
    return inside;
  });
  // 2. the taps of the block's output channels, fp32: w_s[(tap * cg + c) * CB + channel].
  const int taps = fy * fx;
  const int cg = CG > 0 ? CG : p.cg;
  const int kg = CG > 0 ? CG : p.kg;
  const T* wei = static_cast<const T*>(p.wei);
  for (int i = tid; i < taps * cg * CB; i += THREADS) {
    const int kl = i % CB, tc = i / CB;
    const int c = tc % cg, tap = tc / cg;
    const int kk = k0 + kl;
    float value = 0.0f;
    if (kk < p.k) {
      const int g = kk / kg, kin = kk % kg;
      const int ty = tap / fx, tx = tap - ty * fx;
      value = to_float(wei[g * p.wei_g + kin * p.wei_k + ty * p.wei_y + tx * p.wei_x + c]);
    }
    w_s[i] = value;
  }
  staged_vectors_landed<T, V>();
  __syncthreads();

  // 3. outputs: lane -> V channels, worker -> PPT consecutive pixels of one row.
  const int lane = tid % lanes, worker = tid / lanes;
  const int q0 = worker * PPT;
  const int row = q0 / TW, col0 = q0 % TW;
  const int kb = k0 + lane * V;
  const int oy = oy0 + row;
  if (kb >= p.k || oy >= p.ho || ox0 + col0 >= p.wo) return;

  float acc[PPT][V];
#pragma unroll
  for (int q = 0; q < PPT; ++q)
#pragma unroll
    for (int j = 0; j < V; ++j) acc[q][j] = 0.0f;

  const int pix_step = p.sx * p.pitch;  // between consecutive output pixels
  if constexpr (CG > 0) {
    // The thread's V outputs read IN contiguous input channels from `ibase`: its
    // V / CG groups' inputs (CG <= V) or its one group's CG inputs (CG > V).
    constexpr int IN = V >= CG ? V : CG;
    const int ibase = kb / CG * CG - cin0;
    const T* tile = in_s + (row * p.sy * p.cols + col0 * p.sx) * p.pitch + ibase;
    for (int y = 0; y < fy; ++y)
      for (int x = 0; x < fx; ++x) {
        const T* src = tile + (y * p.dy * p.cols + x * p.dx) * p.pitch;
        const float* wp = w_s + (y * fx + x) * CG * CB + lane * V;
#pragma unroll
        for (int chunk = 0; chunk < IN / 8; ++chunk) {
          float xf[PPT][8];
#pragma unroll
          for (int q = 0; q < PPT; ++q) {
            elements<T, 8> xin;
            xin.r = *reinterpret_cast<const typename elements<T, 8>::raw*>(src + q * pix_step + chunk * 8);
#pragma unroll
            for (int e = 0; e < 8; ++e) xf[q][e] = to_float(xin.e[e]);
          }
#pragma unroll
          for (int e = 0; e < 8; ++e) {
            const int cin = chunk * 8 + e;
            // Input channel cin feeds outputs [j0, j0 + nj) of the vector as their channel c.
            constexpr int nj = V >= CG ? CG : V;
            const int j0 = V >= CG ? cin / CG * CG : 0;
            const int c = V >= CG ? cin % CG : cin;
            float wv[nj];
            load_taps<nj>(wv, wp + c * CB + j0);
#pragma unroll
            for (int q = 0; q < PPT; ++q)
#pragma unroll
              for (int j = 0; j < nj; ++j) acc[q][j0 + j] = fmaf(xf[q][e], wv[j], acc[q][j0 + j]);
          }
        }
      }
  } else {
    // Few channels per group: output channel kb + j reads the C/G input channels
    // of its group, at base[j] in the staged tile.
    int base[V];
#pragma unroll
    for (int j = 0; j < V; ++j) base[j] = min(kb + j, p.k - 1) / p.kg * p.cg - cin0;
    const bool one_group = p.kg % V == 0;  // the vector lies in one group (kb is a multiple of V)
    const T* tile = in_s + (row * p.sy * p.cols + col0 * p.sx) * p.pitch;
    for (int y = 0; y < fy; ++y)
      for (int x = 0; x < fx; ++x) {
        const T* src = tile + (y * p.dy * p.cols + x * p.dx) * p.pitch;
        const float* wp = w_s + (y * fx + x) * cg * CB + lane * V;
        for (int c = 0; c < cg; ++c) {
          float wv[V];
          load_taps<V>(wv, wp + c * CB);
          if (one_group) {
#pragma unroll
            for (int q = 0; q < PPT; ++q) {
              const float xin = to_float(src[q * pix_step + base[0] + c]);
#pragma unroll
              for (int j = 0; j < V; ++j) acc[q][j] = fmaf(xin, wv[j], acc[q][j]);
            }
          } else {
#pragma unroll
            for (int q = 0; q < PPT; ++q)
#pragma unroll
              for (int j = 0; j < V; ++j)
                acc[q][j] = fmaf(to_float(src[q * pix_step + base[j] + c]), wv[j], acc[q][j]);
          }
        }
      }
  }

  T* out = static_cast<T*>(p.out) + img * p.out_n + oy * p.out_h + kb;
#pragma unroll
  for (int q = 0; q < PPT; ++q) {
    const int ox = ox0 + col0 + q;
    if (ox < p.wo) {
      vec o;
#pragma unroll
      for (int j = 0; j < V; ++j) o.e[j] = from_float<T>(acc[q][j]);
      *reinterpret_cast<typename vec::raw*>(out + ox * p.out_w) = o.r;
    }
  }
}

// Depthwise (C/G = K/G = 1): no input staging. Each thread computes PPT consecutive
// output pixels of one row for V consecutive channels and reads its inputs straight
// from global memory with 16-byte (V-element) loads along the channels: the halo its
// neighbours also read is served by L1, the data leaves DRAM once. Along W the window
// slides: for a compile-time filter width FX and stride SX (dilation 1) each of the
// (PPT-1)*SX + FX input columns of a filter row is loaded and converted once and feeds
// every (pixel, tap) pair it belongs to; SX = 0 is the general path (any stride and
// dilation). The block's taps go to shared memory as fp32 once ([tap][channel]), read
// back as 16-byte vectors, one filter row at a time.
template <class T, int TH, int TW, int CB, int THREADS, int PPT, int V, int FY, int FX, int SX>
__global__ void __launch_bounds__(THREADS) direct_dw_fwd_kernel(const __grid_constant__ direct_fwd_params p) {
  constexpr int lanes = CB / V;
  using vec = elements<T, V>;
  extern __shared__ __align__(16) unsigned char smem[];
  float* w_s = reinterpret_cast<float*>(smem);

  const int tid = int(threadIdx.x);
  const int fy = FY > 0 ? FY : p.fy, fx = FX > 0 ? FX : p.fx;
  // Channel blocks fastest: the blocks of one pixel tile run together and use whole lines.
  const int tile = int(blockIdx.x) / p.kblocks, kblock = int(blockIdx.x) - tile * p.kblocks;
  const int oy0 = tile / p.tiles_w * TH, ox0 = tile % p.tiles_w * TW;
  const int k0 = kblock * CB;
  const long long img = blockIdx.z;

  // The taps of the block's channels, fp32: w_s[tap * CB + channel] (consecutive threads
  // read consecutive taps of one channel: coalesced for packed GKYXC weights).
  const int taps = fy * fx;
  const T* wei = static_cast<const T*>(p.wei);
  for (int i = tid; i < taps * CB; i += THREADS) {
    const int kl = i / taps, tap = i - kl * taps;
    const int kk = k0 + kl;
    const int ty = tap / fx, tx = tap - ty * fx;
    w_s[tap * CB + kl] = kk < p.k ? to_float(wei[kk * p.wei_g + ty * p.wei_y + tx * p.wei_x]) : 0.0f;
  }
  __syncthreads();

  const int lane = tid % lanes, worker = tid / lanes;
  const int q0 = worker * PPT;
  const int oy = oy0 + q0 / TW, ox = ox0 + q0 % TW;
  const int kb = k0 + lane * V;
  if (kb >= p.k || oy >= p.ho || ox >= p.wo) return;

  const T* in = static_cast<const T*>(p.in) + img * p.in_n + kb;
  const int iy0 = oy * p.sy - p.py, ix0 = ox * p.sx - p.px;
  float acc[PPT][V];
#pragma unroll
  for (int q = 0; q < PPT; ++q)
#pragma unroll
    for (int j = 0; j < V; ++j) acc[q][j] = 0.0f;

  // Rows outside the image load zeros like columns outside it (no branch: see load_or_zero).
  auto load = [&](int iy, int ix, float (&xf)[V]) {
    const bool inside = iy >= 0 && iy < p.h && ix >= 0 && ix < p.w;
    load_or_zero<T, V>(in + iy * p.in_h + ix * p.in_w, inside, in, xf);
  };

  if constexpr (SX > 0) {
    // Dilation 1 along W, stride SX: a sliding window over `cols` input columns.
    constexpr int cols = (PPT - 1) * SX + FX;
    // Every row's loads in flight together where the registers hold them (cols x rows
    // vectors); wider windows of tall filters unroll by two rows (one row prefetched).
    constexpr int rows_unrolled = (FY > 0 ? FY : 1) * cols <= 40 ? (FY > 0 ? FY : 1) : 2;
#pragma unroll rows_unrolled
    for (int ky = 0; ky < (FY > 0 ? FY : 1); ++ky) {
      for (int ky_rt = 0; ky_rt < (FY > 0 ? 1 : fy); ++ky_rt) {
        const int y = FY > 0 ? ky : ky_rt;
        const int iy = iy0 + y * p.dy;
        float wv[FX][V];
#pragma unroll
        for (int x = 0; x < FX; ++x) load_taps<V>(wv[x], w_s + (y * FX + x) * CB + lane * V);
#pragma unroll
        for (int c = 0; c < cols; ++c) {
          float xf[V];
          load(iy, ix0 + c, xf);
#pragma unroll
          for (int q = 0; q < PPT; ++q) {
            const int x = c - q * SX;
            if (x >= 0 && x < FX)
#pragma unroll
              for (int j = 0; j < V; ++j) acc[q][j] = fmaf(xf[j], wv[x][j], acc[q][j]);
          }
        }
      }
    }
  } else {
    for (int y = 0; y < fy; ++y) {
      const int iy = iy0 + y * p.dy;
#pragma unroll
      for (int kx = 0; kx < (FX > 0 ? FX : 1); ++kx) {
        for (int kx_rt = 0; kx_rt < (FX > 0 ? 1 : fx); ++kx_rt) {
          const int x = FX > 0 ? kx : kx_rt;
          float wv[V];
          load_taps<V>(wv, w_s + (y * fx + x) * CB + lane * V);
#pragma unroll
          for (int q = 0; q < PPT; ++q) {
            float xf[V];
            load(iy, ix0 + q * p.sx + x * p.dx, xf);
#pragma unroll
            for (int j = 0; j < V; ++j) acc[q][j] = fmaf(xf[j], wv[j], acc[q][j]);
          }
        }
      }
    }
  }

  T* out = static_cast<T*>(p.out) + img * p.out_n + oy * p.out_h + kb;
#pragma unroll
  for (int q = 0; q < PPT; ++q) {
    if (ox + q < p.wo) {
      vec o;
#pragma unroll
      for (int j = 0; j < V; ++j) o.e[j] = from_float<T>(acc[q][j]);
      *reinterpret_cast<typename vec::raw*>(out + (ox + q) * p.out_w) = o.r;
    }
  }
}

template <grouped_conv_key K>
struct conv_direct_fwd {
  static_assert(K.sig.dir == conv_direction::fwd);
  static_assert(direct_unsupported_reason(K) == nullptr,
                "key not supported by the direct convolution: see direct::direct_unsupported_reason(K)");
  using T = storage_t<K.sig.in>;
  static constexpr int TH = K.algo.tile.m, TW = K.algo.tile.n, CB = K.algo.tile.k;
  static constexpr int threads = K.algo.warps.m * 32, PPT = K.algo.warp_tile.m, V = K.algo.vector_out;

  static std::size_t workspace_bytes(const grouped_conv_problem&) { return 0; }

  // C/G = K/G = 1 (depthwise, or a single channel): the vectorized depthwise path.
  static bool one_channel_per_group(const grouped_conv_problem& p) {
    return p.c_per_group() == 1 && p.k_per_group() == 1;
  }

  // The channels the block of output channels [k0, k0 + CB) stages, at most (exact: every block visited).
  static std::int64_t staged_channels(const grouped_conv_problem& p) {
    if (one_channel_per_group(p)) return CB;
    std::int64_t most = 0;
    const std::int64_t cg = p.c_per_group(), kg = p.k_per_group();
    for (std::int64_t k0 = 0; k0 < p.k; k0 += CB) {
      const std::int64_t end = std::min<std::int64_t>(k0 + CB, p.k);
      most = std::max(most, (end - 1) / kg * cg + cg - k0 / kg * cg);
    }
    return most;
  }
  static long smem_bytes(const grouped_conv_problem& p) {
    // Depthwise: the taps alone (fp32), the input is read from global memory.
    if (one_channel_per_group(p)) return long(p.filter_dims[1] * p.filter_dims[2]) * CB * 4;
    return dsl::conv_rules::direct_smem_bytes(K, p.filter_dims[1], p.filter_dims[2], p.stride_dims[1],
                                              p.stride_dims[2], p.dilation_dims[1], p.dilation_dims[2],
                                              staged_channels(p), one_channel_per_group(p) ? 1 : p.c_per_group());
  }

  static std::optional<std::string> why_not(const grouped_conv_problem& p, const grouped_conv_args& a) {
    const auto& s = K.sig;
    if (!p.has_signature(s))
      return std::string("problem signature differs from the kernel's");
    if (p != p.normalized()) return std::string("problem is not normalized");
    if (!a.in || !a.wei || !a.out) return std::string("a tensor pointer (in, wei or out) is null");
    const std::int64_t cg = p.c_per_group(), kg = p.k_per_group();
    if (!one_channel_per_group(p) && cg > 64)
      return "direct_conv computes depthwise layers and layers with at most 64 input channels per group (C/G = " +
             std::to_string(cg) + "): an implicit GEMM suits this one";
    constexpr std::int64_t int_max = std::numeric_limits<int>::max();
    if (p.span(conv_tensor::input) > int_max || p.span(conv_tensor::output) > int_max ||
        p.span(conv_tensor::weight) > int_max)
      return std::string("direct_conv indexes with 32 bits: every tensor must span fewer than 2^31 elements");
    if (p.n > 65535) return std::string("direct_conv: N must be at most 65535 (grid z)");
    const auto out_dims = p.output_dims();
    if ((out_dims[1] + TH - 1) / TH * ((out_dims[2] + TW - 1) / TW) * ((p.k + CB - 1) / CB) > int_max)
      return std::string("direct_conv: output tiles x channel blocks must be fewer than 2^31 (grid x)");
    if (p.in_strides.g != cg || p.out_strides.g != kg)
      return std::string("direct_conv reads channels packed across groups (group stride = channels per group)");
    if (p.c % V != 0 || p.k % V != 0)
      return "direct_conv: C = " + std::to_string(p.c) + " and K = " + std::to_string(p.k) +
             " must be multiples of the kernel's channel vector of " + std::to_string(V) + " elements";
    if (!one_channel_per_group(p))
      for (std::int64_t k0 = 0; k0 < p.k; k0 += CB)
        if (k0 / kg * cg % V != 0)
          return "direct_conv: a block's first input channel (" + std::to_string(k0 / kg * cg) +
                 ") is not a multiple of the channel vector of " + std::to_string(V) + " elements";
    const auto& si = p.in_strides;
    const auto& so = p.out_strides;
    for (std::int64_t stride : {si.n, si.spatial[1], si.spatial[2], so.n, so.spatial[1], so.spatial[2]})
      if (stride % V != 0)
        return "direct_conv: image and pixel strides must be multiples of the channel vector of " +
               std::to_string(V) + " elements";
    auto misaligned = [](const void* ptr, int bytes) { return reinterpret_cast<std::uintptr_t>(ptr) % bytes != 0; };
    if (misaligned(a.in, V * int(sizeof(T))) || misaligned(a.out, V * int(sizeof(T))) ||
        misaligned(a.wei, int(sizeof(T))))
      return "direct_conv: in and out must be aligned to " + std::to_string(V * sizeof(T)) + " bytes";
    const long need = smem_bytes(p);
    const int capacity = arch::spec_of(K.algo.arch).direct_conv.smem_capacity;
    if (need > capacity)
      return "direct_conv: the input tile + halo and taps need " + std::to_string(need) +
             " bytes of shared memory for this filter, stride and dilation; " + std::string(to_string(K.algo.arch)) +
             " has " + std::to_string(capacity);
    return std::nullopt;
  }

  template <int FY, int FX, int CG = 0>
  static cudaError_t launch(const direct_fwd_params& kp, dim3 grid, int smem, cudaStream_t stream, int device) {
    auto kernel = direct_fwd_kernel<T, TH, TW, CB, threads, PPT, V, FY, FX, CG>;
    if (smem > 48 * 1024) {
      const cudaError_t err = allow_dynamic_smem(kernel, smem, device);
      if (err != cudaSuccess) return err;
    }
    kernel<<<grid, threads, smem, stream>>>(kp);
    return cudaGetLastError();
  }
  template <int FY, int FX, int SX>
  static cudaError_t launch_dw(const direct_fwd_params& kp, dim3 grid, int smem, cudaStream_t stream, int device) {
    auto kernel = direct_dw_fwd_kernel<T, TH, TW, CB, threads, PPT, V, FY, FX, SX>;
    if (smem > 48 * 1024) {
      const cudaError_t err = allow_dynamic_smem(kernel, smem, device);
      if (err != cudaSuccess) return err;
    }
    kernel<<<grid, threads, smem, stream>>>(kp);
    return cudaGetLastError();
  }
  template <int F>
  static cudaError_t dispatch_dw_stride(const grouped_conv_problem& p, const direct_fwd_params& kp, dim3 grid,
                                        int smem, cudaStream_t stream, int device) {
    if (p.dilation_dims[2] == 1 && p.stride_dims[2] == 1) return launch_dw<F, F, 1>(kp, grid, smem, stream, device);
    if (p.dilation_dims[2] == 1 && p.stride_dims[2] == 2) return launch_dw<F, F, 2>(kp, grid, smem, stream, device);
    return launch_dw<F, F, 0>(kp, grid, smem, stream, device);
  }
  static cudaError_t dispatch_dw(const grouped_conv_problem& p, const direct_fwd_params& kp, dim3 grid, int smem,
                                 cudaStream_t stream, int device) {
    const auto fy = p.filter_dims[1], fx = p.filter_dims[2];
    if (fy == 3 && fx == 3) return dispatch_dw_stride<3>(p, kp, grid, smem, stream, device);
    if (fy == 5 && fx == 5) return dispatch_dw_stride<5>(p, kp, grid, smem, stream, device);
    if (fy == 7 && fx == 7) return dispatch_dw_stride<7>(p, kp, grid, smem, stream, device);
    return launch_dw<0, 0, 0>(kp, grid, smem, stream, device);
  }
  static cudaError_t dispatch_filter(const grouped_conv_problem& p, const direct_fwd_params& kp, dim3 grid, int smem,
                                     cudaStream_t stream, int device) {
    if constexpr (V == 8) {  // C/G = K/G = 4, 8, 16, 32: the compile-time group path (any filter)
      if (p.c_per_group() == p.k_per_group()) switch (p.c_per_group()) {
          case 4: return launch<0, 0, 4>(kp, grid, smem, stream, device);
          case 8: return launch<0, 0, 8>(kp, grid, smem, stream, device);
          case 16: return launch<0, 0, 16>(kp, grid, smem, stream, device);
          case 32: return launch<0, 0, 32>(kp, grid, smem, stream, device);
          default: break;
        }
    }
    const auto fy = p.filter_dims[1], fx = p.filter_dims[2];
    if (fy == 3 && fx == 3) return launch<3, 3>(kp, grid, smem, stream, device);
    if (fy == 5 && fx == 5) return launch<5, 5>(kp, grid, smem, stream, device);
    if (fy == 7 && fx == 7) return launch<7, 7>(kp, grid, smem, stream, device);
    return launch<0, 0>(kp, grid, smem, stream, device);
  }

  static status run(const grouped_conv_problem& p, const grouped_conv_args& a, void* stream) {
    if (auto why = why_not(p, a)) return status::error(*why);
    const device_info dev = current_device_info();  // once a launch: each ask is a runtime call
    if (dev.ordinal < 0) return status::error("no CUDA device");
    const int smem_optin = dev.max_smem_optin;
    const long smem = smem_bytes(p);
    if (smem > smem_optin)
      return status::error("direct_conv needs " + std::to_string(smem) + " bytes of shared memory, the device allows " +
                           std::to_string(smem_optin));
    const auto out = p.output_dims();
    if (p.n == 0 || p.k == 0 || out[1] == 0 || out[2] == 0) return status::ok();

    direct_fwd_params kp{};
    kp.in = a.in;
    kp.wei = a.wei;
    kp.out = a.out;
    kp.h = int(p.input_dims[1]);
    kp.w = int(p.input_dims[2]);
    kp.c = int(p.c);
    kp.k = int(p.k);
    kp.cg = int(p.c_per_group());
    kp.kg = int(p.k_per_group());
    kp.ho = int(out[1]);
    kp.wo = int(out[2]);
    kp.fy = int(p.filter_dims[1]);
    kp.fx = int(p.filter_dims[2]);
    kp.sy = int(p.stride_dims[1]);
    kp.sx = int(p.stride_dims[2]);
    kp.dy = int(p.dilation_dims[1]);
    kp.dx = int(p.dilation_dims[2]);
    kp.py = int(p.pad_left_dims[1]);
    kp.px = int(p.pad_left_dims[2]);
    kp.in_n = p.in_strides.n;
    kp.in_h = p.in_strides.spatial[1];
    kp.in_w = p.in_strides.spatial[2];
    kp.out_n = p.out_strides.n;
    kp.out_h = p.out_strides.spatial[1];
    kp.out_w = p.out_strides.spatial[2];
    kp.wei_k = p.wei_strides.n;
    kp.wei_g = p.wei_strides.g;
    kp.wei_y = p.wei_strides.spatial[1];
    kp.wei_x = p.wei_strides.spatial[2];
    kp.tiles_w = int((out[2] + TW - 1) / TW);
    kp.rows = int((TH - 1) * p.stride_dims[1] + (p.filter_dims[1] - 1) * p.dilation_dims[1] + 1);
    kp.cols = int((TW - 1) * p.stride_dims[2] + (p.filter_dims[2] - 1) * p.dilation_dims[2] + 1);
    kp.pitch = int((staged_channels(p) + V - 1) / V * V);
    kp.in_bytes = int((std::int64_t(kp.rows) * kp.cols * kp.pitch * std::int64_t(sizeof(T)) + 15) / 16 * 16);

    kp.kblocks = int((p.k + CB - 1) / CB);
    const dim3 grid(unsigned(((out[1] + TH - 1) / TH) * kp.tiles_w * kp.kblocks), 1u, unsigned(p.n));
    const auto s = static_cast<cudaStream_t>(stream);
    const cudaError_t err = one_channel_per_group(p) ? dispatch_dw(p, kp, grid, int(smem), s, dev.ordinal)
                                                     : dispatch_filter(p, kp, grid, int(smem), s, dev.ordinal);
    if (err != cudaSuccess) return status::error(std::string("direct_conv launch: ") + cudaGetErrorString(err));
    return status::ok();
  }
};

}  // namespace kdecl::kernels::cuda::direct
