// The consumer's kernel sets, as macros so that the declaration files declare
// them (DECL_KERNEL_SET(name, MACRO)) and main.cpp re-expands the very same
// declarations at run time to check what was registered.
#pragma once

#include "kdecl/dsl/dsl.hpp"

namespace consumer_decls {
using namespace kdecl::dsl;
using kdecl::dsl::any;  // CUDA headers declare a global ::any
// Issue 6, set 2: bf16, every pipeline, tile m/n and warp tile open.
inline constexpr auto bf16_open = gemm().dtype(bf16).pipeline(any).tile(any, any, 64).warp_tile(any);
}  // namespace consumer_decls

// 2,000 host keys from one wildcard declaration: every cache block, micro-tile and m/n padding.
#define CONSUMER_WIDE_HOST_SET                                                                            \
  targets(host), gemm().dtype(fp32).layout(rcr).pipeline(host_blocked).tile(any, any, any).warp_tile(any) \
                     .pad(any, any, true)

// Issue 6, set 1: 500 host keys (504 with the tables of the issue's day); its
// fold of one registration per key exceeded clang's nesting limit of 256.
#define CONSUMER_ISSUE_FP32_CRR_SET \
  targets(host), gemm().dtype(fp32).layout(crr).pipeline(host_blocked).tile(any, any, any).warp_tile(any)

// Issue 6, set 2: four layouts for host and sm_90 (400 host keys, 5,444 sm_90
// keys); its expansion exceeded clang's constexpr step limit in the HIP pass.
#define CONSUMER_ISSUE_BF16_SET                                                                     \
  targets(host, sm_90), consumer_decls::bf16_open.layout(rcr), consumer_decls::bf16_open.layout(rrr), \
      consumer_decls::bf16_open.layout(crr), consumer_decls::bf16_open.layout(ccr)

// The static library's sets: one kernel per backend (an explicit pipeline must
// exist on every target of its set, hence one set per family).
#define CONSUMER_LIBRARY_HOST_SET \
  targets(host), gemm().dtype(fp16).layout(rcr).pipeline(host_blocked).tile(64, 64, 64).warp_tile(any)
#define CONSUMER_LIBRARY_CUDA_SET                                                                    \
  targets(sm_80), gemm().dtype(fp16).layout(rcr).pipeline(cp_async).tile(128, 128, 32).warps(2, 2, 1) \
                      .warp_tile(64, 64, 16).epilogue(direct)
#define CONSUMER_LIBRARY_HIP_SET                                                                      \
  targets(gfx90a), gemm().dtype(bf16).layout(rcr).pipeline(compv4).tile(128, 128, 32).warps(2, 2, 1) \
                       .warp_tile(32, 32, 16).epilogue(cshuffle)
