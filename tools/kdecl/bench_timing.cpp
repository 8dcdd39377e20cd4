#include "bench_timing.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <ctime>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include "kdecl/numeric/fill.hpp"
#include "progress.hpp"
#include "sweep_report.hpp"

#if KDECL_WITH_CUDA
#include <cuda_runtime.h>
#endif

namespace kdecl::cli {

using nlohmann::json;

void bench_run_options::add_to(CLI::App& cmd, const std::string& stem_help) {
  cmd.add_option("--warmup", warmup, "warm-up launches per measurement")->capture_default_str()->check(CLI::Range(1, 100000));
  cmd.add_option("--iters", iters, "timed launches per measurement (median reported)")->capture_default_str()->check(CLI::Range(3, 100000));
  cmd.add_option("--target-ms", target_ms,
                 "fewer launches for long kernels: about this many milliseconds per measurement (at least 10 "
                 "timed launches; 0: always --iters)")->capture_default_str()->check(CLI::NonNegativeNumber);
  cmd.add_option("--top", top, "instances timed per problem in the dispatcher's ranking order (0: all)")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  cmd.add_option("--out", out, "output folder for JSON, JSON lines, markdown and PNG")->capture_default_str();
  cmd.add_option("--label", label, "file stem of the outputs (default " + stem_help + ")");
  cmd.add_option("--jsonl", jsonl, "write each result to this JSON-lines file as soon as it is measured "
                                   "(default OUT/STEM.jsonl)");
  auto* r = cmd.add_flag("--resume", resume, "skip the problems the JSON-lines file already holds and append");
  cmd.add_flag("--overwrite", overwrite, "start the JSON-lines file afresh when it exists")->excludes(r);
  cmd.add_option("--time-budget", time_budget,
                 "seconds this run may take: it stops before a problem that would not fit (exit status 75: "
                 "rerun with --resume to go on)")->check(CLI::NonNegativeNumber);
  cmd.add_flag("--dry-run", dry_run, "list the problems and the dispatcher's choice without timing anything "
                                     "(works without a GPU, e.g. --device sm_90 or host)");
  cmd.add_option("--kernels", kernels, "only consider kernels matching this filter (as kdecl list --filter)");
  cmd.add_flag("--back-to-back", back_to_back,
               "time each turn's launches together, queued back to back as consecutive layers run (kernels "
               "launched as programmatic dependents then start under the one before), not one by one");
  cmd.add_flag("--launch-cost", launch_cost,
               "also record each timed launcher's host microseconds per launch and the GPU microseconds of the "
               "same launches queued back to back (host_us, queued_gpu_us): where the first is larger, a timed "
               "launch measures the host");
}

launch_plan plan_for(const bench_run_options& o, double launch_ms) {
  launch_plan lp{o.warmup, o.iters};
  if (o.target_ms > 0 && launch_ms > 0) {
    lp.iters = std::clamp(int(std::lround(o.target_ms / launch_ms)), std::min(10, o.iters), o.iters);
    lp.warmup = std::clamp(lp.iters / 5, std::min(2, o.warmup), o.warmup);
  }
  return lp;
}

std::size_t timed_launches(const launch_plan& lp, std::size_t screened, std::size_t in_turns) {
  return screened * std::size_t(lp.warmup + lp.iters) +
         in_turns * turns_rounds * std::size_t(std::max(2, lp.warmup / turns_rounds) + std::max(3, lp.iters / turns_rounds));
}

void cuda_check(int e, const char* what) {
#if KDECL_WITH_CUDA
  if (e != cudaSuccess) throw std::runtime_error(fmt::format("{}: {}", what, cudaGetErrorString(cudaError_t(e))));
#else
  if (e != 0) throw std::runtime_error(fmt::format("{}: error {}", what, e));
#endif
}

void device_synchronize(bool cuda, const char* what) {
#if KDECL_WITH_CUDA
  if (cuda) cuda_check(cudaDeviceSynchronize(), what);
#endif
  (void)cuda;
  (void)what;
}

void check_last_error(bool cuda, const char* what) {
#if KDECL_WITH_CUDA
  if (cuda) cuda_check(cudaGetLastError(), what);
#endif
  (void)cuda;
  (void)what;
}

namespace {

// Time stamps around launches: CUDA events on a GPU, queued back to back with no
// host sync between launches (the GPU never idles, the host's launch cost stays
// hidden); the steady clock on the host backend, whose kernels run synchronously
// (its figures only exercise the bench: there is no vendor baseline there).
class stamp_pairs {
 public:
  stamp_pairs(bool cuda, int pairs) : cuda_(cuda), host_(2 * std::size_t(pairs)) {
#if KDECL_WITH_CUDA
    if (cuda_) {
      events_.resize(2 * std::size_t(pairs));
      for (auto& e : events_) cuda_check(cudaEventCreate(&e), "event");
    }
#endif
  }
  ~stamp_pairs() {
#if KDECL_WITH_CUDA
    for (auto& e : events_) cudaEventDestroy(e);
#endif
  }
  stamp_pairs(const stamp_pairs&) = delete;
  stamp_pairs& operator=(const stamp_pairs&) = delete;

