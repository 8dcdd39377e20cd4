// A fused multi-head attention forward problem:
//
//   O[b, i, h, :] = sum_j P[b, h, i, j] V[b, j, h / g, :],  g = heads_q / heads_kv
//   P[b, h, i, :] = softmax over j (and the head's sink, when sinks are on) of
//                   mask(bias(cap(scale * Q[b, i, h, :] . K[b, j, h / g, :])))
//   LSE[b, h, i]  = log(sum_j exp(logit_j) [+ exp(sink_h)])   (natural log; on request)
//
//  * cap(s) = soft_cap * tanh(s / soft_cap) when soft_cap > 0 (Gemma 2), else s.
//  * bias: an additive tensor [Bb, Hb, Sq, Skv] (Bb in {1, batch}, Hb in {1, heads_q}:
//    broadcast over what is 1; key_bias(): [Bb, Hb, 1, Skv], one bias per key for every
//    query row, as a padding mask is), or ALiBi: -slope[h] * |j - (i + offset)|, slopes per
//    head (or per batch and head), offset the mask's diagonal (below).
//  * mask: none; top_left causal (j <= i); bottom_right causal (j <= i + Skv - Sq);
//    generic = a sliding window around the bottom-right diagonal: key j is visible
//    to query i when i + Skv - Sq - left <= j <= i + Skv - Sq + right (a negative
//    left or right is unbounded; FlashAttention's window_size convention).
//  * A query row that sees no key gets O = 0 and LSE = -inf (with a sink: LSE = sink).
//
// Tensors are strided in elements with the head dim contiguous: Q [B, Sq, Hq, Dq],
// K [B, Skv, Hkv, Dq], V [B, Skv, Hkv, Dv], O [B, Sq, Hq, Dv] (BSHD when packed; BHSD,
// or any other order, through strides), LSE fp32 [B, Hq, Sq] with rows contiguous.
// Group mode (variable lengths, FlashAttention's varlen API): sequences are packed
// along the sequence dimension; cu_seqlens_q / cu_seqlens_kv hold the batch + 1
// cumulative offsets; batch strides are unused; LSE is [Hq, total_q].
//
// The problem carries what selection and validation need; pointers travel in
// fmha_args. Strides of 0 mean packed and are resolved by normalized().
// validate() names the offending value and the rule.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kdecl/core/enums.hpp"
#include "kdecl/fmha/fmha_key.hpp"

namespace kdecl {

inline constexpr int fmha_max_head_dim = 256;

// Strides in elements of one BSHD-indexed tensor (the head dim is contiguous).
struct fmha_strides {
  std::int64_t batch = 0, seq = 0, head = 0;  // 0: packed
  constexpr bool operator==(const fmha_strides&) const = default;
};

struct fmha_problem {
  std::int64_t batch = 1;
  std::int64_t seqlen_q = 0, seqlen_kv = 0;  // group mode: the longest sequence (set by varlen())
  std::int64_t heads_q = 0, heads_kv = 0;
  std::int64_t hdim_q = 0, hdim_v = 0;
  kdecl::dtype qkv = kdecl::dtype::fp16, o = kdecl::dtype::fp16;

  // Group mode: batch + 1 cumulative offsets each (host copies; fmha_args carries
  // the arrays the kernel reads, which must hold the same values). Empty: batch mode.
  std::vector<std::int32_t> cu_seqlens_q, cu_seqlens_kv;

  fmha_strides q_strides{}, k_strides{}, v_strides{}, o_strides{};

  fmha_mask mask = fmha_mask::none;
  std::int64_t window_left = -1, window_right = -1;  // generic mask; negative: unbounded

  fmha_bias bias = fmha_bias::none;
  bool bias_per_batch = true, bias_per_head = true;  // elementwise bias: false broadcasts that dimension
  bool bias_per_row = true;                          // false: one row of key biases for every query row
  fmha_strides bias_strides{};                       // batch, head, row (seq) strides; 0: packed
  bool alibi_per_batch = false;                      // ALiBi slopes [heads_q] or [batch, heads_q]

