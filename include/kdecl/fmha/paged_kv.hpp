// Attention for serving: a paged KV cache, decode (one or a few query tokens per
// sequence), split-KV, and appending new tokens (with rotary embedding) to the pages.
// The families are the seed system's: fwd_pagedkv (one-stage decode over pages),
// fwd_splitkv (keys divided over `splits` blocks, then a combine), fwd_appendkv.
//
// The cache (vLLM / FlashAttention kvcache layout, strides in elements, the head dim
// contiguous):
//   K cache [num_pages, page_size, heads_kv, hdim], V cache the same shape;
//   token t of sequence b lives in page P = table_b[t / page_size], row t % page_size.
// table_b is found one of two ways:
//   * block_table (vLLM): a 2-D int32 array [batch, max_pages_per_seq] (row stride
//     table_stride, 0: packed), table_b = block_table + b * table_stride;
//   * page_list (SGLang): one flat int32 list of page indices with batch + 1 offsets,
//     table_b = page_list + page_offsets[b].
// seqlens_kv[b] is the number of keys of sequence b (for fwd_appendkv: before the
// new tokens, which land at positions seqlens_kv[b] .. seqlens_kv[b] + seqlen_q - 1).
//
// Queries: Q [batch, seqlen_q, heads_q, hdim] (strides; 0: packed), 1 <= seqlen_q <=
// 64 query tokens per sequence (decode; speculative decoding verifies a few);
// O the same shape, LSE fp32 [batch, heads_q, seqlen_q] on request. Query token s of
// sequence b sits at position seqlens_kv[b] - seqlen_q + s (the bottom-right
// diagonal): masks follow fmha_problem (none, top_left, bottom_right, generic
// sliding window). Soft-cap and sinks as fmha_problem. GQA/MQA: heads_q a multiple
// of heads_kv; all heads_q / heads_kv query heads of one KV head read it together.
//
// Append-KV: new K and V [batch, seqlen_q, heads_kv, hdim] (packed) are written into
// the pages; with rope != none, rotary embedding is applied to the new keys (and to
// Q, written to q_out) at their positions, from fp32 cos / sin tables
// [max_position, rotary_dim / 2]: interleaved rotates pairs (2i, 2i + 1), half
// rotates pairs (i, i + rotary_dim / 2) (GPT-NeoX); dims past rotary_dim pass through.
//
// validate() names the value and the rule it broke (page size, block-table shape,
// lengths larger than the pages provided, head ratios, ...).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kdecl/core/enums.hpp"
#include "kdecl/fmha/fmha_key.hpp"

namespace kdecl {

enum class page_table_kind : std::uint8_t { block_table, page_list };
enum class rope_kind : std::uint8_t { none, interleaved, half };

inline constexpr int paged_max_page_size = 256;
inline constexpr int paged_max_query_tokens = 64;
inline constexpr int paged_max_splits = 256;

// Strides of a paged cache in elements (the head dim contiguous); 0: packed.
struct paged_cache_strides {
  std::int64_t page = 0, row = 0, head = 0;
};

// Strides of Q / O [batch, seq, heads, hdim] in elements; 0: packed.
struct paged_query_strides {
  std::int64_t batch = 0, seq = 0, head = 0;
};

struct fmha_paged_problem {
  fmha_family family = fmha_family::fwd_pagedkv;  // fwd_pagedkv, fwd_splitkv, fwd_appendkv or batch_prefill
  std::int64_t batch = 1, seqlen_q = 1, heads_q = 0, heads_kv = 0, hdim = 0;
  dtype qkv = dtype::bf16;  // Q, O and (unless `cache` says otherwise) the cache: fp16 or bf16
  // The cache's dtype: qkv (the default), or fp8 (OCP e4m3) with fp32 dequantization scales
  // k_scale / v_scale, one per tensor or one per KV head (kv_scale_per_head): K = k_scale * K8.
  dtype cache = dtype::any;  // any: qkv
  bool kv_scale_per_head = false;

  std::int64_t page_size = 16, num_pages = 0;  // pages in the pool
  page_table_kind table = page_table_kind::block_table;
  std::int64_t max_pages_per_seq = 0, table_stride = 0;  // block_table: its width and row stride (0: width)
  std::vector<std::int32_t> page_offsets;                 // page_list: batch + 1 offsets (host copy)
  std::vector<std::int32_t> seqlens_kv;                   // per sequence (host copy of the device array)
  // batch_prefill: batch + 1 offsets of the sequences' query rows (host copy); Q and O are
  // [total_q, heads_q, hdim] (q_strides.batch unused), the LSE [heads_q, total_q]; a
  // sequence's queries are its last keys (chunked prefill: a cached prefix comes before them).
  std::vector<std::int32_t> cu_seqlens_q;

