// Attention in the tuning path (issue 10): problem keys, features, training from
// fmha rows, and the tuning-database and learned-model tiers of the attention
// dispatcher, on the host with an offline sm_80 device and kernels that run
// nothing. The times are SYNTHETIC: the analytical estimate times penalties it
// does not know (tall query tiles on short sequences, narrow key tiles on long
// ones), so a model that learns from the features must beat the analytical tier
// on problems it never saw.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "kdecl/dsl/dsl.hpp"
#include "kdecl/fmha/fmha_dispatcher.hpp"
#include "kdecl/tuning/fmha_features.hpp"
#include "kdecl/tuning/fmha_problem_key.hpp"
#include "kdecl/tuning/fmha_selection_tiers.hpp"
#include "kdecl/tuning/ranking_model.hpp"
#include "kdecl/tuning/training_data.hpp"
#include "kdecl/tuning/tuning_db.hpp"

namespace kdecl::tuning {
namespace {

class fake_fmha final : public fmha_instance {
 public:
  explicit fake_fmha(const fmha_key& k) : fmha_instance(k) {}
  std::optional<std::string> why_not(const fmha_problem&, const fmha_args&) const override { return std::nullopt; }
  status run(const fmha_problem&, const fmha_args&, void*) const override { return status::ok(); }
  std::size_t workspace_bytes(const fmha_problem&) const override { return 0; }
};

fmha_key sm80_key(int m0, int n0, fmha_mask mask = fmha_mask::none, dtype d = dtype::bf16) {
  fmha_key k;
  k.sig.qkv = k.sig.o = d;
  k.sig.hdim_q = k.sig.hdim_v = 128;
  k.sig.mask = mask;
  k.sig.lse = true;
  k.algo.pipe = fmha_pipeline::mma_sync;
  k.algo.arch = arch_id::sm_80;
  k.algo.tile = {m0, n0, 0, 0, 0, 0};
  k.algo.warps0 = {m0 / 16, 1, 1};  // 16 rows per warp, as the shipped sets
  k = dsl::fmha_rules::with_defaults(k);
  EXPECT_TRUE(dsl::validate(k, arch_id::sm_80).ok()) << dsl::describe(dsl::validate(k, arch_id::sm_80)).view();
  return k;
}

const device sm80{arch_id::sm_80, -1, "sm_80 (offline)"};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(FmhaProblemKey, RoundTripsAndNamesBadSegments) {
  std::vector<fmha_problem> problems;
  problems.push_back(fmha_problem{}.sizes(2, 4096, 4096).heads(32, 8).head_dim(128).dtype(dtype::bf16).causal());
  problems.push_back(fmha_problem{}
                         .varlen({100, 7, 513}, {100, 300, 513})
                         .heads(16, 16)
                         .head_dims(192, 128)
                         .dtype(dtype::fp16)
                         .sliding_window(64, 0)
                         .alibi(true)
                         .logits_soft_cap(30.0f)
                         .softmax_scale(0.0883883f)
                         .with_sinks());
  problems.back().lse = true;
  problems.push_back(fmha_problem{}.sizes(3, 77, 129).heads(8, 1).head_dim(64).dtype(dtype::fp16).elementwise_bias(false, true));
  problems.push_back(fmha_problem{}.sizes(2, 256, 256).heads(8, 8).head_dim(64).dtype(dtype::bf16).bhsd());
  problems.push_back(fmha_problem{}.sizes(3, 77, 129).heads(8, 1).head_dim(64).dtype(dtype::fp16).key_bias(true, false));
  std::set<std::string> keys;
  for (const auto& p : problems) {
    const auto key = problem_key(p);
    const auto back = parse_fmha_problem_key(key);
    EXPECT_EQ(problem_key(back), key);
    EXPECT_EQ(back.cu_seqlens_q, p.normalized().cu_seqlens_q);
    EXPECT_EQ(back.scale, p.scale);
    EXPECT_EQ(back.q_strides, p.normalized().q_strides);
    keys.insert(key);
  }
  EXPECT_EQ(keys.size(), problems.size());
  EXPECT_EQ(problem_key(problems[0]),
            "fmha/bf16-bf16/batch/b2q4096k4096h32g8d128v128/top_left/none/nolse_nosinks_cap0_scale0/packed");
  EXPECT_NE(problem_key(problems[1]).find("/generic-l64r0/alibi-b/lse_sinks_cap30_scale0.0883883/packed/cu0,100,107,620_0,100,400,913"),
            std::string::npos)
      << problem_key(problems[1]);
  EXPECT_NE(problem_key(problems[2]).find("/elementwise_b0h1/"), std::string::npos) << problem_key(problems[2]);
  EXPECT_NE(problem_key(problems[4]).find("/elementwise_b1h0r0/"), std::string::npos) << problem_key(problems[4]);
  EXPECT_FALSE(parse_fmha_problem_key(problem_key(problems[4])).bias_per_row);
  EXPECT_NE(problem_key(problems[3]).find("/st"), std::string::npos) << problem_key(problems[3]);
  EXPECT_EQ(problem_signature(problems[1]), "fmha/fwd/fp16-fp16/group");

  const std::string good = problem_key(problems[0]);
  auto with = [&](std::string from, std::string to) {
    auto k = good;
    k.replace(k.find(from), from.size(), to);
    return k;
  };
  EXPECT_NE(error_of([&] { parse_fmha_problem_key("conv/x"); }).find("is not fmha/"), std::string::npos);
  EXPECT_NE(error_of([&] { parse_fmha_problem_key(with("h32g8", "h32g7")); }).find("names an invalid problem"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse_fmha_problem_key(with("top_left", "top_left-l3r4")); }).find("not generic"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse_fmha_problem_key(with("cap0", "capx")); }).find("'x' is not a number"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse_fmha_problem_key(with("batch", "group")); }).find("offsets segment disagree"),
            std::string::npos);
}

