#include "kdecl/tuning/ranking_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <xgboost/c_api.h>

#include "kdecl/tuning/conv_features.hpp"
#include "kdecl/tuning/features.hpp"
#include "kdecl/tuning/fmha_features.hpp"

namespace kdecl::tuning {
namespace {

void xgb_check(int rc, const char* what) {
  if (rc != 0) throw std::runtime_error(fmt::format("XGBoost: {}: {}", what, XGBGetLastError()));
}

// A DMatrix freed on scope exit.
struct dmatrix {
  DMatrixHandle h = nullptr;
  dmatrix(const float* data, std::size_t rows, std::size_t width) {
    xgb_check(XGDMatrixCreateFromMat(data, rows, width, std::nanf(""), &h), "DMatrix");
  }
  ~dmatrix() { XGDMatrixFree(h); }
};

nlohmann::json to_json(const model_info& i) {
  nlohmann::json j = {{"op", i.op}, {"arch", i.arch}, {"kernel_set", i.kernel_set}, {"kernel_count", i.kernel_count},
          {"objective", i.objective}, {"features", i.features}, {"signatures", i.signatures}, {"trained_on", i.trained_on},
          {"devices", i.devices}, {"rows", i.rows}, {"groups", i.groups}, {"rounds", i.rounds},
          {"max_depth", i.max_depth}, {"eta", i.eta}, {"created", i.created}, {"kdecl_commit", i.kdecl_commit}, {"format", "kdecl ranking model 1"}};
  if (!i.kernel_set_scope.empty()) j["kernel_set_scope"] = i.kernel_set_scope;
  if (!i.pipelines.empty()) j["pipelines"] = i.pipelines;
  if (!i.device_weights.empty()) j["device_weights"] = i.device_weights;
  if (!i.feature_min.empty()) {
    j["feature_min"] = i.feature_min;
    j["feature_max"] = i.feature_max;
  }
  return j;
}

}  // namespace

std::vector<std::string> feature_names_of(const std::string& op) {
  std::vector<std::string> out;
  if (op == "gemm") {
    for (auto n : feature_names()) out.emplace_back(n);
  } else if (op == "conv") {
    for (auto n : conv_feature_names()) out.emplace_back(n);
  } else if (op == "fmha") {
    for (auto n : fmha_feature_names()) out.emplace_back(n);
  } else {
    throw std::invalid_argument(fmt::format("op '{}' has no ranking features (gemm, conv, fmha)", op));
  }
  return out;
}

struct ranking_model::booster {
  BoosterHandle h = nullptr;
  std::mutex mutex;  // prediction through one handle at a time
  ~booster() { XGBoosterFree(h); }
};

ranking_model::ranking_model() : booster_(std::make_unique<booster>()) {}
ranking_model::ranking_model(ranking_model&&) noexcept = default;
ranking_model& ranking_model::operator=(ranking_model&&) noexcept = default;
ranking_model::~ranking_model() = default;

std::string sidecar_path(const std::string& model_path) {
  const std::string suffix = ".model.json";
  if (model_path.size() > suffix.size() && model_path.ends_with(suffix))
    return model_path.substr(0, model_path.size() - suffix.size()) + ".meta.json";
  return model_path + ".meta.json";
}

std::string outside_trained_range(const model_info& info, std::span<const float> row,
                                  std::span<const std::string_view> checked, float margin) {
  if (info.feature_min.size() != info.features.size() || info.feature_max.size() != info.features.size()) return {};
  for (const auto name : checked) {
    const auto it = std::find(info.features.begin(), info.features.end(), name);
    if (it == info.features.end()) continue;
    const auto f = std::size_t(it - info.features.begin());
    if (f >= row.size()) continue;
    if (row[f] < info.feature_min[f] - margin || row[f] > info.feature_max[f] + margin)
      return fmt::format("{} = {:.2f} is outside the trained range [{:.2f}, {:.2f}] by more than {}", name, row[f],
                         info.feature_min[f], info.feature_max[f], margin);
  }
  return {};
}

float relevance_of(double efficiency) {
  return float(std::clamp(std::round(15.0 - 60.0 * (1.0 - efficiency)), 0.0, 15.0));
}

ranking_model ranking_model::train(const std::vector<ranking_group>& groups, const train_options& o, model_info info) {
  const auto names = feature_names_of(info.op);
  std::vector<float> data, labels, weights;
  std::vector<unsigned> sizes;
  for (const auto& g : groups) {
    if (g.rows.rows() < 2) continue;  // a problem with one kernel teaches no order
    if (g.rows.width != names.size())
      throw std::invalid_argument(fmt::format("train: rows of {} features, but a {} model has {}", g.rows.width,
                                              info.op, names.size()));
    if (g.labels.size() != g.rows.rows())
      throw std::invalid_argument(fmt::format("train: {} labels for {} rows", g.labels.size(), g.rows.rows()));
    data.insert(data.end(), g.rows.values.begin(), g.rows.values.end());
    labels.insert(labels.end(), g.labels.begin(), g.labels.end());
    sizes.push_back(unsigned(g.rows.rows()));
    weights.push_back(g.weight);
  }
  if (sizes.empty())
    throw std::invalid_argument("train: no problem has two or more measured kernels; nothing to rank");
  ranking_model model;
  dmatrix train(data.data(), labels.size(), names.size());
  xgb_check(XGDMatrixSetFloatInfo(train.h, "label", labels.data(), labels.size()), "labels");
  xgb_check(XGDMatrixSetUIntInfo(train.h, "group", sizes.data(), sizes.size()), "groups");
  if (std::any_of(weights.begin(), weights.end(), [](float w) { return w != 1.0f; }))
    xgb_check(XGDMatrixSetFloatInfo(train.h, "weight", weights.data(), weights.size()), "group weights");
  xgb_check(XGBoosterCreate(&train.h, 1, &model.booster_->h), "booster");
  auto set = [&](const char* k, const std::string& v) { xgb_check(XGBoosterSetParam(model.booster_->h, k, v.c_str()), k); };
  set("objective", o.objective);
  set("eval_metric", "ndcg@1");
  set("max_depth", std::to_string(o.max_depth));
  set("eta", fmt::format("{}", o.eta));
  set("nthread", std::to_string(o.threads));
  set("seed", std::to_string(o.seed));
  set("min_child_weight", "0.1");
  set("subsample", "0.9");
  set("colsample_bytree", "0.9");
  set("tree_method", "hist");
  set("verbosity", "0");
  for (int it = 0; it < o.rounds; ++it) xgb_check(XGBoosterUpdateOneIter(model.booster_->h, it, train.h), "training");
  info.objective = o.objective;
  info.features = names;
  info.feature_min.assign(names.size(), std::numeric_limits<float>::infinity());
  info.feature_max.assign(names.size(), -std::numeric_limits<float>::infinity());
  for (std::size_t v = 0; v < data.size(); ++v) {
    const std::size_t f = v % names.size();
    info.feature_min[f] = std::min(info.feature_min[f], data[v]);
    info.feature_max[f] = std::max(info.feature_max[f], data[v]);
  }
  info.rows = labels.size();
  info.groups = sizes.size();
  info.rounds = std::size_t(o.rounds);
  info.max_depth = o.max_depth;
  info.eta = o.eta;
  model.info_ = std::move(info);
  // Prediction runs on the caller's thread: no thread-pool start-up per call.
  xgb_check(XGBoosterSetParam(model.booster_->h, "nthread", "1"), "nthread");
  return model;
}

ranking_model ranking_model::load(const std::string& path) {
  const std::string meta_path = sidecar_path(path);
  std::ifstream meta_in(meta_path);
  if (!meta_in) throw std::invalid_argument(fmt::format("ranking model '{}': its sidecar '{}' cannot be read", path, meta_path));
  nlohmann::json meta;
  model_info info;
  try {
    meta = nlohmann::json::parse(meta_in);
    info.op = meta.at("op");
    info.arch = meta.at("arch");
    info.kernel_set = meta.at("kernel_set");
    info.kernel_count = meta.value("kernel_count", std::size_t{0});
    info.kernel_set_scope = meta.value("kernel_set_scope", "");
    if (!info.kernel_set_scope.empty() && info.kernel_set_scope != "signatures")
      throw std::invalid_argument(fmt::format("ranking model '{}': kernel_set_scope '{}' is not \"signatures\"", path,
                                              info.kernel_set_scope));
    info.objective = meta.value("objective", "");
    info.features = meta.at("features").get<std::vector<std::string>>();
    info.signatures = meta.value("signatures", std::vector<std::string>{});
    info.pipelines = meta.value("pipelines", std::vector<std::string>{});
    info.trained_on = meta.value("trained_on", std::vector<std::string>{});
    info.devices = meta.value("devices", std::vector<std::string>{});
    info.device_weights = meta.value("device_weights", std::map<std::string, double>{});
    info.rows = meta.value("rows", std::size_t{0});
    info.groups = meta.value("groups", std::size_t{0});
    info.rounds = meta.value("rounds", std::size_t{0});
    info.max_depth = meta.value("max_depth", 0);
    info.eta = meta.value("eta", 0.0);
    info.created = meta.value("created", "");
    info.kdecl_commit = meta.value("kdecl_commit", "");
    info.feature_min = meta.value("feature_min", std::vector<float>{});
    info.feature_max = meta.value("feature_max", std::vector<float>{});
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(fmt::format("ranking model '{}': sidecar '{}' is not valid: {}", path, meta_path, e.what()));
  }
  std::vector<std::string> expected;
  try {
    expected = feature_names_of(info.op);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("ranking model '{}': {}", path, e.what()));
  }
  if (info.features != expected)
    throw std::invalid_argument(fmt::format("ranking model '{}' was trained on {} other features than this kdecl computes ({}); "
                                            "retrain it with kdecl train", path, info.features.size(), expected.size()));
  ranking_model model;
  if (!std::ifstream(path)) throw std::invalid_argument(fmt::format("ranking model '{}' cannot be read", path));
  xgb_check(XGBoosterCreate(nullptr, 0, &model.booster_->h), "booster");
  if (XGBoosterLoadModel(model.booster_->h, path.c_str()) != 0)
    throw std::invalid_argument(fmt::format("ranking model '{}' is not an XGBoost model: {}", path, XGBGetLastError()));
  xgb_check(XGBoosterSetParam(model.booster_->h, "nthread", "1"), "nthread");
  model.info_ = std::move(info);
  return model;
}

