// The HIP serving-attention kernels' own rules, beyond what the dispatcher checks for
// every kernel (family, dtypes, cache dtype, head dim against the key, mask, soft-cap,
// sinks) and what the problem's validate() already refused. Plain C++ without HIP
// headers: the host tests call them with a shipped key's values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kdecl/fmha/fmha_key.hpp"
#include "kdecl/fmha/paged_kv.hpp"

namespace kdecl::kernels::hip {

// The append kernel's key rules (it has no tiles): nullptr when it builds `k`.
constexpr const char* fmha_hip_append_unsupported(const fmha_key& k) {
  if (k.algo.pipe != fmha_pipeline::appendkv || k.sig.family != fmha_family::fwd_appendkv)
    return "the HIP append kernel is pipeline appendkv, family fwd_appendkv";
  if (k.algo.arch != arch_id::gfx90a && k.algo.arch != arch_id::gfx942) return "the HIP append kernel targets gfx90a and gfx942";
  if ((k.sig.qkv != dtype::fp16 && k.sig.qkv != dtype::bf16) || k.sig.o != k.sig.qkv)
    return "the HIP append kernel writes fp16 or bf16";
  if (k.sig.cache != dtype::any && k.sig.cache != k.sig.qkv) return "the HIP kernels keep the cache in Q's dtype (no fp8 cache)";
  return nullptr;
}

// Why the HIP kernel cannot run a valid, normalized problem, naming the value and the rule.
// m0: query rows per block (0 for the append kernel); k0max: the kernel's padded head dim.
inline std::optional<std::string> fmha_hip_paged_refusal(const fmha_paged_problem& p, int m0, int k0max) {
  auto text = [](const char* what, std::int64_t value, const std::string& rule) {
    return std::string("hip paged attention: ") + what + " = " + std::to_string(value) + " " + rule;
  };
  if (p.fp8_cache()) return std::string("hip paged attention: no fp8 cache kernel on HIP (the cache holds Q's dtype)");
  if (p.hdim > k0max) return text("hdim", p.hdim, "exceeds the kernel's head dim " + std::to_string(k0max));
  // Grid: x up to 2^31 - 1 blocks; y and z (heads, batch) up to 65,535.
  constexpr std::int64_t yz = 65535, x_max = (std::int64_t(1) << 31) - 1;
  if (p.batch > yz) return text("batch", p.batch, "exceeds 65,535 (the grid's z dimension)");
  if (p.heads_q > yz) return text("heads_q", p.heads_q, "exceeds 65,535 (the grid's y dimension)");
  if (p.family == fmha_family::fwd_appendkv) {
    if (p.batch * p.seqlen_q > x_max) return text("batch x seqlen_q", p.batch * p.seqlen_q, "exceeds 2^31 - 1 blocks");
    return std::nullopt;
  }
  const std::int64_t rows = p.prefill() ? p.seqlen_q : p.group() * p.seqlen_q;
  if (m0 > 0 && (rows + m0 - 1) / m0 * paged_max_splits > x_max)
    return text("query rows per block column", rows, "need more than 2^31 - 1 blocks");
  if (p.prefill() && p.total_q() > x_max) return text("total query rows", p.total_q(), "exceed 2^31 - 1 (32-bit rows)");
  if (!p.prefill() && p.batch * p.heads_q * p.seqlen_q > x_max)
    return text("batch x heads_q x seqlen_q", p.batch * p.heads_q * p.seqlen_q, "exceeds 2^31 - 1 (the combine's blocks)");
  return std::nullopt;
}

}  // namespace kdecl::kernels::hip
