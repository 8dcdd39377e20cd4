// The direct backward-data convolution (pipeline direct_conv, direction bwd_data),
// 1-D or 2-D, channels-last, 16-bit data, fp32 accumulation.
//
// Depthwise layers (C/G = K/G = 1), any stride: the input gradient directly,
//
//   dx[n, i, c] = sum over the taps f with i + pad - f*dilation = o*stride, 0 <= o < output size,
//                 of dy[n, o, c] * w[c, f]
//
// One block computes tile.m x tile.n input-gradient pixels of tile.k channels:
// it stages the output-gradient rows and columns those pixels read (at most
// (tile - 1 + (filter - 1) * dilation) / stride + 1 per dimension) in shared
// memory and the taps as fp32; each thread computes one channel vector for
// warp_tile.m consecutive pixels of a row. A tap reaches a pixel only when
// (i + pad - f*dilation) is a multiple of the stride: the other taps are skipped,
// so a stride > 1 multiplies no zero (the stride phases of the pixels a thread
// owns repeat identically across a warp's threads, so the skips do not diverge).
//
// Grouped layers (G > 1) of stride 1 with few channels per group (ResNeXt's 4 to 32): the
// forward convolution of dy with the flipped, transposed weights (kernels/conv/
// bwd_data_as_forward.hpp), run by the direct forward kernel of the same tile
// (direct_fwd.cuh), whose grouped path the implicit GEMMs cannot match at so few channels;
// the flipped copy (cuda/flip_transpose_weights.cuh) lives in the workspace.
//
// Dense layers (G = 1) of at most 8 input channels (stems), any stride: the narrow-channel
// kernel (narrow_bwd_data.cuh: stride phases on tensor cores), whatever the key's tile; dy
// staged in 16-byte copies by keys of 16-byte vectors (which then need K a multiple of 8),
// element by element by the others (its definition is included by instances/conv_direct_bwd_data.cpp
// only: narrow_bwd_data_decl.cuh). Other dense layers stay with the implicit GEMMs (the CUDA-core
// direct kernel was up to 20x slower there: a U-Net stem, measured).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include "kdecl/arch/arch.hpp"
#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/bwd_data_as_forward.hpp"
#include "kdecl/kernels/conv/cuda/direct/direct_config.cuh"
#include "kdecl/kernels/conv/cuda/direct/direct_fwd.cuh"
#include "kdecl/kernels/conv/cuda/direct/narrow_bwd_data_decl.cuh"
#include "kdecl/kernels/conv/narrow_bwd_data_plan.hpp"
#include "kdecl/kernels/conv/cuda/flip_transpose_weights.cuh"
#include "kdecl/kernels/cuda/device_info.cuh"
#include "kdecl/kernels/cuda/device_types.cuh"
#include "kdecl/kernels/cuda/dynamic_smem.cuh"
#include "kdecl/kernels/cuda/stream_scratch.cuh"

