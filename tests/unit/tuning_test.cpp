// Tuning databases, problem lists, the learned ranking model and the selection
// tiers, on the host. No GPU measurement is committed yet: the training data is
// SYNTHETIC (tests/data/make_synthetic_tuning.py: a made-up sm_90 cost model
// over the real kernel names of the full sm_90 sets), which exercises the
// database, training, loading and selection paths, not the model's accuracy.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <set>
#include <utility>

#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "kdecl/gemm/gemm_dispatcher.hpp"
#include "kdecl/gemm/gemm_name.hpp"
#include "kdecl/tuning/confirmation.hpp"
#include "kdecl/tuning/features.hpp"
#include "kdecl/tuning/problem_key.hpp"
#include "kdecl/tuning/problem_list.hpp"
#include "kdecl/tuning/ranking_model.hpp"
#include "kdecl/tuning/selection_tiers.hpp"
#include "kdecl/tuning/training_data.hpp"
#include "kdecl/tuning/tuning_db.hpp"
#include "test_keys.hpp"

namespace kdecl::tuning {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test.
struct scratch {
  fs::path dir;
  scratch() {
    dir = fs::temp_directory_path() / fmt::format("kdecl_tuning_{}_{}", ::getpid(),
                                                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~scratch() { fs::remove_all(dir); }
  std::string operator/(const std::string& f) const { return (dir / f).string(); }
};

const std::string recorded = KDECL_TEST_DATA_DIR "/tuning_sm90_synthetic.jsonl";

measurement row(const std::string& key, const std::string& kernel, double ms) {
  measurement m;
  m.machine = {"Test GPU", "sm_90", 132, 1980, 2619, "13.0", "13.0", "abc123"};
  m.problem_key = key;
  m.kernel = kernel;
  m.kernel_set = "0123456789abcdef";
  m.median_ms = ms;
  m.spread = 0.01;
  m.samples = 20;
  return m;
}

// Two bf16 kernels, and rows of two devices that disagree on them over M x N x 4096 problems (M from
// `m_values`, N 512, 1024, 2048): on "Test GPU" (2619 MHz) the 64x64 tile is faster, on "Other GPU"
// (`other_clock_mhz`) the 128x128 one.
const std::string tile_128 = "gemm_bf16_rcr_tma_wgmma_cshuffle_intrawave_128x128x64_8x1x1_16x128x16_s6_v16_padmnk_sm_90";
const std::string tile_64 = "gemm_bf16_rcr_tma_wgmma_cshuffle_intrawave_64x64x64_4x1x1_16x64x16_s12_v16_padmnk_sm_90";
std::vector<measurement> disagreeing_rows(std::initializer_list<int> m_values, int other_clock_mhz) {
  std::vector<measurement> rows;
  for (int m : m_values)
    for (int n : {512, 1024, 2048}) {
      const std::string key = problem_key(gemm_problem{}.sizes(m, n, 4096).dtype(dtype::bf16));
      rows.push_back(row(key, tile_128, 0.020));
      rows.push_back(row(key, tile_64, 0.016));
      for (auto [kernel, ms] : {std::pair{tile_128, 0.015}, std::pair{tile_64, 0.019}}) {
        rows.push_back(row(key, kernel, ms));
        rows.back().machine.device_name = "Other GPU";
        rows.back().machine.memory_clock_mhz = other_clock_mhz;
      }
    }
  return rows;
}

TEST(ProblemKey, RoundTripsAndNamesBadSegments) {
  auto p = gemm_problem{}.sizes(77, 4096, 1000).batched(3).dtype(dtype::bf16).layout(rrr);
  auto key = problem_key(p);
  EXPECT_EQ(key, "gemm/bf16-bf16-bf16-fp32-bf16/rrr/standard/m77n4096k1000b3/ld1000-4096-4096-0/"
                 "st77000-4096000-315392-0");
  auto back = parse_problem_key(key);
  EXPECT_EQ(problem_key(back), key);
  auto md = gemm_problem{}.sizes(64, 64, 64).dtype(dtype::fp16).multi_d(elementwise::gelu, 1);
  EXPECT_EQ(problem_key(parse_problem_key(problem_key(md))), problem_key(md));
  // Block scales: their layout is part of the problem (here B's K-block rows padded to 4, as the CLI makes them).
  auto scaled = gemm_problem{}.sizes(256, 384, 640).dtype(dtype::fp8).dtypes(dtype::fp8, dtype::fp8, dtype::bf16);
  scaled.block_scaled(block_scale_layout{.ld_b = 8});
  ASSERT_FALSE(scaled.validate()) << *scaled.validate();
  const auto scaled_key = problem_key(scaled);
  EXPECT_NE(scaled_key.find("/block_scaled/"), std::string::npos) << scaled_key;
  EXPECT_NE(scaled_key.find("/sc256-8-"), std::string::npos) << scaled_key;
  const auto scaled_back = parse_problem_key(scaled_key);
  EXPECT_EQ(scaled_back.normalized().scales, scaled.normalized().scales);
  EXPECT_EQ(problem_key(scaled_back), scaled_key);
  EXPECT_THROW(parse_problem_key(key + "/sc1-1-1-1"), std::invalid_argument);
  try {
    parse_problem_key("gemm/bf16-bf16-bf16-fp32-bf16/rxr/standard/m1n1k1b1/ld1-1-1-0/st0-0-0-0");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'rxr'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_problem_key("gemm/bf16-bf16-bf16-fp32-bf16/rcr/standard/m0n1k1b1/ld1-1-1-0/st0-0-0-0"),
               std::invalid_argument);
}

TEST(ProblemList, ReadsShapeTablesAndPlainLists) {
  scratch s;
  std::ofstream(s / "shapes.csv") << "# comment\nmodel,layer,m,n,k,dtype,layout,source\n"
                                     "Llama-3-8B,q_proj,128,4096,4096,bf16,rcr,https://x\n"
                                     "\"BERT-base\",\"query|key\",16,768,768,fp16,rrr,https://y\n";
  auto a = read_problem_csv(s / "shapes.csv");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].model, "Llama-3-8B");
  EXPECT_EQ(a[1].layer, "query|key");
  EXPECT_EQ(a[1].problem.sig.a, dtype::fp16);
  EXPECT_EQ(a[1].problem.sig.lay, rrr);
  std::ofstream(s / "plain.csv") << "256,512,1024\n7,9,11,4\n";
  auto b = read_problem_csv(s / "plain.csv", dtype::fp16);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[1].problem.batch, 4);
  EXPECT_EQ(b[0].problem.sig.a, dtype::fp16);
  std::ofstream(s / "bad.csv") << "m,n,k,dtype\n1,2,3,fp99\n";
  try {
    read_problem_csv(s / "bad.csv");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bad.csv:2: dtype 'fp99'"), std::string::npos) << e.what();
  }
}

