// The sm_90a forward convolution: the implicit GEMM of each group on the sm_90
// convolution kernel (conv_sm90_kernel.cuh: a producer warpgroup, the tma_wgmma
// GEMM's consumers, epilogues and persistent scheduler). Two producers:
// - TMA (conv_fwd_tma_producer), where C/G is a multiple of 64: im2col-mode loads
//   of the input for A, 2-D boxes of the weights for B, issued by one thread;
// - the gather elsewhere: for a k-block each producer thread owns one 16-byte chunk
// column (8 channels) of the 64-deep slice and every 16th row: it decodes its
// chunk's filter tap once, then for each of its rows (output pixels) copies 8
// input channels of that tap (zeros in the padding) and for each of its weight
// rows 8 taps x channels. Chunk j of row r lands at chunk j ^ (r % 8): the layout
// TMA's 128-byte swizzle gives, which the wgmma descriptors expect. Layers whose
// tiles fill less than half the SMs (deep layers of a small batch) split K over a
// cluster (split_k.cuh).
// - merged groups (the key's groups_to_merge = m > 1, kernels/conv/merged_groups.hpp): the
//   GEMM's group is m neighbouring groups side by side, so a 64- or 128-wide tile is not
//   wasted on K/G = 4..32 channels. A and C are those of the convolution with G / m groups;
//   B is block-diagonal: the gather reads each weight row from its own group's filter and
//   zero-fills the chunks of the other groups' channels (in 8-byte halves where C/G is not
//   a multiple of 8). Where the view's input allows TMA (m x C/G a multiple of 64) a forward
//   launch instead writes the view's block-diagonal weights into the workspace
//   (block_diagonal_weights.cuh) and runs the TMA producer on the view as on any convolution.
//
//   A (M x K) = im2col(input of group g), M = N x output pixels, K = C/G x taps
//   B (N x K) = weights of group g (each output channel's taps x C/G contiguous)
//   C (M x N) = output of group g: the GEMM's batch g, stride = the group stride
//
// Entry point: sm90::conv_fwd<K> with the conv_kernel contract (kernels/conv/conv_kernel.hpp).
// conv_fwd<K, true> stores each output pixel through a pixel map (params.rows) and so
// takes outputs whose pixels are not evenly strided: backward-data's stride phases
// (conv_bwd_data_sm90.cuh) run it, several phases in one launch (launch_set,
// conv_phase_set.cuh).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/cuda/block_diagonal_weights.cuh"
#include "kdecl/kernels/conv/bwd_data_stored_weights.hpp"
#include "kdecl/kernels/conv/implicit_gemm_fwd_problem.hpp"
#include "kdecl/kernels/conv/merged_groups.hpp"
#include "kdecl/kernels/conv/pixel_rows.hpp"
#include "kdecl/kernels/conv/im2col_index.hpp"
#include "kdecl/kernels/conv/cuda/sm90/conv_fwd_sm90_config.cuh"
#include "kdecl/kernels/conv/cuda/sm90/conv_phase_set.cuh"
#include "kdecl/kernels/conv/cuda/sm90/conv_sm90_kernel.cuh"
#include "kdecl/kernels/conv/cuda/sm90/fused_epilogue_inputs.cuh"
#include "kdecl/kernels/conv/cuda/sm90/input_im2col_map.cuh"
#include "kdecl/kernels/cuda/dynamic_smem.cuh"
#include "kdecl/kernels/cuda/sm90/tensor_map.cuh"
#include "kdecl/kernels/cuda/sm90/tma_load.cuh"
#include "kdecl/kernels/cuda/sm90/tma_load_4d.cuh"
#include "kdecl/kernels/cuda/sm90/tma_load_im2col.cuh"
#include "kdecl/kernels/cuda/sm90/cluster_launch.cuh"
#include "kdecl/kernels/cuda/device_info.cuh"
#include "kdecl/kernels/cuda/stream_scratch.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90.cuh"
#include "kdecl/kernels/conv/cuda/sm90/output_tma_map.cuh"
#include "kdecl/kernels/conv/cuda/sm90/stored_weights_map.cuh"

