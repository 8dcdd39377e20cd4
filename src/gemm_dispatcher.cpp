#include "kdecl/gemm/gemm_dispatcher.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "kdecl/dispatch/alignment.hpp"
#include "kdecl/arch/arch.hpp"
#include "kdecl/gemm/gemm_heuristic.hpp"

namespace kdecl {
namespace {

using dispatch::element_bytes;

// Whether the kernel's epilogue takes C and D at any alignment (its access width
// then binds A and B only): a property of its pipeline in the arch tables.
bool epilogue_any_alignment(const gemm_key& k) {
  const arch::pipeline_caps* c = spec_of(k.algo.arch).find(k.algo.pipe);
  return c != nullptr && c->epilogue_any_alignment;
}

// The most rows of A a kernel takes (0: any): a gemv block holds every row of A (tile.m of them).
int rows_bound(const gemm_key& k) { return k.algo.pipe == pipeline::gemv ? k.algo.tile.m : 0; }

// Device kernels with index_bits 32 index within one matrix with 32-bit offsets
// (batches use 64-bit bases); host kernels always use 64-bit offsets.
bool indexes_32bit(const gemm_key& k) { return k.algo.arch != arch_id::host && k.algo.index_bits == 32; }

constexpr std::int64_t int32_limit = dispatch::int32_offset_limit;

// The elements one matrix spans (rows x leading dimension), D's included.
bool offsets_fit_32bit(const gemm_problem& p) {
  const bool d = p.sig.variant == gemm_variant::multi_d;
  return p.rows_a() * p.lda <= int32_limit && p.rows_b() * p.ldb <= int32_limit &&
         p.rows_c() * p.ldc <= int32_limit && (!d || p.rows_c() * p.ldd <= int32_limit);
}

// A pointer must be aligned to its own element: what every kernel (and the dtype) assumes.
std::optional<std::string> element_misalignment(const gemm_problem& p, const gemm_args& args) {
  auto check = [](const char* what, const void* ptr, dtype d) -> std::optional<std::string> {
    if (reinterpret_cast<std::uintptr_t>(ptr) % element_bytes(d) != 0)
      return fmt::format("pointer {} = {} is not aligned to its {}-byte {} elements", what, ptr, element_bytes(d),
                         to_string(d));
    return std::nullopt;
  };
  if (auto e = check("A", args.a, p.sig.a)) return e;
  if (auto e = check("B", args.b, p.sig.b)) return e;
  if (auto e = check("C", args.c, p.sig.c)) return e;
  for (int i = 0; i < p.sig.num_d && i < max_d_tensors; ++i)
    if (auto e = check(i == 0 ? "D0" : i == 1 ? "D1" : i == 2 ? "D2" : "D3", args.d[i], p.sig.c)) return e;
  if (p.sig.variant == gemm_variant::block_scaled) {
    if (auto e = check("scale_a", args.scale_a, dtype::fp32)) return e;
    if (auto e = check("scale_b", args.scale_b, dtype::fp32)) return e;
  }
  return std::nullopt;
}

// Everything a kernel must match exactly; the index buckets kernels by it.
using signature_tuple =
    std::tuple<arch_id, dtype, dtype, dtype, dtype, dtype, layout, layout, layout, gemm_variant, elementwise, int>;

signature_tuple signature_of(arch_id arch, const gemm_signature& s) {
  return {arch, s.a, s.b, s.c, s.acc, s.compute, s.lay.a, s.lay.b, s.lay.c, s.variant, s.ew, s.num_d};
}

std::optional<std::string> signature_mismatch(const gemm_key& k, const gemm_problem& p) {
  const auto& s = k.sig;
  const auto& q = p.sig;
  auto dt = [](const char* what, dtype kernel, dtype problem) -> std::optional<std::string> {
    if (kernel != problem)
      return fmt::format("{} dtype is {}, the problem's is {}", what, to_string(kernel), to_string(problem));
    return std::nullopt;
  };
  if (auto e = dt("A", s.a, q.a)) return e;
  if (auto e = dt("B", s.b, q.b)) return e;
  if (auto e = dt("C", s.c, q.c)) return e;
  if (auto e = dt("accumulator", s.acc, q.acc)) return e;
  if (s.compute != q.compute)
    return fmt::format("computes in {}, the problem asks for {}{}", to_string(s.compute), to_string(q.compute),
                       s.compute == dtype::tf32 ? " (allow tf32 with compute(tf32))" : "");
  if (!(s.lay == q.lay))
    return fmt::format("layout is {}{}{}, the problem's is {}{}{}", to_string(s.lay.a), to_string(s.lay.b),
                       to_string(s.lay.c), to_string(q.lay.a), to_string(q.lay.b), to_string(q.lay.c));
  if (s.variant != q.variant)
    return fmt::format("variant is {}, the problem's is {}", to_string(s.variant), to_string(q.variant));
  if (s.ew != q.ew || s.num_d != q.num_d)
    return fmt::format("fuses {} with {} D tensors, the problem wants {} with {}", to_string(s.ew), s.num_d,
                       to_string(q.ew), q.num_d);
  return std::nullopt;
}

// Stand-in arguments for a selection made before the buffers exist (dispatch::stand_in_pointer).
gemm_args assumed_args(const gemm_problem& p) {
  void* aligned = dispatch::stand_in_pointer();
  gemm_args a{aligned, aligned, aligned};
  for (int i = 0; i < p.sig.num_d && i < max_d_tensors; ++i) a.d[i] = aligned;
  if (p.sig.variant == gemm_variant::block_scaled) a.scale_a = a.scale_b = static_cast<const float*>(aligned);
  return a;
}

}  // namespace

std::optional<std::string> gemm_rejection(const gemm_instance& kernel, const gemm_problem& p,
                                          const gemm_args* args, int* closeness) {
  const gemm_key& k = kernel.key();
  dispatch::staged_check check(closeness);
  auto reject = [&](std::string why) { return check.reject(std::move(why)); };
  if (auto e = signature_mismatch(k, p)) return reject(*e);
  check.passed_stage();
  const auto& a = k.algo;
  auto divides = [&](const char* dim, std::int64_t size, int tile, tristate pad) -> std::optional<std::string> {
    if (pad == tristate::no && size % tile != 0)
      return fmt::format("{} = {} is not a multiple of tile_{} = {} and the kernel does not pad {}", dim, size,
                         dim[0] == 'M' ? 'm' : dim[0] == 'N' ? 'n' : 'k', tile, dim);
    return std::nullopt;
  };
  if (auto e = divides("M", p.m, a.tile.m, a.pad_m)) return reject(*e);
  if (auto e = divides("N", p.n, a.tile.n, a.pad_n)) return reject(*e);
  if (auto e = divides("K", p.k, a.tile.k, a.pad_k)) return reject(*e);
  if (const int rows = rows_bound(k); rows != 0 && p.m > rows)
    return reject(fmt::format("M = {} is more than the kernel's tile.m = {}: a gemv block holds every row of A",
                              p.m, rows));
  check.passed_stage();

  if (args)
    if (auto e = element_misalignment(p, *args)) return reject(*e);
  // The access width binds A and B; C and D too unless the epilogue aligns itself.
  const int vb = a.vector_bytes;
  const bool c_bound = !epilogue_any_alignment(k);
  auto aligned = [&](const char* what, std::int64_t elements, dtype d) -> std::optional<std::string> {
    std::int64_t bytes = elements * element_bytes(d);
    if (bytes % vb != 0)
      return fmt::format("{} = {} elements ({} bytes) is not a multiple of the kernel's {}-byte access width",
                         what, elements, bytes, vb);
    return std::nullopt;
  };
  // A pre-shuffled B has no leading dimension (its image is in the format's own layout).
  const bool b_has_ld = p.sig.variant != gemm_variant::preshuffle;
  if (auto e = aligned("lda", p.lda, p.sig.a)) return reject(*e);
  if (b_has_ld)
    if (auto e = aligned("ldb", p.ldb, p.sig.b)) return reject(*e);
  if (c_bound)
    if (auto e = aligned("ldc", p.ldc, p.sig.c)) return reject(*e);
  if (p.batch > 1) {
    if (auto e = aligned("batch stride of A", p.stride_a, p.sig.a)) return reject(*e);
    if (auto e = aligned("batch stride of B", p.stride_b, p.sig.b)) return reject(*e);
    if (c_bound)
      if (auto e = aligned("batch stride of C", p.stride_c, p.sig.c)) return reject(*e);
  }
  if (c_bound && p.sig.variant == gemm_variant::multi_d) {
    if (auto e = aligned("ldd", p.ldd, p.sig.c)) return reject(*e);
    if (p.batch > 1)
      if (auto e = aligned("batch stride of D", p.stride_d, p.sig.c)) return reject(*e);
  }
  if (args) {
    auto ptr_aligned = [&](const char* what, const void* ptr) { return dispatch::misaligned_pointer(what, ptr, vb); };
    if (auto e = ptr_aligned("A", args->a)) return reject(*e);
    if (auto e = ptr_aligned("B", args->b)) return reject(*e);
    if (c_bound) {
      if (auto e = ptr_aligned("C", args->c)) return reject(*e);
      for (int i = 0; i < p.sig.num_d; ++i)
        if (auto e = ptr_aligned(i == 0 ? "D0" : i == 1 ? "D1" : i == 2 ? "D2" : "D3", args->d[i]))
          return reject(*e);
    }
  }
  check.passed_stage();

  if (indexes_32bit(k)) {
    auto fits = [&](const char* what, std::int64_t rows, std::int64_t ld) -> std::optional<std::string> {
      if (rows * ld > int32_limit)
        return fmt::format(
            "{} spans {} x {} = {} elements: offsets overflow the kernel's 32-bit indexing (index_bits 64 "
            "kernels take it)",
            what, rows, ld, rows * ld);
      return std::nullopt;
    };
    if (auto e = fits("A", p.rows_a(), p.lda)) return reject(*e);
    if (auto e = fits("B", p.rows_b(), p.ldb)) return reject(*e);
    if (auto e = fits("C", p.rows_c(), p.ldc)) return reject(*e);
    if (p.sig.variant == gemm_variant::multi_d)
      if (auto e = fits("D", p.rows_c(), p.ldd)) return reject(*e);
  }
  check.passed_stage();

  if (auto e = kernel.why_not(p, args ? *args : assumed_args(p))) return reject(*e);
  return check.accept();
}

std::string gemm_selection::explain(std::size_t max_candidates) const {
  if (!problem_error.empty()) return "invalid GEMM problem: " + problem_error;
  if (kernel) {
    std::string out = fmt::format("selected {} by the {} (analytical estimate {:.1f} us)", kernel->name(), tier,
                                  estimated_us);
    for (const auto& n : tier_notes) out += "\n  " + n;
    return out;
  }
  std::string out = dispatch::describe_refusals("GEMM", rejected, max_candidates);
  for (const auto& n : tier_notes) out += "\n  " + n;
  return out;
}

// One indexed kernel as the hot loop sees it: its problem-independent figures,
// computed once, packed small (the loop streams one per candidate).
struct indexed_kernel {
  kernel_rates rates;
  std::uint16_t group;        // index of its tile shape within the bucket
  std::uint8_t vector_bytes;  // a power of two
  bool pad_m, pad_n, pad_k;
  bool indexes_32bit;         // offsets within one matrix must fit 32 bits
  bool c_any_alignment;       // the access width binds A and B only
  std::uint16_t rows_bound;   // the most rows of A it takes (0: any; rows_bound())
};

// Kernels of one signature, in name order (hot data and owners side by side),
// and the distinct tile shapes among them with a profile each: what depends on
// the tile shape only is computed once per shape and call.
struct signature_bucket {
  std::vector<indexed_kernel> hot;
  std::vector<std::shared_ptr<const gemm_instance>> kernels;
  std::vector<std::array<std::int64_t, 3>> tiles;
  std::vector<kernel_profile> tile_profiles;  // a profile of the first kernel with each tile
};

// Kernels of the device's arch, bucketed by exact signature (rebuilt by index_ when the registry grows).
struct gemm_dispatcher::index {
  std::vector<std::shared_ptr<const gemm_instance>> for_arch;  // name order
  std::map<signature_tuple, signature_bucket> by_signature;
};

namespace {

// What every kernel of a bucket is checked against, computed once per call.
struct problem_facts {
  problem_profile profile;
  int ab_alignment = 16;  // largest power of two (<= 16) dividing A's and B's byte strides and pointers
  int cd_alignment = 16;  // the same over C and D
  bool fits_32bit = true; // every matrix's offsets fit 32-bit indexing
  bool elements_aligned = true;  // every pointer is aligned to its element (else no kernel takes it)
};

problem_facts facts_of(const gemm_problem& p, const gemm_args* args) {
  problem_facts f{profile_of(p)};
  const auto eb = [](dtype d) { return std::uint64_t(element_bytes(d)); };
  auto fold = [](int& into, std::uint64_t bytes) { into = std::min(into, dispatch::power_of_two_dividing(bytes)); };
  fold(f.ab_alignment, p.lda * eb(p.sig.a));
  if (p.sig.variant != gemm_variant::preshuffle) fold(f.ab_alignment, p.ldb * eb(p.sig.b));
  fold(f.cd_alignment, p.ldc * eb(p.sig.c));
  if (p.batch > 1) {
    fold(f.ab_alignment, p.stride_a * eb(p.sig.a));
    fold(f.ab_alignment, p.stride_b * eb(p.sig.b));
    fold(f.cd_alignment, p.stride_c * eb(p.sig.c));
  }
  if (p.sig.variant == gemm_variant::multi_d) {
    fold(f.cd_alignment, p.ldd * eb(p.sig.c));
    if (p.batch > 1) fold(f.cd_alignment, p.stride_d * eb(p.sig.c));
  }
  if (args) {
    fold(f.ab_alignment, reinterpret_cast<std::uintptr_t>(args->a));
    fold(f.ab_alignment, reinterpret_cast<std::uintptr_t>(args->b));
    fold(f.cd_alignment, reinterpret_cast<std::uintptr_t>(args->c));
    for (int i = 0; i < p.sig.num_d; ++i) fold(f.cd_alignment, reinterpret_cast<std::uintptr_t>(args->d[i]));
    f.elements_aligned = !element_misalignment(p, *args);
  }
  f.fits_32bit = offsets_fit_32bit(p);
  return f;
}

// Per tile shape, per call: the heuristic's tile terms and which sizes divide.
struct tile_facts {
  bool computed = false;
  bool m_divides = false, n_divides = false, k_divides = false;
  tile_terms terms;
};

// The generic checks of gemm_rejection() without building messages: the hot path.
// (The kernel's own why_not() is asked only of the winner.)
bool quickly_eligible(const indexed_kernel& e, const tile_facts& t, const problem_facts& f) {
  if (!f.elements_aligned) return false;
  if (e.vector_bytes > f.ab_alignment) return false;  // both powers of two
  if (!e.c_any_alignment && e.vector_bytes > f.cd_alignment) return false;
  if (e.indexes_32bit && !f.fits_32bit) return false;
  if (!e.pad_m && !t.m_divides) return false;
  if (e.rows_bound != 0 && f.profile.m > e.rows_bound) return false;
  if (!e.pad_n && !t.n_divides) return false;
  if (!e.pad_k && !t.k_divides) return false;
  return true;
}

}  // namespace

namespace {
std::atomic<gemm_tier_factory> default_tiers{nullptr};
}

void set_default_gemm_tiers(gemm_tier_factory factory) { default_tiers.store(factory); }

gemm_dispatcher::gemm_dispatcher(device dev, const registry& reg)
    : device_(std::move(dev)), registry_(&reg), workspaces_(device_) {
  if (auto factory = default_tiers.load()) tiers_ = factory(device_, *registry_, tier_load_notes_);
}

void gemm_dispatcher::add_tier(std::shared_ptr<const gemm_selection_tier> tier, bool first) {
  tiers_.insert(first ? tiers_.begin() : tiers_.end(), std::move(tier));
}

void gemm_dispatcher::clear_tiers() {
  tiers_.clear();
  tier_load_notes_.clear();
}

std::shared_ptr<const gemm_dispatcher::index> gemm_dispatcher::current_index() const {
  return index_.get(*registry_, [&] {
    index idx;
    for (auto& k : dispatch::kernels_of<gemm_instance>(*registry_, op_kind::gemm, device_.arch)) {
      const auto& a = k->key().algo;
      auto& bucket = idx.by_signature[signature_of(k->arch(), k->key().sig)];
      const auto profile = profile_of(k->key(), machine_model_of(k->key()));
      const std::array<std::int64_t, 3> tile{a.tile.m, a.tile.n, a.tile.k};
      auto g = std::find(bucket.tiles.begin(), bucket.tiles.end(), tile);
      if (g == bucket.tiles.end()) {
        g = bucket.tiles.insert(g, tile);
        bucket.tile_profiles.push_back(profile);
      }
      // Access widths are powers of two in every table; round any other up (stricter).
      int vb = 1;
      while (vb < a.vector_bytes) vb *= 2;
      bucket.hot.push_back({profile.rates, std::uint16_t(g - bucket.tiles.begin()), std::uint8_t(vb),
                            a.pad_m == tristate::yes, a.pad_n == tristate::yes, a.pad_k == tristate::yes,
                            indexes_32bit(k->key()), epilogue_any_alignment(k->key()),
                            std::uint16_t(rows_bound(k->key()))});
      bucket.kernels.push_back(k);
      idx.for_arch.push_back(std::move(k));
    }
    return idx;
  });
}

std::vector<std::pair<std::shared_ptr<const gemm_instance>, double>> gemm_dispatcher::ranked(
    const gemm_problem& problem, const gemm_args* args) const {
  std::vector<std::pair<std::shared_ptr<const gemm_instance>, double>> out;
  if (problem.validate()) return out;
  auto p = problem.normalized();
  auto idx = current_index();
  auto it = idx->by_signature.find(signature_of(device_.arch, p.sig));
  if (it == idx->by_signature.end()) return out;
  const auto facts = facts_of(p, args);
  const auto& bucket = it->second;
  for (std::size_t i = 0; i < bucket.kernels.size(); ++i) {
    if (gemm_rejection(*bucket.kernels[i], p, args)) continue;
    const auto terms = terms_of(bucket.tile_profiles[bucket.hot[i].group], facts.profile);
    out.emplace_back(bucket.kernels[i], estimate_microseconds(bucket.hot[i].rates, terms));
  }
  // Bucket order is name order and the sort is stable: equal estimates keep the smaller name first.
  dispatch::rank_by_estimate(out);
  return out;
}

gemm_selection gemm_dispatcher::select(const gemm_problem& problem, const gemm_args* args, bool explain_all) const {
  gemm_selection sel;
  if (auto e = problem.validate()) {
    sel.problem_error = *e;
    return sel;
  }
  auto p = problem.normalized();
  auto idx = current_index();

  // Tiers 1 and 2 (tuning database, learned model), when present; a tier's
  // pick is re-checked here, so a stale database never selects a kernel that
  // cannot run the problem.
  sel.tier_notes = tier_load_notes_;
  if (auto k = dispatch::consult_tiers(tiers_, *this, p, args,
                                       [](const gemm_instance& k, const gemm_problem& q, const gemm_args* a) {
                                         return gemm_rejection(k, q, a).has_value();
                                       },
                                       sel.tier_notes, sel.tier)) {
    sel.kernel = std::move(k);
    sel.estimated_us = estimate_microseconds(sel.kernel->key(), p);
  }

  // Tier 3, the analytical model: its choice for this problem when it made one before (checked again,
  // as a tier's pick is), else every eligible kernel estimated.
  std::optional<gemm_choice_key> key;
  if (!sel.kernel && !explain_all) {
    key = choice_key_of(p, pointer_alignment_of(args, p.sig.num_d), registry_->generation());
    if (auto hit = analytical_choices_.find(*key); hit && !gemm_rejection(*hit->kernel, p, args)) {
      sel.kernel = hit->kernel;
      sel.estimated_us = hit->estimated_us;
    }
  }
  if (sel.kernel) {
  } else if (auto it = idx->by_signature.find(signature_of(device_.arch, p.sig)); it != idx->by_signature.end()) {
    const auto facts = facts_of(p, args);
    const auto& bucket = it->second;
    std::vector<tile_facts> per_tile(bucket.tiles.size());
    std::size_t best = bucket.hot.size();
    double best_us = 0.0;
    for (std::size_t i = 0; i < bucket.hot.size(); ++i) {
      const indexed_kernel& e = bucket.hot[i];
      auto& t = per_tile[e.group];
      if (!t.computed) {
        const auto& [tm, tn, tk] = bucket.tiles[e.group];
        t = {true, p.m % tm == 0, p.n % tn == 0, p.k % tk == 0, terms_of(bucket.tile_profiles[e.group], facts.profile)};
      }
      if (!quickly_eligible(e, t, facts)) continue;
      const double us = estimate_microseconds(e.rates, t.terms);
      if (best == bucket.hot.size() || us < best_us) {  // name order: '<' keeps the smaller name on ties
        best = i;
        best_us = us;
      }
    }
    if (best < bucket.hot.size() && !gemm_rejection(*bucket.kernels[best], p, args)) {
      sel.kernel = bucket.kernels[best];
      sel.estimated_us = best_us;
      // Only a choice the first pass made is remembered: where the winner refused the problem
      // itself, the choice below may depend on more of the arguments than the key holds.
      if (key) analytical_choices_.remember(*key, {sel.kernel, best_us});
    } else if (best < bucket.hot.size()) {
      // The winner refused the problem itself (its why_not): take the best that accepts.
      if (auto r = ranked(problem, args); !r.empty()) {
        sel.kernel = r.front().first;
        sel.estimated_us = r.front().second;
      }
    }
  }
  if (!sel.kernel || explain_all) {
    // Slow path: say why every kernel of this arch was refused, closest first.
    for (const auto& k : idx->for_arch) {
      int closeness = 0;
      if (auto why = gemm_rejection(*k, p, args, &closeness))
        sel.rejected.push_back({k->name(), *why, closeness});
    }
    dispatch::sort_closest_first(sel.rejected);
  }
  return sel;
}

status gemm_dispatcher::run(const gemm_problem& problem, const gemm_args& args, void* stream) const {
  auto sel = select(problem, &args);
  if (!sel) return status::error(sel.explain());
  const gemm_problem p = problem.normalized();
  gemm_args with_workspace = args;
  const std::size_t wanted = sel.kernel->workspace_bytes(p);
  if (wanted > args.workspace_bytes && args.workspace == nullptr) {
    const auto lent = workspaces_.lend(stream, wanted);  // the dispatcher's own, one per stream
    with_workspace.workspace = lent.data;
    with_workspace.workspace_bytes = lent.bytes;
  }
  return sel.kernel->run(p, with_workspace, stream);
}

}  // namespace kdecl
