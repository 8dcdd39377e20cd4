#include "kdecl/tuning/training_data.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "kdecl/conv/conv_heuristic.hpp"
#include "kdecl/conv/grouped_conv_name.hpp"
#include "kdecl/fmha/fmha_dispatcher.hpp"
#include "kdecl/fmha/fmha_name.hpp"
#include "kdecl/gemm/gemm_heuristic.hpp"
#include "kdecl/gemm/gemm_name.hpp"
#include "kdecl/tuning/conv_features.hpp"
#include "kdecl/tuning/conv_problem_key.hpp"
#include "kdecl/tuning/features.hpp"
#include "kdecl/tuning/fmha_features.hpp"
#include "kdecl/tuning/fmha_problem_key.hpp"
#include "kdecl/tuning/problem_key.hpp"

namespace kdecl::tuning {

double measured_problem::oracle_ms() const { return *std::min_element(ms.begin(), ms.end()); }

namespace {

// What grouping needs of one op: the problem's normalized key and signature,
// each kernel's estimate, and the feature rows once a problem's kernels are known.
struct gemm_rows {
  gemm_problem problem;
  std::vector<gemm_key> keys;
  explicit gemm_rows(const std::string& key) : problem(parse_problem_key(key).normalized()) {}
  std::string signature() const { return problem_signature(problem); }
  double add(const std::string& kernel) {
    keys.push_back(parse_gemm_name(kernel));
    return estimate_microseconds(keys.back(), problem);
  }
  void features(measured_problem& q, const std::vector<std::size_t>& order, double best_us) const {
    const alignments alignment = alignment_class(problem);
    q.features.reserve(order.size(), feature_count);
    for (std::size_t j = 0; j < order.size(); ++j)
      q.features.push_back(
          features_of(problem, keys[order[j]], q.estimate_us[j], best_us, alignment, {q.memory_clock_mhz}));
  }
};

struct conv_rows {
  grouped_conv_problem problem;
  std::vector<grouped_conv_key> keys;
  explicit conv_rows(const std::string& key) : problem(parse_conv_problem_key(key)) {}
  std::string signature() const { return problem_signature(problem); }
  double add(const std::string& kernel) {
    keys.push_back(parse_conv_name(kernel));
    return estimate_microseconds(keys.back(), problem);
  }
  void features(measured_problem& q, const std::vector<std::size_t>& order, double best_us) const {
    const int alignment = conv_alignment(problem);
    q.features.reserve(order.size(), conv_feature_count);
    for (std::size_t j = 0; j < order.size(); ++j)
      q.features.push_back(
          conv_features_of(problem, keys[order[j]], q.estimate_us[j], best_us, alignment, {q.memory_clock_mhz}));
  }
};

struct fmha_rows {
  fmha_problem problem;
  std::vector<fmha_key> keys;
  explicit fmha_rows(const std::string& key) : problem(parse_fmha_problem_key(key)) {}
  std::string signature() const { return problem_signature(problem); }
  double add(const std::string& kernel) {
    keys.push_back(parse_fmha_name(kernel));
    return fmha_estimate_us(keys.back(), problem);
  }
  void features(measured_problem& q, const std::vector<std::size_t>& order, double best_us) const {
    q.features.reserve(order.size(), fmha_feature_count);
    for (std::size_t j = 0; j < order.size(); ++j)
      q.features.push_back(fmha_features_of(problem, keys[order[j]], q.estimate_us[j], best_us));
  }
};

template <class Rows>
std::vector<measured_problem> grouped(const std::vector<measurement>& rows, const std::vector<problem_source>& sources,
                                      const std::string& op, const std::string& arch,
                                      const std::set<std::string>& kernel_subset, std::size_t min_kernels) {
  struct pending {
    std::unique_ptr<Rows> rows;
    measured_problem p;
  };
  std::map<std::pair<std::string, std::string>, pending> by;
  for (const auto& m : rows) {
    if (!m.median_ms || m.op != op || m.machine.arch != arch || m.spread > unreliable_spread) continue;
    if (!kernel_subset.empty() && !kernel_subset.count(m.kernel)) continue;
    auto& e = by[{m.machine.device_name, m.problem_key}];
    if (!e.rows) {
      e.rows = std::make_unique<Rows>(m.problem_key);
      e.p.op = op;
      e.p.key = m.problem_key;
      e.p.device = m.machine.device_name;
      e.p.memory_clock_mhz = m.machine.memory_clock_mhz;
      e.p.signature = e.rows->signature();
    }
    e.p.kernels.push_back(m.kernel);
    e.p.ms.push_back(*m.median_ms);
    e.p.estimate_us.push_back(e.rows->add(m.kernel));
  }
  std::map<std::string, std::set<std::string>> models;
  for (const auto& s : sources) models[s.problem_key].insert(s.model);
  std::vector<measured_problem> out;
  for (auto& entry : by) {
    auto& p = entry.second.p;  // not a structured binding: clang before 16 cannot capture one in a lambda
    if (p.kernels.size() < min_kernels) continue;
    // Name order, whatever order the rows came in.
    std::vector<std::size_t> idx(p.kernels.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::sort(idx.begin(), idx.end(), [&](auto a, auto b) { return p.kernels[a] < p.kernels[b]; });
    measured_problem q;
    q.op = p.op;
    q.key = p.key;
    q.device = p.device;
    q.memory_clock_mhz = p.memory_clock_mhz;
    q.signature = p.signature;
    for (auto i : idx) {
      q.kernels.push_back(p.kernels[i]);
      q.ms.push_back(p.ms[i]);
      q.estimate_us.push_back(p.estimate_us[i]);
    }
    entry.second.rows->features(q, idx, *std::min_element(q.estimate_us.begin(), q.estimate_us.end()));
    if (auto it = models.find(q.key); it != models.end()) q.models = it->second;
    out.push_back(std::move(q));
  }
  return out;
}

}  // namespace

std::vector<measured_problem> measured_problems(const std::vector<measurement>& rows,
                                                const std::vector<problem_source>& sources, const std::string& arch,
                                                const std::set<std::string>& kernel_subset, std::size_t min_kernels,
                                                const std::string& op) {
  if (op == "gemm") return grouped<gemm_rows>(rows, sources, op, arch, kernel_subset, min_kernels);
  if (op == "conv") return grouped<conv_rows>(rows, sources, op, arch, kernel_subset, min_kernels);
  if (op == "fmha") return grouped<fmha_rows>(rows, sources, op, arch, kernel_subset, min_kernels);
  throw std::invalid_argument(fmt::format("op '{}' has no training data (gemm, conv, fmha)", op));
}

ranking_group ranking_group_of(const measured_problem& p) {
  ranking_group g;
  g.rows = p.features;
  const double oracle = p.oracle_ms();
  for (double ms : p.ms) g.labels.push_back(relevance_of(oracle / ms));
  return g;
}

std::string family_of(const std::string& model) {
  std::string lower;
  for (char c : model) lower += char(std::tolower(static_cast<unsigned char>(c)));
  // First match wins: the convolutional networks (benchmarks/shapes/conv_*.csv) come first, since
  // "resnet50" holds "t5".
  static const std::pair<const char*, const char*> families[] = {
      {"resnext", "ResNeXt"}, {"resnet", "ResNet"}, {"mobilenet", "MobileNet"}, {"efficientnet", "EfficientNet"},
      {"convnext", "ConvNeXt"}, {"r3d", "R3D"}, {"unet", "UNet"},
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
  const auto scores = model.score(p.features);
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
