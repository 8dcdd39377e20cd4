// The key under which a GEMM dispatcher's tiers remember a choice (dispatch/choice_cache.hpp): a
// normalized problem's sizes, leading dimensions, batch strides and signature, the alignment of its
// pointers (A with B, C with the D tensors: what eligibility reads of them) and the registry
// generation the choice was made under.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "kdecl/gemm/gemm_problem.hpp"

namespace kdecl {

struct gemm_choice_key {
  std::array<std::int64_t, 14> v;
  bool operator==(const gemm_choice_key&) const = default;
};

struct gemm_choice_key_hash {
  std::size_t operator()(const gemm_choice_key& k) const {
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the words
    for (auto x : k.v) h = (h ^ std::uint64_t(x)) * 1099511628211ull;
    return std::size_t(h);
  }
};

// Largest power of two (at most 256) dividing every address of A and B (`ab`), and of C and
// the D tensors (`cd`); 256 for both without arguments (the dispatcher then assumes cudaMalloc's).
struct gemm_pointer_alignment {
  int ab = 256, cd = 256;
};
gemm_pointer_alignment pointer_alignment_of(const gemm_args* args, int num_d);

gemm_choice_key choice_key_of(const gemm_problem& normalized, gemm_pointer_alignment pointers,
                              std::uint64_t registry_generation);

}  // namespace kdecl
