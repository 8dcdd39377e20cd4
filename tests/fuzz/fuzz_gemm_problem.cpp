// Fuzzes the GEMM problem builder and its validation, and what consumes a valid
// problem: normalization, the dispatcher's selection and ranking, the check's
// memory plan, and, for small problems, a run of the selected host kernel
// against the reference (which must pass: the kernels are correct).
//
// Invariants (a violation aborts, which libFuzzer reports as a crash):
//  - validate() never crashes, overflows or throws, and explains every refusal;
//  - a valid problem stays valid once normalized, and normalizing is idempotent;
//  - select() agrees with ranked(): both pick the same kernel, or none;
//  - plan_check() samples sorted, distinct rows within the problem;
//  - a small valid problem that a kernel takes runs, and every element of C is
//    within a bound that scales with the magnitudes it sums (rounding never
//    fails it, a wrong element does), exactly for integer C;
//  - run_and_check() plans and runs it without a sanitizer report, and passes
//    when C has enough elements for its Frobenius tolerance to be meaningful.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include <cmath>
#include <vector>

#include "kdecl/gemm/gemm_dispatcher.hpp"
#include "kdecl/kernels/gemm/preshuffle.hpp"
#include "kdecl/numeric/fill.hpp"
#include "kdecl/reference/gemm_reference.hpp"
#include "kdecl/runtime/gemm_check.hpp"

namespace {

using namespace kdecl;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_gemm_problem: invariant broken: %s\n", what.c_str());
  std::abort();
}

template <class E>
E pick(FuzzedDataProvider& in, bool allow_any = false) {
  for (;;) {
    const auto e = static_cast<E>(in.ConsumeIntegralInRange<std::size_t>(0, enum_count<E>() - 1));
    if (allow_any || to_string(e) != std::string_view("*")) return e;
    if (in.remaining_bytes() == 0) return static_cast<E>(0);
  }
}

// Sizes: mostly small (these run), sometimes large, huge or extreme.
std::int64_t size(FuzzedDataProvider& in, std::int64_t small_max = 24) {
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0: case 1: case 2: return in.ConsumeIntegralInRange<std::int64_t>(1, small_max);
    case 3: return in.ConsumeIntegralInRange<std::int64_t>(-3, 1 << 20);
    case 4: return std::int64_t{1} << in.ConsumeIntegralInRange<int>(0, 62);
    default: return in.ConsumeIntegral<std::int64_t>();
  }
}

// Leading dimensions and batch strides: packed (0) most of the time, or padded.
std::int64_t padded(FuzzedDataProvider& in, std::int64_t base) {
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: case 1: return 0;
    case 2: return base < 0 || base > (std::int64_t{1} << 62) ? base : base + in.ConsumeIntegralInRange<std::int64_t>(-2, 9);
    default: return size(in, 64);
  }
}

// a * b, saturated (the harness itself must not overflow on extreme sizes).
std::int64_t times(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<std::int64_t>::max() : r;
}

