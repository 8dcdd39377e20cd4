// The learned ranking model: gradient-boosted trees (XGBoost's C API) trained
// with a ranking objective (rank:ndcg by default, or rank:pairwise) on groups
// of kernels measured on the same problem, so it learns which kernel is
// faster, not how long a kernel takes. Saved as an XGBoost JSON model plus a
// sidecar (<stem>.meta.json) naming the op, arch, kernel-set fingerprint and
// feature names; load() refuses a model whose sidecar disagrees with what the
// caller runs. One model ranks the kernels of one op (GEMM, convolution or attention),
// with that op's features (feature_names_of).
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string_view>
#include <string>
#include <vector>

#include "kdecl/tuning/feature_matrix.hpp"

namespace kdecl::tuning {

struct model_info {
  std::string op = "gemm";          // "gemm", "conv" or "fmha": which features and kernels
  std::string arch;                 // "sm_90"
  std::string kernel_set;           // fingerprint_of() the arch's registered kernels (in scope)
  std::size_t kernel_count = 0;
  // "signatures": kernel_set covers only the kernels whose signature is one of
  // `signatures` (kernels of other dtypes/layouts may be added without retraining);
  // empty (models from before this field): every registered kernel of the arch.
  std::string kernel_set_scope;
  // GEMM, scope "signatures": the pipelines of the kernels it was trained with (to_string(pipeline));
  // kernel_set covers only kernels of these, so a new pipeline (gemv, say) may be registered beside
  // the model, which then has no opinion on the problems such a kernel can run. Empty (models
  // from before this field, conv, attention): every pipeline.
  std::vector<std::string> pipelines;
  std::string objective = "rank:ndcg";
  std::vector<std::string> features;  // feature_names_of(op) at training time
  // Each feature's smallest and largest value over the training rows (empty in models from
  // before these fields): trees do not extrapolate, so a tier may decline problems outside them.
  std::vector<float> feature_min, feature_max;
  // Problem signatures (problem_signature()) the model was trained on; it ranks only these.
  std::vector<std::string> signatures;
  std::vector<std::string> trained_on;  // databases
  std::vector<std::string> devices;     // device names in the training rows
  // Weights given to the problems of some devices in training (kdecl train --device-weight);
  // the others weigh 1. Empty: all weigh 1.
  std::map<std::string, double> device_weights;
  std::size_t rows = 0, groups = 0, rounds = 0;
  int max_depth = 0;  // of the trees (0: not recorded, models from before this field)
  double eta = 0;
  std::string created;              // UTC
  std::string kdecl_commit;         // of the measurements
};

// The signatures a model's kernel_set covers: its `signatures` when its scope says
// so, else none (= every kernel). See registered_kernel_set().
inline std::vector<std::string> kernel_set_signatures(const model_info& i) {
  return i.kernel_set_scope == "signatures" ? i.signatures : std::vector<std::string>{};
}
// The pipelines a model's kernel_set covers (none: every pipeline).
inline std::vector<std::string> kernel_set_pipelines(const model_info& i) {
  return i.kernel_set_scope == "signatures" ? i.pipelines : std::vector<std::string>{};
}

// One problem's measured kernels: features and relevance labels (higher = faster).
struct ranking_group {
  feature_matrix rows;
  std::vector<float> labels;
  float weight = 1.0f;  // of the whole problem (XGBoost weighs ranking groups, not rows)
};

struct train_options {
  std::string objective = "rank:ndcg";  // or rank:pairwise, rank:map
  int rounds = 300;
  int max_depth = 6;
  double eta = 0.1;
  int threads = 2;
  int seed = 0;
};

class ranking_model {
 public:
  ranking_model(ranking_model&&) noexcept;
  ranking_model& operator=(ranking_model&&) noexcept;
  ~ranking_model();

  // Trains a ranking of info.op's kernels. Throws std::invalid_argument when
  // there is nothing to learn from or the rows are not that op's features.
  static ranking_model train(const std::vector<ranking_group>& groups, const train_options& options, model_info info);

  // Reads <path> and its sidecar. Throws std::invalid_argument naming the file
  // and what is wrong (missing, unreadable, another op or feature set).
  static ranking_model load(const std::string& path);

  // Writes the model and its sidecar. Throws std::runtime_error.
  void save(const std::string& path) const;

  // One score per row; a higher score ranks a kernel earlier.
  // Throws std::invalid_argument when the rows are not as wide as the model's features.
  std::vector<float> score(const feature_matrix& rows) const;

  const model_info& info() const { return info_; }

 private:
  ranking_model();
  struct booster;
  std::unique_ptr<booster> booster_;
  model_info info_;
};

// Where `row` (the model's features) lies more than `margin` outside the trained range of one of
// `checked` (feature names), a sentence naming the feature, its value and the range; else empty.
// Nothing is outside for a model without recorded ranges.
std::string outside_trained_range(const model_info& info, std::span<const float> row,
                                  std::span<const std::string_view> checked, float margin);

// The feature names of an op's model ("gemm", "conv", "fmha"), in row order.
// Throws std::invalid_argument naming an op without a feature set.
std::vector<std::string> feature_names_of(const std::string& op);

// <stem>.meta.json beside <stem>.model.json (or <path>.meta.json).
std::string sidecar_path(const std::string& model_path);

// Relevance label of a kernel reaching `efficiency` (oracle time / its time):
// 15 at the oracle, one grade less per 1.67% slower, 0 below 75%.
float relevance_of(double efficiency);

}  // namespace kdecl::tuning
