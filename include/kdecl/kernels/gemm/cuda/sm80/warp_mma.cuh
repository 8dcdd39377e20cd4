// The tensor-core warp: fragments from shared memory (ldmatrix, ldmatrix.trans,
// or 32-bit loads for MN-major tf32) into mma.sync, over the region of the
// block tile one warp owns (warp_rows x warp_cols, i.e. its warp tile repeated).
//
// Every mma shape used here consumes 32 bytes of k per instruction and has the
// same fragment layout in bytes (see ptx.cuh), so one loader serves fp16, bf16,
// tf32, int8 and fp8: only the instruction differs.
#pragma once

#include <cstdint>

#include "kdecl/kernels/gemm/cuda/sm80/config.cuh"
#include "kdecl/kernels/cuda/sm80/ptx.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/smem_layout.cuh"
#include "kdecl/kernels/gemm/preshuffle.hpp"

namespace kdecl::kernels::cuda::sm80 {

template <class Cfg>
class tc_warp {
 public:
  using acc_t = typename Cfg::acc_t;
  static constexpr int mi_count = Cfg::warp_rows / 16;  // m16 blocks
  static constexpr int ni_count = Cfg::warp_cols / 8;   // n8 blocks
  static constexpr int k_steps = Cfg::tile_k / Cfg::mma_k;
  // Preshuffled B: 64-byte k blocks per k tile (two mma k steps each).
  static constexpr int kblocks = Cfg::tile_k * Cfg::bytes_b / preshuffle_format::block_k_bytes;
  // Accumulator pairs handed to the epilogue hold adjacent columns (c0,c1 and c2,c3).
  static constexpr bool pairs_adjacent = true;

  using a_tile = swizzled_tile<Cfg::a_rows, Cfg::a_row_bytes>;
  using frag_a = std::uint32_t[mi_count][4];
  using frag_b = std::uint32_t[ni_count][2];

  // row0/col0: the warp's region inside the block tile.
  __device__ tc_warp(int lane, int row0, int col0) : lane_(lane), row0_(row0), col0_(col0) {
#pragma unroll
    for (int mi = 0; mi < mi_count; ++mi)
#pragma unroll
      for (int ni = 0; ni < ni_count; ++ni)
#pragma unroll
        for (int r = 0; r < 4; ++r) acc_[mi][ni][r] = acc_t(0);
  }

  // The A and B fragments of one k step (32 bytes of k).
  struct fragments {
    frag_a a;
    frag_b b;
  };
  __device__ void load_fragments(fragments& f, std::uint32_t a_stage, std::uint32_t b_stage, int ks) const {
    load_a(f.a, a_stage, ks);
    load_b(f.b, b_stage, ks);
  }
  __device__ void mma_step(const fragments& f) { multiply(f.a, f.b); }

  // One whole k tile, fragments double-buffered inside the tile only. Used when a
  // tile has more than two k steps: keeping the next tile's first fragments in
  // flight as well costs more registers than a 64x64 warp region can spare.
  __device__ void compute_tile(std::uint32_t a_stage, std::uint32_t b_stage) {
    fragments f[2];
    load_fragments(f[0], a_stage, b_stage, 0);
#pragma unroll
    for (int ks = 0; ks < k_steps; ++ks) {
      if (ks + 1 < k_steps) load_fragments(f[(ks + 1) & 1], a_stage, b_stage, ks + 1);
      mma_step(f[ks & 1]);
    }
  }

  // Preshuffled B: each lane's 16 bytes of one (n8, 64-byte k) block hold its b0,b1
  // for two consecutive k steps, loaded straight from global memory.
  using frag_b_global = uint4[ni_count][kblocks];

  // Load k tile kt of the warp's B columns. b: this batch's preshuffled B (bytes);
  // n_blocks / k_blocks: the format's block counts for the problem.
  __device__ void load_b_global(frag_b_global& f, const unsigned char* b, int kt, int n_blocks,
                                int k_blocks) const {
    const int nb0 = col0_ / 8;
#pragma unroll
    for (int ni = 0; ni < ni_count; ++ni)
#pragma unroll
      for (int kb = 0; kb < kblocks; ++kb) {
        const int nb = nb0 + ni, kbg = kt * kblocks + kb;
        if (nb < n_blocks && kbg < k_blocks) {
          const std::int64_t block = std::int64_t(nb) * k_blocks + kbg;
          f[ni][kb] = __ldg(reinterpret_cast<const uint4*>(
              b + block * preshuffle_format::block_bytes + lane_ * preshuffle_format::lane_bytes));
        } else {
          f[ni][kb] = make_uint4(0, 0, 0, 0);
        }
      }
  }

