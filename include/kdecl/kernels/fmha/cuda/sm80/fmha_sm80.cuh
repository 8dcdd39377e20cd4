// The mma_sync attention forward (FlashAttention-2 style) for sm_80 and newer.
//
// One block per (block_m query rows, query head, sequence); its warps split the
// rows, 16 per mma tile. Q stays in shared memory; K and V blocks of block_n keys
// stream through a `stages`-deep cp.async ring (zero-filled past the sequence and
// the head dim). Per key block each warp computes S = Q K^T with ldmatrix +
// mma.sync m16n8k16 into fp32 registers, turns S into logits (scale, soft-cap,
// ALiBi or bias, mask), updates the running row maximum and sum (online softmax
// in the log2 domain), converts P to 16 bits in registers (the accumulator
// layout of S is the A-operand layout of P V) and accumulates O += P V with
// ldmatrix.trans of V. At the end O is divided by the row sum, staged through
// shared memory and stored with 16-byte writes; the LSE is written on request.
// Rows that see no key give O = 0 and LSE = -inf (LSE = the sink with sinks).
//
// Run-time parameters: the mask kind and window, batch or group mode, GQA (K/V
// head = query head / (heads_q / heads_kv)), the LSE, strides. docs/fmha.md.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "kdecl/core/status.hpp"
#include "kdecl/fmha/fmha_problem.hpp"
#include "kdecl/kernels/cuda/device_info.cuh"
#include "kdecl/kernels/cuda/fast_exp2.cuh"
#include "kdecl/kernels/cuda/sm80/ptx.cuh"
#include "kdecl/kernels/fmha/cuda/score_mod.cuh"
#include "kdecl/kernels/fmha/cuda/sm80/fmha_sm80_config.cuh"
#include "kdecl/kernels/fmha/fmha_launch_values.hpp"

namespace kdecl::kernels::cuda::sm80 {

struct fmha_params {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  float* lse;                   // null: not written
  const void* bias;             // elementwise bias, Q's dtype
  const float* alibi_slopes;
  const float* sinks;
  const std::int32_t* cu_q;     // group mode offsets; null in batch mode
  const std::int32_t* cu_kv;
  std::int64_t q_batch, q_seq, q_head, k_batch, k_seq, k_head, v_batch, v_seq, v_head, o_batch, o_seq, o_head;
  std::int64_t lse_batch, lse_head;
  std::int64_t bias_batch, bias_head, bias_seq;
  int alibi_batch_stride;       // 0 (slopes per head) or heads_q
  int seqlen_q, seqlen_kv;      // batch mode
  int hdim_q, hdim_v;           // the problem's (at most the traits' padded ones)
  int group;                    // heads_q / heads_kv
  int window_left, window_right;  // masked kernels; negative: unbounded
  bool top_left;                // diagonal through (0, 0) rather than the bottom-right corner
  float scale, scale_log2, soft_cap, inv_soft_cap;
  // A paged K/V cache (batch_prefill, kdecl/fmha/paged_kv.hpp); null kv_pages: contiguous K/V.
  // Key j of sequence b is row j % page_size of page kv_pages[b * kv_pages_stride (or
  // kv_page_offsets[b]) + j / page_size]; k_seq / v_seq are the row strides, k_page / v_page
  // the page strides; seqlens_kv[b] keys.
  const std::int32_t* kv_pages = nullptr;
  const std::int32_t* kv_page_offsets = nullptr;
  const std::int32_t* seqlens_kv = nullptr;
  std::int64_t kv_pages_stride = 0, k_page = 0, v_page = 0;
  int page_shift = 0;
};

namespace fmha_detail {

constexpr float log2e = 1.4426950408889634f;
constexpr float ln2 = 0.6931471805599453f;

template <bool Bf16>
__device__ __forceinline__ std::uint32_t pack(float lo, float hi) {
  if constexpr (Bf16) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&v);
  } else {
    const __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&v);
  }
}

