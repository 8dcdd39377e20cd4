// What the sm_80 backward convolutions derive from their keys at compile time:
// the implicit GEMM each runs on the cp_async GEMM's pieces, with the operand
// majorness its tensors have, and the rules of keys they cannot build.
//
//   bwd_data   A = dY gathered (K-major), B = weights rows (k, tap) of C/G input channels
//              (N-major), C = dX rows of the stride phase (row-major).
//   bwd_weight A = dY (pixels x K/G: M-major), B = input gathered (pixels x (tap, C/G): N-major),
//              C = dW (K/G rows of taps x C/G, row-major), or fp32 split-K partials.
#pragma once

#include "kdecl/kernels/conv/cuda/sm80/conv_fwd_config.cuh"

namespace kdecl::kernels::cuda::sm80 {

constexpr gemm_key conv_bwd_gemm_key(const grouped_conv_key& k) {
  gemm_key g = dsl::conv_rules::implicit_gemm(k);
  g.sig.lay = gemm_layout{k.sig.dir == conv_direction::bwd_weight ? layout::col : layout::row, layout::row, layout::row};
  // The C operand's access width (the loaders take theirs from the key's vectors).
  const int c_vec = k.sig.dir == conv_direction::bwd_data ? k.algo.vector_in : k.algo.vector_wei;
  g.algo.vector_bytes = c_vec * bits_of(g.sig.c) / 8;
  return g;
}

// bwd_weight's split-K partials: the same GEMM writing fp32.
constexpr gemm_key conv_bwd_weight_partial_key(const grouped_conv_key& k) {
  gemm_key g = conv_bwd_gemm_key(k);
  g.sig.c = dtype::fp32;
  return g;
}

// nullptr when the backward kernels build `k`, else the first rule it breaks.
constexpr const char* conv_bwd_unsupported_reason(const grouped_conv_key& k) {
  if (!k.concrete()) return "sm80 conv needs a concrete key";
  if (k.sig.dir == conv_direction::fwd) return "sm80 backward conv computes bwd_data and bwd_weight";
  if (k.sig.spec != conv_specialization::none) return "sm80 conv has no filter specializations";
  if (k.algo.groups_to_merge != 1) return "sm80 conv computes one group per block (groups_to_merge 1)";
  if (const char* why = conv_dtypes_unsupported_reason(k.sig)) return why;
  const int bytes = bits_of(k.sig.in) / 8;
  for (int v : {k.algo.vector_in, k.algo.vector_wei, k.algo.vector_out}) {
    const int b = v * bytes;
    if (b != 4 && b != 8 && b != 16) return "sm80 conv vectors are 4, 8 or 16 bytes (cp.async widths)";
  }
  const mnk t = k.algo.tile;
  if (k.sig.dir == conv_direction::bwd_data) {
    if (t.k % k.algo.vector_out != 0) return "sm80 bwd_data: tile_k must be a whole number of dY vectors";
    if (t.n % k.algo.vector_wei != 0) return "sm80 bwd_data: tile_n must be a whole number of weight vectors";
  } else {
    if (t.m % k.algo.vector_out != 0) return "sm80 bwd_weight: tile_m must be a whole number of dY vectors";
    if (t.n % k.algo.vector_in != 0) return "sm80 bwd_weight: tile_n must be a whole number of input vectors";
    if (const char* why = key_unsupported_reason(conv_bwd_weight_partial_key(k))) return why;
  }
  return key_unsupported_reason(conv_bwd_gemm_key(k));
}

}  // namespace kdecl::kernels::cuda::sm80
