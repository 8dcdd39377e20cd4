// The example's kernel declarations. CMake compiles this file once per backend
// (kdecl_add_kernel_sets): as C++ for the host kernels, with nvcc for sm_*,
// with hipcc for gfx*; each pass registers the kernels of its own backend.
#include "kdecl/declare.hpp"

// Checked at compile time against the arch tables; wildcards expand per target.
// A Hopper kernel (TMA + wgmma), with the stage count left to the pipeline's default:
DECL_KERNEL_SET(example_gemm_sm90,
    targets(sm_90),
    gemm().dtype(fp16).layout(rcr).pipeline(tma_wgmma).epilogue(cshuffle)
          .tile(128, 256, 64).warps(8, 1, 1).warp_tile(16, 256, 16));
// Host kernels: every register micro-tile the host table offers for this cache block.
DECL_KERNEL_SET(example_gemm_host,
    targets(host),
    gemm().dtype(fp16).layout(rcr).pipeline(host_blocked).tile(128, 128, 128).warp_tile(any));
