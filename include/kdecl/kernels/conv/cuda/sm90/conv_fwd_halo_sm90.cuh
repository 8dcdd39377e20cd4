// The sm_90a forward convolution of the stride1 specialization: halo tiles
// (kernels/conv/halo_tiles.hpp). The im2col kernel (conv_fwd_sm90.cuh) loads a tile's
// input once per filter tap; this one loads, per 64-channel chunk and filter depth, one
// TMA box holding the tile's input rows and their halo, and runs every tap (y, x) of that
// depth on it: tap (y, x) of m64 block b is the box seen from pixel (y dh, 8 b + x dw) on,
// one core matrix (8 output columns) per output row, P x 128 bytes apart (P the box's
// columns). A 3x3 filter then reads (8 + 2) x P pixels per 8 output rows x tile columns
// from L2 instead of 9 x the tile's pixels: 3.6 to 4.8 times fewer bytes.
//
//   warpgroup 0   one thread: for each unit and chunk, the halo box into the halo ring (two
//                 stages: the next chunk or tile loads while this one is computed), then the
//                 chunk's taps' weight boxes (as the im2col kernel's B) into the weight ring,
//                 up to three taps a stage where the tile is 64 or 128 wide (a tap of such a
//                 tile is a few short wgmma: one barrier round per three of them)
//   consumers     halo_mainloop on conv_consume_tiles (conv_sm90_kernel.cuh): the same
//                 intrawave and pingpong schedules, epilogues and register budgets as every
//                 sm_90 convolution, the output stored through halo_rows (pixels past the
//                 output's edge are computed and skipped)
//
// K-blocks run chunk-major: k-block kb is tap kb % (Y X) of chunk kb / (Y X), a chunk being
// (filter depth z, 64 channels cc) = (chunk / (C/G / 64), chunk % (C/G / 64)); a tap's weights
// are the B box at K = ((z Y X + tap) C/G + 64 cc). No split of K: a tile's k-blocks
// are one unit (halo_walk).
//
// Resident weights: where every unit has the same weights (one group, one column tile: K/G at
// most the tile's N) and all their stages fit in the weight ring (64 channels and a 3x3 filter
// take 3 stages of a 128x64 tile's 6), the producer loads them for the block's first unit only
// and the consumers never free them: a unit then streams its halo boxes alone (a 128x64 tile
// otherwise reloads 72 KB of weights per 30 KB of halo). Measured 1.01-1.06x on 64-channel
// layers (H200): the weights' L2 traffic is not what holds those layers back.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/implicit_gemm_fwd_problem.hpp"
#include "kdecl/kernels/conv/cuda/sm90/conv_fwd_sm90_config.cuh"
#include "kdecl/kernels/conv/cuda/sm90/conv_sm90_kernel.cuh"
#include "kdecl/kernels/conv/cuda/sm90/fused_epilogue_inputs.cuh"
#include "kdecl/kernels/conv/cuda/sm90/halo_input_map.cuh"
#include "kdecl/kernels/conv/halo_tiles.hpp"
#include "kdecl/kernels/cuda/device_info.cuh"
#include "kdecl/kernels/cuda/dynamic_smem.cuh"
#include "kdecl/kernels/cuda/sm90/cluster_launch.cuh"
#include "kdecl/kernels/cuda/sm90/tensor_map.cuh"
#include "kdecl/kernels/cuda/sm90/tma_load.cuh"
#include "kdecl/kernels/cuda/sm90/tma_load_5d.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90.cuh"

