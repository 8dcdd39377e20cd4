// Kernel sets and their expansion.
//
//   inline constexpr auto my_set = kdecl::dsl::kernel_set(
//       targets(sm_90, gfx942), gemm().dtype(fp16).tile(128, 128, 64).warps(any));
//   constexpr auto keys = kdecl::dsl::expand<my_set>();  // std::array<gemm_key, N>
//
// A set holds one operation's declarations for a list of targets. expand()
// turns it into the concrete keys, in a deterministic order (targets in the
// order given; per target, declarations in the order given; per declaration,
// table order of each wildcard), without duplicates (the first occurrence stays).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "kdecl/dsl/declaration_error.hpp"
#include "kdecl/dsl/describe.hpp"
#include "kdecl/dsl/expansion_pieces.hpp"
#include "kdecl/dsl/operations.hpp"

namespace kdecl::dsl {

template <std::size_t N>
struct target_list {
  std::array<arch_id, N> ids;
};

template <class... A>
  requires(std::is_same_v<A, arch_id> && ...)
constexpr target_list<sizeof...(A)> targets(A... a) {
  return {{a...}};
}

// The structural value of a set: usable as a template argument or referenced by expand<>.
template <class Key, std::size_t NT, std::size_t N>
struct kernel_set_value {
  using key_type = Key;
  static constexpr op_kind op = op_kind_of<Key>;
  std::array<arch_id, NT> targets;
  std::array<Key, N> decls;
};

namespace detail {

template <class Key0, class... Keys>
consteval message mixed_ops_message(std::size_t index, op_kind found) {
  message m{};
  m << "a kernel set holds one operation: declaration " << static_cast<long>(index) << " is "
    << to_string(found) << " but the set is " << to_string(op_kind_of<Key0>);
  return m;
}

}  // namespace detail

template <std::size_t NT, class First, class... Rest>
constexpr auto kernel_set(target_list<NT> t, const First& first, const Rest&... rest) {
  namespace mp = boost::mp11;
  using key0 = typename First::key_type;
  using keys = mp::mp_list<key0, typename Rest::key_type...>;
  constexpr std::size_t odd_one = mp::mp_find_if_q<keys, mp::mp_not_fn_q<mp::mp_bind_front<std::is_same, key0>>>::value;
  if constexpr (odd_one < mp::mp_size<keys>::value) {
    using odd_key = mp::mp_at_c<keys, odd_one>;
    static_assert(declaration_error<rule::one_operation_per_set, arch_id::host, static_cast<long>(odd_one),
                                    static_cast<long>(op_kind_of<odd_key>), static_cast<long>(op_kind_of<key0>),
                                    detail::mixed_ops_message<key0>(odd_one, op_kind_of<odd_key>)>::raised);
    return kernel_set_value<key0, NT, 0>{t.ids, {}};
  } else if constexpr (NT == 0) {
    static_assert(declaration_error<rule::target_list_empty, arch_id::host, static_cast<long>(NT), 0, 0,
                                    message{"targets() names no target"}>::raised);
    return kernel_set_value<key0, NT, 0>{t.ids, {}};
  } else {
    return kernel_set_value<key0, NT, 1 + sizeof...(Rest)>{t.ids, {first.key(), rest.key()...}};
  }
}

// A set from an array of declarations, e.g. made by a constexpr function that
// walks signature choices (instances/fmha_host.cpp): a generator of declarations
// is ordinary code, no macro needed.
template <std::size_t NT, class Decl, std::size_t N>
constexpr auto kernel_set(target_list<NT> t, const std::array<Decl, N>& decls) {
  using key = typename Decl::key_type;
  if constexpr (NT == 0) {
    static_assert(declaration_error<rule::target_list_empty, arch_id::host, static_cast<long>(NT), 0, 0,
                                    message{"targets() names no target"}>::raised);
    return kernel_set_value<key, NT, 0>{t.ids, {}};
  } else {
    kernel_set_value<key, NT, N> v{t.ids, {}};
    for (std::size_t i = 0; i < N; ++i) v.decls[i] = decls[i].key();
    return v;
  }
}

namespace detail {

// The first error of a whole set in one pass (for_each_key(), at run time;
// the compile-time expansion checks piece by piece).
template <class Set>
constexpr pieces::piece_report report(const Set& set) {
  for (std::size_t t = 0; t < set.targets.size(); ++t)
    for (std::size_t d = 0; d < set.decls.size(); ++d)
      if (pieces::piece_report r = pieces::report_piece(set, t, d); !r.error.ok()) return r;
  return {};
}

// Calls f(key) for every valid key of the set, duplicates included, in set order.
template <class Set, class F>
constexpr void for_each_raw_key(const Set& set, F&& f) {
  for (arch_id target : set.targets)
    for (const auto& d : set.decls) collect_declaration(d, target, f);
}

// kdecl builds GEMM and convolution kernels on targets whose tables say so
// (kernels_built); FMHA kernels per pipeline (piece_without_kernel below).
template <class Set>
constexpr diagnostic first_target_without_kernels(const Set& set) {
  for (arch_id target : set.targets)
    if (!kernels_built(static_cast<const typename Set::key_type*>(nullptr), spec_of(target))) {
      diagnostic d{};
      d.r = rule::no_kernel_built_for_arch;
      d.arch = target;
      d.v[0] = static_cast<long>(Set::op);
      return d;
    }
  return {};
}

// ---- the expansion, piece by piece (expansion_pieces.hpp) -------------------------

// Which targets an expansion stores keys for: all of them, or those of one backend.
struct target_filter {
  bool all = true;
  backend only = backend::host;
  constexpr bool selects(arch_id a) const { return all || backend_of(a) == only; }
};

// The first error of the set in set order (targets, then declarations), then,
// when kernels are required, the first target or pipeline kdecl builds no kernel for.
// Every target is checked whatever the filter: each piece's check is one count.
struct set_check {
  diagnostic error{};
  long v[3]{};  // the values the compile error shows
  message text{};
};

template <const auto& Set, std::size_t P>
constexpr const pieces::piece_report* report_at() {
  return &pieces::report<Set, P / Set.decls.size(), P % Set.decls.size()>;
}

// FMHA kernels are built per pipeline: each key of a piece is checked (one evaluation per piece).
template <class Set>
constexpr diagnostic piece_without_kernel(const Set& set, std::size_t t, std::size_t d) {
  diagnostic found{};
  collect_declaration(set.decls[d], set.targets[t], [&](const fmha_key& k) {
    if (found.ok()) found = fmha_expansion::kernel_missing(k);
  });
  return found;
}
template <const auto& Set, std::size_t P>
inline constexpr diagnostic unbuilt_at = piece_without_kernel(Set, P / Set.decls.size(), P % Set.decls.size());

template <const auto& Set, bool RequireKernels, std::size_t... P>
constexpr set_check first_error(std::index_sequence<P...>) {
  const std::array<const pieces::piece_report*, sizeof...(P)> reports{report_at<Set, P>()...};
  for (const pieces::piece_report* r : reports)
    if (!r->error.ok()) return {r->error, {r->error.v[0], r->error.v[1], r->error.v[2]}, r->text};
  if constexpr (RequireKernels) {
    if constexpr (std::remove_cvref_t<decltype(Set)>::op == op_kind::fmha) {
      const std::array<diagnostic, sizeof...(P)> unbuilt{unbuilt_at<Set, P>...};
      for (const diagnostic& d : unbuilt)
        if (!d.ok()) return {d, {d.v[0], d.v[3], 0}, describe(d)};
    } else {
      const diagnostic d = first_target_without_kernels(Set);
      if (!d.ok()) return {d, {d.v[0], d.v[3], 0}, describe(d)};
    }
  }
  return {};
}

template <const auto& Set>
inline constexpr std::size_t piece_count = Set.targets.size() * Set.decls.size();

template <const auto& Set, bool RequireKernels>
inline constexpr set_check checked = first_error<Set, RequireKernels>(std::make_index_sequence<piece_count<Set>>{});

// Where the kept keys of one piece are (nothing for a target the filter leaves
// out, or one listed before).
template <class Key>
struct piece_view {
  const Key* keys = nullptr;
  const std::uint64_t* kept = nullptr;  // a bit per key
  std::size_t size = 0;
  std::size_t kept_count = 0;
};

template <const auto& Set, target_filter Filter, std::size_t P>
constexpr piece_view<pieces::key_type_of<Set>> view_at() {
  constexpr std::size_t t = P / Set.decls.size(), d = P % Set.decls.size();
  if constexpr (Filter.selects(Set.targets[t]) && pieces::first_listing(Set, t) == t)
    return {pieces::keys<Set, t, d>.data(), pieces::kept<Set, t, d>.words.data(), pieces::keys<Set, t, d>.size(),
            pieces::kept_count<Set, t, d>};
  else
    return {};
}

template <const auto& Set, target_filter Filter, std::size_t... P>
constexpr auto make_views(std::index_sequence<P...>) {
  return std::array<piece_view<pieces::key_type_of<Set>>, sizeof...(P)>{view_at<Set, Filter, P>()...};
}
template <const auto& Set, target_filter Filter>
inline constexpr auto views = make_views<Set, Filter>(std::make_index_sequence<piece_count<Set>>{});

template <const auto& Set, target_filter Filter>
constexpr std::size_t kept_total() {
  std::size_t n = 0;
  for (const auto& v : views<Set, Filter>) n += v.kept_count;
  return n;
}

// The kept keys of the selected pieces, in set order (one evaluation of a few steps per key).
template <const auto& Set, target_filter Filter>
constexpr auto gather() {
  using key_type = pieces::key_type_of<Set>;
  std::array<key_type, kept_total<Set, Filter>()> out{};
  key_type* to = out.data();
  for (const auto& v : views<Set, Filter>)
    for (std::size_t i = 0; i < v.size; ++i)
      if ((v.kept[i / 64] >> (i % 64) & 1u) != 0) *to++ = v.keys[i];
  return out;
}

// Fails compilation with the first error's rule, target, values and message,
// or gathers the keys the filter selects.
template <const auto& Set, target_filter Filter, bool RequireKernels>
consteval auto expand_set() {
  constexpr set_check c = checked<Set, RequireKernels>;
  if constexpr (!c.error.ok()) {
    static_assert(declaration_error<c.error.r, c.error.arch, c.v[0], c.v[1], c.v[2], c.text>::raised);
    return std::array<pieces::key_type_of<Set>, 0>{};
  } else {
    return gather<Set, Filter>();
  }
}

}  // namespace detail

// The concrete keys of a set -- what DECL_KERNEL_SET builds -- or a compile
// error naming the rule that failed. A target the tables accept but kdecl builds
// no kernel for (kernels_built: GEMM where kernels_available, convolution where a
// pipeline offers it) is an error: rule::no_kernel_built_for_arch; so is an attention
// pipeline whose kernel is not built (rule::no_kernel_built_for_fmha_pipeline).
// Evaluated in pieces (expansion_pieces.hpp): the work of one constant evaluation
// is bounded by one declaration on one target, however large the set.
template <const auto& Set>
consteval auto expand() {
  return detail::expand_set<Set, detail::target_filter{}, true>();
}

// The keys of the targets backend B builds, in set order, after validating every
// target as expand() does: what a translation unit compiled for B registers. The
// other targets are validated (counted) but not expanded.
template <const auto& Set, backend B>
consteval auto expand_for() {
  return detail::expand_set<Set, detail::target_filter{false, B}, true>();
}

// Every key the tables allow, whether or not kdecl builds a kernel for its target:
// validation and exploration (tools, tests, table studies).
template <const auto& Set>
consteval auto expand_legal() {
  return detail::expand_set<Set, detail::target_filter{}, false>();
}

// Visits every key expand_legal() would hold (duplicates included) without
// storing them; usable at run time too (table studies, agreement tests).
// Returns the declaration error instead when the set is invalid.
template <class Set, class F>
constexpr diagnostic for_each_key(const Set& set, F&& f) {
  const pieces::piece_report r = detail::report(set);
  if (!r.error.ok()) return r.error;
  detail::for_each_raw_key(set, f);
  return {};
}

// How many candidate configurations expanding the set considers (for reports).
template <const auto& Set>
consteval long candidates_considered() {
  long n = 0;
  for (arch_id target : Set.targets)
    for (const auto& d : Set.decls) n += candidate_count(d, target);
  return n;
}

}  // namespace kdecl::dsl
