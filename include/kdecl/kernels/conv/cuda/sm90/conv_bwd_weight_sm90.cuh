// The sm_90a backward-weight convolution: dW = dY^T x im2col(input), per group,
// on the sm_90 convolution kernel (conv_sm90_kernel.cuh), whose consumers run the
// crr GEMM (both operands MN-major in the swizzled ring):
//
//   A (M x K) = dY: M = K/G output channels, K = N x output pixels (the depth)
//   B (K x N) = im2col(input): N = taps x C/G, c fastest (zeros in the padding)
//   C (M x N) = dW[g] (each output channel's taps x C/G contiguous)
//
// A depth row is one output pixel; row r of a 64-wide block is one 128-byte smem
// row whose 16-byte chunk j lands at j ^ (r % 8), the MN-major layout TMA's
// 128-byte swizzle gives and the descriptors read. Two producers fill it:
//   - TMA (conv_bwd_weight_tma_producer), where C/G is a multiple of 64 and dY's
//     pixels are evenly strided: per k-block one thread issues a 2-D box of dY per
//     A block and an im2col-mode load of the input per B block;
//   - a gather (conv_bwd_weight_gather) elsewhere: each producer thread owns one
//     16-byte chunk column of every 64-wide block and every 16th depth row; per
//     k-block it decodes its rows' pixels and copies 8 output channels of dY per A
//     block and 8 input channels of the block's tap per B block.
//
// The depth (N x output pixels) is long and M x N small, so it is split
// (plan in conv_bwd_plan.hpp): `cluster` ranges per tile reduced in distributed
// shared memory (split_k.cuh), times `ranges` ranges whose fp32 partials, one per
// range in the workspace, a second kernel adds in order (deterministic). The ranges
// ride in the scheduler's batch: unit batch b = range x G + group, and the
// partials' C is [range][group][K/G][taps x C/G], so the epilogue's batch stride
// writes each range's partial.
//
// Entry point: sm90::conv_bwd_weight<K> with the conv_kernel contract (kernels/conv/conv_kernel.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/cuda/sm80/conv_bwd_common.cuh"
#include "kdecl/kernels/conv/cuda/sm80/conv_bwd_plan.hpp"
#include "kdecl/kernels/conv/im2col_index.hpp"
#include "kdecl/kernels/conv/cuda/sm90/conv_fwd_sm90_config.cuh"
#include "kdecl/kernels/conv/cuda/sm90/conv_sm90_kernel.cuh"
#include "kdecl/kernels/conv/cuda/sm90/output_tma_map.cuh"
#include "kdecl/kernels/conv/cuda/sm90/input_im2col_map.cuh"
#include "kdecl/kernels/conv/cuda/split_partials_reduce.cuh"
#include "kdecl/kernels/conv/pixel_rows.hpp"
#include "kdecl/kernels/cuda/device_info.cuh"
#include "kdecl/kernels/cuda/dynamic_smem.cuh"
#include "kdecl/kernels/cuda/stream_scratch.cuh"
#include "kdecl/kernels/cuda/sm90/cluster_launch.cuh"
#include "kdecl/kernels/cuda/sm90/tensor_map.cuh"
#include "kdecl/kernels/cuda/sm90/tma_load.cuh"
#include "kdecl/kernels/cuda/sm90/tma_load_im2col.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/cluster_capacity.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90.cuh"

namespace kdecl::kernels::cuda::sm90 {

struct conv_bwd_weight_sm90_params {
  gemm_sm90_params out;            // the epilogue's view: dW or the partials; the scheduler (batch = ranges x G)
  kernels::conv_gather_geometry geo;  // the forward gather over the input (m = the depth, k = taps x C/G)
  const void* dy;                  // group 0
  const void* in;                  // group 0
  std::int64_t dy_g, in_g;         // group strides (elements)
  std::int64_t dy_n, dy_s[3];      // dY strides: image, D, H, W
  int groups, ranges, k_blocks;    // G, the workspace ranges, ceil(depth / tile_k)

