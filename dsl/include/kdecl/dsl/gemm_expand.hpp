// Expansion of one GEMM declaration on one target: every wildcard field walks
// the values the target's tables offer (a tile wildcard walks the pipeline's
// tile sweep), the rules prune level by level, and each surviving concrete key
// goes to a sink. A rule failure that reads only explicit fields is fatal (it
// would reject every expansion); other failures silently drop the candidate.
#pragma once

#include <type_traits>

#include "kdecl/dsl/describe.hpp"
#include "kdecl/dsl/gemm_rules.hpp"

namespace kdecl::dsl::gemm_expansion {

using namespace gemm_rules;

// Result of expanding one declaration on one target.
struct outcome {
  diagnostic error{};   // fatal rule failure, or wildcards_leave_no_valid_kernel
  diagnostic cause{};   // for wildcards_leave_no_valid_kernel: the last rejection seen
  long produced = 0;    // valid keys sent to the sink
  long considered = 0;  // full candidates the declaration spans (product of all choice counts)
};

// The rule applied last to each candidate by operations built on the GEMM rules
// (convolution); GEMM itself has none, which lets counting skip the leaves.
struct no_extra_rule_t {
  constexpr diagnostic operator()(const gemm_key&) const { return {}; }
};
inline constexpr no_extra_rule_t no_extra_rule{};

// How a walk over the candidates runs:
//   diagnose: records why candidates fail (first fatal error, last rejection) and
//             stops at a fatal one; the slow path, taken only when a declaration
//             yields no key (a fatal failure rejects every candidate, so a
//             declaration with keys has none).
//   count:    counts the valid keys; rules whose inputs are fixed higher up are
//             evaluated once per node and cached, the innermost choices multiplied.
//   collect:  like count, but hands every valid key to the sink.
enum class walk_mode { diagnose, count, collect };

namespace detail {

template <bool Diagnose>
struct basic_walker {
  std::uint32_t wild;
  diagnostic fatal{};
  diagnostic last{};
  bool any_fatal = false;

