#include "tune_gemm.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "kdecl/gemm/gemm_dispatcher.hpp"
#include "kdecl/numeric/host_storage.hpp"
#include "kdecl/runtime/buffer.hpp"
#include "kdecl/tuning/problem_key.hpp"
#include "kdecl/tuning/problem_list.hpp"
#include "kdecl/tuning/tuning_db.hpp"
#include "kernel_filter.hpp"
#include "tune_common.hpp"
#include "tune_conv.hpp"
#include "tune_fmha.hpp"

namespace kdecl::cli {
namespace {

using namespace tune;

#if KDECL_WITH_CUDA

int run_tune(const tune_options& o) {
  auto dt = parse<dtype>(o.dtype);
  if (!dt) throw std::invalid_argument(fmt::format("--dtype '{}' is not a known dtype", o.dtype));
  std::vector<tuning::listed_problem> problems;
  for (const auto& file : o.problems) {
    auto more = tuning::read_problem_csv(file, *dt, tuning::parse_layout_code(o.layout));
    problems.insert(problems.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  device dev = default_device();
  if (dev.kind() != backend::cuda)
    throw std::invalid_argument("tune needs a CUDA GPU with a kernel table; none was found");  // as bench: exit 2
  const auto machine = machine_of(dev, commit_of(o));
  tuning::tuning_db db(o.db);

  // The kernel set of this arch (every registered kernel, before --kernels):
  // a model trained on these rows is only used with the same set.
  std::vector<std::string> arch_kernels;
  for (const auto& k : registry::global().gemm_kernels())
    if (k->arch() == dev.arch) arch_kernels.push_back(k->name());
  const tuning::kernel_set set{tuning::fingerprint_of(arch_kernels), machine.arch, arch_kernels};
  db.add_kernel_set({set.fingerprint, set.arch, [&] { auto v = arch_kernels; std::sort(v.begin(), v.end()); return v; }()});

  kernel_filter keep(o.kernels);
  registry candidates;
  for (const auto& k : registry::global().filter([&](const registered_kernel& k) { return keep.matches(fields_of(k)); }))
    candidates.add(k.instance, k.set);
  gemm_dispatcher disp(dev, candidates);
  disp.clear_tiers();  // ranked() lists every eligible kernel whatever the tiers say

  // The work: every eligible kernel of every problem not yet in the database.
  struct job {
    std::size_t problem;
    std::vector<std::shared_ptr<const gemm_instance>> kernels;
  };
  std::vector<job> jobs;
  std::size_t total = 0, already = 0;
  std::map<std::string, bool> seen;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    const auto& lp = problems[i];
    const std::string key = tuning::problem_key(lp.problem);
    if (!lp.model.empty() || !lp.layer.empty()) db.add_source({key, lp.model, lp.layer, lp.source});
    if (seen[key]) continue;  // the same shape from another layer or network
    seen[key] = true;
    job j{i, {}};
    for (auto& [k, est] : disp.ranked(lp.problem)) {
      (void)est;
      if (db.has(machine.device_name, key, k->name())) ++already;
      else j.kernels.push_back(k);
    }
    total += j.kernels.size();
    if (!j.kernels.empty()) jobs.push_back(std::move(j));
  }
  fmt::print(stderr, "tune gemm on {} ({}, {} SMs, {} MHz): {} problems ({} distinct), {} measurements to take, {} already in {}\n",
             machine.device_name, machine.arch, machine.sm_count, machine.sm_clock_mhz, problems.size(), seen.size(),
             total, already, o.db);

  const std::size_t l2 = l2_bytes(dev);
  std::map<dtype, std::unique_ptr<operand_pool>> pools;
  buffer workspace(dev, 0);
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::size_t done = 0, failed = 0;
  bool out_of_time = false;
  for (const auto& j : jobs) {
    const gemm_problem& p = problems[j.problem].problem;
    const std::string key = tuning::problem_key(p);
    // Operand sets: A, B, C (and D) of one set packed at 256-byte boundaries.
    const auto& s = p.sig;
    auto round = [](std::size_t b) { return (b + 255) / 256 * 256; };
    const std::size_t na = std::size_t((p.batch - 1) * p.stride_a + p.rows_a() * p.lda);
    const std::size_t nb = s.variant == gemm_variant::preshuffle ? std::size_t(p.batch * p.stride_b)
                                                                 : std::size_t((p.batch - 1) * p.stride_b + p.rows_b() * p.ldb);
    const std::size_t nc = std::size_t((p.batch - 1) * p.stride_c + p.rows_c() * p.ldc);
    const std::size_t bytes_a = round(na * dtype_size_bytes(s.a)), bytes_b = round(nb * dtype_size_bytes(s.b)),
                      bytes_c = round(nc * dtype_size_bytes(s.c));
    const std::size_t set_bytes = bytes_a + bytes_b + bytes_c * (1 + s.num_d);
    const std::size_t sets = std::clamp<std::size_t>((2 * l2 + set_bytes - 1) / set_bytes + 1, 1, 64);
    const std::size_t need = sets * set_bytes;
    for (dtype d : {s.a, s.b, s.c}) {
      auto& pool = pools[d];
      if (!pool || pool->size() < need) {
        pool.reset();
        pool = std::make_unique<operand_pool>(dev, std::max<std::size_t>(need, 4 * l2), d);
      }
    }
    auto args_of = [&](int call) {
      const std::size_t base = std::size_t(call % int(sets)) * set_bytes;
      gemm_args a{pools[s.a]->data() + base, pools[s.b]->data() + base + bytes_a,
                  pools[s.c]->data() + base + bytes_a + bytes_b, 1.0f, 0.0f};
      for (int t = 0; t < s.num_d; ++t) a.d[t] = pools[s.c]->data() + base + bytes_a + bytes_b + bytes_c * (1 + t);
      return a;
    };
    for (const auto& k : j.kernels) {
      if (o.time_budget_s > 0 && elapsed() > o.time_budget_s) {
        out_of_time = true;
        break;
      }
      tuning::measurement m;
      m.machine = machine;
      m.problem_key = key;
      m.kernel = k->name();
      m.kernel_set = set.fingerprint;
      const std::size_t ws = k->workspace_bytes(p);
      if (workspace.size() < ws) workspace = buffer(dev, ws);
      try {
        auto t = time_launches(
            [&](int call) {
              auto a = args_of(call);
              a.workspace = workspace.data();
              a.workspace_bytes = workspace.size();
              if (auto st = k->run(p, a, nullptr); !st) throw std::runtime_error(st.message());
            },
            o.warmup, &k == &j.kernels.front() ? std::max(o.warm_ms, o.ramp_ms) : o.warm_ms, o.iters, o.target_ms);
        m.median_ms = t.median_ms;
        m.spread = t.spread;
        m.samples = t.samples;
      } catch (const std::exception& e) {
        m.error = e.what();
        ++failed;
        // A sticky CUDA error poisons every later launch: stop, keeping what was measured.
        if (device_poisoned()) {
          db.add(m);
          throw std::runtime_error(fmt::format("{} left the GPU in an error state ({}); {} measurements kept in {}",
                                               k->name(), e.what(), done, o.db));
        }
      }
      db.add(m);
      ++done;
      const double t = elapsed(), rate = done / std::max(t, 1e-9);
      if (done % 8 == 0 || done == total)
        fmt::print(stderr, "\rtune gemm {}/{} {:.1f}/s elapsed {} ETA {}  {}x{}x{} {:<40.40}", done, total, rate,
                   duration_text(t), duration_text((total - done) / rate), p.m, p.n, p.k, k->name());
    }
    if (out_of_time) break;
  }
  const double t = elapsed();
  fmt::print(stderr, "\n");
  fmt::print("tune gemm: {} measurements in {} ({:.1f}/s), {} failed, {} rows in {}{}\n", done, duration_text(t),
             done / std::max(t, 1e-9), failed, db.size(), o.db,
             out_of_time ? fmt::format("; time budget reached, {} left (run again to resume)", total - done) : "");
  return 0;
}

#endif  // KDECL_WITH_CUDA

}  // namespace

void add_tune_command(CLI::App& app, command_state& state) {
  auto* cmd = app.add_subcommand("tune", "time every eligible kernel per problem into a tuning database (SQLite); "
                                         "--export/--import move databases as JSON lines");
  auto o = std::make_shared<tune::tune_options>();
  cmd->add_option("op", o->op, "operation: gemm, conv or fmha");
  cmd->add_option("--problems", o->problems,
                  "CSVs of problems: gemm m,n,k[,batch] or benchmarks/shapes/gemm_*.csv; conv benchmarks/shapes/conv_*.csv; "
                  "fmha benchmarks/shapes/fmha_*.csv")
      ->expected(1, -1);
  cmd->add_option("--kernels", o->kernels, "filter of candidate kernels (as kdecl list --filter)");
  cmd->add_option("--db", o->db, "tuning database (SQLite), created when absent")->capture_default_str();
  cmd->add_option("--export", o->export_path, "write the database as JSON lines to this file");
  cmd->add_option("--import", o->import_path, "add the rows of a JSON-lines export to the database");
  cmd->add_option("--dtype", o->dtype, "dtype of problems whose row names none (fmha: a comma-separated list)")
      ->capture_default_str();
  cmd->add_option("--layout", o->layout, "gemm: layout of problems whose row names none")->capture_default_str();
  cmd->add_option("--directions", o->directions, "conv: fwd, bwd_data, bwd_weight (comma-separated) or all")
      ->capture_default_str();
  cmd->add_option("--batches", o->batches, "conv: batch sizes, each replacing the files' n (default: as listed)")
      ->expected(1, -1)
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20));
  cmd->add_option("--commit", o->commit, "kdecl commit recorded with each row (default: $KDECL_COMMIT)");
  cmd->add_option("--warmup", o->warmup, "warm-up launches per kernel")->capture_default_str()->check(CLI::Range(1, 1000));
  cmd->add_option("--warm-ms", o->warm_ms, "and at least this much GPU time of warm-up per kernel")->capture_default_str();
  cmd->add_option("--ramp-ms", o->ramp_ms, "warm-up GPU time before each problem's first kernel (clocks ramp up)")
      ->capture_default_str();
  cmd->add_option("--iters", o->iters, "most timed launches per kernel")->capture_default_str()->check(CLI::Range(1, 10000));
  cmd->add_option("--target-ms", o->target_ms, "GPU time aimed at per kernel (fewer launches for slow kernels, at least 5)")
      ->capture_default_str();
  cmd->add_option("--time-budget", o->time_budget_s, "seconds after which no new measurement starts (0: none)")
      ->capture_default_str();
  cmd->callback([&state, o] {
    state.action = [o]() -> int {
      if (!o->export_path.empty() || !o->import_path.empty()) {
        if (!o->op.empty() || !o->problems.empty())
          throw std::invalid_argument("--export/--import take no operation or --problems");
        if (o->import_path.empty() && !std::filesystem::exists(o->db))
          throw std::invalid_argument(fmt::format("--db '{}' does not exist", o->db));
        tuning::tuning_db db(o->db, !o->export_path.empty() && o->import_path.empty());
        if (!o->import_path.empty()) {
          const std::size_t added = db.import_jsonl(o->import_path);  // before size(): argument order is unspecified
          fmt::print("imported {} new measurements from {} into {} ({} rows)\n", added, o->import_path, o->db,
                     db.size());
        }
        if (!o->export_path.empty())
          fmt::print("exported {} rows of {} to {}\n", db.export_jsonl(o->export_path), o->db, o->export_path);
        return 0;
      }
      if (o->op != "gemm" && o->op != "conv" && o->op != "fmha")
        throw std::invalid_argument(
            fmt::format("tune: operation '{}' is not supported (gemm, conv, fmha: the attention forward pass)", o->op));
      if (o->problems.empty()) throw std::invalid_argument(fmt::format("tune {} needs --problems FILE...", o->op));
      if (o->op == "conv") return run_tune_conv(*o);  // these check their flags before they need a GPU
      if (o->op == "fmha") return run_tune_fmha(*o);
#if KDECL_WITH_CUDA
      return run_tune(*o);
#else
      throw std::invalid_argument("tune needs the CUDA backend; this build has none");
#endif
    };
  });
}

}  // namespace kdecl::cli
