#include "vendor_bench.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "kdecl/numeric/element_access.hpp"
#include "kdecl/numeric/host_storage.hpp"
#include "progress.hpp"
#include "sweep_report.hpp"

namespace kdecl::cli {

using nlohmann::json;

void time_against_vendor(json& r, bool cuda, const bench_run_options& o, const std::vector<timed_kernel>& candidates,
                         const std::optional<vendor_call>& vendor, double flops, double bytes, double copy_gbs) {
  auto record = [&](const std::string& what, double ms) {
    const double gbs = bytes / (ms * 1e-3) / 1e9;
    r[what] = json{{"ms", ms}, {"tflops", flops / (ms * 1e-3) / 1e12}, {"gbs", gbs}};
    if (copy_gbs > 0) r[what]["copy_share"] = gbs / copy_gbs;
  };
  // The clock up first (the problem's setup left the GPU idle), then the launch counts, from one
  // short measurement of the first launcher when --target-ms asks.
  if (!candidates.empty() || vendor) ramp_up(cuda, candidates.empty() ? vendor->launch : candidates.front().launch);
  launch_plan lp{o.warmup, o.iters};
  if (o.target_ms > 0 && (!candidates.empty() || vendor))
    lp = plan_for(o, median_ms(cuda, candidates.empty() ? vendor->launch : candidates.front().launch, 1, 3));
  r["warmup"] = lp.warmup;
  r["iters"] = lp.iters;

  // 1. Screening: the choice and the next --top of the ranking, one after another.
  std::size_t best = 0;
  double best_ms = 0;
  json screened = json::array();
  const std::size_t limit = o.top > 0 ? std::min<std::size_t>(candidates.size(), std::size_t(o.top) + 1)
                                      : candidates.size();
  for (std::size_t i = 0; i < limit; ++i) {
    const double ms = median_ms(cuda, candidates[i].launch, lp.warmup, lp.iters);
    screened.push_back({{"kernel", candidates[i].name}, {"estimated_us", candidates[i].estimated_us}, {"ms", ms}});
    if (i == 0 || ms < best_ms) {
      best_ms = ms;
      best = i;
    }
  }
  if (!candidates.empty()) {
    r["instances_timed"] = screened.size();
    r["instances_eligible"] = candidates.size();
    r["screened"] = std::move(screened);
  }

  // 2. The figures, timed in turns.
  std::vector<std::string> names;
  std::vector<std::function<void(int)>> launchers;
  if (!candidates.empty()) {
    names.push_back("dispatcher");
    launchers.push_back(candidates.front().launch);
    if (best != 0) {
      names.push_back("best_instance");
      launchers.push_back(candidates[best].launch);
    }
  }
  if (vendor) {
    names.push_back("cudnn");
    launchers.push_back(vendor->launch);
  }
  if (launchers.empty()) return;
  const auto medians = interleaved_medians(cuda, launchers, lp.warmup, lp.iters, turns_rounds, o.back_to_back);
  for (std::size_t i = 0; i < names.size(); ++i) record(names[i], medians[i]);
  // Small problems can be bound by the host (several launches, tensor maps): then the timed
  // turns measure the host's time, and these two figures show it.
  record_launch_costs(r, cuda, o, names, launchers);
  if (!candidates.empty()) {
    if (best == 0) r["best_instance"] = r["dispatcher"];
    r["dispatcher"]["kernel"] = candidates.front().name;
    r["dispatcher"]["estimated_us"] = candidates.front().estimated_us;
    r["best_instance"]["kernel"] = candidates[best].name;
  }
  if (vendor) {
    r["cudnn"].update(vendor->info);
    if (!candidates.empty()) r["ratio"] = r["cudnn"]["ms"].get<double>() / r["dispatcher"]["ms"].get<double>();
  }
}

json agreement(bool cuda, const std::function<void(int)>& ours, const vendor_call& vendor) {
  const std::size_t n = vendor.result_elements, bytes = n * dtype_size_bytes(vendor.result_type);
  std::vector<unsigned char> a(bytes), b(bytes);
  ours(0);
  device_synchronize(cuda, "kdecl's run for the comparison");
  vendor.result->download(a.data(), bytes);
  vendor.launch(0);
  device_synchronize(cuda, "cuDNN's run for the comparison");
  vendor.result->download(b.data(), bytes);
  double diff2 = 0, ref2 = 0, max_diff = 0, max_ref = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = numeric::load_as_double(a.data(), vendor.result_type, i);
    const double y = numeric::load_as_double(b.data(), vendor.result_type, i);
    const double d = x - y;
    if (std::isnan(d)) return json{{"relative_error", "nan"}, {"max_abs_error_over_scale", "nan"}, {"elements", n}};
    diff2 += d * d;
    ref2 += y * y;
    max_diff = std::max(max_diff, std::abs(d));
    max_ref = std::max(max_ref, std::abs(y));
  }
  return json{{"relative_error", ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2)},
              {"max_abs_error_over_scale", max_ref > 0 ? max_diff / max_ref : max_diff}, {"elements", n}};
}

