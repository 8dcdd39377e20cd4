// The run-time values every attention kernel's argument struct holds, worked out from the
// problem once for all of them (CUDA's mma_sync, tma_wgmma_ws, paged prefill and decode; HIP's
// qr and paged kernels):
// - the mask as a band of keys around each query's diagonal: window_left / window_right keys to
//   the left / right (negative: unbounded), the diagonal through (0, 0) when top_left, else
//   through the bottom-right corner;
// - the softmax scale, its log2-domain form and the soft-cap with its reciprocal;
// - for the dense kernels (mma_sync and HIP's qr, whose structs name them alike), the operands,
//   strides and sizes of an fmha_problem.
// Plain host code: the structs are filled before the launch.
#pragma once

#include <cstdint>

#include "kdecl/fmha/fmha_problem.hpp"
#include "kdecl/kernels/fmha/score_mod.hpp"

namespace kdecl::kernels {

// A window side as the kernels hold it: int, negative for unbounded. A side longer than any
// sequence (rows fit int32; 2^30 leaves room for i + offset +/- side) is unbounded too.
constexpr int fmha_window_side(std::int64_t side) { return side < 0 || side > (1 << 30) ? -1 : int(side); }

// Sets kp.window_left, kp.window_right and kp.top_left from a mask and its window.
template <class Params>
constexpr void set_fmha_mask_band(Params& kp, fmha_mask mask, std::int64_t window_left, std::int64_t window_right) {
  kp.top_left = mask == fmha_mask::top_left;
  kp.window_left = mask == fmha_mask::generic ? fmha_window_side(window_left) : -1;
  kp.window_right = mask == fmha_mask::none      ? -1
                    : mask == fmha_mask::generic ? fmha_window_side(window_right)
                                                 : 0;  // causal: no key right of the diagonal
}

// Sets the mask band, kp.scale, kp.scale_log2, kp.soft_cap and kp.inv_soft_cap from a problem
// (fmha_problem or fmha_paged_problem: both name mask, window_left/right, soft_cap and
// effective_scale()).
template <class Params, class Problem>
constexpr void set_fmha_mask_and_scales(Params& kp, const Problem& p) {
  set_fmha_mask_band(kp, p.mask, p.window_left, p.window_right);
  kp.scale = p.effective_scale();
  kp.scale_log2 = kp.scale * fmha_log2e;
  kp.soft_cap = p.soft_cap;
  kp.inv_soft_cap = p.soft_cap > 0.0f ? 1.0f / p.soft_cap : 0.0f;
}

// Sets a dense kernel's operands (Q, K, V, O, the LSE, bias, ALiBi slopes, sinks, group-mode
// offsets), their strides in elements, the sizes and the GQA group from an fmha_problem and its
// arguments; then the mask band and scales. Only what the problem asks for is passed on (the
// LSE when p.lse, the offsets in group mode).
template <class Params>
void set_fmha_dense_params(Params& kp, const fmha_problem& p, const fmha_args& a) {
  kp.q = a.q;
  kp.k = a.k;
  kp.v = a.v;
  kp.o = a.o;
  kp.lse = p.lse ? a.lse : nullptr;
  kp.bias = a.bias;
  kp.alibi_slopes = a.alibi_slopes;
  kp.sinks = a.sinks;
  kp.cu_q = p.group_mode() ? a.cu_seqlens_q : nullptr;
  kp.cu_kv = p.group_mode() ? a.cu_seqlens_kv : nullptr;
  kp.q_batch = p.q_strides.batch; kp.q_seq = p.q_strides.seq; kp.q_head = p.q_strides.head;
  kp.k_batch = p.k_strides.batch; kp.k_seq = p.k_strides.seq; kp.k_head = p.k_strides.head;
  kp.v_batch = p.v_strides.batch; kp.v_seq = p.v_strides.seq; kp.v_head = p.v_strides.head;
  kp.o_batch = p.o_strides.batch; kp.o_seq = p.o_strides.seq; kp.o_head = p.o_strides.head;
  kp.lse_batch = p.lse_batch_stride;
  kp.lse_head = p.lse_head_stride;
  kp.bias_batch = p.bias_strides.batch;
  kp.bias_head = p.bias_strides.head;
  kp.bias_seq = p.bias_strides.seq;
  kp.alibi_batch_stride = p.alibi_per_batch ? int(p.heads_q) : 0;
  kp.seqlen_q = int(p.seqlen_q);
  kp.seqlen_kv = int(p.seqlen_kv);
  kp.hdim_q = int(p.hdim_q);
  kp.hdim_v = int(p.hdim_v);
  kp.group = int(p.heads_q / p.heads_kv);
  set_fmha_mask_and_scales(kp, p);
}

}  // namespace kdecl::kernels