  // Unit w's k-blocks: its range (w.batch / G) of the depth, cut into sched.splits cluster parts.
  __device__ k_block_range k_range(const tile_work& w) const {
    const int range = w.batch / groups;
    const long long first = static_cast<long long>(k_blocks) * range / ranges;
    const long long end = static_cast<long long>(k_blocks) * (range + 1) / ranges;
    const int parts = out.sched.splits;
    return {static_cast<int>(first + (end - first) * w.split / parts),
            static_cast<int>(first + (end - first) * (w.split + 1) / parts)};
  }
};

// One producer thread's share of every stage (see the file comment). Spatial
// dimensions are the trailing Ndim of the 3-D geometry.
template <class Cfg, class T, int Ndim>
struct conv_bwd_weight_gather {
  using params = conv_bwd_weight_sm90_params;
  static constexpr int rows = Cfg::tile_k / 16;      // depth rows per thread
  static constexpr int a_blocks = Cfg::tile_m / 64;  // 64-wide blocks of output channels
  static constexpr int b_blocks = Cfg::tile_n / 64;  // 64-wide blocks of (tap, input channel)
  static constexpr int first_dim = 3 - Ndim;

  int chunk, lane_row, swizzled;  // swizzled: byte offset of the chunk in each of this thread's rows
  const T* dy;                    // the group's dY at this thread's first output channel
  const T* in;                    // the group's input
  int a_left;                     // output channels from this thread's first one up to K/G
  int b_channel[b_blocks];        // per B block, this chunk's input channel (-1 past N)
  int b_reach[b_blocks][Ndim];    // and its tap's offset times the dilation

  __device__ explicit conv_bwd_weight_gather(int tid) : chunk(tid % 8), lane_row(tid / 8) {
    swizzled = (chunk ^ (lane_row % 8)) * 16;
  }

  __device__ void start_tile(const params& p, const tile_work& w) {
    const auto& geo = p.geo;
    const int g = w.batch % p.groups;
    const int m0 = w.tile_m * Cfg::tile_m + 8 * chunk, n0 = w.tile_n * Cfg::tile_n + 8 * chunk;
    dy = static_cast<const T*>(p.dy) + g * p.dy_g + m0;
    in = static_cast<const T*>(p.in) + g * p.in_g;
    a_left = p.out.m - m0;
#pragma unroll
    for (int j = 0; j < b_blocks; ++j) {
      const int col = n0 + 64 * j;
      const int tap = col / geo.cg;
      const kernels::tap_position t = kernels::tap_position_of(geo, tap);
      b_channel[j] = col < geo.k ? col - tap * geo.cg : -1;
#pragma unroll
      for (int d = 0; d < Ndim; ++d) b_reach[j][d] = t.f[first_dim + d] * geo.dilation[first_dim + d];
    }
  }

