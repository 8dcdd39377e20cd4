// What `kdecl tune gemm` and `kdecl tune conv` share: the options, progress
// text, and on CUDA builds the operand pool, the timing loop (the benchmark
// method of docs/perf/) and the machine a row records.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "kdecl/core/enums.hpp"
#include "kdecl/registry/registry.hpp"
#include "kdecl/runtime/buffer.hpp"
#include "kdecl/runtime/device.hpp"
#include "kdecl/tuning/confirmation.hpp"
#include "kdecl/tuning/tuning_db.hpp"
#include "bench_timing.hpp"

namespace kdecl::cli::tune {

struct tune_options {
  std::string op;
  std::vector<std::string> problems;  // CSV files, read in order
  std::string kernels;
  std::string db = "tuning.db";
  std::string export_path, import_path;
  std::string dtype = "bf16", layout = "rcr";  // for rows of the problems file that name none
  std::string compute;                         // conv: tf32 lets fp32 problems multiply in tf32 (empty: the dtype)
  std::string directions = "fwd";              // conv: fwd, bwd_data, bwd_weight (comma-separated) or all
  std::vector<std::int64_t> batches;           // conv: batch sizes replacing the files' n (empty: as listed)
  std::string commit;
  int warmup = 5;
  double warm_ms = 2.0;        // and at least this much GPU time of warm-up per kernel
  double ramp_ms = 20.0;       // before a problem's first kernel: the clocks come up from the idle of the setup
  int iters = 20;
  double target_ms = 25.0;     // timed launches per kernel: about this much GPU time, at least 5
  double retry_spread = 0.10;  // a measurement whose spread exceeds this is timed again (0: never)
  int retries = 2;             // at most this many times; the attempt with the lowest median is kept
  double time_budget_s = 0.0;  // 0 = no limit; else no measurement starts after this many seconds
  // --confirm N: after a problem's kernels are measured, its N fastest (within confirm_within of
  // the fastest) are timed again in confirm_rounds rounds of turns (tuning/confirmation.hpp).
  int confirm = 0;
  int confirm_rounds = 5;
  double confirm_within = 0.75;
  double confirm_retry_spread = 0.5;  // a confirmation with a wider spread than this is timed again
  // --shard I/N: only the distinct problems whose position in the list is I modulo N, so that N
  // processes (one per GPU) tune one list into N databases that --import merges.
  std::string shard_text;
  int shard = 0, shards = 1;
};

// "I/N" of --shard as {I, N}: 0 <= I < N, N >= 1; std::invalid_argument (exit 2) naming the
// value and the rule otherwise.
std::pair<int, int> parse_shard(const std::string& text);

// "42s", "3m07s", "1h05m".
std::string duration_text(double seconds);

// The commit recorded with each row: --commit, else $KDECL_COMMIT, else "unknown".
std::string commit_of(const tune_options& o);

// One distinct problem of an op's list, and the layers it stands for.
template <class Problem>
struct tuning_problem {
  Problem problem;  // normalized
  std::string key;  // its problem key
  std::vector<tuning::problem_source> sources;
};

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
// While the spread (P90 - P10) / median exceeds `retry_spread`, up to `retries` more
// attempts; the one with the lowest median is kept (its spread and samples with it).
timing time_launches(const std::function<void(int)>& launch, int warmup, double warm_ms, int max_iters,
                     double target_ms, double retry_spread = 0.0, int retries = 0);

tuning::machine_info machine_of(const device& dev, const std::string& commit);

// The device's L2 in bytes.
std::size_t l2_bytes(const device& dev);

// True when the last CUDA error is sticky (every later launch would fail): what a
// tuning run stops on, keeping the rows it wrote.
bool device_poisoned();

// What every tuning run opens first: the GPU (std::invalid_argument, exit 2,
// when there is none), the machine its rows record, the database with this
// arch's kernel set recorded (`kernel_set(arch, &names)` fingerprints the op's
// registered kernels), and the candidates --kernels keeps.
struct tuning_run {
  device dev;
  tuning::machine_info machine;
  std::unique_ptr<tuning::tuning_db> db;
  std::string fingerprint;
  std::unique_ptr<registry> candidates;
};
tuning_run open_run(const tune_options& o,
                    const std::function<std::string(arch_id, std::vector<std::string>*)>& kernel_set);

// "tune <op> on <GPU> (...): N problems[, shard I/N], M measurements to take, K already in <db>".
void print_plan(const std::string& op, const tuning_run& run, const std::string& problems, std::size_t total,
                std::size_t already, const tune_options& o);

// One problem's kernels that have no row for this device yet, and (with --confirm) every eligible
// one: the confirmation pass times some of those again.
template <class Instance>
struct tuning_job {
  std::size_t problem;  // index into the problem list
  std::vector<std::shared_ptr<const Instance>> kernels;
  std::vector<std::shared_ptr<const Instance>> eligible;
};

// Records the problems' sources and lists, per problem of this shard (--shard), the kernels
// `dispatcher` ranks (every eligible one) that the database has no row for; counts those and
// the rows already there. With `o.confirm`, problems with nothing left to measure are
// listed too (their confirmation may be pending).
template <class Dispatcher, class Problem>
auto list_jobs(const Dispatcher& dispatcher, const std::vector<tuning_problem<Problem>>& problems,
               tuning::tuning_db& db, const tuning::machine_info& machine, const tune_options& o, std::size_t& total,
               std::size_t& already) {
  using instance = typename decltype(dispatcher.ranked(problems.front().problem))::value_type::first_type::element_type;
  std::vector<tuning_job<instance>> jobs;
  total = already = 0;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    for (const auto& s : problems[i].sources) db.add_source(s);
    if (int(i % std::size_t(o.shards)) != o.shard) continue;
    tuning_job<instance> j{i, {}, {}};
    for (auto& ranked : dispatcher.ranked(problems[i].problem)) {
      if (o.confirm > 0) j.eligible.push_back(ranked.first);
      if (db.has(machine.device_name, problems[i].key, ranked.first->name())) ++already;
      else j.kernels.push_back(ranked.first);
    }
    total += j.kernels.size();
    if (!j.kernels.empty() || (o.confirm > 0 && j.eligible.size() >= 2)) jobs.push_back(std::move(j));
  }
  return jobs;
}

