// The sm_80 backward-weight convolution: dW = dY^T * im2col(X) as one implicit
// GEMM per group on the cp_async convolution pipeline (conv_mainloop.cuh):
//
//   A (M x K) = dY: rows = output channels k, depth = output pixels (n, o); M-major (k contiguous)
//   B (K x N) = im2col(X): depth = output pixels, columns = (tap, c), c fastest; N-major,
//               gathered by cp.async (im2col_transposed_loader)
//   C (M x N) = dW[g, k, tap, c] (rows k, the taps x C/G of a filter contiguous)
//
// The depth N x output pixels is long and M x N small, so the depth is split
// (split-K) into `splits` ranges of whole k tiles, chosen from the problem to fill
// the SMs (bwd_weight_gpu_splits). Each range's product goes to its own fp32
// partial in the workspace lent by the dispatcher; a second kernel adds the
// partials in split order (deterministic) and converts to dW's dtype. Without
// the workspace (or with one split) the GEMM writes dW directly.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/kernels/cuda/device_pass.cuh"
#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/cuda/sm80/conv_bwd_common.cuh"
#include "kdecl/kernels/conv/cuda/sm80/conv_bwd_config.cuh"
#include "kdecl/kernels/conv/cuda/sm80/conv_bwd_plan.hpp"
#include "kdecl/kernels/conv/cuda/sm80/conv_mainloop.cuh"
#include "kdecl/kernels/conv/im2col_index.hpp"
#include "kdecl/kernels/conv/cuda/split_partials_reduce.cuh"
#include "kdecl/kernels/conv/pixel_rows.hpp"
#include "kdecl/kernels/gemm/cuda/sm80/config.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/epilogue.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/gemm_sm80.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/tile_loader.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/block_warp.cuh"

namespace kdecl::kernels::cuda::sm80 {

// The multiprocessors of the current device (132, an H100's, where none is found).
inline int current_sm_count() {
  int dev = 0, sms = 0;
  if (cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess &&
      sms > 0)
    return sms;
  return 132;
}

// B of bwd_weight: TileK rows of depth (output pixels) by TileN columns (tap, c),
// copied N-major. When the threads cover whole rows, each thread keeps one column
// of vectors (its tap and channel decoded once) and walks rows Threads /
// vecs_per_row apart; otherwise every vector decodes its column.
template <class T, int TileN, int TileK, int Vec, int Threads>
class im2col_transposed_loader {
 public:
  static constexpr int vec_elems = Vec / int(sizeof(T));
  static constexpr int vecs_per_row = TileN / vec_elems;
  static constexpr int vecs = TileK * vecs_per_row;
  static constexpr int iters = (vecs + Threads - 1) / Threads;
  static constexpr bool fixed_column = Threads % vecs_per_row == 0;
  using layout = swizzled_tile<TileK, TileN * int(sizeof(T))>;
  static_assert(TileN % vec_elems == 0, "a tile row must be a whole number of vectors");

  // geo: the forward gather of the problem (m = N x output pixels: our depth; k = taps x C/G: our columns).
  __device__ im2col_transposed_loader(const conv_gather_geometry& geo, const T* in, int n0, int tid)
      : geo_(geo), in_(in), n0_(n0), tid_(tid) {
    if constexpr (fixed_column) column_ = column_of(tid % vecs_per_row * vec_elems);
  }

  __device__ void load(std::uint32_t stage, int kt) const {
    if constexpr (fixed_column) {
      load_fixed_column(stage, kt);
    } else {  // a branch, not an early return: nvcc would call the loop below unreachable
#pragma unroll
      for (int it = 0; it < iters; ++it) {
        const int v = tid_ + it * Threads;
        if (vecs % Threads != 0 && v >= vecs) break;
        const int r = v / vecs_per_row, c = v % vecs_per_row * vec_elems;
        const column col = column_of(c);
        const int p = kt * TileK + r;
        const T* src = in_;
        int bytes = 0;
        if (col.valid && p < geo_.m) {
          const im2col_row row = im2col_row_of(geo_, p);
          if (const T* at = source_of(row.base + col.channel, row.start, col)) {
            src = at;
            bytes = Vec;
          }
        }
        cp_async<Vec>(stage + layout::offset(r, c * int(sizeof(T))), src, bytes);
      }
    }
  }