namespace kdecl::kernels::cuda::sm90 {

struct conv_fwd_sm90_params {
  gemm_sm90_params out;            // the epilogue's view: C, M, N, ldc, group stride; the scheduler
  kernels::conv_gather_geometry geo;  // the im2col gather (kernels/conv/im2col_index.hpp)
  const void* in;                  // group 0
  const void* wei;                 // group 0
  std::int64_t in_g, wei_g;        // group strides (elements)
  std::int64_t wei_k;              // stride between output channels' filters
  pixel_row_map rows;              // where output pixel m goes (read by conv_fwd<K, true> only)
  // Merged groups (groups_to_merge > 1; in_g, wei_g and the GEMM's group are the merged block's):
  // one group's C/G and K/G, and the weights' stride between single groups.
  int group_cg, group_kg;
  std::int64_t group_wei_g;
  // conv_fwd<K, true, true> (backward-data's W as stored, out.map_b over its lines): the line of
  // each forward tap (bwd_data_stored_weights.hpp).
  kernels::stored_weight_taps wtaps;

  __device__ k_block_range k_range(const tile_work& w) const { return {w.k_block_begin, w.k_block_end}; }
};

// One producer thread's share of every stage: chunk column `chunk` of rows
// `lane_row`, `lane_row` + 16, ... of the A slot (tile_m rows) and of the B slot
// (tile_n rows). Spatial dimensions are the trailing Ndim of the 3-D geometry.
// Merge > 1: the weights of Merge groups side by side (block-diagonal B, see the file comment).
template <class Cfg, class T, int Ndim, int Merge = 1>
struct conv_fwd_gather {
  using params = conv_fwd_sm90_params;
  static constexpr int a_rows = Cfg::tile_m / 16;
  static constexpr int b_rows = Cfg::tile_n / 16;
  static constexpr int first_dim = 3 - Ndim;
  static constexpr int outside = -(1 << 30);  // a row past M: every tap falls outside

  int chunk, lane_row, swizzled;  // swizzled: byte offset of the chunk in each of this thread's rows
  std::int64_t a_off[a_rows];     // row's image offset + its first tap's position x input strides
  int a_pos[a_rows][Ndim];        // row's first tap position per spatial dimension
  const T* in;                    // the group's input
  const T* b_base;                // the group's weights
  const T* b_row0;                // this thread's first weight row (may be past N: then b_left <= 0)
  int b_left;                     // weight rows from b_row0 up to N
  // Merged groups: each of this thread's weight rows' offset from b_base (its group's filter
  // row) and its group within the block (-1 past N).
  std::int64_t b_off[Merge > 1 ? b_rows : 1];
  int b_group[Merge > 1 ? b_rows : 1];

  __device__ explicit conv_fwd_gather(int tid) : chunk(tid % 8), lane_row(tid / 8) {
    swizzled = (chunk ^ (lane_row % 8)) * 16;
  }