namespace kdecl::kernels::cuda::direct {

__device__ __forceinline__ int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// p: h, w = the input-gradient size (computed); ho, wo = the output-gradient size (read);
// in_* = dx strides, out_* = dy strides; rows, cols, pitch = the staged dy tile.
template <class T, int TH, int TW, int CB, int THREADS, int PPT, int V, int FY, int FX>
__global__ void __launch_bounds__(THREADS) direct_bwd_data_kernel(const __grid_constant__ direct_fwd_params p) {
  constexpr int lanes = CB / V;
  using vec = elements<T, V>;
  extern __shared__ __align__(16) unsigned char smem[];
  T* dy_s = reinterpret_cast<T*>(smem);
  float* w_s = reinterpret_cast<float*>(smem + p.in_bytes);

  const int tid = int(threadIdx.x);
  const int fy = FY > 0 ? FY : p.fy, fx = FX > 0 ? FX : p.fx;
  const int iy0 = int(blockIdx.x) / p.tiles_w * TH, ix0 = int(blockIdx.x) % p.tiles_w * TW;
  const int k0 = int(blockIdx.y) * CB;
  const long long img = blockIdx.z;
  const int k_end = min(k0 + CB, p.k);
  const int vecs = (k_end - k0 + V - 1) / V;

  // 1. the output-gradient rows and columns the tile reads.
  const int oy_lo = floor_div(iy0 + p.py - (fy - 1) * p.dy + p.sy - 1, p.sy);
  const int ox_lo = floor_div(ix0 + p.px - (fx - 1) * p.dx + p.sx - 1, p.sx);
  const T* dy = static_cast<const T*>(p.in) + img * p.out_n + k0;  // p.in carries dy (read)
  const int staged = p.rows * p.cols * vecs;
  stage_vectors<T, V, THREADS>(staged, tid, [&](int i, T*& dst, const T*& src) {
    const int v = i % vecs, pix = i / vecs;
    const int col = pix % p.cols, row = pix / p.cols;
    const int oy = oy_lo + row, ox = ox_lo + col;
    dst = dy_s + (row * p.cols + col) * p.pitch + v * V;
    const bool inside = oy >= 0 && oy < p.ho && ox >= 0 && ox < p.wo;
    src = inside ? dy + oy * p.out_h + ox * p.out_w + v * V : dy;
    return inside;
  });
  const int taps = fy * fx;
  const T* wei = static_cast<const T*>(p.wei);
  for (int i = tid; i < taps * CB; i += THREADS) {
    const int kl = i % CB, tap = i / CB;
    const int kk = k0 + kl;
    w_s[i] = kk < p.k ? to_float(wei[kk * p.wei_g + (tap / fx) * p.wei_y + (tap % fx) * p.wei_x]) : 0.0f;
  }
  staged_vectors_landed<T, V>();
  __syncthreads();

  const int lane = tid % lanes, worker = tid / lanes;
  const int q0 = worker * PPT;
  const int row = q0 / TW, col0 = q0 % TW;
  const int kb = k0 + lane * V;
  const int iy = iy0 + row;
  if (kb >= p.k || iy >= p.h || ix0 + col0 >= p.w) return;

  float acc[PPT][V];
#pragma unroll
  for (int q = 0; q < PPT; ++q)
#pragma unroll
    for (int j = 0; j < V; ++j) acc[q][j] = 0.0f;

#pragma unroll
  for (int ky = 0; ky < (FY > 0 ? FY : 1); ++ky)
    for (int ky_rt = 0; ky_rt < (FY > 0 ? 1 : fy); ++ky_rt) {
      const int y = FY > 0 ? ky : ky_rt;
      const int ty = iy + p.py - y * p.dy;
      if (ty < 0 || ty % p.sy != 0) continue;
      const int oy = ty / p.sy;
      if (oy >= p.ho) continue;
      const T* src_row = dy_s + (oy - oy_lo) * p.cols * p.pitch + lane * V;
#pragma unroll
      for (int kx = 0; kx < (FX > 0 ? FX : 1); ++kx)
        for (int kx_rt = 0; kx_rt < (FX > 0 ? 1 : fx); ++kx_rt) {
          const int x = FX > 0 ? kx : kx_rt;
          float wv[V];
          load_taps<V>(wv, w_s + (y * fx + x) * CB + lane * V);
#pragma unroll
          for (int q = 0; q < PPT; ++q) {
            const int tx = ix0 + col0 + q + p.px - x * p.dx;
            if (tx < 0 || tx % p.sx != 0) continue;
            const int ox = tx / p.sx;
            if (ox >= p.wo) continue;
            vec xin;
            xin.r = *reinterpret_cast<const typename vec::raw*>(src_row + (ox - ox_lo) * p.pitch);
#pragma unroll
            for (int j = 0; j < V; ++j) acc[q][j] = fmaf(to_float(xin.e[j]), wv[j], acc[q][j]);
          }
        }
    }

  T* dx = static_cast<T*>(p.out) + img * p.in_n + iy * p.in_h + kb;  // p.out carries dx (written)
#pragma unroll
  for (int q = 0; q < PPT; ++q) {
    const int ix = ix0 + col0 + q;
    if (ix < p.w) {
      vec o;
#pragma unroll
      for (int j = 0; j < V; ++j) o.e[j] = from_float<T>(acc[q][j]);
      *reinterpret_cast<typename vec::raw*>(dx + ix * p.in_w) = o.r;
    }
  }
}

template <grouped_conv_key K>
struct conv_direct_bwd_data {
  static_assert(K.sig.dir == conv_direction::bwd_data);
  static_assert(direct_unsupported_reason(K) == nullptr,
                "key not supported by the direct convolution: see direct::direct_unsupported_reason(K)");
  using T = storage_t<K.sig.in>;
  static constexpr int TH = K.algo.tile.m, TW = K.algo.tile.n, CB = K.algo.tile.k;
  static constexpr int threads = K.algo.warps.m * 32, PPT = K.algo.warp_tile.m, V = K.algo.vector_out;

