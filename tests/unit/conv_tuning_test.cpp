// Convolution in the tuning path (issue 10): problem keys, features, training
// from conv rows, and the tuning-database and learned-model tiers of the conv
// dispatcher, on the host with an offline sm_90 device and recording kernels.
// The times are SYNTHETIC: the analytical estimate times a penalty the cost
// model does not know (wide tiles on small problems), so a model that learns
// from the features must beat the analytical tier on problems it never saw.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "conv_test_keys.hpp"
#include "kdecl/conv/conv_dispatcher.hpp"
#include "kdecl/conv/conv_heuristic.hpp"
#include "kdecl/conv/grouped_conv_name.hpp"
#include "kdecl/tuning/conv_features.hpp"
#include "kdecl/tuning/conv_problem_key.hpp"
#include "kdecl/tuning/conv_selection_tiers.hpp"
#include "kdecl/tuning/ranking_model.hpp"
#include "kdecl/tuning/training_data.hpp"
#include "kdecl/tuning/tuning_db.hpp"

namespace kdecl::tuning {
namespace {

using kdecl::testing::make_conv_key;
using kdecl::testing::recording_conv;

device sm90() { return device{arch_id::sm_90, 0, "offline sm_90"}; }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ConvProblemKey, RoundTripsAndNamesBadSegments) {
  std::vector<grouped_conv_problem> problems{
      grouped_conv_problem{}.batch(32).channels(256, 256).groups(32).input_size({56, 56}).filter_size({3})
          .padding({1}).dtype(dtype::bf16),
      grouped_conv_problem{}.direction(conv_direction::bwd_weight).batch(3).channels(6, 9).groups(3)
          .input_size({17}).filter_size({5}).stride({2}).dilation({2}).padding({1}, {3}).dtype(dtype::fp16),
      grouped_conv_problem{}.direction(conv_direction::bwd_data).batch(2).channels(8, 16).input_size({4, 9, 11})
          .filter_size({3, 1, 3}).stride({1, 2, 2}).padding({1, 0, 1}).dtype(dtype::fp32).layout(conv_layout::gndhwc),
  };
  // Strides that are not packed: the input's image stride padded (nhwgc: g steps C/G, W steps C).
  auto padded = problems[0];
  conv_tensor_strides in{};
  in.n = 56 * 56 * 256 + 64;
  padded.input_strides(in);
  problems.push_back(padded);
  // fp32 multiplied in tf32: the compute is a fifth dtype (and a different key from exact fp32).
  auto tf32 = problems[2];
  tf32.compute(dtype::tf32);
  problems.push_back(tf32);
  // A fused epilogue: another kernel signature, so another key.
  auto fused = problems[0];
  fused.bias().residual().activation(elementwise::relu);
  problems.push_back(fused);
  std::set<std::string> keys;
  for (const auto& p : problems) {
    const auto key = problem_key(p);
    EXPECT_EQ(parse_conv_problem_key(key), p.normalized()) << key;
    EXPECT_EQ(problem_key(parse_conv_problem_key(key)), key);
    keys.insert(key);
  }
  EXPECT_EQ(keys.size(), problems.size());
  EXPECT_EQ(problem_key(problems[0]),
            "conv/fwd/bf16-bf16-bf16-fp32/nhwgc/n32c256k256g32/i56x56/f3x3/s1x1/d1x1/p1x1_1x1/packed");
  EXPECT_NE(problem_key(tf32).find("conv/bwd_data/fp32-fp32-fp32-fp32-tf32/gndhwc/"), std::string::npos)
      << problem_key(tf32);
  EXPECT_NE(problem_key(problems[3]).find("/st802880.8.1."), std::string::npos) << problem_key(problems[3]);
  EXPECT_EQ(problem_signature(problems[1]), "conv/bwd_weight/fp16-fp16-fp16-fp32/nwgc");
  EXPECT_EQ(problem_signature(fused), "conv/fwd/bf16-bf16-bf16-fp32/nhwgc+fused-bias-residual-relu");

  const std::string good = problem_key(problems[0]);
  EXPECT_NE(error_of([&] { parse_conv_problem_key("gemm/x"); }).find("is not conv/"), std::string::npos);
  auto with = [&](std::string from, std::string to) {
    auto k = good;
    k.replace(k.find(from), from.size(), to);
    return k;
  };
  EXPECT_NE(error_of([&] { parse_conv_problem_key(with("bf16-bf16", "bf17-bf16")); }).find("'bf17' is not a known name"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse_conv_problem_key(with("i56x56", "i56")); }).find("does not hold 2 values"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse_conv_problem_key(with("k256g32", "k250g32")); }).find("names an invalid problem"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse_conv_problem_key(with("packed", "unpacked")); }).find("is not 'packed'"),
            std::string::npos);
}