 private:
  // One column per thread, rows row_step apart: the first row's pixel (n, o) is decoded
  // once per k tile, the next ones follow by adding row_step with carries.
  __device__ void load_fixed_column(std::uint32_t stage, int kt) const {
    constexpr int row_step = Threads / vecs_per_row;
    const int c = tid_ % vecs_per_row * vec_elems;
    int p = kt * TileK + tid_ / vecs_per_row;
    const int plane = geo_.out[1] * geo_.out[2], pixels = geo_.out[0] * plane;
    int n = p / pixels;
    int rem = p - n * pixels;
    int o0 = rem / plane;
    rem -= o0 * plane;
    int o1 = rem / geo_.out[2];
    int o2 = rem - o1 * geo_.out[2];
#pragma unroll
    for (int it = 0; it < iters; ++it) {
      const int r = tid_ / vecs_per_row + it * row_step;
      if (vecs % Threads != 0 && r >= TileK) break;
      if (it > 0) {
        p += row_step;
        o2 += row_step;
        while (o2 >= geo_.out[2]) {
          o2 -= geo_.out[2];
          if (++o1 == geo_.out[1]) {
            o1 = 0;
            if (++o0 == geo_.out[0]) {
              o0 = 0;
              ++n;
            }
          }
        }
      }
      const T* src = in_;
      int bytes = 0;
      if (column_.valid && p < geo_.m) {
        const int start[3] = {o0 * geo_.stride[0] - geo_.pad[0], o1 * geo_.stride[1] - geo_.pad[1],
                              o2 * geo_.stride[2] - geo_.pad[2]};
        if (const T* at = source_of(std::int64_t(n) * geo_.in_n + column_.channel, start, column_)) {
          src = at;
          bytes = Vec;
        }
      }
      cp_async<Vec>(stage + layout::offset(r, c * int(sizeof(T))), src, bytes);
    }
  }

  struct column {
    bool valid;
    int channel;
    int reach[3];  // the column's tap times the dilation
  };
  // The vector of column `col` for a row whose input pixel (before the tap's reach) starts at
  // `start` and whose offset up to there is `at`; nullptr where the tap reads padding.
  __device__ const T* source_of(std::int64_t at, const int (&start)[3], const column& col) const {
    bool inside = true;
#pragma unroll
    for (int d = 0; d < 3; ++d) {
      const int i = start[d] + col.reach[d];
      inside = inside && i >= 0 && i < geo_.in[d];
      at += std::int64_t(i) * geo_.in_s[d];
    }
    return inside ? in_ + at : nullptr;
  }
  __device__ column column_of(int c) const {
    column col{};
    const int j = n0_ + c;
    col.valid = j < geo_.k;
    const int tap = col.valid ? j / geo_.cg : 0;
    col.channel = col.valid ? j - tap * geo_.cg : 0;
    const int f[3] = {tap / (geo_.filter[1] * geo_.filter[2]), tap / geo_.filter[2] % geo_.filter[1],
                      tap % geo_.filter[2]};
#pragma unroll
    for (int d = 0; d < 3; ++d) col.reach[d] = f[d] * geo_.dilation[d];
    return col;
  }

