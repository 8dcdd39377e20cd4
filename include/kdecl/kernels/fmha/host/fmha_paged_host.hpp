// Host references of the serving families (kdecl/fmha/paged_kv.hpp): paged decode
// (fwd_pagedkv), split-KV partial results and their combine (fwd_splitkv), and
// append-KV with rotary embedding (fwd_appendkv). Exact: logits, sums and
// outputs in double, two passes (maximum, then sum) per row, no online rescaling.
// Work items (sequence, query head) are spread over the shared thread pool.
// Problems are normalized and valid; host pointers.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kdecl/fmha/paged_kv.hpp"
#include "kdecl/kernels/host/thread_pool.hpp"
#include "kdecl/numeric/host_storage.hpp"

namespace kdecl::kernels::host {

// The page table of sequence b.
inline const std::int32_t* paged_table_of(const fmha_paged_problem& p, const fmha_paged_args& a, std::int64_t b) {
  return p.table == page_table_kind::block_table ? a.block_table + b * p.table_stride
                                                 : a.page_list + p.page_offsets[std::size_t(b)];
}

// Element offset of token t of KV head hk in a cache with strides s.
inline std::int64_t paged_offset(const fmha_paged_problem& p, const std::int32_t* table, const paged_cache_strides& s,
                                 std::int64_t hk, std::int64_t t) {
  return std::int64_t(table[t / p.page_size]) * s.page + (t % p.page_size) * s.row + hk * s.head;
}

// Reads (and writes) cached values: the cache's own dtype T, or fp8 e4m3 dequantized
// with the KV head's scale (value = scale * e4m3; writes divide by it and round,
// saturating to the finite range).
template <class T>
struct paged_cache_access {
  void* base;
  bool fp8;
  double scale;
  paged_cache_access(const fmha_paged_problem& p, void* cache, const float* scales, std::int64_t hk)
      : base(cache), fp8(p.fp8_cache()), scale(fp8 ? double(scales[p.kv_scale_per_head ? hk : 0]) : 1.0) {}
  double get(std::int64_t at) const {
    return fp8 ? double(float(static_cast<const float8_e4m3*>(base)[at])) * scale
               : double(float(static_cast<const T*>(base)[at]));
  }
  void set(std::int64_t at, double v) const {
    if (fp8) static_cast<float8_e4m3*>(base)[at] = float8_e4m3(float(v / scale));
    else static_cast<T*>(base)[at] = T(float(v));
  }
};

// Attention of query token s of head h of sequence b over the keys in `range` that
// its mask lets it see: writes the normalized output (hdim values) and returns the
// natural log-sum-exp of its logits (-inf when it sees none, and then zeros).
template <class T>
double paged_attention_partial(const fmha_paged_problem& p, const fmha_paged_args& a, std::int64_t b, std::int64_t h,
                               std::int64_t s, paged_key_range range, double* out, std::vector<double>& logits) {
  const std::int64_t d = p.hdim, skv = p.seqlens_kv[std::size_t(b)], hk = h / p.group();
  const double scale = p.effective_scale(), cap = p.soft_cap;
  const T* q = static_cast<const T*>(a.q) + p.q_at(p.q_strides, b, s, h);
  const paged_cache_access<T> kc(p, a.k_cache, a.k_scale, hk), vc(p, a.v_cache, a.v_scale, hk);
  const std::int32_t* table = paged_table_of(p, a, b);
  // Visibility as fmha_visibility: key j is visible to query i when lo(i) <= j <= hi(i).
  const std::int64_t offset = p.mask == fmha_mask::top_left ? 0 : skv - p.q_len(b);
  std::int64_t left = -1, right = -1;
  if (p.mask == fmha_mask::top_left || p.mask == fmha_mask::bottom_right) right = 0;
  if (p.mask == fmha_mask::generic) { left = p.window_left; right = p.window_right; }
  const std::int64_t diag = s + offset;
  const std::int64_t lo = std::max<std::int64_t>(range.begin, left >= 0 ? diag - left : range.begin);
  const std::int64_t hi = std::min<std::int64_t>(range.end, right >= 0 ? diag + right + 1 : range.end);
  std::fill(out, out + d, 0.0);
  if (hi <= lo) return -std::numeric_limits<double>::infinity();
  logits.resize(std::size_t(hi - lo));
  double m = -std::numeric_limits<double>::infinity();
  for (std::int64_t j = lo; j < hi; ++j) {
    const std::int64_t k = paged_offset(p, table, p.k_strides, hk, j);
    double dot = 0.0;
    for (std::int64_t c = 0; c < d; ++c) dot += double(float(q[c])) * kc.get(k + c);
    double x = dot * scale;
    if (cap > 0.0) x = cap * std::tanh(x / cap);
    logits[std::size_t(j - lo)] = x;
    m = std::max(m, x);
  }
  double sum = 0.0;
  for (std::int64_t j = lo; j < hi; ++j) {
    const double e = std::exp(logits[std::size_t(j - lo)] - m);
    sum += e;
    const std::int64_t v = paged_offset(p, table, p.v_strides, hk, j);
    for (std::int64_t c = 0; c < d; ++c) out[c] += e * vc.get(v + c);
  }
  for (std::int64_t c = 0; c < d; ++c) out[c] /= sum;
  return m + std::log(sum);
}

// Runs fn(b, h) for every (sequence, query head) over the thread pool.
template <class Fn>
void paged_for_each_head(const fmha_paged_problem& p, Fn&& fn) {
  const std::int64_t items = p.batch * p.heads_q;
  std::atomic<std::int64_t> next{0};
  auto& pool = thread_pool::instance();
  pool.run(int(std::min<std::int64_t>(pool.size(), std::max<std::int64_t>(items, 1))), [&](int) {
    for (std::int64_t item; (item = next++) < items;) fn(item / p.heads_q, item % p.heads_q);
  });
}

// Merges partial results (normalized outputs o_i and LSEs l_i) and the sink into
// the final output and LSE: M = max(l_i, sink), w_i = exp(l_i - M),
// O = sum w_i o_i / (sum w_i + exp(sink - M)), LSE = M + log(that denominator).
inline double paged_merge(const double* lse, const double* const* o, int parts, std::int64_t d, bool has_sink,
                          double sink, double* out) {
  constexpr double neg_inf = -std::numeric_limits<double>::infinity();
  double m = has_sink ? sink : neg_inf;
  for (int i = 0; i < parts; ++i) m = std::max(m, lse[i]);
  std::fill(out, out + d, 0.0);
  if (m == neg_inf) return neg_inf;
  double denom = has_sink ? std::exp(sink - m) : 0.0;
  for (int i = 0; i < parts; ++i) {
    if (lse[i] == neg_inf) continue;
    const double w = std::exp(lse[i] - m);
    denom += w;
    for (std::int64_t c = 0; c < d; ++c) out[c] += w * o[i][c];
  }
  for (std::int64_t c = 0; c < d; ++c) out[c] /= denom;
  return m + std::log(denom);
}

// fwd_pagedkv (and batch_prefill): the whole band in one piece, sinks included; writes O (T)
// and the LSE.
template <class T>
void paged_decode(const fmha_paged_problem& p, const fmha_paged_args& a) {
  paged_for_each_head(p, [&](std::int64_t b, std::int64_t h) {
    std::vector<double> o(static_cast<std::size_t>(p.hdim)), out(static_cast<std::size_t>(p.hdim)), logits;
    const std::int64_t skv = p.seqlens_kv[std::size_t(b)], sq = p.q_len(b);
    const paged_key_range band = paged_band(p.mask, p.window_left, p.window_right, sq, skv);
    for (std::int64_t s = 0; s < sq; ++s) {
      double lse = paged_attention_partial<T>(p, a, b, h, s, band, o.data(), logits);
      const double* parts[1] = {o.data()};
      lse = paged_merge(&lse, parts, 1, p.hdim, p.sinks, p.sinks ? double(a.sinks[h]) : 0.0, out.data());
      T* dst = static_cast<T*>(a.o) + p.q_at(p.o_strides, b, s, h);
      for (std::int64_t c = 0; c < p.hdim; ++c) dst[c] = T(float(out[std::size_t(c)]));
      if (p.lse && a.lse) a.lse[p.lse_at(b, h, s)] = float(lse);
    }
  });
}

// batch_prefill: the same exact attention over a paged cache, variable query lengths.
template <class T>
void paged_prefill(const fmha_paged_problem& p, const fmha_paged_args& a) {
  paged_decode<T>(p, a);
}

// fwd_splitkv stage 1: the partial result of every split (ranges of paged_split_range
// with `block_keys` tiles), fp32, in the workspace layout the CUDA kernel writes:
// part_o [batch, heads_q, seqlen_q, splits, hdim], part_lse [batch, heads_q, seqlen_q, splits].
template <class T>
void paged_split_partials(const fmha_paged_problem& p, const fmha_paged_args& a, int splits, int block_keys,
                          float* part_o, float* part_lse) {
  paged_for_each_head(p, [&](std::int64_t b, std::int64_t h) {
    std::vector<double> o(static_cast<std::size_t>(p.hdim)), logits;
    const std::int64_t skv = p.seqlens_kv[std::size_t(b)];
    const paged_key_range band = paged_band(p.mask, p.window_left, p.window_right, p.seqlen_q, skv);
    for (std::int64_t s = 0; s < p.seqlen_q; ++s)
      for (int sp = 0; sp < splits; ++sp) {
        const double lse = paged_attention_partial<T>(p, a, b, h, s, paged_split_range(band, sp, splits, block_keys),
                                                      o.data(), logits);
        const std::int64_t row = ((b * p.heads_q + h) * p.seqlen_q + s) * splits + sp;
        part_lse[row] = float(lse);
        for (std::int64_t c = 0; c < p.hdim; ++c) part_o[row * p.hdim + c] = float(o[std::size_t(c)]);
      }
  });
}

// fwd_splitkv stage 2: combines the partial results (and the sinks) into O and the LSE.
template <class T>
void paged_split_combine(const fmha_paged_problem& p, const fmha_paged_args& a, int splits, const float* part_o,
                         const float* part_lse) {
  paged_for_each_head(p, [&](std::int64_t b, std::int64_t h) {
    std::vector<double> lse(static_cast<std::size_t>(splits)), o(static_cast<std::size_t>(splits * p.hdim)), out(static_cast<std::size_t>(p.hdim));
    std::vector<const double*> parts(static_cast<std::size_t>(splits));
    for (std::int64_t s = 0; s < p.seqlen_q; ++s) {
      const std::int64_t row0 = ((b * p.heads_q + h) * p.seqlen_q + s) * splits;
      for (int i = 0; i < splits; ++i) {
        lse[std::size_t(i)] = double(part_lse[row0 + i]);
        for (std::int64_t c = 0; c < p.hdim; ++c) o[std::size_t(i * p.hdim + c)] = double(part_o[(row0 + i) * p.hdim + c]);
        parts[std::size_t(i)] = o.data() + i * p.hdim;
      }
      const double l = paged_merge(lse.data(), parts.data(), splits, p.hdim, p.sinks, p.sinks ? double(a.sinks[h]) : 0.0,
                                   out.data());
      T* dst = static_cast<T*>(a.o) + b * p.o_strides.batch + s * p.o_strides.seq + h * p.o_strides.head;
      for (std::int64_t c = 0; c < p.hdim; ++c) dst[c] = T(float(out[std::size_t(c)]));
      if (p.lse && a.lse) a.lse[(b * p.heads_q + h) * p.seqlen_q + s] = float(l);
    }
  });
}

// Rotary embedding of one head vector x (hdim values) at `pos`, in place, in double.
inline void paged_rope(const fmha_paged_problem& p, const fmha_paged_args& a, std::int64_t pos, double* x) {
  if (p.rope == rope_kind::none) return;
  const std::int64_t half = p.rotary_dim / 2;
  for (std::int64_t i = 0; i < half; ++i) {
    const double c = a.rope_cos[pos * half + i], s = a.rope_sin[pos * half + i];
    const std::int64_t i0 = p.rope == rope_kind::interleaved ? 2 * i : i;
    const std::int64_t i1 = p.rope == rope_kind::interleaved ? 2 * i + 1 : i + half;
    const double x0 = x[i0], x1 = x[i1];
    x[i0] = x0 * c - x1 * s;
    x[i1] = x0 * s + x1 * c;
  }
}

// fwd_appendkv: writes the new tokens' K (rotated) and V into their pages, and the
// rotated Q into q_out when given. Token i of sequence b goes to position seqlens_kv[b] + i.
template <class T>
void paged_append(const fmha_paged_problem& p, const fmha_paged_args& a) {
  const std::int64_t d = p.hdim;
  paged_for_each_head(p, [&](std::int64_t b, std::int64_t h) {
    std::vector<double> x(static_cast<std::size_t>(d));
    const std::int32_t* table = paged_table_of(p, a, b);
    for (std::int64_t i = 0; i < p.seqlen_q; ++i) {
      const std::int64_t pos = p.seqlens_kv[std::size_t(b)] + i;
      if (a.q_out) {
        const T* q = static_cast<const T*>(a.q) + b * p.q_strides.batch + i * p.q_strides.seq + h * p.q_strides.head;
        for (std::int64_t c = 0; c < d; ++c) x[std::size_t(c)] = double(float(q[c]));
        paged_rope(p, a, pos, x.data());
        T* qo = static_cast<T*>(a.q_out) + b * p.q_strides.batch + i * p.q_strides.seq + h * p.q_strides.head;
        for (std::int64_t c = 0; c < d; ++c) qo[c] = T(float(x[std::size_t(c)]));
      }
      if (h % p.group() != 0) continue;  // K and V once per KV head
      const std::int64_t hk = h / p.group();
      const std::int64_t src = ((b * p.seqlen_q + i) * p.heads_kv + hk) * d;
      const T* kn = static_cast<const T*>(a.k_new) + src;
      const T* vn = static_cast<const T*>(a.v_new) + src;
      for (std::int64_t c = 0; c < d; ++c) x[std::size_t(c)] = double(float(kn[c]));
      paged_rope(p, a, pos, x.data());
      const paged_cache_access<T> kc(p, a.k_cache, a.k_scale, hk), vc(p, a.v_cache, a.v_scale, hk);
      const std::int64_t kd = paged_offset(p, table, p.k_strides, hk, pos);
      const std::int64_t vd = paged_offset(p, table, p.v_strides, hk, pos);
      for (std::int64_t c = 0; c < d; ++c) {
        kc.set(kd + c, x[std::size_t(c)]);
        vc.set(vd + c, double(float(vn[c])));
      }
    }
  });
}

}  // namespace kdecl::kernels::host
