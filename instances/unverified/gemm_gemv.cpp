// The gemv kernels (kernels/gemm/cuda/gemv/): GEMMs with up to 16 rows of A, rcr and rcc,
// streaming B (a linear layer's weights) from memory, on CUDA cores (up to 8 rows) or mma.sync. Issue 7 asks the small-M
// GEMMs for 85% of the copy bandwidth at N = K = 8192; at M = 1 the tma_wgmma tiles reach
// 70-79% and the CUDA-core probe this kernel grew from 80-100% (H200, docs/perf/README.md).
//   tile (rows of A, columns per block, K per step), warps along K; per lane and step, 16-byte
//   chunks of each row of A and column of B: tile.k / (warps.k x 256)
//   M = 1: 2 or 4 columns a block (N = K = 8192: 4096 or 2048 blocks), 1 column over 8 warps for
//          few columns against a long K (2048 x 16384), 4 chunks in flight where there is room
//   M = 2, 4, 8: more columns per block, so that each block's reads of A serve more of B
// Never run on a GPU yet: built into kdecl_unverified_instances (instances/unverified/README.md).
//   M <= 16 on mma.sync (warp_tile (16, 8, 32); kernels/gemm/cuda/gemv/gemv_mma.cuh): where the sweep's
//          16-token decode layers sat at 0.79-0.85x cuBLASLt on 64-row wgmma tiles (H200, 2026-12-01);
//          8, 16 or 32 columns a block, 2 or 4 chunk indices per lane
// Targets: sm_80 (A100) and sm_90 (H100), the same code.
#include "kdecl/declare/gemm.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto stream = gemm().pipeline(gemv).epilogue(direct).scheduler(intrawave).stages(1).vector_bytes(16)
                            .warp_tile(1, 1, 256);
constexpr auto bf = stream.dtype(bf16).layout(rcr);
constexpr auto fp = stream.dtype(fp16).layout(rcr);
constexpr auto bf_mma = bf.warp_tile(16, 8, 32);
constexpr auto fp_mma = fp.warp_tile(16, 8, 32);
}  // namespace

// Per dtype: M = 1 (2 and 4 columns a block, 2 and 4 chunks; one column over 8 warps), M <= 2,
// M <= 4 (4 columns, or 2 with 2 chunks; one column over 8 warps), M <= 8 (4 and 8 columns);
// and column-major C at M = 1. On mma.sync, M <= 16: 8 columns (4 warps x 4 chunks, 8 warps x 4),
// 16 columns (4 x 4, 8 x 4), 32 columns (4 x 2).
DECL_KERNEL_SET(gemm_gemv_bf16, targets(sm_80, sm_90),
    bf.warps(1, 1, 4).tile(1, 2, 2048), bf.warps(1, 1, 4).tile(1, 2, 4096), bf.warps(1, 1, 4).tile(1, 4, 2048),
    bf.warps(1, 1, 8).tile(1, 1, 8192),
    bf.warps(1, 1, 4).tile(2, 2, 2048), bf.warps(1, 1, 4).tile(2, 4, 1024), bf.warps(1, 1, 8).tile(2, 1, 4096),
    bf.warps(1, 1, 4).tile(4, 4, 1024), bf.warps(1, 1, 4).tile(4, 2, 2048), bf.warps(1, 1, 8).tile(4, 1, 4096),
    bf.warps(1, 1, 4).tile(8, 4, 1024), bf.warps(1, 1, 4).tile(8, 8, 1024),
    bf.layout(rcc).warps(1, 1, 4).tile(1, 2, 2048),
    bf_mma.warps(1, 1, 4).tile(16, 8, 512), bf_mma.warps(1, 1, 8).tile(16, 8, 1024),
    bf_mma.warps(1, 1, 4).tile(16, 16, 512), bf_mma.warps(1, 1, 8).tile(16, 16, 1024),
    bf_mma.warps(1, 1, 4).tile(16, 32, 256));
DECL_KERNEL_SET(gemm_gemv_fp16, targets(sm_80, sm_90),
    fp.warps(1, 1, 4).tile(1, 2, 2048), fp.warps(1, 1, 4).tile(1, 2, 4096), fp.warps(1, 1, 4).tile(1, 4, 2048),
    fp.warps(1, 1, 8).tile(1, 1, 8192),
    fp.warps(1, 1, 4).tile(2, 2, 2048), fp.warps(1, 1, 4).tile(2, 4, 1024), fp.warps(1, 1, 8).tile(2, 1, 4096),
    fp.warps(1, 1, 4).tile(4, 4, 1024), fp.warps(1, 1, 4).tile(4, 2, 2048), fp.warps(1, 1, 8).tile(4, 1, 4096),
    fp.warps(1, 1, 4).tile(8, 4, 1024), fp.warps(1, 1, 4).tile(8, 8, 1024),
    fp.layout(rcc).warps(1, 1, 4).tile(1, 2, 2048),
    fp_mma.warps(1, 1, 4).tile(16, 8, 512), fp_mma.warps(1, 1, 8).tile(16, 8, 1024),
    fp_mma.warps(1, 1, 4).tile(16, 16, 512), fp_mma.warps(1, 1, 8).tile(16, 16, 1024),
    fp_mma.warps(1, 1, 4).tile(16, 32, 256));
