// fp32 backward convolutions on the cp.async pipeline (sm_80 family; also built
// for sm_90): conv_cp_async_bwd.cpp's backward-data by stride phases and
// backward-weight with split-K, fp32 data multiplied in tf32 (mma.sync,
// .compute(tf32)) or exactly (FFMA); the tiles are conv_cp_async_fp32_tiles.hpp's.
// Every rank, channels-last; the extra tiles in 2-D only.
// Tests: tests/gpu/conv_bwd_gpu_test.cpp.
#include "conv_cp_async_fp32_tiles.hpp"

namespace {
using namespace kdecl_instances::conv_cp_async_fp32;
constexpr auto data = kdecl::conv_direction::bwd_data;
constexpr auto weight = kdecl::conv_direction::bwd_weight;
}  // namespace

DECL_KERNEL_SET(conv_cp_async_fp32_bwd_data,
    targets(sm_80, sm_90),
    tf32_wide(data).ndim(1).layout(nwgc), tf32_wide(data).ndim(2).layout(nhwgc), tf32_wide(data).ndim(3).layout(ndhwgc),
    tf32_any(data).ndim(1).layout(nwgc), tf32_any(data).ndim(2).layout(nhwgc), tf32_any(data).ndim(3).layout(ndhwgc),
    tf32_deep(data).ndim(2).layout(nhwgc), tf32_narrow(data).ndim(2).layout(nhwgc),
    exact(data).ndim(2).layout(nhwgc), exact_k16(data).ndim(2).layout(nhwgc),
    exact_any(data).ndim(1).layout(nwgc), exact_any(data).ndim(2).layout(nhwgc), exact_any(data).ndim(3).layout(ndhwgc));

DECL_KERNEL_SET(conv_cp_async_fp32_bwd_weight,
    targets(sm_80, sm_90),
    tf32_wide(weight).ndim(1).layout(nwgc), tf32_wide(weight).ndim(2).layout(nhwgc),
    tf32_wide(weight).ndim(3).layout(ndhwgc),
    tf32_any(weight).ndim(1).layout(nwgc), tf32_any(weight).ndim(2).layout(nhwgc), tf32_any(weight).ndim(3).layout(ndhwgc),
    tf32_deep(weight).ndim(2).layout(nhwgc), tf32_narrow(weight).ndim(2).layout(nhwgc),
    exact(weight).ndim(2).layout(nhwgc), exact_k16(weight).ndim(2).layout(nhwgc),
    exact_any(weight).ndim(1).layout(nwgc), exact_any(weight).ndim(2).layout(nhwgc),
    exact_any(weight).ndim(3).layout(ndhwgc));