  // The copies of k-block `kb` into the stage at shared addresses a_slot / b_slot.
  __device__ void load(const params& p, int kb, std::uint32_t a_slot, std::uint32_t b_slot) const {
    const auto& geo = p.geo;
    const int plane = geo.out[1] * geo.out[2];
    const int pixels = geo.out[0] * plane;
#pragma unroll
    for (int i = 0; i < rows; ++i) {
      const int r = lane_row + 16 * i;
      const int q = kb * Cfg::tile_k + r;  // the depth row: output pixel q of the batch
      const bool valid = q < geo.m;
      // The pixel (n, o): o in the trailing Ndim dimensions.
      const int n = q / pixels;
      int rem = q - n * pixels;
      int o[3] = {0, 0, 0};
      if constexpr (Ndim == 3) {
        o[0] = rem / plane;
        rem -= o[0] * plane;
      }
      if constexpr (Ndim >= 2) {
        o[1] = rem / geo.out[2];
        rem -= o[1] * geo.out[2];
      }
      o[2] = rem;
      std::int64_t dy_at = std::int64_t(n) * p.dy_n, in_at = std::int64_t(n) * geo.in_n;
      int start[Ndim];
#pragma unroll
      for (int d = 0; d < Ndim; ++d) {
        dy_at += std::int64_t(o[first_dim + d]) * p.dy_s[first_dim + d];
        start[d] = o[first_dim + d] * geo.stride[first_dim + d] - geo.pad[first_dim + d];
      }
      const std::uint32_t row_at = r * swizzle_row_bytes + swizzled;
#pragma unroll
      for (int j = 0; j < a_blocks; ++j) {
        const bool inside = valid && 64 * j < a_left;
        // With 0 valid bytes nothing is read (cp.async zero-fills); src stays a valid address anyway.
        sm80::cp_async<16>(a_slot + j * mn_block_bytes + row_at, inside ? dy + dy_at + 64 * j : dy, inside ? 16 : 0);
      }
#pragma unroll
      for (int j = 0; j < b_blocks; ++j) {
        bool inside = valid && b_channel[j] >= 0;
        std::int64_t at = in_at + b_channel[j];
#pragma unroll
        for (int d = 0; d < Ndim; ++d) {
          const int x = start[d] + b_reach[j][d];
          inside = inside && unsigned(x) < unsigned(geo.in[first_dim + d]);
          at += std::int64_t(x) * geo.in_s[first_dim + d];
        }
        sm80::cp_async<16>(b_slot + j * mn_block_bytes + row_at, inside ? in + at : in, inside ? 16 : 0);
      }
    }
  }
};

// The TMA producer, where the layer allows it (conv_bwd_weight::tma_reason): one thread
// issues, per k-block, a 2-D box of dY per A block (64 output channels x 64 pixels of the
// matrix dY[pixel][K/G] of the group: out.map_a) and an im2col load of the input per B
// block (64 pixels x 64 channels of one tap, C/G a multiple of 64: out.map_b). Blocks
// wholly past M or N are not loaded: their rows and columns of C are never stored.
template <class Cfg, int Ndim>
struct conv_bwd_weight_tma_producer
    : single_thread_producer<conv_bwd_weight_tma_producer<Cfg, Ndim>, conv_bwd_weight_sm90_params> {
  using params = conv_bwd_weight_sm90_params;
  static constexpr int a_blocks = Cfg::tile_m / 64;
  static constexpr int b_blocks = Cfg::tile_n / 64;
  static_assert(Cfg::tile_k == im2col_pixels_per_load, "one im2col load per B block and k-block");

  __device__ static void produce(const params& p, unsigned char* ring_a, unsigned char* ring_b, std::uint64_t* full,
                                 std::uint64_t* empty) {
    const auto& geo = p.geo;
    ring_position pos;
    const int units = p.out.sched.units();
    for (int unit = blockIdx.x; unit < units; unit += gridDim.x) {
      const tile_work w = p.out.sched.at(unit);
      const int g = w.batch % p.groups;
      const int m0 = w.tile_m * Cfg::tile_m, n0 = w.tile_n * Cfg::tile_n;
      // Per B block: its tap's offset (W first) and its first channel in the input's channel row.
      int channel[b_blocks], reach[b_blocks][3];
      std::uint32_t bytes = 0;
#pragma unroll
      for (int j = 0; j < a_blocks; ++j)
        if (m0 + 64 * j < p.out.m) bytes += mn_block_bytes;
#pragma unroll
      for (int j = 0; j < b_blocks; ++j) {
        const int col = n0 + 64 * j;
        const int tap = col / geo.cg;
        channel[j] = col < geo.k ? g * geo.cg + (col - tap * geo.cg) : -1;
        if (channel[j] >= 0) bytes += mn_block_bytes;
        im2col_tap_offsets<Ndim>(geo, tap, reach[j]);
      }
      const k_block_range ks = p.k_range(w);
      for (int kb = ks.first; kb < ks.end; ++kb) {
        mbarrier_wait(&empty[pos.stage], pos.phase ^ 1);
        mbarrier_arrive_expect_tx(&full[pos.stage], bytes);
        unsigned char* a = ring_a + pos.stage * Cfg::a_stage_bytes;
        unsigned char* b = ring_b + pos.stage * Cfg::b_stage_bytes;
        const int q0 = kb * Cfg::tile_k;  // the k-block's first pixel
        const im2col_window window = im2col_window_of<Ndim>(geo, q0);
#pragma unroll
        for (int j = 0; j < a_blocks; ++j)
          if (m0 + 64 * j < p.out.m) tma_load_3d(a + j * mn_block_bytes, &p.out.map_a, &full[pos.stage], m0 + 64 * j, q0, g);
#pragma unroll
        for (int j = 0; j < b_blocks; ++j)
          if (channel[j] >= 0)
            tma_load_im2col<Ndim>(b + j * mn_block_bytes, &p.out.map_b, &full[pos.stage], channel[j], window.origin,
                                  window.image, reach[j]);
        pos.advance<Cfg::stages>();
      }
    }
  }
};

template <grouped_conv_key K>
struct conv_bwd_weight {
  static_assert(conv_bwd_weight_sm90_unsupported_reason(K) == nullptr,
                "key not supported by the sm90 backward-weight convolution: see "
                "sm90::conv_bwd_weight_sm90_unsupported_reason(K)");
  static constexpr gemm_key G = conv_bwd_weight_sm90_gemm_key(K);
  static constexpr gemm_key P = conv_bwd_weight_sm90_partial_key(K);
  using cfg = sm90_config<G>;          // writes dW
  using partial_cfg = sm90_config<P>;  // writes fp32 partials
  using data_t = storage_t<K.sig.in>;
  static_assert(cfg::smem_bytes == partial_cfg::smem_bytes && cfg::threads == partial_cfg::threads,
                "both kernels share one launch shape (and cluster capacity)");

