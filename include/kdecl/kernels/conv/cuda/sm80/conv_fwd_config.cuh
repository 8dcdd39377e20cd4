// What the sm_80 forward convolution derives from its key at compile time: the
// implicit GEMM key it runs the cp_async GEMM's pieces with, and the rules of
// keys it cannot build (the arch tables' cp_async conv offer is checked
// against conv_fwd_unsupported_reason by tests/unit/conv_table_kernel_agreement_test.cu).
#pragma once

#include "kdecl/conv/grouped_conv_key.hpp"
#include "kdecl/dsl/conv_rules.hpp"
#include "kdecl/kernels/gemm/cuda/sm80/config.cuh"

namespace kdecl::kernels::cuda::sm80 {

// The data types every sm_80 convolution computes: fp16 or bf16 (mma.sync), fp32
// multiplied in tf32 (mma.sync) or exactly (FFMA); one dtype for the three tensors.
constexpr const char* conv_dtypes_unsupported_reason(const grouped_conv_signature& s) {
  if (s.in != s.wei || s.in != s.out || (s.in != dtype::fp16 && s.in != dtype::bf16 && s.in != dtype::fp32))
    return "sm80 conv computes fp16, bf16 or fp32 data (input = weight = output)";
  if (s.acc != dtype::fp32) return "sm80 conv accumulates in fp32";
  if (!compute_suits(s.in, s.compute))
    return "sm80 conv multiplies in its data's dtype, or in tf32 for fp32 data";
  return nullptr;
}

// A = input gathered (row-major: K-major), B = weights (column-major: K-major),
// C = output (row-major); the output's vector is the epilogue's access width. A fused
// epilogue is the GEMM's multi_d: its activation, the bias and the residual as D tensors
// (conv_fwd_sm80.cuh says where each is read).
constexpr gemm_key conv_fwd_gemm_key(const grouped_conv_key& k) {
  gemm_key g = dsl::conv_rules::implicit_gemm(k);
  g.algo.vector_bytes = k.algo.vector_out * bits_of(k.sig.out) / 8;
  if (const conv_fusion& f = k.sig.fuse; f.fused() && !f.dynamic) {
    g.sig.variant = gemm_variant::multi_d;
    g.sig.ew = f.act;
    g.sig.num_d = int(f.bias) + int(f.residual);
  }
  return g;
}

// nullptr when the kernel builds `k`, else the first rule it breaks.
constexpr const char* conv_fwd_unsupported_reason(const grouped_conv_key& k) {
  if (!k.concrete()) return "sm80 conv needs a concrete key";
  if (k.sig.dir != conv_direction::fwd) return "sm80 conv computes the forward direction only";
  if (k.sig.spec != conv_specialization::none) return "sm80 conv has no filter specializations";
  if (k.algo.groups_to_merge != 1) return "sm80 conv computes one group per block (groups_to_merge 1)";
  if (k.sig.fuse.dynamic) return "sm80 conv compiles its fused epilogue in (no fusion read at run time)";
  if (const char* why = conv_dtypes_unsupported_reason(k.sig)) return why;
  const int bytes = bits_of(k.sig.in) / 8;
  for (int v : {k.algo.vector_in, k.algo.vector_wei, k.algo.vector_out}) {
    const int b = v * bytes;
    if (b != 4 && b != 8 && b != 16) return "sm80 conv vectors are 4, 8 or 16 bytes (cp.async widths)";
  }
  if (k.algo.tile.k * bytes % (k.algo.vector_in * bytes) != 0 || k.algo.tile.k * bytes % (k.algo.vector_wei * bytes) != 0)
    return "sm80 conv: tile_k must be a whole number of input and weight vectors";
  return key_unsupported_reason(conv_fwd_gemm_key(k));
}

}  // namespace kdecl::kernels::cuda::sm80
