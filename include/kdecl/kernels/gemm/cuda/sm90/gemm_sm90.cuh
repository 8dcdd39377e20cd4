// Entry point of the sm_90a tma_wgmma GEMM family (see docs/kernels/sm90.md):
//   sm90::gemm<K>::why_not / run / workspace_bytes, the gemm_kernel contract.
//
// run() builds the two TMA descriptors (and C's, where the epilogue stores C through
// TMA), plans the persistent grid (one block per SM, grouped tile order, split-K over a
// thread-block cluster when the output has too few tiles to occupy the SMs, the last
// wave's tiles split in K where it is less than half full; pairs of blocks for a multicast
// cluster key) and launches the kernel. Only the split tail uses workspace.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/core/status.hpp"
#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/gemm/gemm_problem.hpp"
#include "kdecl/kernels/cuda/dynamic_smem.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/cluster_capacity.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/d_tiles.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/epilogue_tma_store.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/tail_split.cuh"
#include "kdecl/kernels/cuda/stream_scratch.cuh"
#include "kdecl/kernels/cuda/device_info.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90_config.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90_kernel.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90_params.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/problem_reason.cuh"
#include "kdecl/kernels/cuda/sm90/cluster_launch.cuh"
#include "kdecl/kernels/cuda/sm90/tensor_map.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/tile_scheduler.cuh"