namespace {

// What one problem should take: operand setup, the vendor's algorithm search, and the launches.
double predicted_seconds(const vendor_problem& p, const bench_run_options& o) {
  const double launch_s = std::max(p.estimated_us > 0 ? p.estimated_us : 50.0, 4.0) * 1e-6 + 2e-6;
  const std::size_t screened = o.top > 0 ? std::min<std::size_t>(p.candidates, std::size_t(o.top) + 1) : p.candidates;
  const auto lp = plan_for(o, launch_s * 1e3);
  const std::size_t in_turns = std::min<std::size_t>(2, p.candidates) + (p.vendor_missing.empty() ? 1 : 0);
  const double launches = double(timed_launches(lp, screened, in_turns));
  // Setup: random fills and uploads of at least 2x L2 of operands; cuDNN's find runs every algorithm a few times.
  const double setup = 0.05 + std::max(p.operand_bytes, 100e6) / 4e9 + (p.vendor_missing.empty() ? 0.3 : 0);
  return setup + launches * launch_s;
}

int run_dry(const vendor_bench_spec& spec, const std::vector<vendor_problem>& todo, std::size_t total,
            const bench_run_options& o) {
  fmt::print("device: {} ({}); {} of {} problems to measure; cuDNN baseline: {}\n", spec.target.description,
             to_string(spec.target.arch), todo.size(), total,
             spec.vendor_built ? "built in" : "not built in (kdecl is timed alone)");
  std::size_t missing = 0, vendor_missing = 0;
  double predicted = 0;
  for (const auto& p : todo) {
    predicted += predicted_seconds(p, o);
    std::string ours = p.choice.empty() ? "no kdecl kernel: " + p.kdecl_missing
                                        : fmt::format("{} (est {:.1f} us, {} eligible)", short_kernel_name(p.choice),
                                                      p.estimated_us, p.candidates);
    missing += p.choice.empty() ? 1 : 0;
    vendor_missing += p.vendor_missing.empty() ? 0 : 1;
    fmt::print("{}{}\n  kdecl: {}\n  cuDNN: {}\n", p.label.empty() ? "" : p.label + ": ", p.key, ours,
               p.vendor_missing.empty() ? std::string("timed") : "not timed: " + p.vendor_missing);
  }
  fmt::print("{} problems: {} with a kdecl kernel, {} without; cuDNN times {}; predicted time to measure them on "
             "{}: {}\n",
             todo.size(), todo.size() - missing, missing, todo.size() - vendor_missing, to_string(spec.target.arch),
             progress_bar::clock(predicted));
  return 0;
}

std::string fig(const json& r, const char* what, const char* field, const char* format) {
  if (!r.contains(what) || !r[what].contains(field)) return "-";
  return fmt::format(fmt::runtime(format), r[what][field].get<double>());
}

std::string percent(const json& r, const char* what) {
  if (!r.contains(what) || !r[what].contains("copy_share")) return "-";
  return fmt::format("{:.0f}%", 100 * r[what]["copy_share"].get<double>());
}

}  // namespace

