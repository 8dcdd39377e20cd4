// The course of `kdecl bench conv` and `kdecl bench fmha`: kdecl's dispatcher
// against a vendor library (cuDNN) on the same data, in the same process.
//
// Per problem: the dispatcher's choice and the next --top candidates of its
// ranking are screened one after another (median of --iters launches each);
// then the choice, the best screened instance and the vendor's call are timed
// in turns (bench_timing.hpp). A problem kdecl has no kernel for is still timed
// for the vendor and recorded as "no kdecl kernel" with the dispatcher's
// reason, so the tables show the gap; one the vendor cannot express says why.
//
// Records (one JSON line per problem): key, group (the class the bars
// name, e.g. "fwd depthwise" or "d128 causal"), label (the rows it stands for),
// the problem's fields, "dispatcher" / "best_instance" / "cudnn" objects with
// ms, tflops, gbs (and kernel / algorithm), "ratio" = cuDNN time / the
// dispatcher's (> 1: kdecl faster), "kdecl_missing" / "cudnn_missing" reasons.
// Reports: OUT/STEM.json (all records), OUT/STEM.md (per group: geometric mean
// and worst tenth of the ratio; one row per problem) and OUT/STEM.png
// (benchmarks/plot_vendor_bench.py).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench_timing.hpp"
#include "kdecl/runtime/buffer.hpp"

