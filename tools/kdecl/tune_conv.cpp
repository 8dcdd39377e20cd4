#include "tune_conv.hpp"

#include <algorithm>
#include <chrono>
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

// One distinct problem and the layers it stands for.
struct conv_tuning_problem {
  grouped_conv_problem problem;  // normalized
  std::string key;
  std::vector<tuning::problem_source> sources;
};

std::vector<conv_tuning_problem> problems_of(const tune_options& o) {
  auto dt = parse<dtype>(o.dtype);
  if (!dt) throw std::invalid_argument(fmt::format("--dtype '{}' is not a known dtype", o.dtype));
  const auto directions = parse_directions(o.directions);
  std::vector<conv_tuning_problem> out;
  std::map<std::string, std::size_t> index;
  for (const auto& file : o.problems) {
    const auto layers = read_conv_layers(file, grouped_conv_problem{}.dtype(*dt));
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
  device dev = default_device();
  if (dev.kind() != backend::cuda)
    throw std::invalid_argument("tune needs a CUDA GPU with a kernel table; none was found");  // as bench: exit 2
  const auto machine = machine_of(dev, commit_of(o));
  tuning::tuning_db db(o.db);

  // The kernel set of this arch (every registered convolution kernel, before --kernels).
  std::vector<std::string> arch_kernels;
  const std::string fingerprint = tuning::registered_conv_kernel_set(registry::global(), dev.arch, &arch_kernels);
  db.add_kernel_set({fingerprint, machine.arch, arch_kernels});

  kernel_filter keep(o.kernels);
  registry candidates;
  for (const auto& k : registry::global().filter([&](const registered_kernel& k) { return keep.matches(fields_of(k)); }))
    candidates.add(k.instance, k.set);
  conv_dispatcher disp(dev, candidates);
  disp.clear_tiers();  // ranked() lists every eligible kernel whatever the tiers say

  struct job {
    std::size_t problem;
    std::vector<std::shared_ptr<const conv_instance>> kernels;
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
  fmt::print(stderr, "tune conv on {} ({}, {} SMs, {} MHz): {} problems, {} measurements to take, {} already in {}\n",
             machine.device_name, machine.arch, machine.sm_count, machine.sm_clock_mhz, problems.size(), total, already,
             o.db);

  const std::size_t l2 = l2_bytes(dev);
  std::map<dtype, std::unique_ptr<operand_pool>> pools;
  buffer workspace(dev, 0);
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::size_t done = 0, failed = 0;
  bool out_of_time = false;
  for (const auto& j : jobs) {
    const grouped_conv_problem& p = problems[j.problem].problem;
    // Operand sets: input, weight and output of one set at 256-byte boundaries, in their dtypes.
    auto round = [](std::size_t b) { return (b + 255) / 256 * 256; };
    const conv_tensor tensors[] = {conv_tensor::input, conv_tensor::weight, conv_tensor::output};
    std::size_t bytes[3], set_bytes = 0;
    for (int t = 0; t < 3; ++t) {
      bytes[t] = round(std::size_t(p.span(tensors[t])) * dtype_size_bytes(p.dtype_of(tensors[t])));
      set_bytes += bytes[t];
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
    auto args_of = [&](int call) {
      const std::size_t base = std::size_t(call % int(sets)) * set_bytes;
      grouped_conv_args a;
      a.in = pools[p.in_type]->data() + base;
      a.wei = pools[p.wei_type]->data() + base + bytes[0];
      a.out = pools[p.out_type]->data() + base + bytes[0] + bytes[1];
      return a;
    };
    for (const auto& k : j.kernels) {
      if (o.time_budget_s > 0 && elapsed() > o.time_budget_s) {
        out_of_time = true;
        break;
      }
      tuning::measurement m;
      m.machine = machine;
      m.op = "conv";
      m.problem_key = problems[j.problem].key;
      m.kernel = k->name();
      m.kernel_set = fingerprint;
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
        fmt::print(stderr, "\rtune conv {}/{} {:.1f}/s elapsed {} ETA {}  {} {:<40.40}", done, total, rate,
                   duration_text(t), duration_text((total - done) / rate), to_string(p.dir), k->name());
    }
    if (out_of_time) break;
  }
  const double t = elapsed();
  fmt::print(stderr, "\n");
  fmt::print("tune conv: {} measurements in {} ({:.1f}/s), {} failed, {} rows in {}{}\n", done, duration_text(t),
             done / std::max(t, 1e-9), failed, db.size(), o.db,
             out_of_time ? fmt::format("; time budget reached, {} left (run again to resume)", total - done) : "");
  return 0;
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
