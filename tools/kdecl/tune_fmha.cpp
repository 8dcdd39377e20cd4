#include "tune_fmha.hpp"

#include <algorithm>
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

using fmha_tuning_problem = tuning_problem<fmha_problem>;

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
  auto run = open_run(o, [](arch_id arch, std::vector<std::string>* names) {
    return tuning::registered_fmha_kernel_set(registry::global(), arch, names);
  });
  const device& dev = run.dev;
  fmha_dispatcher disp(dev, *run.candidates);
  disp.clear_tiers();  // ranked() lists every eligible kernel whatever the tiers say
  std::size_t total = 0, already = 0;
  const auto jobs = list_jobs(disp, problems, *run.db, run.machine, o, total, already);
  print_plan("fmha", run, fmt::format("{} problems", problems.size()), total, already, o);

  const std::size_t l2 = l2_bytes(dev);
  std::shared_ptr<fmha_operands> ops;  // one problem's at a time
  auto prepare = [&](const fmha_problem& p) -> launcher<fmha_instance> {
    ops.reset();  // the last problem's memory first
    ops = std::make_shared<fmha_operands>(make_operands(dev, p, l2));
    return [&p, ops](const fmha_instance& k, int call, void* ws, std::size_t ws_bytes) {
      auto a = ops->args(std::size_t(call));
      a.workspace = ws;
      a.workspace_bytes = ws_bytes;
      if (auto st = k.run(p, a, nullptr); !st) throw std::runtime_error(st.message());
    };
  };
  return measure_jobs("fmha", o, dev, *run.db, run.machine, run.fingerprint, problems, jobs, total, prepare,
                      [](const fmha_problem& p) { return fmt::format("d{} sq{}", p.hdim_q, p.seqlen_q); });
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
