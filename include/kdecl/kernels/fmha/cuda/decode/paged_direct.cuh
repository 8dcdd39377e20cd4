// Direct entry points to the CUDA serving kernels that pick the kernel from the problem's
// dtype, cache and head dim themselves, without the registry: the paged decoder (planning
// each call, lending the split-KV workspace), append-KV and the mma_sync batch_prefill.
// Benchmarks and tests call them; applications go through fmha_paged_dispatcher.
// They are in a header of their own because each instantiates every kernel it may pick:
// the kernel-set translation units, which include the kernel headers, compile only the
// kernels they register.
#pragma once

#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/core/status.hpp"
#include "kdecl/fmha/paged_kv.hpp"
#include "kdecl/kernels/fmha/cuda/decode/decode_plan.hpp"
#include "kdecl/kernels/fmha/cuda/decode/paged_append.cuh"
#include "kdecl/kernels/fmha/cuda/decode/paged_decode.cuh"
#include "kdecl/kernels/fmha/cuda/decode/paged_prefill.cuh"

namespace kdecl::kernels::cuda::decode {

inline status run_paged_append(const fmha_paged_problem& problem, const fmha_paged_args& a, cudaStream_t stream) {
  if (auto e = problem.validate()) return status::error(*e);
  if (problem.family != fmha_family::fwd_appendkv) return status::error("run_paged_append takes fwd_appendkv problems");
  const fmha_paged_problem p = problem.normalized();
  if (p.qkv == dtype::bf16)
    return p.fp8_cache() ? launch_paged_append<__nv_bfloat16, __nv_fp8_e4m3>(p, a, stream)
                         : launch_paged_append<__nv_bfloat16, __nv_bfloat16>(p, a, stream);
  return p.fp8_cache() ? launch_paged_append<__half, __nv_fp8_e4m3>(p, a, stream) : launch_paged_append<__half, __half>(p, a, stream);
}

// Runs a (valid) problem with a plan from plan_paged_decode (normalizes it first).
inline status run_paged_decode(const fmha_paged_problem& problem, const fmha_paged_args& a, const decode_plan& plan,
                               cudaStream_t stream) {
  if (auto e = problem.validate()) return status::error(*e);
  const fmha_paged_problem p = problem.normalized();
  if (auto why = paged_decode_args_reason(p, a, plan)) return status::error(*why);
  if (p.batch == 0) return status::ok();
  return visit_decode_kernel(p, [&]<class T, class Cache, int D>() { return launch_paged_decode<T, Cache, D>(p, a, plan, stream); });
}

// Decode blocks one SM runs at once for a problem's (default-stage) kernel on the current device.
inline int paged_decode_blocks_per_sm(const fmha_paged_problem& p) {
  return visit_decode_kernel(p, [&]<class T, class Cache, int D>() { return decode_blocks_per_sm<T, Cache, D>(); });
}

// The serving decoder: plans each call from the problem and the current device,
// and lends the split-KV workspace (grown on demand, kept between calls, freed
// with the decoder) when the caller's args carry none.
class paged_decoder {
 public:
  paged_decoder() = default;
  paged_decoder(const paged_decoder&) = delete;
  paged_decoder& operator=(const paged_decoder&) = delete;
  ~paged_decoder() {
    if (workspace_) cudaFree(workspace_);
  }

  decode_plan plan(const fmha_paged_problem& problem) const {
    const fmha_paged_problem p = problem.normalized();
    int dev = 0, sms = 1;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    return plan_paged_decode(p, sms, paged_decode_blocks_per_sm(p));
  }

  status run(const fmha_paged_problem& problem, const fmha_paged_args& args, cudaStream_t stream = nullptr) {
    if (auto e = problem.validate()) return status::error(*e);
    const decode_plan pl = plan(problem);
    fmha_paged_args a = args;
    if (pl.workspace_bytes > 0 && (a.workspace == nullptr || a.workspace_bytes < pl.workspace_bytes)) {
      if (capacity_ < pl.workspace_bytes) {
        if (workspace_) cudaFree(workspace_);
        workspace_ = nullptr;
        capacity_ = 0;
        const cudaError_t e = cudaMalloc(&workspace_, pl.workspace_bytes);
        if (e != cudaSuccess) return status::error(std::string("paged decode workspace: ") + cudaGetErrorString(e));
        capacity_ = pl.workspace_bytes;
      }
      a.workspace = workspace_;
      a.workspace_bytes = capacity_;
    }
    return run_paged_decode(problem, a, pl, stream);
  }

 private:
  void* workspace_ = nullptr;
  std::size_t capacity_ = 0;
};

// Runs a valid batch_prefill problem (normalized here) on the shipped tiles for its head dim.
inline status run_paged_prefill(const fmha_paged_problem& problem, const fmha_paged_args& a, cudaStream_t stream,
                                const std::int32_t* contiguous_cu_kv = nullptr) {
  if (auto e = problem.validate()) return status::error(*e);
  if (!problem.prefill()) return status::error("run_paged_prefill takes batch_prefill problems");
  const fmha_paged_problem p = problem.normalized();
  const int d = p.hdim <= 64 ? 64 : p.hdim <= 128 ? 128 : 256;
  if (p.qkv == dtype::bf16) {
    if (d == 64) return run_paged_prefill_with<prefill_traits<dtype::bf16, 64>>(p, a, stream, contiguous_cu_kv);
    if (d == 128) return run_paged_prefill_with<prefill_traits<dtype::bf16, 128>>(p, a, stream, contiguous_cu_kv);
    return run_paged_prefill_with<prefill_traits<dtype::bf16, 256>>(p, a, stream, contiguous_cu_kv);
  }
  if (d == 64) return run_paged_prefill_with<prefill_traits<dtype::fp16, 64>>(p, a, stream, contiguous_cu_kv);
  if (d == 128) return run_paged_prefill_with<prefill_traits<dtype::fp16, 128>>(p, a, stream, contiguous_cu_kv);
  return run_paged_prefill_with<prefill_traits<dtype::fp16, 256>>(p, a, stream, contiguous_cu_kv);
}

}  // namespace kdecl::kernels::cuda::decode