// What a confirmation pass did, for the closing line.
struct confirm_tally {
  std::size_t problems = 0, kernels = 0, new_fastest = 0, failed = 0, retried = 0;
};

// Times again, in turns, the kernels tuning::kernels_to_confirm picks among this device's rows
// of problem `key` and writes their confirmed rows (tuning_db::confirm). `eligible` are the
// registered instances that may run the problem (a row of any other kernel is left alone).
// Returns false when nothing was picked. Throws, as measuring does, when a kernel leaves the
// GPU in an error state; any other failure is counted and the problem keeps its first rows.
template <class Problem, class Instance, class Launch>
bool confirm_problem(const tune_options& o, const device& dev, tuning::tuning_db& db,
                     const tuning::machine_info& machine, const std::string& op, const std::string& fingerprint,
                     const Problem& p, const std::string& key,
                     const std::vector<std::shared_ptr<const Instance>>& eligible, buffer& workspace,
                     const Launch& launch, confirm_tally& tally) {
  const auto rows = db.rows_of(machine.device_name, key);
  std::vector<std::shared_ptr<const Instance>> kernels;
  std::vector<std::size_t> at;
  for (std::size_t i : tuning::kernels_to_confirm(rows, {o.confirm, o.confirm_rounds, o.confirm_within})) {
    for (const auto& k : eligible)
      if (k->name() == rows[i].kernel) {
        kernels.push_back(k);
        at.push_back(i);
      }
  }
  if (kernels.size() < 2) return false;
  for (const auto& k : kernels)
    if (workspace.size() < k->workspace_bytes(p)) workspace = buffer(dev, k->workspace_bytes(p));
  std::vector<std::function<void(int)>> launchers;
  for (const auto& k : kernels)
    launchers.push_back([&, k](int call) { launch(*k, call, workspace.data(), workspace.size()); });
  // Every contender gets about target_ms of timed launches, at least 3 and at most 40 per round
  // (more than a first pass's --iters: a few-microsecond kernel needs hundreds of launches for a
  // median within a percent), after the clocks have come up on the fastest.
  const double fastest_ms = std::max(*rows[at.front()].median_ms, 1e-3);
  const int iters = std::clamp(int(o.target_ms / fastest_ms), 3 * o.confirm_rounds, 40 * o.confirm_rounds);
  // An attempt in which some contender's launches spread over more than confirm_retry_spread
  // (a clock or power excursion: 44 of 4,296 confirmed rows under 20 us spread over 50% in the
  // H200 run of 2026-11-28, the worst of them at twice the first pass's median) is timed again, up
  // to `retries` times; the attempt whose widest spread is the smallest is kept.
  auto widest = [](const std::vector<turn_timing>& ts) {
    double w = 0;
    for (const auto& t : ts) w = std::max(w, t.spread);
    return w;
  };
  std::vector<turn_timing> timings;
  try {
    cli::ramp_up(true, launchers.front(), o.ramp_ms);
    timings = cli::interleaved_timings(true, launchers, o.warmup, iters, o.confirm_rounds);
    for (int r = 0; r < o.retries && o.confirm_retry_spread > 0 && widest(timings) > o.confirm_retry_spread; ++r) {
      ++tally.retried;
      auto again = cli::interleaved_timings(true, launchers, o.warmup, iters, o.confirm_rounds);
      if (widest(again) < widest(timings)) timings = std::move(again);
    }
  } catch (const std::exception& e) {
    if (device_poisoned())
      throw std::runtime_error(fmt::format("confirming {} left the GPU in an error state ({})", key, e.what()));
    ++tally.failed;
    return true;
  }
  std::size_t fastest = 0;
  for (std::size_t j = 0; j < kernels.size(); ++j) {
    tuning::measurement m = rows[at[j]];
    m.machine = machine;
    m.op = op;
    m.kernel_set = fingerprint;
    m.median_ms = timings[j].median_ms;
    m.spread = timings[j].spread;
    m.samples = timings[j].samples;
    m.measured_at.clear();
    m.confirmed_rounds = o.confirm_rounds;
    db.confirm(m);
    if (timings[j].median_ms < timings[fastest].median_ms) fastest = j;
  }
  ++tally.problems;
  tally.kernels += kernels.size();
  if (fastest != 0) ++tally.new_fastest;
  return true;
}

