// Ranks convolution kernels by the GEMM cost model (gemm_heuristic.hpp) applied
// to the implicit GEMMs they run: per group,
//   fwd:        M = N x output pixels, N = K/G, K = C/G x filter taps
//   bwd_data:   M = N x input pixels,  N = C/G, K = K/G x the taps that reach each input pixel
//               (the stride phases: no zero tap is counted)
//   bwd_weight: M = K/G, N = C/G x filter taps, K = N x output pixels
// with the G groups as the GEMM's batch and the least memory traffic (every
// tensor once) as its DRAM bytes. The machine figures are the arch tables'.
#pragma once

#include "kdecl/conv/grouped_conv_key.hpp"
#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/gemm/gemm_heuristic.hpp"

namespace kdecl {

// The implicit GEMM kernel key a convolution key computes with (for its profile).
gemm_key implicit_gemm_key(const grouped_conv_key& key);

// The cost-model profile of `key`'s kernel: its implicit GEMM's. The sm_90 forward kernel
// splits K over a cluster as the GEMM does (the profile says so); the bwd_weight kernels'
// splits are part of the problem they compute (conv_problem_profile below).
kernel_profile conv_kernel_profile(const grouped_conv_key& key);

// The implicit GEMMs of a normalized problem as one batched GEMM of the cost model.
problem_profile conv_problem_profile(const grouped_conv_problem& normalized_problem);

// The same as `key`'s kernel computes it on `processors` SMs: the bwd_weight kernels' split-K
// ranges become a batch of shallower GEMMs plus the fp32 partials' traffic.
problem_profile conv_problem_profile(const grouped_conv_key& key, const grouped_conv_problem& normalized_problem,
                                     int processors);

// Estimated microseconds; lower is better. Never negative, never NaN. What the
// dispatcher ranks by (it computes the same from profiles it indexed once).
double estimate_microseconds(const grouped_conv_key& key, const grouped_conv_problem& normalized_problem);

// The factor an implicit-GEMM forward kernel's estimate takes where one group fills a
// block and K/G is below its N tile: the rest of the tile is padding the GEMM model
// does not see (1 otherwise).
double group_padding_factor(const grouped_conv_key& key, const grouped_conv_problem& normalized_problem);

}  // namespace kdecl