template <bool Bf16>
__device__ __forceinline__ void mma(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0, std::uint32_t b1) {
  const std::uint32_t b[2] = {b0, b1};
  if constexpr (Bf16) mma_bf16(d, a, b);
  else mma_fp16(d, a, b);
}

// Copies `rows_valid` rows of `chunks_valid` 16-byte chunks (Chunks per tile row)
// into a tile of Rows rows at `pitch` bytes; the rest of the tile is zero-filled.
template <int Rows, int Chunks, int Pitch, int Threads, class T>
__device__ __forceinline__ void load_tile(std::uint32_t dst, const T* src, std::int64_t row_stride, int rows_valid,
                                          int chunks_valid, int tid) {
  constexpr int total = Rows * Chunks;
  constexpr int iters = (total + Threads - 1) / Threads;
#pragma unroll
  for (int it = 0; it < iters; ++it) {
    const int c = tid + it * Threads;
    if (total % Threads != 0 && c >= total) break;
    const int r = c / Chunks, cc = c % Chunks;
    const bool valid = r < rows_valid && cc < chunks_valid;
    // With 0 valid bytes cp.async reads nothing; the address stays inside the tensor anyway.
    const T* s = valid ? src + std::int64_t(r) * row_stride + cc * 8 : src;
    cp_async<16>(dst + std::uint32_t(r * Pitch + cc * 16), s, valid ? 16 : 0);
  }
}

// load_tile for a paged cache: row r of the tile is key j0 + r, found through the page table.
template <int Rows, int Chunks, int Pitch, int Threads, class T>
__device__ __forceinline__ void load_tile_paged(std::uint32_t dst, const T* base, const std::int32_t* pages,
                                                int page_shift, std::int64_t page_stride, std::int64_t row_stride,
                                                int j0, int rows_valid, int chunks_valid, int tid) {
  constexpr int total = Rows * Chunks;
  constexpr int iters = (total + Threads - 1) / Threads;
  const int page_mask = (1 << page_shift) - 1;
#pragma unroll
  for (int it = 0; it < iters; ++it) {
    const int c = tid + it * Threads;
    if (total % Threads != 0 && c >= total) break;
    const int r = c / Chunks, cc = c % Chunks;
    const bool valid = r < rows_valid && cc < chunks_valid;
    const T* s = base;
    if (valid) {
      const int j = j0 + r;
      s += std::int64_t(pages[j >> page_shift]) * page_stride + std::int64_t(j & page_mask) * row_stride + cc * 8;
    }
    cp_async<16>(dst + std::uint32_t(r * Pitch + cc * 16), s, valid ? 16 : 0);
  }
}

}  // namespace fmha_detail

