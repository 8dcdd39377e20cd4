// Hopper (sm_90a) TMA + wgmma kernels with 128 x 160 tiles (two consumer warpgroups, 5 stages), fp16
// and bf16: tile counts between 128 x 192's and 128 x 128's, for the shapes whose 128 x 192 tiles leave
// the last wave mostly empty (1576 x 3072: 208 tiles of 128 x 192 are 1.6 waves on 132 SMs, 260 of
// 128 x 160 fill two; 512 x 4608: 96 of 128 x 192 fill 0.73 of one wave, 116 of 128 x 160 0.88).
// N = 160 is built for B read K-major (rcr and ccr; rcc and rrc run as C^T on them): B moves in
// 64-column TMA boxes where it is row-major (the DSL's mn_major_tile_not_multiple_of_box).
//
// Their GPU tests passed on an H100 in session 54 (docs/perf/h100-2026-12-06-sweep-mid-n-decode/); they moved up
// from instances/unverified/ with the GEMM model retrained on an H100 retune that timed them beside every other
// kernel (docs/perf/h100-2026-12-06-retune-mid-n-launch-cost/: the fastest kernel on 58 of 1,268 rcr layers).
#include "kdecl/declare/gemm.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto mid_n = gemm().pipeline(tma_wgmma).epilogue(cshuffle).scheduler(intrawave)
                           .tile(128, 160, 64).warps(8, 1, 1).warp_tile(16, 160, 16).stages(5);
}  // namespace

DECL_KERNEL_SET(gemm_sm90_tma_mid_n,
    targets(sm_90),
    mid_n.dtype(fp16).layout(rcr), mid_n.dtype(fp16).layout(ccr),
    mid_n.dtype(fp16).layout(rcc), mid_n.dtype(fp16).layout(rrc),
    mid_n.dtype(bf16).layout(rcr), mid_n.dtype(bf16).layout(ccr),
    mid_n.dtype(bf16).layout(rcc), mid_n.dtype(bf16).layout(rrc));
