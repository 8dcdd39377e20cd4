#include "tune_fmha.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "kdecl/fmha/fmha_dispatcher.hpp"
#include "kdecl/tuning/fmha_problem_key.hpp"
#include "kdecl/tuning/fmha_selection_tiers.hpp"
#include "bench_tables.hpp"
#include "fmha_operands.hpp"
#include "kernel_filter.hpp"

namespace kdecl::cli {
namespace {

using namespace tune;

struct fmha_tuning_problem {
  fmha_problem problem;  // normalized
  std::string key;
  std::vector<tuning::problem_source> sources;
};

std::vector<fmha_tuning_problem> problems_of(const tune_options& o) {
  std::vector<dtype> dtypes;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= o.dtype.size(); ++i)
    if (i == o.dtype.size() || o.dtype[i] == ',') {
      const std::string name = o.dtype.substr(start, i - start);
      start = i + 1;
      auto d = parse<dtype>(name);
      if (!d) throw std::invalid_argument(fmt::format("--dtype '{}': '{}' is not a known dtype", o.dtype, name));
      dtypes.push_back(*d);
    }
  std::vector<fmha_tuning_problem> out;
  std::map<std::string, std::size_t> index;
  for (auto d : dtypes)
    for (const auto& file : o.problems)
      for (const auto& row : read_fmha_rows(file, d)) {
        const std::string key = tuning::problem_key(row.problem);
        auto [it, fresh] = index.emplace(key, out.size());
        if (fresh) out.push_back({row.problem, key, {}});
        out[it->second].sources.push_back({key, row.name, row.file, row.source});
      }
  if (out.empty()) throw std::invalid_argument("--problems lists no attention problem");
  return out;
}

#if KDECL_WITH_CUDA

int tune_on_gpu(const tune_options& o, const std::vector<fmha_tuning_problem>& problems) {
  device dev = default_device();
  if (dev.kind() != backend::cuda)
    throw std::invalid_argument("tune needs a CUDA GPU with a kernel table; none was found");  // as bench: exit 2
  const auto machine = machine_of(dev, commit_of(o));
  tuning::tuning_db db(o.db);
  std::vector<std::string> arch_kernels;
  const std::string fingerprint = tuning::registered_fmha_kernel_set(registry::global(), dev.arch, &arch_kernels);
  db.add_kernel_set({fingerprint, machine.arch, arch_kernels});

  kernel_filter keep(o.kernels);
  registry candidates;
  for (const auto& k : registry::global().filter([&](const registered_kernel& k) { return keep.matches(fields_of(k)); }))
    candidates.add(k.instance, k.set);
  fmha_dispatcher disp(dev, candidates);
  disp.clear_tiers();  // ranked() lists every eligible kernel whatever the tiers say

  struct job {
    std::size_t problem;
    std::vector<std::shared_ptr<const fmha_instance>> kernels;
  };
  std::vector<job> jobs;
  std::size_t total = 0, already = 0;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    for (const auto& s : problems[i].sources) db.add_source(s);
    job j{i, {}};
    for (auto& [k, est] : disp.ranked(problems[i].problem)) {
      (void)est;
      if (db.has(machine.device_name, problems[i].key, k->name())) ++already;
      else j.kernels.push_back(k);
    }
    total += j.kernels.size();
    if (!j.kernels.empty()) jobs.push_back(std::move(j));
  }
  fmt::print(stderr, "tune fmha on {} ({}, {} SMs, {} MHz): {} problems, {} measurements to take, {} already in {}\n",
             machine.device_name, machine.arch, machine.sm_count, machine.sm_clock_mhz, problems.size(), total, already,
             o.db);

  const std::size_t l2 = l2_bytes(dev);
  buffer workspace(dev, 0);
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::size_t done = 0, failed = 0;
  bool out_of_time = false;
  for (const auto& j : jobs) {
    const fmha_problem& p = problems[j.problem].problem;
    auto ops = make_operands(dev, p, l2);
    for (const auto& k : j.kernels) {
      if (o.time_budget_s > 0 && elapsed() > o.time_budget_s) {
        out_of_time = true;
        break;
      }
      tuning::measurement m;
      m.machine = machine;
      m.op = "fmha";
      m.problem_key = problems[j.problem].key;
      m.kernel = k->name();
      m.kernel_set = fingerprint;
      const std::size_t ws = k->workspace_bytes(p);
      if (workspace.size() < ws) workspace = buffer(dev, ws);
      try {
        auto t = time_launches(
            [&](int call) {
              auto a = ops.args(std::size_t(call));
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
        fmt::print(stderr, "\rtune fmha {}/{} {:.1f}/s elapsed {} ETA {}  {:<50.50}", done, total, rate,
                   duration_text(t), duration_text((total - done) / rate), k->name());
    }
    if (out_of_time) break;
  }
  const double t = elapsed();
  fmt::print(stderr, "\n");
  fmt::print("tune fmha: {} measurements in {} ({:.1f}/s), {} failed, {} rows in {}{}\n", done, duration_text(t),
             done / std::max(t, 1e-9), failed, db.size(), o.db,
             out_of_time ? fmt::format("; time budget reached, {} left (run again to resume)", total - done) : "");
  return 0;
}

#endif  // KDECL_WITH_CUDA

}  // namespace

int run_tune_fmha(const tune_options& o) {
  const auto problems = problems_of(o);
#if KDECL_WITH_CUDA
  return tune_on_gpu(o, problems);
#else
  throw std::invalid_argument(fmt::format("tune needs the CUDA backend; this build has none ({} attention problems read)",
                                          problems.size()));
#endif
}

}  // namespace kdecl::cli
