// The HIP attention kernel's run-time refusals (its why_not), beyond what the
// dispatcher checks for every kernel (signature, head dims against the key and its
// padding, the 16-byte access width of rows, strides and pointers, grid limits).
// No HIP headers: the host tests call it with the values of a shipped key.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "kdecl/fmha/fmha_problem.hpp"

namespace kdecl::kernels::hip {

// m0: query rows per block; k0max / n1: the kernel's padded head dims.
inline std::optional<std::string> fmha_hip_refusal(const fmha_problem& p, const fmha_args& a, int m0, int k0max, int n1) {
  auto text = [](const char* what, std::int64_t value, const char* rule) {
    return std::string("hip attention: ") + what + " = " + std::to_string(value) + " " + rule;
  };
  if (p.hdim_q > k0max) return text("hdim_q", p.hdim_q, ("exceeds the kernel's k0max " + std::to_string(k0max)).c_str());
  if (p.hdim_v > n1) return text("hdim_v", p.hdim_v, ("exceeds the kernel's n1 " + std::to_string(n1)).c_str());
  if (p.hdim_q % 8 != 0) return text("hdim_q", p.hdim_q, "is not a multiple of 8 (16-byte fragments)");
  if (p.hdim_v % 8 != 0) return text("hdim_v", p.hdim_v, "is not a multiple of 8 (16-byte rows)");
  if (p.group_mode() && (!a.cu_seqlens_q || !a.cu_seqlens_kv))
    return std::string("hip attention: group mode needs cu_seqlens_q and cu_seqlens_kv pointers");
  if (p.total_q() > 0 && (!a.q || !a.o)) return std::string("hip attention: Q or O pointer is null");
  if (p.total_kv() > 0 && (!a.k || !a.v)) return std::string("hip attention: K or V pointer is null");
  if (p.lse && !a.lse && p.total_q() > 0)
    return std::string("hip attention: the problem asks for the LSE but its pointer is null");
  if (p.bias == fmha_bias::elementwise && !a.bias) return std::string("hip attention: elementwise bias pointer is null");
  if (p.bias == fmha_bias::alibi && !a.alibi_slopes) return std::string("hip attention: ALiBi slopes pointer is null");
  if (p.sinks && !a.sinks) return std::string("hip attention: sinks pointer is null");
  constexpr std::int64_t int_max = std::numeric_limits<int>::max();
  if (p.seqlen_q > int_max || p.seqlen_kv > int_max || p.total_q() > int_max || p.total_kv() > int_max)
    return text("the longest sequence", p.seqlen_q > p.seqlen_kv ? p.seqlen_q : p.seqlen_kv,
                "or a total exceeds 2^31 - 1 (32-bit row indices)");
  if ((p.seqlen_q + m0 - 1) / m0 > int_max) return std::string("hip attention: too many query blocks for the grid");
  return std::nullopt;
}

}  // namespace kdecl::kernels::hip