namespace kdecl::kernels::cuda::sm90 {

// Launch geometry of one problem.
struct launch_plan {
  tile_scheduler sched{};
  int grid = 0;
};

inline constexpr int min_k_blocks_per_split = 4;

// K splits (a cluster of that many blocks per tile) for `tiles` tiles of `k_blocks` k-blocks:
// only when fewer than half the SMs would have a tile (then the job is bound by how fast the
// busy SMs can stream B, and more streams win), the largest cluster whose clusters all fit on
// the GPU at once (so no cluster waits for a second wave); else 1.
inline int cluster_split_count(int tiles, int k_blocks, int sm_count, const cluster_capacity& capacity) {
  const int sms = std::max(sm_count, 1);
  if (2 * tiles > sms) return 1;
  const int most = std::min(max_cluster_splits, k_blocks / min_k_blocks_per_split);
  for (int splits = most; splits >= 2; --splits)
    if (tiles * splits <= std::min(capacity[splits], sms)) return splits;
  return 1;
}

// Whether run() launches the plan as a programmatic dependent of the kernel before it in the
// stream (dependent_launch.cuh; gemm_sm90_kernel waits for that kernel before it touches global
// memory): where a block's work is short, at most 2^28 flops (2^27 multiply-adds; about 40-50 us of one
// SM's tensor cores; 128 k-blocks of a 128x128 tile). There the launch, the barrier set-up and
// the tensor-map prefetch, 1-2 us of a 7-30 us kernel, run under the kernel before: 4-20% faster
// back to back on an H100. Longer persistent runs (4096^3, 8192^3, 16384x3072x768) were 3-13%
// slower launched that way (sm90_probe pdl, docs/perf/h100-2026-12-06-dependent-launch-gemm/),
// so they launch as before. KDECL_DEPENDENT_LAUNCH=0 turns it off everywhere.
inline constexpr double dependent_launch_max_block_flops = double(1 << 28);

// How many walkers share the plan's units, as the kernel's grid_place counts them: the pairs of a
// multicast cluster (`cluster_size` 2) walk together; otherwise, split-K clusters included, every
// block walks its own.
inline int unit_walkers(const launch_plan& plan, int cluster_size) {
  return plan.sched.splits > 1 ? plan.grid : plan.grid / std::max(cluster_size, 1);
}

inline bool launches_as_dependent(const launch_plan& plan, int tile_m, int tile_n, int tile_k, int cluster_size) {
  const tile_scheduler& s = plan.sched;
  const int clusters = unit_walkers(plan, cluster_size);
  const int k_blocks_per_unit = (s.k_blocks + s.splits - 1) / std::max(s.splits, 1);
  const double block_flops =
      2.0 * s.units_for(0, std::max(clusters, 1)) * k_blocks_per_unit * double(tile_m) * tile_n * tile_k;
  return block_flops <= dependent_launch_max_block_flops;
}

// `capacity` == nullptr: never split K. A multicast cluster (cluster_m or cluster_n = 2)
// never splits K either: its grid is as many pairs of blocks as fit on the GPU at once.
// `forced_splits` > 0 (run_with_splits): that many splits (at most one per k-block), whatever fits.
inline launch_plan plan_launch(const gemm_problem& p, int tile_m, int tile_n, int tile_k, int sm_count,
                               const cluster_capacity* capacity, int cluster_m = 1, int cluster_n = 1,
                               int forced_splits = 0) {
  launch_plan plan;
  tile_scheduler& s = plan.sched;
  s.tiles_m = static_cast<int>((p.m + tile_m - 1) / tile_m);
  s.tiles_n = static_cast<int>((p.n + tile_n - 1) / tile_n);
  s.batch = static_cast<int>(p.batch);
  s.k_blocks = static_cast<int>((p.k + tile_k - 1) / tile_k);
  s.splits = 1;
  s.cluster_m = cluster_m;
  s.cluster_n = cluster_n;
  const int sms = std::max(sm_count, 1);
  if (const int size = cluster_m * cluster_n; size > 1) {
    // Pairs of blocks resident at once (the GPCs may hold fewer than sms / 2).
    const int fit = capacity != nullptr && (*capacity)[size] > 0 ? (*capacity)[size] / size : sms / size;
    const int clusters = std::min(s.units(), std::max(fit, 1));
    plan.grid = clusters * size;
    const double g = std::sqrt(double(clusters) * tile_n * cluster_n / (double(tile_m) * cluster_m));
    s.group_m = std::clamp(static_cast<int>(g + 0.5), 1, std::max(s.pairs_m(), 1));
    return plan;
  }
  if (forced_splits > 0)
    s.splits = std::clamp(forced_splits, 1, std::max(s.k_blocks, 1));
  else if (capacity != nullptr)
    s.splits = cluster_split_count(s.tiles(), s.k_blocks, sms, *capacity);
  plan.grid = s.splits > 1 ? s.units() : std::min(s.units(), sms);
  // Tile rows per raster group: make the A rows and B columns in flight about equal in bytes.
  const double g = std::sqrt(double(plan.grid) * tile_n / tile_m);
  s.group_m = std::clamp(static_cast<int>(g + 0.5), 1, std::max(s.tiles_m, 1));
  return plan;
}

template <gemm_key K>
struct gemm {
  static std::optional<std::string> why_not(const gemm_problem& p, const gemm_args& args) {
    if constexpr (key_unsupported_reason(K) != nullptr) {
      return std::string("sm90 tma_wgmma: ") + key_unsupported_reason(K);
    } else {
      return problem_reason(p, args);
    }
  }

  // Split-K reduces inside a thread-block cluster and needs none; a split tail's partial
  // tiles and flags need one slot and one flag per block of the grid (tail_split.cuh).
  // Where the caller lends less, run() takes stream-ordered memory of its own.
  static std::size_t workspace_bytes(const gemm_problem& p) {
    if constexpr (key_unsupported_reason(K) != nullptr || !sm90_config<K>::tail_split_fits) {
      return 0;
    } else {
      const device_info dev = current_device_info();
      if (dev.sm_count <= 0) return 0;
      const launch_plan shape = plan(p, dev);
      return shape.sched.tail_tiles > 0
                 ? tail_workspace::bytes(shape.grid, sm90_config<K>::tile_m, sm90_config<K>::tile_n)
                 : 0;
    }
  }

  // The launch run() makes for `p` on the current device (grid, split count, split tail);
  // for tests and benchmarks. Needs a device and a supported key.
  static launch_plan plan(const gemm_problem& p) { return plan(p, current_device_info()); }