gemm_problem build(FuzzedDataProvider& in) {
  gemm_problem p;
  const std::int64_t m = size(in), n = size(in), k = size(in);
  p.sizes(m, n, k);
  if (in.ConsumeBool()) p.batched(in.ConsumeBool() ? in.ConsumeIntegralInRange<std::int64_t>(1, 3) : size(in));
  p.leading_dims(padded(in, k), padded(in, n), padded(in, n));
  if (in.ConsumeBool()) p.batch_strides(padded(in, times(m, k)), padded(in, times(k, n)), padded(in, times(m, n)));
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: p.dtype(pick<dtype>(in)); break;
    case 1: p.dtype(pick<dtype>(in)).dtypes(pick<dtype>(in), pick<dtype>(in), pick<dtype>(in)); break;
    case 2: p.dtype(dtype::fp32).compute(dtype::tf32); break;
    default:
      p.dtype(pick<dtype>(in, true)).dtypes(pick<dtype>(in, true), pick<dtype>(in, true), pick<dtype>(in, true));
      p.accumulator(pick<dtype>(in, true)).compute(pick<dtype>(in, true));
      break;
  }
  p.layout({pick<layout>(in), pick<layout>(in), pick<layout>(in)});
  switch (in.ConsumeIntegralInRange<int>(0, 4)) {
    case 0: p.preshuffled_b(); break;
    case 1: p.multi_d(pick<elementwise>(in), in.ConsumeIntegralInRange<int>(-1, 5), padded(in, n), padded(in, times(m, n))); break;
    case 2: p.sig.ew = pick<elementwise>(in); p.sig.num_d = in.ConsumeIntegralInRange<int>(0, 2); break;  // without the variant
    case 3: {  // block scales, packed or padded (or extreme), on whatever dtypes were drawn
      // Blocks of 128, rounded up without overflowing near INT64_MAX (k and n are drawn from the whole range).
      const std::int64_t kb = k > 0 ? k / 128 + (k % 128 != 0) : 1, nb = n > 0 ? n / 128 + (n % 128 != 0) : 1;
      p.block_scaled({padded(in, m), padded(in, kb), padded(in, times(m, kb)), padded(in, times(kb, nb))});
      break;
    }
    default: break;
  }
  return p;
}

bool same_shape(const gemm_problem& a, const gemm_problem& b) {
  return a.m == b.m && a.n == b.n && a.k == b.k && a.batch == b.batch && a.lda == b.lda && a.ldb == b.ldb &&
         a.ldc == b.ldc && a.ldd == b.ldd && a.stride_a == b.stride_a && a.stride_b == b.stride_b &&
         a.stride_c == b.stride_c && a.stride_d == b.stride_d && a.sig == b.sig && a.scales == b.scales;
}

std::string describe(const gemm_problem& p) {
  auto i = [](std::int64_t v) { return std::to_string(v); };
  return "m " + i(p.m) + " n " + i(p.n) + " k " + i(p.k) + " batch " + i(p.batch) + " ld " + i(p.lda) + "/" + i(p.ldb) +
         "/" + i(p.ldc) + "/" + i(p.ldd) + " strides " + i(p.stride_a) + "/" + i(p.stride_b) + "/" + i(p.stride_c) +
         "/" + i(p.stride_d);
}