  void before(int i) { stamp(2 * std::size_t(i)); }
  void after(int i) { stamp(2 * std::size_t(i) + 1); }
  // Waits until every stamp is taken.
  void wait() const {
#if KDECL_WITH_CUDA
    if (cuda_) cuda_check(cudaEventSynchronize(events_.back()), "timed runs");
#endif
  }
  float ms(int i) const {
#if KDECL_WITH_CUDA
    if (cuda_) {
      float ms = 0;  // an error here (a pair never recorded, not yet reached) must not read as 0 ms
      cuda_check(cudaEventElapsedTime(&ms, events_[2 * std::size_t(i)], events_[2 * std::size_t(i) + 1]),
                 "event pair");
      return ms;
    }
#endif
    return std::chrono::duration<float, std::milli>(host_[2 * std::size_t(i) + 1] - host_[2 * std::size_t(i)]).count();
  }

 private:
  void stamp(std::size_t j) {
#if KDECL_WITH_CUDA
    if (cuda_) {
      cudaEventRecord(events_[j]);
      return;
    }
#endif
    host_[j] = std::chrono::steady_clock::now();
  }
  bool cuda_;
  std::vector<std::chrono::steady_clock::time_point> host_;
#if KDECL_WITH_CUDA
  std::vector<cudaEvent_t> events_;
#endif
};

std::atomic<bool> stop_requested{false};

extern "C" void on_stop_signal(int sig) {
  stop_requested = true;
  std::signal(sig, SIG_DFL);  // a second signal ends the process at once
}

}  // namespace

double median_ms(bool cuda, const std::function<void(int)>& launch, int warmup, int iters) {
  return launch_times_ms(cuda, launch, warmup, iters)[std::size_t(iters / 2)];
}

std::vector<float> launch_times_ms(bool cuda, const std::function<void(int)>& launch, int warmup, int iters) {
  for (int i = 0; i < warmup; ++i) launch(i);
  device_synchronize(cuda, "warm-up");
  stamp_pairs stamps(cuda, iters);
  for (int i = 0; i < iters; ++i) {
    stamps.before(i);
    launch(warmup + i);
    stamps.after(i);
  }
  stamps.wait();
  check_last_error(cuda, "timed runs");
  std::vector<float> ms(static_cast<std::size_t>(iters));
  for (int i = 0; i < iters; ++i) ms[std::size_t(i)] = stamps.ms(i);
  std::sort(ms.begin(), ms.end());
  return ms;
}

launch_cost launch_cost_us(bool cuda, const std::function<void(int)>& launch, int count, int rounds) {
  if (!cuda) return {};
  std::vector<double> host, gpu;
  for (int r = 0; r < rounds; ++r) {
    device_synchronize(cuda, "launch cost");
    stamp_pairs stamps(cuda, 1);
    const auto start = std::chrono::steady_clock::now();
    stamps.before(0);
    for (int i = 0; i < count; ++i) launch(r * count + i);
    stamps.after(0);
    host.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / count);
    stamps.wait();
    gpu.push_back(1e3 * stamps.ms(0) / count);
  }
  check_last_error(cuda, "launch cost");
  std::sort(host.begin(), host.end());
  std::sort(gpu.begin(), gpu.end());
  return {host[host.size() / 2], gpu[gpu.size() / 2]};
}

