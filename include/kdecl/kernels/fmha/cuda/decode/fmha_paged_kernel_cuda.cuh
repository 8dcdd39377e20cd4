// fmha_paged_kernel<K, backend::cuda>: a registered serving-attention key to its CUDA kernel.
//   paged_decode  fwd_pagedkv (one stage) and fwd_splitkv (split + combine): paged_decode.cuh,
//                 decode_traits<T, Cache, hdim, stages> of the key; the split count is planned
//                 per call from the device's SMs and this kernel's occupancy (decode_plan.hpp);
//   paged_append  fwd_appendkv: paged_append.cuh, paged_append_kernel<T, Cache>;
//   mma_sync      batch_prefill: the mma_sync forward kernel with paged K/V loads
//                 (paged_prefill.cuh), fmha_traits of the key's tile, warps and stages;
//   tma_wgmma_ws  batch_prefill on sm_90a: the tma_wgmma_ws forward kernel loading K/V tiles
//                 page by page through TMA (paged_prefill_sm90.cuh), pages of 8 rows or more.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>

#include "kdecl/arch/arch.hpp"
#include "kdecl/arch/fmha_specs.hpp"
#include "kdecl/kernels/fmha/cuda/decode/paged_append.cuh"
#include "kdecl/kernels/fmha/cuda/decode/paged_decode.cuh"
#include "kdecl/kernels/fmha/cuda/decode/paged_prefill.cuh"
#include "kdecl/kernels/fmha/cuda/decode/paged_prefill_sm90.cuh"
#include "kdecl/kernels/fmha/fmha_paged_kernel.hpp"
#include "kdecl/kernels/fmha/paged_pointers.hpp"

namespace kdecl::kernels {

template <fmha_key K>
struct fmha_paged_kernel<K, backend::cuda> {
  static_assert(is_paged_family(K.sig.family), "kdecl: fmha_paged_kernel serves the paged families");
  static_assert(K.sig.qkv == K.sig.o && (K.sig.qkv == dtype::fp16 || K.sig.qkv == dtype::bf16),
                "kdecl: the paged CUDA kernels compute fp16 and bf16 (O in Q's dtype)");
  static_assert(K.algo.pipe == fmha_pipeline::paged_decode || K.algo.pipe == fmha_pipeline::paged_append ||
                    ((K.algo.pipe == fmha_pipeline::mma_sync || K.algo.pipe == fmha_pipeline::tma_wgmma_ws) &&
                     K.sig.family == fmha_family::batch_prefill),
                "kdecl: no CUDA serving-attention kernel implements this pipeline and family");

  using T = std::conditional_t<K.sig.qkv == dtype::bf16, __nv_bfloat16, __half>;
  using Cache = std::conditional_t<K.sig.cache == dtype::fp8, __nv_fp8_e4m3, T>;
  static constexpr bool decode = K.algo.pipe == fmha_pipeline::paged_decode;
  static constexpr bool append = K.algo.pipe == fmha_pipeline::paged_append;
  static constexpr int D = K.sig.hdim_q;  // decode: 64, 128 or 256; the problem's head dim runs padded
  static constexpr bool tma = K.algo.pipe == fmha_pipeline::tma_wgmma_ws;
  using prefill_traits = cuda::sm80::fmha_traits_of<K>;  // mma_sync

  // The plan of a decode on the current device (offline, without one: the arch table's SMs and
  // shared memory, decode_blocks_per_sm_offline, as `kdecl select fmha --paged` assumes).
  static cuda::decode::decode_plan plan(const fmha_paged_problem& p) {
    int dev = 0, sms = 0;
    int per_sm = 1;
    if (cudaGetDevice(&dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess && sms > 0) {
      if constexpr (decode) per_sm = cuda::decode::decode_blocks_per_sm<T, Cache, D, K.algo.stages>();
    } else {
      cudaGetLastError();  // clear the no-device error
      sms = arch::spec_of(K.algo.arch).sm_count > 0 ? arch::spec_of(K.algo.arch).sm_count : 1;
      if constexpr (decode) {
        const auto* offer = arch::fmha::find_pipeline(arch::fmha::spec_of(K.algo.arch), fmha_pipeline::paged_decode);
        per_sm = cuda::decode::decode_blocks_per_sm_offline(
            cuda::decode::decode_traits<T, Cache, D, K.algo.stages>::smem_bytes, offer ? offer->smem_capacity : 0);
      }
    }
    cuda::decode::decode_plan pl = cuda::decode::plan_paged_decode(p, sms, per_sm);
    pl.padded_hdim = D;
    return pl;
  }

  static std::optional<std::string> why_not(const fmha_paged_problem& p, const fmha_paged_args& a) {
    if constexpr (decode) {
      return cuda::decode::paged_decode_launch_reason(p, a);
    } else if constexpr (append) {
      if (auto why = detail::paged_pointers_missing(p, a)) return why;
      if (p.batch * p.seqlen_q > std::int64_t(1) << 31) return std::string("too many new tokens for the grid");
      return std::nullopt;
    } else if constexpr (tma) {
      return cuda::decode::paged_prefill_sm90<K>::why_not(p, a);
    } else {
      return cuda::decode::paged_prefill_args_reason<prefill_traits>(p, a);
    }
  }

  static paged_plan plan_of(const fmha_paged_problem& p) {
    if constexpr (decode) {
      const cuda::decode::decode_plan pl = plan(p);
      return {pl.splits, pl.workspace_bytes};
    }
    return {};
  }

  static status run(const fmha_paged_problem& p, const fmha_paged_args& a, void* stream) {
    const auto s = static_cast<cudaStream_t>(stream);
    if constexpr (decode) {
      const cuda::decode::decode_plan pl = plan(p);
      if (auto why = cuda::decode::paged_decode_args_reason(p, a, pl)) return status::error(*why);  // why_not's, and the workspace
      if (p.batch == 0) return status::ok();
      return cuda::decode::launch_paged_decode<T, Cache, D, K.algo.stages>(p, a, pl, s);
    } else {
      if (auto why = why_not(p, a)) return status::error(*why);
      if constexpr (append) return cuda::decode::launch_paged_append<T, Cache>(p, a, s);
      else if constexpr (tma) return cuda::decode::paged_prefill_sm90<K>::run(p, a, s);
      else return cuda::decode::run_paged_prefill_with<prefill_traits>(p, a, s);
    }
  }
};

}  // namespace kdecl::kernels
