// The sm_90a forward convolution of the stride1_rows specialization: unit strides, 3x3
// filters, 64 input channels per group. The halo tiles' kernel (conv_fwd_halo_sm90.cuh) puts
// pixels on the MMA's M and output channels on its N, so a 64-channel layer issues m64n64k16
// wgmma, which need as many shared-memory bytes per clock as the SM delivers; here the roles
// are exchanged:
//
//   M = 64 output channels   A = one tap's weights (64 x 64), all nine taps resident in
//                            shared memory for as long as the block works on that column
//   N = `pixels` consecutive output pixels of one output row (the key's tile m: 64, 128, 192)
//                            B = an input row of the ring seen from column x of the tap
//                            (128 bytes a pixel: the descriptor's start moves by x pixels)
//   K = 9 taps x 64 channels
//
// so each wgmma is m64nPk16 with P up to 192 (8 KiB of B per 96 cycles of MMA). A block takes
// items (a group's 64 output channels, an image, a strip of `pixels` output columns, a band of
// output rows) and streams the band's input rows through a ring of the key's stages: one
// TMA box (64 channels x the strip's columns + 8) per input row, so every input row is read
// once per band, not once per tap or per tile.
//
//   warpgroup 0   one thread: each new column's 9 taps of weights (after both consumers have
//                 let go of the previous ones), then per item the band's rows + 2 input rows
//   warpgroups 1, 2   alternate output rows of each band: wait for the row's three input rows,
//                 36 wgmma (9 taps x 4 k-steps), release the input rows, store the 64 x P
//                 accumulators straight from registers (one's stores under the other's MMA)
//
// An input row i of a band is read by output rows i - 2, i - 1 and i: its slot is free once
// those three have arrived (one arrival per warp each); at a band's edges the first and last
// output rows arrive for the rows nobody else reads. Measured on an H200 (2026-11-28, bf16,
// U-Net's 570x570 64->64 at batch 32): 1.09 ms in one process (696 TFLOP/s), 1.36 ms in the
// bench against cuDNN's 1.64 ms; the halo tiles 2.07 ms (docs/perf/h200-2026-11-28-conv-stride1-rows).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/implicit_gemm_fwd_problem.hpp"
#include "kdecl/kernels/conv/cuda/sm90/conv_fwd_rows_sm90_decl.cuh"
#include "kdecl/kernels/conv/cuda/sm90/conv_fwd_sm90_config.cuh"
#include "kdecl/kernels/conv/cuda/sm90/halo_input_map.cuh"
#include "kdecl/kernels/conv/rows_plan.hpp"
#include "kdecl/kernels/cuda/device_info.cuh"
#include "kdecl/kernels/cuda/device_types.cuh"
#include "kdecl/kernels/cuda/dynamic_smem.cuh"
#include "kdecl/kernels/cuda/sm90/cluster_launch.cuh"
#include "kdecl/kernels/cuda/sm90/mbarrier.cuh"
#include "kdecl/kernels/cuda/sm90/shared_address.cuh"
#include "kdecl/kernels/cuda/sm90/tensor_map.cuh"
#include "kdecl/kernels/cuda/sm90/tensor_map_4d.cuh"
#include "kdecl/kernels/cuda/sm90/tma_load.cuh"
#include "kdecl/kernels/cuda/sm90/tma_load_4d.cuh"
#include "kdecl/kernels/cuda/sm90/warpgroup.cuh"
#include "kdecl/kernels/cuda/sm90/wgmma_descriptor.cuh"
#include "kdecl/kernels/cuda/sm90/wgmma_mma.cuh"

