// Random GEMM problems as users meet them: odd sizes, leading dimensions longer
// than the row by odd amounts, pointers offset into larger allocations, batches
// with odd strides. Shared by the selection property test (offline, every arch)
// and the GPU test that runs a sample of them.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kdecl/gemm/gemm_problem.hpp"
#include "kdecl/registry/registry.hpp"

namespace kdecl::testing {

struct drawn_problem {
  gemm_problem problem;
  // Element offsets of the A, B, C, D pointers from 256-byte aligned allocations.
  std::int64_t offset_a = 0, offset_b = 0, offset_c = 0, offset_d = 0;

  std::string describe() const {
    const auto& p = problem;
    return fmt::format("{}-{}-{} {}{}{} {}{} m={} n={} k={} batch={} ld=({},{},{},{}) strides=({},{},{},{}) "
                       "offsets=({},{},{},{})",
                       to_string(p.sig.a), to_string(p.sig.b), to_string(p.sig.c), to_string(p.sig.lay.a),
                       to_string(p.sig.lay.b), to_string(p.sig.lay.c), to_string(p.sig.variant),
                       p.sig.variant == gemm_variant::multi_d
                           ? fmt::format("({},{})", to_string(p.sig.ew), p.sig.num_d)
                           : std::string(),
                       p.m, p.n, p.k, p.batch, p.lda, p.ldb, p.ldc, p.ldd, p.stride_a, p.stride_b, p.stride_c,
                       p.stride_d, offset_a, offset_b, offset_c, offset_d) +
           (p.sig.variant == gemm_variant::block_scaled
                ? fmt::format(" scales ld=({},{}) strides=({},{})", p.scales.ld_a, p.scales.ld_b, p.scales.stride_a,
                              p.scales.stride_b)
                : std::string());
  }
};

// The distinct signatures registered for an arch, in a stable order.
inline std::vector<gemm_signature> signatures_of(arch_id arch, const registry& reg = registry::global()) {
  std::vector<gemm_signature> out;
  for (const auto& k : reg.gemm_kernels())
    if (k->arch() == arch && std::find(out.begin(), out.end(), k->key().sig) == out.end())
      out.push_back(k->key().sig);
  return out;
}

// Draws a valid problem of signature `sig`: sizes log-uniform in [1, max_size] (so
// small and large both appear), K at most max_k.
inline drawn_problem draw_problem(std::mt19937_64& rng, const gemm_signature& sig, std::int64_t max_size,
                                  std::int64_t max_k) {
  auto uniform = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  auto size = [&](std::int64_t hi) {
    const double x = std::exp(std::uniform_real_distribution<double>(0, std::log(double(hi) + 1))(rng));
    return std::clamp<std::int64_t>(std::int64_t(x), 1, hi);
  };
  // Extra elements past a row: packed, small odd amounts, or a random pad.
  auto extra = [&] {
    static constexpr std::int64_t picks[] = {0, 0, 0, 1, 2, 3, 5, 7, 8, 13};
    return chance(0.15) ? uniform(0, 67) : picks[uniform(0, 9)];
  };
  auto offset = [&] { return chance(0.5) ? 0 : uniform(1, 15); };

  // Two in five problems keep A and B as an allocator would (rows padded to 16 bytes,
  // no offsets), so the wide kernels (TMA on sm_90) meet misaligned C and D too; the
  // rest misalign every operand at random.
  const bool ab_aligned = chance(0.4);
  auto padded = [&](std::int64_t cols, dtype t) {
    const std::int64_t per16 = std::max(1, 16 / std::max(1, bits_of(t) / 8));
    return (cols + per16 - 1) / per16 * per16 + per16 * uniform(0, 2);
  };

  drawn_problem d;
  gemm_problem& p = d.problem;
  p.sig = sig;
  p.sizes(size(max_size), size(max_size), size(max_k));
  p.batch = chance(0.75) ? 1 : uniform(2, 4);
  p.lda = ab_aligned ? padded(p.cols_a(), sig.a) : p.cols_a() + extra();
  p.ldb = sig.variant == gemm_variant::preshuffle ? 0 : ab_aligned ? padded(p.cols_b(), sig.b) : p.cols_b() + extra();
  p.ldc = p.cols_c() + extra();
  if (sig.variant == gemm_variant::multi_d) p.ldd = p.cols_c() + extra();
  if (sig.variant == gemm_variant::block_scaled && chance(0.5))  // scales packed, or with gaps
    p.scales = {p.m + extra(), p.k_blocks() + extra(), 0, 0};
  if (p.batch > 1) {
    const gemm_problem packed = p.normalized();
    // Packed, or longer than one matrix by an odd amount (the next batch may start anywhere).
    auto stride = [&](std::int64_t footprint) { return chance(0.3) ? 0 : footprint + extra(); };
    // Aligned A and B keep packed strides (multiples of their padded rows).
    p.stride_a = ab_aligned ? 0 : stride(packed.lda * packed.rows_a());
    p.stride_b = sig.variant == gemm_variant::preshuffle || ab_aligned ? 0 : stride(packed.ldb * packed.rows_b());
    p.stride_c = stride(packed.ldc * packed.rows_c());
    if (sig.variant == gemm_variant::multi_d) p.stride_d = stride(packed.ldd * packed.rows_c());
    if (sig.variant == gemm_variant::block_scaled) {
      p.scales.stride_a = stride(packed.scales.ld_a * packed.k_blocks());
      p.scales.stride_b = stride(packed.scales.ld_b * packed.n_blocks());
    }
  }
  d.offset_a = ab_aligned ? 0 : offset();
  // A pre-shuffled B is an image in the format's own 16-byte aligned layout.
  d.offset_b = sig.variant == gemm_variant::preshuffle || ab_aligned ? 0 : offset();
  d.offset_c = offset();
  d.offset_d = sig.variant == gemm_variant::multi_d ? offset() : 0;
  return d;
}

// Stand-in pointers for selection without memory: 256-byte aligned bases plus the offsets.
inline gemm_args fake_args(const drawn_problem& d) {
  auto at = [](std::uintptr_t base, std::int64_t offset, dtype t) {
    return reinterpret_cast<void*>(base + std::uintptr_t(offset) * std::uintptr_t(std::max(1, bits_of(t) / 8)));
  };
  const auto& s = d.problem.sig;
  gemm_args a{at(0x100000, d.offset_a, s.a), at(0x200000, d.offset_b, s.b), at(0x300000, d.offset_c, s.c)};
  for (int i = 0; i < s.num_d && i < max_d_tensors; ++i) a.d[i] = at(0x400000 + 0x100000 * i, d.offset_d, s.c);
  if (s.variant == gemm_variant::block_scaled) {
    a.scale_a = static_cast<const float*>(at(0x800000, 0, dtype::fp32));
    a.scale_b = static_cast<const float*>(at(0x900000, 0, dtype::fp32));
  }
  return a;
}

}  // namespace kdecl::testing
