// The direct depthwise backward-weight convolution (pipeline direct_conv,
// direction bwd_weight): the filter gradient of a depthwise layer (C/G = K/G = 1),
// 1-D or 2-D, channels-last, 16-bit data, fp32 accumulation, deterministic.
//
//   dw[c, fy, fx] = sum over n, oy, ox of dy[n, oy, ox, c] * x[n, oy*sy - py + fy*dy, ox*sx - px + fx*dx, c]
//
// The sum runs over N x Ho x Wo, the result is tiny (C x taps): the output rows
// N x Ho are cut into `splits` contiguous ranges. One block takes one range, tile.k
// channels and one filter row (all its taps when the filter width is 3, 5 or 7, else
// one tap): its threads walk the range's rows in runs of warp_tile.m output pixels
// (one channel vector each, 16-byte loads along the channels straight from global
// memory), keep the dy vectors of the run in registers and slide over the input
// columns the run reads ((run - 1) x stride + filter width, each loaded once, dilation
// 1), accumulating every tap of the row in fp32 registers. The block then sums its
// threads in a fixed order through shared memory and writes its partial to the
// workspace (fp32, [split][tap][channel]); a second kernel adds the splits in order
// and writes dw. Without a workspace one range covers every row and the first kernel
// writes dw itself. Same inputs, same bits: no atomics anywhere.
//
// Entry point: direct::conv_direct_bwd_weight<K> with the conv_kernel contract (kernels/conv/conv_kernel.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/arch/arch.hpp"
#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/cuda/direct/direct_config.cuh"
#include "kdecl/kernels/conv/cuda/direct/direct_fwd.cuh"
#include "kdecl/kernels/cuda/device_info.cuh"
#include "kdecl/kernels/cuda/device_types.cuh"