// How to run one kernel on one problem: call `call` of the timing loop on its
// rotated operands with the workspace given; throws on a failed launch.
template <class Instance>
using launcher = std::function<void(const Instance& kernel, int call, void* workspace, std::size_t workspace_bytes)>;

// Times every job's kernels and writes each row as it is measured (op `op`);
// `prepare(problem)` sets up a problem's operands and returns its launcher,
// `label(problem)` names it in the progress line. Stops at the time budget
// (saying how many are left) or when a kernel leaves the GPU in an error state
// (throwing, with every row before it kept). Returns the exit code.
template <class Problem, class Instance, class Prepare, class Label>
int measure_jobs(const std::string& op, const tune_options& o, const device& dev, tuning::tuning_db& db,
                 const tuning::machine_info& machine, const std::string& fingerprint,
                 const std::vector<tuning_problem<Problem>>& problems, const std::vector<tuning_job<Instance>>& jobs,
                 std::size_t total, Prepare&& prepare, Label&& label) {
  buffer workspace(dev, 0);
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  auto over_budget = [&] { return o.time_budget_s > 0 && elapsed() > o.time_budget_s; };
  std::size_t done = 0, failed = 0;
  confirm_tally confirmed;
  bool out_of_time = false;
  for (const auto& j : jobs) {
    const Problem& p = problems[j.problem].problem;
    const launcher<Instance> launch = prepare(p);
    for (const auto& k : j.kernels) {
      if (over_budget()) {
        out_of_time = true;
        break;
      }
      tuning::measurement m;
      m.machine = machine;
      m.op = op;
      m.problem_key = problems[j.problem].key;
      m.kernel = k->name();
      m.kernel_set = fingerprint;
      const std::size_t ws = k->workspace_bytes(p);
      if (workspace.size() < ws) workspace = buffer(dev, ws);
      try {
        auto t = time_launches([&](int call) { launch(*k, call, workspace.data(), workspace.size()); }, o.warmup,
                               &k == &j.kernels.front() ? std::max(o.warm_ms, o.ramp_ms) : o.warm_ms, o.iters,
                               o.target_ms, o.retry_spread, o.retries);
        m.median_ms = t.median_ms;
        m.spread = t.spread;
        m.samples = t.samples;
      } catch (const std::exception& e) {
        m.error = e.what();
        ++failed;
        // A sticky CUDA error poisons every later launch: stop, keeping what was measured.
        if (device_poisoned()) {
          db.add(m);
          throw std::runtime_error(fmt::format("{} left the GPU in an error state ({}); {} measurements kept in {}",
                                               k->name(), e.what(), done, o.db));
        }
      }
      db.add(m);
      ++done;
      const double t = elapsed(), rate = double(done) / std::max(t, 1e-9);
      if (done % 8 == 0 || done == total)
        fmt::print(stderr, "\rtune {} {}/{} {:.1f}/s elapsed {} ETA {}  {} {:<40.40}", op, done, total, rate,
                   duration_text(t), duration_text(double(total - done) / rate), label(p), k->name());
    }
    if (out_of_time) break;
    if (o.confirm > 0) {
      if (over_budget()) {
        out_of_time = true;
        break;
      }
      if (confirm_problem(o, dev, db, machine, op, fingerprint, p, problems[j.problem].key, j.eligible, workspace,
                          launch, confirmed))
        fmt::print(stderr, "\rtune {} confirmed {} problems ({} kernels in turns) elapsed {}  {:<40.40}", op,
                   confirmed.problems, confirmed.kernels, duration_text(elapsed()), label(p));
    }
  }
  const double t = elapsed();
  fmt::print(stderr, "\n");
  const std::string confirmation =
      o.confirm > 0 ? fmt::format("; confirmed {} problems ({} kernels timed in {} rounds of turns, {} failed, "
                                  "{} timed again; the fastest changed on {})",
                                  confirmed.problems, confirmed.kernels, o.confirm_rounds, confirmed.failed,
                                  confirmed.retried, confirmed.new_fastest)
                    : "";
  fmt::print("tune {}: {} measurements in {} ({:.1f}/s), {} failed, {} rows in {}{}{}\n", op, done, duration_text(t),
             double(done) / std::max(t, 1e-9), failed, db.size(), o.db, confirmation,
             out_of_time ? fmt::format("; time budget reached, {} left (run again to resume)", total - done) : "");
  return 0;
}

#endif

}  // namespace kdecl::cli::tune
