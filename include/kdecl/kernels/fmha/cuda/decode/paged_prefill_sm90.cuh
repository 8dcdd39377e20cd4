// batch_prefill over a paged KV cache on sm_90a: the tma_wgmma_ws forward kernel
// (kernels/fmha/cuda/sm90/fmha_sm90.cuh, traits with `paged`) whose producer loads each K/V
// tile page by page. The K and V pools are 4-D TMA maps (head dim, page rows, KV head, page);
// a tile of block_n keys arrives as boxes of min(page size, block_n's largest power-of-two
// divisor) rows, box k from the page the sequence's table names for it (the producer warp
// reads those entries, one lane per box), so pages of 8 rows or more take this route and the
// mma_sync prefill (paged_prefill.cuh) serves smaller ones. Queries run in the forward
// kernel's group mode (cu_seqlens_q), key lengths come from seqlens_kv, and a sequence's
// queries are its last keys (the bottom-right diagonal: chunked prefill after a cached prefix).
// The V rows after a sequence's last key in its last page are zeroed in shared memory before
// P V reads them (a stale slot may hold NaN). The logit soft-cap and sinks are the key's, compiled
// in as in the forward kernel (paged_prefill_features_reason); no bias here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/core/status.hpp"
#include "kdecl/fmha/fmha_key.hpp"
#include "kdecl/fmha/paged_kv.hpp"
#include "kdecl/kernels/cuda/device_info.cuh"
#include "kdecl/kernels/cuda/sm90/tensor_map_4d.cuh"
#include "kdecl/kernels/fmha/cuda/decode/paged_prefill.cuh"
#include "kdecl/kernels/fmha/cuda/sm90/fmha_sm90.cuh"
#include "kdecl/kernels/fmha/fmha_launch_values.hpp"
#include "kdecl/kernels/fmha/paged_pointers.hpp"

namespace kdecl::kernels::cuda::decode {

template <fmha_key K>
struct paged_prefill_sm90 {
  using traits = sm90::fmha_ws_traits_of<K>;
  static_assert(traits::paged, "kdecl: paged_prefill_sm90 runs batch_prefill keys");

  static int box_rows(const fmha_paged_problem& p) {
    return int(std::min<std::int64_t>(p.page_size, traits::page_box_rows));
  }
  // Q [total_q, heads_q, hdim] with its strides; the pools (head dim, page rows, KV head, page).
  static sm90::tensor_view_4d q_view(const fmha_paged_problem& p, const fmha_paged_args& a) {
    return {a.q, p.qkv, {p.hdim, p.total_q(), p.heads_q, 1}, {p.q_strides.seq, p.q_strides.head, 0}, 64,
            traits::block_m};
  }
  static sm90::tensor_view_4d pool_view(const void* base, const fmha_paged_problem& p, const paged_cache_strides& st) {
    return {base, p.qkv, {p.hdim, p.page_size, p.heads_kv, p.num_pages}, {st.row, st.head, st.page}, 64, box_rows(p)};
  }