void record_launch_costs(json& r, bool cuda, const bench_run_options& o, const std::vector<std::string>& names,
                         const std::vector<std::function<void(int)>>& launchers) {
  if (!cuda || !o.launch_cost) return;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const launch_cost c = launch_cost_us(cuda, launchers[i]);
    r[names[i]]["host_us"] = c.host_us;
    r[names[i]]["queued_gpu_us"] = c.gpu_us;
  }
}

void ramp_up(bool cuda, const std::function<void(int)>& launch, double ms) {
  if (!cuda) return;
  const double one = std::max(median_ms(cuda, launch, 1, 3), 1e-3);
  const int count = std::clamp(int(std::ceil(ms / one)), 1, 20000);
  for (int i = 0; i < count; ++i) launch(i);
  device_synchronize(cuda, "ramp-up");
}

std::vector<turn_timing> interleaved_timings(bool cuda, const std::vector<std::function<void(int)>>& launchers,
                                            int warmup, int iters, int rounds, bool back_to_back) {
  const std::size_t n = launchers.size();
  std::vector<std::vector<float>> samples(n);
  int call = 0;  // one count for all: launchers sharing operand sets never find the last turn's in L2
  const int per_round = std::max(3, iters / rounds);
  // A whole round is queued before the host waits: the GPU runs the turns back to back, with no
  // idle gap (and no clock or power change it would bring) between one launcher's turn and the next.
  // Each pair of stamps times `per_pair` launches: one (a sample per launch), or back to back the
  // turn's all (a sample per turn: their mean). Every pair is recorded each round.
  const int per_pair = back_to_back ? per_round : 1;
  const int pairs_per_turn = per_round / per_pair;
  stamp_pairs stamps(cuda, int(n) * pairs_per_turn);
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t at = (j + std::size_t(round)) % n;
      const auto& launch = launchers[at];
      for (int w = 0; w < std::max(2, warmup / rounds); ++w) launch(call++);
      for (int t = 0; t < pairs_per_turn; ++t) {
        stamps.before(int(j) * pairs_per_turn + t);
        for (int l = 0; l < per_pair; ++l) launch(call++);
        stamps.after(int(j) * pairs_per_turn + t);
      }
    }
    stamps.wait();
    for (std::size_t j = 0; j < n; ++j)
      for (int t = 0; t < pairs_per_turn; ++t)
        samples[(j + std::size_t(round)) % n].push_back(stamps.ms(int(j) * pairs_per_turn + t) / float(per_pair));
  }
  check_last_error(cuda, "timed runs");
  std::vector<turn_timing> out;
  for (auto& v : samples) {
    std::sort(v.begin(), v.end());
    const std::size_t count = v.size();
    turn_timing t;
    t.median_ms = v[count / 2];
    t.spread = t.median_ms > 0 ? (v[std::min((count * 9) / 10, count - 1)] - v[count / 10]) / t.median_ms : 0.0;
    t.samples = int(count);
    out.push_back(t);
  }
  return out;
}

std::vector<double> interleaved_medians(bool cuda, const std::vector<std::function<void(int)>>& launchers, int warmup,
                                        int iters, int rounds, bool back_to_back) {
  std::vector<double> medians;
  for (const auto& t : interleaved_timings(cuda, launchers, warmup, iters, rounds, back_to_back))
    medians.push_back(t.median_ms);
  return medians;
}