namespace kdecl::kernels::cuda::sm90 {

struct conv_fwd_halo_params {
  gemm_sm90_params out;  // map_a: the halo input map; map_b: the weights; m: the tiles' pixels
  halo_rows rows;        // where the tiles' pixels go (and which are outside the output)
  int taps;              // Y x X: the k-blocks of one chunk
  int filter_x;          // X
  int channel_chunks;    // C/G / 64
  int cg;                // C/G
  int row_step, col_step;  // a tap's step in the box along H and W (the dilation)
  int box_cols, box_bytes;
  int pad_d, pad_h, pad_w, dilation_d;
  int resident_weights;  // 1: every unit's weights are the same and stay in the ring (see above)
};

// Shared memory: the halo ring, the weights' ring (taps_per_stage taps a stage), their
// barriers, the cshuffle strips (conv_fwd_sm90_config.cuh halo_smem_bytes_for).
template <class Cfg>
struct halo_smem_layout {
  static constexpr int a_stages = halo_stages;
  static constexpr int a_stage_bytes = halo_stage_bytes(Cfg::tile_m);  // a multiple of the 1 KiB swizzle repeat
  static constexpr int taps_per_stage = halo_taps_per_stage(Cfg::key);
  static constexpr int b_stages = halo_weight_stages(Cfg::key);
  static constexpr int b_stage_bytes = halo_weight_stage_bytes(Cfg::key);
  static constexpr int b_offset = a_stages * a_stage_bytes;
  static constexpr int barriers_offset = b_offset + b_stages * b_stage_bytes;
  static constexpr int strips_offset = barriers_offset + 2 * 8 * (b_stages + a_stages) + 16;
  static constexpr int bytes = halo_smem_bytes_for(Cfg::key);
  static_assert(a_stage_bytes % swizzle_atom_bytes == 0 && b_stage_bytes % swizzle_atom_bytes == 0,
                "halo and weight stages must keep the rings 1 KiB aligned");
  static_assert(b_stages >= 2 && strips_offset <= bytes - 1024 && bytes <= max_dynamic_smem_bytes,
                "the halo tiles' stages exceed 227 KiB");
};

// The walk over one unit's k-blocks, shared by the producer and the consumers: whole chunks
// (no split of K), each chunk's taps in groups of taps_per_stage, one weight stage each.
struct halo_walk {
  int chunks;  // (filter depths) x (C/G / 64) chunks
  int groups;  // weight stages per chunk
  // Taps a weight stage holds: T where T divides the taps (every stage's wgmma group the same
  // length), else one.
  template <int T>
  __host__ __device__ static int taps_per_stage(int taps) {
    return taps % T == 0 ? T : 1;
  }
  template <int T>
  __device__ static int taps_per_stage(const conv_fwd_halo_params& p) {
    return taps_per_stage<T>(p.taps);
  }
  template <int T>
  __device__ static halo_walk of(const conv_fwd_halo_params& p, const tile_work& w) {
    return {(w.k_block_end - w.k_block_begin) / p.taps, p.taps / taps_per_stage<T>(p)};
  }
};

// The producer thread (see the file comment).
template <class Cfg>
__device__ __forceinline__ void halo_produce(const conv_fwd_halo_params& p, unsigned char* ring_a,
                                             unsigned char* ring_b, std::uint64_t* full, std::uint64_t* empty,
                                             std::uint64_t* a_full, std::uint64_t* a_empty) {
  using layout = halo_smem_layout<Cfg>;
  constexpr int T = layout::taps_per_stage;
  tma_prefetch_descriptor(&p.out.map_a);
  tma_prefetch_descriptor(&p.out.map_b);
  ring_position pos, a_pos;
  const int units = p.out.sched.units();
  for (int unit = blockIdx.x; unit < units; unit += gridDim.x) {
    const bool load_weights = p.resident_weights == 0 || unit == int(blockIdx.x);
    const tile_work w = p.out.sched.at(unit);
    const halo_rows::pixel first = p.rows.at(w.tile_m * Cfg::tile_m);  // the tile's first output pixel
    const int g = w.batch, n0 = w.tile_n * Cfg::tile_n;
    const int x0 = first.x - p.pad_w, y0 = first.y - p.pad_h;
    const halo_walk walk = halo_walk::of<T>(p, w);
    int cc = 0, z = 0;  // the chunk's 64 channels and filter depth
    for (int chunk = 0; chunk < walk.chunks; ++chunk) {
      // The chunk's halo, once for all its taps.
      mbarrier_wait(&a_empty[a_pos.stage], a_pos.phase ^ 1);
      mbarrier_arrive_expect_tx(&a_full[a_pos.stage], std::uint32_t(p.box_bytes));
      tma_load_5d(ring_a + a_pos.stage * layout::a_stage_bytes, &p.out.map_a, &a_full[a_pos.stage],
                  g * p.cg + cc * halo_chunk_channels, x0, y0, first.z + z * p.dilation_d - p.pad_d, first.n);
      a_pos.advance<layout::a_stages>();
      // Its taps' weights, per_stage a stage (zero-filled past N).
      const int per_stage = halo_walk::taps_per_stage<T>(p);
      for (int tap0 = 0; load_weights && tap0 < p.taps; tap0 += per_stage) {
        const int taps = per_stage;
        mbarrier_wait(&empty[pos.stage], pos.phase ^ 1);
        mbarrier_arrive_expect_tx(&full[pos.stage], std::uint32_t(taps * Cfg::b_stage_bytes));
        unsigned char* slot = ring_b + pos.stage * layout::b_stage_bytes;
        for (int j = 0; j < taps; ++j)
          tma_load_3d(slot + j * Cfg::b_stage_bytes, &p.out.map_b, &full[pos.stage],
                      (z * p.taps + tap0 + j) * p.cg + cc * halo_chunk_channels, n0, g);
        pos.advance<layout::b_stages>();
      }
      if (++cc == p.channel_chunks) {
        cc = 0;
        ++z;
      }
    }
  }
}

// The consumers' mainloop over the two rings (conv_consume_tiles' Mainloop: consume,
// release, skip). Per weight stage one wgmma group: up to taps_per_stage taps x the k-steps
// x the m64 blocks. A halo stage is freed once the wgmma of its chunk's last tap have
// retired: when the next chunk's first group has waited for its predecessor, or at the
// unit's end.
template <class Cfg>
struct halo_mainloop {
  using layout = halo_smem_layout<Cfg>;
  static constexpr int T = layout::taps_per_stage;
  static constexpr bool splits_k = false;
  std::uint32_t a_ring, b_ring;  // this consumer's first m64 block in the halo ring; the weights' ring
  std::uint64_t *full, *empty, *a_full, *a_empty;
  ring_position pos, a_pos;
  int held_b = -1, held_a = -1;  // stages whose last wgmma may still run

