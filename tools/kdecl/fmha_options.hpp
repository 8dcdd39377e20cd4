// Command-line flags that describe one attention problem (select, run and bench fmha):
// --b --hq --hkv --sq --skv --d --dv --dtype --layout --mask --window --bias --softcap
// --scale --sinks --lse --varlen, and --device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "kdecl/fmha/fmha_problem.hpp"
#include "kdecl/runtime/device.hpp"

namespace kdecl::cli {

struct fmha_options {
  std::int64_t b = 1, hq = 0, hkv = 0, sq = 0, skv = 0, d = 0, dv = 0;
  std::string dtype = "bf16";
  std::string layout = "bshd";
  std::string mask = "none";
  std::string window;  // "L,R"
  std::string bias = "none";
  float softcap = 0.0f, scale = 0.0f;
  bool sinks = false, lse = false, explain = false;
  std::string varlen;  // "q:kv,q:kv,..."
  std::string device = "auto";
  std::string kernel;
  std::uint64_t seed = 1;

  // select: --explain; run: --kernel, --seed; bench: neither, and --hq/--d are optional
  // (bench takes --problems files instead).
  enum class mode { select, run, bench };
  void add_to(CLI::App& app, mode m);

  // The problem of the flags (dtype given separately by bench's lists); throws
  // std::invalid_argument naming the flag, value and rule.
  fmha_problem problem() const;
  kdecl::device target() const;
};

}  // namespace kdecl::cli