TEST(TuningDb, WritesResumesExportsAndImports) {
  scratch s;
  const std::string key = problem_key(gemm_problem{}.sizes(128, 128, 128).dtype(dtype::bf16));
  {
    tuning_db db(s / "a.db");
    EXPECT_TRUE(db.add(row(key, "k1", 0.5)));
    auto failed = row(key, "k2", 0);
    failed.median_ms.reset();
    failed.error = "launch failed";
    EXPECT_TRUE(db.add(failed));
    EXPECT_FALSE(db.add(row(key, "k1", 0.7)));  // already there: the first measurement stays
    db.add_source({key, "Llama-3-8B", "q_proj", "https://x"});
    db.add_kernel_set({"0123456789abcdef", "sm_90", {"k1", "k2"}});
  }
  // Reopened (as a resumed run would): the rows are there and are skipped.
  tuning_db db(s / "a.db");
  EXPECT_EQ(db.size(), 2u);
  EXPECT_TRUE(db.has("Test GPU", key, "k1"));
  EXPECT_FALSE(db.has("Other GPU", key, "k1"));
  auto rows = db.measurements("sm_90");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(*rows[0].median_ms, 0.5);
  EXPECT_EQ(rows[0].machine.sm_count, 132);
  EXPECT_EQ(rows[0].machine.kdecl_commit, "abc123");
  EXPECT_FALSE(rows[1].median_ms);
  EXPECT_EQ(rows[1].error, "launch failed");

  EXPECT_EQ(db.export_jsonl(s / "a.jsonl"), 4u);
  tuning_db copy(s / "b.db");
  EXPECT_EQ(copy.import_jsonl(s / "a.jsonl"), 2u);
  EXPECT_EQ(copy.import_jsonl(s / "a.jsonl"), 0u);  // importing twice adds nothing
  auto copied = copy.measurements();
  ASSERT_EQ(copied.size(), 2u);
  EXPECT_EQ(copied[0].machine.device_name, "Test GPU");
  EXPECT_EQ(copied[0].measured_at, rows[0].measured_at);
  ASSERT_EQ(copy.sources().size(), 1u);
  ASSERT_EQ(copy.kernel_sets().size(), 1u);
  EXPECT_EQ(copy.kernel_sets()[0].kernels, (std::vector<std::string>{"k1", "k2"}));

  std::ofstream(s / "bad.jsonl") << R"({"kind":"measurement","device_name":"x"})" << "\n";
  try {
    copy.import_jsonl(s / "bad.jsonl");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bad.jsonl:1"), std::string::npos) << e.what();
  }
  EXPECT_EQ(copy.size(), 2u);  // a failed import adds nothing
  EXPECT_THROW(tuning_db(s / "missing.db", true), std::runtime_error);
}

// `tune --confirm` replaces a row's timing by one taken in turns; a confirmation of as many
// rounds is not replaced again, and imports carry confirmations over first-pass rows.
TEST(TuningDb, ConfirmedRowsReplaceFirstTimingsOnceAndTravel) {
  scratch s;
  const std::string key = problem_key(gemm_problem{}.sizes(128, 128, 128).dtype(dtype::bf16));
  tuning_db db(s / "a.db");
  ASSERT_TRUE(db.add(row(key, "k1", 0.50)));
  ASSERT_TRUE(db.add(row(key, "k2", 0.40)));
  EXPECT_THROW(db.confirm(row(key, "k1", 0.45)), std::invalid_argument);  // no rounds: not a confirmation
  auto confirmed = row(key, "k1", 0.45);
  confirmed.confirmed_rounds = 5;
  confirmed.samples = 40;
  EXPECT_TRUE(db.confirm(confirmed));
  EXPECT_FALSE(db.confirm(confirmed));  // as many rounds already: kept
  auto missing = confirmed;
  missing.kernel = "k9";
  EXPECT_FALSE(db.confirm(missing));  // only rows that exist are confirmed
  auto rows = db.rows_of("Test GPU", key);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].kernel, "k1");
  EXPECT_DOUBLE_EQ(*rows[0].median_ms, 0.45);
  EXPECT_EQ(rows[0].confirmed_rounds, 5);
  EXPECT_EQ(rows[0].samples, 40);
  EXPECT_EQ(rows[1].confirmed_rounds, 0);
  EXPECT_TRUE(db.rows_of("Other GPU", key).empty());

  // A database holding the first-pass rows takes the confirmation from an export.
  db.export_jsonl(s / "a.jsonl");
  tuning_db first(s / "b.db");
  ASSERT_TRUE(first.add(row(key, "k1", 0.50)));
  EXPECT_EQ(first.import_jsonl(s / "a.jsonl"), 2u);  // k2 added, k1 confirmed
  EXPECT_EQ(first.import_jsonl(s / "a.jsonl"), 0u);
  EXPECT_DOUBLE_EQ(*first.rows_of("Test GPU", key)[0].median_ms, 0.45);

  std::ofstream(s / "bad.jsonl") << R"({"kind":"measurement","device_name":"x","arch":"sm_90","problem_key":"p",)"
                                 << R"("kernel":"k","error":"e","confirmed_rounds":3})" << "\n";
  try {
    first.import_jsonl(s / "bad.jsonl");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("a confirmed measurement needs median_ms"), std::string::npos) << e.what();
  }
}

