// What the HIP (MFMA) convolution derives from its key, and the rules of the keys and problems it
// takes. Plain C++ (no HIP header): the arch-table agreement test and the host tests of the
// problem rules include it; the kernel (conv_hip.hpp) static_asserts the key rules and calls
// the problem rules from why_not.
//
// Every direction is an implicit GEMM on the HIP GEMM's pieces (kernels/gemm/hip/: register-
// staged tile loaders, padded LDS tiles, the mem / compv3 / compv4 pipelines, MFMA warp tiles,
// direct and cshuffle epilogues), with the operand majorness its tensors have:
//   fwd         A = input gathered (im2col, k-contiguous), B = filter rows (k-contiguous),
//               C = output pixels x K/G (rcr)
//   bwd_data    A = dY gathered per stride phase (k-contiguous), B = weights (C/G contiguous),
//               C = the phase's dX pixels x C/G, rows through a pixel map (rrr)
//   bwd_weight  A = dY (K/G contiguous), B = input gathered (C/G contiguous),
//               C = dW, K/G rows of taps x C/G, or fp32 split-K partials (crr)
// The GEMM key's vector_bytes is the C operand's access width (the cshuffle epilogue's); each
// gather takes its own width from the convolution key's vectors.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "kdecl/conv/grouped_conv_key.hpp"
#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/dsl/conv_rules.hpp"
#include "kdecl/kernels/conv/implicit_gemm_fwd_problem.hpp"
#include "kdecl/kernels/conv/pixel_rows.hpp"
#include "kdecl/kernels/gemm/hip/gemm_hip_geometry.hpp"