namespace kdecl::kernels::cuda::direct {

struct direct_bwd_weight_params {
  const void* x;   // input, read
  const void* dy;  // output gradient, read
  void* dw;        // filter gradient, written (splits == 1)
  float* partial;  // [split][tap][channel] fp32 (splits > 1)
  int h, w, c, ho, wo;
  int fy, fx, sy, sx, dy_, dx, py, px;
  long long x_n, x_h, x_w, dy_n, dy_h, dy_w;
  long long wei_g, wei_y, wei_x;
  int rows;             // N x Ho
  int splits;           // ranges of rows
  int runs;             // runs of PPT pixels per output row
};

// grid: x = filter row (or tap, for a run-time filter width), y = channel block, z = split.
template <class T, int CB, int THREADS, int PPT, int V, int FX, int SX>
__global__ void __launch_bounds__(THREADS) direct_bwd_weight_kernel(const __grid_constant__ direct_bwd_weight_params p) {
  constexpr int lanes = CB / V, workers = THREADS / lanes;
  constexpr int NX = FX > 0 ? FX : 1;  // taps one block accumulates
  using vec = elements<T, V>;
  __shared__ __align__(16) float red[workers][NX][CB];

  const int tid = int(threadIdx.x);
  const int lane = tid % lanes, worker = tid / lanes;
  const int y = FX > 0 ? int(blockIdx.x) : int(blockIdx.x) / p.fx;
  const int x_first = FX > 0 ? 0 : int(blockIdx.x) % p.fx;
  const int k0 = int(blockIdx.y) * CB, kb = k0 + lane * V;
  const int split = int(blockIdx.z);
  const int r0 = int(static_cast<long long>(p.rows) * split / p.splits);
  const int r1 = int(static_cast<long long>(p.rows) * (split + 1) / p.splits);

  float acc[NX][V];
#pragma unroll
  for (int t = 0; t < NX; ++t)
#pragma unroll
    for (int j = 0; j < V; ++j) acc[t][j] = 0.0f;

  const T* xs = static_cast<const T*>(p.x) + kb;
  const T* dys = static_cast<const T*>(p.dy) + kb;
  // Branch-free loads (load_or_zero): a run's loads are issued together.
  auto load = [&](const T* at, bool inside, float (&f)[V]) { load_or_zero<T, V>(at, inside, xs, f); };

  if (worker < workers && kb < p.c) {
    // (row, run) pairs of the range, worker-strided; 32-bit (why_not bounds rows x runs).
    int r = r0 + worker / p.runs, run = worker % p.runs;
    const int dr = workers / p.runs, drun = workers % p.runs;
    for (; r < r1; r += dr, run += drun) {
      if (run >= p.runs) {
        run -= p.runs;
        ++r;
        if (r >= r1) break;
      }
      const int ox0 = run * PPT;
      const int n = r / p.ho, oy = r - n * p.ho;
      const int iy = oy * p.sy - p.py + y * p.dy_;
      if (iy < 0 || iy >= p.h) continue;
      float g[PPT][V];
#pragma unroll
      for (int q = 0; q < PPT; ++q)
        load(dys + n * p.dy_n + oy * p.dy_h + (ox0 + q) * p.dy_w, ox0 + q < p.wo, g[q]);
      const T* xrow = xs + n * p.x_n + iy * p.x_h;
      const int ix0 = ox0 * p.sx - p.px;
      if constexpr (SX > 0) {
        // Dilation 1, stride SX: input column c meets tap c - q*SX of pixel q.
        constexpr int cols = (PPT - 1) * SX + FX;
#pragma unroll
        for (int c = 0; c < cols; ++c) {
          const int ix = ix0 + c;
          float xf[V];
          load(xrow + ix * p.x_w, ix >= 0 && ix < p.w, xf);
#pragma unroll
          for (int q = 0; q < PPT; ++q) {
            const int t = c - q * SX;
            if (t >= 0 && t < FX)
#pragma unroll
              for (int j = 0; j < V; ++j) acc[t][j] = fmaf(xf[j], g[q][j], acc[t][j]);
          }
        }
      } else {
#pragma unroll
        for (int t = 0; t < NX; ++t) {
          const int xt = x_first + t;
#pragma unroll
          for (int q = 0; q < PPT; ++q) {
            const int ix = ix0 + q * p.sx + xt * p.dx;
            float xf[V];
            load(xrow + ix * p.x_w, ix >= 0 && ix < p.w, xf);
#pragma unroll
            for (int j = 0; j < V; ++j) acc[t][j] = fmaf(xf[j], g[q][j], acc[t][j]);
          }
        }
      }
    }
  }

  // The block's sum, in a fixed order: every thread's accumulators to shared memory,
  // then one thread per (tap, channel) adds the workers 0, 1, 2, ... in turn.
  if (worker < workers) {
#pragma unroll
    for (int t = 0; t < NX; ++t)
#pragma unroll
      for (int j = 0; j < V; ++j) red[worker][t][lane * V + j] = acc[t][j];
  }
  __syncthreads();
  const int taps_here = FX > 0 ? p.fx : 1;
  for (int i = tid; i < taps_here * CB; i += THREADS) {
    const int t = i / CB, kl = i - t * CB;
    const int kk = k0 + kl;
    if (kk >= p.c) continue;
    float sum = 0.0f;
    for (int w = 0; w < workers; ++w) sum += red[w][t][kl];
    const int tx = x_first + t;
    if (p.splits == 1) {
      static_cast<T*>(p.dw)[kk * p.wei_g + y * p.wei_y + tx * p.wei_x] = from_float<T>(sum);
    } else {
      const int tap = y * p.fx + tx;
      p.partial[(static_cast<long long>(split) * p.fy * p.fx + tap) * p.c + kk] = sum;
    }
  }
}

// dw[c, tap] = the splits' partials added in order 0, 1, 2, ...
template <class T>
__global__ void direct_bwd_weight_reduce(const __grid_constant__ direct_bwd_weight_params p) {
  const int taps = p.fy * p.fx;
  const long long total = static_cast<long long>(taps) * p.c;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int tap = int(i / p.c), kk = int(i - static_cast<long long>(tap) * p.c);
    float sum = 0.0f;
    for (int s = 0; s < p.splits; ++s) sum += p.partial[(static_cast<long long>(s) * taps + tap) * p.c + kk];
    const int ty = tap / p.fx, tx = tap - ty * p.fx;
    static_cast<T*>(p.dw)[kk * p.wei_g + ty * p.wei_y + tx * p.wei_x] = from_float<T>(sum);
  }
}

