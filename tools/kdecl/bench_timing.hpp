// What every `kdecl bench OP` shares (gemm, conv, fmha): the flags of a timed
// run, the timing method, the rotation of operands past the L2, and the loop
// that measures a list of problems into a JSON-lines file as it goes.
//
// Timing: CUDA events around each launch, queued back to back (no host sync
// between launches); a warm-up, then the median of many launches. Several
// launchers (ours, the vendor's) are timed in turns: rounds in which the order
// rotates, so that clock and thermal drift falls on all of them alike.
//
// The loop: one JSON object per problem, appended and flushed as soon as it is
// measured; --resume skips the problems the file already holds; --time-budget
// stops before a problem whose predicted time (calibrated on the measured ones)
// does not fit, and the run exits 75 (rerun with --resume); SIGINT/SIGTERM stop
// after the current problem; a failing problem is recorded with its error and
// the loop goes on, unless the CUDA context is lost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "kdecl/core/enums.hpp"
#include "kdecl/runtime/buffer.hpp"
#include "kdecl/runtime/device.hpp"

namespace kdecl::cli {

// Exit status of a run that stopped early (--time-budget, SIGINT/SIGTERM) with
// problems left: rerun with --resume to go on (sysexits' EX_TEMPFAIL).
inline constexpr int exit_incomplete = 75;

// Rounds of the final, interleaved measurement.
inline constexpr int turns_rounds = 5;

// The flags of a timed run, the same for every operation.
struct bench_run_options {
  int warmup = 10;
  int iters = 50;
  double target_ms = 0;  // > 0: fewer launches for long kernels, so one measurement lasts about this long
  int top = 6;           // instances timed per problem besides the dispatcher's choice (ranking order); 0 = all
  std::string out = "bench-results";
  std::string label;     // file stem
  std::string jsonl;     // results as they are measured; default OUT/STEM.jsonl
  std::string kernels;   // filter expression restricting the candidates (e.g. pipeline=cp_async)
  bool resume = false, overwrite = false, dry_run = false;
  // The timed turns: one pair of stamps around each turn's launches queued back to back (as a
  // model's consecutive layers run, so that a kernel launched as a programmatic dependent starts
  // under the one before it) instead of one pair around each launch.
  bool back_to_back = false;
  // Also record what each timed launcher costs the host per launch, beside the GPU time of the same
  // launches queued back to back (launch_cost_us: host_us, queued_gpu_us).
  bool launch_cost = false;
  double time_budget = 0;  // seconds; 0: none

