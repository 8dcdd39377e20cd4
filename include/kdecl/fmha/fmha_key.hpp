// The fused multi-head attention kernel key: signature (what is computed) and
// algorithm (how), structural, with the DSL's wildcard conventions. The tile is
// two-stage like CK Tile's: stage 0 computes S = Q K^T in m0 x n0 blocks over k0
// slices of hdim_q (k0max = hdim_q padded), stage 1 computes O += P V in
// m0 x n1 blocks over k1 slices of the n0 keys.
//
// Signature semantics (docs/fmha.md): O = softmax(mask(bias(cap(scale * Q K^T))) [, sink]) V.
//  * mask: none; top_left / bottom_right causal (they differ when Sq != Skv);
//    generic = a sliding window (left, right) around the bottom-right diagonal.
//    The window sizes are problem values, not key fields.
//  * logits_soft_cap: s -> cap * tanh(s / cap) on the scaled logits (Gemma 2).
//  * sink: one learned logit per query head joins the softmax denominator (gpt-oss).
//  * lse: the kernel can write the row log-sum-exp (a capability: it serves
//    problems that do not ask for it too).
//  * hdim_q / hdim_v: the largest head dims the kernel computes; with pad_d /
//    pad_dv it also runs smaller ones (zero-padded).
// Group-query attention (Hq a multiple of Hkv) is a problem property.
#pragma once

#include <array>
#include <string_view>

#include "kdecl/core/enums.hpp"
#include "kdecl/gemm/gemm_key.hpp"