  // The forward key of the same tile whose kernel runs the stride-1 grouped layers: dy is its
  // input, dx its output (their vectors exchanged), the flipped weights its weights.
  static constexpr grouped_conv_key forward_key = [] {
    grouped_conv_key f = K;
    f.sig.dir = conv_direction::fwd;
    f.sig.in = K.sig.out;
    f.sig.out = K.sig.in;
    f.algo.vector_in = K.algo.vector_out;
    f.algo.vector_out = K.algo.vector_in;
    return f;
  }();
  static constexpr bool has_forward = direct_unsupported_reason(forward_key) == nullptr;
  static constexpr std::size_t align = 128;

  static bool depthwise(const grouped_conv_problem& p) { return p.c_per_group() == 1 && p.k_per_group() == 1; }
  // A grouped layer of stride 1 that is not depthwise: the forward kernel's (if the tile has one).
  static bool runs_as_forward(const grouped_conv_problem& p) {
    return has_forward && !depthwise(p) && p.g > 1 && !bwd_data_as_forward_reason(p);
  }

  // Depthwise layers need none; grouped ones the flipped weights (and the slack to align them).
  static std::size_t workspace_bytes(const grouped_conv_problem& p) {
    if (!runs_as_forward(p)) return 0;
    return align + std::size_t(p.elements(conv_tensor::weight)) * sizeof(T);
  }

  static int staged_extent(int tile, std::int64_t filter, std::int64_t stride, std::int64_t dilation) {
    return int((tile - 1 + (filter - 1) * dilation) / stride + 1);
  }
  static long smem_bytes(const grouped_conv_problem& p) {
    const long rows = staged_extent(TH, p.filter_dims[1], p.stride_dims[1], p.dilation_dims[1]);
    const long cols = staged_extent(TW, p.filter_dims[2], p.stride_dims[2], p.dilation_dims[2]);
    const long bytes = (rows * cols * CB * long(sizeof(T)) + 15) / 16 * 16;
    return bytes + p.filter_dims[1] * p.filter_dims[2] * CB * 4;
  }

  // A dense layer of few input channels: the narrow-channel kernel's.
  static bool narrow(const grouped_conv_problem& p) { return narrow_bwd_data_plan::applies(p); }

  static std::optional<std::string> why_not(const grouped_conv_problem& p, const grouped_conv_args& a) {
    if (depthwise(p) || p.dir != K.sig.dir) return depthwise_reason(p, a);
    if (narrow(p)) return narrow_reason(p, a);
    if (!runs_as_forward(p)) return forward_refusal(p);
    if (p != p.normalized()) return std::string("problem is not normalized");
    if (!a.in || !a.wei || !a.out) return std::string("a tensor pointer (in, wei or out) is null");
    return forward_type::why_not(forward_equivalent_of_bwd_data(p), forward_args(a, stand_in()));
  }

  static status run(const grouped_conv_problem& p, const grouped_conv_args& a, void* stream) {
    if (depthwise(p)) return run_depthwise(p, a, stream);
    if (auto why = why_not(p, a)) return status::error(*why);
    if (narrow(p)) return narrow_bwd_data<T>::run(p, a, vector16, stream);
    if constexpr (has_forward) {
      const grouped_conv_problem f = forward_equivalent_of_bwd_data(p);
      const auto st = static_cast<cudaStream_t>(stream);
      const stream_scratch scratch(a.workspace, a.workspace_bytes, workspace_bytes(p) - align, align, st,
                                   "direct_conv bwd_data: the flipped weights");
      if (!scratch) return scratch.error();
      flipped_weights_batch flips;
      flips.map[0] = flipped_weights_map_of(p, f);
      flips.offset[0] = 0;
      flips.count = 1;
      if (status s = flip_transpose_weights<T>(flips, a.wei, scratch.get(), st); !s) return s;
      return forward_type::run(f, forward_args(a, scratch.get()), stream);
    }
    return status::error("direct_conv bwd_data: no forward kernel for this key");
  }

