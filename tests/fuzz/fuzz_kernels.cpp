// The host kernels the fuzzers select and run: a small set with small tiles, so
// that the tiny problems the fuzzers build still cross tile boundaries, in
// every layout and variant the host backend has. Registered before main().
#include "kdecl/declare.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto small_host = gemm().pipeline(host_blocked).tile(8, 16, 8).warp_tile(4, 8, 1);
// Block-scaled kernels take tile.k = 128, the scale block's depth.
constexpr auto small_scaled = gemm().pipeline(host_blocked).tile(8, 16, 128).warp_tile(4, 8, 1).variant(block_scaled);
}  // namespace

DECL_KERNEL_SET(fuzz_host_kernels,
    targets(host),
    small_host.dtype(fp32).layout(rcr),
    small_host.dtype(fp32).layout(crc),
    small_host.dtype(fp32).layout(rrr),
    small_host.dtype(fp32).layout(ccc),
    small_host.dtype(fp32).compute(tf32).layout(rcr),
    small_host.dtype(fp16).layout(rcr),
    small_host.dtype(fp16).layout(rcr).variant(preshuffle),
    small_host.dtype(fp16).layout(rcr).multi_d(gelu, 2),
    small_host.dtype(bf16).layout(crr).multi_d(multi_d_add, 1),
    small_host.dtypes(int8, int8, int32).layout(rcr),
    small_host.dtypes(fp8, bf8, fp16).layout(rcr),
    small_host.dtype(fp64).layout(ccr),
    small_scaled.dtypes(fp8, fp8, bf16).layout(rcr),
    small_scaled.dtypes(bf8, fp8, fp32).layout(ccr));
