// A random paged-KV case (host data) for the serving families, used by their host and
// GPU tests and by `kdecl run fmha --paged`: pages shuffled over a pool with spare
// pages of garbage, unused block-table entries pointing far outside the pool (so a
// read past the pages a sequence owns is caught), and the same keys gathered into a
// contiguous varlen problem for kdecl::reference::fmha.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "kdecl/fmha/fmha_problem.hpp"
#include "kdecl/fmha/paged_kv.hpp"
#include "kdecl/numeric/float8_e4m3.hpp"

// (namespace kdecl::test: first written for the tests.)
namespace kdecl::test {

struct paged_config {
  fmha_family family = fmha_family::fwd_pagedkv;
  std::vector<std::int32_t> lengths;  // keys per sequence
  std::vector<std::int32_t> q_lengths;  // batch_prefill: query tokens per sequence
  std::int64_t seqlen_q = 1, heads_q = 32, heads_kv = 8, hdim = 128, page_size = 16;
  page_table_kind table = page_table_kind::block_table;
  fmha_mask mask = fmha_mask::none;
  std::int64_t window_left = -1, window_right = -1;
  float soft_cap = 0.0f;
  bool sinks = false;
  int splits = 0;
  bool fp8_cache = false, scale_per_head = false;  // an e4m3 cache with fp32 scales
  // 16-bit caches: every slot no sequence owns (after a sequence's last key in its last page,
  // the spare pages) holds NaN, as a stale or never-written cache may.
  bool nan_in_free_slots = false;
  std::uint64_t seed = 1;
};

// The configuration that rebuilds a (normalized, valid) problem's shape and features with random
// data: what `kdecl run fmha --paged` checks on the host and on the GPU.
inline paged_config paged_config_of(const fmha_paged_problem& p, std::uint64_t seed) {
  paged_config cfg;
  cfg.family = p.family;
  cfg.lengths = p.seqlens_kv;
  cfg.seqlen_q = p.seqlen_q;
  for (std::int64_t b = 0; p.prefill() && b < p.batch; ++b) cfg.q_lengths.push_back(std::int32_t(p.q_len(b)));
  cfg.heads_q = p.heads_q;
  cfg.heads_kv = p.heads_kv;
  cfg.hdim = p.hdim;
  cfg.page_size = p.page_size;
  cfg.table = p.table;
  cfg.mask = p.mask;
  cfg.window_left = p.window_left;
  cfg.window_right = p.window_right;
  cfg.soft_cap = p.soft_cap;
  cfg.sinks = p.sinks;
  cfg.splits = p.splits;
  cfg.fp8_cache = p.fp8_cache();
  cfg.scale_per_head = p.kv_scale_per_head;
  cfg.seed = seed;
  return cfg;
}

template <class T>
struct paged_case {
  fmha_paged_problem p;  // normalized
  std::vector<T> q, k_cache, v_cache;
  std::vector<float8_e4m3> k8, v8;   // the cache when p.fp8_cache()
  std::vector<float> k_scale, v_scale;
  std::vector<std::int32_t> table;  // block table [batch, width] or flat page list
  std::vector<float> sinks;

  fmha_paged_args host_args() {
    fmha_paged_args a;
    a.q = q.data();
    a.k_cache = p.fp8_cache() ? static_cast<void*>(k8.data()) : static_cast<void*>(k_cache.data());
    a.v_cache = p.fp8_cache() ? static_cast<void*>(v8.data()) : static_cast<void*>(v_cache.data());
    a.k_scale = k_scale.empty() ? nullptr : k_scale.data();
    a.v_scale = v_scale.empty() ? nullptr : v_scale.data();
    if (p.table == page_table_kind::block_table) a.block_table = table.data();
    else a.page_list = table.data();
    a.page_offsets = p.page_offsets.empty() ? nullptr : p.page_offsets.data();
    a.seqlens_kv = p.seqlens_kv.data();
    a.cu_seqlens_q = p.cu_seqlens_q.empty() ? nullptr : p.cu_seqlens_q.data();
    a.sinks = sinks.empty() ? nullptr : sinks.data();
    return a;
  }