// A database written before confirmations existed reads as unconfirmed when opened read-only
// and gains the column when opened for writing.
TEST(TuningDb, OpensDatabasesWrittenBeforeConfirmations) {
  scratch s;
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open((s / "old.db").c_str(), &raw), SQLITE_OK);
    const char* old_schema =
        "CREATE TABLE measurements(device_name TEXT NOT NULL, arch TEXT NOT NULL, sm_count INTEGER, "
        "sm_clock_mhz INTEGER, memory_clock_mhz INTEGER, driver_version TEXT, cuda_version TEXT, kdecl_commit TEXT, "
        "op TEXT NOT NULL, problem_key TEXT NOT NULL, kernel TEXT NOT NULL, kernel_set TEXT, median_ms REAL, "
        "spread REAL, samples INTEGER, error TEXT, measured_at TEXT, PRIMARY KEY(device_name, problem_key, kernel));"
        "INSERT INTO measurements VALUES('Test GPU','sm_90',132,1980,2619,'13.0','13.0','abc','gemm','p','k1','f',"
        "0.5,0.01,20,NULL,'2026-11-26T00:00:00Z');";
    ASSERT_EQ(sqlite3_exec(raw, old_schema, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(raw);
  }
  {
    tuning_db read_only(s / "old.db", true);
    auto rows = read_only.rows_of("Test GPU", "p");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].confirmed_rounds, 0);
    EXPECT_EQ(read_only.measurements().size(), 1u);
  }
  tuning_db db(s / "old.db");
  auto confirmed = row("p", "k1", 0.4);
  confirmed.confirmed_rounds = 3;
  EXPECT_TRUE(db.confirm(confirmed));
  EXPECT_EQ(db.measurements()[0].confirmed_rounds, 3);
  EXPECT_DOUBLE_EQ(*db.measurements()[0].median_ms, 0.4);
}

// Which kernels a confirmation times: the fastest few within reach of the fastest, once.
TEST(Confirmation, PicksTheLeadingKernelsOnce) {
  const std::string key = "p";
  // Fastest / median: e 1, b 0.86, c 0.76, a 0.6; d failed.
  std::vector<measurement> rows{row(key, "a", 1.00), row(key, "b", 0.70), row(key, "c", 0.79),
                                row(key, "d", 0.10), row(key, "e", 0.60)};
  rows[3].median_ms.reset();
  rows[3].error = "launch failed";
  EXPECT_EQ(kernels_to_confirm(rows, {2, 5, 0.75}), (std::vector<std::size_t>{4, 1}));        // e, b
  EXPECT_EQ(kernels_to_confirm(rows, {8, 5, 0.75}), (std::vector<std::size_t>{4, 1, 2}));     // a is too slow
  EXPECT_EQ(kernels_to_confirm(rows, {8, 5, 0.5}), (std::vector<std::size_t>{4, 1, 2, 0}));
  EXPECT_TRUE(kernels_to_confirm(rows, {8, 5, 0.9}).empty());  // one contender: nothing to compare
  EXPECT_TRUE(kernels_to_confirm(rows, {0, 5, 0.75}).empty());
  EXPECT_TRUE(kernels_to_confirm(rows, {1, 5, 0.75}).empty());
  rows[1].confirmed_rounds = 5;
  EXPECT_TRUE(kernels_to_confirm(rows, {3, 5, 0.75}).empty());  // confirmed before
  EXPECT_EQ(kernels_to_confirm(rows, {3, 6, 0.75}).size(), 3u);   // more rounds asked for than that
}

// A row whose launches spread over 100% timed an excursion of the GPU: left out of training.
TEST(TrainingData, LeavesOutRowsSpreadOverUnreliableSpread) {
  const std::string key = problem_key(gemm_problem{}.sizes(512, 768, 768).dtype(dtype::fp16));
  const std::string a = "gemm_fp16_rcr_tma_wgmma_cshuffle_intrawave_128x128x64_8x1x1_16x128x16_s6_v16_padmnk_sm_90";
  const std::string b = "gemm_fp16_rcr_tma_wgmma_cshuffle_intrawave_64x64x64_4x1x1_16x64x16_s12_v16_padmnk_sm_90";
  const std::string c = "gemm_fp16_rcr_tma_wgmma_cshuffle_intrawave_128x256x64_8x1x1_16x256x16_s4_v16_padmnk_sm_90";
  std::vector<measurement> rows{row(key, a, 0.012), row(key, b, 0.021), row(key, c, 0.013)};
  rows[1].spread = 1.19;
  auto problems = measured_problems(rows, {}, "sm_90");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].kernels, (std::vector<std::string>{a, c}));  // name order
  rows[1].spread = unreliable_spread;  // at the limit: kept
  EXPECT_EQ(measured_problems(rows, {}, "sm_90")[0].kernels.size(), 3u);
}

