// Cost of selection with the learned ranking model for convolution and attention,
// as kdecl_selection_bench measures it for GEMM: candidates registered as doubles
// whose run() does nothing (the cost measured is the dispatcher's), a model of the
// shipped GEMM model's size (300 rounds, depth 6) taught the analytical order, then
// select() timed per call: the first call of each distinct problem (every eligible
// kernel is scored) and 20 repeated calls per problem (cached by problem key),
// beside the analytical tier alone.
//   convolution: 480 sm_90 forward bf16 kernels (tiles, stages, access widths);
//   attention:   18 sm_80 mma_sync bf16 kernels (tiles, stages) per mask, two masks.
// Usage: kdecl_selection_cost_ops [OUT.json]
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kdecl/conv/conv_dispatcher.hpp"
#include "kdecl/fmha/fmha_dispatcher.hpp"
#include "kdecl/tuning/conv_features.hpp"
#include "kdecl/tuning/conv_selection_tiers.hpp"
#include "kdecl/tuning/fmha_features.hpp"
#include "kdecl/tuning/fmha_selection_tiers.hpp"
#include "kdecl/tuning/ranking_model.hpp"
#include "machine_name.hpp"

namespace {

using namespace kdecl;
using clock_type = std::chrono::steady_clock;

class conv_double final : public conv_instance {
 public:
  explicit conv_double(const grouped_conv_key& k) : conv_instance(k) {}
  std::optional<std::string> why_not(const grouped_conv_problem&, const grouped_conv_args&) const override { return {}; }
  status run(const grouped_conv_problem&, const grouped_conv_args&, void*) const override { return status::ok(); }
  std::size_t workspace_bytes(const grouped_conv_problem&) const override { return 0; }
};

class fmha_double final : public fmha_instance {
 public:
  explicit fmha_double(const fmha_key& k) : fmha_instance(k) {}
  std::optional<std::string> why_not(const fmha_problem&, const fmha_args&) const override { return {}; }
  status run(const fmha_problem&, const fmha_args&, void*) const override { return status::ok(); }
  std::size_t workspace_bytes(const fmha_problem&) const override { return 0; }
};

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, std::size_t(q * double(v.size())))];
}

template <class Dispatcher, class Problem>
double time_select(const Dispatcher& d, const Problem& p, std::string* tier) {
  const auto t0 = clock_type::now();
  auto sel = d.select(p);
  const auto t1 = clock_type::now();
  if (!sel) std::abort();
  if (tier) *tier = sel.tier;
  return std::chrono::duration<double, std::micro>(t1 - t0).count();
}

// Trains on the analytical order of the first problems, then times both tiers.
template <class Dispatcher, class Problem, class Features, class ModelTier>
nlohmann::json measure(const char* op, const device& dev, const registry& reg, const std::vector<Problem>& problems,
                       Features&& features, ModelTier&& model_tier, std::size_t candidates) {
  Dispatcher analytical(dev, reg);
  analytical.clear_tiers();
  std::vector<tuning::ranking_group> groups;
  for (std::size_t i = 0; i < std::min<std::size_t>(40, problems.size()); ++i) {
    auto ranked = analytical.ranked(problems[i]);
    tuning::ranking_group g;
    for (const auto& [k, us] : ranked) {
      g.rows.push_back(features(problems[i], k->key(), us, ranked.front().second));
      g.labels.push_back(tuning::relevance_of(ranked.front().second / us));
    }
    groups.push_back(std::move(g));
  }
  tuning::model_info info;
  info.op = op;
  info.arch = std::string(to_string(dev.arch));
  info.kernel_set = std::string(op) == "conv" ? tuning::registered_conv_kernel_set(reg, dev.arch)
                                              : tuning::registered_fmha_kernel_set(reg, dev.arch);
  const tuning::train_options opt;  // 300 rounds, depth 6
  auto model = std::make_shared<const tuning::ranking_model>(tuning::ranking_model::train(groups, opt, info));
  Dispatcher learned(dev, reg);
  learned.clear_tiers();
  std::string why;
  auto tier = model_tier(model, dev, reg, why);
  if (!tier) {
    fmt::print(stderr, "{} model refused: {}\n", op, why);
    std::exit(1);
  }
  learned.add_tier(tier);
  std::vector<double> first, cached, plain;
  std::string chosen_by;
  for (const auto& p : problems) first.push_back(time_select(learned, p, &chosen_by));
  if (chosen_by != "learned model") {
    fmt::print(stderr, "{}: the learned tier did not choose ({})\n", op, chosen_by);
    std::exit(1);
  }
  for (int rep = 0; rep < 20; ++rep)
    for (const auto& p : problems) {
      cached.push_back(time_select(learned, p, nullptr));
      plain.push_back(time_select(analytical, p, nullptr));
    }
  return {{"candidates", candidates},
          {"eligible_median", [&] {
             std::vector<double> n;
             for (const auto& p : problems) n.push_back(double(analytical.ranked(p).size()));
             return percentile(n, 0.5);
           }()},
          {"problems", problems.size()},
          {"model", {{"rounds", opt.rounds}, {"max_depth", opt.max_depth}, {"features", info.op == "conv"
                                                                                         ? tuning::conv_feature_count
                                                                                         : tuning::fmha_feature_count}}},
          {"learned_first_call_us", {{"median", percentile(first, 0.5)}, {"p99", percentile(first, 0.99)}}},
          {"learned_cached_us", {{"median", percentile(cached, 0.5)}, {"p99", percentile(cached, 0.99)}}},
          {"analytical_us", {{"median", percentile(plain, 0.5)}, {"p99", percentile(plain, 0.99)}}}};
}

}  // namespace