  __device__ void start_tile(const conv_fwd_sm90_params& p, const tile_work& w) {
    const auto& geo = p.geo;
    const int m0 = w.tile_m * Cfg::tile_m, n0 = w.tile_n * Cfg::tile_n, g = w.batch;
    in = static_cast<const T*>(p.in) + g * p.in_g;
#pragma unroll
    for (int i = 0; i < a_rows; ++i) {
      const int m = m0 + lane_row + 16 * i;
      const kernels::im2col_row row = kernels::im2col_row_of(geo, m < geo.m ? m : 0);
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
    if constexpr (Merge > 1) {
#pragma unroll
      for (int j = 0; j < b_rows; ++j) {
        const int n = n0 + lane_row + 16 * j;
        const int group = n / p.group_kg;
        b_group[j] = n < p.out.n ? group : -1;
        b_off[j] = group * p.group_wei_g + std::int64_t(n - group * p.group_kg) * p.wei_k;
      }
    }
  }

  // The copies of k-block `kb` into the stage at shared addresses a_slot / b_slot.
  __device__ void load(const conv_fwd_sm90_params& p, int kb, std::uint32_t a_slot, std::uint32_t b_slot) const {
    const auto& geo = p.geo;
    const int kk = kb * Cfg::tile_k + chunk * 8;
    const bool k_inside = kk < geo.k;
    // This chunk's tap and channel (the same for every row), and the tap's offset.
    const int tap = kk / geo.cg;
    const int c = kk - tap * geo.cg;
    const kernels::tap_position t = kernels::tap_position_of(geo, tap);
    int reach[Ndim];
    std::int64_t tap_off = c;
#pragma unroll
    for (int d = 0; d < Ndim; ++d) {
      reach[d] = t.f[first_dim + d] * geo.dilation[first_dim + d];
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
    if constexpr (Merge > 1) {
      load_merged_weights(p, k_inside, tap, c, b_slot);
    } else {
#pragma unroll
      for (int j = 0; j < b_rows; ++j) {
        const bool inside = k_inside && 16 * j < b_left;
        sm80::cp_async<16>(b_slot + (lane_row + 16 * j) * swizzle_row_bytes + swizzled,
                           inside ? b_row0 + std::int64_t(16 * j) * p.wei_k + kk : b_base, inside ? 16 : 0);
      }
    }
  }

  // Block-diagonal B: chunk channels c..c+7 of the block (tap `tap`) belong to group c / (C/G);
  // a row of another group gets zeros. Where C/G is a multiple of 8 a chunk lies in one group;
  // else (C/G a multiple of 4, checked by why_not) each 4-channel half does.
  __device__ void load_merged_weights(const conv_fwd_sm90_params& p, bool k_inside, int tap, int c,
                                      std::uint32_t b_slot) const {
    const int cg = p.group_cg;
    if (cg % 8 == 0) {
      const int group = c / cg;
      const std::int64_t at = std::int64_t(tap) * cg + (c - group * cg);
#pragma unroll
      for (int j = 0; j < b_rows; ++j) {
        const bool inside = k_inside && b_group[j] == group;
        sm80::cp_async<16>(b_slot + (lane_row + 16 * j) * swizzle_row_bytes + swizzled,
                           inside ? b_base + b_off[j] + at : b_base, inside ? 16 : 0);
      }
    } else {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int ch = c + 4 * h, group = ch / cg;
        const std::int64_t at = std::int64_t(tap) * cg + (ch - group * cg);
#pragma unroll
        for (int j = 0; j < b_rows; ++j) {
          const bool inside = k_inside && b_group[j] == group;
          sm80::cp_async<8>(b_slot + (lane_row + 16 * j) * swizzle_row_bytes + swizzled + 8 * h,
                            inside ? b_base + b_off[j] + at : b_base, inside ? 8 : 0);
        }
      }
    }
  }
};

// The TMA producer, where the input allows it (input_im2col_reason; the maps in out.map_a
// and out.map_b): per k-block (64 channels of one tap, C/G a multiple of 64) one thread
// issues an im2col load of the input per 64 rows of the A slot (output pixels; each
// load's first pixel decoded once per tile) and one 2-D box of the weights
// (tile_n output channels x the k-block) for the B slot. A blocks wholly past M are
// not loaded: their rows of C are never stored. StoredWeights (backward-data reading W as
// stored): B is N-major, one box of 64 channels x the k-block per 64 columns of the tile, from
// the tap's line of W (out.map_b: channels, lines, K/G, G).
template <class Cfg, int Ndim, class Params = conv_fwd_sm90_params, bool StoredWeights = false>
struct conv_fwd_tma_producer
    : single_thread_producer<conv_fwd_tma_producer<Cfg, Ndim, Params, StoredWeights>, Params> {
  using params = Params;  // one convolution's, or a set of them (conv_phase_set.cuh)
  static constexpr int a_blocks = Cfg::tile_m / im2col_pixels_per_load;
  static_assert(Cfg::tile_k == im2col_channels_per_load, "a k-block is one im2col load's channels");

  __device__ static void produce(const params& set, unsigned char* ring_a, unsigned char* ring_b,
                                 std::uint64_t* full, std::uint64_t* empty) {
    ring_position pos;
    const int units = launch_units(set);
    for (int unit = blockIdx.x; unit < units; unit += gridDim.x) {
      const auto u = locate_unit(set, unit);
      const conv_fwd_sm90_params& p = *u.p;
      const auto& geo = p.geo;
      const tile_work w = u.w;
      const int g = w.batch;
      const int m0 = w.tile_m * Cfg::tile_m, n0 = w.tile_n * Cfg::tile_n;
      // Each A block's first output pixel: its image and window origin.
      im2col_window window[a_blocks];
      std::uint32_t bytes = Cfg::b_stage_bytes;  // the weights' box, zero-filled past N
#pragma unroll
      for (int j = 0; j < a_blocks; ++j) {
        const int q = m0 + im2col_pixels_per_load * j;
        if (q < p.out.m) bytes += mn_block_bytes;
        window[j] = im2col_window_of<Ndim>(geo, q);
      }
      for (int kb = w.k_block_begin; kb < w.k_block_end; ++kb) {
        const int k0 = kb * Cfg::tile_k;
        const int tap = k0 / geo.cg;
        int reach[3];
        im2col_tap_offsets<Ndim>(geo, tap, reach);
        const int channel = g * geo.cg + (k0 - tap * geo.cg);
        mbarrier_wait(&empty[pos.stage], pos.phase ^ 1);
        mbarrier_arrive_expect_tx(&full[pos.stage], bytes);
        unsigned char* a = ring_a + pos.stage * Cfg::a_stage_bytes;
        unsigned char* b = ring_b + pos.stage * Cfg::b_stage_bytes;
#pragma unroll
        for (int j = 0; j < a_blocks; ++j)
          if (m0 + im2col_pixels_per_load * j < p.out.m)
            tma_load_im2col<Ndim>(a + j * mn_block_bytes, &p.out.map_a, &full[pos.stage], channel, window[j].origin,
                                  window[j].image, reach);
        if constexpr (StoredWeights) {
          const int line = p.wtaps.line_of(kernels::tap_position_of(geo, tap).f);
#pragma unroll
          for (int j = 0; j < Cfg::tile_n / 64; ++j)
            tma_load_4d(b + j * mn_block_bytes, &p.out.map_b, &full[pos.stage], n0 + 64 * j, line, k0 - tap * geo.cg, g);
        } else {
          tma_load_3d(b, &p.out.map_b, &full[pos.stage], k0, n0, g);
        }
        pos.advance<Cfg::stages>();
      }
    }
  }
};

template <grouped_conv_key K, bool PixelRows = false, bool StoredWeights = false>
struct conv_fwd {
  static_assert(conv_fwd_sm90_unsupported_reason(K) == nullptr,
                "key not supported by the sm90 forward convolution: see sm90::conv_fwd_sm90_unsupported_reason(K)");
  static_assert(!StoredWeights || (PixelRows && conv_fwd_reads_stored_weights(K)),
                "W as stored: backward-data's phases (pixel rows), one group per GEMM, an rrr GEMM key the kernel builds");
  static constexpr gemm_key G = StoredWeights ? stored_weights_gemm_key(K) : conv_fwd_sm90_gemm_key(K);
  using cfg = sm90_config<G>;
  using data_t = storage_t<K.sig.in>;
  static constexpr int merge = K.algo.groups_to_merge;  // groups side by side in one GEMM (merged_groups.hpp)