namespace kdecl::kernels::cuda::sm90 {

struct conv_fwd_rows_params {
  CUtensorMap map_in;   // (G x 64 channels, W, H, N); box 64 x box columns x 1 x 1
  CUtensorMap map_wei;  // (64 channels, 9 taps, K/G, G); box 64 x 1 x 64 x 1
  void* out;
  std::int64_t out_n, out_h, out_w, out_g;  // output strides (elements)
  int n, k_per_group, k_blocks;             // k_blocks: ceil(K/G / 64)
  int h_out, w_out, pad_h, pad_w, col_step;  // col_step: the dilation along W
  int strips, band, bands;                  // output columns in strips of the tile's pixels, rows in bands
  std::int64_t items;                       // G x k_blocks (columns) x N x strips x bands
};

// One item of work: column (= group x k_blocks + k-block), image, strip, band.
struct rows_item {
  int column, n, strip, band;
};
__host__ __device__ inline rows_item rows_item_at(const conv_fwd_rows_params& p, std::int64_t i) {
  rows_item it{};
  it.band = int(i % p.bands);
  i /= p.bands;
  it.strip = int(i % p.strips);
  i /= p.strips;
  it.n = int(i % p.n);
  it.column = int(i / p.n);
  return it;
}

inline constexpr int rows_filter = 3;  // 3x3 filters: every output row reads 3 input rows
inline constexpr int rows_taps = rows_filter * rows_filter;
static_assert(rows_taps <= rows_max_taps, "the resident weights' space holds the taps");

// The kernel's compile-time shape. (The kernel is templated on this class, not on the key: nvcc's
// host stubs cannot spell a class-type template argument of a __global__ function.)
template <grouped_conv_key K>
struct rows_config {
  static constexpr grouped_conv_key key = K;
  static constexpr int pixels = K.algo.tile.m;
  static constexpr int stages = K.algo.stages;
  static constexpr int slot_bytes = rows_slot_bytes(pixels);
  static constexpr int ring_bytes = stages * slot_bytes;
  static constexpr int weights_bytes = rows_taps * rows_tap_bytes;
  static constexpr int barriers_offset = ring_bytes + rows_max_taps * rows_tap_bytes;
  static constexpr int smem_bytes = rows_smem_bytes(K);
  static constexpr int threads = 384;
  using data_t = storage_t<K.sig.in>;
  using mma = wgmma_m64k16<K.sig.in, pixels, 0, 0>;
  static_assert(slot_bytes % swizzle_atom_bytes == 0, "ring slots must keep the 1 KiB swizzle alignment");
  static_assert(1024 + barriers_offset + 8 * (2 * stages + 2) <= smem_bytes, "barriers beyond the budget");
};

// The producer thread (see the file comment).
template <class C>
__device__ __forceinline__ void rows_produce(const conv_fwd_rows_params& p, unsigned char* ring, unsigned char* weights,
                                             std::uint64_t* full, std::uint64_t* empty, std::uint64_t* w_full,
                                             std::uint64_t* w_empty) {
  tma_prefetch_descriptor(&p.map_in);
  tma_prefetch_descriptor(&p.map_wei);
  int loaded = -1, loads = 0;
  std::int64_t row = 0;  // input rows loaded by this block so far: slot row % stages, phase row / stages
  for (std::int64_t i = blockIdx.x; i < p.items; i += gridDim.x) {
    const rows_item it = rows_item_at(p, i);
    const int group = it.column / p.k_blocks, k_block = it.column % p.k_blocks;
    if (it.column != loaded) {
      if (loads > 0) mbarrier_wait(w_empty, std::uint32_t(loads - 1) & 1u);  // both consumers let go
      mbarrier_arrive_expect_tx(w_full, C::weights_bytes);
      for (int t = 0; t < rows_taps; ++t)
        tma_load_4d(weights + t * rows_tap_bytes, &p.map_wei, w_full, 0, t, k_block * 64, group);
      loaded = it.column;
      ++loads;
    }
    const int y0 = it.band * p.band - p.pad_h, x0 = it.strip * C::pixels - p.pad_w;
    for (int r = 0; r < p.band + rows_filter - 1; ++r, ++row) {
      const int slot = int(row % C::stages);
      mbarrier_wait(&empty[slot], (std::uint32_t(row / C::stages) & 1u) ^ 1u);
      mbarrier_arrive_expect_tx(&full[slot], C::slot_bytes);
      tma_load_4d(ring + slot * C::slot_bytes, &p.map_in, &full[slot], group * 64, x0, y0 + r, it.n);
    }
  }
}

// One consumer warpgroup: output rows `first`, first + 2, ... of each band.
template <class C>
__device__ __forceinline__ void rows_consume(const conv_fwd_rows_params& p, unsigned char* ring,
                                             unsigned char* weights, std::uint64_t* full, std::uint64_t* empty,
                                             std::uint64_t* w_full, std::uint64_t* w_empty, int first, int t) {
  using T = typename C::data_t;
  const int warp = t / 32, lane = t % 32;
  const std::uint32_t ring_at = shared_address(ring), weights_at = shared_address(weights);
  float acc[C::pixels / 2];
  int current = -1, loads = 0;
  std::int64_t row0 = 0;  // the item's first input row in the block's sequence (as the producer counts)
  for (std::int64_t i = blockIdx.x; i < p.items; i += gridDim.x) {
    const rows_item it = rows_item_at(p, i);
    if (it.column != current) {
      if (current >= 0 && lane == 0) mbarrier_arrive(w_empty);
      mbarrier_wait(w_full, std::uint32_t(loads) & 1u);
      ++loads;
      current = it.column;
    }
    const int group = it.column / p.k_blocks, k_block = it.column % p.k_blocks;
    for (int r = first; r < p.band; r += 2) {
      for (int y = 0; y < rows_filter; ++y) {
        const std::int64_t row = row0 + r + y;
        mbarrier_wait(&full[row % C::stages], std::uint32_t(row / C::stages) & 1u);
      }
      fence_accumulators(acc);
      wgmma_fence();
#pragma unroll
      for (int y = 0; y < rows_filter; ++y) {
        const std::uint32_t input_row = ring_at + std::uint32_t((row0 + r + y) % C::stages) * C::slot_bytes;
#pragma unroll
        for (int x = 0; x < rows_filter; ++x) {
          const std::uint32_t b = input_row + std::uint32_t(x * p.col_step) * swizzle_row_bytes;
          const std::uint32_t a = weights_at + std::uint32_t(y * rows_filter + x) * rows_tap_bytes;
#pragma unroll
          for (int kk = 0; kk < 4; ++kk)
            C::mma::run(acc, make_wgmma_descriptor(a + kk * 32, 16, swizzle_atom_bytes),
                        make_wgmma_descriptor(b + kk * 32, 16, swizzle_atom_bytes), (y | x | kk) != 0);
        }
      }
      wgmma_commit_group();
      wgmma_wait_group<0>();
      fence_accumulators(acc);
      if (lane == 0) {
        // Each output row releases its three input rows; at the band's edges the first and last
        // rows also arrive for the readers a band does not have (the file comment).
        auto release = [&](std::int64_t row, int times) {
          for (int j = 0; j < times; ++j) mbarrier_arrive(&empty[row % C::stages]);
        };
        for (int y = 0; y < rows_filter; ++y) release(row0 + r + y, 1);
        if (r == 0)
          for (int y = 0; y < rows_filter - 1; ++y) release(row0 + y, rows_filter - 1 - y);
        if (r == p.band - 1)
          for (int y = 1; y < rows_filter; ++y) release(row0 + r + y, y);
      }
      // The 64 x P accumulators, straight to the output: register 4 q + 2 h + e holds output
      // channel 16 warp + lane / 4 + 8 h of pixel 8 q + 2 (lane % 4) + e. Two pointers (pixels
      // 8 q and 8 q + 1 of the thread) step eight pixels at a time and the stores take the
      // channel half as an immediate offset; the bounds are tested per pixel pair. Measured in one
      // process (H200, U-Net 570x570 at batch 32): an address computed per register (a 64-bit
      // product of the pixel stride) made the epilogue as long as the MMA, 2.04 ms against 1.09.
      const int oy = it.band * p.band + r;
      if (oy < p.h_out) {
        const int channel0 = k_block * 64 + 16 * warp + lane / 4;
        const int column0 = it.strip * C::pixels + 2 * (lane % 4);
        T* out = static_cast<T*>(p.out) + std::int64_t(it.n) * p.out_n + std::int64_t(oy) * p.out_h +
                 std::int64_t(group) * p.out_g + std::int64_t(column0) * p.out_w + channel0;
        const std::int64_t step = 8 * p.out_w;  // eight pixels on
        T* even = out;                          // pixel 8 q of the thread's columns
        T* odd = out + p.out_w;                 // pixel 8 q + 1
        const int columns_left = p.w_out - column0;  // pixels of this thread's row still inside
        const bool low = channel0 < p.k_per_group, high = channel0 + 8 < p.k_per_group;
#pragma unroll
        for (int q = 0; q < C::pixels / 8; ++q) {
          if (8 * q < columns_left) {
            if (low) even[0] = from_float<T>(acc[4 * q]);
            if (high) even[8] = from_float<T>(acc[4 * q + 2]);
          }
          if (8 * q + 1 < columns_left) {
            if (low) odd[0] = from_float<T>(acc[4 * q + 1]);
            if (high) odd[8] = from_float<T>(acc[4 * q + 3]);
          }
          even += step;
          odd += step;
        }
      }
    }
    row0 += p.band + rows_filter - 1;
  }
}

template <class C>
__global__ void __launch_bounds__(384, 1) conv_fwd_rows_kernel(const __grid_constant__ conv_fwd_rows_params p) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __trap();  // sm_90a only (wgmma, TMA, setmaxnreg); run() never launches it elsewhere
#else
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = smem_raw + ((1024 - (shared_address(smem_raw) & 1023)) & 1023);
  unsigned char* ring = smem;
  unsigned char* weights = smem + C::ring_bytes;
  auto* full = reinterpret_cast<std::uint64_t*>(smem + C::barriers_offset);
  std::uint64_t* empty = full + C::stages;
  std::uint64_t* w_full = empty + C::stages;
  std::uint64_t* w_empty = w_full + 1;
  if (threadIdx.x == 0) {
    for (int s = 0; s < C::stages; ++s) {
      mbarrier_init(&full[s], 1);                // the producer's expect_tx
      mbarrier_init(&empty[s], rows_filter * 4);  // three output rows, each warp of their consumer
    }
    mbarrier_init(w_full, 1);
    mbarrier_init(w_empty, 2 * 4);  // each warp of both consumers
    mbarrier_init_fence();
  }
  __syncthreads();
  wait_for_prerequisite_grids();  // launched as a dependent of a pre-pass (cluster_launch.cuh): its writes are visible
  const int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    warpgroup_release_registers<72>();  // the sm_90 convolutions' split (conv_sm90_registers)
    if (threadIdx.x == 0) rows_produce<C>(p, ring, weights, full, empty, w_full, w_empty);
  } else {
    warpgroup_claim_registers<216>();
    rows_consume<C>(p, ring, weights, full, empty, w_full, w_empty, warpgroup - 1, threadIdx.x % 128);
  }
  __syncthreads();  // no thread leaves while another may still wait on a barrier it feeds