TEST(ConvFeatures, NamesWidthsAndWhatTheGemmViewLacks) {
  EXPECT_EQ(conv_feature_names().size(), conv_feature_count);
  EXPECT_EQ(conv_feature_names()[0], "gemm_log2_m");
  EXPECT_EQ(feature_names_of("conv").size(), conv_feature_count);
  EXPECT_NE(error_of([] { feature_names_of("attention"); }).find("'attention' has no ranking features (gemm, conv, fmha)"),
            std::string::npos);
  auto at = [](std::string_view name) {
    const auto& n = conv_feature_names();
    return std::size_t(std::find(n.begin(), n.end(), name) - n.begin());
  };
  const auto grouped = grouped_conv_problem{}.batch(8).channels(256, 256).groups(32).input_size({28, 28})
                           .filter_size({3}).padding({1}).dtype(dtype::bf16).normalized();
  const auto key = make_conv_key(conv_direction::fwd, dtype::bf16, 128, 64, 32);
  const auto f = conv_features_of(grouped, key, estimate_microseconds(key, grouped), 1.0, conv_alignment(grouped));
  EXPECT_FLOAT_EQ(f[at("log2_groups")], 5.0f);
  EXPECT_FLOAT_EQ(f[at("log2_taps")], std::log2(9.0f));
  EXPECT_FLOAT_EQ(f[at("group_tile_fill")], 8.0f / 64.0f);  // K/G = 8 of a 64-wide tile
  EXPECT_FLOAT_EQ(f[at("direct")], 0.0f);
  EXPECT_FLOAT_EQ(f[at("vector_in_bytes")], 16.0f);
  EXPECT_FLOAT_EQ(f[at("gemm_log2_batch")], 5.0f);  // the groups are the implicit GEMM's batch
  // Three channels of bf16 per group: 6-byte rows allow 2-byte accesses only.
  const auto rgb = grouped_conv_problem{}.batch(1).channels(3, 32).input_size({224, 224}).filter_size({3})
                       .dtype(dtype::bf16).normalized();
  EXPECT_EQ(conv_alignment(rgb), 2);
  EXPECT_EQ(conv_alignment(grouped), 16);
  // Streamed rows (stride1_rows): a row of 568 output pixels in three strips of 192; the cost
  // model's M counts the strips' pixels. Other keys: no rows, full rows.
  EXPECT_FLOAT_EQ(f[at("rows")], 0.0f);
  EXPECT_FLOAT_EQ(f[at("rows_fill")], 1.0f);
  const auto unet = grouped_conv_problem{}.batch(2).channels(64, 64).input_size({570, 570}).filter_size({3})
                        .dtype(dtype::bf16).normalized();
  auto rows = make_conv_key(conv_direction::fwd, dtype::bf16, 192, 64, 64, arch_id::sm_90, pipeline::tma_wgmma);
  rows.sig.spec = conv_specialization::stride1_rows;
  rows.algo.warp_tile = {16, 64, 16};
  rows.algo.stages = 6;
  rows.algo.sched = scheduler::pingpong;
  rows.algo.warps = {4, 1, 1};
  rows.algo.epi = epilogue::direct;
  const auto fr = conv_features_of(unet, rows, estimate_microseconds(rows, unet), 1.0, conv_alignment(unet));
  EXPECT_FLOAT_EQ(fr[at("rows")], 1.0f);
  EXPECT_FLOAT_EQ(fr[at("rows_fill")], 568.0f / 576.0f);
  EXPECT_FLOAT_EQ(fr[at("gemm_log2_m")], std::log2(2.0f * 568 * 576));
}

// A registry of recording sm_90 forward kernels with four tile shapes.
struct synthetic_conv {
  registry reg;
  tuning_db db{":memory:"};
  std::vector<grouped_conv_problem> problems;

  // What the "GPU" measured: the estimate, with wide tiles slowed where the
  // implicit GEMM has few rows (a cost the analytical model does not know).
  static double measured_ms(const grouped_conv_key& k, const grouped_conv_problem& p) {
    const auto g = p.implicit_gemm();
    double penalty = 1.0;
    if (k.algo.tile.m == 128 && g.m < 20000) penalty *= 1.9;
    if (k.algo.tile.n == 128 && g.n <= 64) penalty *= 1.6;
    return estimate_microseconds(k, p) * penalty / 1000.0;
  }