template <grouped_conv_key K>
struct conv_direct_bwd_weight {
  static_assert(K.sig.dir == conv_direction::bwd_weight);
  static_assert(direct_unsupported_reason(K) == nullptr,
                "key not supported by the direct convolution: see direct::direct_unsupported_reason(K)");
  using T = storage_t<K.sig.in>;
  static constexpr int CB = K.algo.tile.k;
  static constexpr int threads = K.algo.warps.m * 32, PPT = K.algo.warp_tile.m, V = K.algo.vector_out;

  static bool templated_width(const grouped_conv_problem& p) {
    const auto fx = p.filter_dims[2];
    return fx == 3 || fx == 5 || fx == 7;
  }
  static int multiprocessors() { return std::max(1, current_device_info().sm_count); }
  // Ranges of output rows: about eight blocks per multiprocessor, each range at least 4 rows.
  static int splits(const grouped_conv_problem& p) {
    const std::int64_t rows = p.n * p.output_dim(1);
    const std::int64_t per_range = (templated_width(p) ? p.filter_dims[1] : p.filter_dims[1] * p.filter_dims[2]) *
                                   ((p.c + CB - 1) / CB);
    const std::int64_t wanted = (8 * std::int64_t(multiprocessors()) + per_range - 1) / per_range;
    return int(std::clamp<std::int64_t>(std::min<std::int64_t>(wanted, rows / 4), 1, 65535));
  }
  static std::size_t workspace_bytes(const grouped_conv_problem& p) {
    const int s = splits(p);
    if (s <= 1) return 0;
    return std::size_t(s) * std::size_t(p.filter_dims[1] * p.filter_dims[2]) * std::size_t(p.c) * sizeof(float);
  }

  static std::optional<std::string> why_not(const grouped_conv_problem& p, const grouped_conv_args& a) {
    const auto& s = K.sig;
    if (!p.has_signature(s))
      return std::string("problem signature differs from the kernel's");
    if (p != p.normalized()) return std::string("problem is not normalized");
    if (!a.in || !a.wei || !a.out) return std::string("a tensor pointer (in, wei or out) is null");
    if (p.c_per_group() != 1 || p.k_per_group() != 1)
      return "direct_conv bwd_weight computes depthwise layers (C/G = K/G = 1); C/G = " +
             std::to_string(p.c_per_group()) + ", K/G = " + std::to_string(p.k_per_group());
    constexpr std::int64_t int_max = std::numeric_limits<int>::max();
    if (p.span(conv_tensor::input) > int_max || p.span(conv_tensor::output) > int_max ||
        p.span(conv_tensor::weight) > int_max || p.n * p.output_dim(1) * ((p.output_dim(2) + PPT - 1) / PPT) > int_max)
      return std::string("direct_conv indexes with 32 bits: every tensor must span fewer than 2^31 elements");
    if ((p.c + CB - 1) / CB > 65535) return std::string("direct_conv: C / tile channels must be at most 65535 (grid y)");
    if (p.in_strides.g != 1 || p.out_strides.g != 1)
      return std::string("direct_conv reads channels packed across groups (group stride = channels per group)");
    if (p.c % V != 0)
      return "direct_conv: C = " + std::to_string(p.c) + " must be a multiple of the kernel's channel vector of " +
             std::to_string(V) + " elements";
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
    return std::nullopt;
  }

  template <int FX, int SX>
  static cudaError_t launch(const direct_bwd_weight_params& kp, dim3 grid, cudaStream_t stream) {
    direct_bwd_weight_kernel<T, CB, threads, PPT, V, FX, SX><<<grid, threads, 0, stream>>>(kp);
    return cudaGetLastError();
  }
  template <int F>
  static cudaError_t launch_stride(const grouped_conv_problem& p, const direct_bwd_weight_params& kp, dim3 grid,
                                   cudaStream_t stream) {
    if (p.dilation_dims[2] == 1 && p.stride_dims[2] == 1) return launch<F, 1>(kp, grid, stream);
    if (p.dilation_dims[2] == 1 && p.stride_dims[2] == 2) return launch<F, 2>(kp, grid, stream);
    return launch<F, 0>(kp, grid, stream);
  }

