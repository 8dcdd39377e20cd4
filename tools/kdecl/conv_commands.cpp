#include "conv_commands.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "conv_options.hpp"
#include "kdecl/conv/conv_dispatcher.hpp"
#include "kdecl/numeric/host_storage.hpp"
#include "kdecl/runtime/conv_check.hpp"
#include "parse_and_run.hpp"
#include "memory_check.hpp"
#include "progress.hpp"

namespace kdecl::cli {
namespace {

std::string layer_label(const conv_layer& l) {
  return l.network.empty() ? std::string() : fmt::format("{} {} (x{}): ", l.network, l.layer, l.count);
}

void print_device(const device& dev) {
  if (dev.kind() == backend::host)
    fmt::print("device: host CPU (no GPU found or requested: running on the host backend)\n");
  else
    fmt::print("device: {} ({})\n", dev.description, to_string(dev.arch));
}

int select_conv(const conv_options& o, bool explain) {
  const auto layers = o.layers();
  const device dev = o.target();
  print_device(dev);
  conv_dispatcher d(dev);
  int refused = 0;
  for (const auto& l : layers) {
    auto sel = d.select(l.problem, nullptr, explain);
    fmt::print("{}{}\n  {}\n", layer_label(l), l.problem.describe(), sel.explain(explain ? sel.rejected.size() : 5));
    if (sel && explain)
      for (const auto& r : sel.rejected) fmt::print("  refused {}: {}\n", r.kernel, r.reason);
    refused += sel ? 0 : 1;
  }
  if (layers.size() > 1) fmt::print("{} of {} layers have a kernel\n", layers.size() - refused, layers.size());
  return refused == 0 ? 0 : 1;
}

std::size_t saturated(double bytes) {
  return bytes >= double(std::numeric_limits<std::size_t>::max()) ? std::numeric_limits<std::size_t>::max()
                                                                  : std::size_t(bytes);
}

// Refuses (exit 2), before anything is allocated, a layer whose check does not fit: run_and_check()
// keeps host copies of the three tensors, downloads the result and holds the reference in double;
// the tensors themselves live on the device (on the host backend: in host memory too).
void require_conv_memory(const grouped_conv_problem& problem, const device& dev, const std::string& label) {
  const grouped_conv_problem p = problem.normalized();
  memory_parts host, on_device;
  double tensors = 0;
  constexpr conv_tensor all[3] = {conv_tensor::input, conv_tensor::weight, conv_tensor::output};
  constexpr const char* names[3] = {"input", "weight", "output"};
  for (int i = 0; i < 3; ++i) {
    const double b = double(p.span(all[i])) * double(dtype_size_bytes(p.dtype_of(all[i])));
    tensors += b;
    on_device.emplace_back(names[i], saturated(b));
  }
  const conv_tensor result = p.result();
  const double result_bytes = double(p.span(result)) * double(dtype_size_bytes(p.dtype_of(result)));
  const double reference = double(p.elements(result)) * 8.0;
  host.emplace_back("host copies of the tensors", saturated(tensors));
  host.emplace_back("downloaded result", saturated(result_bytes));
  host.emplace_back("reference in double", saturated(reference));
  double host_total = tensors + result_bytes + reference;
  if (dev.kind() == backend::host) {
    host.emplace_back("the tensors (host backend)", saturated(tensors));
    host_total += tensors;
  } else {
    require_memory(label + "this run's device memory", saturated(tensors), on_device, memory_available(dev),
                   "try smaller sizes");
  }
  require_memory(label + "this run's host memory", saturated(host_total), host, memory_available(device::host()),
                 "try smaller sizes");
}

// --kernel must name a registered convolution kernel built for the device: anything else is bad input.
void require_conv_kernel(const std::string& name, const device& dev) {
  if (name.empty()) return;
  auto found = registry::global().find(name);
  if (!found || found->op() != op_kind::grouped_conv)
    throw std::invalid_argument(
        fmt::format("--kernel '{}': no convolution kernel of that name is registered; kdecl list shows them", name));
  if (found->arch() != dev.arch)
    throw std::invalid_argument(fmt::format("--kernel {} is built for {}, but the device is {} ({})", name,
                                            to_string(found->arch()), dev.description, to_string(dev.arch)));
}

int run_conv(const conv_options& o, const std::string& kernel, bool dry_run) {
  const auto layers = o.layers();
  const device dev = o.target();
  if (dev.ordinal < 0)
    throw std::invalid_argument(fmt::format("--device {} names an arch, not a device present here: run needs a "
                                            "device (host, cuda:N or auto)",
                                            o.device));
  print_device(dev);
  require_conv_kernel(kernel, dev);
  for (const auto& l : layers) require_conv_memory(l.problem, dev, layer_label(l));
  if (dry_run) return 0;
  conv_dispatcher d(dev);
  progress_bar progress(layers.size(), "checking");
  int failed = 0;
  for (const auto& l : layers) {
    // Each layer's result is printed as soon as it is known: an interrupted list keeps what it checked.
    fmt::print("{}{}\n", layer_label(l), l.problem.describe());
    try {
      const auto r = run_and_check(d, l.problem, kernel);
      fmt::print("  kernel: {}\n  time: {:.3f} ms ({:.1f} GFLOP/s, {:.2f} GB/s)\n", r.kernel, r.milliseconds,
                 l.problem.flops() / (r.milliseconds * 1e-3) / 1e9,
                 l.problem.bytes() / (r.milliseconds * 1e-3) / 1e9);
      fmt::print("  check: relative Frobenius error {:.3e} vs tolerance {:.1e}: {}\n", r.error, r.tolerance,
                 r.passed ? "PASS" : "FAIL");
      failed += r.passed ? 0 : 1;
    } catch (const std::invalid_argument&) {
      throw;
    } catch (const std::exception& e) {  // nothing can run this layer: report it and go on
      fmt::print("  FAIL: {}\n", e.what());
      ++failed;
    }
    std::fflush(stdout);
    if (layers.size() > 1) progress.step(l.network + " " + l.layer);
  }
  if (layers.size() > 1) fmt::print("{} of {} layers passed\n", layers.size() - failed, layers.size());
  return failed == 0 ? 0 : 1;
}

}  // namespace

bool is_conv_command(int argc, const char* const* argv) {
  if (argc < 3) return false;
  const std::string_view verb = argv[1], op = argv[2];
  return (verb == "select" || verb == "run") && op == "conv";
}

int run_conv_command(int argc, const char* const* argv, bool dry_run) {
  const std::string verb = argv[1];
  CLI::App app{verb == "select" ? "show which convolution kernel the dispatcher picks for a problem (or each layer "
                                  "of a list)"
                                : "run the selected convolution kernel on random data and check it against the "
                                  "host reference (for a problem, or each layer of a list)",
               "kdecl " + verb + " conv"};
  conv_options o;
  o.add_to(app);
  bool explain = false;
  std::string kernel;
  if (verb == "select")
    app.add_flag("--explain", explain, "also list why every other kernel was refused");
  else
    app.add_option("--kernel", kernel, "run this registered kernel instead of the dispatcher's choice");
  // argv[2] ("conv") stands for the program name
  return parse_and_run(app, argc, argv, 2,
                       [&] { return verb == "select" ? select_conv(o, explain) : run_conv(o, kernel, dry_run); });
}

}  // namespace kdecl::cli