  // The split the kernel runs `p` with on the current device (from its SM count and cluster capacity),
  // or the one KDECL_CONV_BWD_WEIGHT_SPLIT=CLUSTER,RANGES names where the kernel can run it.
  static bwd_weight_split split_of(const grouped_conv_problem& p) { return split_of(p, current_device_info()); }
  // split_of on `dev` (current_device_info(), asked once by the launch).
  static bwd_weight_split split_of(const grouped_conv_problem& p, const device_info& dev) {
    if (auto forced = bwd_weight_split_override(std::getenv("KDECL_CONV_BWD_WEIGHT_SPLIT"), p, cfg::tile_k,
                                                cfg::split_k_fits && partial_cfg::split_k_fits))
      return *forced;
    const int sms = dev.ordinal >= 0 && dev.sm_count > 0 ? dev.sm_count : 132;
    const int* capacity = nullptr;
    if (dev.ordinal >= 0 && cfg::split_k_fits && partial_cfg::split_k_fits) capacity = cluster_capacity_of(dev).data();
    return bwd_weight_sm90_split(p, cfg::tile_m, cfg::tile_n, cfg::tile_k, sms, capacity,
                                 cfg::split_k_fits && partial_cfg::split_k_fits);
  }

  static std::size_t partial_bytes(const grouped_conv_problem& p, const bwd_weight_split& s) {
    if (s.ranges <= 1) return 0;
    const auto e = p.implicit_gemm();
    return std::size_t(s.ranges) * std::size_t(p.g * e.m * e.n) * sizeof(float);
  }

  static std::size_t workspace_bytes(const grouped_conv_problem& p) {
    if (p.dir != K.sig.dir) return 0;
    return partial_bytes(p, split_of(p));
  }

  static std::optional<std::string> why_not(const grouped_conv_problem& p, const grouped_conv_args& a) {
    if (auto why = sm80::signature_reason<K>(p)) return why;
    if (!a.in || !a.wei || !a.out) return std::string("a tensor pointer (in, wei or out) is null");
    constexpr std::int64_t int_max = std::numeric_limits<int>::max();
    const auto e = p.implicit_gemm();
    if (e.m > int_max || e.n > int_max || e.k > int_max - 64)
      return std::string("sm90 conv bwd_weight: K/G, C/G x taps and N x output pixels must be < 2^31");
    if (auto why = sm80::sizes_reason(p)) return why;
    constexpr int vec = 8;  // 16-byte gathers of 16-bit data
    if (p.k_per_group() % vec != 0 || p.c_per_group() % vec != 0)
      return std::string("sm90 conv bwd_weight: K/G (") + std::to_string(p.k_per_group()) + ") and C/G (" +
             std::to_string(p.c_per_group()) + ") must be multiples of 8 (16-byte gathers)";
    // dW rows are the output channels' filters: taps x C/G contiguous.
    if (!filter_taps_contiguous(p))
      return std::string("sm90 conv bwd_weight: every output channel's filter (taps x C/G) must be contiguous");
    auto misaligned = [](const void* ptr) { return reinterpret_cast<std::uintptr_t>(ptr) % 16 != 0; };
    if (misaligned(a.out) || misaligned(a.in))
      return std::string("sm90 conv bwd_weight: dY (out) and in must be 16-byte aligned (16-byte gathers)");
    const auto& so = p.out_strides;
    const auto& si = p.in_strides;
    for (std::int64_t stride : {so.n, so.g, so.spatial[0], so.spatial[1], so.spatial[2], si.n, si.g, si.spatial[0],
                                si.spatial[1], si.spatial[2]})
      if (stride % vec != 0)
        return std::string("sm90 conv bwd_weight: every dY and input stride must be a multiple of 8 elements "
                           "(16-byte gathers), one is ") + std::to_string(stride);
    return std::nullopt;
  }

  // Why the TMA producer cannot load `p` (then the gather does), or nothing: B blocks of one
  // tap (C/G a multiple of 64), the groups' channels adjacent in each input pixel, dY's pixels
  // evenly strided (a matrix of pixel rows per group). Padding, strides and extents TMA cannot
  // encode show when its maps are built (run() then gathers too).
  static std::optional<std::string> tma_reason(const grouped_conv_problem& p) {
    if (auto why = input_im2col_reason(p)) return why;
    if (!pixels_evenly_strided(p, conv_tensor::output)) return std::string("dY pixels are not evenly strided");
    return std::nullopt;
  }

