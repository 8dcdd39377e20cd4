// A set's expansion in pieces: one constant evaluation per (target, declaration).
//
// Compilers cap the work of one constant evaluation (clang and hipcc:
// -fconstexpr-steps, 1,048,576 by default; g++: -fconstexpr-ops-limit, 2^25;
// nvcc: -Xcudafe --max_cost_constexpr_call). Evaluating a whole set at once makes
// that work grow with the set: four wildcard declarations on sm_90 (5,444 keys)
// exceed clang's default. Here every piece -- one declaration on one target -- is
// its own variable template, so the work of one evaluation is bounded by one
// declaration's expansion on one target, whatever the number of declarations or
// targets (docs/dsl.md, "Set size and compiler limits"):
//
//   report<Set, T, D>        validates and counts (no key stored)
//   keys<Set, T, D>          the piece's keys, std::array<Key, count>
//   fingerprints<Set, T, D>  (key hash, index) sorted, when a set may repeat keys
//   repeats<Set, T, D, E>    which keys of piece D also come from piece E < D
//
// A key can repeat only across declarations of one target (a declaration never
// yields a key twice), so de-duplication compares pieces pairwise, each pair in
// its own evaluation too, by merging their sorted fingerprints.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kdecl/dsl/describe.hpp"
#include "kdecl/dsl/operations.hpp"