// Templated on the traits type (not the key): nvcc emits host launch stubs only
// for kernels whose template arguments are types, and keys that differ only in
// run-time parameters share the kernel.
template <class Tr>
__global__ void __launch_bounds__(Tr::threads) mma_sync_fmha_kernel(const fmha_params p) {
  using namespace fmha_detail;
  using T = typename Tr::element;
  constexpr int BM = Tr::block_m, BN = Tr::block_n, MT = Tr::m_tiles, S = Tr::stages;
  constexpr int NT = BN / 8, DT = Tr::dv / 8;
  constexpr float neg_inf = -std::numeric_limits<float>::infinity();
  extern __shared__ __align__(128) unsigned char smem[];

  const int tid = int(threadIdx.x), lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t4 = lane & 3;
  const int m_block = int(gridDim.x) - 1 - int(blockIdx.x);  // the longest causal blocks start first
  const int h = int(blockIdx.y), b = int(blockIdx.z);

  int sq = p.seqlen_q, skv = p.seqlen_kv;
  std::int64_t q_row0 = 0, kv_row0 = 0, batch = b;
  if (p.cu_q != nullptr) {
    q_row0 = p.cu_q[b];
    sq = p.cu_q[b + 1] - int(q_row0);
    if (p.cu_kv != nullptr) {  // null with a paged cache (its lengths are seqlens_kv)
      kv_row0 = p.cu_kv[b];
      skv = p.cu_kv[b + 1] - int(kv_row0);
    }
    batch = 0;
  }
  const std::int32_t* pages = nullptr;  // paged K/V: this sequence's page table
  if (p.kv_pages != nullptr) {
    skv = p.seqlens_kv[b];
    kv_row0 = 0;
    pages = p.kv_page_offsets != nullptr ? p.kv_pages + p.kv_page_offsets[b] : p.kv_pages + b * p.kv_pages_stride;
  }
  const int m0 = m_block * BM;
  if (m0 >= sq) return;
  const int rows = min(BM, sq - m0);
  const int hk = h / p.group;
  const T* q = static_cast<const T*>(p.q) + batch * p.q_batch + (q_row0 + m0) * p.q_seq + h * p.q_head;
  const std::int64_t kv_batch = pages != nullptr ? 0 : batch;
  const T* k = static_cast<const T*>(p.k) + kv_batch * p.k_batch + kv_row0 * p.k_seq + hk * p.k_head;
  const T* v = static_cast<const T*>(p.v) + kv_batch * p.v_batch + kv_row0 * p.v_seq + hk * p.v_head;
  const int offset = p.top_left ? 0 : skv - sq;  // query i's diagonal key is i + offset

  // The key blocks any row of this block may see.
  int j_lo = 0, j_hi = skv - 1;
  if constexpr (Tr::masked) {
    if (p.window_left >= 0) j_lo = max(0, m0 + offset - p.window_left);
    if (p.window_right >= 0) j_hi = min(skv - 1, m0 + rows - 1 + offset + p.window_right);
  }
  const int n_begin = j_lo / BN;
  const int n_blocks = j_hi >= j_lo ? j_hi / BN + 1 - n_begin : 0;

  const std::uint32_t s_q = smem_address(smem);
  const std::uint32_t s_k = s_q + Tr::q_bytes;
  const std::uint32_t s_v = s_k + S * Tr::k_stage_bytes;
  const int q_chunks = p.hdim_q / 8, v_chunks = p.hdim_v / 8;
  auto load_kv = [&](int t, int stage) {
    const int j0 = (n_begin + t) * BN;
    const int valid = min(BN, skv - j0);
    if (pages != nullptr) {
      load_tile_paged<BN, Tr::d / 8, Tr::k_pitch, Tr::threads>(s_k + stage * Tr::k_stage_bytes, k, pages, p.page_shift,
                                                               p.k_page, p.k_seq, j0, valid, q_chunks, tid);
      load_tile_paged<BN, Tr::dv / 8, Tr::v_pitch, Tr::threads>(s_v + stage * Tr::v_stage_bytes, v, pages, p.page_shift,
                                                                p.v_page, p.v_seq, j0, valid, v_chunks, tid);
      return;
    }
    load_tile<BN, Tr::d / 8, Tr::k_pitch, Tr::threads>(s_k + stage * Tr::k_stage_bytes, k + std::int64_t(j0) * p.k_seq,
                                                       p.k_seq, valid, q_chunks, tid);
    load_tile<BN, Tr::dv / 8, Tr::v_pitch, Tr::threads>(s_v + stage * Tr::v_stage_bytes, v + std::int64_t(j0) * p.v_seq,
                                                        p.v_seq, valid, v_chunks, tid);
  };
  // Prologue: Q with the first K/V block (one commit group), then stages - 2 more blocks.
  load_tile<BM, Tr::d / 8, Tr::q_pitch, Tr::threads>(s_q, q, p.q_seq, rows, q_chunks, tid);
#pragma unroll
  for (int s = 0; s < S - 1; ++s) {
    if (s < n_blocks) load_kv(s, s);
    cp_async_commit();
  }

  float acc_o[MT][DT][4];
  float row_max[MT][2], row_sum[MT][2];
  const float sink = Tr::sink ? p.sinks[h] * log2e : neg_inf;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int dt = 0; dt < DT; ++dt)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc_o[mt][dt][e] = 0.0f;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      row_max[mt][r] = sink;
      // Row sums are per-thread partials reduced over the quad at the end: one thread holds the sink's 1.
      row_sum[mt][r] = Tr::sink && t4 == 0 ? 1.0f : 0.0f;
    }
  }
  const int warp_row = warp * Tr::warp_rows;  // this warp's first row within the block
  float slope = 0.0f;
  if constexpr (Tr::bias == fmha_bias::alibi) slope = p.alibi_slopes[b * p.alibi_batch_stride + h];
  const T* bias = nullptr;
  if constexpr (Tr::bias == fmha_bias::elementwise)
    bias = static_cast<const T*>(p.bias) + b * p.bias_batch + h * p.bias_head;
  const fmha_score_mod mod{p.scale, p.scale_log2, p.soft_cap, p.inv_soft_cap, slope, p.bias_seq};

  for (int t = 0; t < n_blocks; ++t) {
    cp_async_wait<S - 2>();
    __syncthreads();  // block t visible to all; everyone is done with block t - 1's stage
    if (t + S - 1 < n_blocks) load_kv(t + S - 1, (t + S - 1) % S);
    cp_async_commit();
    const int stage = t % S;
    const std::uint32_t k_tile = s_k + stage * Tr::k_stage_bytes, v_tile = s_v + stage * Tr::v_stage_bytes;
    const int j0 = (n_begin + t) * BN;

    // S = Q K^T
    float acc_s[MT][NT][4];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int nt = 0; nt < NT; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc_s[mt][nt][e] = 0.0f;
#pragma unroll 1
    for (int kk = 0; kk < Tr::d / 16; ++kk) {
      std::uint32_t a[MT][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
        ldmatrix_x4(a[mt], s_q + std::uint32_t((warp_row + mt * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * Tr::q_pitch +
                                              (kk * 16 + (lane >> 4) * 8) * 2));
#pragma unroll
      for (int np = 0; np < BN / 16; ++np) {
        std::uint32_t kf[4];
        ldmatrix_x4(kf, k_tile + std::uint32_t((np * 16 + (lane & 7) + (lane >> 4) * 8) * Tr::k_pitch +
                                               (kk * 16 + ((lane >> 3) & 1) * 8) * 2));
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          mma<Tr::bf16>(acc_s[mt][2 * np], a[mt], kf[0], kf[1]);
          mma<Tr::bf16>(acc_s[mt][2 * np + 1], a[mt], kf[2], kf[3]);
        }
      }
    }

    // Logits in the log2 domain; masked out (and keys past the sequence) -inf.
    // Whole blocks inside the band and the sequence skip the per-element test.
    bool edge = j0 + BN > skv;
    if constexpr (Tr::masked) {
      const int i_min = m0, i_max = m0 + rows - 1;
      const bool inside_left = p.window_left < 0 || j0 >= i_max + offset - p.window_left;
      const bool inside_right = p.window_right < 0 || j0 + BN - 1 <= i_min + offset + p.window_right;
      edge = edge || !inside_left || !inside_right;
    }
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int nt = 0; nt < NT; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int i = m0 + warp_row + mt * 16 + g + (e >> 1) * 8;
          const int j = j0 + nt * 8 + t4 * 2 + (e & 1);
          float x = fmha_logit_log2<Tr::soft_cap, Tr::bias>(acc_s[mt][nt][e], mod, bias, i, j, offset, sq, skv);
          if (edge) {
            bool visible = j < skv;
            if constexpr (Tr::masked)
              visible = visible && (p.window_left < 0 || j >= i + offset - p.window_left) &&
                        (p.window_right < 0 || j <= i + offset + p.window_right);
            if (!visible) x = neg_inf;
          }
          acc_s[mt][nt][e] = x;
        }

    // Online softmax: new row maxima, P = 2^(x - max), rescaled sums and O.
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        float block_max = neg_inf;
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) block_max = fmaxf(block_max, fmaxf(acc_s[mt][nt][2 * r], acc_s[mt][nt][2 * r + 1]));
        block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 1));
        block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 2));
        const float m_new = fmaxf(row_max[mt][r], block_max);
        const float base = m_new == neg_inf ? 0.0f : m_new;  // nothing visible yet: everything stays 0
        const float rescale = exp2_approx(row_max[mt][r] - base);
        row_max[mt][r] = m_new;
        float sum = 0.0f;
