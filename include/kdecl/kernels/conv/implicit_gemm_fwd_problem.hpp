// The problem rules every forward implicit-GEMM convolution kernel shares
// (cuda/sm80/conv_fwd_sm80.cuh, cuda/sm90/conv_fwd_sm90.cuh, hip/conv_hip.hpp): the signature matches the
// key, sizes fit the 32-bit indices of the gather, C/G is a whole number of
// input vectors, every output channel's filter (taps x C/G) is one contiguous
// row, pointers and the strides a gather steps by are vector-aligned, and the
// output is a row-major matrix of pixels (one leading dimension). `who` names
// the kernel in the messages.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <tuple>

#include "kdecl/conv/grouped_conv_key.hpp"
#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/kernels/conv/pixel_rows.hpp"
#include "kdecl/kernels/conv/conv_kernel.hpp"

namespace kdecl::kernels {

struct implicit_gemm_fwd_widths {
  int vec_in;         // input gather vector (elements)
  int vec_wei;        // weight row vector (elements)
  int vec_out;        // output vector (elements): K/G and the output strides are multiples of it
  int out_align;      // bytes the output pointer is aligned to
};

inline std::optional<std::string> implicit_gemm_fwd_reason(const grouped_conv_key& key, const grouped_conv_problem& p,
                                                           const grouped_conv_args& a, const std::string& who,
                                                           const implicit_gemm_fwd_widths& w,
                                                           bool mapped_output = false) {
  const auto& s = key.sig;
  if (!p.has_signature(s))
    return std::string("problem signature differs from the kernel's");
  if (p != p.normalized()) return std::string("problem is not normalized");
  if (!a.in || !a.wei || !a.out) return std::string("a tensor pointer (in, wei or out) is null");
  // A fused epilogue's inputs: read element by element where not vector-aligned (any address of their dtype).
  const int out_bytes = bits_of(s.out) / 8;
  for (auto [what, on, ptr] : {std::tuple{"bias", p.fusion.bias, a.bias}, {"residual", p.fusion.residual, a.residual}}) {
    if (!on) continue;
    if (!ptr) return std::string("the fused epilogue's ") + what + " pointer is null";
    if (reinterpret_cast<std::uintptr_t>(ptr) % out_bytes != 0)
      return who + ": the fused epilogue's " + what + " must be aligned to its " + std::to_string(out_bytes) +
             "-byte elements";
  }
  constexpr std::int64_t int_max = std::numeric_limits<int>::max();
  const auto e = p.implicit_gemm();
  if (e.m > int_max || e.k > int_max) return who + ": N x output pixels and C/G x taps must be < 2^31";
  if (p.g > 65535) return who + ": G must be at most 65535 (grid z)";
  for (int d = 0; d < 3; ++d)
    if (p.input_dims[d] > int_max || p.pad_left_dims[d] > int_max) return who + ": spatial sizes must be < 2^31";
  if (p.c_per_group() % w.vec_in != 0 || (!mapped_output && p.k_per_group() % w.vec_out != 0))
    return who + ": C/G and K/G must be multiples of the input (" + std::to_string(w.vec_in) + ") and output (" +
           std::to_string(w.vec_out) + ") vectors";
  // The weights are read as rows of C/G x taps per output channel: the taps must be packed.
  if (!filter_taps_contiguous(p)) return who + ": every output channel's filter (taps x C/G) must be contiguous";
  // Every vector access aligned: pointers, and every stride a block or a gather steps by.
  const int in_bytes = w.vec_in * bits_of(s.in) / 8, wei_bytes = w.vec_wei * bits_of(s.wei) / 8;
  auto misaligned = [](const void* ptr, int bytes) { return reinterpret_cast<std::uintptr_t>(ptr) % bytes != 0; };
  if (misaligned(a.in, in_bytes) || misaligned(a.wei, wei_bytes) || misaligned(a.out, w.out_align))
    return who + ": in, wei and out must be aligned to the kernel's vector widths (" + std::to_string(in_bytes) + ", " +
           std::to_string(wei_bytes) + " and " + std::to_string(w.out_align) + " bytes)";
  const auto& si = p.in_strides;
  for (std::int64_t stride : {si.n, si.g, si.spatial[0], si.spatial[1], si.spatial[2]})
    if (stride % w.vec_in != 0) return who + ": input strides must be multiples of the input vector";
  if (p.wei_strides.n % w.vec_wei != 0 || p.wei_strides.g % w.vec_wei != 0)
    return who + ": weight strides must be multiples of the weight vector";
  // The output is C of a row-major GEMM, its rows vector-aligned: output pixels evenly strided.
  // (Stored through a pixel map, each row finds its own alignment: any strides.)
  if (mapped_output) return std::nullopt;
  if (p.out_strides.spatial[2] % w.vec_out != 0 || p.out_strides.g % w.vec_out != 0)
    return who + ": output strides must be multiples of the output vector";
  if (!pixels_evenly_strided(p, conv_tensor::output))
    return who + ": output pixels must be evenly strided (rows and images packed)";
  return std::nullopt;
}

}  // namespace kdecl::kernels