  __device__ halo_mainloop(unsigned char* ring_a, unsigned char* ring_b, std::uint64_t* full_, std::uint64_t* empty_,
                           std::uint64_t* a_full_, std::uint64_t* a_empty_, int consumer)
      : a_ring(shared_address(ring_a) +
               (Cfg::pingpong ? 0 : consumer * Cfg::m_blocks * halo_block_cols * swizzle_row_bytes)),
        b_ring(shared_address(ring_b)), full(full_), empty(empty_), a_full(a_full_), a_empty(a_empty_) {}

  __device__ void consume(float (&acc)[Cfg::m_blocks][Cfg::acc_regs], const conv_fwd_halo_params& q,
                          const tile_work& w, int lane) {
    const halo_walk walk = halo_walk::of<T>(q, w);
    if (q.resident_weights) pos = ring_position{};  // every unit reads the stages the first one filled
    for (int chunk = 0; chunk < walk.chunks; ++chunk) {
      mbarrier_wait(&a_full[a_pos.stage], a_pos.phase);
      // Whole groups of T taps, or one tap a stage where T does not divide the taps: every
      // wgmma group the same length (a wgmma under a condition would serialize them all).
      if (halo_walk::taps_per_stage<T>(q) == T) {
        consume_chunk<T>(acc, q, lane);
      } else {
        consume_chunk<1>(acc, q, lane);
      }
      a_pos.advance<layout::a_stages>();
    }
  }

