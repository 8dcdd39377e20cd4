// A tuning database: every (problem, kernel) measurement `kdecl tune` takes,
// in SQLite, written as it is taken (one committed row per measurement, so an
// interrupted run loses nothing) and skipped when already present (resume).
//
// Tables: measurements (one row per device, problem key and kernel), problem
// sources (which network and layer a problem key came from) and kernel sets
// (the names behind each kernel-set fingerprint). export_jsonl()/import_jsonl()
// move them between machines as JSON lines.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kdecl::tuning {

// Where a measurement was taken.
struct machine_info {
  std::string device_name;    // "NVIDIA H100 80GB HBM3"
  std::string arch;           // "sm_90"
  int sm_count = 0;
  int sm_clock_mhz = 0;       // maximum SM clock
  int memory_clock_mhz = 0;
  std::string driver_version; // "13.0"
  std::string cuda_version;   // runtime version
  std::string kdecl_commit;
};

struct measurement {
  machine_info machine;
  std::string op = "gemm";
  std::string problem_key;    // tuning::problem_key()
  std::string kernel;         // registered kernel name
  std::string kernel_set;     // fingerprint of the arch's registered kernels
  std::optional<double> median_ms;  // empty when the kernel failed
  double spread = 0.0;        // (p90 - p10) / median of the timed launches
  int samples = 0;
  std::string error;          // empty on success
  std::string measured_at;    // UTC, ISO 8601
  // 0: timed alone (one kernel after another). R > 0: timed again in R rounds of turns with the
  // problem's other leading kernels (`kdecl tune --confirm`), which replaced the first median:
  // clocks, power and L2 state then weigh on every contender alike.
  int confirmed_rounds = 0;
};

struct problem_source {
  std::string problem_key, model, layer, source;
};

struct kernel_set {
  std::string fingerprint, arch;
  std::vector<std::string> kernels;  // sorted
};

class tuning_db {
 public:
  // Opens (creating when absent) the database at `path`. Throws std::runtime_error naming the path.
  explicit tuning_db(const std::string& path, bool read_only = false);
  ~tuning_db();
  tuning_db(const tuning_db&) = delete;
  tuning_db& operator=(const tuning_db&) = delete;

  const std::string& path() const { return path_; }

  // True when this device already has a row for (problem, kernel): resume skips it.
  bool has(const std::string& device_name, const std::string& problem_key, const std::string& kernel) const;
  // Inserts and commits one row; returns false when it was already there.
  bool add(const measurement& m);
  // Replaces the timing (median, spread, samples, time, commit) of an existing row by a
  // confirmed one (m.confirmed_rounds > 0) unless that row already holds a confirmation of as
  // many rounds or more. Returns whether the row changed.
  bool confirm(const measurement& m);
  // This device's rows of one problem, in kernel-name order.
  std::vector<measurement> rows_of(const std::string& device_name, const std::string& problem_key) const;
  void add_source(const problem_source& s);
  void add_kernel_set(const kernel_set& s);

  std::vector<measurement> measurements(const std::string& arch = {}) const;  // "" = every arch
  std::vector<problem_source> sources() const;
  std::vector<kernel_set> kernel_sets() const;
  std::size_t size() const;

  // JSON lines, one object per row with "kind": "measurement", "source" or "kernel_set".
  std::size_t export_jsonl(const std::string& path) const;
  // Rows already present are kept (first write wins), except that a confirmed row replaces
  // the timing of a row confirmed over fewer rounds (confirm()). Returns the rows added or
  // replaced.
  // Throws std::invalid_argument naming the line that is not a valid row.
  std::size_t import_jsonl(const std::string& path);

 private:
  struct impl;
  std::string path_;
  std::unique_ptr<impl> impl_;
};

// FNV-1a 64 of the sorted names, as 16 hex digits.
std::string fingerprint_of(std::vector<std::string> kernel_names);

// Current UTC time, ISO 8601.
std::string utc_now();

}  // namespace kdecl::tuning
