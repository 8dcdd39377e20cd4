// What `kdecl tune gemm` and `kdecl tune conv` share: the options, progress
// text, and on CUDA builds the operand pool, the timing loop (the benchmark
// method of docs/perf/) and the machine a row records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kdecl/core/enums.hpp"
#include "kdecl/runtime/buffer.hpp"
#include "kdecl/runtime/device.hpp"
#include "kdecl/tuning/tuning_db.hpp"

namespace kdecl::cli::tune {

struct tune_options {
  std::string op;
  std::vector<std::string> problems;  // CSV files, read in order
  std::string kernels;
  std::string db = "tuning.db";
  std::string export_path, import_path;
  std::string dtype = "bf16", layout = "rcr";  // for rows of the problems file that name none
  std::string directions = "fwd";              // conv: fwd, bwd_data, bwd_weight (comma-separated) or all
  std::vector<std::int64_t> batches;           // conv: batch sizes replacing the files' n (empty: as listed)
  std::string commit;
  int warmup = 5;
  double warm_ms = 2.0;        // and at least this much GPU time of warm-up per kernel
  double ramp_ms = 20.0;       // before a problem's first kernel: the clocks come up from the idle of the setup
  int iters = 20;
  double target_ms = 25.0;     // timed launches per kernel: about this much GPU time, at least 5
  double time_budget_s = 0.0;  // 0 = no limit; else no measurement starts after this many seconds
};

// "42s", "3m07s", "1h05m".
std::string duration_text(double seconds);

// The commit recorded with each row: --commit, else $KDECL_COMMIT, else "unknown".
std::string commit_of(const tune_options& o);

#if KDECL_WITH_CUDA

// Random operands of one dtype, filled once and carved into operand sets:
// enough sets that one pass over them touches more than twice the L2.
class operand_pool {
 public:
  operand_pool(const device& dev, std::size_t bytes, dtype d);
  char* data() { return static_cast<char*>(buf_.data()); }
  std::size_t size() const { return buf_.size(); }

 private:
  buffer buf_;
};

struct timing {
  double median_ms = 0, spread = 0;
  int samples = 0;
};

// Warm-up of at least `warm_ms` of GPU time and `warmup` launches, then launches
// timed one by one with CUDA events (about target_ms of GPU time, 5 to max_iters), median.
timing time_launches(const std::function<void(int)>& launch, int warmup, double warm_ms, int max_iters,
                     double target_ms);

tuning::machine_info machine_of(const device& dev, const std::string& commit);

// The device's L2 in bytes.
std::size_t l2_bytes(const device& dev);

// True when the last CUDA error is sticky (every later launch would fail): what a
// tuning run stops on, keeping the rows it wrote.
bool device_poisoned();

#endif

}  // namespace kdecl::cli::tune