 private:
  // The forward kernel (a placeholder where the key has none: then runs_as_forward is false and
  // nothing calls it; naming conv_direct_fwd<forward_key> in conditional_t does not instantiate it).
  struct no_forward {
    static std::optional<std::string> why_not(const grouped_conv_problem&, const grouped_conv_args&) {
      return std::string("no direct forward kernel of this tile");
    }
    static status run(const grouped_conv_problem&, const grouped_conv_args&, void*) {
      return status::error("no direct forward kernel of this tile");
    }
  };
  using forward_type = std::conditional_t<has_forward, conv_direct_fwd<forward_key>, no_forward>;

  // Keys of 16-byte vectors stage dy in 16-byte copies on the narrow-channel path.
  static constexpr bool vector16 = V * int(sizeof(T)) == 16;

  static std::optional<std::string> narrow_reason(const grouped_conv_problem& p, const grouped_conv_args& a) {
    if (!p.has_signature(K.sig)) return std::string("problem signature differs from the kernel's");
    if (p != p.normalized()) return std::string("problem is not normalized");
    if (!a.in || !a.wei || !a.out) return std::string("a tensor pointer (in, wei or out) is null");
    auto misaligned = [](const void* ptr, std::size_t bytes) { return reinterpret_cast<std::uintptr_t>(ptr) % bytes != 0; };
    if (misaligned(a.in, sizeof(T)) || misaligned(a.wei, sizeof(T)) || misaligned(a.out, sizeof(T)))
      return "direct_conv: in, wei and out must be aligned to " + std::to_string(sizeof(T)) + " bytes";
    if constexpr (vector16) {
      if (p.k % V != 0)
        return "direct_conv bwd_data (narrow channels): K = " + std::to_string(p.k) +
               " must be a multiple of the kernel's output-gradient vector of " + std::to_string(V) + " elements";
      const auto& so = p.out_strides;
      for (std::int64_t stride : {so.n, so.spatial[1], so.spatial[2]})
        if (stride % V != 0)
          return "direct_conv bwd_data (narrow channels): the output gradient's image and pixel strides must be "
                 "multiples of the vector of " + std::to_string(V) + " elements";
      if (misaligned(a.out, 16)) return std::string("direct_conv bwd_data (narrow channels): out must be 16-byte aligned");
    }
    const long capacity = narrow_bwd_data_plan::dynamic_capacity(arch::spec_of(K.algo.arch).direct_conv.smem_capacity);
    return narrow_bwd_data_plan::why_not(p, capacity);
  }

  static std::string forward_refusal(const grouped_conv_problem& p) {
    return "direct_conv bwd_data computes depthwise layers (C/G = K/G = 1), dense layers of at most " +
           std::to_string(narrow_bwd_data_plan::max_channels) +
           " input channels (1-D and 2-D), and grouped layers (G > 1) of stride 1 only; G = " + std::to_string(p.g) + ", C/G = " + std::to_string(p.c_per_group()) + ", K/G = " +
           std::to_string(p.k_per_group()) + ", stride " + std::to_string(p.stride_dims[1]) + "x" +
           std::to_string(p.stride_dims[2]);
  }
  // The forward problem's operands: dy in, the flipped weights, dx out.
  static grouped_conv_args forward_args(const grouped_conv_args& a, void* flipped) {
    grouped_conv_args f;
    f.in = a.out;
    f.wei = flipped;
    f.out = a.in;
    return f;
  }
  static void* stand_in() { return scratch_stand_in(align); }  // the flipped copy, not yet made

