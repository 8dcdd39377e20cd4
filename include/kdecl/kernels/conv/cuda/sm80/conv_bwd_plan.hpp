// The split-K plans of the sm_80, sm_90 and HIP backward-weight convolutions
// (conv_bwd_weight_sm80.cuh, sm90/conv_bwd_weight_sm90.cuh, conv/hip/conv_hip.hpp), plain C++ so that the
// host tests and the cost model use them (tests/unit/conv_bwd_plan_test.cpp); defined in
// src/conv_bwd_plan.cpp, so that a change to a plan does not rebuild the kernel sets.
#pragma once

#include <cstdint>
#include <optional>

#include "kdecl/conv/grouped_conv_problem.hpp"

namespace kdecl::kernels {

// Split-K ranges of the sm_80 and HIP bwd_weight on `sms` multiprocessors (compute units): as many blocks as two
// waves hold (none when the output tiles alone fill them: the partials would only
// add traffic), each range at least 512 deep (16 k tiles of 32: the partials'
// traffic stays small against the products), the partials at most 256 MiB; never
// an empty range.
int bwd_weight_gpu_splits(const grouped_conv_problem& p, int tile_m, int tile_n, int tile_k, int sms);

}  // namespace kdecl::kernels

namespace kdecl::kernels::cuda::sm90 {

// The depth split of the sm_90 backward-weight (conv_bwd_weight_sm90.cuh): `cluster`
// ranges per tile reduced through distributed shared memory by a cluster of that
// many blocks (split_k.cuh), times `ranges` ranges whose fp32 partials go through
// the workspace and a second kernel (split_partials_reduce.cuh).
struct bwd_weight_split {
  int cluster = 1, ranges = 1;
  int total() const { return cluster * ranges; }
  bool operator==(const bwd_weight_split&) const = default;
};

// The split of least estimated time, clusters and ranges tried in increasing order, a later
// one taken only where it is 3% faster (so fewer ranges win ties): waves of units
// on the device (a cluster launch runs one unit per block, the persistent grid several)
// times one unit's depth, plus the partials' traffic and the second launch. Every range is
// at least 8 k tiles deep; the partials take at most 256 MiB. capacity[c]: blocks of
// clusters of c resident at once (c = 2..8; 0 where none fit), or null for sms rounded
// down to whole clusters; `cluster_ok`: the kernel can reduce in a cluster.
bwd_weight_split bwd_weight_sm90_split(const grouped_conv_problem& p, int tile_m, int tile_n, int tile_k, int sms,
                                       const int* capacity, bool cluster_ok);

// A split given as text "CLUSTER,RANGES" (KDECL_CONV_BWD_WEIGHT_SPLIT: an A/B switch for
// measurements, read per call), if it is one the kernel can run on `p`: a cluster of 1 to 8
// blocks (above 1 only where `cluster_ok`), at least one range, and no empty range (at least
// one k tile of tile_k per part). Anything else: nothing (the planned split runs).
std::optional<bwd_weight_split> bwd_weight_split_override(const char* text, const grouped_conv_problem& p, int tile_k,
                                                          bool cluster_ok);

}  // namespace kdecl::kernels::cuda::sm90
