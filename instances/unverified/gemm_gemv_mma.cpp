// The gemv kernels on mma.sync (kernels/gemm/cuda/gemv/gemv_mma.cuh): GEMMs with up to 16 rows of A,
// rcr, streaming B from memory and multiplying on m16n8k16 (warp_tile (16, 8, 32)).
// Run on an H200 (2026-12-06, docs/perf/h200-2026-12-06-gemv/): they pass the shipped-instance GPU test
// and compute-sanitizer, but at M = 16 over the models' decode layers the best of them reaches 0.93x
// cuBLASLt against 0.95x for the best tma_wgmma tile: ahead on layers under about 40 MB of weights
// (up to 1.5x), behind on the large ones (their loads top out near 3.9 TB/s where TMA reaches 4.2). Not
// shipped until they win; the analytical model would also pick them where they lose.
//   8 columns a block (4 warps x 4 chunk indices, 8 warps x 4), 16 columns (4 x 4, 8 x 4), 32 columns (4 x 2)
// Built into kdecl_unverified_instances (instances/unverified/README.md). Targets: sm_80 and sm_90.
#include "kdecl/declare/gemm.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto mma_stream = gemm().pipeline(gemv).epilogue(direct).scheduler(intrawave).stages(1).vector_bytes(16)
                                .warp_tile(16, 8, 32);
constexpr auto bf = mma_stream.dtype(bf16).layout(rcr);
constexpr auto fp = mma_stream.dtype(fp16).layout(rcr);
}  // namespace

DECL_KERNEL_SET(gemm_gemv_mma_bf16, targets(sm_80, sm_90),
    bf.warps(1, 1, 4).tile(16, 8, 512), bf.warps(1, 1, 8).tile(16, 8, 1024),
    bf.warps(1, 1, 4).tile(16, 16, 512), bf.warps(1, 1, 8).tile(16, 16, 1024),
    bf.warps(1, 1, 4).tile(16, 32, 256));
DECL_KERNEL_SET(gemm_gemv_mma_fp16, targets(sm_80, sm_90),
    fp.warps(1, 1, 4).tile(16, 8, 512), fp.warps(1, 1, 8).tile(16, 8, 1024),
    fp.warps(1, 1, 4).tile(16, 16, 512), fp.warps(1, 1, 8).tile(16, 16, 1024),
    fp.warps(1, 1, 4).tile(16, 32, 256));