  paged_cache_strides k_strides{}, v_strides{};
  paged_query_strides q_strides{}, o_strides{};

  fmha_mask mask = fmha_mask::none;
  std::int64_t window_left = -1, window_right = -1;
  float scale = 0.0f, soft_cap = 0.0f;
  bool sinks = false, lse = false;
  int splits = 0;  // fwd_splitkv: 0 = planned from the problem and the device; fwd_pagedkv: 1

  rope_kind rope = rope_kind::none;  // fwd_appendkv
  std::int64_t rotary_dim = 0;       // 0: hdim
  std::int64_t rope_max_position = 0;  // rows of the cos / sin tables

  // ---- derived ----
  bool prefill() const { return family == fmha_family::batch_prefill; }
  std::int64_t q_len(std::int64_t b) const {
    return prefill() ? cu_seqlens_q[std::size_t(b + 1)] - cu_seqlens_q[std::size_t(b)] : seqlen_q;
  }
  std::int64_t total_q() const { return prefill() ? cu_seqlens_q.back() : batch * seqlen_q; }
  // Element offset of query (or output) token s of sequence b, head h, with strides st.
  std::int64_t q_at(const paged_query_strides& st, std::int64_t b, std::int64_t s, std::int64_t h) const {
    return prefill() ? (cu_seqlens_q[std::size_t(b)] + s) * st.seq + h * st.head : b * st.batch + s * st.seq + h * st.head;
  }
  std::int64_t lse_at(std::int64_t b, std::int64_t h, std::int64_t s) const {
    return prefill() ? h * total_q() + cu_seqlens_q[std::size_t(b)] + s : (b * heads_q + h) * seqlen_q + s;
  }
  float effective_scale() const { return scale > 0.0f ? scale : 1.0f / std::sqrt(float(hdim)); }
  // log2 of the page size (a power of two in a valid problem): key j sits in slot j & (page_size - 1)
  // of the sequence's page j >> page_shift().
  int page_shift() const { return log2_ceil(page_size); }
  static int log2_ceil(std::int64_t x) {
    int s = 0;
    while ((std::int64_t(1) << s) < x) ++s;
    return s;
  }
  std::int64_t group() const { return heads_kv > 0 ? heads_q / heads_kv : 0; }
  dtype cache_dtype() const { return cache == dtype::any ? qkv : cache; }
  bool fp8_cache() const { return cache_dtype() == dtype::fp8; }
  std::int64_t seqlen_kv_of(std::int64_t b) const { return seqlens_kv[std::size_t(b)]; }
  // Keys after the call (appendkv adds seqlen_q).
  std::int64_t keys_after(std::int64_t b) const {
    return seqlens_kv[std::size_t(b)] + (family == fmha_family::fwd_appendkv ? seqlen_q : 0);
  }
  std::int64_t max_seqlen_kv() const {
    std::int64_t m = 0;
    for (auto l : seqlens_kv) m = std::max<std::int64_t>(m, l);
    return m;
  }
  std::int64_t total_kv() const {
    std::int64_t t = 0;
    for (auto l : seqlens_kv) t += l;
    return t;
  }
  std::int64_t pages_of(std::int64_t b) const {
    return table == page_table_kind::block_table ? max_pages_per_seq
                                                 : page_offsets[std::size_t(b + 1)] - page_offsets[std::size_t(b)];
  }
  // Copy with packed strides filled in (batch_prefill: seqlen_q = the longest query sequence).
  fmha_paged_problem normalized() const {
    fmha_paged_problem p = *this;
    if (p.prefill() && p.cu_seqlens_q.size() == std::size_t(batch + 1)) {
      p.seqlen_q = 0;
      for (std::int64_t b = 0; b < batch; ++b) p.seqlen_q = std::max<std::int64_t>(p.seqlen_q, q_len(b));
    }
    auto cache = [&](paged_cache_strides& s) {
      if (s.head == 0) s.head = hdim;
      if (s.row == 0) s.row = heads_kv * hdim;
      if (s.page == 0) s.page = page_size * heads_kv * hdim;
    };
    auto query = [&](paged_query_strides& s) {
      if (s.head == 0) s.head = hdim;
      if (s.seq == 0) s.seq = heads_q * hdim;
      if (s.batch == 0) s.batch = seqlen_q * heads_q * hdim;
    };
    cache(p.k_strides);
    cache(p.v_strides);
    query(p.q_strides);
    query(p.o_strides);
    if (p.table_stride == 0) p.table_stride = max_pages_per_seq;
    if (p.rotary_dim == 0) p.rotary_dim = hdim;
    if (p.family == fmha_family::fwd_pagedkv) p.splits = 1;
    return p;
  }

