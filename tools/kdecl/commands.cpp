#include "commands.hpp"

#include <iostream>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "arch_summary.hpp"
#include "gemm_options.hpp"
#include "kdecl/arch/arch_json.hpp"
#include "kdecl/gemm/gemm_dispatcher.hpp"
#include "kdecl/gemm/gemm_name.hpp"
#include "kdecl/io/key_json.hpp"
#include "kdecl/runtime/gemm_check.hpp"
#include "kernel_filter.hpp"
#include "memory_check.hpp"

namespace kdecl::cli {
namespace {

// Subcommands that take an operation name: gemm here; conv has its own flags (conv_commands.hpp).
void require_gemm(const std::string& op) {
  if (op == "conv")
    throw std::invalid_argument("conv takes its own flags and must follow the command directly: kdecl select conv "
                                "--help, kdecl run conv --help");
  if (op != "gemm")
    throw std::invalid_argument(fmt::format(
        "operation '{}' is not offered by this command (gemm is; conv and fmha have select and run)", op));
}

void print_registry_health() {
  if (auto st = registry::global().check(); !st) fmt::print(stderr, "kdecl: warning: {}\n", st.message());
  if (auto o = registry::global().overlaps(); !o.empty())
    fmt::print(stderr, "kdecl: note: {} kernel(s) declared by more than one set (registered once, under the first)\n",
               o.size());
}

}  // namespace

void add_arch_command(CLI::App& app, command_state& state) {
  auto* cmd = app.add_subcommand("arch", "print the architecture tables (all archs, or one)");
  auto name = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto markdown = std::make_shared<bool>(false);
  cmd->add_option("name", *name, "arch name, e.g. sm_90, gfx942, host");
  auto* j = cmd->add_flag("--json", *json, "machine-readable JSON (the same tables the compiler uses)");
  cmd->add_flag("--markdown", *markdown, "markdown tables (docs/arch_tables.md is made with this)")->excludes(j);
  cmd->callback([&state, name, json, markdown] {
    state.action = [name, json, markdown] {
      std::optional<arch_id> one;
      if (!name->empty()) {
        one = parse<arch_id>(*name);
        if (!one) throw std::invalid_argument(fmt::format("arch '{}' is unknown; known: sm_80 sm_86 sm_89 sm_90 "
                                                          "gfx908 gfx90a gfx942 gfx950 gfx1100 gfx1200 gfx1201 host",
                                                          *name));
      }
      if (*markdown) {
        if (one) throw std::invalid_argument("--markdown prints every arch's tables; drop the arch name");
        std::cout << arch::arch_to_markdown();
        return 0;
      }
      if (*json) {
        std::cout << (one ? arch::arch_to_json(*one) : arch::all_arch_json()).dump(2) << "\n";
        return 0;
      }
      for (std::size_t i = 0; i < enum_count<arch_id>(); ++i) {
        auto a = static_cast<arch_id>(i);
        if (!one || *one == a) std::cout << arch_summary(arch::arch_to_json(a));
      }
      return 0;
    };
  });
}

void add_list_command(CLI::App& app, command_state& state) {
  auto* cmd = app.add_subcommand("list", "list the registered kernels");
  auto filter = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("--filter", *filter, "field=value or field~text terms, comma-separated (e.g. dtype_a=fp16,arch=sm_90)");
  cmd->add_flag("--json", *json, "JSON export (the registry's export format)");
  cmd->callback([&state, filter, json] {
    state.action = [filter, json] {
      kernel_filter f(*filter);
      print_registry_health();
      auto kept = registry::global().filter([&](const registered_kernel& k) { return f.matches(fields_of(k)); });
      if (*json) {
        registry subset;
        for (const auto& k : kept) subset.add(k.instance, k.set);
        std::cout << export_registry(subset).dump(2) << "\n";
      } else {
        for (const auto& k : kept) fmt::print("{}  [{}]\n", k.instance->name(), k.set);
        fmt::print("{} of {} registered kernels\n", kept.size(), registry::global().size());
      }
      return 0;
    };
  });
}

void add_select_command(CLI::App& app, command_state& state) {
  auto* cmd = app.add_subcommand("select", "show which kernel the dispatcher picks for a problem");
  auto op = std::make_shared<std::string>();
  auto opts = std::make_shared<gemm_options>();
  auto explain = std::make_shared<bool>(false);
  cmd->add_option("op", *op, "operation (gemm)")->required();
  opts->add_to(*cmd, true);
  cmd->add_flag("--explain", *explain, "also list why every other kernel was refused");
  cmd->callback([&state, op, opts, explain] {
    state.action = [op, opts, explain] {
      require_gemm(*op);
      auto problem = opts->problem();
      auto dev = opts->target();
      gemm_dispatcher d(dev);
      auto sel = d.select(problem, nullptr, *explain);
      fmt::print("device: {} ({})\n", dev.description, to_string(dev.arch));
      fmt::print("{}\n", sel.explain(*explain ? sel.rejected.size() : 5));
      if (sel && *explain)
        for (const auto& r : sel.rejected) fmt::print("  refused {}: {}\n", r.kernel, r.reason);
      return sel ? 0 : 1;
    };
  });
}

namespace {

// The kernel `kdecl run` uses: the one --kernel names (refused, exit 2, when it
// is not registered or cannot take the problem on this device) or the
// dispatcher's choice (std::runtime_error, exit 1, when no kernel can run it).
std::shared_ptr<const gemm_instance> kernel_for_run(const gemm_dispatcher& d, const gemm_problem& problem,
                                                    const std::string& name) {
  const gemm_problem p = problem.normalized();
  if (name.empty()) {
    auto sel = d.select(problem);
    if (!sel) throw std::runtime_error(sel.explain());
    return sel.kernel;
  }
  auto found = registry::global().find(name);
  if (!found || found->op() != op_kind::gemm) {
    std::string why;
    try {
      parse_gemm_name(name);
      why = "it is a well-formed name, but no such kernel is registered in this build";
    } catch (const std::invalid_argument& e) {
      why = e.what();
    }
    throw std::invalid_argument(
        fmt::format("--kernel '{}': no GEMM kernel of that name is registered ({}); kdecl list shows them", name, why));
  }
  auto kernel = std::static_pointer_cast<const gemm_instance>(found);
  if (kernel->arch() != d.target().arch)
    throw std::invalid_argument(fmt::format("--kernel {} is built for {}, but the device is {} ({})", name,
                                            to_string(kernel->arch()), d.target().description,
                                            to_string(d.target().arch)));
  if (auto why = gemm_rejection(*kernel, p, nullptr))
    throw std::invalid_argument(fmt::format("--kernel {} cannot run this problem: {}", name, *why));
  return kernel;
}

}  // namespace

void add_run_command(CLI::App& app, command_state& state) {
  auto* cmd = app.add_subcommand("run", "run the selected kernel on random data and check it against the host reference");
  auto op = std::make_shared<std::string>();
  auto opts = std::make_shared<gemm_options>();
  auto kernel = std::make_shared<std::string>();
  auto check = std::make_shared<std::string>("auto");
  auto dry_run = std::make_shared<bool>(false);
  cmd->add_option("op", *op, "operation (gemm)")->required();
  opts->add_to(*cmd, true);
  cmd->add_option("--kernel", *kernel, "run this registered kernel instead of the dispatcher's choice");
  cmd->add_option("--check", *check,
                  "reference check: auto (every row when it fits in memory and takes seconds, else a sample of "
                  "rows), full, or sampled")
      ->check(CLI::IsMember({"auto", "full", "sampled"}))
      ->capture_default_str();
  cmd->add_flag("--dry-run", *dry_run, "print the kernel, the memory the run needs and the check it would do; run nothing");
  cmd->callback([&state, op, opts, kernel, check, dry_run] {
    state.action = [op, opts, kernel, plan_only = state.dry_run || *dry_run,
                    mode = *check == "full" ? check_mode::full
                           : *check == "sampled" ? check_mode::sampled
                                                 : check_mode::automatic] {
      require_gemm(*op);
      auto problem = opts->problem();
      opts->check_scalars();
      auto dev = opts->target();
      if (dev.ordinal < 0)
        throw std::invalid_argument(fmt::format("--device {} names an arch, not a device present here: run needs a "
                                                "device (host, cuda:N or auto)", opts->device));
      if (dev.kind() == backend::host)
        fmt::print("device: host CPU (no GPU found or requested: running on the host backend)\n");
      else
        fmt::print("device: {} ({})\n", dev.description, to_string(dev.arch));
      gemm_dispatcher d(dev);
      auto chosen = kernel_for_run(d, problem, *kernel);
      fmt::print("kernel: {}\n", chosen->name());

      // Plan the check and refuse, before allocating anything, what does not fit.
      const auto host_have = memory_available(device::host());
      const auto plan = plan_check(problem, dev, chosen->workspace_bytes(problem.normalized()), opts->beta, mode,
                                   host_have.bytes);
      fmt::print("memory: {} host{}\n", format_bytes(plan.host_bytes),
                 dev.kind() == backend::host ? "" : fmt::format(", {} device", format_bytes(plan.device_bytes)));
      require_memory("this run's host memory", plan.host_bytes, plan.host_parts, host_have, "try smaller sizes");
      if (dev.kind() != backend::host)
        require_memory("this run's device memory", plan.device_bytes, plan.device_parts, memory_available(dev),
                       "try smaller sizes");
      fmt::print("check planned: {}\n", plan.why);
      if (plan_only) return 0;

      auto r = run_and_check(d, problem, opts->alpha, opts->beta, plan, chosen->name());
      fmt::print("time: {:.3f} ms ({:.1f} GFLOP/s)\n", r.milliseconds,
                 problem.flops() / (r.milliseconds * 1e-3) / 1e9);
      const std::string over = r.sampled ? fmt::format("over {} sampled rows of {} (every element scanned for NaN)",
                                                       r.rows_checked, r.rows_total)
                                         : fmt::format("over all {} rows", r.rows_total);
      fmt::print("check: relative Frobenius error {:.3e} {} vs tolerance {:.0e}: {}\n", r.error, over, r.tolerance,
                 r.passed ? "PASS" : "FAIL");
      return r.passed ? 0 : 1;
    };
  });
}

}  // namespace kdecl::cli
