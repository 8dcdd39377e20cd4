// The staged depthwise forward convolution on sm_90 (pipeline direct_conv, stages 2):
// a kernel on CUDA cores for C/G = K/G = 1, 2-D, channels-last, 16-bit data, fp32
// accumulation, filter and stride fixed at compile time, dilation 1.
//
// Why a second depthwise kernel: direct_dw_fwd_kernel (direct_fwd.cuh) reads every
// input vector from global memory for each of the FY output rows that need it and
// relies on L1 for the reuse, so a 3x3 layer issues about 4.5 loads per output and a
// 7x7 one 14; on the H200 it reached 10-57% of the copy bandwidth at batch 32.
// Here a block
//   1. owns one block of CB channels (blockIdx.y) and walks output tiles of
//      TH x TW pixels (tile.m x tile.n) of every image, persistently (blockIdx.x,
//      stride gridDim.x);
//   2. stages each tile's input + halo ((TH-1)S+FY rows x (TW-1)S+FX columns x CB
//      channels) into shared memory with one TMA box load (4-D: channels, columns,
//      rows, images; the padding is TMA's zero fill of coordinates outside the
//      tensor), double-buffered: the next tile's box flies while this one computes.
//      A first version issued 16-byte cp.async copies from every thread: their index
//      arithmetic was a quarter of the instructions of a 3x3 layer, which is
//      issue-bound before it is memory-bound (ncu: 66% issue slots, 20% of DRAM);
//   3. keeps its channels' FY x FX taps in registers (fp32) for the whole walk;
//   4. gives each thread V channels of an R x Q patch of outputs (warp_tile.k x
//      warp_tile.m): it reads each of its (R-1)S+FY input rows once, (Q-1)S+FX
//      vectors of V channels, and feeds every (output row, column, tap) they belong
//      to, so shared memory serves about ((R-1)S+FY)((Q-1)S+FX)/(RQ) loads per output.
// Lanes (CB/V threads) run along the channels of one pixel: a warp's loads and stores
// are whole 128-byte lines for CB = 64, V = 2.
//
// Entry point: direct::conv_dw_staged_fwd<K> with the conv_kernel contract (kernels/conv/
// conv_kernel.hpp) for direct_conv keys with stages 2; their rules are dsl/conv_rules.hpp
// check_direct. Filters 3x3, 5x5 and 7x7 and strides 1x1 and 2x2 are instantiated per key
// (chosen per problem); other depthwise layers go to direct_dw_fwd_kernel.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cuda.h>  // CUtensorMap (a type only)

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/cuda/direct/direct_config.cuh"
#include "kdecl/kernels/conv/cuda/direct/direct_fwd.cuh"
#include "kdecl/kernels/conv/cuda/direct/dw_staged_sm90_decl.cuh"
#include "kdecl/kernels/cuda/device_info.cuh"
#include "kdecl/kernels/cuda/device_types.cuh"
#include "kdecl/kernels/cuda/sm90/mbarrier.cuh"
#include "kdecl/kernels/cuda/sm90/tensor_map.cuh"
#include "kdecl/kernels/cuda/sm90/tma_load_4d.cuh"