  // Why this kernel cannot run a normalized, valid batch_prefill problem, or empty.
  static std::optional<std::string> why_not(const fmha_paged_problem& p, const fmha_paged_args& a) {
    if (auto why = paged_prefill_features_reason(p, traits::soft_cap, traits::sink)) return why;
    if (p.fp8_cache()) return "the tma_wgmma_ws prefill reads a cache in Q's dtype (fp8 caches: no prefill kernel)";
    if (auto why = detail::paged_pointers_missing(p, a)) return why;
    if (p.hdim > traits::d) return "head dim " + std::to_string(p.hdim) + " exceeds the kernel's " + std::to_string(traits::d);
    if (p.hdim % 8 != 0) return "the head dim must be a multiple of 8 (16-byte rows for TMA)";
    if (p.page_size < traits::min_page_rows)
      return "page_size = " + std::to_string(p.page_size) + ": the tma_wgmma_ws prefill loads whole boxes of at least " +
             std::to_string(traits::min_page_rows) + " rows from a page (one 1 KiB swizzle atom); mma_sync takes any";
    if (p.total_q() >= std::numeric_limits<int>::max() || p.num_pages >= std::numeric_limits<int>::max() ||
        p.seqlen_q >= std::numeric_limits<int>::max() - traits::block_m)
      return "TMA coordinates are 32-bit: query rows and pages must stay below 2^31";
    if ((p.seqlen_q + traits::block_m - 1) / traits::block_m * p.heads_q * p.batch >= (std::int64_t(1) << 30))
      return "the kernel numbers its tiles (128 query rows x query heads x sequences) with 32 bits: fewer than 2^30 tiles";
    if (reinterpret_cast<std::uintptr_t>(a.o) % 8 != 0 || p.o_strides.seq % 4 != 0 || p.o_strides.head % 4 != 0)
      return "O's address and strides must allow 8-byte stores (4 values)";
    if (p.total_q() > 0) {
      if (auto why = sm90::tma_view_unsupported(q_view(p, a))) return "Q: " + *why;
      if (auto why = sm90::tma_view_unsupported(pool_view(a.k_cache, p, p.k_strides))) return "K cache: " + *why;
      if (auto why = sm90::tma_view_unsupported(pool_view(a.v_cache, p, p.v_strides))) return "V cache: " + *why;
    }
    return std::nullopt;
  }

  static status run(const fmha_paged_problem& p, const fmha_paged_args& a, cudaStream_t stream) {
    if (auto why = why_not(p, a)) return status::error(*why);
    if (auto why = device_shortfall("the tma_wgmma_ws paged prefill", {9, 0, /*exact=*/true, traits::smem_bytes}))
      return status::error(*why);
    const std::int64_t q_blocks = (p.seqlen_q + traits::block_m - 1) / traits::block_m;
    if (p.batch == 0 || p.total_q() == 0 || q_blocks == 0) return status::ok();
    sm90::fmha_ws_params kp{};
    if (auto why = sm90::encode_tensor_map_4d(kp.map_q, q_view(p, a))) return status::error("Q tensor map: " + *why);
    if (auto why = sm90::encode_tensor_map_4d(kp.map_k, pool_view(a.k_cache, p, p.k_strides)))
      return status::error("K cache tensor map: " + *why);
    if (auto why = sm90::encode_tensor_map_4d(kp.map_v, pool_view(a.v_cache, p, p.v_strides)))
      return status::error("V cache tensor map: " + *why);
    kp.o = a.o;
    kp.lse = p.lse ? a.lse : nullptr;
    kp.cu_q = a.cu_seqlens_q;
    kp.o_batch = 0;
    kp.o_seq = p.o_strides.seq;
    kp.o_head = p.o_strides.head;
    kp.lse_batch = 0;
    kp.lse_head = p.total_q();  // [heads_q, total_q]
    kp.seqlen_q = int(p.seqlen_q);
    kp.hdim_v = int(p.hdim);
    kp.group = int(p.group());
    set_fmha_mask_and_scales(kp, p);
    kp.sinks = p.sinks ? a.sinks : nullptr;
    kp.pages = p.table == page_table_kind::block_table ? a.block_table : a.page_list;
    kp.page_offsets = p.table == page_table_kind::page_list ? a.page_offsets : nullptr;
    kp.pages_stride = p.table_stride;
    kp.seqlens_kv = a.seqlens_kv;
    kp.page_shift = p.page_shift();
    kp.box_shift = fmha_paged_problem::log2_ceil(box_rows(p));
    kp.oob_page = int(p.num_pages);
    kp.q_blocks = int(q_blocks);
    kp.heads_q = int(p.heads_q);
    kp.tiles = int(q_blocks * p.heads_q * p.batch);
    kp.rows_slowest = true;  // group mode (fmha<K>::run says why)
    return sm90::fmha_ws_detail::launch<traits>(kp, stream);
  }
};

}  // namespace kdecl::kernels::cuda::decode
