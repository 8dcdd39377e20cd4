#include "kdecl/gemm/gemm_dispatcher.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "kdecl/gemm/gemm_heuristic.hpp"

namespace kdecl {
namespace {

int bytes_of(dtype d) { return bits_of(d) / 8 > 0 ? bits_of(d) / 8 : 1; }

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

}  // namespace

std::optional<std::string> gemm_rejection(const gemm_instance& kernel, const gemm_problem& p,
                                          const gemm_args* args, int* closeness) {
  const gemm_key& k = kernel.key();
  int stage = 0;
  auto reject = [&](std::string why) -> std::optional<std::string> {
    if (closeness) *closeness = stage;
    return why;
  };
  if (auto e = signature_mismatch(k, p)) return reject(*e);
  ++stage;
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
  ++stage;

  const int vb = a.vector_bytes;
  auto aligned = [&](const char* what, std::int64_t elements, dtype d) -> std::optional<std::string> {
    std::int64_t bytes = elements * bytes_of(d);
    if (bytes % vb != 0)
      return fmt::format("{} = {} elements ({} bytes) is not a multiple of the kernel's {}-byte access width",
                         what, elements, bytes, vb);
    return std::nullopt;
  };
  if (auto e = aligned("lda", p.lda, p.sig.a)) return reject(*e);
  if (auto e = aligned("ldb", p.ldb, p.sig.b)) return reject(*e);
  if (auto e = aligned("ldc", p.ldc, p.sig.c)) return reject(*e);
  if (p.batch > 1) {
    if (auto e = aligned("batch stride of A", p.stride_a, p.sig.a)) return reject(*e);
    if (auto e = aligned("batch stride of B", p.stride_b, p.sig.b)) return reject(*e);
    if (auto e = aligned("batch stride of C", p.stride_c, p.sig.c)) return reject(*e);
  }
  if (p.sig.variant == gemm_variant::multi_d) {
    if (auto e = aligned("ldd", p.ldd, p.sig.c)) return reject(*e);
    if (p.batch > 1)
      if (auto e = aligned("batch stride of D", p.stride_d, p.sig.c)) return reject(*e);
  }
  if (args) {
    auto ptr_aligned = [&](const char* what, const void* ptr) -> std::optional<std::string> {
      auto addr = reinterpret_cast<std::uintptr_t>(ptr);
      if (addr % vb != 0)
        return fmt::format("pointer {} = {} is not aligned to the kernel's {}-byte access width", what, ptr, vb);
      return std::nullopt;
    };
    if (auto e = ptr_aligned("A", args->a)) return reject(*e);
    if (auto e = ptr_aligned("B", args->b)) return reject(*e);
    if (auto e = ptr_aligned("C", args->c)) return reject(*e);
    for (int i = 0; i < p.sig.num_d; ++i)
      if (auto e = ptr_aligned(i == 0 ? "D0" : i == 1 ? "D1" : i == 2 ? "D2" : "D3", args->d[i])) return reject(*e);
  }
  ++stage;

  if (a.arch != arch_id::host) {
    // Device kernels index within one matrix with 32-bit offsets (batches use 64-bit bases).
    constexpr std::int64_t limit = (std::int64_t{1} << 31) - 1;
    auto fits = [&](const char* what, std::int64_t rows, std::int64_t ld) -> std::optional<std::string> {
      if (rows * ld > limit)
        return fmt::format("{} spans {} x {} = {} elements: offsets overflow the kernel's 32-bit indexing", what,
                           rows, ld, rows * ld);
      return std::nullopt;
    };
    if (auto e = fits("A", p.rows_a(), p.lda)) return reject(*e);
    if (auto e = fits("B", p.rows_b(), p.ldb)) return reject(*e);
    if (auto e = fits("C", p.rows_c(), p.ldc)) return reject(*e);
  }
  ++stage;

  if (auto e = kernel.why_not(p, args ? *args : gemm_args{})) return reject(*e);
  ++stage;
  if (args) {
    auto need = kernel.workspace_bytes(p);
    if (need > args->workspace_bytes)
      return reject(fmt::format("needs {} bytes of workspace, {} given", need, args->workspace_bytes));
  }
  if (closeness) *closeness = stage + 1;
  return std::nullopt;
}

std::string gemm_selection::explain(std::size_t max_candidates) const {
  if (!problem_error.empty()) return "invalid GEMM problem: " + problem_error;
  if (kernel) return fmt::format("selected {} (estimated {:.1f} us)", kernel->name(), estimated_us);
  if (rejected.empty()) return "no GEMM kernel is registered for this device's arch";
  std::string out = fmt::format("no registered kernel can run this problem; the {} closest of {} candidates:",
                                std::min(max_candidates, rejected.size()), rejected.size());
  for (std::size_t i = 0; i < rejected.size() && i < max_candidates; ++i)
    out += fmt::format("\n  {}: {}", rejected[i].kernel, rejected[i].reason);
  return out;
}

// Kernels of the device's arch, bucketed by exact signature, rebuilt when the registry grows.
struct gemm_dispatcher::index {
  std::uint64_t generation = 0;
  std::vector<std::shared_ptr<const gemm_instance>> for_arch;  // name order
  std::map<signature_tuple, std::vector<std::shared_ptr<const gemm_instance>>> by_signature;
};

gemm_dispatcher::gemm_dispatcher(device dev, const registry& reg) : device_(std::move(dev)), registry_(&reg) {}

std::shared_ptr<const gemm_dispatcher::index> gemm_dispatcher::current_index() const {
  std::lock_guard lock(mutex_);
  auto gen = registry_->generation();
  if (!index_ || index_->generation != gen) {
    auto idx = std::make_shared<index>();
    idx->generation = gen;
    for (auto& k : registry_->gemm_kernels()) {
      if (k->arch() != device_.arch) continue;
      idx->by_signature[signature_of(k->arch(), k->key().sig)].push_back(k);
      idx->for_arch.push_back(std::move(k));
    }
    index_ = std::move(idx);
  }
  return index_;
}

std::vector<std::pair<std::shared_ptr<const gemm_instance>, double>> gemm_dispatcher::ranked(
    const gemm_problem& problem, const gemm_args* args) const {
  std::vector<std::pair<std::shared_ptr<const gemm_instance>, double>> out;
  if (problem.validate()) return out;
  auto p = problem.normalized();
  auto idx = current_index();
  auto it = idx->by_signature.find(signature_of(device_.arch, p.sig));
  if (it == idx->by_signature.end()) return out;
  for (const auto& k : it->second) {
    if (gemm_rejection(*k, p, args)) continue;
    out.emplace_back(k, estimate_microseconds(k->key(), p, machine_model_of(k->key())));
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) {
    return x.second != y.second ? x.second < y.second : x.first->name() < y.first->name();
  });
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

