// kdecl::kernels::hip::fmha<K>: the fmha_kernel contract (kernels/fmha/fmha_kernel.hpp)
// of the HIP/MFMA attention forward (CK's qr pipeline) on gfx90a and gfx942.
// Compiled, never run: no AMD GPU is available to this project.
#pragma once

#include <hip/hip_runtime.h>

#include <cstddef>
#include <limits>
#include <optional>
#include <string>

#include "kdecl/core/status.hpp"
#include "kdecl/fmha/fmha_problem.hpp"
#include "kdecl/kernels/fmha/fmha_launch_values.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_geometry.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_kernel.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_params.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_rules.hpp"
#include "kdecl/kernels/hip/hip_arch.hpp"

namespace kdecl::kernels::hip {

template <fmha_key K>
struct fmha {
  static_assert(fmha_hip_unbuildable(K) == nullptr, "kdecl: the HIP attention kernel cannot build this key");
  static constexpr fmha_key code_key = fmha_hip_code_key(K);
  static constexpr fmha_hip_geometry geo = fmha_geometry_of(K);
  static_assert(kdecl::arch::fmha::smem_bytes(kdecl::arch::fmha::smem_formula::mfma_k_vt_slices, K) == geo.lds_bytes,
                "kdecl: fmha_specs.hpp's mfma_k_vt_slices formula must match the kernel's LDS");

  static std::size_t workspace_bytes(const fmha_problem&) { return 0; }

  static std::optional<std::string> why_not(const fmha_problem& p, const fmha_args& a) {
    return fmha_hip_refusal(p, a, geo.m0, K.algo.tile.k0max, K.algo.tile.n1);
  }

  static status run(const fmha_problem& p, const fmha_args& a, void* stream) {
    if (auto why = why_not(p, a)) return status::error(*why);
    if (auto mismatch = device_arch_mismatch(K.algo.arch)) return status::error(*mismatch);
    const std::int64_t q_blocks = (p.seqlen_q + geo.m0 - 1) / geo.m0;
    if (q_blocks == 0 || p.batch == 0) return status::ok();
    fmha_hip_params kp{};
    set_fmha_dense_params(kp, p, a);

    const dim3 grid(unsigned(q_blocks), unsigned(p.heads_q), unsigned(p.batch));
    hipLaunchKernelGGL(fmha_hip_kernel<code_key>, grid, dim3(unsigned(geo.threads)), 0,
                       static_cast<hipStream_t>(stream), kp);
    const hipError_t e = hipGetLastError();
    if (e != hipSuccess) return status::error(std::string("hip attention launch: ") + hipGetErrorString(e));
    return status::ok();
  }
};

}  // namespace kdecl::kernels::hip