namespace kdecl::kernels::cuda::direct {

struct dw_staged_params {
  CUtensorMap input;               // (C, W, H, N), box (CB, IW, IH, 1), no swizzle
  const void* wei;
  void* out;
  int c;                           // channels (= groups)
  int ho, wo;                      // output rows, columns
  int py, px;                      // padding before the first row / column
  long long out_n, out_h, out_w;   // element strides of the output (channels packed)
  long long wei_g, wei_y, wei_x;   // and of the weights (one tap per group and position)
  int tiles_y, tiles_x;            // output tiles per image
  int items;                       // images x tiles_y x tiles_x: the tiles one channel block walks
};

// The compile-time geometry of one instance.
template <class T, int CB_, int V_, int R_, int Q_, int WY_, int WX_, int FY_, int FX_, int S_>
struct dw_staged_shape {
  using type = T;
  static constexpr int CB = CB_, V = V_, R = R_, Q = Q_, WY = WY_, WX = WX_, FY = FY_, FX = FX_, S = S_;
  static constexpr int lanes = CB / V;                   // threads along the channels of one pixel
  static constexpr int threads = lanes * WY * WX;
  static constexpr int TH = WY * R, TW = WX * Q;         // output tile
  static constexpr int IH = (TH - 1) * S + FY;           // staged input rows
  static constexpr int IW = (TW - 1) * S + FX;           // staged input columns
  static constexpr int box_bytes = IH * IW * CB * int(sizeof(T));  // what one load brings
  static constexpr int stage_bytes = (box_bytes + 127) / 128 * 128;  // TMA writes 128-byte aligned boxes
  static constexpr int stage_elements = stage_bytes / int(sizeof(T));
  static constexpr int smem_bytes = 2 * stage_bytes + 16;           // two stages, two mbarriers
  static constexpr int rows_read = (R - 1) * S + FY;     // input rows one thread reads per tile
  static constexpr int cols_read = (Q - 1) * S + FX;     // vectors it reads per input row
  static_assert(CB * sizeof(T) % 16 == 0 && CB % V == 0, "a channel block is whole 16-byte lines and whole vectors");
  static_assert(CB <= 256 && IW <= 256 && IH <= 256, "a TMA box spans at most 256 elements per dimension");
  static_assert(V == 1 || V == 2 || V == 4 || V == 8, "2-, 4-, 8- or 16-byte vectors");
};

// Vectors (elements<T, V>) and element conversions (to_float, from_float) are the unstaged
// direct kernels' (direct_fwd.cuh).

// A vector's elements as fp32. bf16 pairs by bit operations (one instruction per element:
// the high half masked, the low half shifted), where __bfloat162float of each half of a
// 32-bit word costs the high half a byte permute as well; fp16 by conversion.
template <class T, int V>
__device__ __forceinline__ void dw_unpack(const elements<T, V>& v, float (&x)[V]) {
  if constexpr (std::is_same_v<T, __nv_bfloat16> && V % 2 == 0) {
    const unsigned* words = reinterpret_cast<const unsigned*>(&v.r);
#pragma unroll
    for (int j = 0; j < V; j += 2) {
      x[j] = __uint_as_float(words[j / 2] << 16);
      x[j + 1] = __uint_as_float(words[j / 2] & 0xffff0000u);
    }
  } else {
#pragma unroll
    for (int j = 0; j < V; ++j) x[j] = to_float(v.e[j]);
  }
}

template <class Shape>
__global__ void __launch_bounds__(Shape::threads) direct_dw_staged_fwd_kernel(const __grid_constant__ dw_staged_params p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // TMA and mbarriers: sm_90 only; run() never launches it on an older device
#else
  using T = typename Shape::type;
  constexpr int CB = Shape::CB, V = Shape::V, R = Shape::R, Q = Shape::Q, S = Shape::S;
  constexpr int FY = Shape::FY, FX = Shape::FX, TH = Shape::TH, TW = Shape::TW, IW = Shape::IW;
  constexpr int lanes = Shape::lanes;
  using vec = elements<T, V>;
  extern __shared__ __align__(128) unsigned char smem[];
  T* const stages = reinterpret_cast<T*>(smem);
  std::uint64_t* const full = reinterpret_cast<std::uint64_t*>(smem + 2 * Shape::stage_bytes);

  const int tid = int(threadIdx.x);
  const int k0 = int(blockIdx.y) * CB;

  // Tile `item` of the walk: image, tile row, tile column.
  auto locate = [&](int item, int& n, int& ty, int& tx) {
    tx = item % p.tiles_x;
    const int rest = item / p.tiles_x;
    ty = rest % p.tiles_y;
    n = rest / p.tiles_y;
  };
  // One thread loads a tile's input + halo as one box into stage `buffer`.
  auto stage = [&](int item, int buffer) {
    int n, ty, tx;
    locate(item, n, ty, tx);
    sm90::mbarrier_arrive_expect_tx(&full[buffer], Shape::box_bytes);
    sm90::tma_load_4d(stages + buffer * Shape::stage_elements, &p.input, &full[buffer], k0, tx * TW * S - p.px,
                      ty * TH * S - p.py, n);
  };
  if (tid == 0) {
    sm90::mbarrier_init(&full[0], 1);
    sm90::mbarrier_init(&full[1], 1);
    sm90::mbarrier_init_fence();
    // The first tile's box flies while every thread loads its taps (one latency, not two).
    if (int(blockIdx.x) < p.items) stage(int(blockIdx.x), 0);
  }
  __syncthreads();

  const int lane = tid % lanes, worker = tid / lanes;
  const int wx = worker % Shape::WX, wy = worker / Shape::WX;
  const int kc = k0 + lane * V;
  const bool has_channels = kc < p.c;  // C is a multiple of V

  // This thread's taps, fp32, for the whole walk.
  float w[FY][FX][V];
  {
    const T* const wei = static_cast<const T*>(p.wei);
#pragma unroll
    for (int ky = 0; ky < FY; ++ky)
#pragma unroll
      for (int kx = 0; kx < FX; ++kx)
#pragma unroll
        for (int j = 0; j < V; ++j)
          w[ky][kx][j] = has_channels ? to_float(wei[(kc + j) * p.wei_g + ky * p.wei_y + kx * p.wei_x]) : 0.0f;
  }

  // Walk step `step` reads stage step % 2, whose barrier completes its (step / 2)-th phase.
  int step = 0;
  for (int item = int(blockIdx.x); item < p.items; item += int(gridDim.x), ++step) {
    const int buffer = step & 1;
    const int next = item + int(gridDim.x);
    if (tid == 0 && next < p.items) stage(next, buffer ^ 1);
    sm90::mbarrier_wait(&full[buffer], (step >> 1) & 1);

    const T* const patch =
        stages + buffer * Shape::stage_elements + (wy * R * S * IW + wx * Q * S) * CB + lane * V;
    float acc[R][Q][V];
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
      for (int q = 0; q < Q; ++q)
#pragma unroll
        for (int j = 0; j < V; ++j) acc[r][q][j] = 0.0f;

#pragma unroll
    for (int ir = 0; ir < Shape::rows_read; ++ir) {
      float x[Shape::cols_read][V];
#pragma unroll
      for (int c = 0; c < Shape::cols_read; ++c) {
        vec v;
        v.r = *reinterpret_cast<const typename vec::raw*>(patch + (ir * IW + c) * CB);
        dw_unpack<T, V>(v, x[c]);
      }
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const int ky = ir - r * S;
        if (ky >= 0 && ky < FY)
#pragma unroll
          for (int q = 0; q < Q; ++q)
#pragma unroll
            for (int kx = 0; kx < FX; ++kx)
#pragma unroll
              for (int j = 0; j < V; ++j) acc[r][q][j] = fmaf(x[q * S + kx][j], w[ky][kx][j], acc[r][q][j]);
      }
    }

    int n, ty, tx;
    locate(item, n, ty, tx);
    const int oy0 = ty * TH + wy * R, ox0 = tx * TW + wx * Q;
    // One pointer stepped along the patch's rows and columns: no 64-bit product per store.
    T* out_row = static_cast<T*>(p.out) + n * p.out_n + oy0 * p.out_h + ox0 * p.out_w + kc;
    if (has_channels)
#pragma unroll
      for (int r = 0; r < R; ++r, out_row += p.out_h) {
        T* out = out_row;
#pragma unroll
        for (int q = 0; q < Q; ++q, out += p.out_w)
          if (oy0 + r < p.ho && ox0 + q < p.wo) {
            vec o;
#pragma unroll
            for (int j = 0; j < V; ++j) o.e[j] = from_float<T>(acc[r][q][j]);
            *reinterpret_cast<typename vec::raw*>(out) = o.r;
          }
      }
    __syncthreads();  // the stage just read is the one the next step's box fills
  }
#endif
}