#endif
}

// The band height: the tallest of 16, 8, 4, 2 rows that still gives the SMs 0.8 items each (a
// taller band reads fewer halo rows; measured on U-Net's 570x570 at batch 1, 16 rows over 108
// items beat 8 rows over 213), capped at the output's height rounded up to even.
inline int rows_band_height(std::int64_t columns_images_strips, int h_out, int sms) {
  for (int band : {16, 8, 4})
    if (double(columns_images_strips) * double((h_out + band - 1) / band) >= 0.8 * sms) return band;
  return 2;
}

// The conv_kernel contract (kernels/conv/conv_kernel.hpp) for a stride1_rows forward key.
template <grouped_conv_key K>
struct conv_fwd_rows {
  static_assert(K.sig.spec == conv_specialization::stride1_rows, "the stride1_rows specialization's kernel");
  static_assert(conv_fwd_sm90_unsupported_reason(K) == nullptr,
                "key not supported by the sm90 forward convolution: see sm90::conv_fwd_sm90_unsupported_reason(K)");
  using cfg = rows_config<K>;

  static std::size_t workspace_bytes(const grouped_conv_problem&) { return 0; }

  static std::optional<std::string> why_not(const grouped_conv_problem& p, const grouped_conv_args& a) {
    const int elem = bits_of(K.sig.in) / 8;
    // Input and weights by TMA (16-byte rows of 8 elements), the output element by element.
    if (auto why = implicit_gemm_fwd_reason(K, p, a, "sm90 conv", {16 / elem, 16 / elem, 1, elem},
                                            /*mapped_output=*/true))
      return why;
    if (p.stride_dims[1] != 1 || p.stride_dims[2] != 1)
      return std::string("sm90 conv (stride1_rows): needs unit strides");
    if (p.c_per_group() != 64)
      return "sm90 conv (stride1_rows): needs 64 input channels per group, the problem has " +
             std::to_string(p.c_per_group());
    if (p.filter_dims[1] != rows_filter || p.filter_dims[2] != rows_filter)
      return std::string("sm90 conv (stride1_rows): needs a 3x3 filter");
    if (p.dilation_dims[1] != 1 || p.dilation_dims[2] < 1 ||
        (rows_filter - 1) * p.dilation_dims[2] > rows_max_reach_cols)
      return std::string("sm90 conv (stride1_rows): needs dilation 1 along H and at most 4 along W");
    if (p.g > 1 && p.in_strides.g != 64)
      return std::string("sm90 conv (stride1_rows): needs the groups' channels side by side in the input");
    if (auto why = halo_input_reason(p, a.in)) return "sm90 conv (stride1_rows): " + *why;
    const std::int64_t wei_elem = elem;
    if (reinterpret_cast<std::uintptr_t>(a.wei) % 16 != 0 || p.wei_strides.n * wei_elem % 16 != 0 ||
        (p.g > 1 && p.wei_strides.g * wei_elem % 16 != 0))
      return std::string("sm90 conv (stride1_rows): needs 16-byte aligned weights and weight strides");
    const auto sizes = output_size(p);
    if (sizes.h > (1 << 30) || sizes.w > (1 << 30) || p.n > (1 << 30))
      return std::string("sm90 conv (stride1_rows): output sizes must be < 2^30");
    return std::nullopt;
  }