#pragma unroll
        for (int nt = 0; nt < NT; ++nt)
#pragma unroll
          for (int c = 0; c < 2; ++c) {
            const float pv = exp2_approx(acc_s[mt][nt][2 * r + c] - base);
            acc_s[mt][nt][2 * r + c] = pv;
            sum += pv;
          }
        row_sum[mt][r] = row_sum[mt][r] * rescale + sum;
#pragma unroll
        for (int dt = 0; dt < DT; ++dt) {
          acc_o[mt][dt][2 * r] *= rescale;
          acc_o[mt][dt][2 * r + 1] *= rescale;
        }
      }

    // O += P V: the S accumulators of two 8-key tiles form one 16-key A fragment.
#pragma unroll
    for (int kb = 0; kb < BN / 16; ++kb) {
      std::uint32_t pa[MT][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        pa[mt][0] = pack<Tr::bf16>(acc_s[mt][2 * kb][0], acc_s[mt][2 * kb][1]);
        pa[mt][1] = pack<Tr::bf16>(acc_s[mt][2 * kb][2], acc_s[mt][2 * kb][3]);
        pa[mt][2] = pack<Tr::bf16>(acc_s[mt][2 * kb + 1][0], acc_s[mt][2 * kb + 1][1]);
        pa[mt][3] = pack<Tr::bf16>(acc_s[mt][2 * kb + 1][2], acc_s[mt][2 * kb + 1][3]);
      }
#pragma unroll
      for (int dp = 0; dp < Tr::dv / 16; ++dp) {
        std::uint32_t vf[4];
        ldmatrix_x4_trans(vf, v_tile + std::uint32_t((kb * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * Tr::v_pitch +
                                                     (dp * 16 + (lane >> 4) * 8) * 2));
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          mma<Tr::bf16>(acc_o[mt][2 * dp], pa[mt], vf[0], vf[1]);
          mma<Tr::bf16>(acc_o[mt][2 * dp + 1], pa[mt], vf[2], vf[3]);
        }
      }
    }
  }

  // Epilogue. Every copy has landed and every warp is past the loop before Q's
  // rows are reused to stage O.
  cp_async_wait<0>();
  __syncthreads();
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float l = row_sum[mt][r];
      l += __shfl_xor_sync(0xffffffffu, l, 1);
      l += __shfl_xor_sync(0xffffffffu, l, 2);
      const float inv = l > 0.0f ? 1.0f / l : 0.0f;  // a row that saw nothing writes zeros
      const int row = warp_row + mt * 16 + g + r * 8;
