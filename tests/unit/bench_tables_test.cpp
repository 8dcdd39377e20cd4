// The problem side of `kdecl bench conv` and `kdecl bench fmha`, without a GPU:
//  - every attention shape list parses into valid problems, each with its source,
//    and malformed rows are refused naming file:line, the column and the value;
//  - the --filter terms over table fields, and their errors;
//  - the keys that --resume matches tell different problems apart;
//  - the report's arithmetic (geometric mean and worst tenth of the ratio to
//    cuDNN, counts of problems without a kdecl kernel or a cuDNN call).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <chrono>
#include <thread>
#include <utility>

#include "bench_tables.hpp"
#include "bench_timing.hpp"
#include "kdecl/runtime/dependent_launch.hpp"
#include "vendor_bench.hpp"

namespace kdecl::cli {
namespace {

std::vector<std::string> fmha_files() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(KDECL_SHAPES_DIR))
    if (e.path().extension() == ".csv" && e.path().filename().string().starts_with("fmha_"))
      files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// Timing in turns (the vendor comparison of `kdecl bench`, the confirmations of `kdecl tune`), on
// the host clock: each round gives every launcher its warm-up and timed launches, the order
// rotated by one per round; one launch number counts on across all of them.
TEST(BenchTiming, InterleavedTimingsTakeTurnsInRotatedOrder) {
  std::vector<std::pair<int, int>> log;  // (launcher, launch number)
  auto launcher = [&](int id, std::chrono::microseconds nap) {
    return [&log, id, nap](int call) {
      log.emplace_back(id, call);
      std::this_thread::sleep_for(nap);
    };
  };
  const std::vector<std::function<void(int)>> launchers{launcher(0, std::chrono::microseconds(100)),
                                                        launcher(1, std::chrono::microseconds(3000)),
                                                        launcher(2, std::chrono::microseconds(100))};
  // 3 rounds; 9 timed launches each (3 a round); warm-up 6 (2 a round).
  const auto t = interleaved_timings(false, launchers, 6, 9, 3);
  ASSERT_EQ(t.size(), 3u);
  ASSERT_EQ(log.size(), 3u * 3u * 5u);
  const int first_of_round[3][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}};
  for (std::size_t i = 0; i < log.size(); ++i) {
    EXPECT_EQ(log[i].second, int(i)) << "launch numbers count on across turns";
    const std::size_t round = i / 15, turn = (i % 15) / 5;
    EXPECT_EQ(log[i].first, first_of_round[round][turn]) << "launch " << i;
  }
  for (const auto& x : t) {
    EXPECT_EQ(x.samples, 9);
    EXPECT_GT(x.median_ms, 0.0);
    EXPECT_GE(x.spread, 0.0);
  }
  EXPECT_GT(t[1].median_ms, 2.0 * t[0].median_ms);  // the slow launcher's samples stay its own
  EXPECT_GT(t[1].median_ms, 2.0 * t[2].median_ms);
  EXPECT_EQ(interleaved_medians(false, launchers, 6, 9, 3).size(), 3u);
}

// --back-to-back: the same launches in the same order, each turn timed as one group: one sample
// per round (the group's mean), still the launcher's own.
TEST(BenchTiming, BackToBackTurnsAreTimedAsOneGroup) {
  std::vector<int> order;
  auto launcher = [&](int id, std::chrono::microseconds nap) {
    return [&order, id, nap](int) {
      order.push_back(id);
      std::this_thread::sleep_for(nap);
    };
  };
  const std::vector<std::function<void(int)>> launchers{launcher(0, std::chrono::microseconds(200)),
                                                        launcher(1, std::chrono::microseconds(2000))};
  const auto t = interleaved_timings(false, launchers, 6, 12, 3, /*back_to_back=*/true);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(order.size(), 2u * 3u * (2u + 4u));  // per round and launcher: 2 warm-up, 4 timed
  for (const auto& x : t) EXPECT_EQ(x.samples, 3);
  EXPECT_GT(t[0].median_ms, 0.2);                // a launch's mean, not the group's sum...
  EXPECT_LT(t[0].median_ms, 1.5);
  EXPECT_GT(t[1].median_ms, 4.0 * t[0].median_ms);  // ...and each launcher's own
}

// --dependent-launch-ab's launcher turns the process-wide switch off around its launch and must leave
// it as it found it (on by default, or off where KDECL_DEPENDENT_LAUNCH=0 turned it off).
TEST(BenchTiming, DependentLaunchSwitchRestoresWhatItFound) {
  auto& on = dependent_launch_enabled();
  const bool initially = on.load();
  for (const bool start : {true, false}) {
    on = start;
    {
      without_dependent_launch off;
      EXPECT_FALSE(on.load());
      {
        without_dependent_launch nested;
        EXPECT_FALSE(on.load());
      }
      EXPECT_FALSE(on.load());
    }
    EXPECT_EQ(on.load(), start);
  }
  on = initially;
}

