// Hopper (sm_90a) TMA + wgmma kernels with the pingpong schedule, bf16: the block runs
// two consumer warpgroups, each on its own tile (warps (4,1,1) name one of them), so
// that one tile's epilogue overlaps the other's main loop. What the cooperative kernels
// of gemm_sm90_tma.cpp lack on short K (768-1024: BERT, ViT, GPT-2 projections) and on
// tile counts that fill the SMs poorly (docs/kernels/sm90.md, docs/perf/).
//   128x128, 6 stages   each consumer a full 128x128 tile (128 accumulators per thread)
//   64x256,  5 stages   wide N at small M
//   64x192 / 64x128     tile counts between (rcr only)
// One translation unit per dtype, so that the two compile in parallel.
#include "kdecl/declare/gemm.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto pingpong_tma = gemm().pipeline(tma_wgmma).epilogue(cshuffle).scheduler(pingpong).warps(4, 1, 1);
constexpr auto square = pingpong_tma.tile(128, 128, 64).warp_tile(16, 128, 16).stages(6);
constexpr auto wide = pingpong_tma.tile(64, 256, 64).warp_tile(16, 256, 16).stages(5);
constexpr auto mid = pingpong_tma.tile(64, 192, 64).warp_tile(16, 192, 16).stages(6);
constexpr auto narrow = pingpong_tma.tile(64, 128, 64).warp_tile(16, 128, 16).stages(8);
}  // namespace

DECL_KERNEL_SET(gemm_sm90_tma_pingpong_bf16,
    targets(sm_90),
    square.dtype(bf16).layout(rcr), wide.dtype(bf16).layout(rcr),
    mid.dtype(bf16).layout(rcr), narrow.dtype(bf16).layout(rcr),
    square.dtype(bf16).layout(rrr), wide.dtype(bf16).layout(rrr),
    square.dtype(bf16).layout(crr), wide.dtype(bf16).layout(crr),
    square.dtype(bf16).layout(ccr), wide.dtype(bf16).layout(ccr));