// The rows of one problem on two devices are two problems, each with its device's memory clock
// in its feature rows, so that the trees can tell an H100's order from an H200's.
TEST(TrainingData, FeatureRowsCarryTheDevicesMemoryClock) {
  const auto problems = measured_problems(disagreeing_rows({512}, 3201), {}, "sm_90");
  ASSERT_EQ(problems.size(), 6u);  // 3 shapes x 2 devices
  const std::size_t clock = feature_count - 1;
  ASSERT_EQ(feature_names()[clock], "memory_clock_mhz");
  for (const auto& p : problems) {
    const float want = p.device == "Test GPU" ? 2619.0f : 3201.0f;
    EXPECT_EQ(p.memory_clock_mhz, int(want));
    for (std::size_t r = 0; r < p.features.rows(); ++r) EXPECT_FLOAT_EQ(p.features.row(r)[clock], want);
  }
}

// Two devices whose rows cannot be told apart (the same memory clock) and disagree: the weights
// (kdecl train --device-weight) decide whose order the model learns.
TEST(RankingModel, GroupWeightsDecideBetweenRowsThatDisagree) {
  const std::string& a = tile_128;
  const std::string& b = tile_64;
  const auto rows = disagreeing_rows({256, 512, 1024}, 2619);  // "Test GPU": b is faster; "Other GPU": a
  const auto problems = measured_problems(rows, {}, "sm_90");
  ASSERT_EQ(problems.size(), 18u);
  const auto preferred = [&](float test_gpu_weight) {
    std::vector<ranking_group> groups;
    for (const auto& p : problems) {
      groups.push_back(ranking_group_of(p));
      if (p.device == "Test GPU") groups.back().weight = test_gpu_weight;
    }
    model_info info;
    info.arch = "sm_90";
    train_options o;
    o.rounds = 20;
    const auto model = ranking_model::train(groups, o, info);
    const auto scores = model.score(problems[0].features);  // kernels in name order: a, b
    return scores[0] > scores[1] ? a : b;
  };
  EXPECT_EQ(preferred(4.0f), b);
  EXPECT_EQ(preferred(0.25f), a);
}

// The synthetic data: its kernel set, as fake kernels in a registry.
struct recorded_data {
  tuning_db db{":memory:"};
  kernel_set set;
  std::vector<measured_problem> problems;
  recorded_data() {
    db.import_jsonl(recorded);
    auto sets = db.kernel_sets();
    if (sets.size() != 1) throw std::runtime_error("the sample should hold one kernel set");
    set = sets[0];
    problems = measured_problems(db.measurements("sm_90"), db.sources(), "sm_90",
                                 std::set<std::string>(set.kernels.begin(), set.kernels.end()));
  }
  void register_into(registry& reg) const {
    for (const auto& name : set.kernels)
      reg.add(std::make_shared<kdecl::testing::recording_gemm>(parse_gemm_name(name)), "recorded");
  }
  std::vector<ranking_group> groups() const {
    std::vector<ranking_group> out;
    for (const auto& p : problems) out.push_back(ranking_group_of(p));
    return out;
  }
  ranking_model train(int rounds = 60) const {
    model_info info;
    info.arch = "sm_90";
    info.kernel_set = set.fingerprint;
    info.kernel_count = set.kernels.size();
    train_options o;
    o.rounds = rounds;
    return ranking_model::train(groups(), o, info);
  }
};

device sm90() { return device{arch_id::sm_90, 0, "offline sm_90"}; }

TEST(RankingModel, TrainsOnRecordedDataSavesAndLoads) {
  recorded_data data;
  ASSERT_GE(data.problems.size(), 20u);
  EXPECT_EQ(fingerprint_of(data.set.kernels), data.set.fingerprint);
  auto model = data.train();
  EXPECT_EQ(model.info().objective, "rank:ndcg");
  // In-sample, the model must order kernels at least nearly as well as the analytical model.
  std::vector<std::vector<std::size_t>> learned, analytical;
  for (const auto& p : data.problems) {
    learned.push_back(model_order(model, p));
    analytical.push_back(analytical_order(p));
  }
  auto fl = figures_of("learned model", data.problems, learned);
  auto fa = figures_of("analytical model", data.problems, analytical);
  EXPECT_GE(fl.mean, 0.97) << "analytical " << fa.mean;
  EXPECT_GE(fl.mean, fa.mean - 0.005);

  // Held out: trained on two thirds of the problems, it must rank the others
  // by the hidden cost model, not by memory of the training problems.
  {
    std::vector<ranking_group> train;
    std::vector<measured_problem> test;
    for (std::size_t i = 0; i < data.problems.size(); ++i) {
      if (i % 3 == 2) test.push_back(data.problems[i]);
      else train.push_back(ranking_group_of(data.problems[i]));
    }
    model_info info;
    info.arch = "sm_90";
    info.kernel_set = data.set.fingerprint;
    train_options o;
    o.rounds = 100;
    auto held = ranking_model::train(train, o, info);
    std::vector<std::vector<std::size_t>> lo, ao;
    for (const auto& p : test) {
      lo.push_back(model_order(held, p));
      ao.push_back(analytical_order(p));
    }
    auto hl = figures_of("learned model", test, lo);
    auto ha = figures_of("analytical model", test, ao);
    EXPECT_GE(hl.mean, 0.90) << "held-out learned mean " << hl.mean << ", analytical " << ha.mean;
    EXPECT_GE(hl.mean, ha.mean) << "held-out learned mean " << hl.mean << ", analytical " << ha.mean;
    EXPECT_GT(hl.top_k_mean_99, 0);
    EXPECT_LE(hl.top_k_mean_99, hl.top_k_all_99 == 0 ? 1000 : hl.top_k_all_99);
  }

  scratch s;
  model.save(s / "gemm_sm_90.model.json");
  ASSERT_TRUE(fs::exists(s / "gemm_sm_90.meta.json"));
  auto loaded = ranking_model::load(s / "gemm_sm_90.model.json");
  EXPECT_EQ(loaded.info().kernel_set, data.set.fingerprint);
  EXPECT_EQ(loaded.info().max_depth, model.info().max_depth);  // the training parameters travel with the model
  EXPECT_GT(loaded.info().max_depth, 0);
  EXPECT_DOUBLE_EQ(loaded.info().eta, model.info().eta);
  ASSERT_EQ(loaded.info().feature_min.size(), feature_count);
  EXPECT_EQ(loaded.info().feature_min, model.info().feature_min);
  EXPECT_EQ(loaded.info().feature_max, model.info().feature_max);
  for (std::size_t f = 0; f < feature_count; ++f) EXPECT_LE(loaded.info().feature_min[f], loaded.info().feature_max[f]);
  auto g = ranking_group_of(data.problems[0]);
  EXPECT_EQ(loaded.score(g.rows), model.score(g.rows));

  // A model whose sidecar is missing or names other features is refused with the reason.
  fs::copy_file(s / "gemm_sm_90.model.json", s / "lonely.model.json");
  try {
    ranking_model::load(s / "lonely.model.json");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sidecar"), std::string::npos) << e.what();
  }
}

