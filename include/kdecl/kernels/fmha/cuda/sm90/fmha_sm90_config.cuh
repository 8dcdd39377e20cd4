// What an fmha_key means for the tma_wgmma_ws attention kernel (sm_90a): the
// traits its code depends on, the shared-memory layout, and the static checks
// that reject keys the kernel cannot build.
//
// As for the mma_sync kernel, the traits hold only what changes the generated
// code (dtype, padded head dims, tile, stages, whether masking, the soft-cap, a
// bias and sinks are computed);
// the mask kind, batch or group mode and the LSE are run-time parameters, so
// keys that differ only there share one compiled kernel.
//
// Shared memory (every region starts on a 1 KiB boundary, as the 128-byte
// swizzle needs): `q_buffers` Q tiles [d/64][block_m rows][128 B] (two where
// they fit: arch/fmha_specs.hpp tma_ws_q_buffers), then `stages` K tiles
// [d/64][block_n][128 B], then `stages` V tiles [dv/64][block_n][128 B], then
// the mbarriers: K full/empty and V full/empty per stage, Q full/empty per buffer.
#pragma once

#include <cstdint>

#include "kdecl/arch/fmha_specs.hpp"
#include "kdecl/fmha/fmha_key.hpp"
#include "kdecl/kernels/cuda/device_types.cuh"

namespace kdecl::kernels::cuda::sm90 {

template <dtype Dt, int HdimQ, int HdimV, int BlockM, int BlockN, int Stages, int QBuffers, bool Masked,
          fmha_bias Bias, bool SoftCap, bool Sink, bool Paged = false>
struct fmha_ws_traits {
  using element = storage_t<Dt>;
  static constexpr dtype type = Dt;
  static constexpr bool bf16 = Dt == dtype::bf16;
  static constexpr int d = HdimQ, dv = HdimV;  // padded head dims (k0max, n1), multiples of 64 up to 256
  static constexpr int block_m = BlockM, block_n = BlockN, stages = Stages, q_buffers = QBuffers;
  static constexpr bool masked = Masked, soft_cap = SoftCap, sink = Sink;
  // batch_prefill: K and V come from a paged cache through the page table (fmha_ws_params::pages).
  // A key tile then arrives in boxes of min(page size, page_box_rows) rows, each from its own page:
  // block_n's largest power-of-two divisor, so that a box never straddles a page (page sizes are
  // powers of two). Pages of at least 8 rows: a box then starts on a 1 KiB swizzle atom.
  static constexpr bool paged = Paged;
  static constexpr int page_box_rows = block_n & -block_n;
  static constexpr int min_page_rows = 8;
  static constexpr fmha_bias bias = Bias;
  static constexpr int consumer_warpgroups = BlockM / 64;
  static constexpr int threads = (consumer_warpgroups + 1) * 128;  // one producer warpgroup
  // setmaxnreg budgets: 24 + 2 x 240 (x 128 threads) fits the 64 Ki registers of an SM.
  static constexpr int producer_regs = 24;
  static constexpr int consumer_regs = 240;

  static constexpr int e = 2;
  static constexpr int row_bytes = 128;  // one swizzled row: 64 16-bit values
  static constexpr int d_chunks = d / 64, dv_chunks = dv / 64;
  static constexpr int q_chunk_bytes = block_m * row_bytes;
  static constexpr int kv_chunk_bytes = block_n * row_bytes;
  static constexpr int q_bytes = block_m * d * e;
  static constexpr int k_stage_bytes = block_n * d * e;
  static constexpr int v_stage_bytes = block_n * dv * e;
  static constexpr int barriers = 4 * stages + 2 * q_buffers;  // K, V full/empty per stage; Q full/empty per buffer
  static constexpr int barrier_offset = q_buffers * q_bytes + stages * (k_stage_bytes + v_stage_bytes);
  static constexpr int smem_bytes = barrier_offset + 8 * barriers + 1024;  // + alignment slack