  float scale = 0.0f;     // 0: 1 / sqrt(hdim_q)
  float soft_cap = 0.0f;  // 0: off
  bool sinks = false;     // fmha_args::sinks holds heads_q fp32 logits
  bool lse = false;       // write the log-sum-exp
  std::int64_t lse_batch_stride = 0, lse_head_stride = 0;  // 0: packed

  // ---- setters (chainable) --------------------------------------------------
  fmha_problem& sizes(std::int64_t b, std::int64_t sq, std::int64_t skv) {
    batch = b; seqlen_q = sq; seqlen_kv = skv; return *this;
  }
  fmha_problem& heads(std::int64_t hq, std::int64_t hkv) { heads_q = hq; heads_kv = hkv; return *this; }
  fmha_problem& head_dims(std::int64_t dq, std::int64_t dv) { hdim_q = dq; hdim_v = dv; return *this; }
  fmha_problem& head_dim(std::int64_t d) { return head_dims(d, d); }
  fmha_problem& dtype(kdecl::dtype all) { qkv = o = all; return *this; }
  fmha_problem& dtypes(kdecl::dtype in, kdecl::dtype out) { qkv = in; o = out; return *this; }
  // Group mode from per-sequence lengths: sets batch, the cumulative offsets and the longest lengths.
  fmha_problem& varlen(const std::vector<std::int32_t>& lengths_q, const std::vector<std::int32_t>& lengths_kv);
  // Group mode from cumulative offsets (FlashAttention's cu_seqlens): batch = size - 1.
  fmha_problem& varlen_offsets(std::vector<std::int32_t> cu_q, std::vector<std::int32_t> cu_kv);
  fmha_problem& strides(fmha_strides q, fmha_strides k, fmha_strides v, fmha_strides out) {
    q_strides = q; k_strides = k; v_strides = v; o_strides = out; return *this;
  }
  // Packed [B, H, S, D] tensors (batch mode).
  fmha_problem& bhsd();
  fmha_problem& causal(fmha_mask kind = fmha_mask::top_left) { mask = kind; return *this; }
  fmha_problem& sliding_window(std::int64_t left, std::int64_t right) {
    mask = fmha_mask::generic; window_left = left; window_right = right; return *this;
  }
  fmha_problem& elementwise_bias(bool per_batch = true, bool per_head = true, fmha_strides s = {}) {
    bias = fmha_bias::elementwise; bias_per_batch = per_batch; bias_per_head = per_head; bias_per_row = true;
    bias_strides = s;
    return *this;
  }
  // One additive bias per key, the same for every query row ([Bb, Hb, 1, Skv]: a padding mask, e.g.
  // BERT's, per batch and broadcast over heads). Its row stride is 0; s gives the batch and head ones.
  fmha_problem& key_bias(bool per_batch = true, bool per_head = false, fmha_strides s = {}) {
    elementwise_bias(per_batch, per_head, s);
    bias_per_row = false;
    return *this;
  }
  // ALiBi replaces any bias tensor, a key bias's one-row shape included.
  fmha_problem& alibi(bool per_batch = false) {
    bias = fmha_bias::alibi; alibi_per_batch = per_batch; bias_per_row = true; return *this;
  }
  fmha_problem& softmax_scale(float s) { scale = s; return *this; }
  fmha_problem& logits_soft_cap(float cap) { soft_cap = cap; return *this; }
  fmha_problem& with_sinks(bool on = true) { sinks = on; return *this; }
  fmha_problem& return_lse(bool on = true, std::int64_t batch_stride = 0, std::int64_t head_stride = 0) {
    lse = on; lse_batch_stride = batch_stride; lse_head_stride = head_stride; return *this;
  }

