// Why the sm_90 TMA + wgmma GEMM of key `key` cannot run a problem (std::nullopt: it can):
// dtypes, layout and variant, sizes, the TMA rules on A and B (16-byte aligned bases, leading
// dimensions and batch strides, under 2^40 bytes), 32-bit epilogue offsets, scales and D
// tensors. One function for every key: as a member of gemm<K> each key of a set compiled its
// own copy of these checks and their messages.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/gemm/gemm_problem.hpp"
#include "kdecl/kernels/gemm/block_scales_reason.hpp"

namespace kdecl::kernels::cuda::sm90 {

inline std::optional<std::string> tma_wgmma_problem_reason(const gemm_key& key, const gemm_problem& p,
                                                         const gemm_args& args) {
  const auto fail = [](const std::string& s) { return std::optional<std::string>("sm90 tma_wgmma: " + s); };
  const auto& s = p.sig;
  if (s.a != key.sig.a || s.b != key.sig.b || s.c != key.sig.c || s.acc != key.sig.acc || s.compute != key.sig.compute)
    return fail("problem dtypes differ from the kernel's");
  if (!(s.lay == key.sig.lay)) return fail("problem layouts differ from the kernel's");
  if (s.variant != key.sig.variant || s.ew != key.sig.ew || s.num_d != key.sig.num_d)
    return fail("problem variant, elementwise op or D count differs from the kernel's");
  if (p.m < 1 || p.n < 1 || p.k < 1 || p.batch < 1) return fail("m, n, k and batch must be at least 1");
  constexpr std::int64_t int_max = 0x7fffffff;
  if (p.m > int_max || p.n > int_max || p.k > int_max || p.batch > 65535)
    return fail("m, n, k must fit in int32 and batch in 65535 (TMA coordinates)");
  if (key.algo.pad_m == tristate::no && p.m % key.algo.tile.m != 0) return fail("m is not a multiple of tile.m (pad_m = no)");
  if (key.algo.pad_n == tristate::no && p.n % key.algo.tile.n != 0) return fail("n is not a multiple of tile.n (pad_n = no)");
  if (key.algo.pad_k == tristate::no && p.k % key.algo.tile.k != 0) return fail("k is not a multiple of tile.k (pad_k = no)");
  const std::int64_t ea = bits_of(s.a) / 8, eb = bits_of(s.b) / 8, ec = bits_of(s.c) / 8;
  const auto aligned = [](const void* ptr, std::int64_t to) { return reinterpret_cast<std::uintptr_t>(ptr) % to == 0; };
  if (args.a == nullptr || args.b == nullptr || args.c == nullptr) return fail("A, B and C must be non-null");
  // A and B go through TMA; C (and D) through a direct-store epilogue that takes any alignment.
  if (!aligned(args.a, 16) || !aligned(args.b, 16)) return fail("A and B must be 16-byte aligned (TMA)");
  if (!aligned(args.c, ec)) return fail("C must be aligned to its element");
  if ((p.lda * ea) % 16 || (p.ldb * eb) % 16) return fail("lda and ldb must be multiples of 16 bytes (TMA)");
  if (p.lda < p.cols_a() || p.ldb < p.cols_b() || p.ldc < p.cols_c()) return fail("a leading dimension is too small");
  if (p.batch > 1 && (p.stride_a <= 0 || p.stride_b <= 0 || (p.stride_a * ea) % 16 || (p.stride_b * eb) % 16))
    return fail("batch strides of A and B must be positive multiples of 16 bytes (TMA)");
  if (key.algo.index_bits == 32) {
    // The epilogue's offsets inside one C (and D) are 32-bit; TMA addresses A and B itself.
    constexpr std::int64_t offset_max = 0x7fffffff;
    if (p.rows_c() * p.ldc > offset_max ||
        (key.sig.variant == gemm_variant::multi_d && p.rows_c() * p.ldd > offset_max))
      return fail("C or D spans 2^31 elements or more: offsets overflow 32-bit indexing (index_bits 64 keys take it)");
  }
  constexpr std::int64_t tma_stride_limit = std::int64_t{1} << 40;
  if (p.lda * ea >= tma_stride_limit || p.ldb * eb >= tma_stride_limit || p.stride_a * ea >= tma_stride_limit ||
      p.stride_b * eb >= tma_stride_limit)
    return fail("a leading dimension or batch stride reaches 2^40 bytes (TMA limit)");
  if (key.sig.variant == gemm_variant::block_scaled)
    if (auto why = block_scales_reason(p, args)) return fail(*why);
  if (key.sig.variant == gemm_variant::multi_d) {
    if (p.ldd < p.cols_c()) return fail("ldd must cover C's columns");
    for (int i = 0; i < key.sig.num_d && i < max_d_tensors; ++i)
      if (args.d[i] == nullptr || !aligned(args.d[i], ec))
        return fail("each D tensor must be non-null and aligned to its element");
  }
  return std::nullopt;
}

}  // namespace kdecl::kernels::cuda::sm90
