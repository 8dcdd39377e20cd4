#include "tune_conv.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "kdecl/conv/conv_dispatcher.hpp"
#include "kdecl/numeric/host_storage.hpp"
#include "kdecl/tuning/conv_problem_key.hpp"
#include "kdecl/tuning/conv_selection_tiers.hpp"
#include "conv_options.hpp"
#include "kernel_filter.hpp"

namespace kdecl::cli {
namespace {

using namespace tune;

using conv_tuning_problem = tuning_problem<grouped_conv_problem>;

std::vector<conv_tuning_problem> problems_of(const tune_options& o) {
  auto dt = parse<dtype>(o.dtype);
  if (!dt) throw std::invalid_argument(fmt::format("--dtype '{}' is not a known dtype", o.dtype));
  grouped_conv_problem base = grouped_conv_problem{}.dtype(*dt);
  if (!o.compute.empty()) {
    auto c = parse<dtype>(o.compute);
    if (!c) throw std::invalid_argument(fmt::format("--compute '{}' is not a known dtype", o.compute));
    base.compute(*c);
  }
  const auto directions = parse_directions(o.directions);
  std::vector<conv_tuning_problem> out;
  std::map<std::string, std::size_t> index;
  for (const auto& file : o.problems) {
    const auto layers = read_conv_layers(file, base);
    for (auto d : directions)
      for (const auto& l : layers)
        for (std::size_t b = 0; b < std::max<std::size_t>(1, o.batches.size()); ++b) {
          grouped_conv_problem p = l.problem;
          p.direction(d);
          if (!o.batches.empty()) p.batch(o.batches[b]);
          if (auto e = p.validate())
            throw std::invalid_argument(fmt::format("{}: layer {} of {}: {}", file, l.layer, l.network, *e));
          p = p.normalized();
          const std::string key = tuning::problem_key(p);
          auto [it, fresh] = index.emplace(key, out.size());
          if (fresh) out.push_back({p, key, {}});
          out[it->second].sources.push_back({key, l.network, l.layer, file});
        }
  }
  if (out.empty()) throw std::invalid_argument("--problems lists no layer");
  return out;
}

#if KDECL_WITH_CUDA

int tune_on_gpu(const tune_options& o, const std::vector<conv_tuning_problem>& problems) {
  auto run = open_run(o, [](arch_id arch, std::vector<std::string>* names) {
    return tuning::registered_conv_kernel_set(registry::global(), arch, names);
  });
  const device& dev = run.dev;
  conv_dispatcher disp(dev, *run.candidates);
  disp.clear_tiers();  // ranked() lists every eligible kernel whatever the tiers say
  std::size_t total = 0, already = 0;
  const auto jobs = list_jobs(disp, problems, *run.db, run.machine, o, total, already);
  print_plan("conv", run, fmt::format("{} problems", problems.size()), total, already, o);

  const std::size_t l2 = l2_bytes(dev);
  std::map<dtype, std::unique_ptr<operand_pool>> pools;
  auto prepare = [&](const grouped_conv_problem& p) -> launcher<conv_instance> {
    // Operand sets: input, weight and output of one set at 256-byte boundaries, in their dtypes.
    auto round = [](std::size_t b) { return (b + 255) / 256 * 256; };
    const conv_tensor tensors[] = {conv_tensor::input, conv_tensor::weight, conv_tensor::output};
    std::array<std::size_t, 3> bytes{};
    std::size_t set_bytes = 0;
    for (int t = 0; t < 3; ++t) {
      bytes[std::size_t(t)] = round(std::size_t(p.span(tensors[t])) * dtype_size_bytes(p.dtype_of(tensors[t])));
      set_bytes += bytes[std::size_t(t)];
    }
    const std::size_t sets = std::clamp<std::size_t>((2 * l2 + set_bytes - 1) / set_bytes + 1, 1, 64);
    const std::size_t need = sets * set_bytes;
    for (auto t : tensors) {
      auto& pool = pools[p.dtype_of(t)];
      if (!pool || pool->size() < need) {
        pool.reset();
        pool = std::make_unique<operand_pool>(dev, std::max<std::size_t>(need, 4 * l2), p.dtype_of(t));
      }
    }
    char* in = pools[p.in_type]->data();
    char* wei = pools[p.wei_type]->data() + bytes[0];
    char* out = pools[p.out_type]->data() + bytes[0] + bytes[1];
    return [&p, in, wei, out, sets, set_bytes](const conv_instance& k, int call, void* ws, std::size_t ws_bytes) {
      const std::size_t base = std::size_t(call % int(sets)) * set_bytes;
      grouped_conv_args a;
      a.in = in + base;
      a.wei = wei + base;
      a.out = out + base;
      a.workspace = ws;
      a.workspace_bytes = ws_bytes;
      if (auto st = k.run(p, a, nullptr); !st) throw std::runtime_error(st.message());
    };
  };
  return measure_jobs("conv", o, dev, *run.db, run.machine, run.fingerprint, problems, jobs, total, prepare,
                      [](const grouped_conv_problem& p) { return std::string(to_string(p.dir)); });
}

#endif  // KDECL_WITH_CUDA

}  // namespace

int run_tune_conv(const tune_options& o) {
  const auto problems = problems_of(o);
#if KDECL_WITH_CUDA
  return tune_on_gpu(o, problems);
#else
  throw std::invalid_argument(fmt::format("tune needs the CUDA backend; this build has none ({} conv problems read)",
                                          problems.size()));
#endif
}

}  // namespace kdecl::cli