  // ---- derived ----------------------------------------------------------------
  bool group_mode() const { return !cu_seqlens_q.empty(); }
  std::int64_t total_q() const { return group_mode() ? cu_seqlens_q.back() : batch * seqlen_q; }
  std::int64_t total_kv() const { return group_mode() ? cu_seqlens_kv.back() : batch * seqlen_kv; }
  std::int64_t seqlen_q_of(std::int64_t b) const {
    return group_mode() ? cu_seqlens_q[std::size_t(b + 1)] - cu_seqlens_q[std::size_t(b)] : seqlen_q;
  }
  std::int64_t seqlen_kv_of(std::int64_t b) const {
    return group_mode() ? cu_seqlens_kv[std::size_t(b + 1)] - cu_seqlens_kv[std::size_t(b)] : seqlen_kv;
  }
  // Softmax scale as applied (the default resolved).
  float effective_scale() const;
  // What a kernel must compute (the key's signature; hdims exact).
  fmha_signature signature() const;

  // Copy with packed defaults filled in (strides, LSE strides).
  fmha_problem normalized() const;

  // Empty when valid, otherwise one sentence naming the value and the rule it broke.
  std::optional<std::string> validate() const;

  // 2 * heads_q * (hdim_q + hdim_v) multiply-adds per attended (query, key) pair,
  // summed over sequences: masked pairs are not counted (causal is about half).
  double flops() const;
  // Bytes every implementation must move at least: Q, K, V and the bias read once,
  // O and the LSE written once.
  double bytes() const;
  // Elements the elementwise bias spans, from its first to its last through its (normalized) strides: what
  // a buffer for it holds. 0 without such a bias or without query or key rows.
  std::int64_t bias_elements() const;
  // Attended (query, key) pairs of sequence b (per head).
  std::int64_t attended_pairs(std::int64_t b) const;
};

// Pointers and scalars of one call (device pointers for GPU kernels, host pointers for host ones).
struct fmha_args {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* o = nullptr;
  float* lse = nullptr;                        // problem.lse
  const void* bias = nullptr;                  // elementwise bias, Q's dtype
  const float* alibi_slopes = nullptr;         // ALiBi: [heads_q] or [batch, heads_q]
  const float* sinks = nullptr;                // problem.sinks: [heads_q]
  const std::int32_t* cu_seqlens_q = nullptr;  // group mode: batch + 1 offsets (the problem's values)
  const std::int32_t* cu_seqlens_kv = nullptr;
  void* workspace = nullptr;                   // for kernels that report workspace_bytes() > 0
  std::size_t workspace_bytes = 0;
};

// Which (query, key) pairs the mask keeps, in one sequence of sq queries and skv keys:
// key j is visible to query i when lo(i) <= j <= hi(i) (and 0 <= j < skv).
struct fmha_visibility {
  std::int64_t offset = 0;          // the diagonal: top_left 0, otherwise skv - sq
  std::int64_t left = -1, right = -1;  // negative: unbounded

  static fmha_visibility of(const fmha_problem& p, std::int64_t sq, std::int64_t skv) {
    fmha_visibility v;
    v.offset = p.mask == fmha_mask::top_left ? 0 : skv - sq;
    switch (p.mask) {
      case fmha_mask::none: break;
      case fmha_mask::top_left: case fmha_mask::bottom_right: v.right = 0; break;
      case fmha_mask::generic: {
        // A side past 2^32 reaches beyond every sequence (rows fit int32): clamped, so that
        // i + offset -/+ side never overflows.
        constexpr std::int64_t beyond_any_sequence = std::int64_t{1} << 32;
        v.left = p.window_left < beyond_any_sequence ? p.window_left : beyond_any_sequence;
        v.right = p.window_right < beyond_any_sequence ? p.window_right : beyond_any_sequence;
        break;
      }
    }
    return v;
  }
  bool visible(std::int64_t i, std::int64_t j) const {
    const std::int64_t d = i + offset;
    return (left < 0 || j >= d - left) && (right < 0 || j <= d + right);
  }
};

}  // namespace kdecl