std::string vendor_markdown(const std::vector<json>& records, const std::string& title) {
  std::string md = fmt::format("# {}\n\n", title);
  if (!records.empty()) {
    const auto& r0 = records.front();
    md += fmt::format("GPU: {}; date: {}; commit: {}; device-to-device copy {:.0f} GB/s\n\n{}\n\n",
                      r0.value("gpu", std::string("?")), r0.value("date", std::string("?")),
                      r0.value("commit", std::string("?")), r0.value("copy_bandwidth_gbs", 0.0),
                      r0.value("method", std::string()));
  }
  // Per group, in first-seen order.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const json*>> groups;
  for (const auto& r : records) {
    const std::string g = r.value("group", std::string("?"));
    if (!groups.count(g)) order.push_back(g);
    groups[g].push_back(&r);
  }
  md += "Ratio = cuDNN's time / the dispatcher's choice's (> 1: kdecl faster). Worst tenth: the ratio 90% of the "
        "shapes reach or beat, and the geometric mean of the tenth below it.\n\n"
        "| group | problems | both timed | ratio geomean | worst tenth | worst-tenth geomean | min (shape) | "
        "no kdecl kernel | cuDNN cannot | failed |\n|---|---|---|---|---|---|---|---|---|---|\n";
  std::vector<double> all;
  for (const auto& g : order) {
    std::vector<double> ratios;
    std::size_t no_kdecl = 0, no_vendor = 0, failed = 0;
    double min = 0;
    std::string min_key;
    for (const json* r : groups[g]) {
      if (r->contains("run_error")) ++failed;
      if (r->contains("kdecl_missing")) ++no_kdecl;
      if (r->contains("cudnn_missing")) ++no_vendor;
      if (r->contains("ratio")) {
        const double x = (*r)["ratio"].get<double>();
        ratios.push_back(x);
        all.push_back(x);
        if (min_key.empty() || x < min) {
          min = x;
          min_key = r->value("label", std::string()).empty() ? r->value("key", std::string()) : (*r)["label"].get<std::string>();
        }
      }
    }
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", g, groups[g].size(), ratios.size(),
                      ratios.empty() ? "-" : fmt::format("**{:.3f}**", geomean(ratios)),
                      ratios.empty() ? "-" : fmt::format("{:.3f}", tenth_percentile(ratios)),
                      ratios.empty() ? "-" : fmt::format("{:.3f}", worst_tenth_geomean(ratios)),
                      ratios.empty() ? "-" : fmt::format("{:.3f} ({})", min, min_key), no_kdecl, no_vendor, failed);
  }
  if (order.size() > 1 && !all.empty())
    md += fmt::format("| all | {} | {} | **{:.3f}** | {:.3f} | {:.3f} | | | | |\n", records.size(), all.size(),
                      geomean(all), tenth_percentile(all), worst_tenth_geomean(all));

  md += "\n## Per problem\n\nGB/s: the least traffic (every tensor once) over the time; % copy: that against the "
        "measured device-to-device copy bandwidth.\n\n| problem | rows | dispatcher | ms | TFLOP/s | GB/s | % copy | "
        "best instance ms | cuDNN ms | cuDNN TFLOP/s | cuDNN % copy | ratio | results differ by | note |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : records) {
    std::string note;
    if (r.contains("run_error")) note = "failed: " + r["run_error"].get<std::string>();
    if (r.contains("kdecl_missing")) note += (note.empty() ? "" : "; ") + std::string("no kdecl kernel: ") + r["kdecl_missing"].get<std::string>();
    if (r.contains("cudnn_missing")) note += (note.empty() ? "" : "; ") + std::string("cuDNN: ") + r["cudnn_missing"].get<std::string>();
    // A cell holds no '|' (markdown's column separator).
    std::replace(note.begin(), note.end(), '|', '/');
    if (note.size() > 300) note = note.substr(0, 297) + "...";
    const std::string kernel = r.contains("dispatcher") && r["dispatcher"].contains("kernel")
                                   ? short_kernel_name(r["dispatcher"]["kernel"].get<std::string>())
                                   : "-";
    // How far kdecl's result is from cuDNN's on the same inputs (relative Frobenius norm).
    std::string differ = "-";
    if (r.contains("cudnn_agreement") && r["cudnn_agreement"].contains("relative_error")) {
      const auto& e = r["cudnn_agreement"]["relative_error"];
      differ = e.is_number() ? fmt::format("{:.1e}", e.get<double>()) : "NaN";
    } else if (r.contains("cudnn_agreement")) {
      differ = "not compared";
    }
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                      r.value("key", std::string("?")), r.value("label", std::string()), kernel,
                      fig(r, "dispatcher", "ms", "{:.4f}"), fig(r, "dispatcher", "tflops", "{:.1f}"),
                      fig(r, "dispatcher", "gbs", "{:.0f}"), percent(r, "dispatcher"),
                      fig(r, "best_instance", "ms", "{:.4f}"), fig(r, "cudnn", "ms", "{:.4f}"),
                      fig(r, "cudnn", "tflops", "{:.1f}"), percent(r, "cudnn"),
                      r.contains("ratio") ? fmt::format("{:.3f}", r["ratio"].get<double>()) : "-", differ, note);
  }
  return md;
}