  __device__ void compute_tile(std::uint32_t a_stage, const frag_b_global& bg) {
    frag_a a[2];
    load_a(a[0], a_stage, 0);
#pragma unroll
    for (int ks = 0; ks < k_steps; ++ks) {
      if (ks + 1 < k_steps) load_a(a[(ks + 1) & 1], a_stage, ks + 1);
      frag_b b;
#pragma unroll
      for (int ni = 0; ni < ni_count; ++ni) {
        const uint4& w = bg[ni][ks / 2];
        b[ni][0] = (ks & 1) ? w.z : w.x;
        b[ni][1] = (ks & 1) ? w.w : w.y;
        if constexpr (Cfg::sig.compute == dtype::tf32) {
          b[ni][0] = to_tf32(b[ni][0]);
          b[ni][1] = to_tf32(b[ni][1]);
        }
      }
      multiply(a[ks & 1], b);
    }
  }

  // f(row, col, v0, v1): accumulators of (row, col) and (row, col+1), coordinates
  // inside the block tile.
  template <class F>
  __device__ void for_each_pair(F&& f) const {
    const int g = lane_ >> 2, t = lane_ & 3;
#pragma unroll
    for (int mi = 0; mi < mi_count; ++mi)
#pragma unroll
      for (int ni = 0; ni < ni_count; ++ni)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          f(row0_ + mi * 16 + g + 8 * h, col0_ + ni * 8 + 2 * t, acc_[mi][ni][2 * h], acc_[mi][ni][2 * h + 1]);
  }
  // The block_scaled variant (sm80/block_scales.cuh) keeps its scaled sums apart from the
  // accumulators the mma instructions add to: one scale block's sums are scaled and moved out
  // into `total`, each accumulator slot (mi, h) times the scale of its row, and the
  // accumulators start again from zero; at the end the total comes back for the epilogue.
  using accumulators = acc_t[mi_count][ni_count][4];
  using row_factors = float[mi_count][2];
  // The block-tile row of slot (mi, h): accumulators 2h and 2h + 1 of every n8 block.
  __device__ int slot_row(int mi, int h) const { return row0_ + mi * 16 + (lane_ >> 2) + 8 * h; }
  __device__ void move_scaled_into(accumulators& total, const row_factors& f) {
#pragma unroll
    for (int mi = 0; mi < mi_count; ++mi)
#pragma unroll
      for (int ni = 0; ni < ni_count; ++ni)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          total[mi][ni][r] = fmaf(acc_[mi][ni][r], f[mi][r >> 1], total[mi][ni][r]);
          acc_[mi][ni][r] = acc_t(0);
        }
  }
  __device__ void take_accumulators(const accumulators& total) {
#pragma unroll
    for (int mi = 0; mi < mi_count; ++mi)
#pragma unroll
      for (int ni = 0; ni < ni_count; ++ni)
#pragma unroll
        for (int r = 0; r < 4; ++r) acc_[mi][ni][r] = total[mi][ni][r];
  }

  template <class F>
  __device__ void for_each(F&& f) const {
    for_each_pair([&](int r, int c, acc_t v0, acc_t v1) {
      f(r, c, v0);
      f(r, c + 1, v1);
    });
  }

 private:
  // A fragments of k step ks (32 bytes of k) for every m16 block of the warp.
  __device__ void load_a(frag_a& a, std::uint32_t stage, int ks) const {
    const int j = lane_ >> 3, r = lane_ & 7;  // ldmatrix: lane names row r of matrix j
#pragma unroll
    for (int mi = 0; mi < mi_count; ++mi) {
      const int m = row0_ + mi * 16;
      if constexpr (Cfg::a_kmajor) {
        // matrices: (rows 0-7, k lo), (rows 8-15, k lo), (rows 0-7, k hi), (rows 8-15, k hi)
        ldmatrix_x4(a[mi], stage + a_tile::offset(m + (j & 1) * 8 + r, ks * 32 + (j >> 1) * 16));
      } else if constexpr (Cfg::bytes_a == 2) {
        // tile rows are k: transpose 8x8 blocks (k 0-7 | 8-15) x (m 0-7 | 8-15)
        ldmatrix_x4_trans(a[mi], stage + a_tile::offset(ks * 16 + (j >> 1) * 8 + r, (m + (j & 1) * 8) * 2));
      } else {
        // 32-bit MN-major (tf32): no 32-bit transpose in ldmatrix; read the words one by one
        const int g = lane_ >> 2, t = lane_ & 3, k = ks * 8 + t;
        a[mi][0] = lds32(stage + a_tile::offset(k, (m + g) * 4));
        a[mi][1] = lds32(stage + a_tile::offset(k, (m + g + 8) * 4));
        a[mi][2] = lds32(stage + a_tile::offset(k + 4, (m + g) * 4));
        a[mi][3] = lds32(stage + a_tile::offset(k + 4, (m + g + 8) * 4));
      }
      if constexpr (Cfg::sig.compute == dtype::tf32) {
#pragma unroll
        for (int q = 0; q < 4; ++q) a[mi][q] = to_tf32(a[mi][q]);
      }
    }
  }

