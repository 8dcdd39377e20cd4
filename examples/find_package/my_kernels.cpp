// The consumer's own declarations, beside the library's shipped sets.
#include "kdecl/declare.hpp"

DECL_KERNEL_SET(consumer_gemm,
    targets(host),
    gemm().dtype(fp32).layout(rcr).pipeline(host_blocked).tile(32, 64, 128).warp_tile(4, 8, 1));