  // One chunk's taps, G a weight stage, on the halo stage at a_pos.
  template <int G>
  __device__ void consume_chunk(float (&acc)[Cfg::m_blocks][Cfg::acc_regs], const conv_fwd_halo_params& q,
                                int lane) {
    using mma = typename sm90_mma<Cfg>::type;
    const std::uint32_t row_bytes = std::uint32_t(q.box_cols) * swizzle_row_bytes;  // one output row down
    const std::uint32_t tap_row = q.row_step * row_bytes, tap_col = q.col_step * swizzle_row_bytes;
    const std::uint32_t a_slot = a_ring + a_pos.stage * layout::a_stage_bytes;
    int y = 0, x = 0;  // the next tap's filter row and column
    for (int tap0 = 0; tap0 < q.taps; tap0 += G) {
      mbarrier_wait(&full[pos.stage], pos.phase);
      const std::uint32_t b_slot = b_ring + pos.stage * layout::b_stage_bytes;
#pragma unroll
      for (int i = 0; i < Cfg::m_blocks; ++i) fence_accumulators(acc[i]);
      wgmma_fence();
#pragma unroll
      for (int j = 0; j < G; ++j) {
        const std::uint32_t a_tap = a_slot + y * tap_row + x * tap_col;
        const std::uint32_t b_tap = b_slot + j * Cfg::b_stage_bytes;
#pragma unroll
        for (int kk = 0; kk < Cfg::k_steps; ++kk) {
          const std::uint64_t desc_b = operand_descriptor<true>(b_tap, kk);
#pragma unroll
          for (int i = 0; i < Cfg::m_blocks; ++i) {
            // m64 block i: 8 output rows of 8 pixels, row_bytes apart; 32 bytes of K per step.
            const std::uint32_t block = a_tap + std::uint32_t(i * halo_block_cols * swizzle_row_bytes);
            mma::run(acc[i], make_wgmma_descriptor(block + kk * 32, 16, row_bytes), desc_b);
          }
        }
        // The next tap (branch-free: a select, not a path around wgmma).
        const bool row_done = x + 1 == q.filter_x;
        y += row_done ? 1 : 0;
        x = row_done ? 0 : x + 1;
      }
      wgmma_commit_group();
#pragma unroll
      for (int i = 0; i < Cfg::m_blocks; ++i) fence_accumulators(acc[i]);
      // The previous group's wgmma have retired: its weights' stage, and at a chunk's first
      // group the previous chunk's halo, may be refilled.
      wgmma_wait_group<1>();
      if (!q.resident_weights) {  // resident weights are never freed
        if (lane == 0 && held_b >= 0) mbarrier_arrive(&empty[held_b]);
        held_b = pos.stage;
      }
      if (tap0 == 0) {
        if (lane == 0 && held_a >= 0) mbarrier_arrive(&a_empty[held_a]);
        held_a = a_pos.stage;
      }
      pos.advance<layout::b_stages>();
    }
  }
  __device__ void release(int lane) {
    if (lane == 0) {
      if (held_b >= 0) mbarrier_arrive(&empty[held_b]);
      if (held_a >= 0) mbarrier_arrive(&a_empty[held_a]);
    }
    held_b = held_a = -1;
  }
  __device__ void skip(const conv_fwd_halo_params& q, const tile_work& w) {
    const halo_walk walk = halo_walk::of<T>(q, w);
    if (!q.resident_weights) pos.skip<layout::b_stages>(walk.chunks * walk.groups);
    a_pos.skip<layout::a_stages>(walk.chunks);
  }
};

template <class Cfg>
__global__ void __launch_bounds__(Cfg::threads, 1) conv_fwd_halo_kernel(const __grid_constant__ conv_fwd_halo_params p) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __trap();  // sm_90a only (wgmma, TMA, setmaxnreg); run() never launches it elsewhere
#else
  using layout = halo_smem_layout<Cfg>;
  using regs = conv_sm90_registers<Cfg>;
  extern __shared__ unsigned char smem_raw[];
  // The 128-byte swizzle pattern repeats every 1 KiB: stages start on that boundary.
  unsigned char* smem = smem_raw + ((1024 - (shared_address(smem_raw) & 1023)) & 1023);
  unsigned char* ring_a = smem;
  unsigned char* ring_b = smem + layout::b_offset;
  auto* full = reinterpret_cast<std::uint64_t*>(smem + layout::barriers_offset);
  std::uint64_t* empty = full + layout::b_stages;
  std::uint64_t* a_full = empty + layout::b_stages;
  std::uint64_t* a_empty = a_full + layout::a_stages;
  float* strips = reinterpret_cast<float*>(smem + layout::strips_offset);
  if (threadIdx.x == 0) {
    for (int s = 0; s < layout::b_stages; ++s) {
      mbarrier_init(&full[s], 1);                              // the producer's expect_tx
      mbarrier_init(&empty[s], Cfg::warpgroups_per_tile * 4);  // each warp of the consumers reading it
    }
    for (int s = 0; s < layout::a_stages; ++s) {
      mbarrier_init(&a_full[s], 1);
      mbarrier_init(&a_empty[s], Cfg::warpgroups_per_tile * 4);
    }
    mbarrier_init_fence();
  }
  __syncthreads();
  wait_for_prerequisite_grids();  // launched as a dependent of a pre-pass (cluster_launch.cuh): its writes are visible
  const int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    if constexpr (regs::reallocate) warpgroup_release_registers<regs::producer>();
    if (threadIdx.x == 0) halo_produce<Cfg>(p, ring_a, ring_b, full, empty, a_full, a_empty);
  } else {
    if constexpr (regs::reallocate) warpgroup_claim_registers<regs::consumer>();
    halo_mainloop<Cfg> mainloop(ring_a, ring_b, full, empty, a_full, a_empty, warpgroup - 1);
    conv_consume_tiles<Cfg::key, Cfg, /*PixelRows=*/true>(p, mainloop, strips, warpgroup - 1, threadIdx.x % 128);
  }
  __syncthreads();  // no thread leaves while another may still wait on a barrier it feeds
