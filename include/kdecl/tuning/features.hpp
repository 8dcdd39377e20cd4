// What the learned ranking model sees of one (problem, kernel) pair: numbers
// computed from the problem and the kernel key alone (no measurement), so the
// model can rank kernels on shapes it has never seen.
#pragma once

#include <array>
#include <string_view>
#include <vector>

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/gemm/gemm_problem.hpp"

namespace kdecl::tuning {

inline constexpr std::size_t feature_count = 45;
using feature_row = std::array<float, feature_count>;

// Names, in feature order (written to the model's sidecar and checked on load).
const std::array<std::string_view, feature_count>& feature_names();

// Features of `kernel` on `normalized_problem`. `best_estimate_us` is the
// analytical model's smallest estimate among the candidates (the estimate
// relative to it is one feature); pass 0 when unknown (the ratio is then 1).
// `alignment` is the largest power of two (<= 16) dividing A's and B's byte strides and
// pointers (what bounds the mainloop's loads), `c_alignment` the same of C's and D's (what
// the epilogue's stores see). They are separate features: a misaligned C does not make the
// narrow-load kernels any faster.
struct alignments {
  int ab = 16, cd = 16;
};
// What the model sees of the device that ran (or will run) the problem. Devices of one arch differ
// in their memory systems: in the sm_90 GEMM rows the H200 (memory clock 3201 MHz, 4.8 TB/s) and the
// H100 (2619 MHz, 3.35 TB/s) disagree on 512 x 1024 x 4096, where the H100's 64x64 tile is 1.19x
// faster than 128x128 and the H200 prefers 128x128 by 3%. 0: not known, the arch's reference part
// (arch/reference_memory_clock.hpp).
struct device_facts {
  int memory_clock_mhz = 0;
};
// The memory clock the model is given for `device` running kernels of `arch`.
int memory_clock_for(device_facts device, arch_id arch);
feature_row features_of(const gemm_problem& normalized_problem, const gemm_key& kernel, double best_estimate_us,
                        alignments alignment = {}, device_facts device = {});

// The same with the kernel's analytical estimate already known (the dispatcher has it).
feature_row features_of(const gemm_problem& normalized_problem, const gemm_key& kernel, double estimate_us,
                        double best_estimate_us, alignments alignment, device_facts device = {});

// Largest powers of two (<= 16) dividing the leading dimensions and batch strides in bytes,
// of A and B and of C and D.
alignments alignment_class(const gemm_problem& normalized_problem);

}  // namespace kdecl::tuning
