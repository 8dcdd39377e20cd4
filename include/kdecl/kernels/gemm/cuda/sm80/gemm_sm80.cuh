// The sm_80 cp_async GEMM: a `stages`-deep cp.async ring of A and B tiles in
// swizzled shared memory, ldmatrix (ldmatrix.trans for MN-major 16-bit operands)
// into mma.sync (or FFMA for exact fp32), and a fused direct or cshuffle epilogue.
// Runs on sm_80, sm_86, sm_89 (fp8 from here on) and sm_90. docs/kernels/sm80.md.
//
// Entry point: sm80::gemm<K> with the gemm_kernel contract (kernels/gemm/gemm_kernel.hpp).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include "kdecl/core/status.hpp"
#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/gemm/gemm_problem.hpp"
#include "kdecl/kernels/cuda/device_info.cuh"
#include "kdecl/kernels/cuda/device_pass.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/config.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/epilogue.cuh"
#include "kdecl/kernels/cuda/sm80/ptx.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/tile_loader.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/block_warp.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/block_scales.cuh"
#include "kdecl/kernels/gemm/block_scales_reason.hpp"
#include "kdecl/kernels/gemm/preshuffle.hpp"

namespace kdecl::kernels::cuda::sm80 {

template <class Cfg>
struct kernel_params {
  const typename Cfg::ta* a;
  const void* b;  // tb elements, or the preshuffled image
  output_view<Cfg> out;  // pointers of batch 0
  int m, n, k;
  std::int64_t lda, ldb;
  std::int64_t stride_a, stride_b, stride_c, stride_d;  // elements
  int b_nblocks, b_kblocks;                             // preshuffle format geometry
  block_scale_params scales;                            // block_scaled variant only
};

// Block tiles are visited in groups of 8 tile rows, column by column inside a
// group, so blocks running together share A rows and B columns in L2.
__device__ __forceinline__ void block_tile(int id, int tiles_m, int tiles_n, int& tm, int& tn) {
  constexpr int group = 8;
  const int per_group = group * tiles_n;
  const int first_m = (id / per_group) * group;
  const int rows = min(tiles_m - first_m, group);
  const int in_group = id % per_group;
  tm = first_m + in_group % rows;
  tn = in_group / rows;
}

// One block's tile: the kernel's body (cp_async_gemm_kernel below).
template <class Cfg>
__device__ __forceinline__ void cp_async_gemm_block(const kernel_params<Cfg>& p) {
  using ta = typename Cfg::ta;
  using tb = typename Cfg::tb;
  using warp_t = block_warp<Cfg>;
  extern __shared__ __align__(128) unsigned char smem[];

  const int tid = int(threadIdx.x), lane = tid & 31, warp = tid >> 5;
  const int tiles_m = (p.m + Cfg::tile_m - 1) / Cfg::tile_m;
  const int tiles_n = (p.n + Cfg::tile_n - 1) / Cfg::tile_n;
  int tm, tn;
  block_tile(int(blockIdx.x), tiles_m, tiles_n, tm, tn);
  const int m0 = tm * Cfg::tile_m, n0 = tn * Cfg::tile_n;
  const std::int64_t batch = blockIdx.z;

  const ta* a = p.a + batch * p.stride_a;
  const int k_tiles = (p.k + Cfg::tile_k - 1) / Cfg::tile_k;

  warp_t w(lane, (warp % Cfg::warps_m) * Cfg::warp_rows, (warp / Cfg::warps_m) * Cfg::warp_cols);

  const std::uint32_t ring = smem_address(smem);
  using index = typename Cfg::index_t;
  const tile_loader<ta, Cfg::a_kmajor, Cfg::tile_m, Cfg::tile_k, Cfg::vec, Cfg::threads, Cfg::pad_m, Cfg::pad_k,
                    index>
      load_a(a, p.lda, m0, p.m, p.k, tid);

  if constexpr (Cfg::preshuffle) {
    // A through the ring; B fragments straight from global, one k tile ahead in registers.
    const auto* b = static_cast<const unsigned char*>(p.b) + batch * p.stride_b * Cfg::bytes_b +
                    std::int64_t(n0 / preshuffle_format::block_cols) * p.b_kblocks * preshuffle_format::block_bytes;
    const int nblocks_left = p.b_nblocks - n0 / preshuffle_format::block_cols;
#pragma unroll
    for (int s = 0; s < Cfg::stages - 1; ++s) {
      if (s < k_tiles) load_a.template load<true>(ring + s * Cfg::a_stage_bytes, s);
      cp_async_commit();
    }
    typename warp_t::frag_b_global bcur, bnext;
    if (k_tiles > 0) w.load_b_global(bcur, b, 0, nblocks_left, p.b_kblocks);
    int read_stage = 0, write_stage = Cfg::stages - 1;
    for (int kt = 0; kt < k_tiles; ++kt) {
      cp_async_wait<Cfg::stages - 2>();
      __syncthreads();  // tile kt visible to all; the stage written below is free
      if (kt + Cfg::stages - 1 < k_tiles)
        load_a.template load<true>(ring + write_stage * Cfg::a_stage_bytes, kt + Cfg::stages - 1);
      cp_async_commit();
      if (kt + 1 < k_tiles) w.load_b_global(bnext, b, kt + 1, nblocks_left, p.b_kblocks);
      w.compute_tile(ring + read_stage * Cfg::a_stage_bytes, bcur);
#pragma unroll
      for (int ni = 0; ni < warp_t::ni_count; ++ni)
#pragma unroll
        for (int kb = 0; kb < warp_t::kblocks; ++kb) bcur[ni][kb] = bnext[ni][kb];
      read_stage = read_stage + 1 == Cfg::stages ? 0 : read_stage + 1;
      write_stage = write_stage + 1 == Cfg::stages ? 0 : write_stage + 1;
    }
  } else {
    const tb* b = static_cast<const tb*>(p.b) + batch * p.stride_b;
    using loader_b =
        tile_loader<tb, Cfg::b_kmajor, Cfg::tile_n, Cfg::tile_k, Cfg::vec, Cfg::threads, Cfg::pad_n, Cfg::pad_k, index>;
    const loader_b load_b(b, p.ldb, n0, p.n, p.k, tid);
    const std::uint32_t b_ring = ring + Cfg::stages * Cfg::a_stage_bytes;
    // Copies of k tile t into ring stage s; only the last tile may need k predication.
    auto issue = [&](int s, int t) {
      if (!Cfg::pad_k || t + 1 < k_tiles) {
        load_a.template load<false>(ring + s * Cfg::a_stage_bytes, t);
        load_b.template load<false>(b_ring + s * Cfg::b_stage_bytes, t);
      } else {
        load_a.template load<true>(ring + s * Cfg::a_stage_bytes, t);
        load_b.template load<true>(b_ring + s * Cfg::b_stage_bytes, t);
      }
    };
    // The block_scaled variant scales each 128-deep block's sums out of the accumulators.
    scale_blocks<Cfg, warp_t> scaled(p.scales, batch, m0, n0, p.m);
    // Prologue: fill stages-1 stages; one commit group per k tile, empty past the end.
#pragma unroll
    for (int s = 0; s < Cfg::stages - 1; ++s) {
      if (s < k_tiles) issue(s, s);
      cp_async_commit();
    }
    int read_stage = 0, write_stage = Cfg::stages - 1;
    auto next = [](int s) { return s + 1 == Cfg::stages ? 0 : s + 1; };
    cp_async_wait<Cfg::stages - 2>();
    __syncthreads();

    // Measured on H100/H200 (docs/kernels/sm80.md): blocks of 4 warps (two or more
    // blocks per SM hide each other's barriers) run faster with the plain per-tile
    // loop; blocks of 8+ warps gain from prefetching across the tile boundary, which
    // needs at most two k steps per tile to stay within the register file.
    // (Not for block_scaled: its scaling sits between two k tiles.)
    constexpr bool cross_tile_prefetch =
        !Cfg::simt && Cfg::threads >= 256 && warp_t::k_steps <= 2 && !Cfg::staged && !Cfg::block_scaled;
    if constexpr (Cfg::staged) {
      // Register-staged widths (2 or 1 byte): the global loads of tile kt+stages-1 are in
      // flight while tile kt is multiplied, and land in the stage tile kt-1 used (free
      // since the barrier that ended it) afterwards; the barrier below publishes them.
      using loader_a = std::remove_cv_t<decltype(load_a)>;
      typename loader_a::registers ra;
      typename loader_b::registers rb;
      for (int kt = 0; kt < k_tiles; ++kt) {
        const int t = kt + Cfg::stages - 1;
        if (t < k_tiles) {
          if (!Cfg::pad_k || t + 1 < k_tiles) {
            load_a.template fetch<false>(ra, t);
            load_b.template fetch<false>(rb, t);
          } else {
            load_a.template fetch<true>(ra, t);
            load_b.template fetch<true>(rb, t);
          }
        }
        scaled.begin_tile(kt, w);
        w.compute_tile(ring + read_stage * Cfg::a_stage_bytes, b_ring + read_stage * Cfg::b_stage_bytes);
        scaled.end_tile(kt, k_tiles, w);
        if (t < k_tiles) {
          load_a.store(ring + write_stage * Cfg::a_stage_bytes, ra);
          load_b.store(b_ring + write_stage * Cfg::b_stage_bytes, rb);
        }
        __syncthreads();  // tile kt+1 visible; everybody is done with tile kt
        read_stage = next(read_stage);
        write_stage = next(write_stage);
      }
    } else if constexpr (!cross_tile_prefetch) {
      // One barrier per k tile; fragments are loaded and used within the tile.
      for (int kt = 0; kt < k_tiles; ++kt) {
        if (kt + Cfg::stages - 1 < k_tiles) issue(write_stage, kt + Cfg::stages - 1);  // stage of tile kt-1: free
        cp_async_commit();
        scaled.begin_tile(kt, w);
        w.compute_tile(ring + read_stage * Cfg::a_stage_bytes, b_ring + read_stage * Cfg::b_stage_bytes);
        scaled.end_tile(kt, k_tiles, w);
        cp_async_wait<Cfg::stages - 2>();
        __syncthreads();  // tile kt+1 visible; everybody is done with tile kt
        read_stage = next(read_stage);
        write_stage = next(write_stage);
      }
    } else {
      // Tensor cores: fragments are double-buffered across k steps and across
      // tiles: the first fragments of tile kt+1 are read right after the barrier
      // that publishes it, while the last mma of tile kt is still to issue.
      constexpr int k_steps = warp_t::k_steps;
      typename warp_t::fragments f[2];
      w.load_fragments(f[0], ring, b_ring, 0);
      for (int kt = 0; kt < k_tiles; ++kt) {
#pragma unroll
        for (int ks = 0; ks < k_steps; ++ks) {
          if (ks == 0) {  // refill the stage tile kt-1 occupied (all warps passed the barrier after it)
            if (kt + Cfg::stages - 1 < k_tiles) issue(write_stage, kt + Cfg::stages - 1);
            cp_async_commit();
            write_stage = next(write_stage);
          }
          if (ks + 1 < k_steps) {
            w.load_fragments(f[(ks + 1) & 1], ring + read_stage * Cfg::a_stage_bytes,
                             b_ring + read_stage * Cfg::b_stage_bytes, ks + 1);
            w.mma_step(f[ks & 1]);
          } else {
            // Tile kt+1 starts in f[0]; with an odd step count f[0] is the one still to multiply.
            if constexpr (k_steps % 2 == 1) w.mma_step(f[0]);
            cp_async_wait<Cfg::stages - 2>();
            __syncthreads();  // tile kt+1 visible (past the end: stale, never used)
            read_stage = next(read_stage);
            w.load_fragments(f[0], ring + read_stage * Cfg::a_stage_bytes, b_ring + read_stage * Cfg::b_stage_bytes, 0);
            if constexpr (k_steps % 2 == 0) w.mma_step(f[ks & 1]);
          }
        }
      }
    }
    scaled.finish(w);
  }

  output_view<Cfg> out = p.out;
  out.c += batch * p.stride_c;
#pragma unroll
  for (int t = 0; t < Cfg::num_d; ++t) out.d[t] += batch * p.stride_d;

  if constexpr (Cfg::cshuffle) {
    cp_async_wait<0>();
    __syncthreads();  // the ring becomes the staging buffer
    cshuffle_epilogue<Cfg>(w, out, m0, n0, smem, tid);
  } else {
    direct_epilogue<Cfg>(w, out, m0, n0);
  }
}

// Templated on config<K> (a type) rather than on K itself: nvcc cannot emit host
// launch stubs for kernels whose template argument is a class-type constant. Its body
// is not generated in a device pass older than the key's arch (cuda/device_pass.cuh).
template <class Cfg>
__global__ void __launch_bounds__(Cfg::threads) cp_async_gemm_kernel(const kernel_params<Cfg> p) {
#if defined(__CUDA_ARCH__)
  if constexpr (!device_pass_builds(Cfg::algo.arch, __CUDA_ARCH__)) {
    __trap();
  } else
#endif
  {
    cp_async_gemm_block<Cfg>(p);
  }
}

template <gemm_key K>
struct gemm {
  using cfg = config<K>;