#endif
}

// The conv_kernel contract (kernels/conv/conv_kernel.hpp) for a stride1 forward key.
template <grouped_conv_key K>
struct conv_fwd_halo {
  static_assert(K.sig.spec == conv_specialization::stride1, "halo tiles are the stride1 specialization's kernel");
  static_assert(conv_fwd_sm90_unsupported_reason(K) == nullptr,
                "key not supported by the sm90 forward convolution: see sm90::conv_fwd_sm90_unsupported_reason(K)");
  static constexpr gemm_key G = conv_fwd_sm90_gemm_key(K);
  using cfg = sm90_config<G>;
  using layout = halo_smem_layout<cfg>;

  static std::size_t workspace_bytes(const grouped_conv_problem&) { return 0; }

  static std::optional<std::string> why_not(const grouped_conv_problem& p, const grouped_conv_args& a) {
    const int out_align = int(sizeof(typename cfg::out_t));
    if (auto why = implicit_gemm_fwd_reason(K, p, a, "sm90 conv",
                                            {K.algo.vector_in, K.algo.vector_wei, K.algo.vector_out, out_align},
                                            /*mapped_output=*/true))
      return why;
    if (auto why = halo_reason(p, cfg::tile_m)) return "sm90 conv: " + *why;
    if (auto why = halo_input_reason(p, a.in)) return "sm90 conv: " + *why;
    return std::nullopt;
  }

  static status run(const grouped_conv_problem& p, const grouped_conv_args& a, void* stream) {
    if (auto why = why_not(p, a)) return status::error(*why);
    const device_info dev = current_device_info();  // once a launch: each ask is a runtime call
    if (auto why = device_shortfall("sm90 conv", {9, 0, /*exact=*/true, layout::bytes}, dev))
      return status::error(*why);
    const auto e = p.implicit_gemm();
    if (e.m == 0 || e.n == 0) return status::ok();
    const cudaError_t attr = allow_dynamic_smem(kernel, layout::bytes, dev.ordinal);
    if (attr != cudaSuccess) return status::error(std::string("cudaFuncSetAttribute: ") + cudaGetErrorString(attr));
    const halo_tiling t = halo_tiling_of(p, cfg::tile_m);
    gemm_problem gp;
    gp.m = t.rows();
    gp.n = e.n;
    gp.k = e.k;
    gp.batch = p.g;
    const launch_plan shape = plan_launch(gp, cfg::tile_m, cfg::tile_n, cfg::tile_k, dev.sm_count,
                                          nullptr);  // no split of K
    conv_fwd_halo_params kp{};
    if (auto why = fill_params(kp, p, a, t, shape)) return status::error("sm90 conv (halo tiles): " + *why);
    if (const cudaError_t err = launch_in_clusters(kernel, unsigned(shape.grid), cfg::threads, layout::bytes,
                                                   static_cast<cudaStream_t>(stream), 1u, kp, /*dependent=*/true);
        err != cudaSuccess)
      return status::error(std::string("sm90 conv launch: ") + cudaGetErrorString(err));
    return status::ok();
  }

