// fp32 forward convolutions on the cp.async pipeline (sm_80 family; also built
// for sm_90): the forward implicit GEMM of conv_cp_async.cpp with fp32 data,
// multiplied in tf32 on mma.sync (what cuDNN does by default where the caller
// allows it: .compute(tf32)) or exactly on FFMA (the GEMM's SIMT warp); the tiles
// are conv_cp_async_fp32_tiles.hpp's. Every rank, channels-last; the extra tiles
// in 2-D only. Tests: tests/gpu/conv_gpu_test.cpp against the host reference with
// the operands rounded to tf32 (host kernels of the same signature).
#include "conv_cp_async_fp32_tiles.hpp"

namespace {
using namespace kdecl_instances::conv_cp_async_fp32;
constexpr auto dir = kdecl::conv_direction::fwd;
}  // namespace

DECL_KERNEL_SET(conv_cp_async_fp32_fwd,
    targets(sm_80, sm_90),
    tf32_wide(dir).ndim(1).layout(nwgc), tf32_wide(dir).ndim(2).layout(nhwgc), tf32_wide(dir).ndim(3).layout(ndhwgc),
    tf32_any(dir).ndim(1).layout(nwgc), tf32_any(dir).ndim(2).layout(nhwgc), tf32_any(dir).ndim(3).layout(ndhwgc),
    tf32_deep(dir).ndim(2).layout(nhwgc), tf32_narrow(dir).ndim(2).layout(nhwgc), tf32_small(dir).ndim(2).layout(nhwgc),
    exact(dir).ndim(2).layout(nhwgc), exact_k16(dir).ndim(2).layout(nhwgc),
    exact_any(dir).ndim(1).layout(nwgc), exact_any(dir).ndim(2).layout(nhwgc), exact_any(dir).ndim(3).layout(ndhwgc));