  synthetic_conv() {
    for (auto [tm, tn] : {std::pair{128, 128}, {128, 64}, {64, 128}, {64, 64}})
      reg.add(std::make_shared<recording_conv>(make_conv_key(conv_direction::fwd, dtype::bf16, tm, tn, 32)), "synthetic");
    std::mt19937 rng(7);
    auto pick = [&](std::initializer_list<std::int64_t> v) { return *(v.begin() + rng() % v.size()); };
    conv_dispatcher d(sm90(), reg);
    d.clear_tiers();
    while (problems.size() < 160) {
      const std::int64_t g = pick({1, 1, 2, 4}), c = pick({64, 128, 256, 512}), k = pick({32, 64, 128, 256, 512});
      const std::int64_t hw = pick({7, 14, 28, 56}), f = pick({1, 3}), n = pick({1, 2, 4, 8, 16, 32});
      auto p = grouped_conv_problem{}.batch(n).channels(c, k).groups(g).input_size({hw, hw}).filter_size({f})
                   .padding({f / 2}).stride({pick({1, 1, 2})}).dtype(dtype::bf16).normalized();
      if (p.validate() || d.ranked(p).size() < 4) continue;
      const auto key = problem_key(p);
      if (std::any_of(problems.begin(), problems.end(), [&](auto& q) { return problem_key(q) == key; })) continue;
      problems.push_back(p);
      for (const auto& [kernel, us] : d.ranked(p)) {
        measurement m;
        m.machine = {"Test GPU", "sm_90", 132, 1980, 2619, "13.0", "13.0", "abc123"};
        m.op = "conv";
        m.problem_key = key;
        m.kernel = kernel->name();
        m.kernel_set = registered_conv_kernel_set(reg, arch_id::sm_90);
        m.median_ms = measured_ms(kernel->key(), p);
        m.samples = 20;
        db.add(m);
      }
    }
  }

  std::vector<measured_problem> measured() const {
    return measured_problems(db.measurements("sm_90"), {}, "sm_90", {}, 2, "conv");
  }

  ranking_model train(const std::vector<measured_problem>& on, const std::vector<std::string>& signatures = {}) const {
    std::vector<ranking_group> groups;
    for (const auto& p : on) groups.push_back(ranking_group_of(p));
    model_info info;
    info.op = "conv";
    info.arch = "sm_90";
    if (signatures.empty()) {
      info.kernel_set = registered_conv_kernel_set(reg, arch_id::sm_90);
    } else {
      info.signatures = signatures;
      info.kernel_set_scope = "signatures";
      info.kernel_set = registered_conv_kernel_set(reg, arch_id::sm_90, nullptr, signatures);
    }
    train_options o;
    o.rounds = 80;
    return ranking_model::train(groups, o, info);
  }
};

