// Registration and selection cost with 10,000 registered instances.
//
// The 10,000 kernels are registered during static initialisation, through the
// same registry::add() path the DECL_KERNEL_SET registrars use, with real,
// distinct keys (fp16/bf16, four layouts, tiles, stages, epilogues, padding,
// access widths, for sm_90). Their instance class is a timing double whose
// run() does nothing: compiling 10,000 real kernels would measure the compiler,
// not the registry. Then select() is timed over distinct problems (no reuse).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kdecl/gemm/gemm_dispatcher.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

class timing_double final : public kdecl::gemm_instance {
 public:
  explicit timing_double(const kdecl::gemm_key& k) : gemm_instance(k) {}
  std::optional<std::string> why_not(const kdecl::gemm_problem&, const kdecl::gemm_args&) const override {
    return std::nullopt;
  }
  kdecl::status run(const kdecl::gemm_problem&, const kdecl::gemm_args&, void*) const override {
    return kdecl::status::ok();
  }
  std::size_t workspace_bytes(const kdecl::gemm_problem&) const override { return 0; }
};

std::vector<kdecl::gemm_key> ten_thousand_keys() {
  using namespace kdecl;
  std::vector<gemm_key> keys;
  // Signature (dtype, layout) innermost, so all eight signatures get 1,250 kernels each.
  for (int tm : {64, 128, 192, 256})
    for (int tn : {64, 128, 192, 256})
      for (int tk : {32, 64})
        for (int stages = 2; stages <= 6; ++stages)
          for (epilogue e : {epilogue::direct, epilogue::cshuffle})
            for (int vb : {16, 8, 4})
              for (tristate pad : {tristate::no, tristate::yes})
                for (dtype d : {dtype::fp16, dtype::bf16})
                  for (gemm_layout l : {rcr, rrr, crr, ccr}) {
                    if (keys.size() == 10000) return keys;
                    gemm_key k;
                    k.sig.a = k.sig.b = k.sig.c = k.sig.compute = d;
                    k.sig.acc = dtype::fp32;
                    k.sig.lay = l;
                    k.algo.tile = {tm, tn, tk};
                    k.algo.warps = {2, 2, 1};
                    k.algo.warp_tile = {32, 32, 16};
                    k.algo.pipe = pipeline::cp_async;
                    k.algo.stages = stages;
                    k.algo.epi = e;
                    k.algo.sched = scheduler::intrawave;
                    k.algo.vector_bytes = vb;
                    k.algo.pad_m = k.algo.pad_n = k.algo.pad_k = pad;
                    k.algo.arch = arch_id::sm_90;
                    keys.push_back(k);
                  }
  return keys;
}

// Registered before main, like any declared set; the clock brackets the registrations only.
struct static_registration {
  double milliseconds = 0;
  std::size_t count = 0;
  static_registration() {
    auto keys = ten_thousand_keys();
    auto t0 = clock_type::now();
    for (const auto& k : keys) kdecl::registry::global().add(std::make_shared<timing_double>(k), "bench_10k");
    milliseconds = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
    count = keys.size();
  }
} registration;

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kdecl;
  const std::size_t registered = registry::global().size();
  gemm_dispatcher dispatcher(device{arch_id::sm_90, 0, "sm_90 (timing doubles)"});

  // Index build (first select) counted separately: it happens once per registry change.
  auto t0 = clock_type::now();
  (void)dispatcher.select(gemm_problem{}.sizes(64, 64, 64).dtype(dtype::fp16).layout(rcr));
  const double index_ms = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();

  std::vector<double> us;
  const gemm_layout lays[] = {rcr, rrr, crr, ccr};
  for (int i = 0; i < 20000; ++i) {
    auto p = gemm_problem{}
                 .sizes(64 + 8 * (i % 997), 64 + 8 * ((i * 7) % 991), 64 + 8 * ((i * 13) % 983))
                 .dtype(i % 2 ? dtype::fp16 : dtype::bf16)
                 .layout(lays[i % 4]);
    auto a = clock_type::now();
    auto sel = dispatcher.select(p);
    us.push_back(std::chrono::duration<double, std::micro>(clock_type::now() - a).count());
    if (!sel) {
      std::fprintf(stderr, "selection failed: %s\n", sel.explain().c_str());
      return 1;
    }
  }
  const double med = median(us);
  std::sort(us.begin(), us.end());
  const double p99 = us[us.size() * 99 / 100];
  fmt::print("registered {} instances in {:.2f} ms (static initialisation)\n", registration.count,
             registration.milliseconds);
  fmt::print("dispatcher index build: {:.2f} ms (once per registry change)\n", index_ms);
  fmt::print("select() among {} kernels ({} per signature bucket): median {:.2f} us, p99 {:.2f} us over {} distinct problems\n",
             registered, registered / 8, med, p99, us.size());
  if (argc > 1) {
    nlohmann::json j{{"instances", registration.count}, {"registration_ms", registration.milliseconds},
                     {"index_build_ms", index_ms}, {"select_median_us", med}, {"select_p99_us", p99},
                     {"problems", us.size()}};
    std::ofstream(argv[1]) << j.dump(2) << "\n";
  }
  return registration.milliseconds < 20.0 && med < 5.0 ? 0 : 1;
}