  // plan() on device `dev` (asked once by the launch).
  static launch_plan plan(const gemm_problem& p, const device_info& dev) {
    using cfg = sm90_config<K>;
    prepare_kernel(dev.ordinal);
    launch_plan shape = plan_launch(p, cfg::tile_m, cfg::tile_n, cfg::tile_k, dev.sm_count,
                                    cfg::split_k_fits || cfg::cluster_size > 1 ? &cluster_capacity_of(dev) : nullptr,
                                    cfg::cluster_m, cfg::cluster_n);
    if constexpr (cfg::tail_split_fits) {
      tile_scheduler& s = shape.sched;
      if (s.splits == 1) {
        const int blocks = std::max(dev.sm_count, 1);
        if (const tail_split tail = plan_tail_split(s.tiles(), s.k_blocks, blocks); tail.tiles > 0) {
          s.tail_tiles = tail.tiles;
          s.tail_splits = tail.splits;
          s.workers = blocks;
          shape.grid = blocks;
        }
      }
    }
    return shape;
  }

  static status run(const gemm_problem& p, const gemm_args& args, void* stream) {
    return launch(p, args, stream, 0);
  }

  // run() with each tile's K range cut over a cluster of `splits` blocks (1: no split and no
  // split tail), whatever plan() would pick: for probes that measure the split choice
  // (benchmarks/sm90_probe.cu splits). The result is the same GEMM; only the speed differs.
  static status run_with_splits(const gemm_problem& p, const gemm_args& args, void* stream, int splits) {
    if (splits < 1 || splits > max_cluster_splits)
      return status::error("sm90 tma_wgmma: splits = " + std::to_string(splits) + " is outside 1.." +
                           std::to_string(max_cluster_splits));
    if (splits > 1 && !sm90_config<K>::split_k_fits)
      return status::error("sm90 tma_wgmma: this key never splits K (pingpong, a multicast cluster, or a "
                           "partial tile larger than its operand ring)");
    return launch(p, args, stream, splits);
  }

  // Whether the epilogue of a launch with `splits` K splits stores C through TMA
  // (epilogue_tma_store.cuh): a key it covers and a C that c_storable_through_tma allows.
  // Otherwise the staged epilogue stores C (any alignment and N, beta, D tensors).
  static bool stores_c_through_tma(const gemm_problem& p, const gemm_args& args, int splits) {
    if constexpr (!tma_store_chunks<sm90_config<K>>::enabled) {
      return false;
    } else {
      return c_storable_through_tma(args.c, elem_bytes(K.sig.c), p.n, p.ldc, p.batch, p.stride_c, args.beta, splits);
    }
  }