TEST(BenchTables, EveryAttentionRowIsAValidProblemWithASource) {
  std::size_t rows = 0;
  std::set<std::string> keys;
  bool varlen = false, window = false, softcap = false, sinks = false, gqa = false;
  for (const auto& f : fmha_files())
    for (const auto& r : read_fmha_rows(f, dtype::bf16)) {
      SCOPED_TRACE(r.file + ":" + r.name);
      EXPECT_FALSE(r.source.empty());
      EXPECT_EQ(r.problem.validate().value_or("valid"), "valid");
      EXPECT_GT(r.problem.flops(), 0);
      keys.insert(fmha_key(r.problem));
      varlen |= r.problem.group_mode();
      window |= r.problem.mask == fmha_mask::generic;
      softcap |= r.problem.soft_cap > 0;
      sinks |= r.problem.sinks;
      gqa |= r.problem.heads_q != r.problem.heads_kv;
      ++rows;
    }
  EXPECT_GE(rows, 70u);
  EXPECT_GE(keys.size(), 60u);  // distinct problems: the keys tell them apart
  EXPECT_TRUE(varlen && window && softcap && sinks && gqa);
}

TEST(BenchTables, CausalRowsAreBottomRightAndTheDtypeIsTheCommandLines) {
  const auto rows = read_fmha_rows(std::string(KDECL_SHAPES_DIR) + "/fmha_llm_prefill.csv", dtype::fp16);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.front().problem.mask, fmha_mask::bottom_right);
  EXPECT_EQ(rows.front().problem.qkv, dtype::fp16);
  // Causal counts about half the pairs: flops of a causal row < 0.51 of the same unmasked problem.
  fmha_problem unmasked = rows.front().problem;
  unmasked.causal(fmha_mask::none);
  EXPECT_LT(rows.front().problem.flops(), 0.51 * unmasked.flops());
  EXPECT_GT(rows.front().problem.flops(), 0.49 * unmasked.flops());
}

std::string write_csv(const std::string& name, const std::string& body) {
  const auto path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << "name,source,b,hq,hkv,sq,skv,d,dv,mask,window_left,window_right,bias,softcap,scale,sinks,varlen\n"
                      << body;
  return path;
}

TEST(BenchTables, MalformedAttentionRowsNameFileLineColumnAndValue) {
  auto expect_error = [](const std::string& body, const std::string& what) {
    const auto path = write_csv("kdecl_bench_tables_bad.csv", body);
    try {
      read_fmha_rows(path, dtype::bf16);
      ADD_FAILURE() << "no error for " << body;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("kdecl_bench_tables_bad.csv:2"), std::string::npos) << e.what();
    }
  };
  expect_error("x,s,1,8,2,128,128,64,64,diagonal,-1,-1,none,0,0,0,\n", "column mask: 'diagonal'");
  expect_error("x,s,1,8,2,12a,128,64,64,none,-1,-1,none,0,0,0,\n", "column sq: '12a' is not an integer");
  expect_error("x,s,1,8,3,128,128,64,64,none,-1,-1,none,0,0,0,\n", "heads_q = 8 is not a multiple of heads_kv = 3");
  expect_error("x,s,1,8,2,128,128,64,64,none,-1,-1,none,0,0,2,\n", "column sinks: '2'");
  expect_error("x,s,2,8,2,0,0,64,64,none,-1,-1,none,0,0,0,5-5\n", "column varlen: '5-5' is not Q:KV");
  expect_error("x,s,1,8,2,128,128,64,64,none,-1,-1,none,0,0,0\n", "16 cells, the header has 17");
}

TEST(BenchTables, VarlenRowsAreGroupMode) {
  const auto path = write_csv("kdecl_bench_tables_varlen.csv", "x,s,3,8,2,40,17,64,64,causal,-1,-1,none,0,0,1,40:17;0:9;3:3\n");
  const auto rows = read_fmha_rows(path, dtype::bf16);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0].problem.group_mode());
  EXPECT_EQ(rows[0].problem.batch, 3);
  EXPECT_EQ(rows[0].problem.total_q(), 43);
  EXPECT_TRUE(rows[0].problem.sinks);
  EXPECT_NE(fmha_key(rows[0].problem).find("varlen=40:17;0:9;3:3"), std::string::npos) << fmha_key(rows[0].problem);
}