  // Merged groups on the TMA producer: the view's block-diagonal weights (and slack to align them).
  static std::size_t workspace_bytes(const grouped_conv_problem& p) {
    if (!merges_through_tma(p)) return 0;
    return block_diagonal_align + std::size_t(block_diagonal_map_of(p, merge).elements()) * sizeof(data_t);
  }

  static std::optional<std::string> why_not(const grouped_conv_problem& p, const grouped_conv_args& a) {
    const int out_align = int(sizeof(typename cfg::out_t));
    if constexpr (merge == 1) {
      return implicit_gemm_fwd_reason(K, p, a, "sm90 conv", {K.algo.vector_in, K.algo.vector_wei, K.algo.vector_out, out_align},
                                      PixelRows);
    } else {
      if (auto why = merged_groups_reason(p, merge)) return "sm90 conv: " + *why;
      // Each group's weights are read in 8-byte halves of a chunk at least (4 elements), the
      // merged groups' input and output channels in 16-byte vectors.
      constexpr int half = 8 / int(sizeof(data_t));
      if (auto why = implicit_gemm_fwd_reason(K, p, a, "sm90 conv", {half, half, half, out_align}, PixelRows)) return why;
      const grouped_conv_problem v = merged_groups_view(p, merge);
      if (v.c_per_group() % K.algo.vector_in != 0 || v.k_per_group() % K.algo.vector_out != 0)
        return "sm90 conv: " + std::to_string(merge) + " x C/G and " + std::to_string(merge) +
               " x K/G must be multiples of the input (" + std::to_string(K.algo.vector_in) + ") and output (" +
               std::to_string(K.algo.vector_out) + ") vectors";
      if (reinterpret_cast<std::uintptr_t>(a.in) % 16 != 0)
        return std::string("sm90 conv: in must be 16-byte aligned (merged groups' channels are gathered in 16-byte vectors)");
      for (std::int64_t stride : {v.in_strides.n, v.in_strides.spatial[0], v.in_strides.spatial[1], v.in_strides.spatial[2]})
        if (stride % K.algo.vector_in != 0)
          return std::string("sm90 conv: input strides must be multiples of the input vector");
      if (!PixelRows && v.out_strides.spatial[2] % K.algo.vector_out != 0)
        return std::string("sm90 conv: output strides must be multiples of the output vector");
      return std::nullopt;
    }
  }

