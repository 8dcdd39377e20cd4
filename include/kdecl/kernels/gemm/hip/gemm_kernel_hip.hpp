// The HIP backend's side of the kernel contract (kdecl/kernels/gemm/gemm_kernel.hpp):
// gemm_kernel<K, backend::hip> forwards to kdecl::kernels::hip::gemm<K>.
//
// The kernels need hipcc (HIP language mode: __global__, MFMA builtins), so the
// specialisation exists only when __HIPCC__ is defined; any other compiler sees
// an empty header and gemm_kernel<K, backend::hip> stays undefined there, which
// the contract reads as "no HIP kernel in this translation unit".
#pragma once

#if defined(__HIPCC__)

#include <cstddef>
#include <optional>
#include <string>

#include "kdecl/core/enums.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/gemm/gemm_problem.hpp"
#include "kdecl/kernels/gemm/gemm_kernel.hpp"
#include "kdecl/kernels/gemm/hip/gemm_hip.hpp"

namespace kdecl::kernels {

template <gemm_key K>
struct gemm_kernel<K, backend::hip> {
  static std::optional<std::string> why_not(const gemm_problem& p, const gemm_args& a) {
    return hip::gemm<K>::why_not(p, a);
  }
  static status run(const gemm_problem& p, const gemm_args& a, void* stream) { return hip::gemm<K>::run(p, a, stream); }
  static std::size_t workspace_bytes(const gemm_problem& p) { return hip::gemm<K>::workspace_bytes(p); }
};

}  // namespace kdecl::kernels

#endif  // __HIPCC__
