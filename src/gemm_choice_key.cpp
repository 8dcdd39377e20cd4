#include "kdecl/gemm/gemm_choice_key.hpp"

#include "kdecl/dispatch/alignment.hpp"

namespace kdecl {

gemm_pointer_alignment pointer_alignment_of(const gemm_args* args, int num_d) {
  if (!args) return {};
  std::uintptr_t cd = reinterpret_cast<std::uintptr_t>(args->c);
  for (int i = 0; i < num_d && i < max_d_tensors; ++i) cd |= reinterpret_cast<std::uintptr_t>(args->d[i]);
  return {dispatch::address_alignment(reinterpret_cast<std::uintptr_t>(args->a) |
                                      reinterpret_cast<std::uintptr_t>(args->b)),
          dispatch::address_alignment(cd)};
}

gemm_choice_key choice_key_of(const gemm_problem& p, gemm_pointer_alignment pointers, std::uint64_t generation) {
  const auto& s = p.sig;
  const std::int64_t sig = std::int64_t(s.a) | std::int64_t(s.b) << 8 | std::int64_t(s.c) << 16 |
                           std::int64_t(s.acc) << 24 | std::int64_t(s.compute) << 32 | std::int64_t(s.lay.a) << 40 |
                           std::int64_t(s.lay.b) << 41 | std::int64_t(s.lay.c) << 42 | std::int64_t(s.variant) << 43 |
                           std::int64_t(s.ew) << 46 | std::int64_t(s.num_d) << 50;
  return {{p.m, p.n, p.k, p.batch, p.lda, p.ldb, p.ldc, p.ldd, p.stride_a, p.stride_b, p.stride_c, p.stride_d, sig,
           std::int64_t(generation) << 18 | std::int64_t(pointers.ab) << 9 | pointers.cd}};
}

}  // namespace kdecl