  const std::shared_ptr<const gemm_instance>* best = nullptr;
  double best_us = 0.0;
  if (auto it = idx->by_signature.find(signature_of(device_.arch, p.sig)); it != idx->by_signature.end()) {
    for (const auto& k : it->second) {
      if (gemm_rejection(*k, p, args)) continue;
      double us = estimate_microseconds(k->key(), p, machine_model_of(k->key()));
      // Bucket order is name order, so strict '<' keeps the smallest name on ties.
      if (!best || us < best_us) {
        best = &k;
        best_us = us;
      }
    }
  }
  if (best) {
    sel.kernel = *best;
    sel.estimated_us = best_us;
  }
  if (!best || explain_all) {
    // Slow path: say why every kernel of this arch was refused, closest first.
    for (const auto& k : idx->for_arch) {
      int closeness = 0;
      if (auto why = gemm_rejection(*k, p, args, &closeness))
        sel.rejected.push_back({k->name(), *why, closeness});
    }
    std::stable_sort(sel.rejected.begin(), sel.rejected.end(),
                     [](const auto& x, const auto& y) { return x.closeness > y.closeness; });
  }
  return sel;
}

status gemm_dispatcher::run(const gemm_problem& problem, const gemm_args& args, void* stream) const {
  auto sel = select(problem, &args);
  if (!sel) return status::error(sel.explain());
  return sel.kernel->run(problem.normalized(), args, stream);
}

}  // namespace kdecl
