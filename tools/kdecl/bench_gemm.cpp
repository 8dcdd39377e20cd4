#include "bench_gemm.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench_timing.hpp"
#include "gemm_options.hpp"
#include "kdecl/gemm/gemm_dispatcher.hpp"
#include "kdecl/gemm/gemm_heuristic.hpp"
#include "kdecl/numeric/fill.hpp"
#include "kdecl/numeric/host_storage.hpp"
#include "kdecl/runtime/buffer.hpp"
#include "kdecl/runtime/dependent_launch.hpp"
#include "kernel_filter.hpp"
#include "memory_check.hpp"
#include "problem_table.hpp"
#include "progress.hpp"
#include "sweep_report.hpp"
#include "vendor_bench.hpp"

#if KDECL_WITH_CUDA
#include <cuda_runtime.h>

#include "cublas_gemm.hpp"
#endif

namespace kdecl::cli {
namespace {

using nlohmann::json;


// The timing flags (bench_timing.hpp) and the GEMM's problem flags.
struct bench_options : bench_run_options {
  gemm_options shape;                // dtype, layout, multi_d, device, alpha/beta
  std::vector<std::int64_t> ms, ns, ks;
  std::vector<std::int64_t> squares;  // M = N = K
  std::vector<std::string> csv;       // --problems files
  std::string filter;                 // chooses rows of the --problems files
  std::size_t limit = 0;              // at most this many problems (after the filter); 0: all
  bool fused_baseline = false;  // also time cuBLAS + a separate elementwise pass, and our pass_through twin
  bool dependent_launch_ab = false;  // also time the dispatcher's choice launched without dependent launch
  bool dtype_given = false, layout_given = false;  // explicitly on the command line (override the CSV's columns)
};

// The problems of a run, in order: --sizes, then --ms x --ns x --ks, then the --problems files' rows
// (filtered, identical problems merged), at most --limit of them.
std::vector<sweep_problem> problems_of(const bench_options& o) {
  std::vector<sweep_problem> out;
  auto add_plain = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    gemm_options shape = o.shape;
    shape.m = m;
    shape.n = n;
    shape.k = k;
    shape.batch = 1;
    auto p = shape.problem().normalized();
    out.push_back({p, problem_key(p), {}});
  };
  for (auto s : o.squares) add_plain(s, s, s);
  for (auto m : o.ms)
    for (auto n : o.ns)
      for (auto k : o.ks) add_plain(m, n, k);
  if (!o.filter.empty() && o.csv.empty())
    throw std::invalid_argument("--filter chooses rows of --problems files; none given");
  if (!o.csv.empty()) {
    row_filter keep(o.filter);
    std::vector<problem_row> rows;
    for (const auto& path : o.csv)
      for (auto& r : read_problem_csv(path))
        if (keep.matches(r)) rows.push_back(std::move(r));
    if (rows.empty()) throw std::invalid_argument(fmt::format("--filter '{}' keeps no row of the --problems files", o.filter));
    for (auto& sp : group_rows(rows, o.shape, o.dtype_given, o.layout_given)) out.push_back(std::move(sp));
  }
  if (out.empty()) throw std::invalid_argument("no problems: give --sizes, --ms/--ns/--ks or --problems FILE");
  // The same problem twice (--sizes 4096 and a CSV row, say) is measured once.
  std::set<std::string> seen;
  std::vector<sweep_problem> unique;
  for (auto& sp : out) {
    if (seen.insert(sp.key).second) {
      unique.push_back(std::move(sp));
    } else {
      auto it = std::find_if(unique.begin(), unique.end(), [&](const auto& u) { return u.key == sp.key; });
      it->uses.insert(it->uses.end(), sp.uses.begin(), sp.uses.end());
    }
  }
  if (o.limit > 0 && unique.size() > o.limit) unique.resize(o.limit);
  return unique;
}

bool from_model_rows(const std::vector<sweep_problem>& problems) {
  return std::any_of(problems.begin(), problems.end(), [](const auto& p) {
    return std::any_of(p.uses.begin(), p.uses.end(), [](const auto& u) { return !u.model.empty(); });
  });
}

std::string default_stem(const std::vector<sweep_problem>& problems) {
  const auto& s = problems.front().problem.sig;
  const auto layout = fmt::format("{}{}{}", to_string(s.lay.a), to_string(s.lay.b), to_string(s.lay.c));
  if (from_model_rows(problems)) return fmt::format("sweep_{}_{}", to_string(s.a), layout);
  return fmt::format("gemm_{}_{}{}", to_string(s.a), layout,
                     s.variant == gemm_variant::multi_d ? "_multid_" + std::string(to_string(s.ew)) : "");
}

json uses_json(const sweep_problem& sp) {
  json uses = json::array();
  for (const auto& u : sp.uses)
    if (!u.model.empty() || !u.layer.empty())
      uses.push_back({{"model", u.model}, {"layer", u.layer}, {"source", u.source}, {"file", u.file}});
  return uses;
}

double operand_bytes(const gemm_problem& p) {
  const auto& s = p.sig;
  return double(p.batch) * (double(p.rows_a()) * p.lda * dtype_size_bytes(s.a) +
                            double(p.rows_b()) * p.ldb * dtype_size_bytes(s.b) +
                            double(p.rows_c()) * p.ldc * dtype_size_bytes(s.c) * (1 + s.num_d));
}

// What the run of one problem should take, from the heuristic's estimate of the
// chosen kernel (for --time-budget and the ETA; calibrated against measurements).
double predicted_seconds(const gemm_dispatcher& disp, const gemm_problem& p, const bench_options& o) {
  auto sel = disp.select(p);
  if (!sel) return 0.002;
  const double launch_s = std::max(sel.estimated_us, 4.0) * 1e-6 + 2e-6;
  const std::size_t candidates = disp.ranked(p).size();
  const std::size_t screened = o.top > 0 ? std::min<std::size_t>(candidates, std::size_t(o.top) + 1) : candidates;
  const auto lp = plan_for(o, launch_s * 1e3);
  const std::size_t launches = timed_launches(lp, screened, std::min<std::size_t>(3, candidates + 1));
  // Setup: random fills and uploads of at least 2x L2 of operands (50 MiB on an H100), cuBLASLt's heuristic.
  const double setup = 0.03 + std::max(operand_bytes(p), 100e6) / 4e9;
  return setup + double(launches) * launch_s;
}


// Operand sets, enough of them that one pass over all exceeds twice the L2.
struct operand_sets {
  std::vector<buffer> a, b, c;
  std::vector<std::vector<buffer>> d;
  std::vector<buffer> scale_a, scale_b;  // block_scaled: the float scales of each set
  std::size_t count = 0;
};

std::size_t elements(const gemm_problem& p, std::int64_t stride, std::int64_t rows, std::int64_t ld) {
  return std::size_t((p.batch - 1) * stride + rows * ld);
}

// Host bytes random_buffer() stages for an operand of n elements (one block).
std::size_t staging_bytes(std::size_t n, dtype d) { return std::min<std::size_t>(n, std::size_t(1) << 24) * dtype_size_bytes(d); }

// Elements of A, B and C (and each D), bytes of one operand set, and how many sets rotate.
struct operand_set_layout {
  std::size_t na = 0, nb = 0, nc = 0;
  std::size_t nsa = 0, nsb = 0;  // block_scaled: floats of A's and B's scales
  std::size_t set_bytes = 0, count = 0;
  std::size_t staging = 0;  // the largest host block random_buffer() stages
};

operand_set_layout operand_set_layout_of(const gemm_problem& p, std::size_t l2_bytes) {
  const auto& s = p.sig;
  operand_set_layout l;
  l.na = elements(p, p.stride_a, p.rows_a(), p.lda);
  l.nb = s.variant == gemm_variant::preshuffle ? std::size_t(p.batch * p.stride_b)
                                               : elements(p, p.stride_b, p.rows_b(), p.ldb);
  l.nc = elements(p, p.stride_c, p.rows_c(), p.ldc);
  if (s.variant == gemm_variant::block_scaled) {
    l.nsa = std::size_t(p.scale_a_elements());
    l.nsb = std::size_t(p.scale_b_elements());
  }
  const std::size_t a = l.na * dtype_size_bytes(s.a), b = l.nb * dtype_size_bytes(s.b), c = l.nc * dtype_size_bytes(s.c);
  l.set_bytes = a + b + c * (1 + s.num_d) + (l.nsa + l.nsb) * sizeof(float);
  l.count = rotation_count(l.set_bytes, l2_bytes);
  l.staging = std::max({staging_bytes(l.na, s.a), staging_bytes(l.nb, s.b), staging_bytes(l.nc, s.c)});
  return l;
}

// Refuses (exit 2), before anything is allocated, a problem whose operand sets,
// workspaces and the baseline's needs do not fit in the memory the device has
// free (on the host backend: the host's, staging included).
void require_bench_memory(const gemm_dispatcher& disp, const std::vector<sweep_problem>& problems, int top,
                          std::size_t l2_bytes, bool cuda) {
  const auto device_have = memory_available(disp.target());
  const auto host_have = memory_available(device::host());
  // CUDA context, cuBLASLt and its 64 MiB workspace; nothing of the kind on the host backend.
  const std::size_t runtime_reserve = cuda ? std::size_t{512} << 20 : 0;
  if (cuda)
    require_memory("bench's bandwidth measurement", (std::size_t{2} << 30) + runtime_reserve,
                   {{"two copy buffers", std::size_t{2} << 30}, {"CUDA and cuBLASLt", runtime_reserve}}, device_have, "");
  for (const auto& sp : problems) {
    const auto& p = sp.problem;
    const auto l = operand_set_layout_of(p, l2_bytes);
    std::size_t workspace = 0;  // at most three kernels hold one at a time (dispatcher, best, pass_through twin)
    const auto ranked = disp.ranked(p);
    for (std::size_t i = 0; i < ranked.size() && (top == 0 || i <= std::size_t(top)); ++i)
      workspace = std::max(workspace, ranked[i].first->workspace_bytes(p));
    const std::string what = fmt::format("bench of {}", sp.key);
    memory_parts parts{{fmt::format("{} rotating operand set(s)", l.count), l.count * l.set_bytes},
                       {"kernel workspaces", 3 * workspace}};
    if (cuda) {
      parts.emplace_back("CUDA and cuBLASLt", runtime_reserve);
      require_memory(what + " on the device", l.count * l.set_bytes + 3 * workspace + runtime_reserve, parts,
                     device_have, "leave it out or run it on a larger GPU");
      require_memory(what + " on the host", l.staging, {{"staging block of random values", l.staging}}, host_have, "");
    } else {
      parts.emplace_back("staging block of random values", l.staging);
      require_memory(what + " on the host", l.count * l.set_bytes + 3 * workspace + l.staging, parts, host_have,
                     "leave it out or try smaller sizes");
    }
  }
}

operand_sets make_operands(const device& dev, const gemm_problem& p, std::size_t l2_bytes, float beta) {
  const auto& s = p.sig;
  const auto layout = operand_set_layout_of(p, l2_bytes);
  const std::size_t na = layout.na, nb = layout.nb, nc = layout.nc;
  const auto size = [](std::size_t n, dtype d) { return n * dtype_size_bytes(d); };
  operand_sets ops;
  ops.count = layout.count;
  for (std::size_t i = 0; i < ops.count; ++i) {
    ops.a.push_back(random_buffer(dev, na, s.a, 10 * i + 1));
    ops.b.push_back(random_buffer(dev, nb, s.b, 10 * i + 2));
    // C is read only when beta != 0; otherwise it is only written.
    ops.c.push_back(beta != 0 ? random_buffer(dev, nc, s.c, 10 * i + 3) : buffer(dev, size(nc, s.c)));
    ops.d.emplace_back();
    for (int t = 0; t < s.num_d; ++t) ops.d.back().push_back(random_buffer(dev, nc, s.c, 10 * i + 4 + t));
    if (s.variant == gemm_variant::block_scaled) {  // (the scales' values do not change the timing)
      ops.scale_a.push_back(random_buffer(dev, layout.nsa, dtype::fp32, 10 * i + 8));
      ops.scale_b.push_back(random_buffer(dev, layout.nsb, dtype::fp32, 10 * i + 9));
    }
  }
  return ops;
}

gemm_args args_of(operand_sets& ops, std::size_t i, float alpha, float beta) {
  i %= ops.count;
  gemm_args a{ops.a[i].data(), ops.b[i].data(), ops.c[i].data(), alpha, beta};
  for (std::size_t t = 0; t < ops.d[i].size(); ++t) a.d[t] = ops.d[i][t].data();
  if (!ops.scale_a.empty()) {
    a.scale_a = static_cast<const float*>(ops.scale_a[i].data());
    a.scale_b = static_cast<const float*>(ops.scale_b[i].data());
  }
  return a;
}

double bytes_moved(const gemm_problem& p, float beta) {
  const auto& s = p.sig;
  double b = double(p.batch) * (double(p.m) * p.k * dtype_size_bytes(s.a) +
                                double(p.k) * p.n * dtype_size_bytes(s.b));
  b += double(p.batch) * p.m * p.n * dtype_size_bytes(s.c) * (1 + s.num_d + (beta != 0 ? 1 : 0));
  return b;
}

json bench_one(const gemm_dispatcher& disp, const gemm_problem& p, const bench_options& o, std::size_t l2_bytes) {
  const bool cuda = disp.target().kind() == backend::cuda;
  json r{{"key", problem_key(p)}, {"m", p.m}, {"n", p.n}, {"k", p.k}, {"batch", p.batch},
         {"dtype", to_string(p.sig.a)},
         {"layout", fmt::format("{}{}{}", to_string(p.sig.lay.a), to_string(p.sig.lay.b), to_string(p.sig.lay.c))}};
  // Nothing to time when no kernel takes the problem: say why, allocate nothing.
  if (auto pre = disp.select(p); !pre) {
    r["error"] = pre.explain();
    return r;
  }
  auto ops = make_operands(disp.target(), p, l2_bytes, o.shape.beta);
  r["rotating_sets"] = ops.count;
  const double flops = p.flops(), bytes = bytes_moved(p, o.shape.beta);
  auto record = [&](const std::string& what, double ms) {
    r[what] = json{{"ms", ms}, {"tflops", flops / (ms * 1e-3) / 1e12}, {"gbs", bytes / (ms * 1e-3) / 1e9}};
  };

  auto first = args_of(ops, 0, o.shape.alpha, o.shape.beta);
  auto sel = disp.select(p, &first);
  if (!sel) {
    r["error"] = sel.explain();
    return r;
  }

  // Kernels that can use a workspace (split-K) get one, as the dispatcher would lend them.
  launch_plan lp{o.warmup, o.iters};
  auto time_kernel = [&](const gemm_instance& k, const gemm_problem& prob, int warmup, int iters) {
    buffer workspace(disp.target(), k.workspace_bytes(prob));
    return median_ms(
        cuda,
        [&](int i) {
          auto args = args_of(ops, i, o.shape.alpha, o.shape.beta);
          args.workspace = workspace.data();
          args.workspace_bytes = workspace.size();
          auto st = k.run(prob, args, nullptr);
          if (!st) throw std::runtime_error(fmt::format("{}: {}", k.name(), st.message()));
        },
        warmup, iters);
  };
  if (o.target_ms > 0) lp = plan_for(o, time_kernel(*sel.kernel, p, 1, 3));
  r["warmup"] = lp.warmup;
  r["iters"] = lp.iters;

  // 1. Screening: the top-N of the heuristic's ranking (or all), one after another.
  auto ranked = disp.ranked(p, &first);
  const std::size_t limit = o.top > 0 ? std::min<std::size_t>(ranked.size(), o.top) : ranked.size();
  std::shared_ptr<const gemm_instance> best = sel.kernel;
  double best_ms = time_kernel(*sel.kernel, p, lp.warmup, lp.iters);
  json screened = json::array();
  // What the ranking assumed of each candidate (tiles, split-K pieces) beside what it measured,
  // so that the heuristic can be checked and fitted against real shapes.
  auto screened_entry = [&](const gemm_instance& k, double estimated_us, double ms) {
    const auto kp = profile_of(k.key(), machine_model_of(k.key()));
    const auto t = terms_of(kp, profile_of(p));
    return json{{"kernel", k.name()}, {"estimated_us", estimated_us}, {"ms", ms}, {"tiles", t.tiles},
                {"splits", kp.rates.splits_k ? t.splits : 1.0}};
  };
  screened.push_back(screened_entry(*sel.kernel, sel.estimated_us, best_ms));
  for (std::size_t i = 0; i < limit; ++i) {
    if (ranked[i].first == sel.kernel) continue;
    const double ms = time_kernel(*ranked[i].first, p, lp.warmup, lp.iters);
    screened.push_back(screened_entry(*ranked[i].first, ranked[i].second, ms));
    if (ms < best_ms) {
      best_ms = ms;
      best = ranked[i].first;
    }
  }
  r["instances_timed"] = screened.size();
  r["instances_eligible"] = ranked.size();
  r["screened"] = std::move(screened);

  // 2. The figures: the dispatcher's choice, the best instance, the vendor
  //    baseline(s) and the pass_through twin, timed in turns (interleaved_medians).
  std::vector<std::string> names;
  std::vector<std::function<void(int)>> launchers;
  std::vector<std::unique_ptr<buffer>> workspaces;
  // `dependent` false: launched with runtime/dependent_launch.hpp's switch off.
  auto add_kernel = [&](const std::string& what, const gemm_instance& k, gemm_problem prob, bool dependent = true) {
    workspaces.push_back(std::make_unique<buffer>(disp.target(), k.workspace_bytes(prob)));
    buffer* ws = workspaces.back().get();
    names.push_back(what);
    launchers.push_back([&, ws, prob, dependent, kp = &k](int i) {
      auto args = args_of(ops, i, o.shape.alpha, o.shape.beta);
      args.workspace = ws->data();
      args.workspace_bytes = ws->size();
      std::optional<without_dependent_launch> off;
      if (!dependent) off.emplace();
      if (auto st = kp->run(prob, args, nullptr); !st)
        throw std::runtime_error(fmt::format("{}: {}", kp->name(), st.message()));
    });
  };
  add_kernel("dispatcher", *sel.kernel, p);
  if (best != sel.kernel) add_kernel("best_instance", *best, p);
  // The same kernel launched as an ordinary launch, in the same turns: what the dependent launch
  // gives (seen only back to back: --back-to-back).
  if (o.dependent_launch_ab) add_kernel("dispatcher_without_dependent_launch", *sel.kernel, p, false);

#if KDECL_WITH_CUDA
  std::unique_ptr<cublas_gemm> blas;
  if (!cuda) {
    r["cublas_unsupported"] = "no vendor baseline on the host backend";
  } else if (auto why = cublas_gemm::unsupported(p)) {
    r["cublas_unsupported"] = *why;
  } else {
    // The vendor baseline computes A*B (+beta C); for multi_d also followed by a separate elementwise pass.
    blas = std::make_unique<cublas_gemm>(p, o.shape.alpha, o.shape.beta);
    names.push_back("cublas");
    launchers.push_back([&](int i) {
      auto a = args_of(ops, i, o.shape.alpha, o.shape.beta);
      blas->run(a.a, a.b, a.c, a.scale_a, a.scale_b);
    });
    if (p.sig.variant == gemm_variant::multi_d) {
      names.push_back("cublas_plus_elementwise");
      launchers.push_back([&](int i) {
        auto a = args_of(ops, i, o.shape.alpha, o.shape.beta);
        blas->run(a.a, a.b, a.c);
        launch_elementwise(p, a.c, a.d.data());
      });
    }
  }
#else
  r["cublas_unsupported"] = "no vendor baseline on the host backend";
#endif
  std::shared_ptr<const kernel_instance> twin;
  if (p.sig.variant == gemm_variant::multi_d && o.fused_baseline) {
    // The same tile configuration with a pass_through epilogue over the same D tensors.
    gemm_key twin_key = sel.kernel->key();
    twin_key.sig.ew = elementwise::pass_through;
    twin = registry::global().find(kernel_name(twin_key));
    if (twin) {
      gemm_problem pp = p;
      pp.sig.ew = elementwise::pass_through;
      add_kernel("same_kernel_pass_through", static_cast<const gemm_instance&>(*twin), pp);
    } else {
      r["same_kernel_pass_through_missing"] = kernel_name(twin_key);
    }
  }

  const auto medians = interleaved_medians(cuda, launchers, lp.warmup, lp.iters, turns_rounds, o.back_to_back);
  for (std::size_t i = 0; i < names.size(); ++i) record(names[i], medians[i]);
  // What each launch costs the host, beside the GPU time of the same launches queued back to back:
  // small problems can be bound by the host (tensor maps, launch), and the timed turns measure that.
  record_launch_costs(r, cuda, o, names, launchers);
  if (best == sel.kernel) r["best_instance"] = r["dispatcher"];
  r["dispatcher"]["kernel"] = sel.kernel->name();
  r["dispatcher"]["estimated_us"] = sel.estimated_us;
  r["best_instance"]["kernel"] = best->name();
  if (twin) r["same_kernel_pass_through"]["kernel"] = twin->name();
  return r;
}

std::string markdown_table(const json& results, double copy_gbs) {
  std::string md = "| M | N | K | batch | dispatcher TFLOP/s | best instance TFLOP/s | cuBLAS TFLOP/s | best/cuBLAS | "
                   "dispatcher/best | GB/s (best) | % of copy BW |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : results) {
    if (r.contains("error") || r.contains("run_error")) {
      const auto why = r.contains("error") ? r["error"].get<std::string>() : r["run_error"].get<std::string>();
      md += fmt::format("| {} | {} | {} | {} | {}: {} | | | | | | |\n", r["m"].get<long>(), r["n"].get<long>(),
                        r["k"].get<long>(), r["batch"].get<long>(), r.contains("error") ? "error" : "failed", why);
      continue;
    }
    if (!r.contains("best_instance") || !r.contains("dispatcher")) continue;
    auto tf = [&](const char* f) { return r.contains(f) ? fmt::format("{:.1f}", r[f]["tflops"].get<double>()) : std::string("-"); };
    const char* vendor = r.contains("cublas_plus_elementwise") ? "cublas_plus_elementwise" : "cublas";
    std::string ratio = r.contains(vendor) ? fmt::format("{:.3f}", r[vendor]["ms"].get<double>() / r["best_instance"]["ms"].get<double>()) : "-";
    double best_gbs = r["best_instance"]["gbs"].get<double>();
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {:.3f} | {:.0f} | {:.0f}% |\n", r["m"].get<long>(),
                      r["n"].get<long>(), r["k"].get<long>(), r["batch"].get<long>(), tf("dispatcher"),
                      tf("best_instance"), tf(vendor), ratio,
                      r["best_instance"]["ms"].get<double>() / r["dispatcher"]["ms"].get<double>(), best_gbs,
                      copy_gbs > 0 ? 100.0 * best_gbs / copy_gbs : 0.0);
  }
  return md;
}

