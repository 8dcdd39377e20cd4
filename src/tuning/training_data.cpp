#include "kdecl/tuning/training_data.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>

#include "kdecl/gemm/gemm_heuristic.hpp"
#include "kdecl/gemm/gemm_name.hpp"
#include "kdecl/tuning/features.hpp"
#include "kdecl/tuning/problem_key.hpp"

namespace kdecl::tuning {

double measured_problem::oracle_ms() const { return *std::min_element(ms.begin(), ms.end()); }

std::vector<measured_problem> measured_problems(const std::vector<measurement>& rows,
                                                const std::vector<problem_source>& sources, const std::string& arch,
                                                const std::set<std::string>& kernel_subset, std::size_t min_kernels) {
  std::map<std::pair<std::string, std::string>, measured_problem> by;
  for (const auto& m : rows) {
    if (!m.median_ms || m.op != "gemm" || m.machine.arch != arch) continue;
    if (!kernel_subset.empty() && !kernel_subset.count(m.kernel)) continue;
    auto& p = by[{m.machine.device_name, m.problem_key}];
    if (p.key.empty()) {
      p.key = m.problem_key;
      p.device = m.machine.device_name;
      p.problem = parse_problem_key(m.problem_key).normalized();
    }
    p.kernels.push_back(m.kernel);
    p.keys.push_back(parse_gemm_name(m.kernel));
    p.ms.push_back(*m.median_ms);
    p.estimate_us.push_back(estimate_microseconds(p.keys.back(), p.problem));
  }
  std::map<std::string, std::set<std::string>> models;
  for (const auto& s : sources) models[s.problem_key].insert(s.model);
  std::vector<measured_problem> out;
  for (auto& entry : by) {
    auto& p = entry.second;  // not a structured binding: clang before 16 cannot capture one in a lambda
    if (p.kernels.size() < min_kernels) continue;
    // Name order, whatever order the rows came in.
    std::vector<std::size_t> idx(p.kernels.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::sort(idx.begin(), idx.end(), [&](auto a, auto b) { return p.kernels[a] < p.kernels[b]; });
    measured_problem q;
    q.key = p.key;
    q.device = p.device;
    q.problem = p.problem;
    for (auto i : idx) {
      q.kernels.push_back(p.kernels[i]);
      q.keys.push_back(p.keys[i]);
      q.ms.push_back(p.ms[i]);
      q.estimate_us.push_back(p.estimate_us[i]);
    }
    if (auto it = models.find(q.key); it != models.end()) q.models = it->second;
    out.push_back(std::move(q));
  }
  return out;
}

ranking_group ranking_group_of(const measured_problem& p) {
  ranking_group g;
  const double best_us = *std::min_element(p.estimate_us.begin(), p.estimate_us.end());
  const double oracle = p.oracle_ms();
  const alignments alignment = alignment_class(p.problem);
  for (std::size_t i = 0; i < p.kernels.size(); ++i) {
    g.rows.push_back(features_of(p.problem, p.keys[i], p.estimate_us[i], best_us, alignment));
    g.labels.push_back(relevance_of(oracle / p.ms[i]));
  }
  return g;
}

std::string family_of(const std::string& model) {
  std::string lower;
  for (char c : model) lower += char(std::tolower(static_cast<unsigned char>(c)));
  static const std::pair<const char*, const char*> families[] = {
      {"llama", "Llama"}, {"gemma", "Gemma"}, {"qwen", "Qwen"}, {"mistral", "Mistral"}, {"mixtral", "Mistral"},
      {"phi", "Phi"}, {"bert", "BERT"}, {"gpt", "GPT"}, {"t5", "T5"}, {"vit", "ViT"}, {"falcon", "Falcon"},
      {"deepseek", "DeepSeek"}};
  for (const auto& [needle, name] : families)
    if (lower.find(needle) != std::string::npos) return name;
  auto dash = model.find('-');
  return dash == std::string::npos ? model : model.substr(0, dash);
}

std::vector<std::size_t> analytical_order(const measured_problem& p) {
  std::vector<std::size_t> idx(p.kernels.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](auto a, auto b) { return p.estimate_us[a] < p.estimate_us[b]; });
  return idx;
}

std::vector<std::size_t> model_order(const ranking_model& model, const measured_problem& p) {
  const auto g = ranking_group_of(p);
  const auto scores = model.score(g.rows);
  auto idx = analytical_order(p);
  std::stable_sort(idx.begin(), idx.end(), [&](auto a, auto b) { return scores[a] > scores[b]; });
  return idx;
}

tier_figures figures_of(const std::string& tier, const std::vector<measured_problem>& problems,
                        const std::vector<std::vector<std::size_t>>& order) {
  tier_figures f;
  f.tier = tier;
  f.problems = problems.size();
  if (problems.empty()) return f;
  std::size_t max_k = 0;
  for (const auto& p : problems) max_k = std::max(max_k, p.kernels.size());
  std::vector<double> best_of_k_sum(max_k + 1, 0.0), best_of_k_min(max_k + 1, 1.0);
  std::size_t hits = 0;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    const auto& p = problems[i];
    const double oracle = p.oracle_ms();
    f.efficiencies.push_back(oracle / p.ms[order[i][0]]);
    if (p.ms[order[i][0]] == oracle) ++hits;
    double best = 0;
    for (std::size_t k = 1; k <= max_k; ++k) {
      if (k <= order[i].size()) best = std::max(best, oracle / p.ms[order[i][k - 1]]);
      best_of_k_sum[k] += best;
      best_of_k_min[k] = std::min(best_of_k_min[k], best);
    }
  }
  std::vector<std::size_t> by_efficiency(problems.size());
  std::iota(by_efficiency.begin(), by_efficiency.end(), 0);
  std::stable_sort(by_efficiency.begin(), by_efficiency.end(),
                   [&](auto a, auto b) { return f.efficiencies[a] < f.efficiencies[b]; });
  for (std::size_t j = 0; j < std::min<std::size_t>(5, by_efficiency.size()); ++j) {
    const auto i = by_efficiency[j];
    const auto& p = problems[i];
    const auto oracle_at = std::size_t(std::min_element(p.ms.begin(), p.ms.end()) - p.ms.begin());
    f.worst_cases.push_back({p.key, p.kernels[order[i][0]], p.kernels[oracle_at], f.efficiencies[i]});
  }
  auto sorted = f.efficiencies;
  std::sort(sorted.begin(), sorted.end());
  f.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / double(sorted.size());
  f.p10 = sorted[std::size_t(std::floor(0.1 * double(sorted.size() - 1)))];
  f.worst = sorted.front();
  f.top1_hit = double(hits) / double(problems.size());
  for (std::size_t k = 1; k <= max_k; ++k) {
    if (!f.top_k_mean_99 && best_of_k_sum[k] / double(problems.size()) >= 0.99) f.top_k_mean_99 = int(k);
    if (!f.top_k_all_99 && best_of_k_min[k] >= 0.99) f.top_k_all_99 = int(k);
  }
  return f;
}

}  // namespace kdecl::tuning