template <grouped_conv_key K>
struct conv_dw_staged_fwd {
  static_assert(K.sig.dir == conv_direction::fwd && K.algo.stages == 2);
  static_assert(direct_unsupported_reason(K) == nullptr,
                "key not supported by the direct convolution: see direct::direct_unsupported_reason(K)");
  using T = storage_t<K.sig.in>;
  static constexpr int TH = K.algo.tile.m, TW = K.algo.tile.n, CB = K.algo.tile.k;
  static constexpr int Q = K.algo.warp_tile.m, V = K.algo.vector_out, R = K.algo.warp_tile.k;
  template <int F, int S>
  using shape = dw_staged_shape<T, CB, V, R, Q, TH / R, TW / Q, F, F, S>;

  static std::size_t workspace_bytes(const grouped_conv_problem&) { return 0; }
  static long smem_bytes(const grouped_conv_problem& p) {
    return dsl::conv_rules::direct_smem_bytes(K, p.filter_dims[1], p.filter_dims[2], p.stride_dims[1],
                                              p.stride_dims[2], 1, 1, CB, 1);
  }

  static std::optional<std::string> why_not(const grouped_conv_problem& p, const grouped_conv_args& a) {
    if (!p.has_signature(K.sig)) return std::string("problem signature differs from the kernel's");
    if (p != p.normalized()) return std::string("problem is not normalized");
    if (!a.in || !a.wei || !a.out) return std::string("a tensor pointer (in, wei or out) is null");
    const std::string who = "the staged depthwise kernel (direct_conv stages 2) ";
    if (p.c_per_group() != 1 || p.k_per_group() != 1)
      return who + "computes depthwise layers (C/G = K/G = 1), not C/G = " + std::to_string(p.c_per_group()) +
             ", K/G = " + std::to_string(p.k_per_group());
    const auto fy = p.filter_dims[1], fx = p.filter_dims[2];
    if (fy != fx || (fy != 3 && fy != 5 && fy != 7))
      return who + "is built for 3x3, 5x5 and 7x7 filters, not " + std::to_string(fy) + "x" + std::to_string(fx);
    if (p.stride_dims[1] != p.stride_dims[2] || (p.stride_dims[1] != 1 && p.stride_dims[1] != 2))
      return who + "is built for strides 1x1 and 2x2, not " + std::to_string(p.stride_dims[1]) + "x" +
             std::to_string(p.stride_dims[2]);
    if (p.dilation_dims[1] != 1 || p.dilation_dims[2] != 1) return who + "takes dilation 1 only";
    if (p.c % 8 != 0)
      return who + "loads the input with TMA, whose pixel stride must be a multiple of 16 bytes: C = " +
             std::to_string(p.c) + " is not a multiple of 8";
    const auto& si = p.in_strides;
    const auto& so = p.out_strides;
    if (si.g != 1 || so.g != 1) return who + "reads channels packed across groups (group stride 1)";
    for (std::int64_t stride : {si.n, si.spatial[1], si.spatial[2]})
      if (stride % 8 != 0) return who + "needs input image, row and pixel strides that are multiples of 8 elements (16 bytes, for TMA)";
    for (std::int64_t stride : {so.n, so.spatial[1], so.spatial[2]})
      if (stride % V != 0)
        return who + "needs output strides that are multiples of its channel vector of " + std::to_string(V) + " elements";
    if (reinterpret_cast<std::uintptr_t>(a.in) % 16 != 0) return who + "needs the input aligned to 16 bytes (TMA)";
    if (reinterpret_cast<std::uintptr_t>(a.out) % (V * sizeof(T)) != 0)
      return who + "needs the output aligned to " + std::to_string(V * sizeof(T)) + " bytes";
    const auto out = p.output_dims();
    constexpr std::int64_t int_max = std::numeric_limits<int>::max();
    if (p.n * ((out[1] + TH - 1) / TH) * ((out[2] + TW - 1) / TW) > int_max)
      return who + "walks fewer than 2^31 tiles per channel block";
    if ((p.c + CB - 1) / CB > 65535) return who + "takes at most 65535 channel blocks (grid y)";
    for (auto d : {p.input_dims[1], p.input_dims[2], p.n, p.c})
      if (d > int_max) return who + "needs every input extent below 2^31 (TMA coordinates)";
    const long need = smem_bytes(p);
    const int capacity = arch::spec_of(K.algo.arch).direct_conv.smem_capacity;
    if (need > capacity)
      return who + "needs " + std::to_string(need) + " bytes of shared memory for two input tiles + halo; " +
             std::string(to_string(K.algo.arch)) + " has " + std::to_string(capacity);
    return std::nullopt;
  }

