// Which of a problem's measured kernels `kdecl tune --confirm` times again, in turns.
//
// A first tuning pass times kernels one after another; the GPU's clocks, power state and L2
// drift between those measurements (on the H100 GEMM data, 2.8% of identical fp16/bf16 kernel
// pairs differed by more than 10%), and one such row can decide a problem's ranking labels.
// Timing the leading contenders again in rounds of turns puts every one of them under the same
// conditions; their confirmed medians replace the first ones in the database.
#pragma once

#include <cstddef>
#include <vector>

#include "kdecl/tuning/tuning_db.hpp"

namespace kdecl::tuning {

struct confirm_policy {
  int kernels = 0;       // at most this many of a problem's fastest kernels (0: no confirmation)
  int rounds = 5;        // rounds of turns
  double within = 0.75;  // only kernels at least this fast relative to the fastest (fastest / median)
};

// Indices into `rows` (one device's rows of one problem) of the kernels to time again in
// turns: the fastest successful ones within `policy.within` of the fastest, at most
// `policy.kernels`, fastest first. Empty when fewer than two qualify, or when the problem was
// already confirmed (a row confirmed over `policy.rounds` rounds or more: a problem is
// confirmed once, so that a rerun resumes instead of choosing again among the new medians).
std::vector<std::size_t> kernels_to_confirm(const std::vector<measurement>& rows, const confirm_policy& policy);

}  // namespace kdecl::tuning
