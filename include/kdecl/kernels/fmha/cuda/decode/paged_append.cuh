// Append-KV with rotary embedding (fwd_appendkv) for CUDA: writes the new tokens'
// keys (rotated) and values into their pages and, when q_out is given, the rotated
// queries. One block per (sequence, new token); its threads walk (head, pair of
// dims) for the query heads and (KV head, pair) for K and V; rotation in fp32 from
// the fp32 cos / sin tables (interleaved: pairs (2i, 2i + 1); half: (i, i + rd / 2));
// dims past rotary_dim are copied. An fp8 cache stores value / scale, rounded to e4m3
// (saturating). Placed ahead of the decode on the same stream.
#pragma once

#include <cstdint>
#include <string>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "kdecl/core/status.hpp"
#include "kdecl/fmha/paged_kv.hpp"
#include "kdecl/kernels/fmha/paged_append_params.hpp"
#include "kdecl/kernels/fmha/paged_pointers.hpp"
#include "kdecl/kernels/cuda/device_types.cuh"

namespace kdecl::kernels::cuda::decode {

using append_params = kernels::paged_append_params;

template <class T, class Out>
__device__ __forceinline__ void rotate_row(const T* src, Out* dst, const append_params& p, int pos, int lane0, int step,
                                           float inv_scale) {
  const int half = p.rotary_dim / 2;
  // Pairs first (each thread one pair), then the dims past the rotary part.
  for (int i = lane0; i < half; i += step) {
    const int i0 = p.rope == rope_kind::interleaved ? 2 * i : i;
    const int i1 = p.rope == rope_kind::interleaved ? 2 * i + 1 : i + half;
    const float x0 = to_float(src[i0]), x1 = to_float(src[i1]);
    const float c = p.cos[std::int64_t(pos) * half + i], s = p.sin[std::int64_t(pos) * half + i];
    dst[i0] = from_float<Out>((x0 * c - x1 * s) * inv_scale);
    dst[i1] = from_float<Out>((x0 * s + x1 * c) * inv_scale);
  }
  for (int d = p.rotary_dim + lane0; d < p.hdim; d += step) dst[d] = from_float<Out>(to_float(src[d]) * inv_scale);
}

template <class T, class Cache>
__global__ void __launch_bounds__(128) paged_append_kernel(const append_params p) {
  const int b = blockIdx.x / p.seqlen_new, i = blockIdx.x % p.seqlen_new;
  const int pos = p.seqlens_kv[b] + i;
  const std::int32_t* table = p.page_list ? p.page_list + p.page_offsets[b] : p.block_table + b * p.table_stride;
  const std::int64_t page = table[pos >> p.page_shift], slot = pos & ((1 << p.page_shift) - 1);
  const bool rope = p.rope != rope_kind::none;
  // Threads are spread over heads: warp w handles heads w, w + 4, ...
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (p.q_out != nullptr)
    for (int h = warp; h < p.heads_q; h += 4) {
      const T* src = static_cast<const T*>(p.q) + b * p.q_batch + i * p.q_seq + h * p.q_head;
      T* dst = static_cast<T*>(p.q_out) + b * p.q_batch + i * p.q_seq + h * p.q_head;
      if (rope) {
        rotate_row(src, dst, p, pos, lane, 32, 1.0f);
      } else {
        for (int d = lane; d < p.hdim; d += 32) dst[d] = src[d];
      }
    }
  for (int h = warp; h < p.heads_kv; h += 4) {
    const std::int64_t src_at = ((std::int64_t(b) * p.seqlen_new + i) * p.heads_kv + h) * p.hdim;
    const T* ks = static_cast<const T*>(p.k_new) + src_at;
    const T* vs = static_cast<const T*>(p.v_new) + src_at;
    Cache* kd = static_cast<Cache*>(p.k_cache) + page * p.k_page + slot * p.k_row + h * p.k_head;
    Cache* vd = static_cast<Cache*>(p.v_cache) + page * p.v_page + slot * p.v_row + h * p.v_head;
    const float inv_k = p.k_scale ? 1.0f / p.k_scale[h * p.scale_stride] : 1.0f;
    const float inv_v = p.v_scale ? 1.0f / p.v_scale[h * p.scale_stride] : 1.0f;
    if (rope) rotate_row(ks, kd, p, pos, lane, 32, inv_k);
    else
      for (int d = lane; d < p.hdim; d += 32) kd[d] = from_float<Cache>(to_float(ks[d]) * inv_k);
    for (int d = lane; d < p.hdim; d += 32) vd[d] = from_float<Cache>(to_float(vs[d]) * inv_v);
  }
}

// Runs a valid fwd_appendkv problem (normalized here). When q_out aliases q, each
// element is read by the thread that writes it (pairs stay within one thread).
// Launches the append kernel of element T and cache element Cache on a normalized, valid
// fwd_appendkv problem (the registered kernels call it with their key's types).
template <class T, class Cache>
inline status launch_paged_append(const fmha_paged_problem& p, const fmha_paged_args& a, cudaStream_t stream) {
  if (auto why = kernels::detail::paged_pointers_missing(p, a)) return status::error(*why);
  if (p.batch == 0) return status::ok();
  if (p.batch * p.seqlen_q > std::int64_t(1) << 31) return status::error("too many new tokens for the grid");
  const append_params kp = paged_append_params_of(p, a);
  const unsigned blocks = unsigned(p.batch * p.seqlen_q);
  paged_append_kernel<T, Cache><<<blocks, 128, 0, stream>>>(kp);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return status::error(std::string("paged append launch: ") + cudaGetErrorString(e));
  return status::ok();
}

}  // namespace kdecl::kernels::cuda::decode
