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
    auto window = [](std::int64_t w) { return w < 0 || w > (1 << 30) ? -1 : int(w); };  // beyond any sequence
    fmha_hip_params kp{};
    kp.q = a.q;
    kp.k = a.k;
    kp.v = a.v;
    kp.o = a.o;
    kp.lse = p.lse ? a.lse : nullptr;
    kp.bias = a.bias;
    kp.alibi_slopes = a.alibi_slopes;
    kp.sinks = a.sinks;
    kp.cu_q = p.group_mode() ? a.cu_seqlens_q : nullptr;
    kp.cu_kv = p.group_mode() ? a.cu_seqlens_kv : nullptr;
    kp.q_batch = p.q_strides.batch; kp.q_seq = p.q_strides.seq; kp.q_head = p.q_strides.head;
    kp.k_batch = p.k_strides.batch; kp.k_seq = p.k_strides.seq; kp.k_head = p.k_strides.head;
    kp.v_batch = p.v_strides.batch; kp.v_seq = p.v_strides.seq; kp.v_head = p.v_strides.head;
    kp.o_batch = p.o_strides.batch; kp.o_seq = p.o_strides.seq; kp.o_head = p.o_strides.head;
    kp.lse_batch = p.lse_batch_stride;
    kp.lse_head = p.lse_head_stride;
    kp.bias_batch = p.bias_strides.batch;
    kp.bias_head = p.bias_strides.head;
    kp.bias_seq = p.bias_strides.seq;
    kp.alibi_batch_stride = p.alibi_per_batch ? int(p.heads_q) : 0;
    kp.seqlen_q = int(p.seqlen_q);
    kp.seqlen_kv = int(p.seqlen_kv);
    kp.hdim_q = int(p.hdim_q);
    kp.hdim_v = int(p.hdim_v);
    kp.group = int(p.heads_q / p.heads_kv);
    switch (p.mask) {
      case fmha_mask::none: kp.window_left = kp.window_right = -1; kp.top_left = false; break;
      case fmha_mask::top_left: kp.window_left = -1; kp.window_right = 0; kp.top_left = true; break;
      case fmha_mask::bottom_right: kp.window_left = -1; kp.window_right = 0; kp.top_left = false; break;
      case fmha_mask::generic:
        kp.window_left = window(p.window_left);
        kp.window_right = window(p.window_right);
        kp.top_left = false;
        break;
    }
    kp.scale = p.effective_scale();
    kp.scale_log2 = kp.scale * fmha_log2e;
    kp.soft_cap = p.soft_cap;
    kp.inv_soft_cap = p.soft_cap > 0.0f ? 1.0f / p.soft_cap : 0.0f;

    const dim3 grid(unsigned(q_blocks), unsigned(p.heads_q), unsigned(p.batch));
    hipLaunchKernelGGL(fmha_hip_kernel<code_key>, grid, dim3(unsigned(geo.threads)), 0,
                       static_cast<hipStream_t>(stream), kp);
    const hipError_t e = hipGetLastError();
    if (e != hipSuccess) return status::error(std::string("hip attention launch: ") + hipGetErrorString(e));
    return status::ok();
  }
};

}  // namespace kdecl::kernels::hip
