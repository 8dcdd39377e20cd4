// grouped_conv(): the literal builder of a grouped-convolution declaration.
#pragma once

#include "kdecl/conv/grouped_conv_key.hpp"
#include "kdecl/dsl/wildcard.hpp"

namespace kdecl::dsl {

class grouped_conv_decl {
 private:
  // Applies f to a copy (setters return updated copies so chains stay constant expressions).
  template <class F>
  constexpr grouped_conv_decl with(F f) const {
    grouped_conv_decl d = *this;
    f(d.key_);
    return d;
  }

 public:
  using key_type = grouped_conv_key;

  constexpr grouped_conv_decl direction(conv_direction d) const { return with([&](key_type& k) { k.sig.dir = d; }); }
  constexpr grouped_conv_decl ndim(int n) const { return with([&](key_type& k) { k.sig.ndim = n; }); }
  // in = wei = out = `all`, accumulator per default_accumulator, multiplied in `all`.
  constexpr grouped_conv_decl dtype(kdecl::dtype all) const { return dtypes(all, all, all); }
  constexpr grouped_conv_decl dtypes(kdecl::dtype in, kdecl::dtype wei, kdecl::dtype out) const {
    return with([&](key_type& k) {
      k.sig.in = in;
      k.sig.wei = wei;
      k.sig.out = out;
      k.sig.acc = in == kdecl::dtype::any ? kdecl::dtype::any : default_accumulator(in);
      k.sig.compute = in;
    });
  }
  // The multiply's precision: tf32 lets fp32 data use tensor cores (set after dtype()).
  constexpr grouped_conv_decl compute(kdecl::dtype c) const { return with([&](key_type& k) { k.sig.compute = c; }); }
  constexpr grouped_conv_decl accumulator(kdecl::dtype acc) const { return with([&](key_type& k) { k.sig.acc = acc; }); }
  constexpr grouped_conv_decl layout(conv_layout l) const { return with([&](key_type& k) { k.sig.lay = l; }); }
  constexpr grouped_conv_decl specialization(conv_specialization s) const {
    return with([&](key_type& k) { k.sig.spec = s; });
  }
  constexpr grouped_conv_decl tile(int_or_any m, int_or_any n, int_or_any k) const {
    return with([&](key_type& x) { x.algo.tile = {m.value, n.value, k.value}; });
  }
  constexpr grouped_conv_decl tile(any_t) const { return tile(any, any, any); }
  constexpr grouped_conv_decl warps(int_or_any m, int_or_any n, int_or_any k) const {
    return with([&](key_type& x) { x.algo.warps = {m.value, n.value, k.value}; });
  }
  constexpr grouped_conv_decl warps(any_t) const { return warps(any, any, any); }
  constexpr grouped_conv_decl warp_tile(int_or_any m, int_or_any n, int_or_any k) const {
    return with([&](key_type& x) { x.algo.warp_tile = {m.value, n.value, k.value}; });
  }
  constexpr grouped_conv_decl warp_tile(any_t) const { return warp_tile(any, any, any); }
  constexpr grouped_conv_decl pipeline(kdecl::pipeline p) const { return with([&](key_type& k) { k.algo.pipe = p; }); }
  constexpr grouped_conv_decl stages(int_or_any n) const { return with([&](key_type& k) { k.algo.stages = n.value; }); }
  constexpr grouped_conv_decl epilogue(kdecl::epilogue e) const { return with([&](key_type& k) { k.algo.epi = e; }); }
  constexpr grouped_conv_decl scheduler(kdecl::scheduler s) const {
    return with([&](key_type& k) { k.algo.sched = s; });
  }
  // Elements per global access of input, weight and output (0: the pipeline's default width).
  constexpr grouped_conv_decl vector_sizes(int in, int wei, int out) const {
    return with([&](key_type& k) {
      k.algo.vector_in = in;
      k.algo.vector_wei = wei;
      k.algo.vector_out = out;
    });
  }
  // The fused forward epilogue: out = act(conv + bias + residual), each part optional
  // (grouped_conv_key.hpp conv_fusion).
  constexpr grouped_conv_decl bias() const { return with([&](key_type& k) { k.sig.fuse.bias = true; }); }
  constexpr grouped_conv_decl residual() const { return with([&](key_type& k) { k.sig.fuse.residual = true; }); }
  constexpr grouped_conv_decl activation(elementwise act) const {
    return with([&](key_type& k) { k.sig.fuse.act = act; });
  }
  // The fused epilogue read from each problem at run time (one kernel for every fusion; the host).
  constexpr grouped_conv_decl dynamic_fusion() const {
    return with([&](key_type& k) { k.sig.fuse.dynamic = true; });
  }
  constexpr grouped_conv_decl groups_to_merge(int g) const {
    return with([&](key_type& k) { k.algo.groups_to_merge = g; });
  }

  constexpr const key_type& key() const { return key_; }

 private:
  key_type key_{};
};

constexpr grouped_conv_decl grouped_conv() { return {}; }

}  // namespace kdecl::dsl
