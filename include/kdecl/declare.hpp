// The declaration surface: DECL_KERNEL_SET / KDECL_KERNEL_SET.
//
//   DECL_KERNEL_SET(my_set,
//       targets(sm_90, host),
//       gemm().dtype(fp16).layout(rcr).tile(128, 256, 64).warps(any).warp_tile(any));
//
// expands to
//  1. a constexpr set value (the DSL names are in scope inside the macro),
//  2. its compile-time validation, on every target, which fails compilation with
//     a readable message on an invalid value, and the wildcard expansion of the
//     targets this translation unit builds (kdecl::dsl::expand_for), and
//  3. a static registrar that, before main(), adds the kernel of every key of the
//     backend this translation unit is compiled for: host with a C++ compiler,
//     CUDA under nvcc, HIP under hipcc. The CMake function kdecl_add_kernel_sets()
//     compiles one source once per backend.
// Neither grows any single constant evaluation or expression with the set
// (docs/dsl.md, "Set size and compiler limits").
#pragma once

// Every operation's kernels. A translation unit that declares sets of one
// operation only compiles faster with kdecl/declare/<op>.hpp.
#include "kdecl/declare/conv.hpp"
#include "kdecl/declare/fmha.hpp"
#include "kdecl/declare/gemm.hpp"