  static std::optional<std::string> depthwise_reason(const grouped_conv_problem& p, const grouped_conv_args& a) {
    const auto& s = K.sig;
    if (!p.has_signature(s))
      return std::string("problem signature differs from the kernel's");
    if (p != p.normalized()) return std::string("problem is not normalized");
    if (!a.in || !a.wei || !a.out) return std::string("a tensor pointer (in, wei or out) is null");
    if (p.c_per_group() != 1 || p.k_per_group() != 1)
      return "direct_conv bwd_data computes depthwise layers (C/G = K/G = 1); C/G = " +
             std::to_string(p.c_per_group()) + ", K/G = " + std::to_string(p.k_per_group());
    constexpr std::int64_t int_max = std::numeric_limits<int>::max();
    if (p.span(conv_tensor::input) > int_max || p.span(conv_tensor::output) > int_max ||
        p.span(conv_tensor::weight) > int_max)
      return std::string("direct_conv indexes with 32 bits: every tensor must span fewer than 2^31 elements");
    if (p.n > 65535) return std::string("direct_conv: N must be at most 65535 (grid z)");
    if ((p.k + CB - 1) / CB > 65535) return std::string("direct_conv: K / tile channels must be at most 65535 (grid y)");
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
    const long need = smem_bytes(p);
    const int capacity = arch::spec_of(K.algo.arch).direct_conv.smem_capacity;
    if (need > capacity)
      return "direct_conv: the output-gradient tile and taps need " + std::to_string(need) +
             " bytes of shared memory for this filter, stride and dilation; " + std::string(to_string(K.algo.arch)) +
             " has " + std::to_string(capacity);
    return std::nullopt;
  }

  template <int FY, int FX>
  static cudaError_t launch(const direct_fwd_params& kp, dim3 grid, int smem, cudaStream_t stream, int device) {
    auto kernel = direct_bwd_data_kernel<T, TH, TW, CB, threads, PPT, V, FY, FX>;
    if (smem > 48 * 1024) {
      const cudaError_t err = allow_dynamic_smem(kernel, smem, device);
      if (err != cudaSuccess) return err;
    }
    kernel<<<grid, threads, smem, stream>>>(kp);
    return cudaGetLastError();
  }

  static status run_depthwise(const grouped_conv_problem& p, const grouped_conv_args& a, void* stream) {
    if (auto why = depthwise_reason(p, a)) return status::error(*why);
    const device_info dev = current_device_info();  // once a launch: each ask is a runtime call
    if (dev.ordinal < 0) return status::error("no CUDA device");
    const int smem_optin = dev.max_smem_optin;
    const long smem = smem_bytes(p);
    if (smem > smem_optin)
      return status::error("direct_conv needs " + std::to_string(smem) + " bytes of shared memory, the device allows " +
                           std::to_string(smem_optin));
    if (p.n == 0 || p.c == 0) return status::ok();
    const auto out = p.output_dims();

    direct_fwd_params kp{};
    kp.in = a.out;   // dy: read
    kp.wei = a.wei;
    kp.out = a.in;   // dx: written
    kp.h = int(p.input_dims[1]);
    kp.w = int(p.input_dims[2]);
    kp.c = int(p.c);
    kp.k = int(p.k);
    kp.cg = 1;
    kp.kg = 1;
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
    kp.wei_g = p.wei_strides.g;
    kp.wei_y = p.wei_strides.spatial[1];
    kp.wei_x = p.wei_strides.spatial[2];
    kp.tiles_w = int((p.input_dims[2] + TW - 1) / TW);
    kp.rows = staged_extent(TH, p.filter_dims[1], p.stride_dims[1], p.dilation_dims[1]);
    kp.cols = staged_extent(TW, p.filter_dims[2], p.stride_dims[2], p.dilation_dims[2]);
    kp.pitch = CB;
    kp.in_bytes = int((std::int64_t(kp.rows) * kp.cols * kp.pitch * std::int64_t(sizeof(T)) + 15) / 16 * 16);

    const dim3 grid(unsigned(((p.input_dims[1] + TH - 1) / TH) * kp.tiles_w), unsigned((p.c + CB - 1) / CB),
                    unsigned(p.n));
    const auto s = static_cast<cudaStream_t>(stream);
    const auto fy = p.filter_dims[1], fx = p.filter_dims[2];
    cudaError_t err;
    if (fy == 3 && fx == 3) err = launch<3, 3>(kp, grid, int(smem), s, dev.ordinal);
    else if (fy == 5 && fx == 5) err = launch<5, 5>(kp, grid, int(smem), s, dev.ordinal);
    else if (fy == 7 && fx == 7) err = launch<7, 7>(kp, grid, int(smem), s, dev.ordinal);
    else err = launch<0, 0>(kp, grid, int(smem), s, dev.ordinal);
    if (err != cudaSuccess) return status::error(std::string("direct_conv bwd_data launch: ") + cudaGetErrorString(err));
    return status::ok();
  }
};

}  // namespace kdecl::kernels::cuda::direct