TEST(FmhaFeatures, NamesAndWhatTheyMeasure) {
  EXPECT_EQ(fmha_feature_names().size(), fmha_feature_count);
  EXPECT_EQ(feature_names_of("fmha").size(), fmha_feature_count);
  auto at = [](std::string_view name) {
    const auto& n = fmha_feature_names();
    return std::size_t(std::find(n.begin(), n.end(), name) - n.begin());
  };
  const auto p = fmha_problem{}.sizes(2, 1000, 1000).heads(32, 8).head_dim(96).dtype(dtype::bf16).causal().normalized();
  const auto k = sm80_key(64, 64);
  const auto f = fmha_features_of(p, k, fmha_estimate_us(k, p), 1.0);
  EXPECT_FLOAT_EQ(f[at("log2_head_ratio")], 2.0f);
  EXPECT_FLOAT_EQ(f[at("padded_hdim_q")], 128.0f);
  EXPECT_FLOAT_EQ(f[at("hdim_waste")], 0.25f);
  EXPECT_NEAR(f[at("attended_share")], 0.5, 0.01);  // causal: about half the pairs
  EXPECT_FLOAT_EQ(f[at("kv_iterations")], 16.0f);   // ceil(1000 / 64)
  EXPECT_NEAR(f[at("q_waste")], 24.0 / 1024.0, 1e-6);
}

struct synthetic_fmha {
  registry reg;
  tuning_db db{":memory:"};
  std::vector<fmha_problem> problems;

  static double measured_ms(const fmha_key& k, const fmha_problem& p) {
    double penalty = 1.0;
    if (k.algo.tile.m0 == 128 && p.seqlen_q < 512) penalty *= 1.8;
    if (k.algo.tile.n0 == 32 && p.seqlen_kv > 2048) penalty *= 1.4;
    return fmha_estimate_us(k, p) * penalty / 1000.0;
  }

  synthetic_fmha() {
    // Four tiles for each of the two masks the problems use (the dispatcher matches masks exactly).
    for (auto mask : {fmha_mask::none, fmha_mask::bottom_right})
      for (auto [m0, n0] : {std::pair{64, 64}, {128, 64}, {64, 32}, {128, 32}})
        reg.add(std::make_shared<fake_fmha>(sm80_key(m0, n0, mask)), "synthetic");
    std::mt19937 rng(11);
    auto pick = [&](std::initializer_list<std::int64_t> v) { return *(v.begin() + rng() % v.size()); };
    fmha_dispatcher d(sm80, reg);
    d.clear_tiers();
    for (int attempt = 0; attempt < 20000 && problems.size() < 150; ++attempt) {
      const std::int64_t s = pick({64, 128, 200, 256, 384, 512, 1024, 2048, 3000, 4096, 8192});
      auto p = fmha_problem{}.sizes(pick({1, 2, 4, 8}), s, pick({1, 2}) * s).heads(pick({8, 16, 32}), 8)
                   .head_dim(pick({64, 96, 128})).dtype(dtype::bf16);
      if (pick({0, 1})) p.causal(fmha_mask::bottom_right);
      p = p.normalized();
      if (p.validate() || d.ranked(p).size() < 4) continue;
      const auto key = problem_key(p);
      if (std::any_of(problems.begin(), problems.end(), [&](auto& q) { return problem_key(q) == key; })) continue;
      problems.push_back(p);
      for (const auto& [kernel, us] : d.ranked(p)) {
        measurement m;
        m.machine = {"Test GPU", "sm_80", 108, 1410, 1215, "13.0", "13.0", "abc123"};
        m.op = "fmha";
        m.problem_key = key;
        m.kernel = kernel->name();
        m.kernel_set = registered_fmha_kernel_set(reg, arch_id::sm_80);
        m.median_ms = measured_ms(kernel->key(), p);
        m.samples = 20;
        db.add(m);
      }
    }
  }

  std::vector<measured_problem> measured() const {
    return measured_problems(db.measurements("sm_80"), {}, "sm_80", {}, 2, "fmha");
  }

  ranking_model train(const std::vector<measured_problem>& on) const {
    std::vector<ranking_group> groups;
    for (const auto& p : on) groups.push_back(ranking_group_of(p));
    model_info info;
    info.op = "fmha";
    info.arch = "sm_80";
    info.signatures = {"fmha/fwd/bf16-bf16/batch"};
    info.kernel_set_scope = "signatures";
    info.kernel_set = registered_fmha_kernel_set(reg, arch_id::sm_80, nullptr, info.signatures);
    train_options o;
    o.rounds = 80;
    return ranking_model::train(groups, o, info);
  }
};