  static std::size_t workspace_bytes(const gemm_problem&) { return 0; }

  static std::optional<std::string> why_not(const gemm_problem& p, const gemm_args& args) {
    if (!(p.sig == K.sig)) return "problem signature (dtypes, layouts, variant) differs from the kernel's key";
    constexpr std::int64_t int_max = std::numeric_limits<int>::max();
    if (p.m < 0 || p.n < 0 || p.k < 0 || p.m > int_max || p.n > int_max || p.k > int_max)
      return "cp_async: m, n and k must lie in [0, 2^31)";
    if (p.batch < 1 || p.batch > 65535) return "cp_async: batch must be 1..65535 (grid z)";
    const std::int64_t tiles =
        ((p.m + cfg::tile_m - 1) / cfg::tile_m) * ((p.n + cfg::tile_n - 1) / cfg::tile_n);
    if (tiles > int_max) return "cp_async: too many block tiles";
    if (!cfg::pad_m && p.m % cfg::tile_m) return "pad_m = no: m must be a multiple of tile.m";
    if (!cfg::pad_n && p.n % cfg::tile_n) return "pad_n = no: n must be a multiple of tile.n";
    if (!cfg::pad_k && p.k % cfg::tile_k) return "pad_k = no: k must be a multiple of tile.k";

    constexpr int vec = cfg::vec;
    const bool batched = p.batch > 1;
    auto misaligned = [&](const void* ptr, std::int64_t ld, std::int64_t stride, int eb, int to) {
      return reinterpret_cast<std::uintptr_t>(ptr) % to != 0 || (ld * eb) % to != 0 ||
             (batched && (stride * eb) % to != 0);
    };
    if (misaligned(args.a, p.lda, p.stride_a, cfg::bytes_a, vec))
      return "A: pointer, lda or stride_a not aligned to vector_bytes";
    // C and D: any alignment of their element (the epilogue picks its widths per run).
    constexpr int bytes_c = sizeof(typename cfg::tc);
    if (args.c == nullptr || reinterpret_cast<std::uintptr_t>(args.c) % bytes_c != 0)
      return "C: pointer null or not aligned to its element";
    for (int t = 0; t < cfg::num_d; ++t) {
      if (args.d[t] == nullptr) return "multi_d: D pointer " + std::to_string(t) + " is null";
      if (reinterpret_cast<std::uintptr_t>(args.d[t]) % bytes_c != 0)
        return "D: pointer " + std::to_string(t) + " not aligned to its element";
    }
    if constexpr (std::is_same_v<typename cfg::index_t, std::int32_t>) {
      constexpr std::int64_t offset_max = int_max;
      const bool d = cfg::num_d > 0;
      if (p.rows_a() * p.lda > offset_max || (!cfg::preshuffle && p.rows_b() * p.ldb > offset_max) ||
          (cfg::preshuffle && p.stride_b > offset_max) || p.rows_c() * p.ldc > offset_max ||
          (d && p.rows_c() * p.ldd > offset_max))
        return "cp_async: an operand spans 2^31 elements or more: offsets overflow 32-bit indexing (index_bits 64 "
               "keys take it)";
    }
    if constexpr (cfg::preshuffle) {
      if (misaligned(args.b, 0, p.stride_b, cfg::bytes_b, 16))
        return "preshuffled B: pointer and stride_b must be 16-byte aligned";
      if (batched && p.stride_b < preshuffled_elements(p.k, p.n, bits_of(K.sig.b)))
        return "preshuffled B: stride_b is smaller than one preshuffled image";
    } else if (misaligned(args.b, p.ldb, p.stride_b, cfg::bytes_b, vec)) {
      return "B: pointer, ldb or stride_b not aligned to vector_bytes";
    }
    if constexpr (cfg::block_scaled) {
      if (auto why = block_scales_reason(p, args)) return "cp_async: " + *why;
    }
    return std::nullopt;
  }

