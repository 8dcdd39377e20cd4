// The canonical key of an attention (forward) problem, as problem_key.hpp is for
// GEMM: one string per normalized problem, the same on every machine and build.
//
//   fmha/<qkv>-<o>/<batch|group>/b<B>q<Sq>k<Skv>h<Hq>g<Hkv>d<Dq>v<Dv>/<mask>/<bias>/
//        <lse|nolse>_<sinks|nosinks>_cap<soft cap>_scale<scale>/<strides>[/cu<q offsets>_<kv offsets>]
//
// <mask> is none, top_left, bottom_right or generic-l<left>r<right>; <bias> none,
// alibi (alibi-b when slopes are per batch) or elementwise_b<0|1>h<0|1> (per batch,
// per head); floats are written in their shortest round-trip form; <strides> is
// "packed" when every tensor is, else "st" and Q, K, V, O, the bias
// (<batch>.<seq>.<head> each) and the LSE (<batch>.<head>) separated by '-';
// group mode lists the cumulative offsets (comma-separated).
// Example: fmha/bf16-bf16/batch/b2q4096k4096h32g8d128v128/top_left/none/nolse_nosinks_cap0_scale0/packed
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kdecl/fmha/fmha_key.hpp"
#include "kdecl/fmha/fmha_problem.hpp"

namespace kdecl::tuning {

// The key of problem.normalized(). The problem must be valid.
std::string problem_key(const fmha_problem& problem);

// The problem a key names. Throws std::invalid_argument naming the bad segment.
fmha_problem parse_fmha_problem_key(std::string_view key);

// What a model is trained per and a kernel serves: "fmha/fwd/bf16-bf16/batch" (family, dtypes,
// mode; a kernel serves several head dims, masks and biases, so they are features, not signature).
std::string problem_signature(const fmha_problem& problem);
std::string kernel_signature(const fmha_key& key);

// The names among `names` (attention kernel names) whose signature is one of `signatures`.
std::vector<std::string> fmha_kernels_of_signatures(const std::vector<std::string>& names,
                                                    const std::vector<std::string>& signatures);

}  // namespace kdecl::tuning
