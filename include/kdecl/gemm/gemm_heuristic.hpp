// Ranks GEMM kernels for a problem by a roofline estimate of their run time.
//
// The estimate is deliberately simple and deterministic: work is quantised to
// whole tiles and whole waves of tiles over the machine's processors; each
// tile runs at the arch's peak rate scaled by the pipeline's efficiency and by
// how well the tile's arithmetic intensity hides memory traffic; the result is
// the larger of that and the time to move the operands once. Figures (SM
// count, peaks, bandwidth) come from the arch tables.
#pragma once

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/gemm/gemm_problem.hpp"

namespace kdecl {

// What the estimate needs to know about the machine; filled from the arch tables.
struct machine_model {
  int processors = 1;            // SMs / CUs / host threads
  double peak_tflops = 0.1;      // for the key's compute dtype
  double bandwidth_gbs = 50.0;   // device memory
  double pipeline_efficiency = 1.0;  // share of peak the key's pipeline reaches at best
  int shared_bytes_per_processor = 0;  // for occupancy; 0 = one block per processor
};

machine_model machine_model_of(const gemm_key& key);

// Estimated microseconds; lower is better. Never negative, never NaN.
double estimate_microseconds(const gemm_key& key, const gemm_problem& normalized_problem,
                             const machine_model& model);

}  // namespace kdecl