namespace kdecl {

enum class fmha_family : std::uint8_t { fwd, fwd_pagedkv, fwd_splitkv, fwd_appendkv, batch_prefill, bwd };
enum class fmha_mask : std::uint8_t { none, top_left, bottom_right, generic };  // causal = top_left
enum class fmha_bias : std::uint8_t { none, elementwise, alibi };
enum class fmha_mode : std::uint8_t { batch, group };  // group: variable sequence lengths
// AMD names follow CK Tile. NVIDIA and host ones are ours:
//   mma_sync     sm_80+: cp.async K/V ring, ldmatrix, mma.sync (FlashAttention-2 style)
//   tma_wgmma_ws sm_90a: TMA + mbarrier ring, producer warp, consumer warpgroups, wgmma (FlashAttention-3 style)
//   paged_decode sm_80+: decode over a paged cache (fwd_pagedkv one stage, fwd_splitkv + combine):
//                16 query rows (a KV head's query heads x tokens) per block, 64-key tiles through a
//                cp.async ring, mma.sync (kernels/fmha/cuda/decode/paged_decode.cuh)
//   paged_append sm_80+: writes new K/V tokens into the pages, rotary embedding on K and Q
//                (fwd_appendkv; kernels/fmha/cuda/decode/paged_append.cuh)
//   host_tiled   host: query blocks over threads, online softmax over key blocks, fp32 accumulation
// batch_prefill over a paged cache runs on mma_sync: the forward kernel with paged K/V loads.
enum class fmha_pipeline : std::uint8_t {
  qr, qr_async, qs, qr_async_trload, qr_async_trload_v3, v3, qr_pagedkv, qr_nwarp_sshuffle, appendkv,
  mma_sync, tma_wgmma_ws, paged_decode, paged_append, host_tiled, any
};

// Families whose kernels read (or, appendkv, write) a paged KV cache through a page table
// and take fmha_paged_problem (kdecl/fmha/paged_kv.hpp) rather than fmha_problem.
constexpr bool is_paged_family(fmha_family f) {
  return f == fmha_family::fwd_pagedkv || f == fmha_family::fwd_splitkv || f == fmha_family::fwd_appendkv ||
         f == fmha_family::batch_prefill;
}

namespace names {
inline constexpr std::array<std::string_view, 6> fmha_family{"fwd", "fwd_pagedkv", "fwd_splitkv",
                                                             "fwd_appendkv", "batch_prefill", "bwd"};
inline constexpr std::array<std::string_view, 4> fmha_mask{"none", "top_left", "bottom_right", "generic"};
inline constexpr std::array<std::string_view, 3> fmha_bias{"none", "elementwise", "alibi"};
inline constexpr std::array<std::string_view, 2> fmha_mode{"batch", "group"};
inline constexpr std::array<std::string_view, 15> fmha_pipeline{
    "qr", "qr_async", "qs", "qr_async_trload", "qr_async_trload_v3", "v3", "qr_pagedkv",
    "qr_nwarp_sshuffle", "appendkv", "mma_sync", "tma_wgmma_ws", "paged_decode", "paged_append",
    "host_tiled", "*"};
}  // namespace names
template <> struct enum_table<fmha_family> { static constexpr const auto& names = names::fmha_family; };
template <> struct enum_table<fmha_mask> { static constexpr const auto& names = names::fmha_mask; };
template <> struct enum_table<fmha_bias> { static constexpr const auto& names = names::fmha_bias; };
template <> struct enum_table<fmha_mode> { static constexpr const auto& names = names::fmha_mode; };
template <> struct enum_table<fmha_pipeline> { static constexpr const auto& names = names::fmha_pipeline; };

struct fmha_signature {
  fmha_family family = fmha_family::fwd;
  dtype qkv = dtype::fp16;   // Q, K and V
  dtype o = dtype::fp16;     // output (fp8 attention may write fp16/bf16/fp32)
  // The paged K/V cache's dtype (paged families): any = qkv's, or fp8 (OCP e4m3 with fp32
  // dequantization scales per tensor or per KV head). Other families: any.
  dtype cache = dtype::any;
  int hdim_q = 128, hdim_v = 128;
  fmha_mask mask = fmha_mask::none;
  fmha_bias bias = fmha_bias::none;
  fmha_mode mode = fmha_mode::batch;
  layout v_layout = layout::row;
  bool lse = false, dropout = false, logits_soft_cap = false;
  bool sink = false;  // attention sinks: a per-head logit in the softmax denominator
  constexpr bool operator==(const fmha_signature&) const = default;
};

struct fmha_tile {
  int m0 = any_int, n0 = any_int, k0 = any_int;  // stage 0 (Q K^T)
  int n1 = 0, k1 = 0;                            // stage 1 (P V); 0: n1 = hdim_v, k1 = k0
  int k0max = 0;                                 // 0: hdim_q rounded up per the arch table
  constexpr bool operator==(const fmha_tile&) const = default;
};

// Warps and warp tiles of 0x0x0 take the pipeline's defaults (the first the
// arch table lists); stages 0 the pipeline's default depth, any_int every legal one.
struct fmha_algorithm {
  fmha_tile tile{};
  mnk warps0{0, 0, 0}, warps1{0, 0, 0};              // warps per block, stage 0 / 1
  mnk warp_tile0{0, 0, 0}, warp_tile1{0, 0, 0};      // MMA tile per warp, stage 0 / 1
  fmha_pipeline pipe = fmha_pipeline::any;
  int stages = 0;                                    // K/V shared-memory ring depth (NVIDIA)
  tristate pad_s = tristate::yes, pad_sk = tristate::yes, pad_d = tristate::yes, pad_dv = tristate::yes;
  int block_per_cu = -1;  // occupancy hint; -1: kernel's choice
  arch_id arch = arch_id::host;
  constexpr bool operator==(const fmha_algorithm&) const = default;
};

struct fmha_key {
  fmha_signature sig{};
  fmha_algorithm algo{};
  constexpr bool operator==(const fmha_key&) const = default;

  // True when no field holds a wildcard or an unresolved default: only such keys are registered.
  constexpr bool concrete() const {
    const auto& t = algo.tile;
    return algo.pipe != fmha_pipeline::any && t.m0 > 0 && t.n0 > 0 && t.k0 > 0 && t.n1 > 0 && t.k1 > 0 &&
           t.k0max > 0 && algo.warps0.concrete() && algo.warps1.concrete() && algo.warp_tile0.concrete() &&
           algo.warp_tile1.concrete() && algo.stages > 0 && algo.pad_s != tristate::any &&
           algo.pad_sk != tristate::any && algo.pad_d != tristate::any && algo.pad_dv != tristate::any &&
           sig.qkv != dtype::any && sig.o != dtype::any;
  }
};

}  // namespace kdecl
