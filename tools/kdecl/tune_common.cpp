#include "tune_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>

#include "kdecl/numeric/fill.hpp"
#include "bench_timing.hpp"
#include "kernel_filter.hpp"

#if KDECL_WITH_CUDA
#include <cuda_runtime.h>
#endif

namespace kdecl::cli::tune {

std::string duration_text(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  if (s < 60) return fmt::format("{:.0f}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", int(s) / 60, int(s) % 60);
  return fmt::format("{}h{:02}m", int(s) / 3600, (int(s) % 3600) / 60);
}

std::string commit_of(const tune_options& o) {
  if (!o.commit.empty()) return o.commit;
  const char* env = std::getenv("KDECL_COMMIT");
  return env ? env : "unknown";
}

std::pair<int, int> parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  auto number = [&](const std::string& part) -> long {
    if (part.empty() || part.size() > 6 || part.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument(fmt::format("--shard '{}' is not I/N (two whole numbers, e.g. 0/2)", text));
    return std::stol(part);
  };
  if (slash == std::string::npos)
    throw std::invalid_argument(fmt::format("--shard '{}' is not I/N (two whole numbers, e.g. 0/2)", text));
  const long i = number(text.substr(0, slash)), n = number(text.substr(slash + 1));
  if (n < 1) throw std::invalid_argument(fmt::format("--shard '{}': N must be at least 1", text));
  if (i >= n) throw std::invalid_argument(fmt::format("--shard '{}': I must be below N (shards 0 to {})", text, n - 1));
  return {int(i), int(n)};
}

#if KDECL_WITH_CUDA

namespace {

void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(fmt::format("{}: {}", what, cudaGetErrorString(e)));
}

}  // namespace

operand_pool::operand_pool(const device& dev, std::size_t bytes, dtype d) : buf_(dev, bytes) {
  // A 16 MiB random block, repeated: the values only need to be ordinary numbers.
  const std::size_t block = std::min<std::size_t>(bytes, 16u << 20);
  const std::size_t elems = block / dtype_size_bytes(d);
  std::vector<unsigned char> host(block);
  numeric::fill_uniform(host.data(), d, elems, 12345);
  for (std::size_t off = 0; off < bytes; off += block)
    cuda_check(cudaMemcpy(static_cast<char*>(buf_.data()) + off, host.data(), std::min(block, bytes - off),
                          cudaMemcpyHostToDevice),
               "filling operands");
}

// The benchmark method of docs/perf/ (and `kdecl bench`, whose timing loop this is):
// warm-up, then launches timed one by one with CUDA events queued back to back, median.
// Warm-up is at least `warm_ms` of GPU time (ramp_up) and then `warmup` launches, the
// last of them timed to choose the number of timed launches: five launches of a 10-us
// kernel would leave the SM clock where the host-side setup before it let it fall (the
// first H100 tuning run, 2026-11-23, measured one shape 2-5x slower in bf16 than in fp16
// that way).
timing time_launches(const std::function<void(int)>& launch, int warmup, double warm_ms, int max_iters,
                     double target_ms, double retry_spread, int retries) {
  cli::ramp_up(true, launch, warm_ms);
  const double one = cli::median_ms(true, launch, warmup - 1, 1);
  const int iters = std::clamp(int(target_ms / std::max(one, 1e-3)), std::min(5, max_iters), max_iters);
  auto attempt = [&] {
    const std::vector<float> ms = cli::launch_times_ms(true, launch, 0, iters);
    timing t;
    t.samples = iters;
    t.median_ms = ms[std::size_t(iters / 2)];
    t.spread = (ms[std::size_t(std::min((iters * 9) / 10, iters - 1))] - ms[std::size_t(iters / 10)]) / t.median_ms;
    return t;
  };
  // A noisy attempt (a clock or power excursion during the launches: 12% of the first H100
  // GEMM tuning rows had a spread over 10%, up to 17% on 1-ms kernels, and one noisy median
  // can decide a problem's ranking labels) is timed again; the lowest median is what the
  // kernel does when the GPU runs at its clocks.
  timing best = attempt();
  bool noisy = retry_spread > 0 && best.spread > retry_spread;
  for (int r = 0; noisy && r < retries; ++r) {
    const timing t = attempt();
    if (t.median_ms < best.median_ms) best = t;
    noisy = t.spread > retry_spread;
  }
  return best;
}

tuning::machine_info machine_of(const device& dev, const std::string& commit) {
  cudaDeviceProp prop{};
  cuda_check(cudaGetDeviceProperties(&prop, dev.ordinal), "device properties");
  tuning::machine_info m;
  m.device_name = prop.name;
  m.arch = std::string(to_string(dev.arch));
  m.sm_count = prop.multiProcessorCount;
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev.ordinal) == cudaSuccess) m.sm_clock_mhz = khz / 1000;
  cudaGetLastError();
  // As available_devices() read it: the clock rows record is the one a dispatcher ranks with.
  m.memory_clock_mhz = dev.memory_clock_mhz;
  int v = 0;
  cudaDriverGetVersion(&v);
  m.driver_version = fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
  cudaRuntimeGetVersion(&v);
  m.cuda_version = fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
  m.kdecl_commit = commit;
  return m;
}

std::size_t l2_bytes(const device& dev) {
  cudaDeviceProp prop{};
  cuda_check(cudaGetDeviceProperties(&prop, dev.ordinal), "device properties");
  return std::size_t(prop.l2CacheSize);
}

bool device_poisoned() {
  cudaDeviceSynchronize();
  return cudaGetLastError() != cudaSuccess && cudaDeviceSynchronize() != cudaSuccess;
}

tuning_run open_run(const tune_options& o,
                    const std::function<std::string(arch_id, std::vector<std::string>*)>& kernel_set) {
  tuning_run r;
  r.dev = default_device();
  if (r.dev.kind() != backend::cuda)
    throw std::invalid_argument("tune needs a CUDA GPU with a kernel table; none was found");  // as bench: exit 2
  r.machine = machine_of(r.dev, commit_of(o));
  r.db = std::make_unique<tuning::tuning_db>(o.db);
  // Every registered kernel of the op and arch, before --kernels: a model trained on
  // these rows is only used with the same set.
  std::vector<std::string> names;
  r.fingerprint = kernel_set(r.dev.arch, &names);
  r.db->add_kernel_set({r.fingerprint, r.machine.arch, names});
  r.candidates = registry_matching(o.kernels);
  return r;
}

void print_plan(const std::string& op, const tuning_run& run, const std::string& problems, std::size_t total,
                std::size_t already, const tune_options& o) {
  const auto& m = run.machine;
  const std::string shard = o.shards > 1 ? fmt::format(", shard {}/{}", o.shard, o.shards) : "";
  fmt::print(stderr, "tune {} on {} ({}, {} SMs, {} MHz): {}{}, {} measurements to take, {} already in {}\n", op,
             m.device_name, m.arch, m.sm_count, m.sm_clock_mhz, problems, shard, total, already, o.db);
}

#endif  // KDECL_WITH_CUDA

}  // namespace kdecl::cli::tune
