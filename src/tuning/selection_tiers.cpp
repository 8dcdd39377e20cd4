#include "kdecl/tuning/selection_tiers.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <shared_mutex>
#include <unordered_map>

#include <fmt/format.h>

#include "kdecl/gemm/gemm_heuristic.hpp"
#include "kdecl/gemm/gemm_name.hpp"
#include "kdecl/tuning/features.hpp"
#include "kdecl/tuning/problem_key.hpp"
#include "kdecl/tuning/ranking_model.hpp"
#include "kdecl/tuning/tuning_db.hpp"

namespace kdecl::tuning {

std::string kernel_signature(const gemm_key& key) {
  gemm_problem p;
  p.sig = key.sig;
  return problem_signature(p);
}

std::vector<std::string> kernels_of_signatures(const std::vector<std::string>& names,
                                               const std::vector<std::string>& signatures) {
  std::vector<std::string> out;
  for (const auto& n : names) {
    try {
      if (std::find(signatures.begin(), signatures.end(), kernel_signature(parse_gemm_name(n))) != signatures.end())
        out.push_back(n);
    } catch (const std::invalid_argument&) {
    }
  }
  return out;
}

std::string registered_kernel_set(const registry& reg, arch_id arch, std::vector<std::string>* names,
                                  const std::vector<std::string>& signatures) {
  std::vector<std::string> v;
  for (const auto& k : reg.gemm_kernels())
    if (k->arch() == arch &&
        (signatures.empty() ||
         std::find(signatures.begin(), signatures.end(), kernel_signature(k->key())) != signatures.end()))
      v.push_back(k->name());
  std::sort(v.begin(), v.end());
  auto fp = fingerprint_of(v);
  if (names) *names = std::move(v);
  return fp;
}

namespace {

// ---------------------------------------------------------------------------
// Tier 1: exact problem hits in a tuning database.
class database_selection final : public gemm_selection_tier {
 public:
  database_selection(const std::string& path, arch_id arch) : path_(path) {
    tuning_db db(path, true);
    for (const auto& m : db.measurements(std::string(to_string(arch)))) {
      if (!m.median_ms || m.op != "gemm") continue;
      // Re-keyed through the parser, so that lookups match whatever spelling wrote the row.
      std::string key;
      try {
        key = problem_key(parse_problem_key(m.problem_key));
      } catch (const std::invalid_argument&) {
        continue;
      }
      fastest_[key].push_back({*m.median_ms, m.kernel});
    }
    for (auto& [key, v] : fastest_) std::sort(v.begin(), v.end());
  }
  std::string tier() const override { return "tuning database"; }
  std::shared_ptr<const gemm_instance> choose(const gemm_dispatcher& d, const gemm_problem& p, const gemm_args* args,
                                              std::string& note) const override {
    auto it = fastest_.find(problem_key(p));
    if (it == fastest_.end()) {
      note = fmt::format("no entry for this problem in {}", path_);
      return nullptr;
    }
    for (const auto& [ms, name] : it->second) {
      auto k = std::dynamic_pointer_cast<const gemm_instance>(d.kernels().find(name));
      if (!k || k->arch() != d.target().arch || gemm_rejection(*k, p, args)) continue;
      note = fmt::format("exact hit in {}: fastest of {} measured kernels that can run it ({:.4f} ms)", path_,
                         it->second.size(), ms);
      return k;
    }
    note = fmt::format("{} measured this problem, but none of its kernels is registered here or can run it", path_);
    return nullptr;
  }

 private:
  std::string path_;
  std::unordered_map<std::string, std::vector<std::pair<double, std::string>>> fastest_;
};

// ---------------------------------------------------------------------------
// Tier 2: the learned ranking model, choices cached per problem.
struct cache_key {
  std::array<std::int64_t, 14> v;
  bool operator==(const cache_key&) const = default;
};
struct cache_hash {
  std::size_t operator()(const cache_key& k) const {
    std::uint64_t h = 1469598103934665603ull;
    for (auto x : k.v) h = (h ^ std::uint64_t(x)) * 1099511628211ull;
    return std::size_t(h);
  }
};

int lowest_bit(std::uintptr_t bits) { return bits == 0 ? 256 : int(std::min<std::uintptr_t>(256, bits & (~bits + 1))); }

// Of A's and B's pointers, and of C's and D's (256 without arguments).
alignments pointer_alignment(const gemm_args* args, int num_d) {
  if (!args) return {256, 256};
  std::uintptr_t cd = reinterpret_cast<std::uintptr_t>(args->c);
  for (int i = 0; i < num_d; ++i) cd |= reinterpret_cast<std::uintptr_t>(args->d[i]);
  return {lowest_bit(reinterpret_cast<std::uintptr_t>(args->a) | reinterpret_cast<std::uintptr_t>(args->b)),
          lowest_bit(cd)};
}

class model_selection final : public gemm_selection_tier {
 public:
  model_selection(std::shared_ptr<const ranking_model> model, std::string fingerprint, std::uint64_t generation)
      : model_(std::move(model)), fingerprint_(std::move(fingerprint)), generation_(generation) {}
  std::string tier() const override { return "learned model"; }