  // How the problem is laid over the device: the persistent grid, the raster and, where the
  // tiles fill less than half the SMs, the split of K over a cluster.
  static launch_plan plan(const grouped_conv_problem& p) { return plan(p, current_device_info()); }
  static launch_plan plan(const grouped_conv_problem& p, const device_info& dev) {
    return plan_of(p, dev, cfg::split_k_fits ? &cluster_capacity_of(dev) : nullptr);
  }

  // What device `dev` (current_device_info(), asked once per launch) must provide.
  static std::optional<std::string> device_reason(const device_info& dev) {
    return device_shortfall("sm90 conv", {9, 0, /*exact=*/true, cfg::smem_bytes}, dev);
  }

  static status run(const grouped_conv_problem& p, const grouped_conv_args& a, void* stream) {
    if (auto why = why_not(p, a)) return status::error(*why);
    const device_info dev = current_device_info();
    if (auto why = device_reason(dev)) return status::error(*why);
    return launch(p, a, stream, dev);
  }

  // run()'s launch on `dev`, after its checks.
  static status launch(const grouped_conv_problem& p, const grouped_conv_args& a, void* stream,
                       const device_info& dev) {
    static_assert(!StoredWeights, "conv_fwd<K, true, true> runs backward-data's phases only (launch_set_on_stored_weights)");
    const auto e = p.implicit_gemm();
    if (e.m == 0 || e.n == 0) return status::ok();

    if (const cudaError_t attr = prepare_kernel(dev.ordinal); attr != cudaSuccess)
      return status::error(std::string("cudaFuncSetAttribute: ") + cudaGetErrorString(attr));
    const launch_plan shape = plan(p, dev);
    conv_fwd_sm90_params kp{};
    bool tma = fill_params(kp, p, a, shape);
    const auto st = static_cast<cudaStream_t>(stream);
    // Merged groups on the TMA producer: the view's weights written out first (in the workspace,
    // or stream-ordered memory of the kernel's own), then the view as any convolution.
    std::optional<stream_scratch> weights;  // freed (stream-ordered) after the launch below
    if (merges_through_tma(p)) {
      weights.emplace(a.workspace, a.workspace_bytes, workspace_bytes(p), block_diagonal_align, st,
                      "sm90 conv: the merged groups' block-diagonal weights");
      if (!*weights) return weights->error();
      const block_diagonal_map map = block_diagonal_map_of(p, merge);
      if (status done = block_diagonal_weights(map, a.wei, weights->get(), st); !done.is_ok()) return done;
      grouped_conv_problem view = merged_groups_view(p, merge);
      view.wei_strides.n = std::int64_t(map.taps) * map.merge * map.cg;
      view.wei_strides.g = view.wei_strides.n * map.merge * map.kg;
      grouped_conv_args view_args = a;
      view_args.wei = weights->get();
      tma = !encode_tma_maps(kp, view, view_args);  // else the gather, which reads the weights as they are
    }
    // The splits of a tile form a cluster.
    if (const cudaError_t err = launch_in_clusters(tma ? tma_kernel : kernel, unsigned(shape.grid), cfg::threads,
                                                   cfg::smem_bytes,
                                                   st, static_cast<unsigned>(shape.sched.splits), kp,
                                                   /*dependent=*/true);
        err != cudaSuccess)
      return status::error(std::string("sm90 conv launch: ") + cudaGetErrorString(err));
    return status::ok();
  }

  // A set's capacity: every stride-2 phase of the key's dimensions (2, 4 or 8). The parameters
  // of a launch are the whole set's (1.7 KB a phase), copied by the driver on every launch
  // whatever its count: sized by the dimensions, a 2-D set takes half of 8 phases' 13 KB.
  static constexpr int phases_per_launch = 1 << K.sig.ndim;