  // What the running environment must provide; checked by run(), not why_not(),
  // so that selection also works offline (for an arch that is not present).
  static std::optional<std::string> device_reason() {
    constexpr bool fp8 = is_fp8_family(K.sig.a) || is_fp8_family(K.sig.b);
    constexpr int major = least_device_major(cfg::algo.arch);  // an sm_90 key's code is sm_90a code
    return device_shortfall(fp8 ? "fp8 mma.sync" : "cp_async", {major, fp8 && major == 8 ? 9 : 0, /*exact=*/false,
                                                                 cfg::smem_bytes});
  }

  static status run(const gemm_problem& p, const gemm_args& args, void* stream) {
    if (auto why = why_not(p, args)) return status::error(*why);
    if (auto why = device_reason()) return status::error(*why);
    if (p.m == 0 || p.n == 0) return status::ok();

    auto kernel = cp_async_gemm_kernel<cfg>;
    if (cfg::smem_bytes > 48 * 1024) {
      // Opt in to more than 48 KiB of dynamic shared memory (per device; cheap to repeat).
      const cudaError_t e =
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, cfg::smem_bytes);
      if (e != cudaSuccess) return status::error(std::string("cudaFuncSetAttribute: ") + cudaGetErrorString(e));
    }

    kernel_params<cfg> kp{};
    kp.a = static_cast<const typename cfg::ta*>(args.a);
    kp.b = args.b;
    kp.out.c = static_cast<typename cfg::tc*>(args.c);
    for (int t = 0; t < cfg::num_d; ++t) kp.out.d[t] = static_cast<const typename cfg::tc*>(args.d[t]);
    kp.out.ldc = p.ldc;
    for (int t = 0; t < output_view<cfg>::d_slots; ++t) kp.out.ldd[t] = p.ldd;
    kp.out.m = int(p.m);
    kp.out.n = int(p.n);
    kp.out.alpha = args.alpha;
    kp.out.beta = args.beta;
    constexpr std::int64_t bytes_c = sizeof(typename cfg::tc);
    kp.out.rows_aligned = reinterpret_cast<std::uintptr_t>(args.c) % 16 == 0 && (p.ldc * bytes_c) % 16 == 0 &&
                          (p.batch == 1 || (p.stride_c * bytes_c) % 16 == 0);
    kp.m = int(p.m);
    kp.n = int(p.n);
    kp.k = int(p.k);
    kp.lda = p.lda;
    kp.ldb = p.ldb;
    kp.stride_a = p.stride_a;
    kp.stride_b = p.stride_b;
    kp.stride_c = p.stride_c;
    kp.stride_d = p.stride_d;
    kp.b_nblocks = int(preshuffle_format::n_blocks(p.n));
    kp.b_kblocks = int(preshuffle_format::k_blocks(p.k, bits_of(K.sig.b)));
    if constexpr (cfg::block_scaled)
      kp.scales = {args.scale_a, args.scale_b, p.scales.ld_a, p.scales.ld_b, p.scales.stride_a, p.scales.stride_b};

    const unsigned tiles = unsigned(((p.m + cfg::tile_m - 1) / cfg::tile_m) * ((p.n + cfg::tile_n - 1) / cfg::tile_n));
    const dim3 grid(tiles, 1, unsigned(p.batch));
    kernel<<<grid, cfg::threads, cfg::smem_bytes, static_cast<cudaStream_t>(stream)>>>(kp);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return status::error(std::string("cp_async gemm launch: ") + cudaGetErrorString(e));
    return status::ok();
  }
};

}  // namespace kdecl::kernels::cuda::sm80