buffer random_buffer(const device& dev, std::size_t n, dtype d, std::uint64_t seed) {
  // A block drawn on the host and uploaded as often as the buffer needs, so that a
  // 2 GB operand does not spend seconds in the host's random number generator.
  const std::size_t esize = dtype_size_bytes(d);
  const std::size_t block = std::max<std::size_t>(1, std::min<std::size_t>(n, std::size_t(1) << 24));
  std::vector<unsigned char> host(block * esize);
  numeric::fill_uniform(host.data(), d, block, seed);
  buffer buf(dev, std::max<std::size_t>(n, 1) * esize);
  for (std::size_t at = 0; at < n; at += block) {
    const std::size_t count = std::min(block, n - at);
    buf.upload(host.data(), count * esize, at * esize);
  }
  return buf;
}

std::size_t rotation_count(std::size_t set_bytes, std::size_t l2_bytes, std::size_t at_most) {
  set_bytes = std::max<std::size_t>(set_bytes, 1);
  return std::clamp<std::size_t>((2 * l2_bytes + set_bytes - 1) / set_bytes, 1, at_most);
}

bench_device open_bench_device(const device& dev, const std::string& device_flag, bool measure_copy) {
  bench_device bd;
  bd.dev = dev;
  bd.cuda = dev.kind() == backend::cuda && dev.ordinal >= 0;
  if (!bd.cuda && !(dev.kind() == backend::host && device_flag == "host"))
    throw std::invalid_argument(fmt::format(
        "bench needs a CUDA device ({}); --dry-run lists the problems without one, --device host times the "
        "host kernels (no baseline)",
        dev.ordinal < 0 ? "--device " + device_flag + " names an arch, not a device present here"
                        : std::string("none found in this build or machine")));
#if KDECL_WITH_CUDA
  if (bd.cuda) {
    cudaDeviceProp prop{};
    cuda_check(cudaGetDeviceProperties(&prop, dev.ordinal), "device properties");
    bd.name = prop.name;
    bd.l2_bytes = std::size_t(prop.l2CacheSize);
  }
#endif
  if (measure_copy) bd.copy_gbs = copy_bandwidth_gbs(bd);
  return bd;
}

double copy_bandwidth_gbs(const bench_device& bd) {
#if KDECL_WITH_CUDA
  if (bd.cuda) {
    const std::size_t bytes = std::size_t(1) << 30;
    buffer src(bd.dev, bytes), dst(bd.dev, bytes);
    src.fill_bytes(0x3C);
    const double ms = median_ms(
        true, [&](int) { cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice); }, 3, 20);
    return 2.0 * double(bytes) / (ms * 1e-3) / 1e9;
  }
#endif
  (void)bd;
  return 0;
}

