// `kdecl bench fmha`: the attention dispatcher's choice (and the best of the
// next --top instances of its ranking) against cuDNN's fused attention forward
// (cudnn-frontend's SDPA graph) on the same data, in the same process
// (vendor_bench.hpp, cudnn_sdpa.hpp). TFLOP/s count attended (query, key)
// pairs only: a causal problem counts about half the flops of an unmasked one.
//
//   kdecl bench fmha --problems benchmarks/shapes/fmha_*.csv --dtype bf16,fp16 [--where mask=causal]
//   kdecl bench fmha --b 4 --hq 32 --hkv 8 --sq 4096 --d 128 --mask causal
//
// --dry-run lists the plan without a GPU (--device sm_90). Exit codes: 0 done,
// 75 stopped early (--time-budget: rerun with --resume), 1 the device failed, 2 bad input.
#pragma once

namespace kdecl::cli {

// argv[1] is "bench", argv[2] is "fmha".
int bench_fmha_main(int argc, const char* const* argv);

}  // namespace kdecl::cli