// The sweep report (markdown and plot) of JSON-lines results.
std::string write_sweep_report(const std::vector<json>& records, const std::string& jsonl_paths, const std::string& out,
                               const std::string& stem, const std::string& title, bool* plotted = nullptr) {
  make_folder(out);
  const std::string md = sweep_markdown(records, title);
  std::ofstream(out + "/" + stem + ".md") << md;
  const bool ok = draw_plot("KDECL_SWEEP_PLOT_SCRIPT", "plot_sweep.py", fmt::format("{} '{}/{}.png'", jsonl_paths, out, stem));
  if (plotted) *plotted = ok;
  return md;
}

// `kdecl bench report FILE.jsonl...`: the summary of results already measured.
int run_report(const std::vector<std::string>& files, const bench_options& o) {
  if (files.empty()) throw std::invalid_argument("bench report: give the JSON-lines files to summarise");
  std::vector<json> records;
  std::set<std::string> keys;
  std::string quoted;
  for (const auto& f : files) {
    if (!std::ifstream(f)) throw std::invalid_argument(fmt::format("bench report: '{}' cannot be opened", f));
    std::size_t bad = 0;
    for (auto& r : read_jsonl(f, &bad)) records.push_back(std::move(r));
    if (bad) fmt::print(stderr, "kdecl: {}: {} malformed line(s) skipped\n", f, bad);
    quoted += fmt::format(" '{}'", f);
  }
  const std::string out = o.out != "bench-results" ? o.out : folder_of(files.front());
  const std::string stem = !o.label.empty() ? o.label : stem_of(files.front());
  bool plotted = false;
  const std::string title = fmt::format("{} ({} problems)", stem, records.size());
  // Records of `bench conv` / `bench fmha` (kdecl against cuDNN) carry their group.
  const bool vendor_records = !records.empty() && std::all_of(records.begin(), records.end(), [](const json& r) {
    return r.contains("group");
  });
  std::string md;
  if (vendor_records) {
    make_folder(out);
    md = vendor_markdown(records, title);
    std::ofstream(out + "/" + stem + ".md") << md;
    plotted = draw_plot("KDECL_VENDOR_PLOT_SCRIPT", "plot_vendor_bench.py", fmt::format("{} '{}/{}.png'", quoted, out, stem));
  } else {
    md = write_sweep_report(records, quoted, out, stem, title, &plotted);
  }
  fmt::print("{}", md);
  fmt::print(stderr, "kdecl: wrote {0}/{1}.md{2}\n", out, stem, plotted ? fmt::format(" and {}/{}.png", out, stem) : "");
  return 0;
}

