// Cost of selection with the learned ranking model among 1,000 candidates.
//
// 1,000 distinct sm_90 kernels of one signature (bf16 rcr; tiles, k tiles,
// stages, epilogues, access widths, padding) are registered as timing doubles
// (run() does nothing: the cost measured is the dispatcher's). A model of the
// shipped model's size (300 rounds, depth 8) is trained on the analytical
// model's own ranking of 40 problems (its quality is not the point here), then
// select() is timed per call: the first call for each of 500 distinct problems
// (the model scores every eligible kernel) and then 20 calls per problem
// (cached by problem key), beside the analytical tier alone.
// Usage: kdecl_selection_bench [OUT.json]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kdecl/gemm/gemm_dispatcher.hpp"
#include "kdecl/gemm/gemm_heuristic.hpp"
#include "kdecl/tuning/features.hpp"
#include "kdecl/tuning/ranking_model.hpp"
#include "kdecl/tuning/selection_tiers.hpp"
#include "machine_name.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

class timing_double final : public kdecl::gemm_instance {
 public:
  explicit timing_double(const kdecl::gemm_key& k) : gemm_instance(k) {}
  std::optional<std::string> why_not(const kdecl::gemm_problem&, const kdecl::gemm_args&) const override {
    return std::nullopt;
  }
  kdecl::status run(const kdecl::gemm_problem&, const kdecl::gemm_args&, void*) const override {
    return kdecl::status::ok();
  }
  std::size_t workspace_bytes(const kdecl::gemm_problem&) const override { return 0; }
};