namespace kdecl::cli {

// A problem of the run, as far as it is known without a GPU.
struct vendor_problem {
  std::string key;    // identity for --resume
  std::string group;  // class for the summary
  std::string label;  // the table rows it stands for ("resnet50 layer1.0.conv1 +2"), or empty
  nlohmann::json fields;  // the problem's columns in the records
  std::string choice;     // the dispatcher's pick on the target, or empty
  std::string kdecl_missing;   // why the dispatcher has none
  std::string vendor_missing;  // why cuDNN cannot express it (or is not built in)
  double estimated_us = 0;     // the dispatcher's estimate of its choice (0: none)
  std::size_t candidates = 0;  // kernels that can run it
  double operand_bytes = 0;    // one set of operands
};

// One kernel to time: its name, the dispatcher's estimate, and a launcher taking
// the running call number (for rotating operand sets).
struct timed_kernel {
  std::string name;
  double estimated_us = 0;
  std::function<void(int)> launch;
};

// The vendor's side of one problem: its launcher and what to record about it.
struct vendor_call {
  std::function<void(int)> launch;
  nlohmann::json info;  // e.g. {"algorithm": ..., "workspace_bytes": ...}
  // Where launch(0) and kdecl's launch(0) both write their result (the first operand set),
  // so that the two results can be compared: the same problem, computed alike.
  const buffer* result = nullptr;
  dtype result_type = dtype::fp32;
  std::size_t result_elements = 0;
};

// Runs kdecl's launch(0) and the vendor's launch(0) on the same inputs and compares
// their results: {"relative_error": ||ours - vendor|| / ||vendor|| (Frobenius),
// "max_abs_error_over_scale": max |ours - vendor| / max |vendor|}; NaN where either holds a NaN.
nlohmann::json agreement(bool cuda, const std::function<void(int)>& ours, const vendor_call& vendor);

// Why a dispatcher selected nothing: the closest candidate's reason, or the explanation.
template <class Selection>
std::string refusal_of(const Selection& sel) {
  return sel.problem_error.empty() && !sel.rejected.empty() ? sel.rejected.front().reason : sel.explain();
}

// The dispatcher's choice, then the rest of its ranking, each launching on `ops.args(i)`
// (rotating operand sets) with the workspace it asks for (kept in `workspaces`). When
// nothing can run the problem, returns none and sets `missing` to why. Works for every
// dispatcher with select(problem, args*) and ranked(problem, args*) (conv, fmha).
template <class Dispatcher, class Problem, class Operands>
std::vector<timed_kernel> ranked_candidates(const Dispatcher& disp, const Problem& p, Operands& ops,
                                            std::vector<std::unique_ptr<buffer>>& workspaces, std::string& missing) {
  std::vector<timed_kernel> out;
  const auto first = ops.args(0);
  auto add = [&](const auto& k, double estimated_us) {
    workspaces.push_back(std::make_unique<buffer>(disp.target(), std::max<std::size_t>(k->workspace_bytes(p), 1)));
    buffer* ws = workspaces.back().get();
    out.push_back({k->name(), estimated_us, [&ops, &p, k, ws](int i) {
                     auto a = ops.args(std::size_t(i));
                     a.workspace = ws->data();
                     a.workspace_bytes = ws->size();
                     if (auto st = k->run(p, a, nullptr); !st)
                       throw std::runtime_error(fmt::format("{}: {}", k->name(), st.message()));
                   }});
  };
  auto sel = disp.select(p, &first);
  if (!sel) {
    missing = refusal_of(sel);
    return out;
  }
  add(sel.kernel, sel.estimated_us);
  for (const auto& [k, us] : disp.ranked(p, &first))
    if (k != sel.kernel) add(k, us);
  return out;
}

// What the dispatcher would pick for `p` (without buffers: the dry run's and the budget's view).
template <class Dispatcher, class Problem>
void note_selection(vendor_problem& vp, const Dispatcher& disp, const Problem& p) {
  if (auto sel = disp.select(p); sel) {
    vp.choice = sel.kernel->name();
    vp.estimated_us = sel.estimated_us;
    vp.candidates = disp.ranked(p).size();
  } else {
    vp.kdecl_missing = refusal_of(sel);
  }
}

// Screens `candidates` (the dispatcher's choice first; may be empty), then
// times the choice, the best instance and `vendor` (may be empty) in turns;
// writes the figures into `r` (flops and bytes give TFLOP/s and GB/s).
void time_against_vendor(nlohmann::json& r, bool cuda, const bench_run_options& o,
                         const std::vector<timed_kernel>& candidates, const std::optional<vendor_call>& vendor,
                         double flops, double bytes, double copy_gbs);

// One problem's record: operand sets from make_operands() (an object with args(i), the
// rotating sets), the dispatcher's candidates, and the vendor's call from
// make_vendor(ops, record) on a GPU; make_vendor throws with the reason when the vendor
// cannot run the problem (recorded as "cudnn_missing", the problem still timed for kdecl).
// Its launcher owns whatever it needs (the cuDNN plan, say).
template <class Dispatcher, class Problem, class MakeOperands, class MakeVendor>
nlohmann::json bench_problem(const Dispatcher& disp, const Problem& p, const bench_run_options& o,
                             const bench_device& bd, MakeOperands&& make_operands, MakeVendor&& make_vendor) {
  nlohmann::json r;
  auto ops = make_operands();
  r["rotating_sets"] = ops.sets.size();
  std::vector<std::unique_ptr<buffer>> workspaces;
  std::string missing;
  const auto candidates = ranked_candidates(disp, p, ops, workspaces, missing);
  if (!missing.empty()) r["kdecl_missing"] = missing;
  std::optional<vendor_call> vendor;
  if (!bd.cuda) {
    r["cudnn_missing"] = "no cuDNN on the host backend";
  } else {
    try {
      vendor = make_vendor(ops, r);
    } catch (const std::exception& e) {
      r["cudnn_missing"] = e.what();
    }
  }
  time_against_vendor(r, bd.cuda, o, candidates, vendor, p.flops(), p.bytes(), bd.copy_gbs);
  if (vendor && vendor->result && !candidates.empty()) {
    try {  // the timings stand even when the comparison fails
      r["cudnn_agreement"] = agreement(bd.cuda, candidates.front().launch, *vendor);
    } catch (const std::exception& e) {
      r["cudnn_agreement"] = {{"error", e.what()}};
    }
  }
  return r;
}

// The whole command after the problems are known: --dry-run listing, --resume,
// the measured loop within --time-budget, and the reports. measure(i, device)
// returns problem i's record (its key, group, label and fields are added).
// Returns the exit status (0; 75 when stopped early; 1 when the device failed).
struct vendor_bench_spec {
  std::string op;            // "conv", "fmha"
  std::string default_stem;  // file stem without --label
  std::string inputs;        // how the inputs are made (for the method sentence)
  device target;
  std::string device_flag;
  bool vendor_built = false;  // cuDNN compiled in
};
int run_vendor_bench(const vendor_bench_spec& spec, const std::vector<vendor_problem>& problems,
                     const bench_run_options& o,
                     const std::function<nlohmann::json(std::size_t, const bench_device&)>& measure);

// The markdown report of vendor-bench records: per group, the geometric mean and
// worst tenth of the ratio to cuDNN; then one row per problem.
std::string vendor_markdown(const std::vector<nlohmann::json>& records, const std::string& title);

}  // namespace kdecl::cli