TEST(FmhaTuning, LearnedModelBeatsTheAnalyticalTierOnHeldOutProblems) {
  synthetic_fmha data;
  auto all = data.measured();
  ASSERT_EQ(all.size(), 150u);
  for (const auto& p : all) {
    EXPECT_EQ(p.signature, "fmha/fwd/bf16-bf16/batch");
    EXPECT_EQ(p.features.width, fmha_feature_count);
  }
  const std::vector<measured_problem> train(all.begin(), all.begin() + 100), test(all.begin() + 100, all.end());
  const auto model = data.train(train);
  std::vector<std::vector<std::size_t>> analytical, learned;
  for (const auto& p : test) {
    analytical.push_back(analytical_order(p));
    learned.push_back(model_order(model, p));
  }
  const auto a = figures_of("analytical model", test, analytical);
  const auto l = figures_of("learned model", test, learned);
  std::printf("held out: analytical mean %.3f P10 %.3f, learned mean %.3f P10 %.3f\n", a.mean, a.p10, l.mean, l.p10);
  ASSERT_LT(a.mean, 0.95) << "the synthetic penalty should mislead the analytical tier";
  EXPECT_GT(l.mean, a.mean);
  EXPECT_GE(l.mean, 0.97);
  EXPECT_GE(l.p10, 0.9);
}

TEST(FmhaTuning, DispatcherUsesTheModelAndTheDatabaseAndSaysWhy) {
  synthetic_fmha data;
  auto model = std::make_shared<const ranking_model>(data.train(data.measured()));
  fmha_dispatcher d(sm80, data.reg);
  d.clear_tiers();
  std::string why;
  auto tier = fmha_model_tier(model, sm80, data.reg, why);
  ASSERT_TRUE(tier) << why;
  d.add_tier(tier);
  const auto& p = data.problems[2];
  auto sel = d.select(p);
  ASSERT_TRUE(sel) << sel.explain();
  EXPECT_EQ(sel.tier, "learned model");
  EXPECT_NE(sel.explain().find("by the learned model"), std::string::npos) << sel.explain();
  EXPECT_NE(d.select(p).explain().find("(cached)"), std::string::npos);
  // Group mode is another signature: the analytical estimate decides, and says why.
  auto varlen = fmha_problem{}.varlen({300, 90}, {300, 90}).heads(8, 8).head_dim(128).dtype(dtype::bf16);
  auto s2 = d.select(varlen);
  EXPECT_EQ(s2.tier, "analytical model");
  EXPECT_NE(s2.explain().find("not trained on fmha/fwd/bf16-bf16/group problems"), std::string::npos) << s2.explain();
  // Another arch, and a GEMM model: refused with the reason.
  EXPECT_FALSE(fmha_model_tier(model, device{arch_id::sm_90, 0, "offline sm_90"}, data.reg, why));
  EXPECT_NE(why.find("trained for sm_80, this device is sm_90"), std::string::npos) << why;

  // The tuning database: an exact hit is the fastest measured kernel.
  const std::string db_path = ::testing::TempDir() + "/kdecl_fmha_tuning.db";
  std::remove(db_path.c_str());
  {
    tuning_db db(db_path);
    for (const auto& m : data.db.measurements()) db.add(m);
  }
  fmha_dispatcher dd(sm80, data.reg);
  dd.clear_tiers();
  use_tuning_database(dd, db_path);
  const auto mp = data.measured()[9];
  auto hit = dd.select(parse_fmha_problem_key(mp.key));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit.tier, "tuning database");
  EXPECT_EQ(hit.kernel->name(), mp.kernels[std::size_t(std::min_element(mp.ms.begin(), mp.ms.end()) - mp.ms.begin())]);
  auto miss = dd.select(varlen);
  EXPECT_EQ(miss.tier, "analytical model");
  EXPECT_NE(miss.explain().find("tuning database: no entry"), std::string::npos) << miss.explain();
  std::remove(db_path.c_str());

  // Defaults: KDECL_TUNING_FMHA_MODEL names a model (here one for another arch: refused, said why).
  const std::string path = ::testing::TempDir() + "/fmha_sm_80.model.json";
  model->save(path);
  ::setenv("KDECL_TUNING_FMHA_MODEL", path.c_str(), 1);
  std::vector<std::string> notes;
  EXPECT_EQ(default_fmha_tiers(sm80, data.reg, notes).size(), 1u);
  EXPECT_TRUE(default_fmha_tiers(device{arch_id::sm_90, 0, "offline sm_90"}, data.reg, notes).empty());
  ::unsetenv("KDECL_TUNING_FMHA_MODEL");
  ASSERT_FALSE(notes.empty());
  EXPECT_NE(notes.back().find("refused: it was trained for sm_80"), std::string::npos) << notes.back();
  std::remove(path.c_str());
  std::remove(sidecar_path(path).c_str());
}

}  // namespace
}  // namespace kdecl::tuning