std::vector<kdecl::gemm_key> thousand_keys() {
  using namespace kdecl;
  std::vector<gemm_key> keys;
  for (int tm : {64, 128, 192, 256})
    for (int tn : {64, 128, 192, 256})
      for (int tk : {32, 64})
        for (int stages = 2; stages <= 6; ++stages)
          for (epilogue e : {epilogue::direct, epilogue::cshuffle})
            for (int vb : {16, 8, 4})
              for (tristate pad : {tristate::yes, tristate::no}) {
                if (keys.size() == 1000) return keys;
                gemm_key k;
                k.sig.a = k.sig.b = k.sig.c = k.sig.compute = dtype::bf16;
                k.sig.acc = dtype::fp32;
                k.sig.lay = rcr;
                k.algo.tile = {tm, tn, tk};
                k.algo.warps = {2, 2, 1};
                k.algo.warp_tile = {32, 32, 16};
                k.algo.pipe = pipeline::cp_async;
                k.algo.stages = stages;
                k.algo.epi = e;
                k.algo.sched = scheduler::intrawave;
                k.algo.pad_m = k.algo.pad_n = k.algo.pad_k = pad;
                k.algo.vector_bytes = vb;
                k.algo.arch = arch_id::sm_90;
                keys.push_back(k);
              }
  return keys;
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}
double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::size_t(q * double(v.size() - 1))];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kdecl;
  registry reg;
  for (const auto& k : thousand_keys()) reg.add(std::make_shared<timing_double>(k), "bench");
  const device dev{arch_id::sm_90, 0, "offline sm_90"};

  // Problems: multiples of 128 so every kernel (padded or not) is eligible: 1,000 candidates.
  std::vector<gemm_problem> problems;
  for (int i = 0; problems.size() < 500; ++i)
    problems.push_back(gemm_problem{}
                           .sizes(128 * (1 + i % 37), 128 * (1 + (i * 7) % 41), 128 * (1 + (i * 13) % 29))
                           .dtype(dtype::bf16)
                           .layout(rcr)
                           .normalized());

  // A model of the shipped size, taught the analytical order on 40 problems.
  gemm_dispatcher teacher(dev, reg);
  teacher.clear_tiers();
  std::vector<tuning::ranking_group> groups;
  for (int i = 0; i < 40; ++i) {
    auto ranked = teacher.ranked(problems[std::size_t(i) * 7 % problems.size()]);
    tuning::ranking_group g;
    for (const auto& [k, us] : ranked) {
      g.rows.push_back(tuning::features_of(problems[std::size_t(i) * 7 % problems.size()], k->key(), us,
                                           ranked.front().second, {}));
      g.labels.push_back(tuning::relevance_of(ranked.front().second / us));
    }
    groups.push_back(std::move(g));
  }
  tuning::model_info info;
  info.arch = "sm_90";
  info.kernel_set = tuning::registered_kernel_set(reg, arch_id::sm_90);
  info.kernel_count = 1000;
  tuning::train_options opt;
  opt.max_depth = 8;  // as models/gemm_sm_90.model.json (since 2026-11-28)
  auto model = std::make_shared<const tuning::ranking_model>(tuning::ranking_model::train(groups, opt, info));

  gemm_dispatcher analytical(dev, reg);
  analytical.clear_tiers();
  gemm_dispatcher learned(dev, reg);
  learned.clear_tiers();
  std::string why;
  auto tier = tuning::model_tier(model, dev, reg, why);
  if (!tier) {
    fmt::print(stderr, "model refused: {}\n", why);
    return 1;
  }
  learned.add_tier(tier);

  auto time_call = [](const gemm_dispatcher& d, const gemm_problem& p, std::string* tier_name) {
    auto t0 = clock_type::now();
    auto sel = d.select(p);
    auto t1 = clock_type::now();
    if (tier_name) *tier_name = sel.tier;
    if (!sel) std::abort();
    return std::chrono::duration<double, std::micro>(t1 - t0).count();
  };
  std::vector<double> first, cached, plain;
  std::string tier_name;
  for (const auto& p : problems) first.push_back(time_call(learned, p, &tier_name));
  if (tier_name != "learned model") {
    fmt::print(stderr, "the learned tier did not choose ({})\n", tier_name);
    return 1;
  }
  for (int rep = 0; rep < 20; ++rep)
    for (const auto& p : problems) {
      cached.push_back(time_call(learned, p, nullptr));
      plain.push_back(time_call(analytical, p, nullptr));
    }
  // Where a first call's time goes: eligibility and estimates, features, the trees.
  std::vector<double> t_ranked, t_features, t_score;
  for (std::size_t i = 0; i < 100; ++i) {
    const auto& p = problems[i];
    auto t0 = clock_type::now();
    auto ranked = analytical.ranked(p);
    auto t1 = clock_type::now();
    tuning::feature_matrix rows;
    rows.reserve(ranked.size(), tuning::feature_count);
    for (const auto& [k, us] : ranked) rows.push_back(tuning::features_of(p, k->key(), us, ranked.front().second, {}));
    auto t2 = clock_type::now();
    auto scores = model->score(rows);
    auto t3 = clock_type::now();
    if (scores.size() != ranked.size()) std::abort();
    t_ranked.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    t_features.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
    t_score.push_back(std::chrono::duration<double, std::micro>(t3 - t2).count());
  }
  const char* date = std::getenv("KDECL_BENCH_DATE");
  const char* commit = std::getenv("KDECL_BENCH_COMMIT");
  nlohmann::json doc{{"date", date ? date : ""},
                     {"commit", commit ? commit : ""},
                     {"machine", kdecl::bench::machine_name()},
                     {"candidates", 1000},
                     {"problems", problems.size()},
                     {"model", {{"rounds", opt.rounds}, {"max_depth", opt.max_depth}, {"features", tuning::feature_count}}},
                     {"learned_first_call_us", {{"median", median(first)}, {"p99", percentile(first, 0.99)}}},
                     {"learned_cached_us", {{"median", median(cached)}, {"p99", percentile(cached, 0.99)}}},
                     {"analytical_us", {{"median", median(plain)}, {"p99", percentile(plain, 0.99)}}},
                     {"first_call_parts_median_us",
                      {{"eligible_and_estimates", median(t_ranked)}, {"features", median(t_features)},
                       {"trees", median(t_score)}}}};
  fmt::print("{}\n", doc.dump(2));
  if (argc > 1) std::ofstream(argv[1]) << doc.dump(2) << "\n";
  return 0;
}