int main(int argc, char** argv) {
  // Convolution: 480 forward kernels on an offline sm_90.
  const device sm90{arch_id::sm_90, 0, "offline sm_90"};
  registry conv_reg;
  std::size_t conv_count = 0;
  for (int tm : {32, 64, 128, 256})
    for (int tn : {32, 64, 128, 256})
      for (int tk : {32, 64})
        for (int stages = 2; stages <= 6; ++stages)
          for (int vector : {8, 4, 2}) {
            grouped_conv_key k;
            k.sig.dir = conv_direction::fwd;
            k.sig.in = k.sig.wei = k.sig.out = k.sig.compute = dtype::bf16;
            k.sig.acc = dtype::fp32;
            k.algo.tile = {tm, tn, tk};
            k.algo.warps = {2, 2, 1};
            k.algo.warp_tile = {tm / 2, tn / 2, 16};
            k.algo.pipe = pipeline::cp_async;
            k.algo.stages = stages;
            k.algo.epi = epilogue::cshuffle;
            k.algo.sched = scheduler::intrawave;
            k.algo.vector_in = k.algo.vector_wei = k.algo.vector_out = vector;
            k.algo.arch = arch_id::sm_90;
            conv_reg.add(std::make_shared<conv_double>(k), "bench");
            ++conv_count;
          }
  std::vector<grouped_conv_problem> conv_problems;
  for (std::int64_t n : {1, 8, 32})
    for (std::int64_t c : {64, 128, 256, 512})
      for (std::int64_t hw : {7, 14, 28, 56})
        for (std::int64_t f : {1, 3})
          for (std::int64_t g : {1, 32})
            conv_problems.push_back(grouped_conv_problem{}.batch(n).channels(c, c).groups(g).input_size({hw, hw})
                                        .filter_size({f}).padding({f / 2}).dtype(dtype::bf16).normalized());
  auto conv = measure<conv_dispatcher>(
      "conv", sm90, conv_reg, conv_problems,
      [](const grouped_conv_problem& p, const grouped_conv_key& k, double us, double best) {
        return tuning::conv_features_of(p, k, us, best, tuning::conv_alignment(p));
      },
      [](auto model, const device& d, const registry& r, std::string& why) {
        return tuning::conv_model_tier(std::move(model), d, r, why);
      },
      conv_count);

  // Attention: 18 kernels per mask on an offline sm_80.
  const device sm80{arch_id::sm_80, 0, "offline sm_80"};
  registry fmha_reg;
  std::size_t fmha_count = 0;
  for (auto mask : {fmha_mask::none, fmha_mask::bottom_right})
    for (int m0 : {64, 128})
      for (int n0 : {32, 64, 128})
        for (int stages : {2, 3, 4}) {
          fmha_key k;
          k.sig.qkv = k.sig.o = dtype::bf16;
          k.sig.hdim_q = k.sig.hdim_v = 128;
          k.sig.mask = mask;
          k.algo.pipe = fmha_pipeline::mma_sync;
          k.algo.arch = arch_id::sm_80;
          k.algo.tile = {m0, n0, 128, 128, n0, 128};
          k.algo.warps0 = k.algo.warps1 = {m0 / 16, 1, 1};
          k.algo.warp_tile0 = k.algo.warp_tile1 = {16, 8, 16};
          k.algo.stages = stages;
          fmha_reg.add(std::make_shared<fmha_double>(k), "bench");
          ++fmha_count;
        }
  std::vector<fmha_problem> fmha_problems;
  for (std::int64_t b : {1, 2, 8})
    for (std::int64_t s : {128, 512, 1024, 2048, 4096, 8192})
      for (std::int64_t hq : {8, 32})
        for (std::int64_t d : {64, 128})
          for (bool causal : {false, true}) {
            auto p = fmha_problem{}.sizes(b, s, s).heads(hq, 8).head_dim(d).dtype(dtype::bf16);
            if (causal) p.causal(fmha_mask::bottom_right);
            fmha_problems.push_back(p.normalized());
          }
  auto fmha = measure<fmha_dispatcher>(
      "fmha", sm80, fmha_reg, fmha_problems,
      [](const fmha_problem& p, const fmha_key& k, double us, double best) {
        return tuning::fmha_features_of(p, k, us, best);
      },
      [](auto model, const device& d, const registry& r, std::string& why) {
        return tuning::fmha_model_tier(std::move(model), d, r, why);
      },
      fmha_count);

  const char* date = std::getenv("KDECL_BENCH_DATE");
  const char* commit = std::getenv("KDECL_BENCH_COMMIT");
  nlohmann::json doc{{"date", date ? date : ""},
                     {"commit", commit ? commit : ""},
                     {"machine", kdecl::bench::machine_name()},
                     {"conv", conv},
                     {"fmha", fmha}};
  fmt::print("{}\n", doc.dump(2));
  if (argc > 1) std::ofstream(argv[1]) << doc.dump(2) << "\n";
  return 0;
}