  template <class Shape>
  static cudaError_t launch(dw_staged_params& kp, int channel_blocks, cudaStream_t stream) {
    auto kernel = direct_dw_staged_fwd_kernel<Shape>;
    if (Shape::smem_bytes > 48 * 1024) {
      const cudaError_t err =
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Shape::smem_bytes);
      if (err != cudaSuccess) return err;
    }
    // Persistent blocks: as many as the SMs hold, shared among the channel blocks. The blocks per
    // SM are asked once per instance (a process with GPUs of different kinds only sizes the grid
    // of the others less well: every tile is walked whatever the grid).
    static std::atomic<int> resident{0};
    int per_sm = resident.load(std::memory_order_relaxed);
    if (per_sm == 0) {
      const cudaError_t err =
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, Shape::threads, Shape::smem_bytes);
      if (err != cudaSuccess) return err;
      per_sm = std::max(per_sm, 1);
      resident.store(per_sm, std::memory_order_relaxed);
    }
    const int sms = std::max(current_device_info().sm_count, 1);
    const int blocks_x = std::max(1, std::min(kp.items, (per_sm * sms + channel_blocks - 1) / channel_blocks));
    kernel<<<dim3(unsigned(blocks_x), unsigned(channel_blocks)), Shape::threads, Shape::smem_bytes, stream>>>(kp);
    return cudaGetLastError();
  }
  template <int F>
  static cudaError_t launch_filter(const grouped_conv_problem& p, dw_staged_params& kp, int cb, cudaStream_t s) {
    return p.stride_dims[1] == 1 ? launch<shape<F, 1>>(kp, cb, s) : launch<shape<F, 2>>(kp, cb, s);
  }

  static status run(const grouped_conv_problem& p, const grouped_conv_args& a, void* stream) {
    if (auto why = why_not(p, a)) return status::error(*why);
    if (auto why = device_shortfall("direct_conv stages 2", device_need{9, 0, false, int(smem_bytes(p))}))
      return status::error(*why);
    const auto out = p.output_dims();
    if (p.n == 0 || p.k == 0 || out[1] == 0 || out[2] == 0) return status::ok();
    const auto fy = p.filter_dims[1], stride = p.stride_dims[1];
    const int ih = int((TH - 1) * stride + fy), iw = int((TW - 1) * stride + fy);
    dw_staged_params kp{};
    sm90::tiled_view<4> view{a.in, K.sig.in,
                             {p.c, p.input_dims[2], p.input_dims[1], p.n},
                             {p.in_strides.spatial[2], p.in_strides.spatial[1], p.in_strides.n},
                             {std::uint32_t(CB), std::uint32_t(iw), std::uint32_t(ih), 1u}};
    if (auto why = sm90::encode_tiled(kp.input, view)) return status::error("direct_conv stages 2: " + *why);
    kp.wei = a.wei;
    kp.out = a.out;
    kp.c = int(p.c);
    kp.ho = int(out[1]);
    kp.wo = int(out[2]);
    kp.py = int(p.pad_left_dims[1]);
    kp.px = int(p.pad_left_dims[2]);
    kp.out_n = p.out_strides.n;
    kp.out_h = p.out_strides.spatial[1];
    kp.out_w = p.out_strides.spatial[2];
    kp.wei_g = p.wei_strides.g;
    kp.wei_y = p.wei_strides.spatial[1];
    kp.wei_x = p.wei_strides.spatial[2];
    kp.tiles_y = int((out[1] + TH - 1) / TH);
    kp.tiles_x = int((out[2] + TW - 1) / TW);
    kp.items = int(p.n) * kp.tiles_y * kp.tiles_x;
    const int channel_blocks = int((p.c + CB - 1) / CB);
    const auto s = static_cast<cudaStream_t>(stream);
    cudaError_t err = cudaSuccess;
    switch (fy) {
      case 3: err = launch_filter<3>(p, kp, channel_blocks, s); break;
      case 5: err = launch_filter<5>(p, kp, channel_blocks, s); break;
      default: err = launch_filter<7>(p, kp, channel_blocks, s); break;
    }
    if (err != cudaSuccess) return status::error(std::string("direct_conv stages 2 launch: ") + cudaGetErrorString(err));
    return status::ok();
  }
};

}  // namespace kdecl::kernels::cuda::direct