  // B fragments of k step ks for every n8 block of the warp (two blocks per ldmatrix.x4).
  __device__ void load_b(frag_b& b, std::uint32_t stage, int ks) const {
    using b_tile = swizzled_tile<Cfg::b_rows, Cfg::b_row_bytes>;
    const int j = lane_ >> 3, r = lane_ & 7;
#pragma unroll
    for (int ni = 0; ni < ni_count; ni += 2) {
      const int n = col0_ + ni * 8;
      const bool pair = ni + 1 < ni_count;
      if constexpr (Cfg::b_kmajor) {
        // matrices: (n 0-7, k lo), (n 0-7, k hi), (n 8-15, k lo), (n 8-15, k hi)
        if (pair) {
          std::uint32_t q[4];
          ldmatrix_x4(q, stage + b_tile::offset(n + (j >> 1) * 8 + r, ks * 32 + (j & 1) * 16));
          b[ni][0] = q[0]; b[ni][1] = q[1]; b[ni + 1][0] = q[2]; b[ni + 1][1] = q[3];
        } else {
          ldmatrix_x2(b[ni], stage + b_tile::offset(n + r, ks * 32 + (j & 1) * 16));
        }
      } else if constexpr (Cfg::bytes_b == 2) {
        // tile rows are k: transpose (k 0-7 | 8-15) x (n 0-7 | 8-15)
        if (pair) {
          std::uint32_t q[4];
          ldmatrix_x4_trans(q, stage + b_tile::offset(ks * 16 + (j & 1) * 8 + r, (n + (j >> 1) * 8) * 2));
          b[ni][0] = q[0]; b[ni][1] = q[1]; b[ni + 1][0] = q[2]; b[ni + 1][1] = q[3];
        } else {
          ldmatrix_x2_trans(b[ni], stage + b_tile::offset(ks * 16 + (j & 1) * 8 + r, n * 2));
        }
      } else {
        const int g = lane_ >> 2, t = lane_ & 3, k = ks * 8 + t;
#pragma unroll
        for (int e = 0; e < 2; ++e)
          if (e == 0 || pair) {
            b[ni + e][0] = lds32(stage + b_tile::offset(k, (n + 8 * e + g) * 4));
            b[ni + e][1] = lds32(stage + b_tile::offset(k + 4, (n + 8 * e + g) * 4));
          }
      }
    }
    if constexpr (Cfg::sig.compute == dtype::tf32) {
#pragma unroll
      for (int ni = 0; ni < ni_count; ++ni) {
        b[ni][0] = to_tf32(b[ni][0]);
        b[ni][1] = to_tf32(b[ni][1]);
      }
    }
  }

  __device__ void multiply(const frag_a& a, const frag_b& b) {
#pragma unroll
    for (int mi = 0; mi < mi_count; ++mi)
#pragma unroll
      for (int nj = 0; nj < ni_count; ++nj) {
        const int ni = (mi & 1) ? ni_count - 1 - nj : nj;  // serpentine: reuse B registers across rows
        mma(acc_[mi][ni], a[mi], b[ni]);
      }
  }

  __device__ static void mma(acc_t (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
    [[maybe_unused]] constexpr dtype ca = Cfg::sig.a;
    [[maybe_unused]] constexpr dtype cb = Cfg::sig.b;
    if constexpr (Cfg::sig.compute == dtype::fp16) {
      mma_fp16(d, a, b);
    } else if constexpr (Cfg::sig.compute == dtype::bf16) {
      mma_bf16(d, a, b);
    } else if constexpr (Cfg::sig.compute == dtype::tf32) {
      mma_tf32(d, a, b);
    } else if constexpr (Cfg::sig.compute == dtype::int8) {
      mma_int8(d, a, b);
    } else {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
      if constexpr (ca == dtype::fp8 && cb == dtype::fp8) mma_e4m3_e4m3(d, a, b);
      else if constexpr (ca == dtype::fp8) mma_e4m3_e5m2(d, a, b);
      else if constexpr (cb == dtype::fp8) mma_e5m2_e4m3(d, a, b);
      else mma_e5m2_e5m2(d, a, b);
#else
      (void)d; (void)a; (void)b;
      __trap();  // fp8 mma.sync needs sm_89; why_not keeps such devices away
#endif
    }
  }

  int lane_, row0_, col0_;
  acc_t acc_[mi_count][ni_count][4];
};

}  // namespace kdecl::kernels::cuda::sm80