TEST(SelectionTiers, ModelIsUsedAndReportedAndRefusedWhenMismatched) {
  recorded_data data;
  scratch s;
  data.train(30).save(s / "gemm_sm_90.model.json");

  registry reg;
  data.register_into(reg);
  gemm_dispatcher d(sm90(), reg);
  d.clear_tiers();
  use_ranking_model(d, s / "gemm_sm_90.model.json");
  const auto p = parse_problem_key(data.problems[0].key);
  auto sel = d.select(p);
  ASSERT_TRUE(sel) << sel.explain();
  EXPECT_EQ(sel.tier, "learned model");
  EXPECT_NE(sel.explain().find("by the learned model"), std::string::npos) << sel.explain();
  EXPECT_NE(sel.explain().find("ranked first of"), std::string::npos) << sel.explain();
  auto again = d.select(p);
  EXPECT_EQ(again.kernel, sel.kernel);
  EXPECT_NE(again.explain().find("(cached)"), std::string::npos) << again.explain();

  // A signature the model was not trained on: no opinion, the analytical model decides.
  {
    auto model = data.train(10);
    auto info = model.info();
    EXPECT_TRUE(info.signatures.empty());  // set by kdecl train; here by hand
  }
  {
    model_info info;
    info.arch = "sm_90";
    info.kernel_set = data.set.fingerprint;
    info.signatures = {"fp16-fp16-fp16-fp32-fp16/rrr/standard"};
    train_options o;
    o.rounds = 5;
    auto narrow = std::make_shared<const ranking_model>(ranking_model::train(data.groups(), o, info));
    gemm_dispatcher dn(sm90(), reg);
    dn.clear_tiers();
    std::string why;
    auto tier = model_tier(narrow, sm90(), reg, why);
    ASSERT_TRUE(tier) << why;
    dn.add_tier(tier);
    auto s2 = dn.select(p);
    ASSERT_TRUE(s2);
    EXPECT_EQ(s2.tier, "analytical model");
    EXPECT_NE(s2.explain().find("not trained on bf16-bf16-bf16-fp32-bf16/rcr/standard"), std::string::npos)
        << s2.explain();
  }

  // A problem far smaller than any the model was trained on: no opinion (trees do not
  // extrapolate), the analytical model decides, and the reason names the feature.
  {
    std::int64_t smallest_k = std::numeric_limits<std::int64_t>::max();
    for (const auto& mp : data.problems) smallest_k = std::min(smallest_k, parse_problem_key(mp.key).k);
    ASSERT_GE(smallest_k, 8) << "the recorded sample should not hold tiny K";
    gemm_problem tiny = p;
    tiny.k = smallest_k / 4;  // two octaves below
    auto s3 = d.select(tiny);
    ASSERT_TRUE(s3) << s3.explain();
    EXPECT_EQ(s3.tier, "analytical model") << s3.explain();
    EXPECT_NE(s3.explain().find("log2_k"), std::string::npos) << s3.explain();
    EXPECT_NE(s3.explain().find("outside the trained range"), std::string::npos) << s3.explain();
    // Within one octave of the trained range the model still ranks.
    gemm_problem near = p;
    near.k = smallest_k * 3 / 4;
    EXPECT_EQ(d.select(near).tier, "learned model") << d.select(near).explain();
  }

  // Another arch: refused, with the reason.
  gemm_dispatcher other(device{arch_id::sm_80, 0, "offline sm_80"}, reg);
  try {
    use_ranking_model(other, s / "gemm_sm_90.model.json");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("trained for sm_90, this device is sm_80"), std::string::npos) << e.what();
  }
  // Another kernel set (one kernel more): refused.
  registry bigger;
  data.register_into(bigger);
  bigger.add(std::make_shared<kdecl::testing::recording_gemm>(kdecl::testing::make_key(dtype::bf16, rcr, 64, 32, 64)),
             "extra");
  gemm_dispatcher d2(sm90(), bigger);
  try {
    use_ranking_model(d2, s / "gemm_sm_90.model.json");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("kernel set"), std::string::npos) << e.what();
  }
  // The default tiers read KDECL_TUNING_MODEL and say why a model was refused.
  ::setenv("KDECL_TUNING_MODEL", (s / "gemm_sm_90.model.json").c_str(), 1);
  std::vector<std::string> notes;
  auto tiers = default_tiers(sm90(), bigger, notes);
  ::unsetenv("KDECL_TUNING_MODEL");
  EXPECT_TRUE(tiers.empty());
  ASSERT_FALSE(notes.empty());
  EXPECT_NE(notes.back().find("refused"), std::string::npos) << notes.back();
  gemm_dispatcher d3(sm90(), bigger);
  d3.clear_tiers();
  d3.add_tier_note(notes.back());
  auto analytical = d3.select(p);
  EXPECT_EQ(analytical.tier, "analytical model");
  EXPECT_NE(analytical.explain().find("refused"), std::string::npos) << analytical.explain();
}