 private:
  static constexpr auto kernel = conv_fwd_halo_kernel<cfg>;

  // Whether the units' weights can stay in the ring (the file comment): one group, one column
  // tile, and every weight stage of a unit in the ring at once. KDECL_CONV_HALO_RESIDENT_WEIGHTS=0
  // turns it off (an A/B switch for benchmarks, read per call).
  static bool weights_resident(const grouped_conv_problem& p, const launch_plan& shape) {
    if (const char* off = std::getenv("KDECL_CONV_HALO_RESIDENT_WEIGHTS"); off != nullptr && off[0] == '0') return false;
    if (shape.sched.batch != 1 || shape.sched.tiles_n != 1) return false;
    const int taps = int(p.filter_dims[1] * p.filter_dims[2]);
    const std::int64_t chunks = p.filter_dims[0] * (p.c_per_group() / halo_chunk_channels);
    return chunks * (taps / halo_walk::taps_per_stage<layout::taps_per_stage>(taps)) <= layout::b_stages;
  }

  // The launch's parameters and TMA maps; why they could not be made, or nothing.
  static std::optional<std::string> fill_params(conv_fwd_halo_params& kp, const grouped_conv_problem& p,
                                                const grouped_conv_args& a, const halo_tiling& t,
                                                const launch_plan& shape) {
    const auto e = p.implicit_gemm();
    kp.out.sched = shape.sched;
    kp.out.c = a.out;
    kp.out.m = int(t.rows());
    kp.out.n = int(e.n);
    kp.out.ldc = p.out_strides.spatial[2];  // unused: rows go through the map
    kp.out.stride_c = p.out_strides.g;
    kp.out.alpha = 1.0f;
    kp.out.beta = 0.0f;
    kp.out.d_via_tma = false;
    set_fused_epilogue_inputs<K>(kp.out, p, a);
    // Every pixel's row starts on a 4-element boundary where the pointer and all strides allow.
    constexpr std::int64_t run_bytes = 4 * std::int64_t(sizeof(typename cfg::out_t));
    const std::int64_t elem = std::int64_t(sizeof(typename cfg::out_t));
    const auto whole_runs = [&](std::int64_t stride) { return (stride * elem) % run_bytes == 0; };
    const conv_tensor_strides& so = p.out_strides;
    kp.out.c_rows_aligned = reinterpret_cast<std::uintptr_t>(a.out) % run_bytes == 0 && whole_runs(so.n) &&
                            whole_runs(so.spatial[0]) && whole_runs(so.spatial[1]) && whole_runs(so.spatial[2]) &&
                            (p.g == 1 || whole_runs(so.g));
    kp.rows = halo_rows_of(p, t);
    kp.taps = int(p.filter_dims[1] * p.filter_dims[2]);
    kp.filter_x = int(p.filter_dims[2]);
    kp.channel_chunks = int(p.c_per_group() / halo_chunk_channels);
    kp.cg = int(p.c_per_group());
    kp.row_step = int(p.dilation_dims[1]);
    kp.col_step = int(p.dilation_dims[2]);
    kp.box_cols = t.box_cols;
    kp.box_bytes = t.box_rows * t.box_cols * swizzle_row_bytes;
    kp.pad_d = int(p.pad_left_dims[0]);
    kp.pad_h = int(p.pad_left_dims[1]);
    kp.pad_w = int(p.pad_left_dims[2]);
    kp.dilation_d = int(p.dilation_dims[0]);
    kp.resident_weights = weights_resident(p, shape) ? 1 : 0;
    if (auto why = encode_halo_input_map(kp.out.map_a, p, a.in, t)) return why;
    operand_view wei{a.wei, K.sig.wei, e.k, e.n, p.g, p.wei_strides.n, p.wei_strides.g, cfg::tile_k, cfg::tile_n};
    return encode_tensor_map(kp.out.map_b, wei);
  }
};

}  // namespace kdecl::kernels::cuda::sm90