  // Up to phases_per_launch convolutions in one launch (conv_phase_set.cuh: their units
  // walked as one list), without run()'s checks: backward-data's stride phases. Empty ones
  // are skipped. Where their tiles together fill less than half the SMs, every member's K
  // is split the same number of times over a cluster (plan_launch's rule on the set: the
  // launch has one cluster size). TMA loads where every member allows them, else the gather.
  // `dev`: current_device_info(), which device_reason(dev) accepted.
  static status launch_set(const grouped_conv_problem* problems, const grouped_conv_args* args, int count,
                           void* stream, const device_info& dev) {
    static_assert(!StoredWeights, "conv_fwd<K, true, true> launches through launch_set_on_stored_weights");
    return launch_phases(problems, args, count, stream, dev, nullptr, nullptr);
  }

  // launch_set on W as stored (conv_fwd<K, true, true>): the phases' weights are `w`, each
  // phase's taps on its lines taps[i]; args[i].wei is not read. TMA only: stored_weights_reason
  // says beforehand whether the problems and pointers allow it.
  static status launch_set_on_stored_weights(const grouped_conv_problem* problems, const grouped_conv_args* args,
                                             const kernels::stored_weight_taps* taps, int count,
                                             const stored_weights_operand& w, void* stream, const device_info& dev) {
    static_assert(StoredWeights, "launch_set_on_stored_weights is conv_fwd<K, true, true>'s");
    return launch_phases(problems, args, count, stream, dev, &w, taps);
  }

  // Why a phase cannot run on W as stored (conv_fwd<K, true, true>): its input's im2col map
  // (dy from the phase's offset) or W's map, as launch_set_on_stored_weights would encode them.
  static std::optional<std::string> stored_weights_reason(const grouped_conv_problem& p, const grouped_conv_args& a,
                                                          const stored_weights_operand& w) {
    static_assert(StoredWeights, "stored_weights_reason is conv_fwd<K, true, true>'s");
    if (auto why = input_im2col_reason(p)) return "sm90 conv (W as stored): " + *why;
    CUtensorMap map;
    if (auto why = encode_input_im2col(map, p, a.in)) return "sm90 conv (W as stored): dy's im2col map: " + *why;
    if (auto why = encode_stored_weights_map(map, w)) return "sm90 conv (W as stored): W's map: " + *why;
    return std::nullopt;
  }

 private:
  // launch_set's body; with `w`, on W as stored.
  static status launch_phases(const grouped_conv_problem* problems, const grouped_conv_args* args, int count,
                              void* stream, const device_info& dev, const stored_weights_operand* w,
                              const kernels::stored_weight_taps* taps) {
    static_assert(PixelRows, "phase sets are backward-data's stride phases, stored through pixel maps");
    if (count < 1 || count > phases_per_launch)
      return status::error("sm90 conv launch_set: " + std::to_string(count) + " convolutions (1 to " +
                           std::to_string(phases_per_launch) + " per launch)");
    if (const cudaError_t attr = prepare_set_kernels(dev.ordinal); attr != cudaSuccess)
      return status::error(std::string("cudaFuncSetAttribute: ") + cudaGetErrorString(attr));
    const int sms = std::max(dev.sm_count, 1);
    set_params sp{};
    bool tma = true;
    int tiles = 0, fewest_k_blocks = std::numeric_limits<int>::max();
    CUtensorMap stored_map;  // W as stored: one map for every phase
    if (w)
      if (auto why = encode_stored_weights_map(stored_map, *w)) return status::error("sm90 conv, W's map: " + *why);
    for (int i = 0; i < count; ++i) {
      const grouped_conv_problem& p = problems[i];
      const auto e = p.implicit_gemm();
      if (e.m == 0 || e.n == 0) continue;
      const launch_plan shape = plan_of(p, dev, nullptr);
      conv_fwd_sm90_params& kp = sp.phase[sp.count++];
      tma = fill_params(kp, p, args[i], shape) && tma;
      if (w) {
        kp.out.map_b = stored_map;
        kp.wtaps = taps[i];
      }
      tiles += shape.sched.tiles();
      fewest_k_blocks = std::min(fewest_k_blocks, shape.sched.k_blocks);
    }
    if (sp.count == 0) return status::ok();
    // plan_launch's rule on the set's tiles and its shallowest phase.
    const int splits =
        cfg::split_k_fits && 2 * tiles <= sms ? cluster_split_count(tiles, fewest_k_blocks, sms, set_cluster_capacity_of(dev)) : 1;
    int units = 0;
    for (int i = 0; i < sp.count; ++i) {
      sp.phase[i].out.sched.splits = splits;
      sp.first_unit[i] = units;
      units += sp.phase[i].out.sched.units();
    }
    sp.first_unit[sp.count] = units;
    const int grid = splits > 1 ? units : std::min(units, sms);  // a split tile's blocks form a cluster
    if (w && !tma) return status::error("sm90 conv (W as stored): a phase's input has no im2col map");
    if (const cudaError_t err = launch_in_clusters(tma ? set_tma_kernel : set_kernel, unsigned(grid), cfg::threads,
                                                   cfg::smem_bytes, static_cast<cudaStream_t>(stream),
                                                   static_cast<unsigned>(splits), sp, /*dependent=*/true);
        err != cudaSuccess)
      return status::error(std::string("sm90 conv launch: ") + cudaGetErrorString(err));
    return status::ok();
  }

