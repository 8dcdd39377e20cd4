#include "kdecl/tuning/selection_tiers.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "kdecl/dispatch/choice_cache.hpp"
#include "kdecl/gemm/gemm_choice_key.hpp"
#include "kdecl/gemm/gemm_heuristic.hpp"
#include "kdecl/gemm/gemm_name.hpp"
#include "kdecl/tuning/features.hpp"
#include "kdecl/tuning/problem_key.hpp"
#include "kdecl/tuning/ranking_model.hpp"
#include "kdecl/tuning/tuning_db.hpp"
#include "tier_common.hpp"

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

std::vector<std::string> pipelines_of(const std::vector<std::string>& names) {
  std::set<std::string> out;
  for (const auto& n : names) {
    try {
      out.insert(std::string(to_string(parse_gemm_name(n).algo.pipe)));
    } catch (const std::invalid_argument&) {
    }
  }
  return {out.begin(), out.end()};
}

std::string registered_kernel_set(const registry& reg, arch_id arch, std::vector<std::string>* names,
                                  const std::vector<std::string>& signatures, const std::vector<std::string>& pipelines) {
  auto among = [](const std::vector<std::string>& v, std::string_view x) {
    return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
  };
  std::vector<std::string> v;
  for (const auto& k : reg.gemm_kernels())
    if (k->arch() == arch && among(signatures, kernel_signature(k->key())) && among(pipelines, to_string(k->key().algo.pipe)))
      v.push_back(k->name());
  return detail::fingerprint_of_names(std::move(v), names);
}

namespace {

// What the shared tiers (tier_common.hpp) need of GEMM.
struct gemm_op {
  using problem = gemm_problem;
  using args = gemm_args;
  using instance = gemm_instance;
  using dispatcher = gemm_dispatcher;
  using tier = gemm_selection_tier;
  static constexpr const char* name = "gemm";
  static std::string key_of(const gemm_problem& p) { return problem_key(p); }
  static gemm_problem parse_key(std::string_view key) { return parse_problem_key(key); }
  static bool rejects(const gemm_instance& k, const gemm_problem& p, const gemm_args* a) {
    return gemm_rejection(k, p, a).has_value();
  }
};

// ---------------------------------------------------------------------------
// Tier 2: the learned ranking model, choices cached per problem (gemm_choice_key.hpp).
class model_selection final : public gemm_selection_tier {
 public:
  model_selection(std::shared_ptr<const ranking_model> model, std::string fingerprint, std::uint64_t generation)
      : model_(std::move(model)), watch_(std::move(fingerprint), generation) {}
  std::string tier() const override { return "learned model"; }