  const conv_gather_geometry& geo_;
  const T* in_;
  int n0_, tid_;
  column column_{};
};

template <class Cfg>
struct conv_bwd_weight_params {
  const typename Cfg::ta* dy;  // group 0
  const typename Cfg::tb* in;  // group 0
  output_view<Cfg> out;        // group 0 of dW (ldc = one output channel's filter) or of split 0's partial
  conv_gather_geometry geo;    // the forward gather over X
  std::int64_t dy_g, in_g, out_g, out_split;  // group strides, the partials' split stride (elements)
  std::int64_t dy_pixel;                       // dY's pixel stride (the A operand's leading dimension)
  int kg;                                      // output channels per group (M)
  int per_split;                               // k tiles per split
};

template <class Cfg, int VecDy, int VecIn>
__device__ __forceinline__ void conv_bwd_weight_kernel_block(const conv_bwd_weight_params<Cfg>& p) {
  using ta = typename Cfg::ta;
  using tb = typename Cfg::tb;
  extern __shared__ __align__(128) unsigned char smem[];

  const int tid = int(threadIdx.x), lane = tid & 31, warp = tid >> 5;
  const int tiles_m = (p.kg + Cfg::tile_m - 1) / Cfg::tile_m;
  const int tiles_n = (p.geo.k + Cfg::tile_n - 1) / Cfg::tile_n;
  int tm, tn;
  block_tile(int(blockIdx.x), tiles_m, tiles_n, tm, tn);
  const int m0 = tm * Cfg::tile_m, n0 = tn * Cfg::tile_n;
  const std::int64_t g = blockIdx.z, split = blockIdx.y;
  const int all_tiles = (p.geo.m + Cfg::tile_k - 1) / Cfg::tile_k;
  const int kt0 = int(split) * p.per_split;
  const int k_tiles = min(all_tiles - kt0, p.per_split);

  block_warp<Cfg> w(lane, (warp % Cfg::warps_m) * Cfg::warp_rows, (warp / Cfg::warps_m) * Cfg::warp_cols);
  const std::uint32_t ring = smem_address(smem);
  const std::uint32_t b_ring = ring + Cfg::stages * Cfg::a_stage_bytes;
  const tile_loader<ta, false, Cfg::tile_m, Cfg::tile_k, VecDy, Cfg::threads, true, true> load_a(
      p.dy + g * p.dy_g, p.dy_pixel, m0, p.kg, p.geo.m, tid);
  const im2col_transposed_loader<tb, Cfg::tile_n, Cfg::tile_k, VecIn, Cfg::threads> load_b(p.geo, p.in + g * p.in_g,
                                                                                           n0, tid);
  conv_mainloop<Cfg>(w, ring, k_tiles, [&](int s, int t) {
    const int kt = kt0 + t;
    if (kt + 1 < all_tiles) load_a.template load<false>(ring + s * Cfg::a_stage_bytes, kt);
    else load_a.template load<true>(ring + s * Cfg::a_stage_bytes, kt);
    load_b.load(b_ring + s * Cfg::b_stage_bytes, kt);
  });

  output_view<Cfg> out = p.out;
  out.c += g * p.out_g + split * p.out_split;
  if constexpr (Cfg::cshuffle) {
    cp_async_wait<0>();
    __syncthreads();  // the ring becomes the staging buffer
    cshuffle_epilogue<Cfg>(w, out, m0, n0, smem, tid);
  } else {
    direct_epilogue<Cfg>(w, out, m0, n0);
  }
}

// The kernel: its body (conv_bwd_weight_kernel_block) is not generated in a device pass older
// than the key's arch, whose code would never run (cuda/device_pass.cuh).
template <class Cfg, int VecDy, int VecIn>
__global__ void __launch_bounds__(Cfg::threads) conv_bwd_weight_kernel(const __grid_constant__ conv_bwd_weight_params<Cfg> p) {
#if defined(__CUDA_ARCH__)
  if constexpr (!device_pass_builds(Cfg::algo.arch, __CUDA_ARCH__)) {
    __trap();
  } else
#endif
  {
    conv_bwd_weight_kernel_block<Cfg, VecDy, VecIn>(p);
  }
}

template <grouped_conv_key K>
struct conv_bwd_weight {
  static_assert(K.sig.dir == conv_direction::bwd_weight && conv_bwd_unsupported_reason(K) == nullptr,
                "key not supported by the sm80 backward-weight convolution: see sm80::conv_bwd_unsupported_reason(K)");
  static constexpr gemm_key G = conv_bwd_gemm_key(K);
  using cfg = config<G>;
  using partial_cfg = config<conv_bwd_weight_partial_key(K)>;
  using ta = typename cfg::ta;
  static constexpr int vec_dy = K.algo.vector_out * int(sizeof(ta));
  static constexpr int vec_in = K.algo.vector_in * int(sizeof(ta));

  static int splits(const grouped_conv_problem& p) {
    return bwd_weight_gpu_splits(p, K.algo.tile.m, K.algo.tile.n, K.algo.tile.k, current_sm_count());
  }

  static std::size_t workspace_bytes(const grouped_conv_problem& p) {
    const int s = splits(p);
    if (s <= 1) return 0;
    const auto e = p.implicit_gemm();
    return std::size_t(s) * std::size_t(p.g * e.m * e.n) * sizeof(float);
  }

  static std::optional<std::string> why_not(const grouped_conv_problem& p, const grouped_conv_args& a) {
    if (auto why = signature_reason<K>(p)) return why;
    if (!a.in || !a.wei || !a.out) return std::string("a tensor pointer (in, wei or out) is null");
    constexpr std::int64_t int_max = std::numeric_limits<int>::max();
    const auto e = p.implicit_gemm();
    if (e.m > int_max || e.n > int_max || e.k > int_max)
      return std::string("cp_async conv: N x output pixels and C/G x taps must be < 2^31");
    if (p.g > 65535) return std::string("cp_async conv: G must be at most 65535 (grid z)");
    if (auto why = sizes_reason(p)) return why;
    if (p.k_per_group() % K.algo.vector_out != 0 || p.c_per_group() % K.algo.vector_in != 0)
      return std::string("cp_async bwd_weight: K/G and C/G must be multiples of the dY and input vectors");
    // dW rows are the output channels' filters: taps x C/G contiguous.
    const int rank = p.ndim();
    std::int64_t packed = p.c_per_group();
    for (int slot = 2; slot >= 3 - rank; --slot) {
      if (p.filter_dims[slot] > 1 && p.wei_strides.spatial[std::size_t(slot)] != packed)
        return std::string("cp_async bwd_weight: every output channel's filter (taps x C/G) must be contiguous");
      packed *= p.filter_dims[slot];
    }
    // dY is A of a column-major GEMM: its pixels evenly strided.
    const std::int64_t ld = p.out_strides.spatial[2];
    if (!pixels_evenly_strided(p, conv_tensor::output))
      return std::string("cp_async bwd_weight: dY pixels must be evenly strided (rows and images packed)");
    auto misaligned = [](const void* ptr, int bytes) { return reinterpret_cast<std::uintptr_t>(ptr) % bytes != 0; };
    if (misaligned(a.out, vec_dy) || misaligned(a.in, vec_in))
      return std::string("cp_async bwd_weight: dY (out) and in must be aligned to the kernel's vector widths");
    if (ld % K.algo.vector_out != 0 || p.out_strides.g % K.algo.vector_out != 0)
      return std::string("cp_async bwd_weight: dY strides must be multiples of its vector");
    const auto& si = p.in_strides;
    for (std::int64_t stride : {si.n, si.g, si.spatial[0], si.spatial[1], si.spatial[2]})
      if (stride % K.algo.vector_in != 0)
        return std::string("cp_async bwd_weight: input strides must be multiples of the input vector");
    return std::nullopt;
  }