  std::shared_ptr<const gemm_instance> choose(const gemm_dispatcher& d, const gemm_problem& p, const gemm_args* args,
                                              std::string& note) const override {
    const auto gen = d.kernels().generation();
    const auto& s = p.sig;
    const std::int64_t sig = std::int64_t(s.a) | std::int64_t(s.b) << 8 | std::int64_t(s.c) << 16 |
                             std::int64_t(s.acc) << 24 | std::int64_t(s.compute) << 32 |
                             std::int64_t(s.lay.a) << 40 | std::int64_t(s.lay.b) << 41 | std::int64_t(s.lay.c) << 42 |
                             std::int64_t(s.variant) << 43 | std::int64_t(s.ew) << 46 | std::int64_t(s.num_d) << 50;
    const alignments pointers = pointer_alignment(args, s.num_d);
    const cache_key key{{p.m, p.n, p.k, p.batch, p.lda, p.ldb, p.ldc, p.ldd, p.stride_a, p.stride_b, p.stride_c,
                         p.stride_d, sig, std::int64_t(gen) << 18 | std::int64_t(pointers.ab) << 9 | pointers.cd}};
    {
      std::shared_lock lock(mutex_);
      if (auto it = cache_.find(key); it != cache_.end()) {
        note = it->second ? "ranked first (cached)" : "no opinion (cached)";
        return it->second;
      }
    }
    if (gen != generation_.load()) {
      // The registry changed since the model was checked: check the set again.
      std::unique_lock lock(mutex_);
      if (gen != generation_.load()) {
        current_ok_.store(registered_kernel_set(d.kernels(), d.target().arch, nullptr,
                                                kernel_set_signatures(model_->info())) == fingerprint_);
        generation_.store(gen);
      }
    }
    if (!current_ok_.load()) {
      note = "the registry no longer holds the kernel set the model was trained for; not used";
      return nullptr;
    }
    std::shared_ptr<const gemm_instance> best;
    const auto& trained = model_->info().signatures;
    const bool known = trained.empty() || std::find(trained.begin(), trained.end(), problem_signature(p)) != trained.end();
    auto ranked = known ? d.ranked(p, args) : decltype(d.ranked(p, args)){};
    // 64-bit offsets only where 32 bits overflow, as the analytical tier decides: a 64-bit
    // twin measures within noise of its 32-bit kernel, so the model alone would pick either.
    auto is_64bit = [](const auto& r) { return r.first->key().algo.index_bits == 64; };
    if (!std::all_of(ranked.begin(), ranked.end(), is_64bit)) std::erase_if(ranked, is_64bit);
    if (!known) {
      note = fmt::format("not trained on {} problems: no opinion", problem_signature(p));
    } else if (!ranked.empty()) {
      const alignments strides = alignment_class(p);
      const alignments alignment{std::min({strides.ab, 16, pointers.ab}), std::min({strides.cd, 16, pointers.cd})};
      std::vector<feature_row> rows;
      rows.reserve(ranked.size());
      const double best_us = ranked.front().second;
      for (const auto& [k, us] : ranked) rows.push_back(features_of(p, k->key(), us, best_us, alignment));
      const auto scores = model_->score(rows);
      // Highest score; ties keep the analytical order.
      best = ranked[std::size_t(std::max_element(scores.begin(), scores.end()) - scores.begin())].first;
      note = fmt::format("ranked first of {} eligible kernels", ranked.size());
    } else {
      note = "no eligible kernel";
    }
    std::unique_lock lock(mutex_);
    if (cache_.size() > 65536) cache_.clear();  // bounded: a workload has far fewer distinct problems
    cache_.emplace(key, best);
    return best;
  }

