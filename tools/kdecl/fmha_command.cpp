#include "fmha_command.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "fmha_options.hpp"
#include "kdecl/fmha/fmha_dispatcher.hpp"
#include "kdecl/runtime/fmha_check.hpp"
#include "parse_and_run.hpp"

namespace kdecl::cli {
namespace {

std::string describe(const fmha_problem& p) {
  std::string s = p.group_mode() ? fmt::format("{} sequences, {} query / {} key tokens", p.batch, p.total_q(), p.total_kv())
                                 : fmt::format("b {} sq {} skv {}", p.batch, p.seqlen_q, p.seqlen_kv);
  s += fmt::format(", heads {}/{}, d {}/{}, {}, mask {}", p.heads_q, p.heads_kv, p.hdim_q, p.hdim_v, to_string(p.qkv),
                   to_string(p.mask));
  if (p.mask == fmha_mask::generic) s += fmt::format(" ({}, {})", p.window_left, p.window_right);
  if (p.bias != fmha_bias::none) s += fmt::format(", bias {}", to_string(p.bias));
  if (p.soft_cap > 0) s += fmt::format(", soft-cap {}", p.soft_cap);
  if (p.sinks) s += ", sinks";
  return s;
}

int select(const fmha_options& o) {
  const auto p = o.problem();
  const auto dev = o.target();
  fmha_dispatcher d(dev);
  auto sel = d.select(p, nullptr, o.explain);
  fmt::print("device: {} ({})\n", dev.description, to_string(dev.arch));
  fmt::print("problem: {}\n", describe(p));
  fmt::print("{}\n", sel.explain(o.explain ? sel.rejected.size() : 5));
  if (sel && o.explain)
    for (const auto& r : sel.rejected) fmt::print("  refused {}: {}\n", r.kernel, r.reason);
  return sel ? 0 : 1;
}

int run(const fmha_options& o) {
  const auto p = o.problem();
  const auto dev = o.target();
  if (dev.ordinal < 0)
    throw std::invalid_argument(fmt::format("--device {} names an arch, not a device present here: run needs a "
                                            "device (host, cuda:N or auto)", o.device));
  if (dev.kind() == backend::host)
    fmt::print("device: host CPU (no GPU found or requested: running on the host backend)\n");
  else
    fmt::print("device: {} ({})\n", dev.description, to_string(dev.arch));
  fmt::print("problem: {}\n", describe(p));
  fmha_dispatcher d(dev);
  fmha_check_options opts;
  opts.kernel = o.kernel;
  opts.seed = o.seed;
  const auto r = run_and_check(d, p, opts);
  fmt::print("kernel: {}\n", r.kernel);
  fmt::print("time: {:.3f} ms ({:.1f} GFLOP/s over attended pairs)\n", r.milliseconds,
             p.flops() / (r.milliseconds * 1e-3) / 1e9);
  fmt::print("check: O error {:.3e} (tolerance {:.0e}), LSE error {:.3e} (tolerance {:.0e}): {}\n", r.o_error,
             r.o_tolerance, r.lse_error, r.lse_tolerance, r.passed ? "PASS" : "FAIL");
  return r.passed ? 0 : 1;
}

}  // namespace

int fmha_main(int argc, char** argv) {
  const std::string verb = argv[1];
  CLI::App app{fmt::format("kdecl {} fmha: {} the attention forward kernel for a problem", verb,
                           verb == "run" ? "run and check against the exact host reference" : "show which kernel runs")};
  app.name(fmt::format("kdecl {} fmha", verb));
  fmha_options o;
  o.add_to(app, verb == "run" ? fmha_options::mode::run : fmha_options::mode::select);
  // argv[2] ("fmha") stands for the program name
  return parse_and_run(app, argc, argv, 2, [&] { return verb == "run" ? run(o) : select(o); });
}

}  // namespace kdecl::cli