TEST(ConvTuning, LearnedModelBeatsTheAnalyticalTierOnHeldOutProblems) {
  synthetic_conv data;
  auto all = data.measured();
  ASSERT_EQ(all.size(), 160u);
  for (const auto& p : all) {
    EXPECT_EQ(p.op, "conv");
    EXPECT_EQ(p.signature, "conv/fwd/bf16-bf16-bf16-fp32/nhwgc");
    EXPECT_EQ(p.features.width, conv_feature_count);
    EXPECT_EQ(p.features.rows(), p.kernels.size());
  }
  const std::vector<measured_problem> train(all.begin(), all.begin() + 110), test(all.begin() + 110, all.end());
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

TEST(ConvTuning, DispatcherUsesTheModelAndTheDatabaseAndSaysWhy) {
  synthetic_conv data;
  const auto all = data.measured();
  const std::string signature = "conv/fwd/bf16-bf16-bf16-fp32/nhwgc";
  auto model = std::make_shared<const ranking_model>(data.train(all, {signature}));

  conv_dispatcher d(sm90(), data.reg);
  d.clear_tiers();
  std::string why;
  auto tier = conv_model_tier(model, sm90(), data.reg, why);
  ASSERT_TRUE(tier) << why;
  d.add_tier(tier);
  const auto& p = data.problems[3];
  auto sel = d.select(p);
  ASSERT_TRUE(sel) << sel.explain();
  EXPECT_EQ(sel.tier, "learned model");
  EXPECT_NE(sel.explain().find("by the learned model"), std::string::npos) << sel.explain();
  EXPECT_NE(sel.explain().find("ranked first of 4 eligible kernels"), std::string::npos) << sel.explain();
  EXPECT_NE(d.select(p).explain().find("(cached)"), std::string::npos);

  // A signature the model was not trained on: no opinion, the analytical model decides.
  data.reg.add(std::make_shared<recording_conv>(make_conv_key(conv_direction::fwd, dtype::fp16, 64, 64, 32)), "other");
  auto fp16 = p;
  fp16.dtype(dtype::fp16);
  auto s2 = d.select(fp16);
  ASSERT_TRUE(s2) << s2.explain();
  EXPECT_EQ(s2.tier, "analytical model");
  EXPECT_NE(s2.explain().find("not trained on conv/fwd/fp16-fp16-fp16-fp32/nhwgc problems"), std::string::npos)
      << s2.explain();
  // A kernel added to the trained signature: the set changed, the model steps aside.
  data.reg.add(std::make_shared<recording_conv>(make_conv_key(conv_direction::fwd, dtype::bf16, 32, 32, 32)), "extra");
  auto s3 = d.select(data.problems[5]);
  ASSERT_TRUE(s3);
  EXPECT_EQ(s3.tier, "analytical model");
  EXPECT_NE(s3.explain().find("no longer holds the kernel set"), std::string::npos) << s3.explain();
  why.clear();
  EXPECT_FALSE(conv_model_tier(model, sm90(), data.reg, why));
  EXPECT_NE(why.find("retrain it with kdecl train"), std::string::npos) << why;
  EXPECT_FALSE(conv_model_tier(model, device{arch_id::sm_80, 0, "offline sm_80"}, data.reg, why));
  EXPECT_NE(why.find("trained for sm_90, this device is sm_80"), std::string::npos) << why;

  // The tuning database: an exact hit is the fastest measured kernel; an unseen problem falls through.
  synthetic_conv fresh;
  const std::string db_path = ::testing::TempDir() + "/kdecl_conv_tuning.db";
  std::remove(db_path.c_str());
  {
    tuning_db db(db_path);
    for (const auto& m : fresh.db.measurements()) db.add(m);
  }
  conv_dispatcher dd(sm90(), fresh.reg);
  dd.clear_tiers();
  use_tuning_database(dd, db_path);
  const auto mp = fresh.measured()[7];
  auto hit = dd.select(parse_conv_problem_key(mp.key));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit.tier, "tuning database");
  EXPECT_EQ(hit.kernel->name(), mp.kernels[std::size_t(std::min_element(mp.ms.begin(), mp.ms.end()) - mp.ms.begin())]);
  auto unseen = grouped_conv_problem{}.batch(3).channels(96, 96).input_size({13, 13}).filter_size({3}).padding({1})
                    .dtype(dtype::bf16);
  auto miss = dd.select(unseen);
  ASSERT_TRUE(miss);
  EXPECT_EQ(miss.tier, "analytical model");
  EXPECT_NE(miss.explain().find("tuning database: no entry"), std::string::npos) << miss.explain();
  EXPECT_THROW(use_tuning_database(dd, db_path + ".absent"), std::invalid_argument);
  std::remove(db_path.c_str());
}

TEST(ConvTuning, ModelFilesAreCheckedForTheirOpAndDefaultsSayWhy) {
  synthetic_conv data;
  const std::string dir = ::testing::TempDir();
  const std::string path = dir + "/conv_sm_90.model.json";
  data.train(data.measured()).save(path);
  EXPECT_EQ(ranking_model::load(path).info().op, "conv");
  EXPECT_EQ(ranking_model::load(path).info().features.size(), conv_feature_count);
  conv_dispatcher d(sm90(), data.reg);
  d.clear_tiers();
  use_ranking_model(d, path);
  EXPECT_EQ(d.select(data.problems[0]).tier, "learned model");

  // A GEMM model is not a convolution model.
  std::string why;
  model_info gemm_info;
  gemm_info.op = "gemm";
  gemm_info.arch = "sm_90";
  EXPECT_NE(error_of([&] {
              std::vector<ranking_group> groups{ranking_group_of(data.measured()[0])};
              ranking_model::train(groups, {}, gemm_info);
            }).find(fmt::format("a gemm model has {}", feature_count)),
            std::string::npos);

  // Defaults: KDECL_TUNING_CONV_MODEL names the model; KDECL_TUNING_MODEL=off turns it off.
  ::setenv("KDECL_TUNING_CONV_MODEL", path.c_str(), 1);
  std::vector<std::string> notes;
  auto tiers = default_conv_tiers(sm90(), data.reg, notes);
  EXPECT_EQ(tiers.size(), 1u);
  EXPECT_TRUE(notes.empty());
  ::setenv("KDECL_TUNING_MODEL", "off", 1);
  tiers = default_conv_tiers(sm90(), data.reg, notes);
  ::unsetenv("KDECL_TUNING_MODEL");
  ::unsetenv("KDECL_TUNING_CONV_MODEL");
  EXPECT_TRUE(tiers.empty());
  ASSERT_FALSE(notes.empty());
  EXPECT_NE(notes.back().find("off (KDECL_TUNING_MODEL=off)"), std::string::npos) << notes.back();
  std::remove(path.c_str());
  std::remove(sidecar_path(path).c_str());
}

}  // namespace
}  // namespace kdecl::tuning