int run_vendor_bench(const vendor_bench_spec& spec, const std::vector<vendor_problem>& problems,
                     const bench_run_options& o, const std::function<json(std::size_t, const bench_device&)>& measure) {
  const std::string stem = !o.label.empty() ? o.label : spec.default_stem;
  const std::string jsonl = o.jsonl_path(stem);
  const std::set<std::string> done = keys_on_disk(jsonl, o);
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < problems.size(); ++i)
    if (!done.count(problems[i].key)) todo.push_back(i);
  if (o.dry_run) {
    std::vector<vendor_problem> listed;
    for (auto i : todo) listed.push_back(problems[i]);
    return run_dry(spec, listed, problems.size(), o);
  }

  const bench_device bd = open_bench_device(spec.target, spec.device_flag);
  fmt::print(stderr, "{}: device-to-device copy {:.0f} GB/s; L2 {} MiB; {} of {} problems to measure; cuDNN {}\n",
             bd.name, bd.copy_gbs, bd.l2_bytes >> 20, todo.size(), problems.size(),
             !spec.vendor_built ? "not built in: kdecl timed alone" : bd.cuda ? "timed beside" : "not on the host");
  const std::string method = method_sentence(bd.cuda, o, "cuDNN", spec.inputs);
  const json common = common_fields(bd, method, o);

  std::vector<bench_task> tasks;
  for (auto i : todo) tasks.push_back({problems[i].key, predicted_seconds(problems[i], o)});
  auto describe = [&](std::size_t t) {
    const auto& p = problems[todo[t]];
    json r = p.fields;
    r["key"] = p.key;
    r["group"] = p.group;
    if (!p.label.empty()) r["label"] = p.label;
    return r;
  };
  const auto outcome = measure_all(
      tasks, jsonl, o, bd.cuda, common, "bench " + spec.op,
      [&](std::size_t t) {
        json r = describe(t);
        r.update(measure(todo[t], bd));
        return r;
      },
      [&](std::size_t t, const std::string&) { return describe(t); });

  std::vector<std::string> keys;
  for (const auto& p : problems) keys.push_back(p.key);
  const json results = results_for(jsonl, keys);
  const bool complete = write_results_json(common, results, problems.size(), o.out, stem);
  const std::string title =
      fmt::format("{} on {}{}", stem, bd.name,
                  complete ? "" : fmt::format(" ({} of {} problems so far)", results.size(), problems.size()));
  const std::string md = vendor_markdown(std::vector<json>(results.begin(), results.end()), title);
  std::ofstream(o.out + "/" + stem + ".md") << md;
  fmt::print("{}", md.substr(0, md.find("\n## ")));
  draw_plot("KDECL_VENDOR_PLOT_SCRIPT", "plot_vendor_bench.py", fmt::format("'{}' '{}/{}.png'", jsonl, o.out, stem));
  fmt::print("\n(report: {}/{}.md, plot: {}/{}.png, results: {})\n", o.out, stem, o.out, stem, jsonl);
  return finish_run(outcome, results.size(), problems.size());
}

}  // namespace kdecl::cli
