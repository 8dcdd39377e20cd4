// The canonical key of a grouped-convolution problem, as problem_key.hpp is for
// GEMM: one string per normalized problem, the same on every machine and build.
//
//   conv/<dir>/<in>-<wei>-<out>-<acc>/<layout>/n<N>c<C>k<K>g<G>/
//        i<input>/f<filter>/s<stride>/d<dilation>/p<pad left>_<pad right>/<strides>
//
// Spatial values are D x H x W for the problem's rank ("56x56" in 2-D); <strides>
// is "packed" when every tensor is packed, else
// "st<n>.<g>.<c>.<d>.<h>.<w>-<weight's>-<output's>" in elements.
// Example: conv/fwd/bf16-bf16-bf16-fp32/nhwgc/n32c256k256g32/i56x56/f3x3/s1x1/d1x1/p1x1_1x1/packed
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kdecl/conv/grouped_conv_key.hpp"
#include "kdecl/conv/grouped_conv_problem.hpp"

namespace kdecl::tuning {

// The key of problem.normalized(). The problem must be valid.
std::string problem_key(const grouped_conv_problem& problem);

// The problem a key names. Throws std::invalid_argument naming the bad segment.
grouped_conv_problem parse_conv_problem_key(std::string_view key);

// What a model is trained per, and a kernel serves: "conv/fwd/bf16-bf16-bf16-fp32/nhwgc".
std::string problem_signature(const grouped_conv_problem& problem);
std::string kernel_signature(const grouped_conv_key& key);

// The names among `names` (conv kernel names) whose signature is one of `signatures`.
std::vector<std::string> conv_kernels_of_signatures(const std::vector<std::string>& names,
                                                    const std::vector<std::string>& signatures);

}  // namespace kdecl::tuning
