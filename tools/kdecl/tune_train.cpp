#include "tune_train.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "kdecl/registry/registry.hpp"
#include "kdecl/tuning/conv_problem_key.hpp"
#include "kdecl/tuning/conv_selection_tiers.hpp"
#include "kdecl/tuning/fmha_problem_key.hpp"
#include "kdecl/tuning/fmha_selection_tiers.hpp"
#include "kdecl/tuning/problem_key.hpp"
#include "kdecl/tuning/ranking_model.hpp"
#include "kdecl/tuning/selection_tiers.hpp"
#include "kdecl/tuning/training_data.hpp"
#include "kdecl/tuning/tuning_db.hpp"

namespace kdecl::cli {
namespace {

struct data_options {
  std::string op = "gemm";          // gemm, conv or fmha: whose rows, kernels and features
  std::vector<std::string> inputs;  // .db (SQLite) or .jsonl exports
  std::string arch = "sm_90";
  std::string kernel_set = "auto";  // auto, registry, or a fingerprint from the databases
  tuning::train_options train;
  std::vector<std::string> device_weights;  // NAME=WEIGHT, as given
};

void add_data_options(CLI::App* cmd, data_options& o) {
  cmd->add_option("--op", o.op, "operation whose kernels to rank: gemm, conv or fmha (attention forward)")
      ->capture_default_str();
  cmd->add_option("--db", o.inputs, "tuning databases (.db) or JSON-lines exports (.jsonl); repeatable")->required();
  cmd->add_option("--arch", o.arch, "arch whose rows to use")->capture_default_str();
  cmd->add_option("--kernel-set", o.kernel_set,
                  "kernels to rank: 'registry' (this program's kernels of the arch), a fingerprint recorded in the "
                  "databases, or 'auto' (registry when it holds kernels of the arch, else the databases' set)")
      ->capture_default_str();
  cmd->add_option("--objective", o.train.objective, "XGBoost ranking objective (rank:ndcg, rank:pairwise, rank:map)")
      ->capture_default_str();
  cmd->add_option("--rounds", o.train.rounds, "boosting rounds")->capture_default_str()->check(CLI::Range(1, 100000));
  cmd->add_option("--max-depth", o.train.max_depth, "tree depth")->capture_default_str()->check(CLI::Range(1, 20));
  cmd->add_option("--eta", o.train.eta, "learning rate")->capture_default_str();
  cmd->add_option("--device-weight", o.device_weights,
                  "NAME=WEIGHT: the problems timed on device NAME (as the rows name it) weigh WEIGHT in training, "
                  "the others 1; repeatable. Where the rows of two devices disagree, the device the model is "
                  "mostly to serve can be given the larger say");
}

// --device-weight values, checked: a device the rows hold, a positive weight.
std::map<std::string, double> device_weights_of(const data_options& o, const std::vector<std::string>& devices) {
  std::map<std::string, double> out;
  for (const auto& text : o.device_weights) {
    const auto eq = text.rfind('=');
    if (eq == std::string::npos || eq == 0)
      throw std::invalid_argument(fmt::format("--device-weight '{}' is not NAME=WEIGHT", text));
    const std::string name = text.substr(0, eq), value = text.substr(eq + 1);
    if (std::find(devices.begin(), devices.end(), name) == devices.end())
      throw std::invalid_argument(fmt::format("--device-weight '{}': the rows hold no device named '{}' (they hold: {})",
                                              text, name, fmt::join(devices, ", ")));
    double w = 0;
    std::size_t used = 0;
    try {
      w = std::stod(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != value.size() || !(w > 0) || !std::isfinite(w))
      throw std::invalid_argument(fmt::format("--device-weight '{}': the weight '{}' is not a positive number", text, value));
    out[name] = w;
  }
  return out;
}

struct loaded_data {
  std::vector<tuning::measurement> rows;
  std::vector<tuning::problem_source> sources;
  std::string fingerprint;
  std::vector<std::string> kernels;  // of the target kernel set, sorted
  std::vector<tuning::measured_problem> problems;
  std::vector<std::string> devices;
  std::map<std::string, double> device_weights;  // --device-weight, checked against `devices`
  std::string commits;
};

// This program's kernels of the op and arch (sorted) and their fingerprint.
std::string registered_set(const data_options& o, std::vector<std::string>* names,
                           const std::vector<std::string>& signatures = {}) {
  const arch_id arch = *parse<arch_id>(o.arch);
  if (o.op == "conv") return tuning::registered_conv_kernel_set(registry::global(), arch, names, signatures);
  if (o.op == "fmha") return tuning::registered_fmha_kernel_set(registry::global(), arch, names, signatures);
  return tuning::registered_kernel_set(registry::global(), arch, names, signatures);
}

loaded_data load(const data_options& o) {
  if (o.op != "gemm" && o.op != "conv" && o.op != "fmha")
    throw std::invalid_argument(fmt::format("--op '{}' is not gemm, conv or fmha", o.op));
  if (!parse<arch_id>(o.arch)) throw std::invalid_argument(fmt::format("--arch '{}' is not a known arch", o.arch));
  if (o.train.objective.rfind("rank:", 0) != 0)
    throw std::invalid_argument(fmt::format("--objective '{}' is not a ranking objective (rank:ndcg, rank:pairwise, "
                                            "rank:map): the model ranks kernels, it does not regress times",
                                            o.train.objective));
  tuning::tuning_db all(":memory:");
  for (const auto& in : o.inputs) {
    if (!std::filesystem::exists(in)) throw std::invalid_argument(fmt::format("--db '{}' does not exist", in));
    if (in.ends_with(".jsonl") || in.ends_with(".json")) {
      all.import_jsonl(in);
    } else {
      tuning::tuning_db db(in, true);
      for (const auto& s : db.kernel_sets()) all.add_kernel_set(s);
      for (const auto& s : db.sources()) all.add_source(s);
      for (const auto& m : db.measurements()) all.add(m);
    }
  }
  loaded_data d;
  d.rows = all.measurements(o.arch);
  std::erase_if(d.rows, [&](const tuning::measurement& m) { return m.op != o.op; });
  d.sources = all.sources();
  if (d.rows.empty())
    throw std::invalid_argument(fmt::format("the databases hold no {} measurement of {}", o.op, o.arch));
  std::map<std::string, std::size_t> uses;
  std::set<std::string> devices, commits;
  for (const auto& m : d.rows) {
    ++uses[m.kernel_set];
    devices.insert(m.machine.device_name);
    commits.insert(m.machine.kdecl_commit);
  }
  d.devices.assign(devices.begin(), devices.end());
  d.device_weights = device_weights_of(o, d.devices);
  for (const auto& c : commits) d.commits += (d.commits.empty() ? "" : ",") + c;
  std::vector<std::string> reg_names;
  const std::string reg_fp = registered_set(o, &reg_names);
  if (o.kernel_set == "registry" || (o.kernel_set == "auto" && !reg_names.empty())) {
    if (reg_names.empty())
      throw std::invalid_argument(
          fmt::format("--kernel-set registry: this program registers no {} {} kernel", o.arch, o.op));
    d.fingerprint = reg_fp;
    d.kernels = reg_names;
  } else {
    std::string want = o.kernel_set;
    if (want == "auto") {
      // The set most rows were measured with.
      want = std::max_element(uses.begin(), uses.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
    }
    for (const auto& s : all.kernel_sets())
      if (s.fingerprint == want) {
        d.fingerprint = s.fingerprint;
        d.kernels = s.kernels;
      }
    if (d.fingerprint.empty())
      throw std::invalid_argument(fmt::format("--kernel-set '{}' is not recorded in the databases", want));
  }
  const std::set<std::string> subset(d.kernels.begin(), d.kernels.end());
  d.problems = tuning::measured_problems(d.rows, d.sources, o.arch, subset, 2, o.op);
  if (d.problems.empty())
    throw std::invalid_argument(fmt::format("no problem has two or more measured kernels of kernel set {}", d.fingerprint));
  return d;
}

tuning::ranking_model train_on(const std::vector<tuning::measured_problem>& problems, const data_options& o,
                               const loaded_data& d) {
  std::vector<tuning::ranking_group> groups;
  for (const auto& p : problems) {
    groups.push_back(tuning::ranking_group_of(p));
    if (auto w = d.device_weights.find(p.device); w != d.device_weights.end()) groups.back().weight = float(w->second);
  }
  tuning::model_info info;
  info.device_weights = d.device_weights;
  info.op = o.op;
  info.arch = o.arch;
  info.kernel_set = d.fingerprint;
  info.kernel_count = d.kernels.size();
  info.trained_on = o.inputs;
  info.devices = d.devices;
  info.created = tuning::utc_now();
  info.kdecl_commit = d.commits;
  std::set<std::string> signatures;
  for (const auto& p : problems) signatures.insert(p.signature);
  info.signatures.assign(signatures.begin(), signatures.end());
  // The model stays valid while the kernels of its signatures stay as they are:
  // kernels of other dtypes or layouts may be added without retraining.
  auto scoped = o.op == "conv"   ? tuning::conv_kernels_of_signatures(d.kernels, info.signatures)
                : o.op == "fmha" ? tuning::fmha_kernels_of_signatures(d.kernels, info.signatures)
                                 : tuning::kernels_of_signatures(d.kernels, info.signatures);
  info.kernel_set_scope = "signatures";
  // GEMM: and of the pipelines whose kernels were measured; kernels of another pipeline (in the
  // registry, or added later) leave the model valid, and the analytical ranking decides between
  // them and the model's kernels (src/tuning/selection_tiers.cpp).
  if (o.op == "gemm") {
    std::vector<std::string> measured;
    for (const auto& p : problems) measured.insert(measured.end(), p.kernels.begin(), p.kernels.end());
    info.pipelines = tuning::pipelines_of(measured);
    std::erase_if(scoped, [&](const std::string& n) {
      const auto pipe = tuning::pipelines_of({n});
      return pipe.empty() || std::find(info.pipelines.begin(), info.pipelines.end(), pipe.front()) == info.pipelines.end();
    });
  }
  info.kernel_set = tuning::fingerprint_of(scoped);
  info.kernel_count = scoped.size();
  return tuning::ranking_model::train(groups, o.train, info);
}

}  // namespace

void add_train_command(CLI::App& app, command_state& state) {
  auto* cmd = app.add_subcommand("train", "train the learned ranking model (XGBoost) from tuning databases");
  auto o = std::make_shared<data_options>();
  auto out = std::make_shared<std::string>();
  add_data_options(cmd, *o);
  cmd->add_option("--out", *out, "model file (<stem>.model.json; the sidecar is <stem>.meta.json)")->required();
  cmd->callback([&state, o, out] {
    state.action = [o, out]() -> int {
      auto d = load(*o);
      auto model = train_on(d.problems, *o, d);
      model.save(*out);
      fmt::print("trained {} ({} rounds) on {} {} problems, {} rows of {}; kernel set {} ({} kernels); wrote {} and {}\n",
                 o->train.objective, o->train.rounds, model.info().groups, o->op, model.info().rows, o->arch, d.fingerprint,
                 d.kernels.size(), *out, tuning::sidecar_path(*out));
      return 0;
    };
  });
}

namespace {

struct split_result {
  std::string split;
  std::vector<tuning::tier_figures> tiers;  // analytical, learned
  std::map<std::string, std::vector<tuning::tier_figures>> per_family;
  std::map<std::string, std::vector<tuning::tier_figures>> per_device;  // where the rows come from two or more
};

// The held-out choices `analytical` and `learned` of `tested`, grouped by `groups_of(problem)` (a
// problem may count in several groups); empty unless there are two groups or more.
template <class GroupsOf>
std::map<std::string, std::vector<tuning::tier_figures>> grouped_figures(
    const std::vector<tuning::measured_problem>& tested, const std::vector<std::vector<std::size_t>>& analytical,
    const std::vector<std::vector<std::size_t>>& learned, GroupsOf groups_of) {
  std::map<std::string, std::vector<std::size_t>> members;
  for (std::size_t i = 0; i < tested.size(); ++i)
    for (const auto& g : groups_of(tested[i])) members[g].push_back(i);
  std::map<std::string, std::vector<tuning::tier_figures>> out;
  if (members.size() < 2) return out;
  for (const auto& [group, idx] : members) {
    std::vector<tuning::measured_problem> t;
    std::vector<std::vector<std::size_t>> a, l;
    for (std::size_t i : idx) {
      t.push_back(tested[i]);
      a.push_back(analytical[i]);
      l.push_back(learned[i]);
    }
    out[group] = {tuning::figures_of("analytical model", t, a), tuning::figures_of("learned model", t, l)};
  }
  return out;
}

// Trains on `train`, orders each test problem by each tier.
std::vector<std::vector<std::size_t>> model_orders(const std::vector<tuning::measured_problem>& train,
                                                   const std::vector<tuning::measured_problem>& test,
                                                   const data_options& o, const loaded_data& d) {
  auto model = train_on(train, o, d);
  std::vector<std::vector<std::size_t>> out;
  for (const auto& p : test) out.push_back(tuning::model_order(model, p));
  return out;
}

nlohmann::json to_json(const tuning::tier_figures& f) {
  return {{"tier", f.tier}, {"problems", f.problems}, {"mean", f.mean}, {"p10", f.p10}, {"worst", f.worst},
          {"top1_hit", f.top1_hit}, {"top_k_mean_99", f.top_k_mean_99}, {"top_k_all_99", f.top_k_all_99},
          {"efficiencies", f.efficiencies}, {"worst_cases", [&] {
             auto a = nlohmann::json::array();
             for (const auto& w : f.worst_cases)
               a.push_back({{"problem", w.problem}, {"chosen", w.chosen}, {"oracle", w.oracle}, {"efficiency", w.efficiency}});
             return a;
           }()}};
}

std::string k_text(int k) { return k ? std::to_string(k) : std::string("never"); }

// The model families a problem's layers come from (tuning::family_of each model).
std::set<std::string> families_of(const tuning::measured_problem& p) {
  std::set<std::string> out;
  for (const auto& m : p.models) out.insert(tuning::family_of(m));
  return out;
}

}  // namespace

void add_eval_selection_command(CLI::App& app, command_state& state) {
  auto* cmd = app.add_subcommand("eval-selection",
                                 "judge the selection tiers on problems held out from training (k folds by problem; "
                                 "leave one model family out)");
  auto o = std::make_shared<data_options>();
  auto out = std::make_shared<std::string>("selection-eval");
  auto name = std::make_shared<std::string>();
  auto folds = std::make_shared<int>(5);
  auto note = std::make_shared<std::string>();
  add_data_options(cmd, *o);
  cmd->add_option("--out", *out, "output folder (markdown, JSON, PNG)")->capture_default_str();
  cmd->add_option("--name", *name, "file stem (default selection_<arch>)");
  cmd->add_option("--folds", *folds, "folds of the split by problem")->capture_default_str()->check(CLI::Range(2, 100));
  cmd->add_option("--note", *note, "a line for the report's header (GPU, date, commit)");
  cmd->callback([&state, o, out, name, folds, note] {
    state.action = [o, out, name, folds, note]() -> int {
      auto d = load(*o);
      const auto& all = d.problems;
      if (all.size() < std::size_t(*folds))
        throw std::invalid_argument(fmt::format("{} problems cannot be split into {} folds", all.size(), *folds));
      std::vector<split_result> results;

      // 1. k folds by problem key (a shape measured on two devices stays in one fold).
      {
        std::vector<std::string> keys;
        for (const auto& p : all) keys.push_back(p.key);
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        std::shuffle(keys.begin(), keys.end(), std::mt19937(1234));
        std::map<std::string, int> fold;
        for (std::size_t i = 0; i < keys.size(); ++i) fold[keys[i]] = int(i % std::size_t(*folds));
        std::vector<tuning::measured_problem> tested;
        std::vector<std::vector<std::size_t>> analytical, learned;
        for (int f = 0; f < *folds; ++f) {
          std::vector<tuning::measured_problem> train, test;
          for (const auto& p : all) (fold[p.key] == f ? test : train).push_back(p);
          auto orders = model_orders(train, test, *o, d);
          for (std::size_t i = 0; i < test.size(); ++i) {
            analytical.push_back(tuning::analytical_order(test[i]));
            learned.push_back(orders[i]);
            tested.push_back(test[i]);
          }
        }
        // The same held-out choices, grouped by the families a problem's layers come from (a
        // shape two families share counts in both), and by the device that timed them.
        auto per_family = grouped_figures(tested, analytical, learned, families_of);
        auto per_device = grouped_figures(tested, analytical, learned, [](const tuning::measured_problem& p) {
          return std::vector<std::string>{p.device};
        });
        results.push_back({fmt::format("{}-fold by problem", *folds),
                           {tuning::figures_of("analytical model", tested, analytical),
                            tuning::figures_of("learned model", tested, learned)},
                           std::move(per_family), std::move(per_device)});
      }
      // 2. Leave one model family out: train on the other networks' shapes only.
      {
        std::set<std::string> families;
        for (const auto& p : all) families.merge(families_of(p));
        if (families.size() >= 2) {
          split_result r{"leave one model family out", {}, {}, {}};
          std::vector<tuning::measured_problem> tested;
          std::vector<std::vector<std::size_t>> analytical, learned;
          for (const auto& fam : families) {
            std::vector<tuning::measured_problem> train, test;
            for (const auto& p : all) (families_of(p).count(fam) ? test : train).push_back(p);
            if (test.empty() || train.empty()) continue;
            auto orders = model_orders(train, test, *o, d);
            std::vector<std::vector<std::size_t>> fa, fl;
            for (std::size_t i = 0; i < test.size(); ++i) {
              fa.push_back(tuning::analytical_order(test[i]));
              fl.push_back(orders[i]);
            }
            r.per_family[fam] = {tuning::figures_of("analytical model", test, fa),
                                 tuning::figures_of("learned model", test, fl)};
            tested.insert(tested.end(), test.begin(), test.end());
            analytical.insert(analytical.end(), fa.begin(), fa.end());
            learned.insert(learned.end(), fl.begin(), fl.end());
          }
          r.tiers = {tuning::figures_of("analytical model", tested, analytical),
                     tuning::figures_of("learned model", tested, learned)};
          results.push_back(std::move(r));
        }
      }

      const std::string stem = name->empty() ? (o->op == "gemm" ? "selection_" : "selection_" + o->op + "_") + o->arch
                                             : *name;
      std::filesystem::create_directories(*out);
      nlohmann::json doc{{"op", o->op}, {"arch", o->arch}, {"kernel_set", d.fingerprint}, {"kernels", d.kernels.size()},
                         {"problems", all.size()}, {"rows", d.rows.size()}, {"devices", d.devices},
                         {"kdecl_commit", d.commits}, {"objective", o->train.objective}, {"rounds", o->train.rounds},
                         {"note", *note}, {"inputs", o->inputs}, {"splits", nlohmann::json::array()}};
      std::size_t max_candidates = 0, sum_candidates = 0;
      for (const auto& p : all) {
        max_candidates = std::max(max_candidates, p.kernels.size());
        sum_candidates += p.kernels.size();
      }
      std::string md = fmt::format(
          "# {} kernel selection on problems held out from training ({})\n\n{}{}"
          "{} problems ({} distinct keys on {}), {} to {:.0f} (mean) measured kernels each, kernel set {} "
          "({} kernels), XGBoost {} with {} rounds.\n"
          "Efficiency = oracle time / chosen kernel's time (oracle: the fastest measured kernel). "
          "P10 = the efficiency 90% of problems reach or exceed (\"worst tenth\"). "
          "top-k for 99%: the smallest k for which the best of the tier's first k kernels reaches 0.99 of the "
          "oracle on average (mean) or on every problem (all).\n"
          "The tuning database tier is exact-hit only: on held-out problems it never hits and the dispatcher falls "
          "through to the learned model; on a tuned problem it returns the fastest measured kernel (efficiency 1 "
          "up to the measurement's own noise).\n\n"
          "| split | tier | problems | mean | P10 (worst tenth) | worst | top-1 hit | top-k for 99% (mean) | "
          "top-k for 99% (all) |\n|---|---|---|---|---|---|---|---|---|\n",
          o->op == "conv" ? "Convolution" : o->op == "fmha" ? "Attention" : "GEMM", o->arch, note->empty() ? "" : *note + "\n\n", "", all.size(),
          std::set<std::string>([&] { std::set<std::string> k; for (auto& p : all) k.insert(p.key); return k; }()).size(),
          fmt::join(d.devices, ", "),
          std::min_element(all.begin(), all.end(), [](auto& a, auto& b) { return a.kernels.size() < b.kernels.size(); })
              ->kernels.size(),
          double(sum_candidates) / double(all.size()), d.fingerprint, d.kernels.size(), o->train.objective,
          o->train.rounds);
      (void)max_candidates;
      for (const auto& r : results) {
        nlohmann::json js{{"split", r.split}, {"tiers", nlohmann::json::array()}, {"families", nlohmann::json::object()}};
        for (const auto& f : r.tiers) {
          js["tiers"].push_back(to_json(f));
          md += fmt::format("| {} | {} | {} | {:.3f} | {:.3f} | {:.3f} | {:.0f}% | {} | {} |\n", r.split, f.tier,
                            f.problems, f.mean, f.p10, f.worst, 100 * f.top1_hit, k_text(f.top_k_mean_99),
                            k_text(f.top_k_all_99));
        }
        for (const auto& [fam, v] : r.per_family) {
          js["families"][fam] = nlohmann::json::array();
          for (const auto& f : v) js["families"][fam].push_back(to_json(f));
        }
        if (!r.per_device.empty()) js["devices"] = nlohmann::json::object();
        for (const auto& [dev, v] : r.per_device) {
          js["devices"][dev] = nlohmann::json::array();
          for (const auto& f : v) js["devices"][dev].push_back(to_json(f));
        }
        doc["splits"].push_back(js);
      }
      for (const auto& r : results)
        for (const auto& f : r.tiers) {
          if (f.tier != "learned model" || f.worst_cases.empty()) continue;
          md += fmt::format("\nThe learned model's worst choices ({}):\n\n| problem | efficiency | chosen | fastest |\n"
                            "|---|---|---|---|\n", r.split);
          for (const auto& w : f.worst_cases)
            md += fmt::format("| {} | {:.3f} | {} | {} |\n", w.problem, w.efficiency, w.chosen, w.oracle);
        }
      for (const auto& r : results) {
        if (r.per_family.empty()) continue;
        const bool by_family = r.split == "leave one model family out";
        md += fmt::format("\n{}:\n\n| family | problems | analytical mean / P10 / worst | learned mean / P10 / worst "
                          "|\n|---|---|---|---|\n",
                          by_family ? "Per held-out family (trained on the other families' shapes)"
                                    : fmt::format("Per family, {} (each problem judged in the fold that held it out)", r.split));
        for (const auto& [fam, v] : r.per_family)
          md += fmt::format("| {} | {} | {:.3f} / {:.3f} / {:.3f} | {:.3f} / {:.3f} / {:.3f} |\n", fam, v[0].problems,
                            v[0].mean, v[0].p10, v[0].worst, v[1].mean, v[1].p10, v[1].worst);
      }
      for (const auto& r : results) {
        if (r.per_device.empty()) continue;
        md += fmt::format("\nPer device, {} (each problem judged in the fold that held it out, by its own device's "
                          "timings):\n\n| device | problems | analytical mean / P10 / worst | learned mean / P10 / worst "
                          "|\n|---|---|---|---|\n",
                          r.split);
        for (const auto& [dev, v] : r.per_device)
          md += fmt::format("| {} | {} | {:.3f} / {:.3f} / {:.3f} | {:.3f} / {:.3f} / {:.3f} |\n", dev, v[0].problems,
                            v[0].mean, v[0].p10, v[0].worst, v[1].mean, v[1].p10, v[1].worst);
      }
      std::string weights;
      for (const auto& w : o->device_weights) weights += fmt::format(" --device-weight '{}'", w);
      md += fmt::format("\nReproduce: `kdecl eval-selection --op {} --db {} --arch {} --kernel-set {} --objective {} "
                        "--rounds {} --max-depth {} --eta {}{} --folds {} --out {}`\n",
                        o->op, fmt::join(o->inputs, " --db "), o->arch, d.fingerprint, o->train.objective,
                        o->train.rounds, o->train.max_depth, o->train.eta, weights, *folds, *out);
      std::ofstream(*out + "/" + stem + ".json") << doc.dump(1) << "\n";
      std::ofstream(*out + "/" + stem + ".md") << md;
      fmt::print("{}", md);
      const char* script = std::getenv("KDECL_SELECTION_PLOT_SCRIPT");
      std::string plot = fmt::format("python3 '{}' '{}/{}.json' '{}/{}.png' 2>&1",
                                     script ? script : KDECL_SELECTION_PLOT_SCRIPT, *out, stem, *out, stem);
      if (std::system(plot.c_str()) != 0)
        fmt::print(stderr, "kdecl: no plot drawn (needs python3 with matplotlib)\n");
      return 0;
    };
  });
}

}  // namespace kdecl::cli