  static_assert(d % 64 == 0 && dv % 64 == 0, "padded head dims are whole 128-byte swizzled rows");
  static_assert(block_m == 128, "two consumer warpgroups of 64 query rows");
  static_assert(block_n % 16 == 0 && block_n <= 256, "block_n is a wgmma N (Q K^T) and a multiple of 16 (P V's k)");
  static_assert(d <= 256 && dv <= 256, "head dims up to 256 (dv is the N of the P V wgmma)");
  static_assert(stages >= 2, "the K/V ring has at least two stages");
  static_assert(q_buffers == 1 || q_buffers == 2, "one Q tile, or two taking turns");
  static_assert(q_bytes % 1024 == 0 && k_stage_bytes % 1024 == 0 && v_stage_bytes % 1024 == 0,
                "every tile starts on a swizzle-atom boundary");
};

// nullptr when the kernel builds `k`, else the first rule it breaks. fmha<K> asserts it.
constexpr const char* key_unsupported_reason(const fmha_key& k) {
  const auto& s = k.sig;
  const auto& a = k.algo;
  if (!k.concrete()) return "the tma_wgmma_ws attention kernel needs a concrete key";
  if (a.pipe != fmha_pipeline::tma_wgmma_ws) return "sm90::fmha implements fmha_pipeline::tma_wgmma_ws";
  if (a.arch != arch_id::sm_90) return "the tma_wgmma_ws attention kernel is sm_90a code";
  if (s.family != fmha_family::fwd && s.family != fmha_family::batch_prefill)
    return "the tma_wgmma_ws attention kernel is the forward pass (fwd, and batch_prefill over a paged cache)";
  if ((s.qkv != dtype::fp16 && s.qkv != dtype::bf16) || s.o != s.qkv)
    return "the tma_wgmma_ws attention kernel computes fp16 or bf16 (O in Q's dtype)";
  if (s.dropout || s.v_layout != layout::row) return "no dropout, row-major V";
  if (a.tile.k0 != a.tile.k0max || a.tile.k1 != a.tile.n0) return "k0 = k0max and k1 = n0";
  if (a.tile.k0max % 64 != 0 || a.tile.n1 % 64 != 0)
    return "the tma_wgmma_ws attention kernel needs padded head dims that are multiples of 64 (128-byte rows)";
  if (a.tile.k0max > 256 || a.tile.n1 > 256) return "the tma_wgmma_ws attention kernel has head dims up to 256";
  if (a.tile.k0max < s.hdim_q || a.tile.n1 < s.hdim_v) return "k0max and n1 hold the head dims";
  if (!(a.warps0 == mnk{8, 1, 1}) || !(a.warps1 == a.warps0)) return "two consumer warpgroups (warps 8x1x1)";
  if (a.tile.m0 != 128) return "m0 = 128: 64 query rows per consumer warpgroup";
  if (a.tile.n0 % 16 != 0 || a.tile.n0 > 256) return "n0 is a multiple of 16 up to 256";
  if (a.stages < 2) return "the K/V ring has at least two stages";
  return nullptr;
}

template <fmha_key K>
using fmha_ws_traits_of = fmha_ws_traits<K.sig.qkv, K.algo.tile.k0max, K.algo.tile.n1, K.algo.tile.m0,
                                         K.algo.tile.n0, K.algo.stages, kdecl::arch::fmha::tma_ws_q_buffers(K),
                                         K.sig.mask != fmha_mask::none, K.sig.bias,
                                         K.sig.logits_soft_cap, K.sig.sink,
                                         K.sig.family == fmha_family::batch_prefill>;

// The arch table's formula and the kernel's layout are the same number.
template <fmha_key K>
constexpr bool ws_smem_formula_agrees() {
  return kdecl::arch::fmha::smem_bytes(kdecl::arch::fmha::smem_formula::tma_q_kv_ring_o, K) ==
         fmha_ws_traits_of<K>::smem_bytes;
}

}  // namespace kdecl::kernels::cuda::sm90
