// benchmarks/shapes/fmha_*.csv: every row names its source and is a valid problem
// that the host dispatcher can serve, and that the sm_90 dispatcher (offline) gives the
// tma_wgmma_ws kernel in a build with the CUDA sets.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "bias_option.hpp"
#include "kdecl/fmha/fmha_dispatcher.hpp"

namespace kdecl {
namespace {

// One CSV line into fields; double quotes protect commas.
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) out.emplace_back();
    else out.back() += c;
  }
  return out;
}

std::vector<std::int32_t> lengths(const std::string& varlen, bool kv) {
  std::vector<std::int32_t> out;
  std::size_t start = 0;
  while (start < varlen.size()) {
    auto end = varlen.find(';', start);
    const std::string pair = varlen.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const auto colon = pair.find(':');
    out.push_back(std::stoi(kv ? pair.substr(colon + 1) : pair.substr(0, colon)));
    start = end == std::string::npos ? varlen.size() : end + 1;
  }
  return out;
}

const device sm90_offline{arch_id::sm_90, -1, "sm_90 (offline)"};

// Whether this build registers sm_90 attention kernels (a build with the CUDA sets).
bool has_sm90_kernels() {
  fmha_problem p;
  p.sizes(1, 128, 128).heads(1, 1).head_dim(64).dtype(dtype::bf16);
  return bool(fmha_dispatcher(sm90_offline).select(p));
}

TEST(FmhaShapes, EveryRowIsAValidProblemWithASource) {
  int rows = 0;
  fmha_dispatcher host(device::host());
  fmha_dispatcher sm90(sm90_offline);
  const bool cuda_sets = has_sm90_kernels();
  for (const auto& entry : std::filesystem::directory_iterator(KDECL_SHAPES_DIR)) {
    const auto name = entry.path().filename().string();
    if (!name.starts_with("fmha_") || entry.path().extension() != ".csv") continue;
    std::ifstream in(entry.path());
    std::vector<std::string> header;
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      if (header.empty()) {
        header = fields(line);
        continue;
      }
      const auto f = fields(line);
      ASSERT_EQ(f.size(), header.size()) << name << ": " << line;
      std::map<std::string, std::string> c;
      for (std::size_t i = 0; i < f.size(); ++i) c[header[i]] = f[i];
      SCOPED_TRACE(name + ": " + c["name"]);
      EXPECT_FALSE(c["source"].empty());
      fmha_problem p;
      p.dtype(dtype::bf16).heads(std::stoll(c["hq"]), std::stoll(c["hkv"])).head_dims(std::stoll(c["d"]), std::stoll(c["dv"]));
      if (!c["varlen"].empty()) {
        p.varlen(lengths(c["varlen"], false), lengths(c["varlen"], true));
        EXPECT_EQ(p.batch, std::stoll(c["b"]));
        EXPECT_EQ(p.seqlen_q, std::stoll(c["sq"]));
      } else {
        p.sizes(std::stoll(c["b"]), std::stoll(c["sq"]), std::stoll(c["skv"]));
        EXPECT_GE(p.total_q(), 4096);
      }
      if (c["mask"] == "causal") p.causal(fmha_mask::bottom_right);
      else if (c["mask"] == "window") p.sliding_window(std::stoll(c["window_left"]), std::stoll(c["window_right"]));
      else EXPECT_EQ(c["mask"], "none");
      EXPECT_TRUE(cli::apply_bias_option(p, c["bias"])) << c["bias"];  // the bench's own reading of the column
      p.logits_soft_cap(std::stof(c["softcap"])).softmax_scale(std::stof(c["scale"])).with_sinks(c["sinks"] == "1");
      EXPECT_EQ(p.validate().value_or("valid"), "valid");
      auto sel = host.select(p);
      EXPECT_TRUE(sel) << sel.explain();
      if (cuda_sets) {  // every list runs on the FlashAttention-3-style kernel, head dims 192/128 and 256 included
        auto fast = sm90.select(p);
        ASSERT_TRUE(fast) << fast.explain();
        EXPECT_EQ(fast.kernel->key().algo.pipe, fmha_pipeline::tma_wgmma_ws) << fast.kernel->name();
      }
      ++rows;
    }
  }
  EXPECT_GE(rows, 90);
}

// The tma_wgmma_ws kernel numbers its tiles (128 query rows x query heads x sequences) with 32 bits
// and takes them in rounds: 2^30 tiles or more go to another kernel, with that reason.
TEST(FmhaShapes, Sm90TileCountIsChecked) {
  if (!has_sm90_kernels()) GTEST_SKIP() << "no CUDA attention kernels in this build";
  fmha_dispatcher sm90(sm90_offline);
  fmha_problem p;
  p.sizes(512, 1 << 20, 128).heads(256, 8).head_dim(64).dtype(dtype::bf16);  // 8192 x 256 x 512 = 2^30 tiles
  for (const auto& [kernel, estimate] : sm90.ranked(p))
    EXPECT_NE(kernel->key().algo.pipe, fmha_pipeline::tma_wgmma_ws) << kernel->name();
  auto sel = sm90.select(p, nullptr, true);
  bool named = false;
  for (const auto& r : sel.rejected) named = named || r.reason.find("2^30 tiles") != std::string::npos;
  EXPECT_TRUE(named) << sel.explain();
  p.sizes(511, 1 << 20, 128);  // one sequence fewer: the TMA kernel takes it
  auto ok = sm90.select(p);
  ASSERT_TRUE(ok) << ok.explain();
  EXPECT_EQ(ok.kernel->key().algo.pipe, fmha_pipeline::tma_wgmma_ws);
}

}  // namespace
}  // namespace kdecl