std::string folder_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string stem_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  auto dot = name.rfind('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

// An output folder the user named: one that cannot be created is bad input (exit 2).
// (std::filesystem, not the shell: the name is the user's.)
void make_folder(const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw std::invalid_argument(fmt::format("folder '{}' cannot be created: {}", dir, error.message()));
}

bool draw_plot(const char* script_env, const std::string& script_name, const std::string& args) {
  // $script_env names the script; otherwise it lies beside $KDECL_PLOT_SCRIPT, else in the
  // benchmarks/ folder of the source tree this tool was built from.
  const char* script = std::getenv(script_env);
  const char* base = std::getenv("KDECL_PLOT_SCRIPT");
  const std::string path = script ? std::string(script) : folder_of(base ? base : KDECL_PLOT_SCRIPT) + "/" + script_name;
  const char* python = std::getenv("KDECL_PYTHON");
  std::string cmd = fmt::format("'{}' '{}' {} 2>&1", python ? python : "python3", path, args);
  if (std::system(cmd.c_str()) == 0) return true;
  fmt::print(stderr, "kdecl: no plot drawn (needs python3 with matplotlib: apt-get install python3-matplotlib; "
                     "$KDECL_PYTHON names another interpreter)\n");
  return false;
}

std::set<std::string> keys_on_disk(const std::string& jsonl, const bench_run_options& o) {
  std::set<std::string> done;
  if (!std::ifstream(jsonl)) return done;
  std::size_t bad = 0;
  auto kept = read_jsonl(jsonl, &bad);
  if (!kept.empty() && !o.resume && !o.overwrite && !o.dry_run)
    throw std::invalid_argument(fmt::format("{} already holds {} result(s): pass --resume to continue it or "
                                            "--overwrite to start afresh", jsonl, kept.size()));
  if (o.resume) {
    for (const auto& r : kept)
      if (r.contains("key")) done.insert(r["key"].get<std::string>());
    if (bad && !o.dry_run) {
      fmt::print(stderr, "kdecl: {}: dropping {} malformed line(s) (a run cut short mid-write)\n", jsonl, bad);
      rewrite_jsonl(jsonl, kept);
    }
  }
  return done;
}

bench_loop_outcome measure_all(const std::vector<bench_task>& tasks, const std::string& jsonl,
                               const bench_run_options& o, bool cuda, const json& common, const std::string& what,
                               const std::function<json(std::size_t)>& measure,
                               const std::function<json(std::size_t, const std::string&)>& failed) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  make_folder(o.out);
  if (jsonl.find('/') != std::string::npos) make_folder(folder_of(jsonl));
  std::ofstream lines(jsonl, o.resume ? std::ios::app : std::ios::trunc);
  if (!lines) throw std::invalid_argument(fmt::format("--jsonl '{}' cannot be written", jsonl));

  // Predictions for the budget and the ETA, calibrated as problems are measured.
  double remaining = 0;
  for (const auto& t : tasks) remaining += t.predicted_s;
  double calibration = 1.5;   // measured / predicted: starts cautious
  const double reserve = 10;  // seconds kept for the reports at the end
  stop_requested = false;
  auto old_int = std::signal(SIGINT, on_stop_signal);
  auto old_term = std::signal(SIGTERM, on_stop_signal);
  progress_bar bar(tasks.size(), what);
  bench_loop_outcome outcome;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const auto& t = tasks[i];
    if (stop_requested) {
      outcome.stopped = "a stop signal";
      break;
    }
    // The first problem of a call is judged by the bare prediction, so that a call always gets
    // somewhere; later ones with a margin, the calibration, and time kept for the reports.
    const double needed = outcome.measured ? 1.25 * calibration * t.predicted_s + reserve : t.predicted_s;
    if (o.time_budget > 0 && elapsed() + needed > o.time_budget) {
      outcome.stopped = fmt::format("the time budget ({:g} s; {:.1f} s used, the next problem {} needs about {:.1f} s)",
                                    o.time_budget, elapsed(), t.key, calibration * t.predicted_s);
      break;
    }
    const double t0 = elapsed();
    json r;
    try {
      r = measure(i);
    } catch (const std::exception& e) {
      r = failed(i, e.what());
      r["run_error"] = e.what();
    }
    r["elapsed_s"] = elapsed() - t0;
    r.update(common);
    lines << r.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
    lines.flush();  // kept even if the next problem kills the process
    ++outcome.measured;
    remaining -= t.predicted_s;
    if (t.predicted_s > 0.05)  // calibrate on problems long enough to say something
      calibration = std::clamp(0.7 * calibration + 0.3 * (elapsed() - t0) / t.predicted_s, 0.3, 30.0);
    bar.step(t.key, calibration * std::max(0.0, remaining));
    if (r.contains("run_error")) {
      fmt::print(stderr, "\nkdecl: {}: {}\n", t.key, r["run_error"].get<std::string>());
#if KDECL_WITH_CUDA
      // A kernel fault leaves the CUDA context unusable: stop; --resume goes on after this problem.
      if (cudaError_t e = cuda ? cudaDeviceSynchronize() : cudaSuccess; e != cudaSuccess) {
        outcome.stopped = fmt::format("a CUDA error that leaves the device unusable ({})", cudaGetErrorString(e));
        outcome.status = 1;
        break;
      }
      if (cuda) (void)cudaGetLastError();  // a recoverable error (an allocation, say) must not fail the next problem
#endif
    }
  }
  (void)cuda;
  bar.finish();
  std::signal(SIGINT, old_int);
  std::signal(SIGTERM, old_term);
  return outcome;
}