// --dry-run: what a run would measure and what the dispatcher picks for each
// problem on the target (a GPU, the host, or an arch offline such as sm_90).
int run_dry(const std::vector<sweep_problem>& todo, std::size_t total, const bench_options& o) {
  const auto dev = o.shape.target();
  kernel_filter keep(o.kernels);
  registry candidates;
  for (const auto& k : registry::global().filter([&](const registered_kernel& k) { return keep.matches(fields_of(k)); }))
    candidates.add(k.instance, k.set);
  gemm_dispatcher disp(dev, candidates);
  fmt::print("device: {} ({}); {} of {} problems to measure\n", dev.description, to_string(dev.arch), todo.size(), total);
  std::size_t refused = 0, rows = 0;
  double predicted = 0;
  for (const auto& sp : todo) {
    rows += std::max<std::size_t>(1, sp.uses.size());
    auto sel = disp.select(sp.problem);
    std::string used;
    if (!sp.uses.empty() && !sp.uses.front().model.empty())
      used = fmt::format("  [{} {}{}]", sp.uses.front().model, sp.uses.front().layer,
                         sp.uses.size() > 1 ? fmt::format(" +{} rows", sp.uses.size() - 1) : "");
    if (sel) {
      predicted += predicted_seconds(disp, sp.problem, o);
      fmt::print("{:<32} {}  est {:.1f} us{}\n", sp.key, short_kernel_name(sel.kernel->name()), sel.estimated_us, used);
    } else {
      ++refused;
      std::string why = sel.problem_error.empty() && !sel.rejected.empty() ? sel.rejected.front().reason : sel.explain();
      fmt::print("{:<32} REFUSED: {}{}\n", sp.key, why, used);
    }
  }
  fmt::print("{} problems ({} rows): {} with a kernel, {} refused; predicted time to measure them on {}: {}\n",
             todo.size(), rows, todo.size() - refused, refused, to_string(dev.arch), progress_bar::clock(predicted));
  return 0;
}

}  // namespace