  static status run(const grouped_conv_problem& p, const grouped_conv_args& a, void* stream) {
    if (auto why = why_not(p, a)) return status::error(*why);
    const auto out = p.output_dims();
    const std::size_t wanted = workspace_bytes(p);
    const int s = wanted > 0 && a.workspace != nullptr && a.workspace_bytes >= wanted ? splits(p) : 1;

    direct_bwd_weight_params kp{};
    kp.x = a.in;
    kp.dy = a.out;
    kp.dw = a.wei;
    kp.partial = static_cast<float*>(a.workspace);
    kp.h = int(p.input_dims[1]);
    kp.w = int(p.input_dims[2]);
    kp.c = int(p.c);
    kp.ho = int(out[1]);
    kp.wo = int(out[2]);
    kp.fy = int(p.filter_dims[1]);
    kp.fx = int(p.filter_dims[2]);
    kp.sy = int(p.stride_dims[1]);
    kp.sx = int(p.stride_dims[2]);
    kp.dy_ = int(p.dilation_dims[1]);
    kp.dx = int(p.dilation_dims[2]);
    kp.py = int(p.pad_left_dims[1]);
    kp.px = int(p.pad_left_dims[2]);
    kp.x_n = p.in_strides.n;
    kp.x_h = p.in_strides.spatial[1];
    kp.x_w = p.in_strides.spatial[2];
    kp.dy_n = p.out_strides.n;
    kp.dy_h = p.out_strides.spatial[1];
    kp.dy_w = p.out_strides.spatial[2];
    kp.wei_g = p.wei_strides.g;
    kp.wei_y = p.wei_strides.spatial[1];
    kp.wei_x = p.wei_strides.spatial[2];
    kp.rows = int(p.n * out[1]);
    kp.splits = s;
    kp.runs = int((out[2] + PPT - 1) / PPT);

    const auto st = static_cast<cudaStream_t>(stream);
    if (p.c == 0 || kp.fy == 0 || kp.fx == 0) return status::ok();
    if (kp.rows == 0 || kp.wo == 0) {  // no output pixel: dw = 0
      for (std::int64_t c = 0; c < p.c; ++c)
        for (int y = 0; y < kp.fy; ++y)
          for (int x = 0; x < kp.fx; ++x) {
            const cudaError_t err = cudaMemsetAsync(static_cast<T*>(a.wei) + c * kp.wei_g + y * kp.wei_y + x * kp.wei_x,
                                                    0, sizeof(T), st);
            if (err != cudaSuccess) return status::error(std::string("direct_conv bwd_weight: ") + cudaGetErrorString(err));
          }
      return status::ok();
    }
    const bool templated = templated_width(p);
    const dim3 grid(unsigned(templated ? kp.fy : kp.fy * kp.fx), unsigned((p.c + CB - 1) / CB), unsigned(s));
    cudaError_t err;
    switch (templated ? kp.fx : 0) {
      case 3: err = launch_stride<3>(p, kp, grid, st); break;
      case 5: err = launch_stride<5>(p, kp, grid, st); break;
      case 7: err = launch_stride<7>(p, kp, grid, st); break;
      default: err = launch<0, 0>(kp, grid, st); break;
    }
    if (err == cudaSuccess && s > 1) {
      const long long total = static_cast<long long>(kp.fy) * kp.fx * kp.c;
      direct_bwd_weight_reduce<T><<<unsigned(std::min<long long>((total + 255) / 256, 65535)), 256, 0, st>>>(kp);
      err = cudaGetLastError();
    }
    if (err != cudaSuccess)
      return status::error(std::string("direct_conv bwd_weight launch: ") + cudaGetErrorString(err));
    return status::ok();
  }
};

}  // namespace kdecl::kernels::cuda::direct