  // Bytes a decode must move at least: every visible key and value once, Q and O.
  double bytes() const {
    const double e = 2.0, ec = fp8_cache() ? 1.0 : 2.0;
    return ec * double(total_kv()) * double(heads_kv) * double(hdim) * 2.0 +
           e * double(total_q()) * double(heads_q) * double(hdim) * 2.0;
  }

  // Empty when valid, otherwise one sentence naming the value and the rule.
  std::optional<std::string> validate() const {
    using std::to_string;
    auto n = [](std::int64_t v) { return to_string(v); };
    if (family != fmha_family::fwd_pagedkv && family != fmha_family::fwd_splitkv && family != fmha_family::fwd_appendkv &&
        family != fmha_family::batch_prefill)
      return std::string("family ") + std::string(kdecl::to_string(family)) +
             " is not a paged family (fwd_pagedkv, fwd_splitkv, fwd_appendkv or batch_prefill)";
    if (qkv != dtype::fp16 && qkv != dtype::bf16)
      return "dtype " + std::string(kdecl::to_string(qkv)) + ": the paged cache holds fp16 or bf16";
    if (cache != dtype::any && cache != qkv && cache != dtype::fp8)
      return "cache dtype " + std::string(kdecl::to_string(cache)) + ": the cache holds Q's dtype or fp8 (e4m3)";
    if (batch < 0) return "batch = " + n(batch) + " must not be negative";
    if (prefill()) {
      if (std::int64_t(cu_seqlens_q.size()) != batch + 1)
        return "cu_seqlens_q holds " + n(std::int64_t(cu_seqlens_q.size())) + " offsets; batch_prefill needs batch + 1 = " +
               n(batch + 1);
      if (cu_seqlens_q[0] != 0) return "cu_seqlens_q[0] = " + n(cu_seqlens_q[0]) + " must be 0";
      for (std::int64_t b = 0; b < batch; ++b)
        if (cu_seqlens_q[std::size_t(b + 1)] < cu_seqlens_q[std::size_t(b)])
          return "cu_seqlens_q[" + n(b + 1) + "] = " + n(cu_seqlens_q[std::size_t(b + 1)]) + " is below cu_seqlens_q[" +
                 n(b) + "] = " + n(cu_seqlens_q[std::size_t(b)]) + " (offsets never decrease)";
      if (fp8_cache()) return "batch_prefill reads an fp16 or bf16 cache (no fp8 prefill kernel)";
    } else if (seqlen_q < 1 || seqlen_q > paged_max_query_tokens)
      return "seqlen_q = " + n(seqlen_q) + ": decode takes 1 to " + n(paged_max_query_tokens) +
             " query tokens per sequence";
    if (heads_q < 1 || heads_kv < 1) return "heads_q = " + n(heads_q) + ", heads_kv = " + n(heads_kv) + " must be positive";
    if (heads_q % heads_kv != 0)
      return "heads_q = " + n(heads_q) + " is not a multiple of heads_kv = " + n(heads_kv) +
             " (each KV head serves heads_q / heads_kv query heads)";
    if (hdim < 8 || hdim > 256 || hdim % 8 != 0)
      return "hdim = " + n(hdim) + ": head dims are multiples of 8 from 8 to 256 (16-byte rows)";
    if (page_size < 1 || page_size > paged_max_page_size || (page_size & (page_size - 1)) != 0)
      return "page_size = " + n(page_size) + " must be a power of two from 1 to " + n(paged_max_page_size);
    if (std::int64_t(seqlens_kv.size()) != batch)
      return "seqlens_kv holds " + n(std::int64_t(seqlens_kv.size())) + " lengths; batch is " + n(batch);
    if (num_pages < 0) return "num_pages = " + n(num_pages) + " must not be negative";
    if (table == page_table_kind::block_table) {
      if (max_pages_per_seq < 0) return "max_pages_per_seq = " + n(max_pages_per_seq) + " must not be negative";
      if (table_stride != 0 && table_stride < max_pages_per_seq)
        return "table_stride = " + n(table_stride) + " is smaller than the block table's width max_pages_per_seq = " +
               n(max_pages_per_seq);
    } else {
      if (std::int64_t(page_offsets.size()) != batch + 1)
        return "page_offsets holds " + n(std::int64_t(page_offsets.size())) + " offsets; a page list needs batch + 1 = " +
               n(batch + 1);
      if (page_offsets[0] != 0) return "page_offsets[0] = " + n(page_offsets[0]) + " must be 0";
      for (std::int64_t b = 0; b < batch; ++b)
        if (page_offsets[std::size_t(b + 1)] < page_offsets[std::size_t(b)])
          return "page_offsets[" + n(b + 1) + "] = " + n(page_offsets[std::size_t(b + 1)]) + " is below page_offsets[" +
                 n(b) + "] = " + n(page_offsets[std::size_t(b)]) + " (offsets never decrease)";
    }
    for (std::int64_t b = 0; b < batch; ++b) {
      const std::int64_t len = seqlens_kv[std::size_t(b)];
      if (len < 0) return "seqlens_kv[" + n(b) + "] = " + n(len) + " must not be negative";
      const std::int64_t keys = keys_after(b);
      if (keys > std::int64_t(1) << 30) return "sequence " + n(b) + " has " + n(keys) + " keys, more than 2^30";
      const std::int64_t need = (keys + page_size - 1) / page_size, have = pages_of(b);
      if (need > have)
        return "sequence " + n(b) + " has " + n(keys) + " keys" +
               (family == fmha_family::fwd_appendkv ? " after appending " + n(seqlen_q) : std::string()) + ", " +
               n(need) + " pages of " + n(page_size) + ", but the " +
               (table == page_table_kind::block_table ? std::string("block table holds ") : std::string("page list gives it ")) +
               n(have) + (table == page_table_kind::block_table ? " per sequence" : "");
      if (need > 0 && num_pages < 1) return "num_pages = " + n(num_pages) + " but sequence " + n(b) + " has keys";
    }
    if (fp8_cache() && hdim % 16 != 0)
      return "hdim = " + n(hdim) + ": an fp8 cache needs head dims that are multiples of 16 (16-byte rows)";
    const std::int64_t row_elems = fp8_cache() ? 16 : 8;
    for (auto* s : {&k_strides, &v_strides}) {
      const char* name = s == &k_strides ? "K" : "V";
      if (s->page < 0 || s->row < 0 || s->head < 0)
        return std::string(name) + " cache strides must not be negative";
      if (fp8_cache() && ((s->page % row_elems) || (s->row % row_elems) || (s->head % row_elems)))
        return std::string(name) + " cache strides (" + n(s->page) + ", " + n(s->row) + ", " + n(s->head) +
               ") must be multiples of 16 elements for an fp8 cache (16-byte rows)";
      if ((s->page % 8) || (s->row % 8) || (s->head % 8))
        return std::string(name) + " cache strides (" + n(s->page) + ", " + n(s->row) + ", " + n(s->head) +
               ") must be multiples of 8 elements (16-byte rows)";
    }
    for (auto* s : {&q_strides, &o_strides}) {
      const char* name = s == &q_strides ? "Q" : "O";
      if (s->batch < 0 || s->seq < 0 || s->head < 0) return std::string(name) + " strides must not be negative";
      if ((s->batch % 8) || (s->seq % 8) || (s->head % 8))
        return std::string(name) + " strides (" + n(s->batch) + ", " + n(s->seq) + ", " + n(s->head) +
               ") must be multiples of 8 elements (16-byte rows)";
    }
    if (soft_cap < 0.0f) return "soft_cap = " + to_string(soft_cap) + " must be 0 (off) or positive";
    if (!(scale >= 0.0f)) return "scale = " + to_string(scale) + " must be 0 (1 / sqrt(hdim)) or positive";
    if (mask == fmha_mask::generic && window_left < 0 && window_right < 0)
      return "a generic (sliding-window) mask needs window_left or window_right >= 0";
    if (family == fmha_family::fwd_splitkv && (splits < 0 || splits > paged_max_splits))
      return "splits = " + n(splits) + ": 0 (planned) or 1 to " + n(paged_max_splits);
    if (family == fmha_family::fwd_appendkv && rope != rope_kind::none) {
      const std::int64_t rd = rotary_dim == 0 ? hdim : rotary_dim;
      if (rd < 2 || rd > hdim || rd % 2 != 0)
        return "rotary_dim = " + n(rd) + " must be even and at most hdim = " + n(hdim);
      for (std::int64_t b = 0; b < batch; ++b)
        if (keys_after(b) > rope_max_position)
          return "sequence " + n(b) + " reaches position " + n(keys_after(b) - 1) + " but the rotary tables hold " +
                 n(rope_max_position) + " positions";
    }
    return std::nullopt;
  }