// A model whose kernel set covers only its trained signatures (kernel_set_scope
// "signatures", what kdecl train writes): kernels of other signatures (fp8 on
// wgmma, say) may be registered beside it; their problems go to the analytical
// tier with the reason; a kernel added to a trained signature still refuses it.
TEST(SelectionTiers, ModelScopedToItsSignaturesIgnoresKernelsOfOtherSignatures) {
  recorded_data data;
  registry reg;
  data.register_into(reg);
  model_info info;
  info.arch = "sm_90";
  info.signatures = {"bf16-bf16-bf16-fp32-bf16/rcr/standard"};
  info.kernel_set_scope = "signatures";
  std::vector<std::string> in_scope;
  info.kernel_set = registered_kernel_set(reg, arch_id::sm_90, &in_scope, info.signatures);
  info.kernel_count = in_scope.size();
  ASSERT_FALSE(in_scope.empty());
  EXPECT_LT(in_scope.size(), data.set.kernels.size());
  EXPECT_EQ(kernels_of_signatures(data.set.kernels, info.signatures), in_scope);
  EXPECT_EQ(fingerprint_of(in_scope), info.kernel_set);
  train_options o;
  o.rounds = 5;
  scratch s;
  ranking_model::train(data.groups(), o, info).save(s / "gemm_sm_90.model.json");
  EXPECT_EQ(ranking_model::load(s / "gemm_sm_90.model.json").info().kernel_set_scope, "signatures");

  // fp8 and tf32 kernels of other signatures: the model stays in use for bf16 rcr.
  registry wider;
  data.register_into(wider);
  gemm_key fp8 = kdecl::testing::make_key(dtype::fp8, rcr, 128, 256, 128, arch_id::sm_90, pipeline::tma_wgmma);
  fp8.sig.c = dtype::bf16;
  wider.add(std::make_shared<kdecl::testing::recording_gemm>(fp8), "lowp");
  wider.add(std::make_shared<kdecl::testing::recording_gemm>(
                kdecl::testing::make_key(dtype::bf16, rrr, 64, 32, 64)), "other layout");
  EXPECT_EQ(kernel_signature(fp8), "fp8-fp8-bf16-fp32-fp8/rcr/standard");
  EXPECT_EQ(registered_kernel_set(wider, arch_id::sm_90, nullptr, info.signatures), info.kernel_set);
  EXPECT_NE(registered_kernel_set(wider, arch_id::sm_90), registered_kernel_set(reg, arch_id::sm_90));
  gemm_dispatcher d(sm90(), wider);
  d.clear_tiers();
  use_ranking_model(d, s / "gemm_sm_90.model.json");
  gemm_problem bf16_problem;
  bf16_problem.sizes(2048, 5120, 2048).dtype(dtype::bf16).layout(rcr);
  auto sel = d.select(bf16_problem.normalized());
  ASSERT_TRUE(sel) << sel.explain();
  EXPECT_EQ(sel.tier, "learned model") << sel.explain();
  gemm_problem fp8_problem;
  fp8_problem.sizes(4096, 4096, 4096).dtypes(dtype::fp8, dtype::fp8, dtype::bf16).layout(rcr);
  fp8_problem.sig.acc = dtype::fp32;
  fp8_problem.sig.compute = dtype::fp8;
  auto sel8 = d.select(fp8_problem.normalized());
  ASSERT_TRUE(sel8) << sel8.explain();
  EXPECT_EQ(sel8.tier, "analytical model");
  EXPECT_NE(sel8.explain().find("not trained on fp8-fp8-bf16-fp32-fp8/rcr/standard"), std::string::npos)
      << sel8.explain();

  // One more bf16 rcr kernel: the kernels the model ranks changed, so it is refused.
  registry grown;
  data.register_into(grown);
  grown.add(std::make_shared<kdecl::testing::recording_gemm>(kdecl::testing::make_key(dtype::bf16, rcr, 64, 32, 64)),
            "extra");
  gemm_dispatcher d2(sm90(), grown);
  try {
    use_ranking_model(d2, s / "gemm_sm_90.model.json");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("of its 1 signatures"), std::string::npos) << e.what();
  }
}