void ranking_model::save(const std::string& path) const {
  if (auto dir = std::filesystem::path(path).parent_path(); !dir.empty()) std::filesystem::create_directories(dir);
  if (XGBoosterSaveModel(booster_->h, path.c_str()) != 0)
    throw std::runtime_error(fmt::format("ranking model '{}' cannot be written: {}", path, XGBGetLastError()));
  std::ofstream meta(sidecar_path(path));
  meta << to_json(info_).dump(2) << "\n";
  if (!meta) throw std::runtime_error(fmt::format("sidecar '{}' cannot be written", sidecar_path(path)));
}

std::vector<float> ranking_model::score(const feature_matrix& rows) const {
  if (rows.empty()) return {};
  if (rows.width != info_.features.size())
    throw std::invalid_argument(fmt::format("ranking model ({}): rows of {} features, the model has {}", info_.op,
                                            rows.width, info_.features.size()));
  // In-place prediction from the rows' memory: no DMatrix is built per call.
  const std::string values = fmt::format(
      R"({{"data": [{}, true], "shape": [{}, {}], "typestr": "<f4", "version": 3}})",
      reinterpret_cast<std::uintptr_t>(rows.values.data()), rows.rows(), rows.width);
  static constexpr const char* config =
      R"({"type": 0, "training": false, "iteration_begin": 0, "iteration_end": 0, "strict_shape": false, "cache_id": 0, "missing": NaN})";
  std::lock_guard lock(booster_->mutex);
  const bst_ulong* shape = nullptr;
  bst_ulong dim = 0;
  const float* out = nullptr;
  xgb_check(XGBoosterPredictFromDense(booster_->h, values.c_str(), config, nullptr, &shape, &dim, &out), "prediction");
  std::size_t len = 1;
  for (bst_ulong i = 0; i < dim; ++i) len *= std::size_t(shape[i]);
  if (len != rows.rows())
    throw std::runtime_error(fmt::format("XGBoost returned {} scores for {} rows", len, rows.rows()));
  return std::vector<float>(out, out + len);
}

}  // namespace kdecl::tuning