 private:
  std::shared_ptr<const ranking_model> model_;
  std::string fingerprint_;
  mutable std::shared_mutex mutex_;
  mutable std::atomic<std::uint64_t> generation_;
  mutable std::atomic<bool> current_ok_{true};
  mutable std::unordered_map<cache_key, std::shared_ptr<const gemm_instance>, cache_hash> cache_;
};

// Models are read once per process and path.
std::shared_ptr<const ranking_model> cached_model(const std::string& path) {
  static std::mutex mutex;
  // Never destroyed: XGBoost's own statics may be gone by the time this one would be.
  static auto* models = new std::map<std::string, std::shared_ptr<const ranking_model>>;
  std::lock_guard lock(mutex);
  auto& slot = (*models)[path];
  if (!slot) slot = std::make_shared<const ranking_model>(ranking_model::load(path));
  return slot;
}

}  // namespace

std::shared_ptr<const gemm_selection_tier> database_tier(const std::string& path, arch_id arch) {
  return std::make_shared<database_selection>(path, arch);
}

std::shared_ptr<const gemm_selection_tier> model_tier(std::shared_ptr<const ranking_model> model, const device& dev,
                                                      const registry& reg, std::string& refusal) {
  const auto& info = model->info();
  const std::string arch(to_string(dev.arch));
  if (info.op != "gemm") {
    refusal = fmt::format("it ranks {} kernels, not GEMM kernels", info.op);
    return nullptr;
  }
  if (info.arch != arch) {
    refusal = fmt::format("it was trained for {}, this device is {}", info.arch, arch);
    return nullptr;
  }
  std::vector<std::string> names;
  const auto scope = kernel_set_signatures(info);
  const auto fp = registered_kernel_set(reg, dev.arch, &names, scope);
  if (info.kernel_set != fp) {
    refusal = fmt::format("it was trained for kernel set {} ({} kernels), this program registers set {} ({} {} kernels{}); "
                          "retrain it with kdecl train",
                          info.kernel_set, info.kernel_count, fp, names.size(), arch,
                          scope.empty() ? "" : fmt::format(" of its {} signatures", scope.size()));
    return nullptr;
  }
  return std::make_shared<model_selection>(std::move(model), fp, reg.generation());
}

std::shared_ptr<const gemm_selection_tier> model_tier(const std::string& path, const device& dev, const registry& reg,
                                                      std::string& refusal) {
  std::shared_ptr<const ranking_model> model;
  try {
    model = cached_model(path);
  } catch (const std::exception& e) {
    refusal = e.what();
    return nullptr;
  }
  return model_tier(std::move(model), dev, reg, refusal);
}

void use_tuning_database(gemm_dispatcher& d, const std::string& path) {
  try {
    d.add_tier(database_tier(path, d.target().arch), /*first=*/true);
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  }
}

void use_ranking_model(gemm_dispatcher& d, const std::string& path) {
  std::string why;
  auto tier = model_tier(path, d.target(), d.kernels(), why);
  if (!tier) throw std::invalid_argument(fmt::format("learned model {} refused: {}", path, why));
  // One model at a time: keep the other tiers, replace a model tier.
  std::vector<std::shared_ptr<const gemm_selection_tier>> keep;
  for (const auto& t : d.tiers())
    if (t->tier() != "learned model") keep.push_back(t);
  d.clear_tiers();
  for (auto& t : keep) d.add_tier(t);
  d.add_tier(std::move(tier));
}

std::vector<std::string> model_search_paths(arch_id arch) {
  const std::string file = fmt::format("gemm_{}.model.json", to_string(arch));
  std::vector<std::string> out;
  if (const char* dir = std::getenv("KDECL_MODEL_DIR"); dir && *dir) out.push_back(std::string(dir) + "/" + file);
#ifdef KDECL_SOURCE_MODEL_DIR
  out.push_back(std::string(KDECL_SOURCE_MODEL_DIR) + "/" + file);
#endif
#ifdef KDECL_INSTALL_MODEL_DIR
  out.push_back(std::string(KDECL_INSTALL_MODEL_DIR) + "/" + file);
#endif
  return out;
}

std::vector<std::shared_ptr<const gemm_selection_tier>> default_tiers(const device& dev, const registry& reg,
                                                                      std::vector<std::string>& notes) {
  std::vector<std::shared_ptr<const gemm_selection_tier>> tiers;
  if (const char* db = std::getenv("KDECL_TUNING_DB"); db && *db) {
    try {
      tiers.push_back(database_tier(db, dev.arch));
    } catch (const std::exception& e) {
      notes.push_back(fmt::format("tuning database: KDECL_TUNING_DB={} not used: {}", db, e.what()));
    }
  }
  const char* env_model = std::getenv("KDECL_TUNING_MODEL");
  if (env_model && std::string(env_model) == "off") {
    notes.push_back("learned model: off (KDECL_TUNING_MODEL=off)");
    return tiers;
  }
  if (dev.arch == arch_id::host) return tiers;  // no model is trained for host kernels
  std::string path;
  if (env_model && *env_model) {
    path = env_model;
  } else {
    for (const auto& candidate : model_search_paths(dev.arch))
      if (std::filesystem::exists(candidate)) {
        path = candidate;
        break;
      }
    if (path.empty()) {
      notes.push_back(fmt::format("learned model: none for {} (looked for gemm_{}.model.json)", to_string(dev.arch),
                                  to_string(dev.arch)));
      return tiers;
    }
  }
  std::string why;
  if (auto t = model_tier(path, dev, reg, why)) tiers.push_back(std::move(t));
  else notes.push_back(fmt::format("learned model {} refused: {}", path, why));
  return tiers;
}

namespace {
// Installs the defaults in every dispatcher of a program linked with kdecl::all.
const bool installed = (set_default_gemm_tiers(&default_tiers), true);
}  // namespace

}  // namespace kdecl::tuning