  static std::optional<std::string> device_reason(const device_info& dev) {
    return device_shortfall("sm90 conv bwd_weight", {9, 0, /*exact=*/true, cfg::smem_bytes}, dev);
  }

  static status run(const grouped_conv_problem& p, const grouped_conv_args& a, void* stream) {
    if (auto why = why_not(p, a)) return status::error(*why);
    const device_info dev = current_device_info();  // once a launch: each ask is a runtime call
    if (auto why = device_reason(dev)) return status::error(*why);
    const auto e = p.implicit_gemm();
    if (e.m == 0 || e.n == 0) return status::ok();
    if (const cudaError_t attr = prepare_kernels(dev.ordinal); attr != cudaSuccess)
      return status::error(std::string("cudaFuncSetAttribute: ") + cudaGetErrorString(attr));
    const auto st = static_cast<cudaStream_t>(stream);
    const bwd_weight_split split = split_of(p, dev);
    // TMA loads where the layer allows them (and their maps encode), else the gather.
    conv_bwd_weight_sm90_params kp{};
    const bool tma = !tma_reason(p) && !encode_maps(kp, p, a);
    if (split.ranges <= 1)
      return launch(tma ? direct_tma_kernel : direct_kernel, kp, p, a, a.wei, p.wei_strides.n, p.wei_strides.g, split, st,
                    dev.sm_count);

    // The partials in the caller's workspace (16-byte aligned: the epilogue's vectors), or
    // where it is smaller or misaligned, in stream-ordered memory of its own.
    const stream_scratch scratch(a.workspace, a.workspace_bytes, partial_bytes(p, split), 16, st,
                                 "sm90 conv bwd_weight: the partials");
    if (!scratch) return scratch.error();
    auto* partials = reinterpret_cast<float*>(scratch.get());
    const auto partials_then_sum = [&]() -> status {
      if (auto done = launch(tma ? partial_tma_kernel : partial_kernel, kp, p, a, partials, e.n, e.m * e.n, split, st,
                             dev.sm_count);
          !done)
        return done;
      const cudaError_t err = reduce_split_partials(partials, static_cast<data_t*>(a.wei), split.ranges, int(e.m),
                                                    int(e.n), int(p.g), p.wei_strides.g, p.wei_strides.n,
                                                    dev.sm_count, st);
      if (err != cudaSuccess) return status::error(std::string("sm90 conv bwd_weight reduce: ") + cudaGetErrorString(err));
      return status::ok();
    };
    return partials_then_sum();
  }

 private:
  static constexpr auto direct_kernel =
      conv_sm90_kernel<cfg, gathering_producer<cfg, conv_bwd_weight_gather<cfg, data_t, K.sig.ndim>>>;
  static constexpr auto partial_kernel = conv_sm90_kernel<
      partial_cfg, gathering_producer<partial_cfg, conv_bwd_weight_gather<partial_cfg, data_t, K.sig.ndim>>>;
  static constexpr auto direct_tma_kernel = conv_sm90_kernel<cfg, conv_bwd_weight_tma_producer<cfg, K.sig.ndim>>;
  static constexpr auto partial_tma_kernel =
      conv_sm90_kernel<partial_cfg, conv_bwd_weight_tma_producer<partial_cfg, K.sig.ndim>>;

  // The TMA producer's maps: dY as [G][pixels][K/G] (out.map_a) and the input's im2col view
  // (out.map_b). Empty on success.
  static std::optional<std::string> encode_maps(conv_bwd_weight_sm90_params& kp, const grouped_conv_problem& p,
                                                const grouped_conv_args& a) {
    const auto e = p.implicit_gemm();
    operand_view dy{a.out, K.sig.out, e.m, e.k, p.g, p.out_strides.spatial[2], p.out_strides.g, 64, 64};
    if (auto why = encode_tensor_map(kp.out.map_a, dy)) return why;
    return encode_input_im2col(kp.out.map_b, p, a.in);
  }

  // Raises the kernels' dynamic shared-memory limit (once per kernel and device: dynamic_smem.cuh).
  static cudaError_t prepare_kernels(int device) {
    cudaError_t err = cudaSuccess;
    for (auto kernel : {direct_kernel, partial_kernel, direct_tma_kernel, partial_tma_kernel})
      if (err == cudaSuccess) err = allow_dynamic_smem(kernel, cfg::smem_bytes, device);
    return err;
  }

