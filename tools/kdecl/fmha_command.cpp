#include "fmha_command.hpp"

#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "fmha_options.hpp"
#include "kdecl/fmha/fmha_dispatcher.hpp"
#include "kdecl/numeric/host_storage.hpp"
#include "kdecl/runtime/fmha_check.hpp"
#include "parse_and_run.hpp"
#include "memory_check.hpp"

namespace kdecl::cli {
namespace {

std::string describe(const fmha_problem& p) {
  std::string s = p.group_mode() ? fmt::format("{} sequences, {} query / {} key tokens", p.batch, p.total_q(), p.total_kv())
                                 : fmt::format("b {} sq {} skv {}", p.batch, p.seqlen_q, p.seqlen_kv);
  s += fmt::format(", heads {}/{}, d {}/{}, {}, mask {}", p.heads_q, p.heads_kv, p.hdim_q, p.hdim_v, to_string(p.qkv),
                   to_string(p.mask));
  if (p.mask == fmha_mask::generic) s += fmt::format(" ({}, {})", p.window_left, p.window_right);
  if (p.bias != fmha_bias::none)
    s += fmt::format(", bias {}{}", to_string(p.bias), p.bias == fmha_bias::elementwise && !p.bias_per_row ? " (one row per key)" : "");
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

std::size_t saturated(double bytes) {
  return bytes >= double(std::numeric_limits<std::size_t>::max()) ? std::numeric_limits<std::size_t>::max()
                                                                  : std::size_t(bytes);
}

// Refuses (exit 2), before anything is allocated, a check that does not fit: run_and_check() keeps
// host copies of Q, K, V (and the bias), downloads O, and holds the reference's O and the
// downloaded O in double; the tensors themselves live on the device (on the host backend: in host
// memory too).
void require_fmha_memory(const fmha_problem& p, const device& dev) {
  const double tensors = p.bytes();  // Q, K, V, O, the LSE and an elementwise bias
  const double o_elements = double(p.total_q()) * double(p.heads_q) * double(p.hdim_v);
  const double out = o_elements * double(dtype_size_bytes(p.o));
  memory_parts host{{"host copies of the tensors", saturated(tensors)},
                    {"downloaded O", saturated(out)},
                    {"reference and downloaded O in double", saturated(16.0 * o_elements)}};
  double host_total = tensors + out + 16.0 * o_elements;
  if (dev.kind() == backend::host) {
    host.emplace_back("the tensors (host backend)", saturated(tensors));
    host_total += tensors;
  } else {
    require_memory("this run's device memory", saturated(tensors), {{"Q, K, V, O (and LSE, bias)", saturated(tensors)}},
                   memory_available(dev), "try smaller sizes");
  }
  require_memory("this run's host memory", saturated(host_total), host, memory_available(device::host()),
                 "try smaller sizes");
}

int run(const fmha_options& o, bool dry_run) {
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
  if (!o.kernel.empty()) {  // --kernel must name a registered attention kernel built for the device
    auto found = registry::global().find(o.kernel);
    if (!found || found->op() != op_kind::fmha)
      throw std::invalid_argument(fmt::format(
          "--kernel '{}': no attention kernel of that name is registered; kdecl list shows them", o.kernel));
    if (found->arch() != dev.arch)
      throw std::invalid_argument(fmt::format("--kernel {} is built for {}, but the device is {} ({})", o.kernel,
                                              to_string(found->arch()), dev.description, to_string(dev.arch)));
  }
  require_fmha_memory(p, dev);
  if (dry_run) return 0;
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

int fmha_main(int argc, const char* const* argv, bool dry_run) {
  const std::string verb = argv[1];
  CLI::App app{fmt::format("kdecl {} fmha: {} the attention forward kernel for a problem", verb,
                           verb == "run" ? "run and check against the exact host reference" : "show which kernel runs")};
  app.name(fmt::format("kdecl {} fmha", verb));
  fmha_options o;
  o.add_to(app, verb == "run" ? fmha_options::mode::run : fmha_options::mode::select);
  // argv[2] ("fmha") stands for the program name
  return parse_and_run(app, argc, argv, 2, [&] { return verb == "run" ? run(o, dry_run) : select(o); });
}

}  // namespace kdecl::cli