namespace kdecl::dsl::pieces {

template <const auto& Set>
using key_type_of = typename std::remove_cvref_t<decltype(Set)>::key_type;

// ---- validation and count ---------------------------------------------------------

// What one piece yields before any key is stored; an error's text names the declaration.
struct piece_report {
  diagnostic error{};
  message text{};
  long count = 0;  // valid keys
};

template <class Set>
constexpr piece_report report_piece(const Set& set, std::size_t t, std::size_t d) {
  piece_report r{};
  const arch_id target = set.targets[t];
  const auto out = count_declaration(set.decls[d], target);
  if (out.error.ok()) {
    r.count = out.produced;
    return r;
  }
  r.error = out.error;
  r.error.v[3] = static_cast<long>(d);
  if (r.error.r == rule::wildcards_leave_no_valid_kernel) {
    r.error.v[0] = static_cast<long>(d);
    r.text = describe(r.error);
    if (!out.cause.ok()) r.text << "; e.g. " << describe(out.cause).view();
  } else {
    r.text << "declaration " << static_cast<long>(d) << " for " << to_string(target) << ": "
           << describe(out.error).view();
  }
  return r;
}

template <const auto& Set, std::size_t T, std::size_t D>
inline constexpr piece_report report = report_piece(Set, T, D);

// The first index at which the set lists target T: a target listed twice adds no key.
template <class Set>
constexpr std::size_t first_listing(const Set& set, std::size_t t) {
  std::size_t first = 0;
  while (set.targets[first] != set.targets[t]) ++first;
  return first;
}

// ---- keys -------------------------------------------------------------------------

template <std::size_t N, class Set>
constexpr auto collect_piece(const Set& set, std::size_t t, std::size_t d) {
  std::array<typename Set::key_type, N> out{};
  typename Set::key_type* to = out.data();  // a pointer: fewer evaluation steps per key than an index
  collect_declaration(set.decls[d], set.targets[t], [&](const auto& k) { *to++ = k; });
  return out;
}

template <const auto& Set, std::size_t T, std::size_t D>
inline constexpr auto keys = collect_piece<static_cast<std::size_t>(report<Set, T, D>.count)>(Set, T, D);

// ---- de-duplication -----------------------------------------------------------------

// FNV-1a over a key's fields: equal keys hash equal.
template <class Key>
constexpr std::uint64_t key_hash(const Key& k) {
  std::uint64_t h = 1469598103934665603ull;
  for (int f : order_fields(k)) {
    h ^= static_cast<std::uint64_t>(static_cast<unsigned>(f));
    h *= 1099511628211ull;
  }
  return h;
}

struct fingerprint {
  std::uint64_t hash;
  std::uint32_t index;  // into the piece's keys
};

template <std::size_t N, class Key>
constexpr std::array<fingerprint, N> sorted_fingerprints(const std::array<Key, N>& ks) {
  std::array<fingerprint, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = {key_hash(ks[i]), static_cast<std::uint32_t>(i)};
  std::sort(out.begin(), out.end(), [](const fingerprint& x, const fingerprint& y) { return x.hash < y.hash; });
  return out;
}

template <const auto& Set, std::size_t T, std::size_t D>
inline constexpr auto fingerprints = sorted_fingerprints(keys<Set, T, D>);

// A bit per key of a piece.
template <std::size_t N>
struct key_bits {
  std::array<std::uint64_t, (N + 63) / 64> words{};
  constexpr bool test(std::size_t i) const { return (words[i / 64] >> (i % 64) & 1u) != 0; }
  constexpr void set(std::size_t i) { words[i / 64] |= std::uint64_t{1} << (i % 64); }
};

// Which keys of piece D (of target T) piece E of the same target also yields:
// a merge of the two sorted fingerprint lists, keys compared where hashes meet.
template <const auto& Set, std::size_t T, std::size_t D, std::size_t E>
constexpr auto find_repeats() {
  constexpr std::size_t n = keys<Set, T, D>.size();
  key_bits<n> out{};
  const auto& fd = fingerprints<Set, T, D>;
  const auto& fe = fingerprints<Set, T, E>;
  const auto& kd = keys<Set, T, D>;
  const auto& ke = keys<Set, T, E>;
  std::size_t j = 0;
  for (std::size_t i = 0; i < fd.size(); ++i) {
    while (j < fe.size() && fe[j].hash < fd[i].hash) ++j;
    for (std::size_t m = j; m < fe.size() && fe[m].hash == fd[i].hash; ++m)
      if (kd[fd[i].index] == ke[fe[m].index]) {
        out.set(fd[i].index);
        break;
      }
  }
  return out;
}

template <const auto& Set, std::size_t T, std::size_t D, std::size_t E>
inline constexpr auto repeats = find_repeats<Set, T, D, E>();

// Keys can repeat only across declarations of one target.
template <class Set>
constexpr bool may_repeat(const Set& set) {
  return set.decls.size() > 1;
}

// The repeats of piece D in piece E, or nothing when their declarations differ in
// a field both fix (operations.hpp: may_share_keys), which skips both fingerprints.
template <const auto& Set, std::size_t T, std::size_t D, std::size_t E>
constexpr const key_bits<keys<Set, T, D>.size()>* repeats_if_shared() {
  if constexpr (may_share_keys(Set.decls[D], Set.decls[E]))
    return &repeats<Set, T, D, E>;
  else
    return nullptr;
}

// The keys piece (T, D) contributes: all of them, less those an earlier
// declaration of the same target already yields.
template <const auto& Set, std::size_t T, std::size_t D, std::size_t... E>
constexpr auto kept_bits(std::index_sequence<E...>) {
  constexpr std::size_t n = keys<Set, T, D>.size();
  key_bits<n> kept{};
  for (std::size_t i = 0; i < n; ++i) kept.set(i);
  const std::array<const key_bits<n>*, sizeof...(E)> earlier{repeats_if_shared<Set, T, D, E>()...};
  for (const key_bits<n>* r : earlier)
    if (r != nullptr)
      for (std::size_t w = 0; w < kept.words.size(); ++w) kept.words[w] &= ~r->words[w];
  return kept;
}

template <const auto& Set, std::size_t T, std::size_t D>
inline constexpr auto kept = kept_bits<Set, T, D>(std::make_index_sequence<may_repeat(Set) ? D : 0>{});

template <std::size_t N>
constexpr std::size_t count_bits(const key_bits<N>& b) {
  std::size_t n = 0;
  for (std::uint64_t w : b.words)
    for (; w != 0; w &= w - 1) ++n;
  return n;
}

template <const auto& Set, std::size_t T, std::size_t D>
inline constexpr std::size_t kept_count = count_bits(kept<Set, T, D>);

}  // namespace kdecl::dsl::pieces