void add_bench_command(CLI::App& app, command_state& state) {
  auto* cmd = app.add_subcommand("bench", "time the dispatcher's choice, the best instance and the vendor library "
                                          "(CUDA builds): 'bench gemm', 'bench conv', 'bench fmha'; "
                                          "'bench report FILE.jsonl...' summarises results");
  auto op = std::make_shared<std::string>();
  auto files = std::make_shared<std::vector<std::string>>();
  auto o = std::make_shared<bench_options>();
  cmd->add_option("op", *op, "operation (gemm; conv and fmha take their own flags: kdecl bench conv --help), or "
                             "'report' to summarise JSON-lines files")->required();
  cmd->add_option("files", *files, "report: the JSON-lines files written by 'bench gemm', 'bench conv' or 'bench fmha'");
  o->shape.add_to(*cmd, false);
  cmd->add_option("--sizes", o->squares, "square sizes M = N = K, e.g. --sizes 4096 8192")->transform(decimal_integer());
  cmd->add_option("--ms", o->ms, "M values (cartesian product with --ns and --ks)")->transform(decimal_integer());
  cmd->add_option("--ns", o->ns, "N values")->transform(decimal_integer());
  cmd->add_option("--ks", o->ks, "K values")->transform(decimal_integer());
  cmd->add_option("--problems", o->csv,
                  "CSV files of problems: a header naming m,n,k (and model, layer, dtype, layout, source, batch), as "
                  "in benchmarks/shapes/, or plain m,n,k[,batch] lines. --dtype/--layout given explicitly override "
                  "the files' columns");
  cmd->add_option("--filter", o->filter,
                  "choose rows of the --problems files: FIELD OP VALUE terms, comma-separated, all must hold; OP is "
                  "= (alternatives a|b) != ~ (contains) or, for m n k batch, < <= > >=; fields: model layer m n k "
                  "batch dtype layout source file. E.g. 'model~Llama,m<=2048'");
  cmd->add_option("--limit", o->limit, "at most this many problems (after --filter; identical rows count once)")
      ->check(CLI::Range(0, 100000000));
  o->add_to(*cmd, "gemm_<dtype>_<layout>, or sweep_<dtype>_<layout> for model rows");
  cmd->add_flag("--fused-baseline", o->fused_baseline, "multi_d: also time the same kernel with pass_through");
  cmd->add_flag("--dependent-launch-ab", o->dependent_launch_ab,
                "also time the dispatcher's choice launched as an ordinary launch, in the same turns "
                "(dispatcher_without_dependent_launch; programmatic dependent launch shows only with --back-to-back)");
  cmd->callback([&state, cmd, op, files, o] {
    o->dtype_given = cmd->get_option("--dtype")->count() > 0 || cmd->get_option("--dtypes")->count() > 0;
    o->layout_given = cmd->get_option("--layout")->count() > 0;
    state.action = [op, files, o, plan_only = state.dry_run]() -> int {
      // plan_only (the CLI fuzzer): check the command, the device and the memory; read and write no file.
      if (*op == "report") {
        if (plan_only) {
          if (files->empty()) throw std::invalid_argument("bench report: give the JSON-lines files to summarise");
          return 0;
        }
        return run_report(*files, *o);
      }
      if (*op == "conv" || *op == "fmha")
        throw std::invalid_argument(fmt::format("bench {0} takes its own flags and must follow the command directly: "
                                                "kdecl bench {0} --help", *op));
      if (*op != "gemm")
        throw std::invalid_argument(fmt::format("bench: operation '{}' is unknown; use gemm, conv, fmha or report", *op));
      if (!files->empty())
        throw std::invalid_argument(fmt::format("bench gemm: unexpected argument '{}' (problem files go after --problems)",
                                                files->front()));
      auto problems = problems_of(*o);
      const std::string stem = !o->label.empty() ? o->label : default_stem(problems);
      const std::string jsonl = o->jsonl_path(stem);

      // What the JSON-lines file already holds: skipped with --resume.
      const std::set<std::string> done = plan_only ? std::set<std::string>{} : keys_on_disk(jsonl, *o);
      std::vector<sweep_problem> todo;
      for (const auto& sp : problems)
        if (!done.count(sp.key)) todo.push_back(sp);
      if (o->dry_run) return run_dry(todo, problems.size(), *o);

      // The device: a GPU; or the host backend when asked for by name (its timings only exercise the
      // bench itself: no vendor baseline, no tuned kernels).
      // (The copy bandwidth is measured once the memory check below has passed.)
      bench_device bd = open_bench_device(o->shape.target(), o->shape.device, /*measure_copy=*/false);
      // The candidates: every registered kernel, or those the --kernels filter keeps.
      kernel_filter keep(o->kernels);
      registry candidates;
      for (const auto& k : registry::global().filter([&](const registered_kernel& k) { return keep.matches(fields_of(k)); }))
        candidates.add(k.instance, k.set);
      gemm_dispatcher disp(bd.dev, candidates);
      // Every problem's memory, before anything is allocated: refused (exit 2) when one does not fit.
      require_bench_memory(disp, todo, o->top, bd.l2_bytes, bd.cuda);
      if (plan_only) return 0;
      bd.copy_gbs = copy_bandwidth_gbs(bd);
      fmt::print(stderr, "{}: device-to-device copy {:.0f} GB/s; L2 {} MiB; {} of {} problems to measure\n", bd.name,
                 bd.copy_gbs, bd.l2_bytes >> 20, todo.size(), problems.size());
      const std::string method = method_sentence(
          bd.cuda, *o, "cuBLASLt",
          "random inputs in [-1, 1] (operands over 16 Mi elements repeat a random block of that size); rotating "
          "operand sets > 2x L2");
      const json common = common_fields(bd, method, *o);

      std::vector<bench_task> tasks;
      for (const auto& sp : todo) tasks.push_back({sp.key, predicted_seconds(disp, sp.problem, *o)});
      const auto outcome = measure_all(
          tasks, jsonl, *o, bd.cuda, common, "bench gemm",
          [&](std::size_t i) {
            json r = bench_one(disp, todo[i].problem, *o, bd.l2_bytes);
            r["uses"] = uses_json(todo[i]);
            return r;
          },
          [&](std::size_t i, const std::string&) {
            const auto& p = todo[i].problem;
            return json{{"key", todo[i].key}, {"m", p.m}, {"n", p.n}, {"k", p.k}, {"batch", p.batch},
                        {"dtype", to_string(p.sig.a)},
                        {"layout", fmt::format("{}{}{}", to_string(p.sig.lay.a), to_string(p.sig.lay.b),
                                               to_string(p.sig.lay.c))},
                        {"uses", uses_json(todo[i])}};
          });

      // Reports over everything the JSON-lines file holds for this run's problems (earlier pieces included).
      std::vector<std::string> keys;
      for (const auto& sp : problems) keys.push_back(sp.key);
      const json results = results_for(jsonl, keys);
      const bool complete = write_results_json(common, results, problems.size(), o->out, stem);
      const std::string title = fmt::format("{} on {}{}", stem, bd.name,
                                            complete ? "" : fmt::format(" ({} of {} problems so far)", results.size(),
                                                                        problems.size()));
      if (from_model_rows(problems)) {
        std::vector<json> records(results.begin(), results.end());
        auto md = write_sweep_report(records, "'" + jsonl + "'", o->out, stem, title);
        // The summary only: the per-shape rows are in the file.
        fmt::print("{}", md.substr(0, md.find("\n## ")));
        fmt::print("\n(report: {}/{}.md, plot: {}/{}.png, results: {})\n", o->out, stem, o->out, stem, jsonl);
      } else {
        std::string md = fmt::format("# {}\n\n{}\n\n", title, method) + markdown_table(results, bd.copy_gbs);
        std::ofstream(o->out + "/" + stem + ".md") << md;
        fmt::print("{}", md);
        draw_plot("KDECL_PLOT_SCRIPT", "plot_gemm_bench.py",
                  fmt::format("'{}/{}.json' '{}/{}.png'", o->out, stem, o->out, stem));
      }
      return finish_run(outcome, results.size(), problems.size());
    };
  });
}

}  // namespace kdecl::cli