 private:
  // forced_splits 0: plan(p)'s launch; else that many K splits per tile (run_with_splits).
  static status launch(const gemm_problem& p, const gemm_args& args, void* stream, int forced_splits) {
    if constexpr (key_unsupported_reason(K) != nullptr) {
      return status::error(std::string("sm90 tma_wgmma: ") + key_unsupported_reason(K));
    } else {
      using cfg = sm90_config<K>;
      if (auto why = problem_reason(p, args)) return status::error(*why);
      const device_info dev = current_device_info();  // once: each ask is a runtime call
      if (auto why = device_reason(dev)) return status::error(*why);

      gemm_sm90_params params{};
      if (auto e = encode_tensor_map(params.map_a, operand_a(p, args))) return status::error(*e);
      if (auto e = encode_tensor_map(params.map_b, operand_b(p, args))) return status::error(*e);

      if (const cudaError_t e = prepare_kernel(dev.ordinal); e != cudaSuccess)
        return status::error(std::string("sm90 tma_wgmma: ") + cudaGetErrorString(e));
      const launch_plan shape =
          forced_splits > 0
              ? plan_launch(p, cfg::tile_m, cfg::tile_n, cfg::tile_k, dev.sm_count, nullptr, 1, 1, forced_splits)
              : plan(p, dev);
      params.sched = shape.sched;
      params.order = fast_tile_scheduler(shape.sched, unit_walkers(shape, cfg::cluster_size));
      params.c = args.c;
      for (int i = 0; i < max_d_tensors; ++i) params.d[i] = args.d[i];
      params.m = static_cast<int>(p.m);
      params.n = static_cast<int>(p.n);
      params.ldc = p.ldc;
      params.stride_c = p.stride_c;
      for (int i = 0; i < max_d_tensors; ++i) {  // every D tensor of a GEMM has the problem's ldd
        params.ldd[i] = p.ldd;
        params.stride_d[i] = p.stride_d;
      }
      params.d_at_c = 0;
      params.alpha = args.alpha;
      params.beta = args.beta;
      params.scale_a = args.scale_a;
      params.scale_b = args.scale_b;
      params.scale_ld_a = p.scales.ld_a;
      params.scale_ld_b = p.scales.ld_b;
      params.scale_stride_a = p.scales.stride_a;
      params.scale_stride_b = p.scales.stride_b;
      params.d_via_tma = shape.sched.splits == 1 && encode_d_maps(params, p, args);
      constexpr std::int64_t run_bytes = 4 * elem_bytes(K.sig.c);  // the cshuffle epilogue's vector
      params.c_rows_aligned = reinterpret_cast<std::uintptr_t>(args.c) % run_bytes == 0 &&
                              (p.ldc * elem_bytes(K.sig.c)) % run_bytes == 0 &&
                              (p.batch == 1 || (p.stride_c * elem_bytes(K.sig.c)) % run_bytes == 0);
      params.c_via_tma = encode_c_map(params, p, args, shape);
      auto st = static_cast<cudaStream_t>(stream);
      // The split tail's slots and flags: the caller's workspace, else memory of its own,
      // freed on the stream after the launch.
      std::optional<stream_scratch> tail_scratch;
      if (shape.sched.tail_tiles > 0) {
        using ws = tail_workspace;
        tail_scratch.emplace(args.workspace, args.workspace_bytes, ws::bytes(shape.grid, cfg::tile_m, cfg::tile_n),
                             ws::align, st, "sm90 tma_wgmma split-tail partials");
        if (!*tail_scratch) return tail_scratch->error();
        params.tail_flags = reinterpret_cast<unsigned long long*>(tail_scratch->get());
        params.tail_partials = reinterpret_cast<float*>(tail_scratch->get() + ws::flag_bytes(shape.grid));
        params.tail_epoch = next_tail_epoch();
      }
      const unsigned cluster = static_cast<unsigned>(shape.sched.splits > 1 ? shape.sched.splits : cfg::cluster_size);
      if (const cudaError_t e = launch_in_clusters(gemm_sm90_kernel<cfg>, unsigned(shape.grid), cfg::threads,
                                                   cfg::smem_bytes, st, cluster, params,
                                                   launches_as_dependent(shape, cfg::tile_m, cfg::tile_n, cfg::tile_k,
                                                                         cfg::cluster_size));
          e != cudaSuccess)
        return status::error(std::string("sm90 tma_wgmma launch: ") + cudaGetErrorString(e));
      return status::ok();
    }
  }

  // Raises the kernel's dynamic shared-memory limit (once per kernel and device: dynamic_smem.cuh).
  static cudaError_t prepare_kernel(int device) {
    return allow_dynamic_smem(gemm_sm90_kernel<sm90_config<K>>, sm90_config<K>::smem_bytes, device);
  }

  // Blocks of each cluster size that fit at once on the device, asked once per device.
  static const cluster_capacity& cluster_capacity_of(const device_info& dev) {
    using cfg = sm90_config<K>;
    static cluster_capacity_table table;
    return table.of(reinterpret_cast<const void*>(gemm_sm90_kernel<cfg>), cfg::threads, cfg::smem_bytes, dev);
  }

  static constexpr std::int64_t elem_bytes(dtype d) { return bits_of(d) / 8; }

