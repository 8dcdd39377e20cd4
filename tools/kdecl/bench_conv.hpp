// `kdecl bench conv`: the dispatcher's choice (and the best of the next --top
// instances of its ranking) against cuDNN's convolution for the same problem,
// direction, layout and dtype, in the same process on the same buffers
// (vendor_bench.hpp, cudnn_conv.hpp).
//
//   kdecl bench conv --problems benchmarks/shapes/conv_*.csv --dtype bf16 --directions all [--where network=resnet50]
//   kdecl bench conv --n 32 --c 256 --k 256 --g 32 --hw 56,56 --filter 3 --pad 1 --dtype bf16
//
// Layers that share a problem are measured once. Directions kdecl has no GPU
// kernel for are timed for cuDNN and recorded as "no kdecl kernel".
// --dry-run lists the plan without a GPU (--device sm_90). Exit codes: 0 done,
// 75 stopped early (--time-budget: rerun with --resume), 1 the device failed, 2 bad input.
#pragma once

namespace kdecl::cli {

// argv[1] is "bench", argv[2] is "conv".
int bench_conv_main(int argc, const char* const* argv);

}  // namespace kdecl::cli
