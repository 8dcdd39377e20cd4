// fmha_paged_kernel<K, backend::hip>: the serving families on gfx90a and gfx942
// (kernels/fmha/fmha_paged_kernel.hpp's contract), compiled, never run: no AMD GPU is
// available to this project.
//   qr_pagedkv  fwd_pagedkv (one stage) and fwd_splitkv (split + combine):
//               fmha_hip_decode_kernel, the MFMA attention block over paged K/V with
//               the query heads of a KV head packed into its rows; batch_prefill:
//               fmha_hip_prefill_kernel, the forward pass's blocks over paged K/V;
//   appendkv    fwd_appendkv: fmha_hip_append_kernel.
// The split count is planned as for CUDA (decode_plan.hpp plan_paged_decode) with the
// reference part's compute units (arch tables: an MI210's 104 on gfx90a, an MI300X's 304 on
// gfx942) and the blocks one of them holds by LDS (under one wave, as on CUDA, at most 2 of them:
// a rule measured on an H100 only, as nothing here has run on AMD hardware). Cache in Q's dtype
// only (no fp8 cache on HIP: the tables refuse such declarations). Empty unless __HIPCC__.
#pragma once

#if defined(__HIPCC__)

#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "kdecl/arch/arch.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/fmha/paged_kv.hpp"
#include "kdecl/kernels/fmha/cuda/decode/decode_plan.hpp"  // plan_paged_decode: pure C++
#include "kdecl/kernels/fmha/fmha_paged_kernel.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_geometry.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_paged_blocks.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_paged_kernel.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_paged_rules.hpp"
#include "kdecl/kernels/fmha/paged_pointers.hpp"
#include "kdecl/kernels/hip/hip_arch.hpp"

namespace kdecl::kernels {

template <fmha_key K>
struct fmha_paged_kernel<K, backend::hip> {
  static_assert(is_paged_family(K.sig.family), "kdecl: fmha_paged_kernel serves the paged families");
  static constexpr bool append = K.algo.pipe == fmha_pipeline::appendkv;
  static_assert(append ? hip::fmha_hip_append_unsupported(K) == nullptr : hip::fmha_hip_unbuildable(K) == nullptr,
                "kdecl: the HIP serving-attention kernels cannot build this key");
  static constexpr bool prefill = K.sig.family == fmha_family::batch_prefill;
  static constexpr fmha_key code_key = append ? K : hip::fmha_hip_code_key(K);
  static constexpr hip::fmha_hip_geometry geo = append ? hip::fmha_hip_geometry{} : hip::fmha_geometry_of(K);

  static std::optional<std::string> why_not(const fmha_paged_problem& p, const fmha_paged_args& a) {
    if (auto why = detail::paged_pointers_missing(p, a)) return why;
    return hip::fmha_hip_paged_refusal(p, append ? 0 : geo.m0, append ? 256 : K.algo.tile.k0max);
  }

  // Compute units of the arch's reference part (the number the dispatchers' estimates assume)
  // and decode blocks one of them holds (LDS, at most 8).
  static paged_plan plan_of(const fmha_paged_problem& p) {
    if constexpr (append || prefill) {
      return {};
    } else {
      const int cus = arch::spec_of(K.algo.arch).sm_count;
      const int per_cu = std::clamp(kdecl::arch::fmha::mfma_lds_bytes / std::max(1, geo.lds_bytes), 1, 8);
      const auto pl = cuda::decode::plan_paged_decode(p, cus, per_cu);
      return {pl.splits, pl.workspace_bytes};
    }
  }

  static status run(const fmha_paged_problem& p, const fmha_paged_args& a, void* stream) {
    if (auto why = why_not(p, a)) return status::error(*why);
    if (auto mismatch = hip::device_arch_mismatch(K.algo.arch)) return status::error(*mismatch);
    if (p.batch == 0) return status::ok();
    const auto s = static_cast<hipStream_t>(stream);
    if constexpr (append) return run_append(p, a, s);
    else return run_attention(p, a, s);
  }

 private:
  static status launched(const char* what) {
    const hipError_t e = hipGetLastError();
    if (e != hipSuccess) return status::error(std::string(what) + " launch: " + hipGetErrorString(e));
    return status::ok();
  }

  // Decode (one stage, or the splits and their combine) and batch_prefill.
  static status run_attention(const fmha_paged_problem& p, const fmha_paged_args& a, hipStream_t s) {
    const dim3 threads(unsigned(geo.threads));
    if constexpr (prefill) {
      const hip::fmha_hip_paged_params kp = hip::paged_params_of(p, a, 1);
      const dim3 grid(unsigned((p.seqlen_q + geo.m0 - 1) / geo.m0), unsigned(p.heads_q), unsigned(p.batch));
      if (grid.x == 0) return status::ok();
      hipLaunchKernelGGL(hip::fmha_hip_prefill_kernel<code_key>, grid, threads, 0, s, kp);
      return launched("hip paged prefill");
    } else {
      const paged_plan plan = plan_of(p);
      if (plan.workspace_bytes > 0 && (!a.workspace || a.workspace_bytes < plan.workspace_bytes))
        return status::error("split-KV with " + std::to_string(plan.splits) + " splits needs " +
                             std::to_string(plan.workspace_bytes) + " bytes of workspace, " +
                             std::to_string(a.workspace_bytes) + " given");
      if (plan.workspace_bytes > 0 && reinterpret_cast<std::uintptr_t>(a.workspace) % 16 != 0)
        return status::error("the split-KV workspace must be 16-byte aligned (the partial results' 16-byte stores)");
      const hip::fmha_hip_paged_params kp = hip::paged_params_of(p, a, plan.splits);
      const std::int64_t rows = std::int64_t(p.group()) * p.seqlen_q;  // query rows sharing one KV head
      const std::int64_t blocks = (rows + geo.m0 - 1) / geo.m0 * plan.splits;
      const dim3 grid(unsigned(blocks), unsigned(p.heads_kv), unsigned(p.batch));
      hipLaunchKernelGGL(hip::fmha_hip_decode_kernel<code_key>, grid, threads, 0, s, kp);
      if (status st = launched("hip paged decode"); !st || plan.splits == 1) return st;
      hip::fmha_hip_combine_params cp{};
      cp.part_o = kp.part_o;
      cp.part_lse = kp.part_lse;
      cp.o = a.o;
      cp.lse = kp.lse;
      cp.sinks = kp.sinks;
      cp.o_batch = kp.o_batch; cp.o_seq = kp.o_seq; cp.o_head = kp.o_head;
      cp.seqlen_q = kp.seqlen_q;
      cp.heads_q = kp.heads_q;
      cp.hdim = kp.hdim;
      cp.splits = plan.splits;
      hipLaunchKernelGGL(hip::fmha_hip_combine_kernel<K.sig.qkv>, dim3(unsigned(p.batch * p.heads_q * p.seqlen_q)),
                         dim3(unsigned(hip::fmha_wave)), 0, s, cp);
      return launched("hip paged decode combine");
    }
  }

  static status run_append(const fmha_paged_problem& p, const fmha_paged_args& a, hipStream_t s) {
    const hip::fmha_hip_append_params kp = paged_append_params_of(p, a);
    hipLaunchKernelGGL(hip::fmha_hip_append_kernel<K.sig.qkv>, dim3(unsigned(p.batch * p.seqlen_q)),
                       dim3(unsigned(4 * hip::fmha_wave)), 0, s, kp);
    return launched("hip paged append");
  }
};

}  // namespace kdecl::kernels

#endif  // __HIPCC__
