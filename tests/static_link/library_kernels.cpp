// Declarations that live in a static library, and nowhere else.
#include "kdecl/declare.hpp"

DECL_KERNEL_SET(static_library_set,
    targets(host),
    gemm().dtype(bf16).layout(crr).pipeline(host_blocked).tile(32, 32, 64).warp_tile(4, 8, 1),
    gemm().dtype(bf16).layout(crr).pipeline(host_blocked).tile(32, 32, 64).warp_tile(4, 16, 1));