TEST(BenchTables, FilterTermsAndTheirErrors) {
  const std::set<std::string> known{"network", "layer", "direction"};
  const std::map<std::string, std::string> row{{"network", "resnet50"}, {"layer", "layer1.0.conv1"}, {"direction", "fwd"}};
  EXPECT_TRUE(table_filter("", known).matches(row));
  EXPECT_TRUE(table_filter("network=resnet50", known).matches(row));
  EXPECT_TRUE(table_filter("network=unet|resnet50, direction=fwd", known).matches(row));
  EXPECT_FALSE(table_filter("network=unet", known).matches(row));
  EXPECT_TRUE(table_filter("layer~conv", known).matches(row));
  EXPECT_FALSE(table_filter("direction!=fwd", known).matches(row));
  EXPECT_THROW(table_filter("net=resnet50", known), std::invalid_argument);
  EXPECT_THROW(table_filter("network", known), std::invalid_argument);
  EXPECT_THROW(table_filter("network!resnet50", known), std::invalid_argument);
  try {
    table_filter("model=x", known);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("filter field 'model' is unknown; fields: direction, layer, network"),
              std::string::npos)
        << e.what();
  }
}

TEST(BenchTables, ConvKeysAndClasses) {
  auto p = grouped_conv_problem{}.batch(32).channels(256, 256).groups(32).input_size({56, 56}).filter_size({3, 3})
               .padding({1}).dtype(dtype::bf16).normalized();
  EXPECT_EQ(conv_class(p), "grouped");
  auto dw = p;
  dw.groups(256);
  EXPECT_EQ(conv_class(dw.normalized()), "depthwise");
  auto pw = grouped_conv_problem{}.batch(1).channels(64, 256).input_size({56, 56}).filter_size({1, 1})
                .dtype(dtype::bf16).normalized();
  EXPECT_EQ(conv_class(pw), "pointwise");
  auto bwd = p;
  bwd.direction(conv_direction::bwd_data);
  EXPECT_NE(conv_key(p), conv_key(bwd.normalized()));
  EXPECT_NE(conv_key(p), conv_key(dw.normalized()));
}

TEST(BenchTables, ReportGeomeanWorstTenthAndGaps) {
  std::vector<nlohmann::json> records;
  // Ten problems of one group with ratios 0.5, 1, 1, ..., 1, 2; one without a kdecl kernel; one cuDNN cannot run.
  for (int i = 0; i < 10; ++i) {
    const double ratio = i == 0 ? 0.5 : i == 9 ? 2.0 : 1.0;
    records.push_back({{"key", "p" + std::to_string(i)}, {"group", "fwd dense"}, {"ratio", ratio},
                       {"dispatcher", {{"ms", 1.0}, {"tflops", 1.0}, {"gbs", 1.0}, {"kernel", "k"}}},
                       {"cudnn", {{"ms", ratio}}}});
  }
  records.push_back({{"key", "gap"}, {"group", "bwd_data dense"}, {"kdecl_missing", "no kernel built for sm_90"},
                     {"cudnn", {{"ms", 0.3}, {"tflops", 2.0}}}});
  records.push_back({{"key", "asym"}, {"group", "fwd dense"}, {"cudnn_missing", "asymmetric padding"},
                     {"dispatcher", {{"ms", 1.0}}}});
  const std::string md = vendor_markdown(records, "test");
  EXPECT_NE(md.find("| fwd dense | 11 | 10 | **1.000** | 0.500 | 0.500 | 0.500 (p0) | 0 | 1 | 0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| bwd_data dense | 1 | 0 | - | - | - | - | 1 | 0 | 0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("no kdecl kernel: no kernel built for sm_90"), std::string::npos) << md;
  EXPECT_NE(md.find("cuDNN: asymmetric padding"), std::string::npos) << md;
}

TEST(BenchTables, AgreementComparesBothResultsInTheSameBuffer) {
  // Host buffers stand in for the device: "ours" writes 1, 2, 3, 4; the "vendor" 1, 2, 3, 4.4.
  buffer out(device::host(), 4 * sizeof(float));
  vendor_call vendor;
  vendor.launch = [&](int) { out.upload(std::vector<float>{1, 2, 3, 4.4f}); };
  vendor.result = &out;
  vendor.result_type = dtype::fp32;
  vendor.result_elements = 4;
  const auto ours = [&](int) { out.upload(std::vector<float>{1, 2, 3, 4}); };
  const auto a = agreement(false, ours, vendor);
  EXPECT_NEAR(a["relative_error"].get<double>(), 0.4 / std::sqrt(1 + 4 + 9 + 4.4 * 4.4), 1e-6);
  EXPECT_NEAR(a["max_abs_error_over_scale"].get<double>(), 0.4 / 4.4, 1e-6);
  const auto nan = agreement(false, [&](int) { out.upload(std::vector<float>{1, 2, NAN, 4}); }, vendor);
  EXPECT_EQ(nan["relative_error"], "nan");
}

}  // namespace
}  // namespace kdecl::cli