// A model records the pipelines it was trained with (kdecl train): kernels of a new pipeline
// (gemv) registered beside it leave it valid; where the analytical model ranks one of them first
// it chooses, elsewhere the model ranks the kernels it knows.
TEST(SelectionTiers, ModelScopedToItsPipelinesLeavesTheChoiceOfPipelineToTheAnalyticalModel) {
  recorded_data data;
  registry reg;
  data.register_into(reg);
  model_info info;
  info.arch = "sm_90";
  info.signatures = {"bf16-bf16-bf16-fp32-bf16/rcr/standard"};
  info.kernel_set_scope = "signatures";
  info.pipelines = pipelines_of(data.set.kernels);
  ASSERT_FALSE(info.pipelines.empty());
  EXPECT_TRUE(std::find(info.pipelines.begin(), info.pipelines.end(), "gemv") == info.pipelines.end());
  info.kernel_set = registered_kernel_set(reg, arch_id::sm_90, nullptr, info.signatures, info.pipelines);
  train_options o;
  o.rounds = 5;
  scratch s;
  ranking_model::train(data.groups(), o, info).save(s / "gemm_sm_90.model.json");
  EXPECT_EQ(ranking_model::load(s / "gemm_sm_90.model.json").info().pipelines, info.pipelines);

  registry wider;
  data.register_into(wider);
  gemm_key gemv = kdecl::testing::make_key(dtype::bf16, rcr, 1, 2, 2048, arch_id::sm_90, pipeline::gemv);
  gemv.algo.warps = {1, 1, 4};
  gemv.algo.warp_tile = {1, 1, 256};
  gemv.algo.stages = 1;
  gemv.algo.epi = epilogue::direct;
  wider.add(std::make_shared<kdecl::testing::recording_gemm>(gemv), "gemv");
  gemm_key gemv8 = gemv;
  gemv8.algo.tile = {8, 8, 1024};
  wider.add(std::make_shared<kdecl::testing::recording_gemm>(gemv8), "gemv");
  EXPECT_EQ(registered_kernel_set(wider, arch_id::sm_90, nullptr, info.signatures, info.pipelines), info.kernel_set);
  EXPECT_NE(registered_kernel_set(wider, arch_id::sm_90, nullptr, info.signatures), info.kernel_set);
  gemm_dispatcher d(sm90(), wider);
  d.clear_tiers();
  use_ranking_model(d, s / "gemm_sm_90.model.json");
  // The analytical ranking decides between the pipelines: a gemv kernel first, the analytical tier
  // takes the problem; another first, the model ranks the kernels it knows (never the gemv one).
  int gemv_first = 0, model_chose = 0;
  for (const std::int64_t m : {1, 2, 4, 8}) {
    for (const std::int64_t n : {512, 1500, 5120}) {
      gemm_problem p;
      p.sizes(m, n, 2048).dtype(dtype::bf16).layout(rcr);
      const auto ranked = d.ranked(p.normalized(), nullptr);
      ASSERT_FALSE(ranked.empty());
      const auto sel = d.select(p.normalized());
      ASSERT_TRUE(sel) << sel.explain();
      if (ranked.front().first->key().algo.pipe == pipeline::gemv) {
        ++gemv_first;
        EXPECT_EQ(sel.tier, "analytical model") << sel.explain();
        EXPECT_EQ(sel.kernel->key().algo.pipe, pipeline::gemv) << sel.explain();
        EXPECT_NE(sel.explain().find("ranks a gemv kernel first, a pipeline it was not trained with"), std::string::npos)
            << sel.explain();
      } else {
        // The model ranks the kernels it knows (below M = 8 the problem is outside its trained sizes).
        EXPECT_EQ(sel.explain().find("ranks a gemv kernel first"), std::string::npos) << sel.explain();
        EXPECT_NE(sel.kernel->key().algo.pipe, pipeline::gemv) << sel.explain();
        if (m == 8) EXPECT_EQ(sel.tier, "learned model") << sel.explain();
        model_chose += sel.tier == "learned model";
      }
    }
  }
  EXPECT_GT(gemv_first, 0);
  EXPECT_GT(model_chose, 0);
  gemm_problem prefill;
  prefill.sizes(2048, 5120, 2048).dtype(dtype::bf16).layout(rcr);
  auto rows = d.select(prefill.normalized());
  ASSERT_TRUE(rows) << rows.explain();
  EXPECT_EQ(rows.tier, "learned model") << rows.explain();
  std::printf("gemv ranked first on %d problems, the model chose on %d\n", gemv_first, model_chose);
}

// Rows of two devices that disagree: the model ranks by the device the dispatcher drives, and a
// device that does not say its memory clock (an arch named offline) is the arch's reference part.
TEST(SelectionTiers, ModelRanksForTheDispatchersDevice) {
  const std::string& a = tile_128;
  const std::string& b = tile_64;
  const auto rows = disagreeing_rows({256, 384, 512, 768, 1024}, 3201);  // 2619 MHz: b is faster; 3201 MHz: a
  registry reg;
  for (const auto& name : {a, b})
    reg.add(std::make_shared<kdecl::testing::recording_gemm>(parse_gemm_name(name)), "two devices");
  model_info info;
  info.arch = "sm_90";
  info.kernel_set = registered_kernel_set(reg, arch_id::sm_90);
  info.kernel_count = 2;
  std::vector<ranking_group> groups;
  for (const auto& p : measured_problems(rows, {}, "sm_90")) groups.push_back(ranking_group_of(p));
  train_options o;
  o.rounds = 20;
  auto model = std::make_shared<const ranking_model>(ranking_model::train(groups, o, info));
  const auto choice = [&](int memory_clock_mhz) {
    gemm_dispatcher d(device{arch_id::sm_90, 0, "sm_90", memory_clock_mhz}, reg);
    d.clear_tiers();
    std::string why;
    auto tier = model_tier(model, d.target(), reg, why);
    EXPECT_TRUE(tier) << why;
    d.add_tier(tier);
    auto sel = d.select(gemm_problem{}.sizes(512, 1024, 4096).dtype(dtype::bf16));
    EXPECT_EQ(sel.tier, "learned model") << sel.explain();
    const std::string clock = memory_clock_mhz > 0 ? fmt::format("(memory clock {} MHz)", memory_clock_mhz)
                                                   : "(memory clock 2619 MHz, the arch's reference part)";
    EXPECT_NE(sel.explain().find(clock), std::string::npos) << sel.explain();
    return sel.kernel ? sel.kernel->name() : std::string();
  };
  EXPECT_EQ(choice(2619), b);
  EXPECT_EQ(choice(3201), a);
  EXPECT_EQ(choice(0), b);  // sm_90's reference part, the H100 SXM5 (2619 MHz)
}