  // Checks the page indices the problem uses against [0, num_pages) on a host copy
  // of the table (block table [batch, table_stride] or the flat page list).
  std::optional<std::string> validate_pages(const std::int32_t* host_table) const {
    const fmha_paged_problem p = normalized();
    for (std::int64_t b = 0; b < batch; ++b) {
      const std::int64_t used = (keys_after(b) + page_size - 1) / page_size;
      const std::int32_t* t = p.table == page_table_kind::block_table ? host_table + b * p.table_stride
                                                                      : host_table + p.page_offsets[std::size_t(b)];
      for (std::int64_t i = 0; i < used; ++i)
        if (t[i] < 0 || t[i] >= num_pages)
          return "page " + std::to_string(i) + " of sequence " + std::to_string(b) + " is index " + std::to_string(t[i]) +
                 ", outside the pool of " + std::to_string(num_pages) + " pages";
    }
    return std::nullopt;
  }
};

// Pointers of one call (device pointers for GPU kernels, host pointers for the host reference).
struct fmha_paged_args {
  const void* q = nullptr;
  void* o = nullptr;
  float* lse = nullptr;                         // [batch, heads_q, seqlen_q]
  void* k_cache = nullptr;                      // read by decode, written by appendkv
  void* v_cache = nullptr;
  const std::int32_t* block_table = nullptr;    // page_table_kind::block_table
  const std::int32_t* page_list = nullptr;      // page_table_kind::page_list
  const std::int32_t* page_offsets = nullptr;   // page_list: batch + 1 (device copy)
  const std::int32_t* seqlens_kv = nullptr;     // batch
  const std::int32_t* cu_seqlens_q = nullptr;   // batch_prefill: batch + 1 (device copy)
  const float* sinks = nullptr;                 // heads_q, when the problem has sinks
  const float* k_scale = nullptr;               // fp8 cache: 1 or heads_kv (kv_scale_per_head) fp32 scales
  const float* v_scale = nullptr;
  // fwd_appendkv
  const void* k_new = nullptr;                  // [batch, seqlen_q, heads_kv, hdim] packed
  const void* v_new = nullptr;
  void* q_out = nullptr;                        // Q with rotary embedding applied (may be q); null: not written
  const float* rope_cos = nullptr;              // [rope_max_position, rotary_dim / 2]
  const float* rope_sin = nullptr;
  void* workspace = nullptr;                    // fwd_splitkv partial results (workspace_bytes of the plan)
  std::size_t workspace_bytes = 0;
};

// How a split-KV decode divides sequence b's visible keys: `splits` ranges of whole
// `block_keys` tiles. Shared by the host reference and the CUDA kernel, so that both
// compute the same partial results.
struct paged_key_range {
  std::int64_t begin = 0, end = 0;  // [begin, end)
};

// Keys any of the seqlen_q query tokens may see (the mask's band), in [0, skv).
// constexpr: device code (the HIP kernels) calls these as the host reference does.
constexpr paged_key_range paged_band(fmha_mask mask, std::int64_t left, std::int64_t right, std::int64_t sq,
                                  std::int64_t skv) {
  const std::int64_t offset = mask == fmha_mask::top_left ? 0 : skv - sq;
  std::int64_t lo = 0, hi = skv;
  std::int64_t l = -1, r = -1;
  if (mask == fmha_mask::top_left || mask == fmha_mask::bottom_right) r = 0;
  if (mask == fmha_mask::generic) { l = left; r = right; }
  if (l >= 0) lo = std::max<std::int64_t>(0, offset - l);
  if (r >= 0) hi = std::min<std::int64_t>(skv, sq - 1 + offset + r + 1);
  if (hi < lo) hi = lo;
  return {lo, hi};
}

constexpr paged_key_range paged_split_range(paged_key_range band, int split, int splits, int block_keys) {
  const std::int64_t n = band.end - band.begin;
  std::int64_t chunk = (n + splits - 1) / splits;
  chunk = (chunk + block_keys - 1) / block_keys * block_keys;
  const std::int64_t b = std::min(band.end, band.begin + std::int64_t(split) * chunk);
  return {b, std::min(band.end, b + chunk)};
}

}  // namespace kdecl