  // Adds --warmup --iters --target-ms --top --out --label --jsonl --resume --overwrite
  // --time-budget --dry-run --kernels --back-to-back --launch-cost. `stem_help` says what the default file stem is.
  void add_to(CLI::App& cmd, const std::string& stem_help);
  // OUT/STEM.jsonl unless --jsonl names the file.
  std::string jsonl_path(const std::string& stem) const { return !jsonl.empty() ? jsonl : out + "/" + stem + ".jsonl"; }
};

// Launch counts of one problem: the measurement's warm-up and timed launches,
// fewer for long kernels when --target-ms asks (never fewer than 10 timed).
struct launch_plan {
  int warmup, iters;
};
launch_plan plan_for(const bench_run_options& o, double launch_ms);
// Launches of a problem whose `screened` candidates are each timed alone and
// whose `in_turns` launchers are then timed in turns.
std::size_t timed_launches(const launch_plan& lp, std::size_t screened, std::size_t in_turns);

// Throws std::runtime_error naming `what` on a CUDA error (CUDA builds; no-op otherwise).
void cuda_check(int cuda_error, const char* what);
void device_synchronize(bool cuda, const char* what);
void check_last_error(bool cuda, const char* what);

// Median milliseconds of `iters` launches after `warmup`, each timed by its own
// pair of stamps (CUDA events on a GPU; the steady clock on the host backend,
// whose kernels run synchronously). launch(i) gets a running call number, for
// rotating operand sets.
double median_ms(bool cuda, const std::function<void(int)>& launch, int warmup, int iters);
// The same launches' times in milliseconds, ascending (median_ms is their middle one).
std::vector<float> launch_times_ms(bool cuda, const std::function<void(int)>& launch, int warmup, int iters);

// Host microseconds one launch takes to queue (the median of `rounds` rounds of `count` launches
// queued back to back, no stamps between them, the device idle before each round), and the GPU
// microseconds per launch of the same rounds (stamps around the whole round): where the first
// exceeds the second, the GPU waits for the host and a timed launch measures the host. CUDA only.
struct launch_cost {
  double host_us = 0, gpu_us = 0;
};
launch_cost launch_cost_us(bool cuda, const std::function<void(int)>& launch, int count = 50, int rounds = 5);
// With --launch-cost, each launcher's launch_cost_us() into r[names[i]] as host_us and queued_gpu_us.
void record_launch_costs(nlohmann::json& r, bool cuda, const bench_run_options& o, const std::vector<std::string>& names,
                         const std::vector<std::function<void(int)>>& launchers);

// Keeps the GPU busy with `launch` for about `ms` milliseconds of GPU time (CUDA only),
// so that the SM clock has left its idle level before anything is timed: a few warm-up
// launches of a 10-us kernel after a problem's host-side setup do not bring it back up.
void ramp_up(bool cuda, const std::function<void(int)>& launch, double ms = 20);

// Several launchers timed in turns: `rounds` rounds, each giving every launcher (in an order
// rotated by one per round) max(2, warmup / rounds) untimed launches and then
// max(3, iters / rounds) launches timed one by one. Per launcher: the median of all its timed
// launches, their spread ((P90 - P10) / median) and count. One launch number counts on across
// every turn, so operand rotation goes on where the last turn (of any launcher) left it.
struct turn_timing {
  double median_ms = 0, spread = 0;
  int samples = 0;
};
// back_to_back: each turn's launches are timed together (one sample per turn: their mean).
std::vector<turn_timing> interleaved_timings(bool cuda, const std::vector<std::function<void(int)>>& launchers,
                                            int warmup, int iters, int rounds, bool back_to_back = false);
// Their medians only.
std::vector<double> interleaved_medians(bool cuda, const std::vector<std::function<void(int)>>& launchers, int warmup,
                                        int iters, int rounds, bool back_to_back = false);

// Random values in [-1, 1] (a block of up to 16 Mi elements repeated), on the device.
buffer random_buffer(const device& dev, std::size_t elements, dtype d, std::uint64_t seed);

// How many copies of a problem's operands (set_bytes each) make one pass over
// all of them exceed twice the L2, so that no launch finds its inputs cached.
std::size_t rotation_count(std::size_t set_bytes, std::size_t l2_bytes, std::size_t at_most = 64);

// The device a bench runs on: a GPU, or the host backend when asked for by
// name. Throws std::invalid_argument (exit 2) otherwise, with what to do.
struct bench_device {
  device dev;
  bool cuda = false;
  std::string name = "host CPU";
  std::size_t l2_bytes = 0;
  double copy_gbs = 0;  // device-to-device copy, bytes read + written per second (the memory ceiling)
};
// measure_copy: also time a 1 GiB device-to-device copy (2 GiB of device memory); bench gemm
// measures it only once its memory check has passed (copy_bandwidth_gbs()).
bench_device open_bench_device(const device& dev, const std::string& device_flag, bool measure_copy = true);
double copy_bandwidth_gbs(const bench_device& bd);  // 0 on the host backend

// Files.
std::string folder_of(const std::string& path);
std::string stem_of(const std::string& path);
void make_folder(const std::string& dir);
// Runs benchmarks/<script_name> ($script_env names another; $KDECL_PYTHON another
// interpreter) with `args`; says so when it cannot.
bool draw_plot(const char* script_env, const std::string& script_name, const std::string& args);

// What the JSON-lines file already holds. With --resume: the keys to skip (a
// line cut short by a kill is dropped from the file). Without: throws
// std::invalid_argument when it holds results and neither --overwrite nor
// --dry-run is given.
std::set<std::string> keys_on_disk(const std::string& jsonl, const bench_run_options& o);

// One problem of a run.
struct bench_task {
  std::string key;           // the identity --resume matches
  double predicted_s = 0.01; // for the budget and the ETA
};

// Measures `tasks` in order into the JSON-lines file (appending with --resume):
// measure(i) returns problem i's record; when it throws, failed(i, message)
// gives the record that says so. Every record gets `common`'s fields and
// "elapsed_s".
struct bench_loop_outcome {
  std::size_t measured = 0;
  std::string stopped;  // why the loop stopped early; empty when it got through
  int status = 0;       // nonzero: the device is unusable
};
bench_loop_outcome measure_all(const std::vector<bench_task>& tasks, const std::string& jsonl,
                               const bench_run_options& o, bool cuda, const nlohmann::json& common,
                               const std::string& what, const std::function<nlohmann::json(std::size_t)>& measure,
                               const std::function<nlohmann::json(std::size_t, const std::string&)>& failed);

// The records of the file for `keys`, in their order (earlier pieces of a run included).
nlohmann::json results_for(const std::string& jsonl, const std::vector<std::string>& keys);

// Writes OUT/STEM.json: `common` plus "complete" (all `problems` have a record) and "results".
// Returns whether the run is complete.
bool write_results_json(const nlohmann::json& common, const nlohmann::json& results, std::size_t problems,
                        const std::string& out, const std::string& stem);

// After the reports: prints why the run stopped early and returns its exit status (0, 75 or the failure's).
int finish_run(const bench_loop_outcome& outcome, std::size_t results, std::size_t problems);

// The "common" fields of every record: GPU, arch, copy bandwidth, date and commit
// ($KDECL_BENCH_DATE, $KDECL_BENCH_COMMIT), the method and the --top / --kernels used.
nlohmann::json common_fields(const bench_device& bd, const std::string& method, const bench_run_options& o);

// Sentence describing the method, for the records and reports.
std::string method_sentence(bool cuda, const bench_run_options& o, const std::string& vendor,
                            const std::string& inputs);

}  // namespace kdecl::cli
