// The gemv kernels on CUDA cores (kernels/gemm/cuda/gemv/gemv.cuh): GEMMs with up to 8 rows of A,
// rcr and rcc, streaming B (a linear layer's weights) from memory. Measured on an H200 (2026-12-06,
// docs/perf/h200-2026-12-06-gemv/): at M = 1 over the models' decode layers the best of them runs at
// 1.14x cuBLASLt where the best tma_wgmma tile reaches 0.93x; at M = 4, 1.07x against 0.96x.
//   tile (rows of A, columns per block, K per step), warps along K; per lane and step, 16-byte
//   chunks of each row of A and column of B: tile.k / (warps.k x 256)
//   M = 1: 2 or 4 columns a block (N = K = 8192: 4096 or 2048 blocks), 1 column over 8 warps for
//          few columns against a long K (2048 x 16384), 4 chunks in flight where there is room
//   M = 2, 4, 8: more columns per block, so that each block's reads of A serve more of B
// The mma.sync kernels for up to 16 rows are in instances/unverified/gemm_gemv_mma.cpp.
// Targets: sm_80 (A100) and sm_90 (H100), the same code.
#include "kdecl/declare/gemm.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto stream = gemm().pipeline(gemv).epilogue(direct).scheduler(intrawave).stages(1).vector_bytes(16)
                            .warp_tile(1, 1, 256);
constexpr auto bf = stream.dtype(bf16).layout(rcr);
constexpr auto fp = stream.dtype(fp16).layout(rcr);
}  // namespace

// Per dtype: M = 1 (2 and 4 columns a block, 2 and 4 chunks; one column over 8 warps), M <= 2,
// M <= 4 (4 columns, or 2 with 2 chunks; one column over 8 warps), M <= 8 (4 and 8 columns);
// and column-major C at M = 1.
DECL_KERNEL_SET(gemm_gemv_bf16, targets(sm_80, sm_90),
    bf.warps(1, 1, 4).tile(1, 2, 2048), bf.warps(1, 1, 4).tile(1, 2, 4096), bf.warps(1, 1, 4).tile(1, 4, 2048),
    bf.warps(1, 1, 8).tile(1, 1, 8192),
    bf.warps(1, 1, 4).tile(2, 2, 2048), bf.warps(1, 1, 4).tile(2, 4, 1024), bf.warps(1, 1, 8).tile(2, 1, 4096),
    bf.warps(1, 1, 4).tile(4, 4, 1024), bf.warps(1, 1, 4).tile(4, 2, 2048), bf.warps(1, 1, 8).tile(4, 1, 4096),
    bf.warps(1, 1, 4).tile(8, 4, 1024), bf.warps(1, 1, 4).tile(8, 8, 1024),
    bf.layout(rcc).warps(1, 1, 4).tile(1, 2, 2048));
DECL_KERNEL_SET(gemm_gemv_fp16, targets(sm_80, sm_90),
    fp.warps(1, 1, 4).tile(1, 2, 2048), fp.warps(1, 1, 4).tile(1, 2, 4096), fp.warps(1, 1, 4).tile(1, 4, 2048),
    fp.warps(1, 1, 8).tile(1, 1, 8192),
    fp.warps(1, 1, 4).tile(2, 2, 2048), fp.warps(1, 1, 4).tile(2, 4, 1024), fp.warps(1, 1, 8).tile(2, 1, 4096),
    fp.warps(1, 1, 4).tile(4, 4, 1024), fp.warps(1, 1, 4).tile(4, 2, 2048), fp.warps(1, 1, 8).tile(4, 1, 4096),
    fp.warps(1, 1, 4).tile(8, 4, 1024), fp.warps(1, 1, 4).tile(8, 8, 1024),
    fp.layout(rcc).warps(1, 1, 4).tile(1, 2, 2048));