  // The same attention as a contiguous varlen (group mode) problem: Q [total_q, Hq, D],
  // K and V [total_kv, Hkv, D] gathered from the pages.
  struct contiguous {
    fmha_problem p;
    std::vector<T> q, k, v;
  };
  // As gathered(), in fp32 with the cache dequantized (for an fp8 cache).
  struct contiguous_fp32 {
    fmha_problem p;
    std::vector<float> q, k, v;
  };
  contiguous_fp32 gathered_fp32() const {
    contiguous_fp32 c;
    const auto g = gathered_with([&](std::int64_t at, std::int64_t h, bool is_k) {
      const float s = (is_k ? k_scale : v_scale)[std::size_t(p.kv_scale_per_head ? h : 0)];
      return p.fp8_cache() ? float(is_k ? k8[std::size_t(at)] : v8[std::size_t(at)]) * s
                           : float(is_k ? k_cache[std::size_t(at)] : v_cache[std::size_t(at)]);
    });
    c.p = g.first;
    c.p.dtype(dtype::fp32);
    for (const auto& x : q) c.q.push_back(float(x));
    c.k = g.second.first;
    c.v = g.second.second;
    return c;
  }
  template <class Read>
  std::pair<fmha_problem, std::pair<std::vector<float>, std::vector<float>>> gathered_with(Read read) const {
    fmha_problem cp;
    std::vector<float> k, v;
    const std::int64_t d = p.hdim, hk = p.heads_kv;
    std::vector<std::int32_t> lq;
    for (std::int64_t b = 0; b < p.batch; ++b) lq.push_back(std::int32_t(p.q_len(b)));
    cp.varlen(lq, p.seqlens_kv).heads(p.heads_q, p.heads_kv).head_dim(d).dtype(p.qkv);
    cp.mask = p.mask;
    cp.window_left = p.window_left;
    cp.window_right = p.window_right;
    cp.soft_cap = p.soft_cap;
    cp.scale = p.scale;
    cp.sinks = p.sinks;
    cp.lse = true;
    for (std::int64_t b = 0; b < p.batch; ++b) {
      const std::int32_t* t = p.table == page_table_kind::block_table ? table.data() + b * p.table_stride
                                                                      : table.data() + p.page_offsets[std::size_t(b)];
      for (std::int64_t j = 0; j < p.seqlens_kv[std::size_t(b)]; ++j)
        for (std::int64_t h = 0; h < hk; ++h) {
          const std::int64_t at = std::int64_t(t[j / p.page_size]) * p.k_strides.page + (j % p.page_size) * p.k_strides.row +
                                  h * p.k_strides.head;
          for (std::int64_t x = 0; x < d; ++x) {
            k.push_back(read(at + x, h, true));
            v.push_back(read(at + x, h, false));
          }
        }
    }
    return {cp, {k, v}};
  }
  contiguous gathered() const {
    contiguous c;
    const std::int64_t d = p.hdim, hk = p.heads_kv;
    std::vector<std::int32_t> lq;
    for (std::int64_t b = 0; b < p.batch; ++b) lq.push_back(std::int32_t(p.q_len(b)));
    c.p.varlen(lq, p.seqlens_kv).heads(p.heads_q, p.heads_kv).head_dim(d).dtype(p.qkv);
    c.p.mask = p.mask;
    c.p.window_left = p.window_left;
    c.p.window_right = p.window_right;
    c.p.soft_cap = p.soft_cap;
    c.p.scale = p.scale;
    c.p.sinks = p.sinks;
    c.p.lse = true;
    c.q = q;  // [B, Sq, Hq, D] packed is [total_q, Hq, D]
    for (std::int64_t b = 0; b < p.batch; ++b) {
      const std::int32_t* t = p.table == page_table_kind::block_table ? table.data() + b * p.table_stride
                                                                      : table.data() + p.page_offsets[std::size_t(b)];
      for (std::int64_t j = 0; j < p.seqlens_kv[std::size_t(b)]; ++j)
        for (std::int64_t h = 0; h < hk; ++h) {
          const std::int64_t at = std::int64_t(t[j / p.page_size]) * p.k_strides.page + (j % p.page_size) * p.k_strides.row +
                                  h * p.k_strides.head;
          c.k.insert(c.k.end(), k_cache.begin() + at, k_cache.begin() + at + d);
          c.v.insert(c.v.end(), v_cache.begin() + at, v_cache.begin() + at + d);
        }
    }
    return c;
  }
};

template <class T>
paged_case<T> make_paged_case(const paged_config& cfg, dtype dt) {
  std::mt19937_64 rng(cfg.seed);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  paged_case<T> c;
  fmha_paged_problem& p = c.p;
  p.family = cfg.family;
  p.batch = std::int64_t(cfg.lengths.size());
  p.seqlen_q = cfg.seqlen_q;
  p.heads_q = cfg.heads_q;
  p.heads_kv = cfg.heads_kv;
  p.hdim = cfg.hdim;
  p.qkv = dt;
  p.page_size = cfg.page_size;
  p.table = cfg.table;
  p.seqlens_kv = cfg.lengths;
  p.mask = cfg.mask;
  p.window_left = cfg.window_left;
  p.window_right = cfg.window_right;
  p.soft_cap = cfg.soft_cap;
  p.sinks = cfg.sinks;
  p.lse = true;
  p.splits = cfg.splits;
  if (p.prefill()) {
    p.cu_seqlens_q.push_back(0);
    for (auto l : cfg.q_lengths) p.cu_seqlens_q.push_back(p.cu_seqlens_q.back() + l);
  }
  if (cfg.fp8_cache) {
    p.cache = dtype::fp8;
    p.kv_scale_per_head = cfg.scale_per_head;
  }

  std::vector<std::int64_t> need(std::size_t(p.batch));
  std::int64_t total = 0, widest = 0;
  for (std::int64_t b = 0; b < p.batch; ++b) {
    need[std::size_t(b)] = (p.keys_after(b) + p.page_size - 1) / p.page_size;
    total += need[std::size_t(b)];
    widest = std::max(widest, need[std::size_t(b)]);
  }
  const std::int64_t spare = 3;
  p.num_pages = total + spare;
  std::vector<std::int32_t> pool(std::size_t(p.num_pages));
  std::iota(pool.begin(), pool.end(), 0);
  std::shuffle(pool.begin(), pool.end(), rng);  // pages out of order, spares anywhere
  const std::int32_t outside = std::int32_t(p.num_pages + 1000000);
  std::size_t next = 0;
  if (p.table == page_table_kind::block_table) {
    p.max_pages_per_seq = widest + 1;
    p.table_stride = widest + 3;  // a padded row
    c.table.assign(std::size_t(p.batch * p.table_stride), outside);
    for (std::int64_t b = 0; b < p.batch; ++b)
      for (std::int64_t i = 0; i < need[std::size_t(b)]; ++i) c.table[std::size_t(b * p.table_stride + i)] = pool[next++];
  } else {
    p.page_offsets.push_back(0);
    for (std::int64_t b = 0; b < p.batch; ++b) {
      for (std::int64_t i = 0; i < need[std::size_t(b)]; ++i) c.table.push_back(pool[next++]);
      p.page_offsets.push_back(std::int32_t(c.table.size()));
    }
  }
  p = p.normalized();
  const std::int64_t cache_elems = p.num_pages * p.k_strides.page;
  if (p.fp8_cache()) {
    // e4m3 values over most of their range (|x| up to 448) with scales that bring them near 1.
    c.k8.resize(std::size_t(cache_elems));
    c.v8.resize(std::size_t(cache_elems));
    for (auto& x : c.k8) x = float8_e4m3(200.0f * uni(rng));
    for (auto& x : c.v8) x = float8_e4m3(200.0f * uni(rng));
    const std::size_t scales = p.kv_scale_per_head ? std::size_t(p.heads_kv) : 1;
    for (std::size_t i = 0; i < scales; ++i) {
      c.k_scale.push_back(0.004f + 0.002f * float(i));
      c.v_scale.push_back(0.005f - 0.0003f * float(i));
    }
  } else {
    c.k_cache.resize(std::size_t(cache_elems));
    c.v_cache.resize(std::size_t(cache_elems));
    for (auto& x : c.k_cache) x = T(uni(rng));
    for (auto& x : c.v_cache) x = T(uni(rng));
    if (cfg.nan_in_free_slots) {
      std::vector<bool> owned(std::size_t(p.num_pages * p.page_size), false);  // [page][row]
      for (std::int64_t b = 0; b < p.batch; ++b)
        for (std::int64_t j = 0; j < p.keys_after(b); ++j) {
          const std::int64_t slot = p.table == page_table_kind::block_table
                                        ? c.table[std::size_t(b * p.table_stride + j / p.page_size)]
                                        : c.table[std::size_t(p.page_offsets[std::size_t(b)] + j / p.page_size)];
          owned[std::size_t(slot * p.page_size + j % p.page_size)] = true;
        }
      const T nan = T(std::numeric_limits<float>::quiet_NaN());
      for (std::int64_t pg = 0; pg < p.num_pages; ++pg)
        for (std::int64_t r = 0; r < p.page_size; ++r)
          if (!owned[std::size_t(pg * p.page_size + r)])
            for (std::int64_t h = 0; h < p.heads_kv; ++h)
              for (std::int64_t e = 0; e < p.hdim; ++e) {
                c.k_cache[std::size_t(pg * p.k_strides.page + r * p.k_strides.row + h * p.k_strides.head + e)] = nan;
                c.v_cache[std::size_t(pg * p.v_strides.page + r * p.v_strides.row + h * p.v_strides.head + e)] = nan;
              }
    }
  }
  c.q.resize(std::size_t(p.total_q() * p.heads_q * p.hdim));
  for (auto& x : c.q) x = T(uni(rng));
  if (p.sinks) {
    c.sinks.resize(std::size_t(p.heads_q));
    for (auto& x : c.sinks) x = 2.0f * uni(rng);
  }
  return c;
}

}  // namespace kdecl::test
