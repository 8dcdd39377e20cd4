#include "tune_gemm.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "kdecl/gemm/gemm_dispatcher.hpp"
#include "kdecl/numeric/host_storage.hpp"
#include "kdecl/runtime/buffer.hpp"
#include "kdecl/tuning/problem_key.hpp"
#include "kdecl/tuning/problem_list.hpp"
#include "kdecl/tuning/selection_tiers.hpp"
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
  // Distinct problems in file order, each with the layers and networks it stands for.
  std::vector<tuning_problem<gemm_problem>> problems;
  std::map<std::string, std::size_t> index;
  std::size_t listed = 0;
  for (const auto& file : o.problems)
    for (auto& lp : tuning::read_problem_csv(file, *dt, tuning::parse_layout_code(o.layout))) {
      ++listed;
      const std::string key = tuning::problem_key(lp.problem);
      auto [it, fresh] = index.emplace(key, problems.size());
      if (fresh) problems.push_back({lp.problem, key, {}});
      if (!lp.model.empty() || !lp.layer.empty())
        problems[it->second].sources.push_back({key, lp.model, lp.layer, lp.source});
    }
  if (problems.empty()) throw std::invalid_argument("--problems lists no GEMM problem");
  auto run = open_run(o, [](arch_id arch, std::vector<std::string>* names) {
    return tuning::registered_kernel_set(registry::global(), arch, names);
  });
  const device& dev = run.dev;
  gemm_dispatcher disp(dev, *run.candidates);
  disp.clear_tiers();  // ranked() lists every eligible kernel whatever the tiers say
  std::size_t total = 0, already = 0;
  const auto jobs = list_jobs(disp, problems, *run.db, run.machine, o, total, already);
  print_plan("gemm", run, fmt::format("{} problems ({} distinct)", listed, problems.size()), total, already, o);

  const std::size_t l2 = l2_bytes(dev);
  std::map<dtype, std::unique_ptr<operand_pool>> pools;
  auto prepare = [&](const gemm_problem& p) -> launcher<gemm_instance> {
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
    char* a0 = pools[s.a]->data();
    char* b0 = pools[s.b]->data() + bytes_a;
    char* c0 = pools[s.c]->data() + bytes_a + bytes_b;
    return [&p, a0, b0, c0, bytes_c, sets, set_bytes](const gemm_instance& k, int call, void* ws, std::size_t ws_bytes) {
      const std::size_t base = std::size_t(call % int(sets)) * set_bytes;
      gemm_args a{a0 + base, b0 + base, c0 + base, 1.0f, 0.0f};
      for (int t = 0; t < p.sig.num_d; ++t) a.d[t] = c0 + base + bytes_c * std::size_t(1 + t);
      a.workspace = ws;
      a.workspace_bytes = ws_bytes;
      if (auto st = k.run(p, a, nullptr); !st) throw std::runtime_error(st.message());
    };
  };
  return measure_jobs("gemm", o, dev, *run.db, run.machine, run.fingerprint, problems, jobs, total, prepare,
                      [](const gemm_problem& p) { return fmt::format("{}x{}x{}", p.m, p.n, p.k); });
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
  cmd->add_option("--compute", o->compute, "conv: multiply precision, tf32 for fp32 problems (default: the dtype)");
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
  cmd->add_option("--retry-spread", o->retry_spread,
                  "time a kernel again while its spread ((P90 - P10) / median) exceeds this (0: never)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 10.0));
  cmd->add_option("--retries", o->retries, "most extra attempts of a noisy measurement; the lowest median is kept")
      ->capture_default_str()
      ->check(CLI::Range(0, 10));
  cmd->add_option("--confirm", o->confirm,
                  "after a problem is measured, time its N fastest kernels again in rounds of turns and keep those "
                  "medians (0: no confirmation; a problem is confirmed once)")
      ->capture_default_str()
      ->check(CLI::Range(0, 64));
  cmd->add_option("--confirm-rounds", o->confirm_rounds, "rounds of turns of a confirmation")
      ->capture_default_str()
      ->check(CLI::Range(1, 50));
  cmd->add_option("--confirm-within", o->confirm_within,
                  "confirm only kernels at least this fast relative to the problem's fastest (fastest / median)")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 1.0));
  cmd->add_option("--confirm-retry-spread", o->confirm_retry_spread,
                  "time a confirmation again (up to --retries times) while a kernel's spread exceeds this (0: never)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 10.0));
  cmd->add_option("--shard", o->shard_text,
                  "I/N: measure only the problems at positions I, I+N, I+2N, ... of the distinct list (one process "
                  "per GPU, each with its own --db; merge them with --import)");
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
      if (!o->shard_text.empty()) std::tie(o->shard, o->shards) = tune::parse_shard(o->shard_text);
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