namespace kdecl::kernels::hip {

constexpr gemm_key conv_hip_gemm_key(const grouped_conv_key& k) {
  gemm_key g = dsl::conv_rules::implicit_gemm(k);
  int c_vec = k.algo.vector_out;
  switch (k.sig.dir) {
    case conv_direction::fwd:
      g.sig.lay = gemm_layout{layout::row, layout::col, layout::row};
      if (const conv_fusion& f = k.sig.fuse; f.fused() && !f.dynamic) {  // the GEMM's multi_d: D0 bias, D1 residual
        g.sig.variant = gemm_variant::multi_d;
        g.sig.ew = f.act;
        g.sig.num_d = int(f.bias) + int(f.residual);
      }
      break;
    case conv_direction::bwd_data:
      g.sig.lay = gemm_layout{layout::row, layout::row, layout::row};
      c_vec = k.algo.vector_in;
      break;
    case conv_direction::bwd_weight:
      g.sig.lay = gemm_layout{layout::col, layout::row, layout::row};
      c_vec = k.algo.vector_wei;
      break;
  }
  g.algo.vector_bytes = c_vec * bits_of(g.sig.c) / 8;
  return g;
}

// bwd_weight's split-K partials: the same GEMM writing fp32, as many per access as dW's vector
// holds (up to 16 bytes; the partials' rows are taps x C/G long, a multiple of it).
constexpr gemm_key conv_hip_partial_key(const grouped_conv_key& k) {
  gemm_key g = conv_hip_gemm_key(k);
  g.sig.c = dtype::fp32;
  g.algo.vector_bytes = k.algo.vector_wei * 4 < 16 ? k.algo.vector_wei * 4 : 16;
  return g;
}

// The vector widths (elements) of the two gathered operands, A's then B's.
struct conv_hip_gathers {
  int a, b;
};
constexpr conv_hip_gathers conv_hip_gather_vectors(const grouped_conv_key& k) {
  switch (k.sig.dir) {
    case conv_direction::fwd: return {k.algo.vector_in, k.algo.vector_wei};
    case conv_direction::bwd_data: return {k.algo.vector_out, k.algo.vector_wei};
    case conv_direction::bwd_weight: return {k.algo.vector_out, k.algo.vector_in};
  }
  return {0, 0};
}

// nullptr when the HIP convolution builds `k`, else the first rule it breaks.
constexpr const char* conv_hip_unsupported_reason(const grouped_conv_key& k) {
  if (!k.concrete()) return "hip conv needs a concrete key";
  if (k.algo.pipe == pipeline::direct_conv) return "hip conv is an implicit GEMM (no direct_conv kernel on AMD)";
  if (k.sig.spec != conv_specialization::none) return "hip conv has no filter specializations";
  if (k.algo.groups_to_merge != 1) return "hip conv computes one group per block (groups_to_merge 1)";
  const auto& s = k.sig;
  if (s.in != s.wei || s.in != s.out || (s.in != dtype::fp16 && s.in != dtype::bf16 && s.in != dtype::fp32))
    return "hip conv computes fp16, bf16 or fp32 data (input = weight = output)";
  if (s.acc != dtype::fp32 || s.compute != s.in) return "hip conv multiplies in its data's dtype and accumulates in fp32";
  if (s.fuse.dynamic) return "hip conv compiles its fused epilogue in (no fusion read at run time)";
  const int bytes = bits_of(s.in) / 8;
  for (int v : {k.algo.vector_in, k.algo.vector_wei, k.algo.vector_out}) {
    const int b = v * bytes;
    if (b != 4 && b != 8 && b != 16) return "hip conv vectors are 4, 8 or 16 bytes";
  }
  // Each gathered vector lies whole in one LDS row (k-contiguous) or one LDS column (transposed).
  const conv_hip_gathers v = conv_hip_gather_vectors(k);
  const mnk t = k.algo.tile;
  switch (s.dir) {
    case conv_direction::fwd:
      if (t.k % v.a != 0 || t.k % v.b != 0) return "hip conv fwd: tile_k must be a whole number of input and weight vectors";
      break;
    case conv_direction::bwd_data:
      if (t.k % v.a != 0) return "hip conv bwd_data: tile_k must be a whole number of dY vectors";
      if (t.n % v.b != 0) return "hip conv bwd_data: tile_n must be a whole number of weight vectors";
      break;
    case conv_direction::bwd_weight:
      if (t.m % v.a != 0) return "hip conv bwd_weight: tile_m must be a whole number of dY vectors";
      if (t.n % v.b != 0) return "hip conv bwd_weight: tile_n must be a whole number of input vectors";
      if (const char* why = hip_gemm_unsupported(conv_hip_partial_key(k))) return why;
      break;
  }
  return hip_gemm_unsupported(conv_hip_gemm_key(k));
}

// ---- problems ----------------------------------------------------------------------------

// Why the HIP convolution of key K cannot run a valid, normalized problem (nothing when it can):
// offsets of a group's tensors and the GEMM's extents in 32 bits where the kernel indexes with
// ints, grid limits, and every vector access aligned (pointers, the strides a gather steps by).
// `c_align`: bytes of the C operand's accesses (the cshuffle epilogue's vector, or one element).
inline std::optional<std::string> conv_hip_problem_reason(const grouped_conv_key& k, const grouped_conv_problem& p,
                                                          const grouped_conv_args& a) {
  const std::string who = "hip conv";
  if (k.sig.dir == conv_direction::fwd) {
    const hip_gemm_geometry geo = geometry_of(conv_hip_gemm_key(k));
    const int c_bytes = bits_of(k.sig.out) / 8;
    const int c_align = k.algo.epi == epilogue::cshuffle ? geo.c_vector * c_bytes : c_bytes;
    if (auto why = implicit_gemm_fwd_reason(k, p, a, who, {k.algo.vector_in, k.algo.vector_wei,
                                                          k.algo.epi == epilogue::cshuffle ? geo.c_vector : 1, c_align}))
      return why;
    // The fused epilogue reads bias and residual in the epilogue's vectors.
    for (const void* d : {p.fusion.bias ? a.bias : nullptr, p.fusion.residual ? a.residual : nullptr})
      if (d != nullptr && reinterpret_cast<std::uintptr_t>(d) % std::uintptr_t(c_align) != 0)
        return who + ": the fused epilogue's bias and residual must be aligned to " + std::to_string(c_align) +
               " bytes (its vectors)";
    return std::nullopt;
  }
  if (!p.has_signature(k.sig)) return std::string("problem signature differs from the kernel's");
  if (p != p.normalized()) return std::string("problem is not normalized");
  if (!a.in || !a.wei || !a.out) return std::string("a tensor pointer (in, wei or out) is null");
  constexpr std::int64_t int_max = std::numeric_limits<int>::max();
  if (p.n * p.output_pixels() > int_max || p.n * p.input_pixels() > int_max ||
      p.k_per_group() * p.filter_taps() > int_max || p.c_per_group() * p.filter_taps() > int_max)
    return who + ": N x pixels and channels x taps must be < 2^31";
  if (p.g > 65535) return who + ": G must be at most 65535 (grid z)";
  const auto out = p.output_dims();
  for (int d = 0; d < 3; ++d)
    if (p.input_dims[d] > int_max / 4 || out[std::size_t(d)] > int_max / 4 || p.pad_left_dims[d] > int_max / 4 ||
        p.stride_dims[d] > int_max / 4 || p.dilation_dims[d] * p.filter_dims[d] > int_max / 4)
      return who + ": spatial sizes, strides and dilated filters must be < 2^29";
  const bool bwd_data = k.sig.dir == conv_direction::bwd_data;
  if (bwd_data && p.stride_dims[0] * p.stride_dims[1] * p.stride_dims[2] > 65535)
    return who + " bwd_data: the product of the strides (phases) must be at most 65535 (grid y)";
  // The vectors: dY along K/G (both directions), the weights (bwd_data) or the input (bwd_weight)
  // along C/G, and C's accesses along its rows (dX's C/G, or dW's taps x C/G).
  const gemm_key g = conv_hip_gemm_key(k);
  const hip_gemm_geometry geo = geometry_of(g);
  const int e = bits_of(k.sig.in) / 8;
  const int c_vec = k.algo.epi == epilogue::cshuffle ? geo.c_vector : 1;
  const int vb = bwd_data ? k.algo.vector_wei : k.algo.vector_in;
  if (p.k_per_group() % k.algo.vector_out != 0 || p.c_per_group() % vb != 0 || p.c_per_group() % c_vec != 0)
    return who + ": K/G must be a multiple of the dY vector (" + std::to_string(k.algo.vector_out) + ") and C/G of the " +
           (bwd_data ? "weight" : "input") + " vector (" + std::to_string(vb) + ") and of the output's (" +
           std::to_string(c_vec) + ")";
  auto misaligned = [](const void* ptr, int bytes) { return reinterpret_cast<std::uintptr_t>(ptr) % std::uintptr_t(bytes) != 0; };
  auto strides_multiple = [](const conv_tensor_strides& s, std::int64_t v) {
    return s.n % v == 0 && s.g % v == 0 && s.spatial[0] % v == 0 && s.spatial[1] % v == 0 && s.spatial[2] % v == 0;
  };
  if (misaligned(a.out, k.algo.vector_out * e) || !strides_multiple(p.out_strides, k.algo.vector_out))
    return who + ": dY (out) and its strides must be aligned to its " + std::to_string(k.algo.vector_out * e) + "-byte vectors";
  if (bwd_data) {
    if (misaligned(a.wei, vb * e) || !strides_multiple(p.wei_strides, vb))
      return who + " bwd_data: the weights and their strides must be aligned to their " + std::to_string(vb * e) +
             "-byte vectors";
    if (misaligned(a.in, c_vec * e) || !strides_multiple(p.in_strides, c_vec))
      return who + " bwd_data: dX (in) and its strides must be aligned to the epilogue's " + std::to_string(c_vec * e) +
             "-byte vectors";
    return std::nullopt;
  }
  if (misaligned(a.in, vb * e) || !strides_multiple(p.in_strides, vb))
    return who + " bwd_weight: the input and its strides must be aligned to its " + std::to_string(vb * e) + "-byte vectors";
  // dW is C of a row-major GEMM: each output channel's taps x C/G one contiguous row.
  std::int64_t packed = p.c_per_group();
  for (int slot = 2; slot >= 3 - p.ndim(); --slot) {
    if (p.filter_dims[slot] > 1 && p.wei_strides.spatial[std::size_t(slot)] != packed)
      return who + " bwd_weight: every output channel's filter (taps x C/G) must be contiguous in dW";
    packed *= p.filter_dims[slot];
  }
  if (misaligned(a.wei, c_vec * e) || p.wei_strides.n % c_vec != 0 || p.wei_strides.g % c_vec != 0)
    return who + " bwd_weight: dW (wei) and its strides must be aligned to the epilogue's " + std::to_string(c_vec * e) +
           "-byte vectors";
  if (p.k_per_group() * p.wei_strides.n > int_max) return who + " bwd_weight: a group of dW must hold < 2^31 elements";
  return std::nullopt;
}

}  // namespace kdecl::kernels::hip