// Runs `kernel` on random data and checks every element of C against the
// reference: |out - ref| <= tol * (mag + |ref|) + 1e-6, where mag is the
// reference computed from absolute values (before the elementwise op, which is
// 1.13-Lipschitz at most) and tol the check's tolerance for the signature; a
// rounding error is bounded by the magnitudes summed, whatever cancels, while
// a wrong or unwritten element is off by about its own magnitude. Integer C is exact.
void check_elements(const gemm_instance& kernel, const gemm_problem& q, float alpha, float beta, std::uint64_t seed) {
  const auto& s = q.sig;
  auto span = [&](std::int64_t stride, std::int64_t rows, std::int64_t ld) {
    return std::size_t((q.batch - 1) * stride + rows * ld);
  };
  const std::size_t na = span(q.stride_a, q.rows_a(), q.lda);
  const std::size_t nb = s.variant == gemm_variant::preshuffle
                             ? std::size_t((q.batch - 1) * q.stride_b + kernels::preshuffled_elements(q.k, q.n, bits_of(s.b)))
                             : span(q.stride_b, q.rows_b(), q.ldb);
  const std::size_t nc = span(q.stride_c, q.rows_c(), q.ldc), nd = span(q.stride_d, q.rows_c(), q.ldd);
  auto make = [&](dtype d, std::size_t n, std::uint64_t sd) {
    std::vector<unsigned char> v(n * dtype_size_bytes(d));
    numeric::fill_uniform(v.data(), d, n, sd);
    return v;
  };
  auto absolute = [](std::vector<unsigned char> v, dtype d, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) numeric::store_from_double(v.data(), d, i, std::fabs(numeric::load_as_double(v.data(), d, i)));
    return v;
  };
  auto a = make(s.a, na, seed), b = make(s.b, nb, seed + 1), c = make(s.c, nc, seed + 2);
  std::vector<std::vector<unsigned char>> d;
  for (int t = 0; t < s.num_d; ++t) d.push_back(make(s.c, nd, seed + 3 + std::uint64_t(t)));
  gemm_args args{a.data(), b.data(), c.data(), alpha, beta};
  for (int t = 0; t < s.num_d; ++t) args.d[std::size_t(t)] = d[std::size_t(t)].data();
  // Block scales: positive (0.5 to 2), so that the magnitudes below scale with them too.
  std::vector<float> scale_a, scale_b;
  if (s.variant == gemm_variant::block_scaled) {
    scale_a.resize(std::size_t(q.scale_a_elements()));
    scale_b.resize(std::size_t(q.scale_b_elements()));
    for (std::size_t i = 0; i < scale_a.size(); ++i) scale_a[i] = 0.5f + float((seed + 3 * i) % 7) / 4.0f;
    for (std::size_t i = 0; i < scale_b.size(); ++i) scale_b[i] = 0.5f + float((seed + 5 * i) % 7) / 4.0f;
    args.scale_a = scale_a.data();
    args.scale_b = scale_b.data();
  }
  const std::vector<double> ref = reference::gemm(q, args);  // reads C before the run

  // Magnitudes: |alpha| sum |a||b| + |beta||c| + sum |d|, before the elementwise op.
  gemm_problem qm = q;
  qm.sig.ew = elementwise::pass_through;
  const auto aa = absolute(a, s.a, na), ab = absolute(b, s.b, nb), ac = absolute(c, s.c, nc);
  std::vector<std::vector<unsigned char>> ad;
  for (int t = 0; t < s.num_d; ++t) ad.push_back(absolute(d[std::size_t(t)], s.c, nd));
  gemm_args margs{aa.data(), ab.data(), const_cast<unsigned char*>(ac.data()), std::fabs(alpha), std::fabs(beta)};
  for (int t = 0; t < s.num_d; ++t) margs.d[std::size_t(t)] = ad[std::size_t(t)].data();
  margs.scale_a = args.scale_a;
  margs.scale_b = args.scale_b;
  const bool integer_c = s.c == dtype::int8 || s.c == dtype::int32;
  const std::vector<double> mag = integer_c ? std::vector<double>{} : reference::gemm(qm, margs);

  if (beta == 0.0f) numeric::poison(c.data(), s.c, nc);
  if (auto st = kernel.run(q, args, nullptr); !st) fail(kernel.name() + " refused to run: " + st.message());
  const std::vector<double> out = reference::gather_c(q, c.data());
  const double tol = reference::tolerance(s);
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const bool ok = integer_c ? out[i] == ref[i]
                              : std::fabs(out[i] - ref[i]) <= tol * (1.13 * mag[i] + std::fabs(ref[i])) + 1e-6;
    if (!ok)
      fail(kernel.name() + ": C element " + std::to_string(i) + " = " + std::to_string(out[i]) + ", reference " +
           std::to_string(ref[i]) + (integer_c ? "" : " (magnitude " + std::to_string(mag[i]) + ")") + " on " +
           describe(q) + " alpha " + std::to_string(alpha) + " beta " + std::to_string(beta));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size_in_bytes) {
  FuzzedDataProvider in(data, size_in_bytes);
  const gemm_problem p = build(in);

  const auto error = p.validate();
  if (error) {
    if (error->empty()) fail("validate() refused a problem without a reason");
    return 0;
  }
  const gemm_problem q = p.normalized();
  if (auto again = q.validate()) fail("a valid problem is invalid once normalized: " + *again);
  if (!same_shape(q, q.normalized())) fail("normalized() is not idempotent");
  if (q.lda < q.cols_a() || q.ldb < q.cols_b() || q.ldc < q.cols_c()) fail("a leading dimension below its row length");

  static const gemm_dispatcher host(device::host());
  const auto sel = host.select(p);
  const auto ranked = host.ranked(p);
  (void)sel.explain();
  if (bool(sel) != !ranked.empty()) fail("select() and ranked() disagree on whether a kernel fits");
  if (sel && sel.kernel != ranked.front().first)
    fail("select() chose " + sel.kernel->name() + ", ranked() puts " + ranked.front().first->name() + " first");
  // The offline view from a GPU arch (no kernels of it here): never crashes.
  static const gemm_dispatcher gpu(device{arch_id::sm_90, -1, "sm_90 (offline)"});
  (void)gpu.select(p, nullptr, true).explain(100);

  // Plans for every mode, host and GPU, any memory figure: consistent, never overflowing.
  const float alpha = in.PickValueInArray({1.0f, 2.0f, -1.0f, 1.25f});
  const bool integer_c = q.sig.c == dtype::int8 || q.sig.c == dtype::int32;
  const float beta = integer_c ? in.PickValueInArray({0.0f, 1.0f, -2.0f}) : in.PickValueInArray({0.0f, 0.5f, -1.5f});
  const auto mode = in.PickValueInArray({check_mode::automatic, check_mode::full, check_mode::sampled});
  const std::uint64_t seed = in.ConsumeIntegral<std::uint16_t>();
  const std::size_t workspace = sel ? sel.kernel->workspace_bytes(q) : 0;
  for (const device& dev : {device::host(), device{arch_id::sm_90, 0, "sm_90"}}) {
    const auto plan = plan_check(p, dev, workspace, beta, mode, in.ConsumeIntegral<std::size_t>(), seed);
    if (plan.total_rows != q.batch * q.m) fail("plan counts the rows wrong");
    if (plan.rows_checked() < 1 || plan.rows_checked() > plan.total_rows) fail("plan checks no rows, or too many");
    for (std::size_t i = 0; i < plan.rows.size(); ++i)
      if (plan.rows[i] < 0 || plan.rows[i] >= plan.total_rows || (i > 0 && plan.rows[i] <= plan.rows[i - 1]))
        fail("sampled rows are not sorted, distinct and within the problem");
  }

  // Small problems run on the selected host kernel and must pass.
  const double elements = double(q.batch) * std::max({double(q.rows_a()) * double(q.lda),
                                                      double(q.rows_b()) * double(q.ldb),
                                                      double(q.rows_c()) * double(q.ldc)});
  const bool small = q.m <= 40 && q.n <= 40 && q.k <= 40 && q.batch <= 3 && elements <= double(1 << 14) &&
                     q.stride_a <= (1 << 14) && q.stride_b <= (1 << 14) && q.stride_c <= (1 << 14) &&
                     (q.sig.variant != gemm_variant::multi_d || (q.ldd <= 64 && q.stride_d <= (1 << 14))) &&
                     (q.sig.variant != gemm_variant::block_scaled ||
                      (q.scales.ld_a <= 64 && q.scales.ld_b <= 64 && q.scales.stride_a <= (1 << 14) &&
                       q.scales.stride_b <= (1 << 14)));
  if (sel && small) {
    static std::size_t runs = 0;
    if (++runs % 1000 == 0 && std::getenv("KDECL_FUZZ_STATS")) std::fprintf(stderr, "[%zu small runs]\n", runs);
    check_elements(*sel.kernel, q, alpha, beta, seed);
    const auto plan = plan_check(p, device::host(), workspace, beta, mode, std::size_t{1} << 32, seed);
    const auto r = run_and_check(host, p, alpha, beta, plan, "", seed);
    // The Frobenius tolerance is a statement about many elements: with a few, one
    // cancelling sum can exceed it without any error in the kernel.
    if (!r.passed && (q.batch * q.m * q.n >= 256 && q.k >= 16 && !std::isnan(r.error)))
      fail(r.kernel + " failed the check: error " + std::to_string(r.error) + " > " + std::to_string(r.tolerance) +
           " on " + describe(q) + " alpha " + std::to_string(alpha) + " beta " + std::to_string(beta) +
           (r.sampled ? " (sampled)" : ""));
    if (std::isnan(r.error)) fail(r.kernel + ": NaN in C on " + describe(q));
  }
  return 0;
}