  std::shared_ptr<const gemm_instance> choose(const gemm_dispatcher& d, const gemm_problem& p, const gemm_args* args,
                                              std::string& note) const override {
    const auto gen = d.kernels().generation();
    const gemm_pointer_alignment pointers = pointer_alignment_of(args, p.sig.num_d);
    const gemm_choice_key key = choice_key_of(p, pointers, gen);
    if (auto hit = cache_.find(key)) {
      note = *hit ? "ranked first (cached)" : "no opinion (cached)";
      return *hit;
    }
    if (!watch_.current(gen, [&] {
          return registered_kernel_set(d.kernels(), d.target().arch, nullptr, kernel_set_signatures(model_->info()),
                                       kernel_set_pipelines(model_->info()));
        })) {
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
    // Kernels of a pipeline the model never saw: its scores for them would be guesses. The
    // analytical model, which prices every pipeline, decides between the pipelines: where it ranks
    // such a kernel first the model has no opinion; otherwise the model ranks the kernels it knows.
    std::string_view unseen;
    if (const auto pipes = kernel_set_pipelines(model_->info()); !pipes.empty() && !ranked.empty()) {
      auto is_unseen = [&](const auto& r) {
        return std::find(pipes.begin(), pipes.end(), to_string(r.first->key().algo.pipe)) == pipes.end();
      };
      if (is_unseen(ranked.front()))
        unseen = to_string(ranked.front().first->key().algo.pipe);
      else
        std::erase_if(ranked, is_unseen);
    }
    if (!known) {
      note = fmt::format("not trained on {} problems: no opinion", problem_signature(p));
    } else if (!unseen.empty()) {
      note = fmt::format("the analytical model ranks a {} kernel first, a pipeline it was not trained with: no opinion",
                         unseen);
    } else if (!ranked.empty()) {
      const alignments strides = alignment_class(p);
      const alignments alignment{std::min({strides.ab, 16, pointers.ab}), std::min({strides.cd, 16, pointers.cd})};
      feature_matrix rows;
      rows.reserve(ranked.size(), feature_count);
      const double best_us = ranked.front().second;
      const device_facts device{d.target().memory_clock_mhz};
      for (const auto& [k, us] : ranked) rows.push_back(features_of(p, k->key(), us, best_us, alignment, device));
      // Trees answer a problem far outside the trained sizes with whatever their edge leaves say
      // (a 23-deep K once chose the pipeline by C's alignment): such problems go to the next tier.
      static constexpr std::array<std::string_view, 3> sizes{"log2_m", "log2_n", "log2_k"};
      if (auto outside = outside_trained_range(model_->info(), rows.row(0), sizes, 1.0f); !outside.empty()) {
        note = fmt::format("{} (one octave): no opinion", outside);
      } else {
        const auto scores = model_->score(rows);
        // Highest score; ties keep the analytical order.
        best = ranked[std::size_t(std::max_element(scores.begin(), scores.end()) - scores.begin())].first;
        note = fmt::format("ranked first of {} eligible kernels (memory clock {} MHz{})", ranked.size(),
                           memory_clock_for(device, d.target().arch),
                           device.memory_clock_mhz > 0 ? "" : ", the arch's reference part");
      }
    } else {
      note = "no eligible kernel";
    }
    cache_.remember(key, best);
    return best;
  }

 private:
  std::shared_ptr<const ranking_model> model_;
  detail::kernel_set_watch watch_;
  mutable dispatch::choice_cache<gemm_choice_key, std::shared_ptr<const gemm_instance>, gemm_choice_key_hash> cache_;
};

}  // namespace

std::shared_ptr<const gemm_selection_tier> database_tier(const std::string& path, arch_id arch) {
  return std::make_shared<detail::database_selection<gemm_op>>(path, arch);
}

std::shared_ptr<const gemm_selection_tier> model_tier(std::shared_ptr<const ranking_model> model, const device& dev,
                                                      const registry& reg, std::string& refusal) {
  const auto& info = model->info();
  std::vector<std::string> names;
  const auto fp = registered_kernel_set(reg, dev.arch, &names, kernel_set_signatures(info), kernel_set_pipelines(info));
  refusal = detail::model_refusal(info, "gemm", "GEMM", dev, fp, names.size());
  if (!refusal.empty()) return nullptr;
  return std::make_shared<model_selection>(std::move(model), fp, reg.generation());
}

std::shared_ptr<const gemm_selection_tier> model_tier(const std::string& path, const device& dev, const registry& reg,
                                                      std::string& refusal) {
  std::shared_ptr<const ranking_model> model;
  try {
    model = detail::cached_model(path);
  } catch (const std::exception& e) {
    refusal = e.what();
    return nullptr;
  }
  return model_tier(std::move(model), dev, reg, refusal);
}

void use_tuning_database(gemm_dispatcher& d, const std::string& path) { detail::use_database<gemm_op>(d, path); }

void use_ranking_model(gemm_dispatcher& d, const std::string& path) {
  std::string why;
  auto tier = model_tier(path, d.target(), d.kernels(), why);
  detail::install_model(d, std::move(tier), path, why);
}

std::vector<std::string> model_search_paths(arch_id arch, const std::string& op) {
  const std::string file = fmt::format("{}_{}.model.json", op, to_string(arch));
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
  return detail::default_tiers_of<gemm_selection_tier>(
      "gemm", dev, model_search_paths(dev.arch, "gemm"), "KDECL_TUNING_MODEL", notes,
      [&](const std::string& path) { return database_tier(path, dev.arch); },
      [&](const std::string& path, std::string& why) { return model_tier(path, dev, reg, why); });
}

namespace {
// Installs the defaults in every dispatcher of a program linked with kdecl::all.
const bool installed = (set_default_gemm_tiers(&default_tiers), true);
}  // namespace

}  // namespace kdecl::tuning
