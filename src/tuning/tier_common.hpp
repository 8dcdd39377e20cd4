// What the selection tiers of every op share (selection_tiers.cpp for GEMM,
// conv_selection_tiers.cpp, fmha_selection_tiers.cpp): the exact-hit database
// tier, the learned-model tier of ops keyed by a problem string with its byte
// cache key, the model cache, the check that the registry still holds a model's
// kernel set, the API calls and the default-tier loader. Each op describes
// itself in an `*_op` struct (problem, args, instance, dispatcher, key, rejection).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kdecl/dispatch/choice_cache.hpp"
#include "kdecl/registry/registry.hpp"
#include "kdecl/runtime/device.hpp"
#include "kdecl/tuning/feature_matrix.hpp"
#include "kdecl/tuning/features.hpp"
#include "kdecl/tuning/ranking_model.hpp"
#include "kdecl/tuning/tuning_db.hpp"

namespace kdecl::tuning::detail {

// A problem's fields as raw bytes: an exact cache key that costs no formatting.
// Add scalars and arrays of scalars only (a struct's padding bytes are not values).
class byte_key {
 public:
  template <class... T>
  byte_key& add(const T&... values) {
    (append(values), ...);
    return *this;
  }
  template <class T>
  byte_key& add_range(const std::vector<T>& v) {
    append(v.size());
    if (!v.empty()) bytes_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
    return *this;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  template <class T>
  void append(const T& v) {
    static_assert((std::is_trivially_copyable_v<T> && std::has_unique_object_representations_v<T>) ||
                      std::is_floating_point_v<T>,
                  "byte_key takes scalars without padding");
    bytes_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  std::string bytes_;
};

// Tier 1: exact problem hits in a tuning database. Op says what a problem and
// kernel are: its problem type, key and parser, instance and rejection (Op::name
// is the op column of the database rows).
template <class Op>
class database_selection final : public Op::tier {
 public:
  database_selection(const std::string& path, arch_id arch) : path_(path) {
    tuning_db db(path, true);
    for (const auto& m : db.measurements(std::string(to_string(arch)))) {
      if (!m.median_ms || m.op != Op::name) continue;
      // Re-keyed through the parser, so that lookups match whatever spelling wrote the row.
      std::string key;
      try {
        key = Op::key_of(Op::parse_key(m.problem_key));
      } catch (const std::invalid_argument&) {
        continue;
      }
      fastest_[key].push_back({*m.median_ms, m.kernel});
    }
    for (auto& [key, v] : fastest_) std::sort(v.begin(), v.end());
  }
  std::string tier() const override { return "tuning database"; }
  std::shared_ptr<const typename Op::instance> choose(const typename Op::dispatcher& d, const typename Op::problem& p,
                                                      const typename Op::args* args, std::string& note) const override {
    auto it = fastest_.find(Op::key_of(p));
    if (it == fastest_.end()) {
      note = fmt::format("no entry for this problem in {}", path_);
      return nullptr;
    }
    for (const auto& [ms, name] : it->second) {
      auto k = std::dynamic_pointer_cast<const typename Op::instance>(d.kernels().find(name));
      if (!k || k->arch() != d.target().arch || Op::rejects(*k, p, args)) continue;
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

// Models are read once per process and path.
inline std::shared_ptr<const ranking_model> cached_model(const std::string& path) {
  static std::mutex mutex;
  // Never destroyed: XGBoost's own statics may be gone by the time this one would be.
  static auto* models = new std::map<std::string, std::shared_ptr<const ranking_model>>;
  std::lock_guard lock(mutex);
  auto& slot = (*models)[path];
  if (!slot) slot = std::make_shared<const ranking_model>(ranking_model::load(path));
  return slot;
}

// Whether the registry still holds the kernel set a model was trained for,
// rechecked only when the registry's generation moves. `fingerprint_now` computes
// the registry's current fingerprint in the model's scope.
class kernel_set_watch {
 public:
  kernel_set_watch(std::string fingerprint, std::uint64_t generation)
      : fingerprint_(std::move(fingerprint)), generation_(generation) {}
  template <class Fingerprint>
  bool current(std::uint64_t generation, Fingerprint&& fingerprint_now) const {
    if (generation != generation_.load()) {
      std::unique_lock lock(mutex_);
      if (generation != generation_.load()) {
        ok_.store(fingerprint_now() == fingerprint_);
        generation_.store(generation);
      }
    }
    return ok_.load();
  }

 private:
  std::string fingerprint_;
  mutable std::mutex mutex_;
  mutable std::atomic<std::uint64_t> generation_;
  mutable std::atomic<bool> ok_{true};
};

// The refusal of a model for `op` on `dev` whose registry's kernel set (in the
// model's scope) has fingerprint `fp` of `count` kernels; empty when it fits.
inline std::string model_refusal(const model_info& info, const std::string& op, const char* op_text,
                                 const device& dev, const std::string& fp, std::size_t count) {
  const std::string arch(to_string(dev.arch));
  if (info.op != op) return fmt::format("it ranks {} kernels, not {} kernels", info.op, op_text);
  if (info.arch != arch) return fmt::format("it was trained for {}, this device is {}", info.arch, arch);
  if (info.kernel_set != fp) {
    const auto scope = kernel_set_signatures(info);
    return fmt::format("it was trained for kernel set {} ({} kernels), this program registers set {} ({} {} kernels{}); "
                       "retrain it with kdecl train",
                       info.kernel_set, info.kernel_count, fp, count, arch,
                       scope.empty() ? ""
                       : info.pipelines.empty()
                           ? fmt::format(" of its {} signatures", scope.size())
                           : fmt::format(" of its {} signatures and pipelines {}", scope.size(), fmt::join(info.pipelines, ", ")));
  }
  return {};
}

// The default tiers of an op's dispatcher: $KDECL_TUNING_DB, then the model named
// by the op's variable (KDECL_TUNING_MODEL for GEMM, KDECL_TUNING_CONV_MODEL for
// convolution), a path or "off", or else <op>_<arch>.model.json on the search
// path; KDECL_TUNING_MODEL=off turns every op's model off. `database(path)` and
// `model(path, why)` build the tiers.
template <class Tier, class Database, class Model>
std::vector<std::shared_ptr<const Tier>> default_tiers_of(const std::string& op, const device& dev,
                                                          const std::vector<std::string>& search_paths,
                                                          const char* model_variable,
                                                          std::vector<std::string>& notes, Database&& database,
                                                          Model&& model) {
  std::vector<std::shared_ptr<const Tier>> tiers;
  if (const char* db = std::getenv("KDECL_TUNING_DB"); db && *db) {
    try {
      if (auto t = database(std::string(db))) tiers.push_back(std::move(t));
    } catch (const std::exception& e) {
      notes.push_back(fmt::format("tuning database: KDECL_TUNING_DB={} not used: {}", db, e.what()));
    }
  }
  const char* env_model = std::getenv(model_variable);
  if (env_model && !*env_model) env_model = nullptr;
  for (const char* v : {model_variable, "KDECL_TUNING_MODEL"}) {
    const char* value = std::getenv(v);
    if (value && std::string(value) == "off") {
      notes.push_back(fmt::format("learned model: off ({}=off)", v));
      return tiers;
    }
  }
  if (dev.arch == arch_id::host) return tiers;  // no model is trained for host kernels
  std::string path;
  if (env_model) {
    path = env_model;
  } else {
    for (const auto& candidate : search_paths)
      if (std::filesystem::exists(candidate)) {
        path = candidate;
        break;
      }
    if (path.empty()) {
      notes.push_back(fmt::format("learned model: none for {} (looked for {}_{}.model.json)", to_string(dev.arch), op,
                                  to_string(dev.arch)));
      return tiers;
    }
  }
  std::string why;
  if (auto t = model(path, why)) tiers.push_back(std::move(t));
  else notes.push_back(fmt::format("learned model {} refused: {}", path, why));
  return tiers;
}

// Tier 2 for ops whose problems have a string key (convolution, attention): the
// learned model, choices cached by the problem's fields, pointer alignment and
// registry generation. Op adds to the database tier's needs: cache_key(normalized
// problem) (a byte_key of every field), signature(problem), kernel_set(registry,
// arch, signatures), pointer_alignment(args) and features(problem, ranked,
// pointer alignment, device_facts of the dispatcher's device) -> feature_matrix.
template <class Op>
class keyed_model_selection final : public Op::tier {
 public:
  keyed_model_selection(std::shared_ptr<const ranking_model> model, std::string fingerprint, std::uint64_t generation)
      : model_(std::move(model)), watch_(std::move(fingerprint), generation) {}
  std::string tier() const override { return "learned model"; }

  std::shared_ptr<const typename Op::instance> choose(const typename Op::dispatcher& d, const typename Op::problem& p,
                                                      const typename Op::args* args, std::string& note) const override {
    const auto gen = d.kernels().generation();
    const int pointers = Op::pointer_alignment(args);
    auto cache_key = Op::cache_key(p);
    const std::string& key = cache_key.add(pointers, gen).bytes();
    if (auto hit = cache_.find(key)) {
      note = *hit ? "ranked first (cached)" : "no opinion (cached)";
      return *hit;
    }
    if (!watch_.current(gen, [&] {
          return Op::kernel_set(d.kernels(), d.target().arch, kernel_set_signatures(model_->info()));
        })) {
      note = "the registry no longer holds the kernel set the model was trained for; not used";
      return nullptr;
    }
    std::shared_ptr<const typename Op::instance> best;
    const auto& trained = model_->info().signatures;
    const std::string signature = Op::signature(p);
    const bool known = trained.empty() || std::find(trained.begin(), trained.end(), signature) != trained.end();
    if (!known) {
      note = fmt::format("not trained on {} problems: no opinion", signature);
    } else if (auto ranked = d.ranked(p, args); !ranked.empty()) {
      const auto scores = model_->score(Op::features(p, ranked, pointers, device_facts{d.target().memory_clock_mhz}));
      // Highest score; ties keep the analytical order.
      best = ranked[std::size_t(std::max_element(scores.begin(), scores.end()) - scores.begin())].first;
      note = fmt::format("ranked first of {} eligible kernels", ranked.size());
    } else {
      note = "no eligible kernel";
    }
    cache_.remember(key, best);
    return best;
  }

 private:
  std::shared_ptr<const ranking_model> model_;
  kernel_set_watch watch_;
  mutable dispatch::choice_cache<std::string, std::shared_ptr<const typename Op::instance>, std::hash<std::string>>
      cache_;
};

// A model tier for Op on `dev`, or null with `refusal` set.
template <class Op>
std::shared_ptr<const typename Op::tier> keyed_model_tier(std::shared_ptr<const ranking_model> model,
                                                          const device& dev, const registry& reg,
                                                          std::string& refusal) {
  std::vector<std::string> names;
  const auto fp = Op::kernel_set(reg, dev.arch, kernel_set_signatures(model->info()), &names);
  refusal = model_refusal(model->info(), Op::name, Op::text, dev, fp, names.size());
  if (!refusal.empty()) return nullptr;
  return std::make_shared<keyed_model_selection<Op>>(std::move(model), fp, reg.generation());
}

// The API calls of an op: a database consulted first, a model replacing any model tier.
template <class Op>
void use_database(typename Op::dispatcher& d, const std::string& path) {
  try {
    d.add_tier(std::make_shared<database_selection<Op>>(path, d.target().arch), /*first=*/true);
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  }
}

// One model at a time: keeps the dispatcher's other tiers and replaces its model
// tier with `tier`; a null tier (refused: `why`) throws std::invalid_argument.
template <class Dispatcher, class Tier>
void install_model(Dispatcher& d, std::shared_ptr<const Tier> tier, const std::string& path, const std::string& why) {
  if (!tier) throw std::invalid_argument(fmt::format("learned model {} refused: {}", path, why));
  std::vector<std::shared_ptr<const Tier>> keep;
  for (const auto& t : d.tiers())
    if (t->tier() != "learned model") keep.push_back(t);
  d.clear_tiers();
  for (auto& t : keep) d.add_tier(t);
  d.add_tier(std::move(tier));
}

template <class Op>
void use_model(typename Op::dispatcher& d, const std::string& path) {
  std::string why;
  std::shared_ptr<const typename Op::tier> tier;
  try {
    tier = keyed_model_tier<Op>(cached_model(path), d.target(), d.kernels(), why);
  } catch (const std::exception& e) {
    why = e.what();
  }
  install_model(d, std::move(tier), path, why);
}

// The fingerprint of an op's kernel names (fingerprint_of), with the names sorted into `names`.
inline std::string fingerprint_of_names(std::vector<std::string> v, std::vector<std::string>* names) {
  std::sort(v.begin(), v.end());
  auto fp = fingerprint_of(v);
  if (names) *names = std::move(v);
  return fp;
}

}  // namespace kdecl::tuning::detail
