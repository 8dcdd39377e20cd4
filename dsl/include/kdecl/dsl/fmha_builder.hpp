// fmha(): the literal builder of a fused-attention declaration.
#pragma once

#include "kdecl/dsl/wildcard.hpp"
#include "kdecl/fmha/fmha_key.hpp"

namespace kdecl::dsl {

class fmha_decl {
 private:
  // Applies f to a copy (setters return updated copies so chains stay constant expressions).
  template <class F>
  constexpr fmha_decl with(F f) const {
    fmha_decl d = *this;
    f(d.key_);
    return d;
  }

 public:
  using key_type = fmha_key;

  constexpr fmha_decl family(fmha_family f) const { return with([&](key_type& k) { k.sig.family = f; }); }
  // Q = K = V = O = `all`.
  constexpr fmha_decl dtype(kdecl::dtype all) const { return dtypes(all, all); }
  constexpr fmha_decl dtypes(kdecl::dtype qkv, kdecl::dtype o) const {
    return with([&](key_type& k) {
      k.sig.qkv = qkv;
      k.sig.o = o;
    });
  }
  // The paged cache's dtype (fwd_pagedkv, fwd_splitkv, fwd_appendkv): fp8 (e4m3, fp32 scales);
  // unset: Q's dtype.
  constexpr fmha_decl kv_cache(kdecl::dtype c) const { return with([&](key_type& k) { k.sig.cache = c; }); }
  constexpr fmha_decl hdim(int q, int v) const {
    return with([&](key_type& k) {
      k.sig.hdim_q = q;
      k.sig.hdim_v = v;
    });
  }
  constexpr fmha_decl hdim(int qv) const { return hdim(qv, qv); }
  constexpr fmha_decl mask(fmha_mask m) const { return with([&](key_type& k) { k.sig.mask = m; }); }
  constexpr fmha_decl bias(fmha_bias b) const { return with([&](key_type& k) { k.sig.bias = b; }); }
  constexpr fmha_decl mode(fmha_mode m) const { return with([&](key_type& k) { k.sig.mode = m; }); }
  constexpr fmha_decl v_layout(kdecl::layout l) const { return with([&](key_type& k) { k.sig.v_layout = l; }); }
  constexpr fmha_decl lse(bool on) const { return with([&](key_type& k) { k.sig.lse = on; }); }
  constexpr fmha_decl dropout(bool on) const { return with([&](key_type& k) { k.sig.dropout = on; }); }
  constexpr fmha_decl logits_soft_cap(bool on) const { return with([&](key_type& k) { k.sig.logits_soft_cap = on; }); }
  // Attention sinks: one learned logit per query head joins the softmax denominator.
  constexpr fmha_decl sink(bool on) const { return with([&](key_type& k) { k.sig.sink = on; }); }
  // Stage-0 tile m0 x n0 over k0 (each int or any); stage-1 n1, k1 and k0max default from the hdims.
  constexpr fmha_decl tile(int_or_any m0, int_or_any n0, int_or_any k0) const {
    return with([&](key_type& k) { k.algo.tile = {m0.value, n0.value, k0.value, k.algo.tile.n1, k.algo.tile.k1, k.algo.tile.k0max}; });
  }
  constexpr fmha_decl tile(any_t) const { return tile(any, any, any); }
  // m0 x n0 with k0 the pipeline's (kdecl's NVIDIA and host pipelines: k0max, the whole padded head dim).
  constexpr fmha_decl tile(int_or_any m0, int_or_any n0) const {
    return with([&](key_type& k) { k.algo.tile = {m0.value, n0.value, 0, k.algo.tile.n1, k.algo.tile.k1, k.algo.tile.k0max}; });
  }
  constexpr fmha_decl tile_stage1(int n1, int k1) const {
    return with([&](key_type& k) {
      k.algo.tile.n1 = n1;
      k.algo.tile.k1 = k1;
    });
  }
  constexpr fmha_decl k0max(int v) const { return with([&](key_type& k) { k.algo.tile.k0max = v; }); }
  constexpr fmha_decl warps(int m, int n, int k) const { return warps(m, n, k, m, n, k); }
  constexpr fmha_decl warps(int m0, int n0, int k0, int m1, int n1, int k1) const {
    return with([&](key_type& k) {
      k.algo.warps0 = {m0, n0, k0};
      k.algo.warps1 = {m1, n1, k1};
    });
  }
  constexpr fmha_decl warp_tile(int m, int n, int k) const { return warp_tile(m, n, k, m, n, k); }
  constexpr fmha_decl warp_tile(int m0, int n0, int k0, int m1, int n1, int k1) const {
    return with([&](key_type& k) {
      k.algo.warp_tile0 = {m0, n0, k0};
      k.algo.warp_tile1 = {m1, n1, k1};
    });
  }
  constexpr fmha_decl pipeline(fmha_pipeline p) const { return with([&](key_type& k) { k.algo.pipe = p; }); }
  // K/V ring depth (int or any; unset: the pipeline's default).
  constexpr fmha_decl stages(int_or_any s) const { return with([&](key_type& k) { k.algo.stages = s.value; }); }
  constexpr fmha_decl pad(flag_or_any s, flag_or_any sk, flag_or_any d, flag_or_any dv) const {
    return with([&](key_type& k) {
      k.algo.pad_s = s.value;
      k.algo.pad_sk = sk.value;
      k.algo.pad_d = d.value;
      k.algo.pad_dv = dv.value;
    });
  }
  constexpr fmha_decl block_per_cu(int n) const { return with([&](key_type& k) { k.algo.block_per_cu = n; }); }

  constexpr const key_type& key() const { return key_; }

 private:
  key_type key_{};
};

constexpr fmha_decl fmha() { return {}; }

}  // namespace kdecl::dsl
