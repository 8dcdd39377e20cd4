// 16 threads select and run host GEMMs on one dispatcher while another thread
// registers a new kernel set; built with -fsanitize=thread (see CMakeLists.txt),
// where any data race is a report and fails the test.
//
// What it exercises: the registry's shared_mutex (lookups and listings while an
// add() takes it exclusively), the dispatcher's index rebuilt when
// registry::generation() moves, its shared snapshot of that index (select,
// ranked, the explaining path), and the host backend's thread pool used by many
// callers at once. Every run's result is compared with the
// reference computed beforehand, and bf16 problems, which only the late set can
// run, must run once it is registered.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kdecl/declare.hpp"
#include "kdecl/gemm/gemm_dispatcher.hpp"
#include "kdecl/numeric/fill.hpp"
#include "kdecl/reference/gemm_reference.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto small_host = gemm().pipeline(host_blocked).warp_tile(4, 8, 1);
}  // namespace

// Registered before main(): fp32 and fp16 kernels.
DECL_KERNEL_SET(concurrency_early_set,
    targets(host),
    small_host.tile(16, 32, 16).dtype(fp32).layout(rcr),
    small_host.tile(16, 32, 16).dtype(fp16).layout(rcr),
    small_host.tile(16, 32, 16).dtype(fp16).layout(crr).multi_d(gelu, 1));

// Registered while the workers run: other fp32 tiles (selection may change to
// them) and the only bf16 kernels.
namespace {
constexpr auto late_set = [] {
  using namespace kdecl::dsl;
  return kernel_set(targets(host),
                    small_host.tile(32, 16, 8).dtype(fp32).layout(rcr),
                    small_host.tile(8, 8, 32).dtype(fp32).layout(rcr),
                    small_host.tile(16, 16, 16).dtype(bf16).layout(rcr));
}();
}  // namespace

namespace kdecl {
namespace {

// One problem, its inputs and its reference, made before the threads start.
struct prepared {
  gemm_problem problem;  // normalized
  std::vector<unsigned char> a, b;
  std::vector<std::vector<unsigned char>> d;
  std::vector<double> reference;
  std::size_t c_elements = 0;
};

prepared prepare(gemm_problem p, std::uint64_t seed) {
  prepared out;
  out.problem = p.normalized();
  const auto& q = out.problem;
  auto span = [&](std::int64_t stride, std::int64_t rows, std::int64_t ld) {
    return std::size_t((q.batch - 1) * stride + rows * ld);
  };
  auto make = [&](dtype d, std::size_t n, std::uint64_t s) {
    std::vector<unsigned char> v(n * dtype_size_bytes(d));
    numeric::fill_uniform(v.data(), d, n, s);
    return v;
  };
  out.a = make(q.sig.a, span(q.stride_a, q.rows_a(), q.lda), seed);
  out.b = make(q.sig.b, span(q.stride_b, q.rows_b(), q.ldb), seed + 1);
  for (int t = 0; t < q.sig.num_d; ++t) out.d.push_back(make(q.sig.c, span(q.stride_d, q.rows_c(), q.ldd), seed + 2 + t));
  out.c_elements = span(q.stride_c, q.rows_c(), q.ldc);
  gemm_args args{out.a.data(), out.b.data(), nullptr, 1.0f, 0.0f};
  for (int t = 0; t < q.sig.num_d; ++t) args.d[std::size_t(t)] = out.d[std::size_t(t)].data();
  out.reference = reference::gemm(q, args);
  return out;
}

TEST(Concurrency, SixteenThreadsDispatchWhileASetIsRegistered) {
  std::vector<prepared> problems;
  problems.push_back(prepare(gemm_problem{}.sizes(37, 45, 29).dtype(dtype::fp32).layout(rcr), 1));
  problems.push_back(prepare(gemm_problem{}.sizes(64, 32, 48).batched(2).dtype(dtype::fp32).layout(rcr), 2));
  problems.push_back(prepare(gemm_problem{}.sizes(17, 70, 33).dtype(dtype::fp16).layout(rcr), 3));
  problems.push_back(prepare(gemm_problem{}.sizes(40, 24, 20).dtype(dtype::fp16).layout(crr).multi_d(elementwise::gelu, 1), 4));
  const std::size_t first_late = problems.size();
  problems.push_back(prepare(gemm_problem{}.sizes(33, 21, 40).dtype(dtype::bf16).layout(rcr), 5));  // late kernels only

  const gemm_dispatcher dispatcher(device::host());
  constexpr int workers = 16, runs_per_worker = 64;
  std::atomic<bool> registered{false};
  std::atomic<int> started{0}, late_runs_after_registration{0};
  std::vector<std::string> errors(workers);

  auto worker = [&](int id) {
    std::mt19937 pick{unsigned(id)};
    started.fetch_add(1);
    for (int run = 0; run < runs_per_worker && errors[id].empty(); ++run) {
      const std::size_t which = pick() % problems.size();
      const prepared& pr = problems[which];
      const bool late = which >= first_late;
      const bool must_run = !late || registered.load(std::memory_order_acquire);  // read before selecting
      std::vector<unsigned char> c(pr.c_elements * dtype_size_bytes(pr.problem.sig.c));
      numeric::poison(c.data(), pr.problem.sig.c, pr.c_elements);
      gemm_args args{pr.a.data(), pr.b.data(), c.data(), 1.0f, 0.0f};
      for (int t = 0; t < pr.problem.sig.num_d; ++t) args.d[std::size_t(t)] = pr.d[std::size_t(t)].data();
      if (run % 4 == 3) {  // the other readers: ranking, the slow explaining path, the registry's listings
        (void)dispatcher.ranked(pr.problem);
        (void)dispatcher.select(pr.problem, nullptr, /*explain_all=*/true).explain();
        (void)registry::global().filter([](const registered_kernel& k) { return k.set == "concurrency_late_set"; });
      }
      const auto st = dispatcher.run(pr.problem, args);
      if (!st) {
        if (must_run) errors[id] = "problem " + std::to_string(which) + " did not run: " + st.message();
        continue;
      }
      const double err = reference::relative_error(pr.problem, c.data(), pr.reference);
      if (!reference::passes(err, reference::tolerance(pr.problem.sig)))
        errors[id] = "problem " + std::to_string(which) + ": error " + std::to_string(err);
      if (late && must_run) late_runs_after_registration.fetch_add(1);
    }
  };

  std::vector<std::thread> threads;
  for (int i = 0; i < workers; ++i) threads.emplace_back(worker, i);
  std::thread registrar([&] {
    while (started.load() < workers / 2) std::this_thread::yield();  // register while dispatching
    const kdecl::detail::set_registrar<late_set> add("concurrency_late_set");
    registered.store(true, std::memory_order_release);
  });
  registrar.join();
  for (auto& t : threads) t.join();

  for (int i = 0; i < workers; ++i) EXPECT_TRUE(errors[i].empty()) << "worker " << i << ": " << errors[i];
  // After the threads: the late kernels are there and chosen for what only they run.
  const auto sel = dispatcher.select(problems[first_late].problem);
  ASSERT_TRUE(sel) << sel.explain();
  EXPECT_NE(sel.kernel->name().find("bf16"), std::string::npos);
  EXPECT_EQ(registry::global().set_names().size(), 2u);
  EXPECT_TRUE(registry::global().check().is_ok()) << registry::global().check().message();
  std::printf("late-set runs after its registration: %d\n", late_runs_after_registration.load());
}

}  // namespace
}  // namespace kdecl