  using gather = conv_fwd_gather<cfg, data_t, K.sig.ndim, merge>;
  // The phase-set kernels (launch_set).
  using set_params = phase_set_params<conv_fwd_sm90_params, phases_per_launch>;
  static_assert(sizeof(set_params) <= 32764, "a phase set must fit the kernel parameter space");
  using set_tma_producer = std::conditional_t<(merge > 1), gathering_producer<cfg, gather, set_params>,
                                              conv_fwd_tma_producer<cfg, K.sig.ndim, set_params, StoredWeights>>;
  static constexpr auto set_tma_kernel = conv_sm90_kernel<cfg, set_tma_producer, PixelRows>;
  // On W as stored every kernel below is set_tma_kernel: naming a kernel compiles it, and the
  // gathering producers write B K-major, which that config's wgmma does not read.
  template <class Producer>
  using or_stored = std::conditional_t<StoredWeights, set_tma_producer, Producer>;
  static constexpr auto set_kernel =
      conv_sm90_kernel<cfg, or_stored<gathering_producer<cfg, gather, set_params>>, PixelRows>;
  static constexpr auto kernel = conv_sm90_kernel<cfg, or_stored<gathering_producer<cfg, gather>>, PixelRows>;
  // Merged groups: a forward launch runs the TMA producer on the view's block-diagonal weights
  // (merges_through_tma); backward-data's phases gather (their "TMA twin" is the gathering kernel).
  using tma_producer = std::conditional_t<(merge > 1 && PixelRows), gathering_producer<cfg, gather>,
                                          conv_fwd_tma_producer<cfg, K.sig.ndim>>;
  static constexpr auto tma_kernel = conv_sm90_kernel<cfg, or_stored<tma_producer>, PixelRows>;

  static constexpr std::size_t block_diagonal_align = 128;
  // A forward launch of merged groups whose view the TMA producer loads: the view's input
  // allows im2col loads (m x C/G a multiple of 64, the merged groups' channels adjacent).
  static bool merges_through_tma(const grouped_conv_problem& p) {
    if constexpr (merge == 1 || PixelRows) {
      return false;
    } else {
      return !merged_groups_reason(p, merge) && !input_im2col_reason(merged_groups_view(p, merge));
    }
  }

  // plan() on a device already asked, with a cluster capacity (split K) or without (nullptr).
  static launch_plan plan_of(const grouped_conv_problem& p, const device_info& dev, const cluster_capacity* capacity) {
    const auto e = merged_groups_view(p, merge).implicit_gemm();
    gemm_problem gp;
    gp.m = e.m;
    gp.n = e.n;
    gp.k = e.k;
    gp.batch = p.g / merge;
    return plan_launch(gp, cfg::tile_m, cfg::tile_n, cfg::tile_k, dev.sm_count, capacity);
  }