  // Blocks of each cluster size that fit at once on the device, asked once per device.
  static const cluster_capacity& cluster_capacity_of(const device_info& dev) {
    static cluster_capacity_table table;
    prepare_kernels(dev.ordinal);
    return table.of(reinterpret_cast<const void*>(direct_kernel), cfg::threads, cfg::smem_bytes, dev);
  }

  // One launch writing C at `out` (ldc, group stride out_g; the ranges' partials follow each
  // other at G x out_g), over units = tiles x split.total(): the persistent grid, or one unit
  // per block in clusters of split.cluster. `kp` holds the TMA producer's maps, if any.
  static status launch(void (*kernel)(conv_bwd_weight_sm90_params), conv_bwd_weight_sm90_params kp,
                       const grouped_conv_problem& p, const grouped_conv_args& a, void* out, std::int64_t ldc,
                       std::int64_t out_g, const bwd_weight_split& split, cudaStream_t stream, int sm_count) {
    const auto e = p.implicit_gemm();
    tile_scheduler& s = kp.out.sched;
    s.tiles_m = int((e.m + cfg::tile_m - 1) / cfg::tile_m);
    s.tiles_n = int((e.n + cfg::tile_n - 1) / cfg::tile_n);
    s.batch = int(p.g) * split.ranges;
    s.k_blocks = int((e.k + cfg::tile_k - 1) / cfg::tile_k);
    s.splits = split.cluster;
    const int sms = std::max(sm_count, 1);
    const int grid = split.cluster > 1 ? s.units() : std::min(s.units(), sms);
    s.group_m = std::clamp(int(std::sqrt(double(std::min(s.units(), sms)) * cfg::tile_n / cfg::tile_m) + 0.5), 1,
                           std::max(s.tiles_m, 1));
    kp.out.c = out;
    kp.out.m = int(e.m);
    kp.out.n = int(e.n);
    kp.out.ldc = ldc;
    kp.out.stride_c = out_g;
    kp.out.alpha = 1.0f;
    kp.out.beta = 0.0f;
    kp.out.d_via_tma = false;
    const bool writes_dw = kernel == direct_kernel || kernel == direct_tma_kernel;
    const std::int64_t elem = writes_dw ? std::int64_t(sizeof(data_t)) : std::int64_t(sizeof(float));
    const std::int64_t run_bytes = 4 * elem;  // cshuffle's vector
    kp.out.c_rows_aligned = reinterpret_cast<std::uintptr_t>(out) % run_bytes == 0 && (ldc * elem) % run_bytes == 0 &&
                            (s.batch == 1 || (out_g * elem) % run_bytes == 0);
    // dW or the partials through TMA where they allow it (output_tma_map.cuh).
    kp.out.c_via_tma = writes_dw ? encode_output_tma_map<G>(kp.out, s.batch) : encode_output_tma_map<P>(kp.out, s.batch);
    kp.geo = kernels::gather_geometry_of(p);
    kp.geo.m = int(e.k);  // the forward gather's rows are this GEMM's depth
    kp.geo.k = int(e.n);  // and its depth this GEMM's columns
    kp.dy = a.out;
    kp.in = a.in;
    kp.dy_g = p.out_strides.g;
    kp.in_g = p.in_strides.g;
    kp.dy_n = p.out_strides.n;
    for (int d = 0; d < 3; ++d) kp.dy_s[d] = p.out_strides.spatial[std::size_t(d)];
    kp.groups = int(p.g);
    kp.ranges = split.ranges;
    kp.k_blocks = s.k_blocks;
    if (const cudaError_t err = launch_in_clusters(kernel, unsigned(grid), cfg::threads, cfg::smem_bytes, stream,
                                                   unsigned(split.cluster), kp, /*dependent=*/true);
        err != cudaSuccess)
      return status::error(std::string("sm90 conv bwd_weight launch of ") + std::to_string(grid) + " blocks (" +
                           std::to_string(s.units()) + " units, clusters of " + std::to_string(split.cluster) +
                           ", " + std::to_string(split.ranges) + " ranges, " + std::to_string(cfg::smem_bytes) +
                           " bytes of shared memory" +
                           (kernel == direct_tma_kernel || kernel == partial_tma_kernel ? ", TMA" : "") + "): " + cudaGetErrorString(err));
    return status::ok();
  }
};

}  // namespace kdecl::kernels::cuda::sm90
