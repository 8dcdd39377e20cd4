// The operations the DSL knows, as a type list of their key types (in op_kind
// order), and the per-operation hooks the set machinery calls: expansion,
// candidate count, and the field order used to de-duplicate.
#pragma once

#include <array>
#include <utility>
#include <boost/mp11.hpp>

#include "kdecl/dsl/conv_rules.hpp"
#include "kdecl/dsl/fmha_rules.hpp"
#include "kdecl/dsl/gemm_expand.hpp"

namespace kdecl::dsl {

using operation_keys = boost::mp11::mp_list<gemm_key, grouped_conv_key, fmha_key>;
static_assert(boost::mp11::mp_size<operation_keys>::value == names::op_kind.size(),
              "one key type per op_kind, in op_kind order");

template <class Key>
inline constexpr op_kind op_kind_of = static_cast<op_kind>(boost::mp11::mp_find<operation_keys, Key>::value);
template <op_kind K>
using key_of = boost::mp11::mp_at_c<operation_keys, static_cast<std::size_t>(K)>;

static_assert(op_kind_of<gemm_key> == op_kind::gemm && op_kind_of<grouped_conv_key> == op_kind::grouped_conv &&
              op_kind_of<fmha_key> == op_kind::fmha);

// ---- expansion hooks -------------------------------------------------------------
// expand_declaration: every valid key to sink, with diagnostics (slow path).
// count_declaration:  how many valid keys; on none, the diagnostics of the slow path.
// collect_declaration: every valid key to sink, no diagnostics (after counting).
using gemm_expansion::no_extra_rule;

template <class Sink>
constexpr gemm_expansion::outcome expand_declaration(const gemm_key& d, arch_id t, Sink&& sink) {
  return gemm_expansion::expand(d, t, no_extra_rule, sink);
}
template <class Sink>
constexpr gemm_expansion::outcome expand_declaration(const grouped_conv_key& d, arch_id t, Sink&& sink) {
  return conv_expansion::expand(d, t, sink);
}
template <class Sink>
constexpr gemm_expansion::outcome expand_declaration(const fmha_key& d, arch_id t, Sink&& sink) {
  return fmha_expansion::expand(d, t, sink);
}

constexpr gemm_expansion::outcome count_declaration(const gemm_key& d, arch_id t) {
  return gemm_expansion::count(d, t, no_extra_rule);
}
constexpr gemm_expansion::outcome count_declaration(const grouped_conv_key& d, arch_id t) {
  return conv_expansion::count(d, t);
}
constexpr gemm_expansion::outcome count_declaration(const fmha_key& d, arch_id t) {
  return fmha_expansion::expand(d, t, [](const fmha_key&) {});
}

template <class Sink>
constexpr void collect_declaration(const gemm_key& d, arch_id t, Sink&& sink) {
  gemm_expansion::collect(d, t, no_extra_rule, sink);
}
template <class Sink>
constexpr void collect_declaration(const grouped_conv_key& d, arch_id t, Sink&& sink) {
  conv_expansion::collect(d, t, sink);
}
template <class Sink>
constexpr void collect_declaration(const fmha_key& d, arch_id t, Sink&& sink) {
  fmha_expansion::expand(d, t, sink);
}

constexpr long candidate_count(const gemm_key& d, arch_id t) { return gemm_expansion::candidate_count(d, t); }
constexpr long candidate_count(const grouped_conv_key& d, arch_id t) { return conv_expansion::candidate_count(d, t); }
constexpr long candidate_count(const fmha_key& d, arch_id t) { return fmha_expansion::candidate_count(d, t); }

// ---- which targets kdecl builds kernels for ---------------------------------------
// The tables may accept more (dsl::expand_legal validates without building).
constexpr bool kernels_built(const gemm_key*, const arch::arch_spec& s) { return s.kernels_available; }
constexpr bool kernels_built(const grouped_conv_key*, const arch::arch_spec& s) { return s.conv_kernels_available(); }
constexpr bool kernels_built(const fmha_key*, const arch::arch_spec&) { return false; }

// ---- whether two declarations can yield a common key ------------------------------
// False only when a field that expansion copies from the declaration differs
// between the two (then de-duplication skips the pair); true otherwise.
constexpr bool may_share_keys(const gemm_key& x, const gemm_key& y) {
  const auto& a = x.sig;
  const auto& b = y.sig;
  auto both_set_and_differ = [](auto u, auto v, auto wildcard) { return u != wildcard && v != wildcard && u != v; };
  if (!(a.lay == b.lay) || a.variant != b.variant || a.ew != b.ew || a.num_d != b.num_d ||
      x.algo.index_bits != y.algo.index_bits)
    return false;
  for (auto [u, v] : {std::pair{a.a, b.a}, std::pair{a.b, b.b}, std::pair{a.c, b.c}, std::pair{a.acc, b.acc},
                      std::pair{a.compute, b.compute}})
    if (both_set_and_differ(u, v, dtype::any)) return false;
  return !both_set_and_differ(x.algo.pipe, y.algo.pipe, pipeline::any);
}
constexpr bool may_share_keys(const grouped_conv_key&, const grouped_conv_key&) { return true; }
constexpr bool may_share_keys(const fmha_key&, const fmha_key&) { return true; }

// ---- total order over keys (field by field), for de-duplication -----------------
template <class E>
constexpr int ord(E e) { return static_cast<int>(e); }

constexpr auto order_fields(const gemm_key& k) {
  const auto& s = k.sig;
  const auto& a = k.algo;
  return std::array<int, 34>{ord(a.arch), ord(s.a), ord(s.b), ord(s.c), ord(s.acc), ord(s.compute),
                             ord(s.lay.a), ord(s.lay.b), ord(s.lay.c), ord(s.variant), ord(s.ew), s.num_d,
                             ord(a.pipe), a.tile.m, a.tile.n, a.tile.k, a.warps.m, a.warps.n, a.warps.k,
                             a.warp_tile.m, a.warp_tile.n, a.warp_tile.k, a.stages, ord(a.epi), ord(a.sched),
                             ord(a.pad_m), ord(a.pad_n), ord(a.pad_k), a.vector_bytes, a.cluster_m, a.cluster_n,
                             0, 0, 0};
}
constexpr auto order_fields(const grouped_conv_key& k) {
  const auto& s = k.sig;
  const auto& a = k.algo;
  return std::array<int, 28>{ord(a.arch), ord(s.dir), s.ndim, ord(s.in), ord(s.wei), ord(s.out), ord(s.acc),
                             ord(s.lay), ord(s.spec), ord(a.pipe), a.tile.m, a.tile.n, a.tile.k, a.warps.m,
                             a.warps.n, a.warps.k, a.warp_tile.m, a.warp_tile.n, a.warp_tile.k, a.stages,
                             ord(a.epi), ord(a.sched), a.vector_in, a.vector_wei, a.vector_out,
                             a.groups_to_merge, 0, 0};
}
constexpr auto order_fields(const fmha_key& k) {
  const auto& s = k.sig;
  const auto& a = k.algo;
  return std::array<int, 40>{ord(a.arch), ord(s.family), ord(s.qkv), ord(s.o), s.hdim_q, s.hdim_v, ord(s.mask),
                             ord(s.bias), ord(s.mode), ord(s.v_layout), s.lse, s.dropout, s.logits_soft_cap,
                             ord(a.pipe), a.tile.m0, a.tile.n0, a.tile.k0, a.tile.n1, a.tile.k1, a.tile.k0max,
                             a.warps0.m, a.warps0.n, a.warps0.k, a.warps1.m, a.warps1.n, a.warps1.k,
                             a.warp_tile0.m, a.warp_tile0.n, a.warp_tile0.k, a.warp_tile1.m, a.warp_tile1.n,
                             a.warp_tile1.k, ord(a.pad_s), ord(a.pad_sk), ord(a.pad_d), ord(a.pad_dv),
                             a.block_per_cu, s.sink, a.stages, 0};
}

}  // namespace kdecl::dsl