  static status run(const grouped_conv_problem& p, const grouped_conv_args& a, void* stream) {
    if (auto why = why_not(p, a)) return status::error(*why);
    const device_info dev = current_device_info();  // once a launch: each ask is a runtime call
    if (auto why = device_shortfall("sm90 conv (stride1_rows)", {9, 0, /*exact=*/true, cfg::smem_bytes}, dev))
      return status::error(*why);
    const auto sizes = output_size(p);
    if (p.n == 0 || sizes.h == 0 || sizes.w == 0 || p.k_per_group() == 0) return status::ok();
    const cudaError_t attr = allow_dynamic_smem(kernel, cfg::smem_bytes, dev.ordinal);
    if (attr != cudaSuccess) return status::error(std::string("cudaFuncSetAttribute: ") + cudaGetErrorString(attr));
    conv_fwd_rows_params kp{};
    if (auto why = fill_params(kp, p, a, dev.sm_count)) return status::error("sm90 conv (stride1_rows): " + *why);
    const int grid = int(std::min<std::int64_t>(kp.items, dev.sm_count));
    if (const cudaError_t err = launch_in_clusters(kernel, unsigned(grid), cfg::threads, cfg::smem_bytes,
                                                   static_cast<cudaStream_t>(stream), 1u, kp, /*dependent=*/true);
        err != cudaSuccess)
      return status::error(std::string("sm90 conv (stride1_rows) launch: ") + cudaGetErrorString(err));
    return status::ok();
  }