#pragma unroll
      for (int dt = 0; dt < DT; ++dt) {
        const std::uint32_t packed = pack<Tr::bf16>(acc_o[mt][dt][2 * r] * inv, acc_o[mt][dt][2 * r + 1] * inv);
        *reinterpret_cast<std::uint32_t*>(smem + row * Tr::q_pitch + (dt * 8 + t4 * 2) * 2) = packed;
      }
      if (p.lse != nullptr && t4 == 0 && m0 + row < sq) {
        const float lse = l > 0.0f ? (row_max[mt][r] + log2f(l)) * ln2 : neg_inf;
        p.lse[batch * p.lse_batch + h * p.lse_head + q_row0 + m0 + row] = lse;
      }
    }
  __syncwarp();
  // Each warp stores its own rows, 16 bytes at a time.
  T* o = static_cast<T*>(p.o) + batch * p.o_batch + (q_row0 + m0) * p.o_seq + h * p.o_head;
  constexpr int chunks = Tr::dv / 8;
#pragma unroll 4
  for (int c = lane; c < Tr::warp_rows * chunks; c += 32) {
    const int row = warp_row + c / chunks, cc = c % chunks;
    if (m0 + row < sq && cc < v_chunks)
      *reinterpret_cast<uint4*>(o + std::int64_t(row) * p.o_seq + cc * 8) =
          *reinterpret_cast<const uint4*>(smem + row * Tr::q_pitch + cc * 16);
  }
}