  // The kernel's parameters for `real` on `shape`; true where the TMA maps were encoded (the
  // input allows im2col loads), false where the gather must run. Merged groups: A and C those
  // of the view (G / merge groups), the weights read by single groups (the gather only).
  static bool fill_params(conv_fwd_sm90_params& kp, const grouped_conv_problem& real, const grouped_conv_args& a,
                          const launch_plan& shape) {
    const grouped_conv_problem p = merged_groups_view(real, merge);
    const auto e = p.implicit_gemm();
    kp.out.sched = shape.sched;
    kp.out.c = a.out;
    kp.out.m = int(e.m);
    kp.out.n = int(e.n);
    kp.out.ldc = p.out_strides.spatial[2];
    kp.out.stride_c = p.out_strides.g;
    kp.out.alpha = 1.0f;
    kp.out.beta = 0.0f;
    kp.out.d_via_tma = false;
    set_fused_epilogue_inputs<K>(kp.out, p, a);
    constexpr std::int64_t run_bytes = 4 * std::int64_t(sizeof(typename cfg::out_t));  // cshuffle's vector
    const std::int64_t elem = std::int64_t(sizeof(typename cfg::out_t));
    const auto whole_runs = [&](std::int64_t stride) { return (stride * elem) % run_bytes == 0; };
    kp.out.c_rows_aligned = reinterpret_cast<std::uintptr_t>(a.out) % run_bytes == 0 && whole_runs(kp.out.ldc) &&
                            (p.g == 1 || whole_runs(kp.out.stride_c));
    if constexpr (PixelRows)  // every pixel's row, not only every ldc-th
      kp.out.c_rows_aligned = kp.out.c_rows_aligned && whole_runs(p.out_strides.n) &&
                              whole_runs(p.out_strides.spatial[0]) && whole_runs(p.out_strides.spatial[1]);
    // The output through TMA where its rows are ldc apart and it allows it (output_tma_map.cuh).
    if constexpr (!PixelRows) kp.out.c_via_tma = encode_output_tma_map<G>(kp.out, int(p.g));
    kp.rows = output_pixel_rows(p);
    kp.geo = kernels::gather_geometry_of(p);
    kp.in = a.in;
    kp.wei = a.wei;
    kp.in_g = p.in_strides.g;
    kp.wei_g = merge * real.wei_strides.g;
    kp.wei_k = p.wei_strides.n;
    kp.group_cg = int(real.c_per_group());
    kp.group_kg = int(real.k_per_group());
    kp.group_wei_g = real.wei_strides.g;
    return merge == 1 && !input_im2col_reason(p) && !encode_tma_maps(kp, p, a);
  }

  // Raises the phase-set kernels' dynamic shared-memory limit (once per kernel and device: dynamic_smem.cuh).
  static cudaError_t prepare_set_kernels(int device) {
    return allow_shared_memory(reinterpret_cast<const void*>(set_kernel), reinterpret_cast<const void*>(set_tma_kernel),
                               device);
  }
  static const cluster_capacity& set_cluster_capacity_of(const device_info& dev) {
    static cluster_capacity_table table;
    prepare_set_kernels(dev.ordinal);
    return table.of(reinterpret_cast<const void*>(set_kernel), cfg::threads, cfg::smem_bytes, dev);
  }

  // The TMA producer's maps: the input's im2col view (out.map_a) and the weights as
  // [G][K/G][taps x C/G] boxes of tile_n rows (out.map_b). Empty on success.
  static std::optional<std::string> encode_tma_maps(conv_fwd_sm90_params& kp, const grouped_conv_problem& p,
                                                    const grouped_conv_args& a) {
    if (auto why = encode_input_im2col(kp.out.map_a, p, a.in)) return why;
    if constexpr (StoredWeights) return std::nullopt;  // out.map_b: W's lines, set by launch_phases
    const auto e = p.implicit_gemm();
    operand_view wei{a.wei, K.sig.wei, e.k, e.n, p.g, p.wei_strides.n, p.wei_strides.g, cfg::tile_k, cfg::tile_n};
    return encode_tensor_map(kp.out.map_b, wei);
  }

  // The dynamic shared memory the config needs, allowed to a gathering kernel and its TMA twin.
  static cudaError_t allow_shared_memory(const void* gathering, const void* tma, int device) {
    const cudaError_t err = allow_dynamic_smem(gathering, cfg::smem_bytes, device);
    return err != cudaSuccess ? err : allow_dynamic_smem(tma, cfg::smem_bytes, device);
  }

  // Raises both kernels' dynamic shared-memory limit (once per kernel and device: dynamic_smem.cuh).
  static cudaError_t prepare_kernel(int device) {
    return allow_shared_memory(reinterpret_cast<const void*>(kernel), reinterpret_cast<const void*>(tma_kernel),
                               device);
  }

  // Blocks of each cluster size that fit at once on the device, asked once per device.
  static const cluster_capacity& cluster_capacity_of(const device_info& dev) {
    static cluster_capacity_table table;
    prepare_kernel(dev.ordinal);
    return table.of(reinterpret_cast<const void*>(kernel), cfg::threads, cfg::smem_bytes, dev);
  }
};

}  // namespace kdecl::kernels::cuda::sm90