 private:
  static constexpr auto kernel = conv_fwd_rows_kernel<cfg>;

  struct hw {
    std::int64_t h, w;
  };
  static hw output_size(const grouped_conv_problem& p) {
    const auto e = p.output_dims();
    return {e[1], e[2]};
  }

  static void fill_sizes(conv_fwd_rows_params& kp, const grouped_conv_problem& p, int sms) {
    const auto sizes = output_size(p);
    kp.n = int(p.n);
    kp.k_per_group = int(p.k_per_group());
    kp.k_blocks = int((p.k_per_group() + 63) / 64);
    kp.h_out = int(sizes.h);
    kp.w_out = int(sizes.w);
    kp.pad_h = int(p.pad_left_dims[1]);
    kp.pad_w = int(p.pad_left_dims[2]);
    kp.col_step = int(p.dilation_dims[2]);
    kp.strips = int(rows_plan_of(p, cfg::pixels)->strips);  // the cost model's strips, from one place
    const std::int64_t columns = p.g * kp.k_blocks;
    kp.band = rows_band_height(columns * p.n * kp.strips, kp.h_out, sms);
    kp.bands = (kp.h_out + kp.band - 1) / kp.band;
    kp.items = columns * p.n * kp.strips * kp.bands;
  }

  static std::optional<std::string> fill_params(conv_fwd_rows_params& kp, const grouped_conv_problem& p,
                                                const grouped_conv_args& a, int sms) {
    fill_sizes(kp, p, sms);
    kp.out = a.out;
    kp.out_n = p.out_strides.n;
    kp.out_h = p.out_strides.spatial[1];
    kp.out_w = p.out_strides.spatial[2];
    kp.out_g = p.out_strides.g;
    // The input: 64 channels of a group x the strip's columns and the filter's reach, one row.
    const tensor_view_4d in{a.in,
                            K.sig.in,
                            {p.g * 64, p.input_dims[2], p.input_dims[1], p.n},
                            {p.in_strides.spatial[2], p.in_strides.spatial[1], p.in_strides.n},
                            64,
                            rows_box_cols(cfg::pixels)};
    if (auto why = encode_tensor_map_4d(kp.map_in, in)) return "input: " + *why;
    return encode_weights(kp.map_wei, p, a.wei);
  }

