#include "kdecl/tuning/conv_selection_tiers.hpp"

#include <algorithm>
#include <shared_mutex>
#include <unordered_map>

#include <fmt/format.h>

#include "kdecl/dispatch/registry_index.hpp"
#include "kdecl/tuning/conv_features.hpp"
#include "kdecl/tuning/conv_problem_key.hpp"
#include "kdecl/tuning/selection_tiers.hpp"
#include "tier_common.hpp"

namespace kdecl::tuning {

std::string registered_conv_kernel_set(const registry& reg, arch_id arch, std::vector<std::string>* names,
                                       const std::vector<std::string>& signatures) {
  std::vector<std::string> v;
  for (const auto& k : dispatch::kernels_of<conv_instance>(reg, op_kind::grouped_conv, arch))
    if (signatures.empty() ||
        std::find(signatures.begin(), signatures.end(), kernel_signature(k->key())) != signatures.end())
      v.push_back(k->name());
  std::sort(v.begin(), v.end());
  auto fp = fingerprint_of(v);
  if (names) *names = std::move(v);
  return fp;
}

namespace {

struct conv_op {
  using problem = grouped_conv_problem;
  using args = grouped_conv_args;
  using instance = conv_instance;
  using dispatcher = conv_dispatcher;
  using tier = conv_selection_tier;
  static constexpr const char* name = "conv";
  static std::string key_of(const grouped_conv_problem& p) { return problem_key(p); }
  static grouped_conv_problem parse_key(std::string_view key) { return parse_conv_problem_key(key); }
  static bool rejects(const conv_instance& k, const grouped_conv_problem& p, const grouped_conv_args* a) {
    return conv_rejection(k, p, a).has_value();
  }
};

// The three tensors' pointers' alignment (256 without arguments).
int pointer_alignment(const grouped_conv_args* args) {
  if (!args) return 256;
  return detail::lowest_bit(reinterpret_cast<std::uintptr_t>(args->in) | reinterpret_cast<std::uintptr_t>(args->wei) |
                            reinterpret_cast<std::uintptr_t>(args->out));
}

// Tier 2: the learned model. Choices are cached by problem key, pointer
// alignment and registry generation (a convolution's key is long, but a
// selection costs far more than hashing it).
class conv_model_selection final : public conv_selection_tier {
 public:
  conv_model_selection(std::shared_ptr<const ranking_model> model, std::string fingerprint, std::uint64_t generation)
      : model_(std::move(model)), watch_(std::move(fingerprint), generation) {}
  std::string tier() const override { return "learned model"; }

  std::shared_ptr<const conv_instance> choose(const conv_dispatcher& d, const grouped_conv_problem& p,
                                              const grouped_conv_args* args, std::string& note) const override {
    const auto gen = d.kernels().generation();
    const int pointers = pointer_alignment(args);
    const std::string key = fmt::format("{}#{}#{}", problem_key(p), pointers, gen);
    {
      std::shared_lock lock(mutex_);
      if (auto it = cache_.find(key); it != cache_.end()) {
        note = it->second ? "ranked first (cached)" : "no opinion (cached)";
        return it->second;
      }
    }
    if (!watch_.current(gen, [&] {
          return registered_conv_kernel_set(d.kernels(), d.target().arch, nullptr,
                                            kernel_set_signatures(model_->info()));
        })) {
      note = "the registry no longer holds the kernel set the model was trained for; not used";
      return nullptr;
    }
    std::shared_ptr<const conv_instance> best;
    const auto& trained = model_->info().signatures;
    const std::string signature = problem_signature(p);
    const bool known = trained.empty() || std::find(trained.begin(), trained.end(), signature) != trained.end();
    if (!known) {
      note = fmt::format("not trained on {} problems: no opinion", signature);
    } else if (auto ranked = d.ranked(p, args); !ranked.empty()) {
      const int alignment = std::min(conv_alignment(p), std::min(16, pointers));
      feature_matrix rows;
      rows.reserve(ranked.size(), conv_feature_count);
      const double best_us = ranked.front().second;
      for (const auto& [k, us] : ranked) rows.push_back(conv_features_of(p, k->key(), us, best_us, alignment));
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
  detail::kernel_set_watch watch_;
  mutable std::shared_mutex mutex_;
  mutable std::unordered_map<std::string, std::shared_ptr<const conv_instance>> cache_;
};

}  // namespace

std::shared_ptr<const conv_selection_tier> conv_database_tier(const std::string& path, arch_id arch) {
  return std::make_shared<detail::database_selection<conv_op>>(path, arch);
}

std::shared_ptr<const conv_selection_tier> conv_model_tier(std::shared_ptr<const ranking_model> model,
                                                           const device& dev, const registry& reg,
                                                           std::string& refusal) {
  std::vector<std::string> names;
  const auto fp = registered_conv_kernel_set(reg, dev.arch, &names, kernel_set_signatures(model->info()));
  refusal = detail::model_refusal(model->info(), "conv", "convolution", dev, fp, names.size());
  if (!refusal.empty()) return nullptr;
  return std::make_shared<conv_model_selection>(std::move(model), fp, reg.generation());
}

std::shared_ptr<const conv_selection_tier> conv_model_tier(const std::string& path, const device& dev,
                                                           const registry& reg, std::string& refusal) {
  std::shared_ptr<const ranking_model> model;
  try {
    model = detail::cached_model(path);
  } catch (const std::exception& e) {
    refusal = e.what();
    return nullptr;
  }
  return conv_model_tier(std::move(model), dev, reg, refusal);
}

void use_tuning_database(conv_dispatcher& d, const std::string& path) {
  try {
    d.add_tier(conv_database_tier(path, d.target().arch), /*first=*/true);
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  }
}

void use_ranking_model(conv_dispatcher& d, const std::string& path) {
  std::string why;
  auto tier = conv_model_tier(path, d.target(), d.kernels(), why);
  if (!tier) throw std::invalid_argument(fmt::format("learned model {} refused: {}", path, why));
  std::vector<std::shared_ptr<const conv_selection_tier>> keep;
  for (const auto& t : d.tiers())
    if (t->tier() != "learned model") keep.push_back(t);
  d.clear_tiers();
  for (auto& t : keep) d.add_tier(t);
  d.add_tier(std::move(tier));
}

std::vector<std::shared_ptr<const conv_selection_tier>> default_conv_tiers(const device& dev, const registry& reg,
                                                                           std::vector<std::string>& notes) {
  return detail::default_tiers_of<conv_selection_tier>(
      "conv", dev, model_search_paths(dev.arch, "conv"), "KDECL_TUNING_CONV_MODEL", notes,
      [&](const std::string& path) { return conv_database_tier(path, dev.arch); },
      [&](const std::string& path, std::string& why) { return conv_model_tier(path, dev, reg, why); });
}

namespace {
// Installs the defaults in every conv_dispatcher of a program linked with kdecl::all.
const bool installed = (set_default_conv_tiers(&default_conv_tiers), true);
}  // namespace

}  // namespace kdecl::tuning
