// Hopper (sm_90a) TMA + wgmma kernels on two-block clusters: the blocks take neighbouring
// tiles that share an operand, and each loads half of it for both by TMA multicast, which
// halves that operand's L2 traffic. cuBLASLt's sm_90 kernels on the sweep's short-K shapes are
// all of this kind (docs/perf/h100-2026-11-26-pingpong/). Cooperative schedule, rcr:
//   128x256 2x1 / 1x2   the large tile, B (2x1, along M) or A (1x2, along N) shared
//   256x128 1x2         256-row tiles (two m64 blocks per consumer), A shared
//   128x192 2x1         tile counts that fill the SMs better
#include "kdecl/declare/gemm.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto tma = gemm().pipeline(tma_wgmma).epilogue(cshuffle).scheduler(intrawave).layout(rcr);
constexpr auto large = tma.tile(128, 256, 64).warps(8, 1, 1).warp_tile(16, 256, 16).stages(4);
constexpr auto tall = tma.tile(256, 128, 64).warps(8, 1, 1).warp_tile(16, 128, 16).stages(4);
constexpr auto wide_n = tma.tile(128, 192, 64).warps(8, 1, 1).warp_tile(16, 192, 16).stages(5);
}  // namespace

DECL_KERNEL_SET(gemm_sm90_tma_multicast,
    targets(sm_90),
    large.dtype(bf16).cluster(2, 1), large.dtype(bf16).cluster(1, 2), tall.dtype(bf16).cluster(1, 2),
    wide_n.dtype(bf16).cluster(2, 1),
    large.dtype(fp16).cluster(2, 1), large.dtype(fp16).cluster(1, 2), tall.dtype(fp16).cluster(1, 2),
    wide_n.dtype(fp16).cluster(2, 1));