json results_for(const std::string& jsonl, const std::vector<std::string>& keys) {
  std::map<std::string, json> by_key;
  for (auto& r : read_jsonl(jsonl))
    if (r.contains("key")) {
      auto key = r["key"].get<std::string>();  // json's operator= takes its argument by value: read the key first
      by_key[key] = std::move(r);
    }
  json results = json::array();
  for (const auto& k : keys)
    if (auto it = by_key.find(k); it != by_key.end()) results.push_back(it->second);
  return results;
}

bool write_results_json(const json& common, const json& results, std::size_t problems, const std::string& out,
                        const std::string& stem) {
  const bool complete = results.size() == problems;
  json doc = common;
  doc["complete"] = complete;
  doc["results"] = results;
  std::ofstream(out + "/" + stem + ".json") << doc.dump(2) << "\n";
  return complete;
}

int finish_run(const bench_loop_outcome& outcome, std::size_t results, std::size_t problems) {
  if (outcome.stopped.empty()) return 0;
  fmt::print(stderr, "kdecl: stopped by {} after {} problem(s); {} of {} measured; rerun with --resume to go on\n",
             outcome.stopped, outcome.measured, results, problems);
  return outcome.status ? outcome.status : exit_incomplete;
}

namespace {

// Today's date (UTC) as YYYY-MM-DD.
std::string utc_date() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &utc);
  return text;
}

// The commit the binary was packed with (benchmarks/carry.sh writes it to .carry/COMMIT beside
// .carry/bin/), or empty where the binary does not run from a carry.
std::string carried_commit() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  std::ifstream in(exe.parent_path().parent_path() / "COMMIT");
  std::string commit;
  std::getline(in, commit);
  return commit;
}

}  // namespace

// A record's date and commit: KDECL_BENCH_DATE / KDECL_BENCH_COMMIT where set, else today's date and
// the carry's commit, so that no record goes without them.
json common_fields(const bench_device& bd, const std::string& method, const bench_run_options& o) {
  const char* date = std::getenv("KDECL_BENCH_DATE");
  const char* commit = std::getenv("KDECL_BENCH_COMMIT");
  std::string built = commit ? commit : carried_commit();
  if (built.empty()) built = "unrecorded (set KDECL_BENCH_COMMIT)";
  return json{{"gpu", bd.name}, {"arch", to_string(bd.dev.arch)}, {"copy_bandwidth_gbs", bd.copy_gbs},
              {"date", date ? std::string(date) : utc_date()}, {"commit", built}, {"method", method},
              {"top", o.top}, {"kernels_filter", o.kernels}};
}

std::string method_sentence(bool cuda, const bench_run_options& o, const std::string& vendor, const std::string& inputs) {
  return fmt::format(
      "{}; candidates screened one after another ({} warm-up, median of {}{}); the reported kernels and {} then "
      "timed in turns over {} rounds ({}, order rotating); {}",
      cuda ? "CUDA events per launch" : "host backend, steady clock per launch", o.warmup, o.iters,
      o.target_ms > 0 ? fmt::format(", fewer for kernels over {:g} ms: at least 10", o.target_ms / o.iters) : "",
      vendor, turns_rounds,
      o.back_to_back ? fmt::format("each turn {} launches queued back to back and timed together; the median of the "
                                   "turns' mean times",
                                   std::max(3, o.iters / turns_rounds))
                     : fmt::format("median of {} launches each", turns_rounds * std::max(3, o.iters / turns_rounds)),
      inputs);
}

}  // namespace kdecl::cli
