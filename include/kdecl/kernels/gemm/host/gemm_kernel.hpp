// gemm_kernel<K, backend::host>: the CPU implementation of the kernel contract
// (see kdecl/kernels/gemm/gemm_kernel.hpp).
//
// How K maps onto a CPU: tile = cache blocking (mc, nc, kc), warp_tile = the
// register micro-tile (mr, nr; its k is unused), warps are meaningless here.
// Runs synchronously (the stream argument is ignored) on the shared thread
// pool; needs no workspace. Supports every dtype combination listed in
// compute_types.hpp, every layout, strided batch, alpha/beta, the multi_d
// epilogues, a preshuffled B and the block_scaled variant's scales (tile.k = 128: one
// scale block per cache block of K).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "kdecl/core/enums.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/gemm/gemm_problem.hpp"
#include "kdecl/kernels/gemm/gemm_kernel.hpp"
#include "kdecl/kernels/gemm/host/blocked_gemm.hpp"
#include "kdecl/kernels/gemm/host/compute_types.hpp"
#include "kdecl/numeric/host_storage.hpp"

namespace kdecl::kernels {

namespace host {
// The key of a host kernel for signature `s` (no DSL expansion: tests and benchmarks name
// host kernels directly): `tile` the cache block, `micro` the register micro-tile (its k unused).
constexpr gemm_key host_gemm_key(const gemm_signature& s, mnk tile, mnk micro) {
  gemm_key k{};
  k.sig = s;
  k.algo.tile = tile;
  k.algo.warps = {1, 1, 1};
  k.algo.warp_tile = micro;
  k.algo.pipe = pipeline::host_blocked;
  k.algo.stages = 1;
  k.algo.epi = epilogue::direct;
  k.algo.sched = scheduler::intrawave;
  k.algo.arch = arch_id::host;
  return k;
}
// Why a host kernel of signature `k` cannot run problem `p` with `args` (std::nullopt: it can).
// Not a member of gemm_kernel<K>: one copy serves every key (a declaration of 2,000 host keys
// compiled 2,000 copies of it, 40% of the object's code; tests/consumer/).
inline std::optional<std::string> problem_reason(const gemm_signature& k, const gemm_problem& p,
                                                 const gemm_args& args) {
  const gemm_signature& s = p.sig;
  if (s.a != k.a || s.b != k.b || s.c != k.c || s.acc != k.acc || s.compute != k.compute ||
      !(s.lay == k.lay) || s.variant != k.variant)
    return std::string("problem signature differs from the kernel's");
  if (s.variant == gemm_variant::multi_d) {
    if (s.ew != k.ew) return std::string("problem's elementwise op differs from the kernel's");
    if (s.num_d < 0 || s.num_d > max_d_tensors)
      return "num_d = " + std::to_string(s.num_d) + " is outside [0, " + std::to_string(max_d_tensors) + "]";
  }
  if (p.m < 0 || p.n < 0 || p.k < 0 || p.batch < 0) return std::string("negative problem size");
  if (p.lda <= 0 || p.ldb <= 0 || p.ldc <= 0)
    return std::string("leading dimensions must be set (problem not normalized)");
  if (p.m * p.n * p.batch == 0) return std::nullopt;  // nothing to compute, nothing dereferenced
  if (!args.c) return std::string("C pointer is null");
  if (p.k > 0 && (!args.a || !args.b)) return std::string("A or B pointer is null");
  if (s.variant == gemm_variant::multi_d) {
    if (s.num_d > 0 && p.ldd <= 0) return std::string("ldd must be set for multi_d (problem not normalized)");
    for (int t = 0; t < s.num_d; ++t)
      if (!args.d[std::size_t(t)]) return "D pointer " + std::to_string(t) + " is null";
  }
  if (s.variant == gemm_variant::block_scaled) {
    if (p.scales.ld_a <= 0 || p.scales.ld_b <= 0)
      return std::string("the scales' leading dimensions must be set (problem not normalized)");
    if (p.k > 0 && (!args.scale_a || !args.scale_b)) return std::string("scale_a or scale_b pointer is null");
  }
  return std::nullopt;
}
}  // namespace host

template <gemm_key K>
struct gemm_kernel<K, backend::host> {
  // Why this key cannot be built for the host at all; nullptr when it can.
  static constexpr const char* unsupported_key_reason() {
    if (const char* why = host::unsupported_signature_reason(K.sig)) return why;
    if (K.sig.variant == gemm_variant::preshuffle && bits_of(K.sig.b) > 32)
      return "the preshuffled B format is defined for 8, 16 and 32-bit B only";
    const mnk t = K.algo.tile, w = K.algo.warp_tile;
    if (!t.concrete() || w.m <= 0 || w.n <= 0) return "host GEMM needs concrete tile and warp_tile";
    if (K.sig.variant == gemm_variant::block_scaled && t.k != scale_block_k)
      return "a block_scaled host GEMM needs tile.k = 128, one scale block per cache block of K";
    if (t.m % w.m != 0 || t.n % w.n != 0)
      return "host GEMM needs tile.m % warp_tile.m == 0 and tile.n % warp_tile.n == 0";
    return nullptr;
  }

  static std::optional<std::string> why_not(const gemm_problem& p, const gemm_args& args) {
    if (const char* why = unsupported_key_reason()) return std::string(why);
    return host::problem_reason(K.sig, p, args);
  }

  static status run(const gemm_problem& p, const gemm_args& args, void* /*stream*/) {
    if (auto why = why_not(p, args)) return status::error(*why);
    if constexpr (unsupported_key_reason() == nullptr) {
      using ta = host_storage_t<K.sig.a>;
      using tb = host_storage_t<K.sig.b>;
      using tc = host_storage_t<K.sig.c>;
      using compute = host::compute_t<K.sig>;
      constexpr bool tf32 = K.sig.compute == dtype::tf32;
      const host::blocking blk{K.algo.tile.m, K.algo.tile.n, K.algo.tile.k};
      host::blocked_gemm<ta, tb, tc, compute, K.algo.warp_tile.m, K.algo.warp_tile.n, tf32>(p, args, blk)
          .run();
    }
    return status::ok();
  }

  static std::size_t workspace_bytes(const gemm_problem&) { return 0; }
};

}  // namespace kdecl::kernels