TEST(SelectionTiers, DatabaseExactHitsComeFirst) {
  recorded_data data;
  scratch s;
  {
    tuning_db db(s / "t.db");
    db.import_jsonl(recorded);
  }
  registry reg;
  data.register_into(reg);
  gemm_dispatcher d(sm90(), reg);
  d.clear_tiers();
  use_tuning_database(d, s / "t.db");
  const auto& mp = data.problems[1];
  auto sel = d.select(parse_problem_key(mp.key));
  ASSERT_TRUE(sel);
  EXPECT_EQ(sel.tier, "tuning database");
  const auto fastest = std::min_element(mp.ms.begin(), mp.ms.end()) - mp.ms.begin();
  EXPECT_EQ(sel.kernel->name(), mp.kernels[std::size_t(fastest)]);
  EXPECT_NE(sel.explain().find("exact hit"), std::string::npos) << sel.explain();
  // A problem the database has not seen falls through to the analytical model, saying so.
  auto unseen = gemm_problem{}.sizes(336, 4448, 560).dtype(dtype::bf16).layout(rcr);
  auto sel2 = d.select(unseen);
  ASSERT_TRUE(sel2);
  EXPECT_EQ(sel2.tier, "analytical model");
  EXPECT_NE(sel2.explain().find("tuning database: no entry"), std::string::npos) << sel2.explain();
  EXPECT_THROW(use_tuning_database(d, s / "absent.db"), std::invalid_argument);
}

TEST(Features, SizesWasteAndWaves) {
  auto key = parse_gemm_name(
      "gemm_bf16_rcr_tma_wgmma_cshuffle_intrawave_128x256x64_8x1x1_16x256x16_s4_v16_padmnk_sm_90");
  auto p = gemm_problem{}.sizes(192, 256, 640).dtype(dtype::bf16).layout(rcr).normalized();
  auto f = features_of(p, key, 0.0);
  const auto& names = feature_names();
  auto at = [&](std::string_view n) { return f[std::size_t(std::find(names.begin(), names.end(), n) - names.begin())]; };
  EXPECT_FLOAT_EQ(at("log2_n"), 8.0f);
  EXPECT_FLOAT_EQ(at("waste_m"), 0.25f);  // 192 of 256 padded rows are real
  EXPECT_FLOAT_EQ(at("waste_n"), 0.0f);
  EXPECT_FLOAT_EQ(at("k_iterations"), 10.0f);
  EXPECT_FLOAT_EQ(at("tile_m"), 128.0f);
  EXPECT_FLOAT_EQ(at("estimate_ratio"), 1.0f);
  // A and B aligned, C's rows 257 elements (514 bytes): only the C feature sees it.
  auto odd_c = gemm_problem{}.sizes(192, 257, 640).dtype(dtype::bf16).layout(rcr).normalized();
  EXPECT_EQ(alignment_class(odd_c).ab, 16);
  EXPECT_EQ(alignment_class(odd_c).cd, 2);
  f = features_of(odd_c, key, 0.0, alignment_class(odd_c));
  EXPECT_FLOAT_EQ(at("alignment"), 16.0f);
  EXPECT_FLOAT_EQ(at("vector_share"), 1.0f);
  EXPECT_FLOAT_EQ(at("c_alignment"), 2.0f);
  // GPT-2 XL's 1600-wide output on 64x256 tiles: 7 column tiles of 256, 1600 of 1792 columns real.
  auto pingpong = parse_gemm_name(
      "gemm_bf16_rcr_tma_wgmma_cshuffle_pingpong_64x256x64_4x1x1_16x256x16_s5_v16_padmnk_sm_90");
  auto gpt = gemm_problem{}.sizes(8192, 1600, 6400).dtype(dtype::bf16).layout(rcr).normalized();
  f = features_of(gpt, pingpong, 0.0, alignment_class(gpt));
  EXPECT_FLOAT_EQ(at("useful_share"), 1600.0f / 1792.0f);
  const float waves = at("waves");
  EXPECT_FLOAT_EQ(at("wave_share"), waves / std::ceil(waves));
  EXPECT_FLOAT_EQ(at("work_share"), at("useful_share") * at("wave_share"));
  EXPECT_FLOAT_EQ(at("ab_row_alignment"), 256.0f);  // rows of 12,800 bytes
  // Every one of the 128 x 7 tiles loads (64 + 256) x 6400 elements of 2 bytes.
  EXPECT_FLOAT_EQ(at("log2_tile_loads"), float(std::log2(128.0 * 7 * 320 * 6400 * 2)));
  EXPECT_FLOAT_EQ(at("tile_loads_share"), float((128.0 * 7 * 320) / (8192.0 + 1600.0)));
  // K = 1784: rows of 3,568 bytes start 16 bytes off a 128-byte line, which the 16-byte class cannot tell.
  auto off_line = gemm_problem{}.sizes(1024, 1024, 1784).dtype(dtype::bf16).layout(rcr).normalized();
  f = features_of(off_line, key, 0.0, alignment_class(off_line));
  EXPECT_FLOAT_EQ(at("alignment"), 16.0f);
  EXPECT_FLOAT_EQ(at("ab_row_alignment"), 16.0f);
  // The device: its memory clock where known, else the arch's reference part's (an H100 SXM5 for sm_90).
  EXPECT_FLOAT_EQ(at("memory_clock_mhz"), 2619.0f);
  f = features_of(off_line, key, 0.0, alignment_class(off_line), device_facts{3201});
  EXPECT_FLOAT_EQ(at("memory_clock_mhz"), 3201.0f);
  EXPECT_EQ(family_of("Llama-3-70B"), "Llama");
  EXPECT_EQ(family_of("Flan-T5-XL"), "T5");
  EXPECT_EQ(family_of("resnet50"), "ResNet");  // not "T5", which it holds
  EXPECT_EQ(family_of("resnext50_32x4d"), "ResNeXt");
  EXPECT_EQ(family_of("ViT-B/16"), "ViT");
}

}  // namespace
}  // namespace kdecl::tuning