  // The weights as (64 channels, 9 taps, K/G, G), a box of 64 channels x 1 tap x 64 output
  // channels (zeros past K/G).
  static std::optional<std::string> encode_weights(CUtensorMap& map, const grouped_conv_problem& p, const void* wei) {
    auto encode = tensor_map_encoder();
    if (encode == nullptr) return std::string("cuTensorMapEncodeTiled is not available from the driver");
    const std::optional<CUtensorMapDataType> type = tma_16bit_type(K.sig.wei);
    if (!type) return std::string("no 16-bit TMA data type for the weights' dtype");
    const std::uint64_t elem = std::uint64_t(bits_of(K.sig.wei) / 8);
    const cuuint64_t dims[4] = {64, cuuint64_t(rows_taps), cuuint64_t(p.k_per_group()), cuuint64_t(p.g)};
    cuuint64_t strides[3] = {64 * elem, cuuint64_t(p.wei_strides.n) * elem, cuuint64_t(p.wei_strides.g) * elem};
    if (p.g == 1) strides[2] = strides[1] * dims[2];  // never steps: a legal stride
    const cuuint32_t box[4] = {64, 1, 64, 1};
    const cuuint32_t steps[4] = {1, 1, 1, 1};
    const CUresult r = encode(&map, *type, 4, const_cast<void*>(wei), dims, strides, box, steps,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                              CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
      return "cuTensorMapEncodeTiled (weights) failed with CUresult " + std::to_string(static_cast<int>(r));
    return std::nullopt;
  }
};

}  // namespace kdecl::kernels::cuda::sm90
