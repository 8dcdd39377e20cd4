// What one thread of a direct convolution (pipeline direct_conv, kernels/conv/cuda/direct/) reads
// per output, for the cost model and the learned model's features: its window of
// (rows - 1) x stride + filter input rows by (columns - 1) x stride + filter input columns serves
// rows x columns outputs (warp_tile.k rows: 1 on the unstaged kernels; warp_tile.m columns).
#pragma once

#include "kdecl/conv/grouped_conv_key.hpp"
#include "kdecl/conv/grouped_conv_problem.hpp"

namespace kdecl::kernels {

// Input vectors read per output vector; 0 for keys without a thread patch (not direct_conv).
inline double direct_reads_per_output(const grouped_conv_key& key, const grouped_conv_problem& p) {
  const auto& a = key.algo;
  if (a.pipe != pipeline::direct_conv || a.warp_tile.m <= 0 || a.warp_tile.k <= 0) return 0.0;
  const double rows = a.warp_tile.k, columns = a.warp_tile.m;
  const double window = ((rows - 1) * double(p.stride_dims[1]) + double(p.filter_dims[1])) *
                        ((columns - 1) * double(p.stride_dims[2]) + double(p.filter_dims[2]));
  return window / (rows * columns);
}

}  // namespace kdecl::kernels
