// What `kdecl bench gemm` writes as it measures (one JSON object per problem
// and line), how a cut-short run finds what it already has (--resume), and the
// summary of a run: per-shape markdown rows, the geometric mean and the worst
// tenth of the ratio to cuBLAS, and the dispatcher's choice against the best
// registered instance. `kdecl bench report FILE.jsonl...` prints the same
// summary from files alone (no GPU needed).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kdecl::cli {

// Every well-formed record of a JSON-lines file, in file order; a line that is
// not a JSON object (a run killed mid-write) is counted in *malformed and skipped.
// A missing file gives no records. When a key appears more than once, the last wins.
std::vector<nlohmann::json> read_jsonl(const std::string& path, std::size_t* malformed = nullptr);

// Rewrites `path` with exactly `records` (a temporary file renamed over it), so
// that a run resumed after a kill appends after whole lines only.
void rewrite_jsonl(const std::string& path, const std::vector<nlohmann::json>& records);

// Figures of one group of results (one dtype and layout).
struct ratio_summary {
  std::string group;                 // e.g. "bf16 rcr"
  std::size_t problems = 0;          // records in the group
  std::size_t measured = 0;          // with the dispatcher's choice timed
  std::size_t without_baseline = 0;  // of those, without cuBLAS (the host backend): no ratio to it
  std::size_t refused = 0;           // no kernel selected (the error says why)
  std::size_t failed = 0;            // selected, but a run failed
  // The dispatcher's choice against cuBLAS (cuBLAS time / ours: > 1 is faster than cuBLAS).
  double geomean = 0, p10 = 0, worst_tenth_geomean = 0, min = 0;
  std::string min_key;
  std::size_t below_080 = 0;
  double best_geomean = 0;           // the best registered instance against cuBLAS
  // The dispatcher's choice against the best instance measured (best time / choice time).
  double choice_geomean = 0, choice_p10 = 0;
  std::size_t picked_best = 0;       // the choice was the best instance measured
};

// Summaries per group (dtype and layout), in first-seen order.
std::vector<ratio_summary> summarize(const std::vector<nlohmann::json>& records);

// The markdown report: header (GPU, date, commit, method), the summary table,
// refusals and failures, and one row per problem.
std::string sweep_markdown(const std::vector<nlohmann::json>& records, const std::string& title);

// Statistics of ratios (all > 0): the geometric mean; the worst tenth's threshold
// (the ratio 90% of the shapes reach or beat, nearest rank: with fewer than 10
// shapes the minimum); the geometric mean of the worst tenth. 0 for no ratios.
double geomean(const std::vector<double>& v);
double tenth_percentile(std::vector<double> v);
double worst_tenth_geomean(std::vector<double> v);

// "pipeline tile sS vV" for a kernel name, or the name itself when it does not parse.
std::string short_kernel_name(const std::string& name);

}  // namespace kdecl::cli