  // TMA maps of the D tensors, for keys whose D tiles go through the ring
  // (d_tiles.cuh). false: the epilogue reads D from global memory instead (a key
  // without D slots, a zero batch stride TMA cannot express, an encode failure).
  static bool encode_d_maps(gemm_sm90_params& params, const gemm_problem& p, const gemm_args& args) {
    using dl = d_tile_layout<sm90_config<K>>;
    if constexpr (!dl::enabled) {
      return false;
    } else {
      if (p.batch > 1 && p.stride_d <= 0) return false;
      // TMA needs 16-byte aligned bases and strides; other D tensors are read from global memory.
      constexpr std::int64_t ec = elem_bytes(K.sig.c);
      if ((p.ldd * ec) % 16 != 0 || (p.batch > 1 && (p.stride_d * ec) % 16 != 0)) return false;
      for (int i = 0; i < dl::num_d; ++i)
        if (reinterpret_cast<std::uintptr_t>(args.d[i]) % 16 != 0) return false;
      for (int i = 0; i < dl::num_d; ++i) {
        const operand_view d{args.d[i], K.sig.c, p.n,      p.m, p.batch, p.ldd, p.stride_d, dl::chunk_cols,
                             K.algo.tile.m, /*swizzle=*/false};
        if (encode_tensor_map(params.map_d[i], d)) return false;
      }
      return true;
    }
  }

  // The TMA map of C where stores_c_through_tma (false: it does not, or the encode failed,
  // and the staged epilogue stores C).
  static bool encode_c_map(gemm_sm90_params& params, const gemm_problem& p, const gemm_args& args,
                           const launch_plan& shape) {
    using chunks = tma_store_chunks<sm90_config<K>>;
    if (!stores_c_through_tma(p, args, shape.sched.splits)) return false;
    const operand_view c{args.c, K.sig.c, p.n, p.m, p.batch, p.ldc, p.stride_c, chunks::cols, chunks::rows,
                         /*swizzle=*/false};
    return !encode_tensor_map(params.map_c, c).has_value();
  }

  // Boxes are one 128-byte swizzled row wide: tile_k elements (K-major) or 64 16-bit M/N values.
  static operand_view operand_a(const gemm_problem& p, const gemm_args& args) {
    const bool k_major = K.sig.lay.a == layout::row;
    // A multicast cluster along N loads half of A's K-major box per block.
    const int rows = K.algo.tile.m / (K.algo.cluster_n == 2 ? 2 : 1);
    return {args.a, K.sig.a, k_major ? p.k : p.m, k_major ? p.m : p.k, p.batch, p.lda, p.stride_a,
            k_major ? K.algo.tile.k : 64, k_major ? rows : K.algo.tile.k};
  }
  static operand_view operand_b(const gemm_problem& p, const gemm_args& args) {
    const bool k_major = K.sig.lay.b == layout::col;
    const int rows = K.algo.tile.n / (K.algo.cluster_m == 2 ? 2 : 1);  // half of B per block along M
    return {args.b, K.sig.b, k_major ? p.k : p.n, k_major ? p.n : p.k, p.batch, p.ldb, p.stride_b,
            k_major ? K.algo.tile.k : 64, k_major ? rows : K.algo.tile.k};
  }

  static std::optional<std::string> problem_reason(const gemm_problem& p, const gemm_args& args) {
    return tma_wgmma_problem_reason(K, p, args);
  }

  // What the running environment must provide; checked by run(), not why_not(),
  // so that selection also works offline (for an arch that is not present).
  static std::optional<std::string> device_reason(const device_info& dev) {
    if (auto why = device_shortfall("sm90 tma_wgmma", {9, 0, /*exact=*/true, sm90_config<K>::smem_bytes}, dev))
      return why;
    if (tensor_map_encoder() == nullptr) return "sm90 tma_wgmma: cuTensorMapEncodeTiled is not available";
    return std::nullopt;
  }
};

}  // namespace kdecl::kernels::cuda::sm90