  // True when d rejects the candidate; when diagnosing, records fatal (explicit-only) failures.
  constexpr bool rejects(const diagnostic& d) {
    if (d.ok()) return false;
    if constexpr (Diagnose) {
      if ((d.fields & wild) == 0 && !any_fatal) {
        fatal = d;
        any_fatal = true;
      }
      last = d;
    }
    return true;
  }
};
using walker = basic_walker<true>;

constexpr bool matches(int declared, int value) { return declared == any_int || declared == value; }

template <class E>
constexpr int count_bits(std::uint32_t set) {
  int n = 0;
  for (std::size_t i = 0; i < enum_count<E>(); ++i) n += (set >> i) & 1u;
  return n;
}

constexpr int popcount(std::uint32_t x) {
  int n = 0;
  for (; x != 0; x &= x - 1) ++n;
  return n;
}

}  // namespace detail

// Walks every candidate of `decl` on `target` (see walk_mode). Calls sink(key)
// for each valid concrete key (collect and diagnose); `extra(key)` is a further
// rule applied last.
template <walk_mode Mode, class Extra, class Sink>
constexpr outcome walk(const gemm_key& decl, arch_id target, Extra&& extra, Sink&& sink) {
  using detail::matches;
  using detail::popcount;
  constexpr bool diagnose = Mode == walk_mode::diagnose;
  constexpr bool trivial_extra = std::is_same_v<std::remove_cvref_t<Extra>, no_extra_rule_t>;
  const arch_spec& s = spec_of(target);
  detail::basic_walker<diagnose> w{wildcard_fields(decl)};
  outcome out{};
  gemm_key k = decl;
  k.algo.arch = target;
  const auto& da = decl.algo;
  const auto& dsig = decl.sig;
  // fail_here(d): true when d rejects the candidate; when diagnosing, a fatal
  // failure sets `stop` and the walk returns it.
  bool stop = false;
  auto fail_here = [&](const diagnostic& d) {
    if constexpr (diagnose) {
      if (!w.rejects(d)) return false;
      stop = w.any_fatal;
      return true;
    } else {
      return d.r != rule::ok;
    }
  };
  // Padding choices (a wildcard gives both kernels), in table order.
  tristate pads[8][3]{};
  int n_pads = 0;
  for (int p = 0; p < 8; ++p) {
    const tristate pm = static_cast<tristate>(p >> 2 & 1), pn = static_cast<tristate>(p >> 1 & 1),
                   pk = static_cast<tristate>(p & 1);
    if ((da.pad_m != tristate::any && da.pad_m != pm) || (da.pad_n != tristate::any && da.pad_n != pn) ||
        (da.pad_k != tristate::any && da.pad_k != pk))
      continue;
    pads[n_pads][0] = pm;
    pads[n_pads][1] = pn;
    pads[n_pads][2] = pk;
    ++n_pads;
  }

  if (da.pipe != pipeline::any && fail_here(check_pipeline(k, s))) {
    out.error = w.fatal;
    return out;
  }
  for (const pipeline_caps& c : s.pipelines) {
    if (da.pipe != pipeline::any && c.pipe != da.pipe) continue;
    k.algo.pipe = c.pipe;
    // ---- choices of the inner levels. When not diagnosing, the rules that read
    // only the pipeline (traits, cluster) run here once, as bit masks.
    const std::uint32_t epis = da.epi == epilogue::any ? c.epilogues : arch::bit(da.epi);
    const std::uint32_t scheds = da.sched == scheduler::any ? c.schedulers : arch::bit(da.sched);
    const bool cl_wild = da.cluster_m == any_int || da.cluster_n == any_int;
    const std::size_t ncl = cl_wild ? c.clusters.size() : 1;
    const std::size_t nv = da.vector_bytes == any_int ? c.vector_bytes.size() : 1;
    auto vector_of = [&](std::size_t vi) {
      return da.vector_bytes == any_int ? c.vector_bytes[vi]
             : da.vector_bytes == 0     ? c.vector_default
                                        : da.vector_bytes;
    };
    const int d_tile[3] = {da.tile.m, da.tile.n, da.tile.k};
    const std::span<const int> sweep[3] = {c.tile_m_sweep, c.tile_n_sweep, c.tile_k_sweep};
    const std::size_t n_tile[3] = {d_tile[0] == any_int ? sweep[0].size() : 1,
                                   d_tile[1] == any_int ? sweep[1].size() : 1,
                                   d_tile[2] == any_int ? sweep[2].size() : 1};
    auto set_tile = [&](int dim, std::size_t i) {
      const int v = d_tile[dim] == any_int ? sweep[dim][i] : d_tile[dim];
      (dim == 0 ? k.algo.tile.m : dim == 1 ? k.algo.tile.n : k.algo.tile.k) = v;
    };
    std::uint32_t sched_ok[enum_count<epilogue>()]{};  // per epilogue: valid schedulers
    std::uint32_t cluster_ok = 0;                      // valid cluster choices, bit per index
    bool single_blocks_only = true;                    // no valid choice is a multicast cluster
    if constexpr (!diagnose) {
      for (std::size_t ei = 0; ei < enum_count<epilogue>(); ++ei) {
        if ((epis >> ei & 1u) == 0) continue;
        k.algo.epi = static_cast<epilogue>(ei);
        for (std::size_t si = 0; si < enum_count<scheduler>(); ++si) {
          if ((scheds >> si & 1u) == 0) continue;
          k.algo.sched = static_cast<scheduler>(si);
          if (check_traits(k, s, c).ok()) sched_ok[ei] |= 1u << si;
        }
      }
      for (std::size_t li = 0; li < ncl; ++li) {
        if (cl_wild) {
          const auto& cl = c.clusters[li];
          if (!matches(da.cluster_m, cl.m) || !matches(da.cluster_n, cl.n)) continue;
          k.algo.cluster_m = cl.m;
          k.algo.cluster_n = cl.n;
        }
        if (check_cluster(k, c).ok()) {
          cluster_ok |= 1u << li;
          if (k.algo.cluster_m * k.algo.cluster_n > 1) single_blocks_only = false;
        }
      }
      if (cluster_ok == 0) continue;
    }
    // ---- signature: explicit dtypes are checked as given; wildcards walk the offers
    const bool dtypes_explicit = dsig.a != dtype::any && dsig.b != dtype::any && dsig.acc != dtype::any &&
                                 dsig.compute != dtype::any;
    const std::size_t n_offers = dtypes_explicit ? 1 : c.dtypes.size();
    for (std::size_t oi = 0; oi < n_offers; ++oi) {
      if (!dtypes_explicit) {
        const dtype_offer& o = c.dtypes[oi];
        auto pick = [](dtype declared, dtype offered) { return declared == dtype::any ? offered : declared; };
        if (pick(dsig.a, o.a) != o.a || pick(dsig.b, o.b) != o.b || pick(dsig.acc, o.acc) != o.acc ||
            pick(dsig.compute, o.compute) != o.compute)
          continue;
        k.sig.a = o.a; k.sig.b = o.b; k.sig.acc = o.acc; k.sig.compute = o.compute;
      }
      const dtype_offer* offer = find_offer(c, k.sig);
      const std::uint32_t c_choices =
          dsig.c != dtype::any ? arch::bit(dsig.c) : (offer ? offer->c_types : arch::bit(dtype::any));
      for (std::size_t ci = 0; ci < enum_count<dtype>(); ++ci) {
        if ((c_choices >> ci & 1u) == 0) continue;
        k.sig.c = static_cast<dtype>(ci);
        if (fail_here(check_signature(k, s, c))) {
          if (stop) { out.error = w.fatal; return out; }
          continue;
        }
        offer = find_offer(c, k.sig);
        std::uint32_t width_ok = 0;  // access widths valid for these dtypes
        if constexpr (!diagnose) {
          for (std::size_t vi = 0; vi < nv; ++vi) {
            k.algo.vector_bytes = vector_of(vi);
            if (check_vector_width(k, c).ok()) width_ok |= 1u << vi;
          }
          if (width_ok == 0) continue;
        }
        // ---- warps per block
        const std::size_t n_warps = da.warps.concrete() ? 1 : c.warps.size();
        for (std::size_t wi = 0; wi < n_warps; ++wi) {
          if (da.warps.concrete()) {
            k.algo.warps = da.warps;
          } else {
            const shape3& wp = c.warps[wi];
            if (!matches(da.warps.m, wp.m) || !matches(da.warps.n, wp.n) || !matches(da.warps.k, wp.k)) continue;
            k.algo.warps = {wp.m, wp.n, wp.k};
          }
          if (fail_here(check_warps(k, s, c))) {
            if (stop) { out.error = w.fatal; return out; }
            continue;
          }
          // ---- warp tile
          const std::span<const shape3> tiles = offer->warp_tiles;
          const std::size_t n_wt = da.warp_tile.concrete() ? 1 : tiles.size();
          for (std::size_t ti = 0; ti < n_wt; ++ti) {
            if (da.warp_tile.concrete()) {
              k.algo.warp_tile = da.warp_tile;
            } else {
              const shape3& t = tiles[ti];
              if (!matches(da.warp_tile.m, t.m) || !matches(da.warp_tile.n, t.n) || !matches(da.warp_tile.k, t.k))
                continue;
              k.algo.warp_tile = {t.m, t.n, t.k};
            }
            if (fail_here(check_warp_tile(k, c))) {
              if (stop) { out.error = w.fatal; return out; }
              continue;
            }
            // ---- block tile: each extent's own rules once per sweep value (bit masks)
            std::uint32_t dim_ok[3]{};
            if constexpr (!diagnose) {
              for (int dim = 0; dim < 3; ++dim)
                for (std::size_t i = 0; i < n_tile[dim]; ++i) {
                  set_tile(dim, i);
                  if (check_tile_dim(k, c, offer, dim).ok()) dim_ok[dim] |= 1u << i;
                }
              if (dim_ok[0] == 0 || dim_ok[1] == 0 || dim_ok[2] == 0) continue;
            }
            auto tile_fails = [&](int dim, std::size_t i) {
              set_tile(dim, i);
              if constexpr (diagnose) return fail_here(check_tile_dim(k, c, offer, dim));
              return (dim_ok[dim] >> i & 1u) == 0;
            };
            for (std::size_t im = 0; im < n_tile[0]; ++im) {
              if (tile_fails(0, im)) {
                if (stop) { out.error = w.fatal; return out; }
                continue;
              }
              for (std::size_t in = 0; in < n_tile[1]; ++in) {
                if (tile_fails(1, in)) {
                  if (stop) { out.error = w.fatal; return out; }
                  continue;
                }
                for (std::size_t ik = 0; ik < n_tile[2]; ++ik) {
                  if (tile_fails(2, ik) || fail_here(check_tile_cross(k, s, c))) {
                    if (stop) { out.error = w.fatal; return out; }
                    continue;
                  }
                  // ---- access widths valid for this tile
                  std::uint32_t vec_ok = 0;
                  if constexpr (!diagnose) {
                    for (std::size_t vi = 0; vi < nv; ++vi) {
                      if ((width_ok >> vi & 1u) == 0) continue;
                      k.algo.vector_bytes = vector_of(vi);
                      if (check_vector_rows(k).ok()) vec_ok |= 1u << vi;
                    }
                    if (vec_ok == 0) continue;
                  }
                  // ---- stages (0: default; any: the legal range)
                  const int s_lo = da.stages == any_int ? c.stages.min : (da.stages == 0 ? c.stages.def : da.stages);
                  const int s_hi = da.stages == any_int ? c.stages.max : s_lo;
                  for (int st = s_lo; st <= s_hi; ++st) {
                    k.algo.stages = st;
                    if (fail_here(check_stage_range(k, c))) {
                      if (stop) { out.error = w.fatal; return out; }
                      continue;
                    }
                    // ---- epilogue (shared memory depends on it) x scheduler
                    for (std::size_t ei = 0; ei < enum_count<epilogue>(); ++ei) {
                      if ((epis >> ei & 1u) == 0) continue;
                      k.algo.epi = static_cast<epilogue>(ei);
                      // Shared memory of the smallest schedule here; pingpong's (two consumers'
                      // epilogue strips) is checked with the scheduler below.
                      k.algo.sched = scheduler::intrawave;
                      if (fail_here(check_smem(k, s, c))) {
                        if (stop) { out.error = w.fatal; return out; }
                        continue;
                      }
                      constexpr std::uint32_t pingpong_bit = arch::bit(scheduler::pingpong);
                      if constexpr (Mode == walk_mode::count && trivial_extra) {
                        // Neither pingpong's nor a multicast cluster's rules (which read tiles,
                        // warps and layouts) apply below: count without walking.
                        if ((sched_ok[ei] & pingpong_bit) == 0 && single_blocks_only) {
                          out.produced += static_cast<long>(popcount(sched_ok[ei])) * popcount(vec_ok) *
                                          popcount(cluster_ok) * n_pads;
                          continue;
                        }
                      }
                      {
                        for (std::size_t si = 0; si < enum_count<scheduler>(); ++si) {
                          if ((scheds >> si & 1u) == 0) continue;
                          k.algo.sched = static_cast<scheduler>(si);
                          if constexpr (diagnose) {
                            if (fail_here(check_traits(k, s, c))) {
                              if (stop) { out.error = w.fatal; return out; }
                              continue;
                            }
                          } else if ((sched_ok[ei] >> si & 1u) == 0) {
                            continue;
                          }
                          if (k.algo.sched == scheduler::pingpong &&
                              (fail_here(check_schedule_warps(k)) || fail_here(check_smem(k, s, c)))) {
                            if (stop) { out.error = w.fatal; return out; }
                            continue;
                          }
                          // ---- access width (0: default; any: every offered width)
                          for (std::size_t vi = 0; vi < nv; ++vi) {
                            k.algo.vector_bytes = vector_of(vi);
                            if constexpr (diagnose) {
                              if (fail_here(check_vector(k, c))) {
                                if (stop) { out.error = w.fatal; return out; }
                                continue;
                              }
                            } else if ((vec_ok >> vi & 1u) == 0) {
                              continue;
                            }
                            // ---- cluster
                            for (std::size_t li = 0; li < ncl; ++li) {
                              if (cl_wild) {
                                const auto& cl = c.clusters[li];
                                if (!matches(da.cluster_m, cl.m) || !matches(da.cluster_n, cl.n)) continue;
                                k.algo.cluster_m = cl.m;
                                k.algo.cluster_n = cl.n;
                              }
                              if constexpr (diagnose) {
                                if (fail_here(check_cluster(k, c))) {
                                  if (stop) { out.error = w.fatal; return out; }
                                  continue;
                                }
                              } else if ((cluster_ok >> li & 1u) == 0) {
                                continue;
                              }
                              if (fail_here(check_cluster_kernel(k))) {
                                if (stop) { out.error = w.fatal; return out; }
                                continue;
                              }
                              if constexpr (!trivial_extra) {
                                if (fail_here(extra(k))) {
                                  if (stop) { out.error = w.fatal; return out; }
                                  continue;
                                }
                              }
                              if constexpr (Mode == walk_mode::count) {
                                out.produced += n_pads;
                              } else {
                                // ---- padding
                                for (int p = 0; p < n_pads; ++p) {
                                  k.algo.pad_m = pads[p][0];
                                  k.algo.pad_n = pads[p][1];
                                  k.algo.pad_k = pads[p][2];
                                  sink(k);
                                  ++out.produced;
                                }
                              }
                            }
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  if (out.produced == 0) {
    diagnostic e{};
    e.r = rule::wildcards_leave_no_valid_kernel;
    e.arch = target;
    e.pipe = da.pipe;
    e.a = dsig.a;
    e.b = dsig.b;
    out.error = e;
    out.cause = w.last;
  }
  return out;
}

// Full expansion with diagnostics (the slow path; see walk_mode::diagnose).
template <class Extra, class Sink>
constexpr outcome expand(const gemm_key& decl, arch_id target, Extra&& extra, Sink&& sink) {
  return walk<walk_mode::diagnose>(decl, target, extra, sink);
}

// The number of valid keys, and on none the diagnostics of the slow path.
template <class Extra>
constexpr outcome count(const gemm_key& decl, arch_id target, Extra&& extra) {
  auto none = [](const gemm_key&) {};
  outcome out = walk<walk_mode::count>(decl, target, extra, none);
  if (out.produced == 0) out = walk<walk_mode::diagnose>(decl, target, extra, none);
  return out;
}

// Hands every valid key to sink (no diagnostics: call after count()).
template <class Extra, class Sink>
constexpr void collect(const gemm_key& decl, arch_id target, Extra&& extra, Sink&& sink) {
  walk<walk_mode::collect>(decl, target, extra, sink);
}

// The number of full candidates a declaration spans on a target: the product of
// the choice counts of every wildcard, summed over pipelines and dtype offers.
constexpr long candidate_count(const gemm_key& decl, arch_id target) {
  using detail::count_bits;
  const arch_spec& s = spec_of(target);
  const auto& da = decl.algo;
  long total = 0;
  for (const pipeline_caps& c : s.pipelines) {
    if (da.pipe != pipeline::any && c.pipe != da.pipe) continue;
    long per_pipe = 1;
    per_pipe *= da.warps.concrete() ? 1 : static_cast<long>(c.warps.size());
    per_pipe *= da.tile.m == any_int ? static_cast<long>(c.tile_m_sweep.size()) : 1;
    per_pipe *= da.tile.n == any_int ? static_cast<long>(c.tile_n_sweep.size()) : 1;
    per_pipe *= da.tile.k == any_int ? static_cast<long>(c.tile_k_sweep.size()) : 1;
    per_pipe *= da.stages == any_int ? c.stages.max - c.stages.min + 1 : 1;
    per_pipe *= da.epi == epilogue::any ? count_bits<epilogue>(c.epilogues) : 1;
    per_pipe *= da.sched == scheduler::any ? count_bits<scheduler>(c.schedulers) : 1;
    per_pipe *= da.vector_bytes == any_int ? static_cast<long>(c.vector_bytes.size()) : 1;
    per_pipe *= (da.cluster_m == any_int || da.cluster_n == any_int) ? static_cast<long>(c.clusters.size()) : 1;
    for (auto p : {da.pad_m, da.pad_n, da.pad_k}) per_pipe *= p == tristate::any ? 2 : 1;
    const bool dtypes_explicit = decl.sig.a != dtype::any && decl.sig.b != dtype::any &&
                                 decl.sig.acc != dtype::any && decl.sig.compute != dtype::any;
    if (dtypes_explicit) {
      long wt = 1;
      if (!da.warp_tile.concrete())
        if (const dtype_offer* o = find_offer(c, decl.sig)) wt = static_cast<long>(o->warp_tiles.size());
      total += per_pipe * wt;
      continue;
    }
    for (const dtype_offer& o : c.dtypes) {
      const long cs = decl.sig.c == dtype::any ? count_bits<dtype>(o.c_types) : 1;
      const long wt = da.warp_tile.concrete() ? 1 : static_cast<long>(o.warp_tiles.size());
      total += per_pipe * cs * wt;
    }
  }
  return total;
}

}  // namespace kdecl::dsl::gemm_expansion