  template <class Cfg>
  static status launch(const grouped_conv_problem& p, const grouped_conv_args& a, void* out, std::int64_t ldc,
                       std::int64_t out_g, std::int64_t out_split, int n_splits, cudaStream_t stream) {
    auto kernel = conv_bwd_weight_kernel<Cfg, vec_dy, vec_in>;
    if (auto err = allow_smem(kernel, Cfg::smem_bytes)) return status::error(*err);
    const auto e = p.implicit_gemm();
    conv_bwd_weight_params<Cfg> kp{};
    kp.dy = static_cast<const ta*>(a.out);
    kp.in = static_cast<const typename Cfg::tb*>(a.in);
    kp.out.c = static_cast<typename Cfg::tc*>(out);
    kp.out.ldc = ldc;
    kp.out.m = int(e.m);
    kp.out.n = int(e.n);
    kp.out.alpha = 1.0f;
    kp.out.beta = 0.0f;
    kp.out.rows_aligned = reinterpret_cast<std::uintptr_t>(out) % 16 == 0 &&
                          ldc * std::int64_t(sizeof(typename Cfg::tc)) % 16 == 0 &&
                          out_g * std::int64_t(sizeof(typename Cfg::tc)) % 16 == 0;
    kp.geo = gather_geometry_of(p);  // the forward gather's extents (the problem's GEMM is bwd_weight's)
    kp.dy_g = p.out_strides.g;
    kp.in_g = p.in_strides.g;
    kp.out_g = out_g;
    kp.out_split = out_split;
    kp.dy_pixel = p.out_strides.spatial[2];
    kp.kg = int(e.m);
    const int all_tiles = int((e.k + Cfg::tile_k - 1) / Cfg::tile_k);
    kp.per_split = (all_tiles + n_splits - 1) / n_splits;
    const unsigned tiles =
        unsigned(((e.m + Cfg::tile_m - 1) / Cfg::tile_m) * ((e.n + Cfg::tile_n - 1) / Cfg::tile_n));
    const dim3 grid(tiles, unsigned(n_splits), unsigned(p.g));
    kernel<<<grid, Cfg::threads, Cfg::smem_bytes, stream>>>(kp);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return status::error(std::string("cp_async bwd_weight launch: ") + cudaGetErrorString(err));
    return status::ok();
  }

  static status run(const grouped_conv_problem& p, const grouped_conv_args& a, void* stream_ptr) {
    if (auto why = why_not(p, a)) return status::error(*why);
    if (auto why = device_reason<cfg>()) return status::error(*why);
    if (auto why = device_reason<partial_cfg>()) return status::error(*why);
    const auto e = p.implicit_gemm();
    if (e.m == 0 || e.n == 0) return status::ok();
    const auto stream = static_cast<cudaStream_t>(stream_ptr);
    const std::size_t wanted = workspace_bytes(p);
    const int s = wanted > 0 && a.workspace != nullptr && a.workspace_bytes >= wanted ? splits(p) : 1;
    if (s <= 1) return launch<cfg>(p, a, a.wei, p.wei_strides.n, p.wei_strides.g, 0, 1, stream);
    const std::int64_t split_stride = p.g * e.m * e.n;
    if (auto st = launch<partial_cfg>(p, a, a.workspace, e.n, e.m * e.n, split_stride, s, stream); !st) return st;
    const cudaError_t err =
        reduce_split_partials(static_cast<const float*>(a.workspace), static_cast<typename cfg::tc*>(a.wei), s, int(e.m),
                              int(e.n), int(p.g), p.wei_strides.g, p.wei_strides.n, current_sm_count(), stream);
    if (err != cudaSuccess) return status::error(std::string("cp_async bwd_weight reduce: ") + cudaGetErrorString(err));
    return status::ok();
  }
};

}  // namespace kdecl::kernels::cuda::sm80