// The fmha_kernel contract for one mma_sync key (kernels/fmha/fmha_kernel.hpp).
template <fmha_key K>
struct fmha {
  static_assert(key_unsupported_reason(K) == nullptr, "kdecl: the mma_sync attention kernel cannot build this key");
  using traits = fmha_traits_of<K>;
  static_assert(smem_formula_agrees<K>(), "kdecl: fmha_specs.hpp's q_kv_ring_padded formula must match the kernel");

  static std::size_t workspace_bytes(const fmha_problem&) { return 0; }

  static std::optional<std::string> why_not(const fmha_problem& p, const fmha_args& a) {
    if (p.hdim_q > traits::d || p.hdim_v > traits::dv) return "head dims exceed the kernel's";
    if (p.hdim_q % 8 != 0 || p.hdim_v % 8 != 0) return "head dims must be multiples of 8 (16-byte rows)";
    if (p.group_mode() && (!a.cu_seqlens_q || !a.cu_seqlens_kv))
      return "group mode needs cu_seqlens_q and cu_seqlens_kv pointers";
    if (p.total_q() > 0 && (!a.q || !a.o)) return "Q or O pointer is null";
    if (p.total_kv() > 0 && (!a.k || !a.v)) return "K or V pointer is null";
    if (p.lse && !a.lse && p.total_q() > 0) return "the problem asks for the LSE but its pointer is null";
    if (p.bias == fmha_bias::elementwise && !a.bias) return "elementwise bias pointer is null";
    if (p.bias == fmha_bias::alibi && !a.alibi_slopes) return "ALiBi slopes pointer is null";
    if (p.sinks && !a.sinks) return "sinks pointer is null";
    if ((p.seqlen_q + traits::block_m - 1) / traits::block_m > std::numeric_limits<int>::max())
      return "too many query blocks for the grid";
    return std::nullopt;
  }

  // What the running device must provide; checked by run(), not why_not(), so that
  // selection also works offline (for an arch that is not present).
  static std::optional<std::string> device_reason() {
    return device_shortfall("mma_sync attention", {8, 0, /*exact=*/false, traits::smem_bytes});
  }

  static status run(const fmha_problem& p, const fmha_args& a, void* stream) {
    if (auto why = why_not(p, a)) return status::error(*why);
    if (auto why = device_reason()) return status::error(*why);
    const std::int64_t q_blocks = (p.seqlen_q + traits::block_m - 1) / traits::block_m;
    if (q_blocks == 0 || p.batch == 0) return status::ok();

    auto kernel = mma_sync_fmha_kernel<traits>;
    if (traits::smem_bytes > 48 * 1024) {
      const cudaError_t e =
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, traits::smem_bytes);
      if (e != cudaSuccess) return status::error(std::string("cudaFuncSetAttribute: ") + cudaGetErrorString(e));
    }
    fmha_params kp{};
    set_fmha_dense_params(kp, p, a);

    const dim3 grid(unsigned(q_blocks), unsigned(p.heads_q), unsigned(p.batch));
    kernel<<<grid, traits::threads, traits::smem_bytes, static_cast<cudaStream_t>(stream)>>>(kp);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return status::error(std::string("mma_sync attention launch: ") + cudaGetErrorString(e));
    return status::ok();
  }
};

}  // namespace kdecl::kernels::cuda::sm80
