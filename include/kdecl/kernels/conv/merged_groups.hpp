// Merged groups (a key's groups_to_merge = m > 1): a grouped convolution whose groups have few
// channels (ResNeXt's 4 to 32 per group) wastes most of an implicit GEMM's tile on one group:
// K/G = 8 fills 8 of a 64- or 128-wide tile. Side by side, m neighbouring groups are one
// implicit GEMM of m x C/G input and m x K/G output channels per tap, whose weights are
// block-diagonal:
//
//   B[n][tap, c] = w[g0 + n / (K/G)][n % (K/G)][tap][c % (C/G)]  where c / (C/G) == n / (K/G)
//                  0                                              elsewhere
//
// so the tile computes m groups at once (m - 1 of every m multiply-adds are by zeros, which is
// cheap where the tile was idle anyway). In channels-last layouts the m groups' input and output
// channels are contiguous, so A and C are those of a convolution with G / m groups: the view
// below. Only B needs the kernel's care (sm90/conv_fwd_sm90.cuh reads each row's own filter and
// zero-fills the other groups' chunks).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kdecl/conv/grouped_conv_problem.hpp"

namespace kdecl::kernels {

// Why `merge` neighbouring groups of normalized problem `p` cannot be taken as one: G a
// multiple of it, and every merged group's input and output channels contiguous.
inline std::optional<std::string> merged_groups_reason(const grouped_conv_problem& p, int merge) {
  if (merge <= 1) return std::nullopt;
  if (p.g % merge != 0)
    return "G = " + std::to_string(p.g) + " is not a multiple of the kernel's groups_to_merge " + std::to_string(merge);
  if (p.in_strides.g != p.c_per_group() || p.out_strides.g != p.k_per_group())
    return "merged groups read their channels together: the input's and output's group strides must be C/G and K/G "
           "(channels-last, groups packed; here " +
           std::to_string(p.in_strides.g) + " and " + std::to_string(p.out_strides.g) + ")";
  return std::nullopt;
}

// The convolution of A and C that `merge` groups side by side make: G / merge groups of merge
// x C/G input and merge x K/G output channels. Its weight strides stay the real groups' (the
// view's weights are block-diagonal and nowhere in memory: the kernel reads each row's own
// group's filter). `p` must pass merged_groups_reason.
inline grouped_conv_problem merged_groups_view(grouped_conv_problem p, int merge) {
  if (merge <= 1) return p;
  p.g /= merge;
  p.in_strides.g *= merge;
  p.out_strides.g *= merge;
  return p;
}

}  // namespace kdecl::kernels
