// The contract between the registry and a GEMM kernel template.
//
// For each backend there is one partial specialisation
//     template <gemm_key K> struct gemm_kernel<K, backend::X> { ... };
// living in include/kdecl/kernels/gemm/<backend>/, and providing:
//
//   // Extra, kernel-specific reasons it cannot run a valid, normalized problem
//   // (the dispatcher has already checked signature, divisibility against
//   // tile/padding, pointer and leading-dimension alignment to
//   // K.algo.vector_bytes, and 32-bit offsets). Empty when it can.
//   static std::optional<std::string> why_not(const gemm_problem&, const gemm_args&);
//
//   // Launch asynchronously on `stream` (cudaStream_t / hipStream_t, or
//   // nullptr; ignored by host). The problem is normalized (no 0 leading dims).
//   static status run(const gemm_problem&, const gemm_args&, void* stream);
//
//   // Scratch bytes run() can use in gemm_args::workspace (most use 0). A
//   // workspace only ever makes a kernel faster (e.g. split-K): given less,
//   // the kernel still runs correctly without it.
//   static std::size_t workspace_bytes(const gemm_problem&);
//
// K is always concrete (no wildcards) and already validated against the arch tables.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "kdecl/core/enums.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/gemm/gemm_problem.hpp"

namespace kdecl::kernels {

template <gemm_key K, backend B>
struct gemm_kernel;  // specialised per backend; no definition means "no kernel for this backend"

}  // namespace kdecl::kernels
