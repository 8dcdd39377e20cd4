// The host GEMM (gemm_kernel<K, backend::host>) against the double reference:
// every dtype combination and layout, odd sizes, batches with padded leading
// dimensions and strides, alpha/beta, every multi_d op, preshuffled B, several
// cache/register tilings, plus checks that the checking itself can fail.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/gemm/gemm_problem.hpp"
#include "kdecl/kernels/gemm/host/gemm_kernel.hpp"
#include "kdecl/kernels/gemm/preshuffle.hpp"
#include "kdecl/numeric/fill.hpp"
#include "kdecl/numeric/host_storage.hpp"
#include "kdecl/reference/gemm_reference.hpp"

namespace {

using namespace kdecl;

// ---------------------------------------------------------------------------
// Keys

constexpr gemm_signature sig(dtype a, dtype b, dtype c, dtype compute, gemm_layout lay = rcr) {
  gemm_signature s{};
  s.a = a;
  s.b = b;
  s.c = c;
  s.acc = default_accumulator(a);
  s.compute = compute;
  s.lay = lay;
  return s;
}
constexpr gemm_signature sig(dtype all) { return sig(all, all, all, all); }

constexpr gemm_signature with_layout(gemm_signature s, std::size_t index) {  // index bits: A B C, 1 = col
  s.lay = {index & 4 ? layout::col : layout::row, index & 2 ? layout::col : layout::row,
           index & 1 ? layout::col : layout::row};
  return s;
}
constexpr gemm_signature multi_d(gemm_signature s, elementwise op, int num_d) {
  s.variant = gemm_variant::multi_d;
  s.ew = op;
  s.num_d = num_d;
  return s;
}
constexpr gemm_signature preshuffled(gemm_signature s) {
  s.variant = gemm_variant::preshuffle;
  return s;
}

// Small cache tiles so that modest problems still cross several tiles and k slices.
constexpr mnk default_tile{32, 48, 24};
constexpr mnk default_micro{4, 8, 1};

constexpr gemm_key host_key(gemm_signature s, mnk tile = default_tile, mnk micro = default_micro) {
  return kernels::host::host_gemm_key(s, tile, micro);
}

using run_fn = status (*)(const gemm_problem&, const gemm_args&, void*);
template <gemm_key K>
constexpr run_fn host_run = &kernels::gemm_kernel<K, backend::host>::run;

// Calls f.template operator()<S'>() for the 8 layouts S' of S.
template <gemm_signature S, class F>
void for_each_layout(F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (f.template operator()<with_layout(S, I)>(), ...);
  }(std::make_index_sequence<8>{});
}

std::string describe(const gemm_signature& s) {
  std::string out{to_string(s.a)};
  out += "x" + std::string(to_string(s.b)) + "->" + std::string(to_string(s.c)) + " compute " +
         std::string(to_string(s.compute)) + " " + std::string(to_string(s.lay.a)) +
         std::string(to_string(s.lay.b)) + std::string(to_string(s.lay.c)) + " " +
         std::string(to_string(s.variant));
  if (s.variant == gemm_variant::multi_d)
    out += " " + std::string(to_string(s.ew)) + " x" + std::to_string(s.num_d);
  return out;
}

// ---------------------------------------------------------------------------
// One checked run

struct shape {
  std::int64_t m, n, k, batch = 1;
  float alpha = 1.0f, beta = 0.0f;
  std::int64_t pad = 0;  // extra elements per leading dimension and per batch stride
};

struct buffers {
  std::vector<unsigned char> a, b, c, c_before;
  std::vector<std::vector<unsigned char>> d;
  gemm_args args;
};

// A normalized problem for `s` with padded leading dimensions and batch strides.
gemm_problem make_problem(const gemm_signature& s, const shape& sh) {
  gemm_problem p;
  p.sig = s;
  p.sizes(sh.m, sh.n, sh.k).batched(sh.batch);
  p.lda = std::max<std::int64_t>(1, p.cols_a()) + sh.pad;
  p.ldb = std::max<std::int64_t>(1, p.cols_b()) + sh.pad;
  p.ldc = std::max<std::int64_t>(1, p.cols_c()) + sh.pad;
  p.ldd = p.ldc + 2 * sh.pad;  // D's leading dimension differs from C's when padded
  p.stride_a = p.rows_a() * p.lda + sh.pad;
  p.stride_c = p.rows_c() * p.ldc + sh.pad;
  p.stride_d = p.rows_c() * p.ldd + sh.pad;
  if (s.variant == gemm_variant::preshuffle) {
    p.stride_b = kernels::preshuffled_elements(sh.k, sh.n, bits_of(s.b)) + sh.pad;
  } else {
    p.stride_b = p.rows_b() * p.ldb + sh.pad;
  }
  return p;
}

buffers make_buffers(const gemm_problem& p, const shape& sh, std::uint64_t seed) {
  buffers buf;
  auto bytes = [](dtype d, std::int64_t count) { return std::size_t(count) * dtype_size_bytes(d); };
  const std::int64_t na = p.batch * p.stride_a, nb = p.batch * p.stride_b, nc = p.batch * p.stride_c;
  buf.a.resize(bytes(p.sig.a, na));
  buf.b.resize(bytes(p.sig.b, nb));
  buf.c.resize(bytes(p.sig.c, nc));
  numeric::fill_uniform(buf.a.data(), p.sig.a, std::size_t(na), seed);
  numeric::fill_uniform(buf.b.data(), p.sig.b, std::size_t(nb), seed + 1);
  if (sh.beta != 0.0f) numeric::fill_uniform(buf.c.data(), p.sig.c, std::size_t(nc), seed + 2);
  else numeric::poison(buf.c.data(), p.sig.c, std::size_t(nc));
  buf.args.a = buf.a.data();
  buf.args.b = buf.b.data();
  buf.args.c = buf.c.data();
  buf.args.alpha = sh.alpha;
  buf.args.beta = sh.beta;
  if (p.sig.variant == gemm_variant::multi_d) {
    buf.d.resize(std::size_t(p.sig.num_d));
    for (int t = 0; t < p.sig.num_d; ++t) {
      auto& d = buf.d[std::size_t(t)];
      d.resize(bytes(p.sig.c, p.batch * p.stride_d));
      numeric::fill_uniform(d.data(), p.sig.c, std::size_t(p.batch * p.stride_d), seed + 10 + std::uint64_t(t));
      buf.args.d[std::size_t(t)] = d.data();
    }
  }
  buf.c_before = buf.c;
  return buf;
}

// Bytes of C outside the logical matrix (padding) that changed: must be none.
std::size_t writes_outside_c(const gemm_problem& p, const buffers& buf) {
  std::vector<bool> inside(buf.c.size() / dtype_size_bytes(p.sig.c), false);
  for (std::int64_t b = 0; b < p.batch; ++b)
    for (std::int64_t i = 0; i < p.m; ++i)
      for (std::int64_t j = 0; j < p.n; ++j)
        inside[std::size_t(b * p.stride_c + (p.sig.lay.c == layout::row ? i * p.ldc + j : j * p.ldc + i))] = true;
  std::size_t changed = 0;
  const std::size_t es = dtype_size_bytes(p.sig.c);
  for (std::size_t e = 0; e < inside.size(); ++e)
    if (!inside[e] && std::memcmp(&buf.c[e * es], &buf.c_before[e * es], es) != 0) ++changed;
  return changed;
}

// Runs one case and checks it against the reference with the team tolerance.
void check(run_fn run, const gemm_signature& s, const shape& sh, std::uint64_t seed = 1) {
  const gemm_problem p = make_problem(s, sh);
  buffers buf = make_buffers(p, sh, seed);
  const std::vector<double> ref = reference::gemm(p, buf.args);  // before C is overwritten
  const status st = run(p, buf.args, nullptr);
  ASSERT_TRUE(st.is_ok()) << describe(s) << ": " << st.message();
  const double err = reference::relative_error(p, buf.c.data(), ref);
  const double tol = reference::tolerance(s);
  EXPECT_TRUE(reference::passes(err, tol))
      << describe(s) << " m=" << sh.m << " n=" << sh.n << " k=" << sh.k << " batch=" << sh.batch
      << " alpha=" << sh.alpha << " beta=" << sh.beta << ": error " << err << " > " << tol;
  EXPECT_EQ(writes_outside_c(p, buf), 0u) << describe(s);
}

template <gemm_signature S>
void check_all_layouts(const shape& sh) {
  for_each_layout<S>([&]<gemm_signature L>() { check(host_run<host_key(L)>, L, sh); });
}

const shape medium{37, 53, 61, 2, 0.75f, 0.5f, 3};
const shape medium_beta0{41, 29, 70, 2, 1.25f, 0.0f, 1};

// ---------------------------------------------------------------------------
// Every dtype combination, every layout

TEST(HostGemm, Fp16AllLayouts) { check_all_layouts<sig(dtype::fp16)>(medium); check_all_layouts<sig(dtype::fp16)>(medium_beta0); }
TEST(HostGemm, Bf16AllLayouts) { check_all_layouts<sig(dtype::bf16)>(medium); check_all_layouts<sig(dtype::bf16)>(medium_beta0); }
TEST(HostGemm, Fp32AllLayouts) { check_all_layouts<sig(dtype::fp32)>(medium); check_all_layouts<sig(dtype::fp32)>(medium_beta0); }
TEST(HostGemm, Fp64AllLayouts) { check_all_layouts<sig(dtype::fp64)>(medium); check_all_layouts<sig(dtype::fp64)>(medium_beta0); }
TEST(HostGemm, Tf32AllLayouts) {
  constexpr auto s = sig(dtype::fp32, dtype::fp32, dtype::fp32, dtype::tf32);
  check_all_layouts<s>(medium);
  check_all_layouts<s>(medium_beta0);
}
TEST(HostGemm, Fp8AllLayouts) {
  check_all_layouts<sig(dtype::fp8, dtype::fp8, dtype::fp16, dtype::fp8)>(medium);
  check_all_layouts<sig(dtype::fp8, dtype::fp8, dtype::fp32, dtype::fp8)>(medium_beta0);
  check_all_layouts<sig(dtype::fp8)>(medium);  // fp8 C: saturating RNE store
}
TEST(HostGemm, Bf8AllLayouts) {
  check_all_layouts<sig(dtype::bf8, dtype::bf8, dtype::bf16, dtype::bf8)>(medium);
  check_all_layouts<sig(dtype::bf8)>(medium_beta0);
}
TEST(HostGemm, MixedFp8Bf8) {
  check_all_layouts<sig(dtype::fp8, dtype::bf8, dtype::fp16, dtype::fp8)>(medium);
}
TEST(HostGemm, Int8AllLayoutsExact) {
  check_all_layouts<sig(dtype::int8, dtype::int8, dtype::int32, dtype::int8)>(medium);
  check_all_layouts<sig(dtype::int8, dtype::int8, dtype::int32, dtype::int8)>(medium_beta0);
  check_all_layouts<sig(dtype::int8, dtype::int8, dtype::int8, dtype::int8)>(medium);  // saturating int8 C
}

// ---------------------------------------------------------------------------
// Sizes

TEST(HostGemm, OddSizes) {
  const shape shapes[] = {{1, 1, 1},        {7, 63, 129},      {1000, 7, 63},  {63, 1000, 7},
                          {129, 129, 1000}, {1, 1000, 129, 2}, {1000, 1, 1000}, {129, 7, 1, 3, 1.0f, 1.0f},
                          {7, 1, 1000, 1, -1.0f, 0.25f}};
  constexpr auto f32 = sig(dtype::fp32);
  constexpr auto f16 = sig(dtype::fp16, dtype::fp16, dtype::fp16, dtype::fp16, {layout::col, layout::row, layout::col});
  constexpr auto i8 = sig(dtype::int8, dtype::int8, dtype::int32, dtype::int8, {layout::row, layout::row, layout::col});
  for (const shape& sh : shapes) {
    check(host_run<host_key(f32)>, f32, sh);
    check(host_run<host_key(f16)>, f16, sh);
    check(host_run<host_key(i8)>, i8, sh);
  }
}

TEST(HostGemm, EmptyKGivesBetaC) {
  constexpr auto f32 = sig(dtype::fp32);
  check(host_run<host_key(f32)>, f32, {9, 11, 0, 2, 1.0f, 0.5f, 1});
  constexpr auto md = multi_d(sig(dtype::fp32), elementwise::relu, 2);
  check(host_run<host_key(md)>, md, {9, 11, 0, 1, 1.0f, 0.5f});
}

TEST(HostGemm, TileAndMicroTileShapes) {
  constexpr auto s = sig(dtype::fp32);
  constexpr auto h = sig(dtype::fp16, dtype::fp16, dtype::fp32, dtype::fp16, crr);
  const shape sh{77, 91, 45, 2, 1.0f, 0.5f, 2};
  check(host_run<host_key(s, {8, 8, 8}, {1, 1, 1})>, s, sh);
  check(host_run<host_key(s, {16, 16, 16}, {16, 16, 1})>, s, sh);
  check(host_run<host_key(s, {64, 64, 32}, {8, 8, 1})>, s, sh);
  check(host_run<host_key(s, {48, 40, 7}, {6, 5, 1})>, s, sh);
  check(host_run<host_key(s, {128, 256, 256}, {8, 8, 1})>, s, sh);
  check(host_run<host_key(h, {24, 32, 5}, {3, 16, 1})>, h, sh);
  check(host_run<host_key(h, {128, 256, 256}, {8, 8, 1})>, h, {300, 500, 600});
}

// ---------------------------------------------------------------------------
// multi_d: every elementwise op with 1..3 D tensors

template <gemm_signature Base>
void check_all_ops(const shape& sh) {
  constexpr elementwise ops[] = {elementwise::pass_through, elementwise::multi_d_add, elementwise::relu,
                                 elementwise::gelu,         elementwise::sigmoid,     elementwise::tanh};
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((check(host_run<host_key(multi_d(Base, ops[I], int(I % 3) + 1))>, multi_d(Base, ops[I], int(I % 3) + 1), sh)), ...);
  }(std::make_index_sequence<6>{});
}

TEST(HostGemm, MultiDAllOps) {
  const shape sh{45, 38, 50, 2, 1.0f, 0.5f, 2};
  check_all_ops<sig(dtype::fp32)>(sh);
  check_all_ops<sig(dtype::fp16, dtype::fp16, dtype::fp16, dtype::fp16, ccr)>(sh);
  check_all_ops<sig(dtype::bf16, dtype::bf16, dtype::bf16, dtype::bf16, crr)>(sh);
  check_all_ops<sig(dtype::fp8, dtype::fp8, dtype::fp32, dtype::fp8, rrr)>(sh);
  check_all_ops<sig(dtype::int8, dtype::int8, dtype::int32, dtype::int8)>({45, 38, 50, 2, 1.0f, 1.0f, 2});
  check_all_ops<sig(dtype::fp64)>(sh);
}

TEST(HostGemm, MultiDAllLayouts) {
  check_all_layouts<multi_d(sig(dtype::fp16), elementwise::gelu, 2)>(medium);
  check_all_layouts<multi_d(sig(dtype::fp32), elementwise::multi_d_add, 4)>(medium);
}

// ---------------------------------------------------------------------------
// preshuffled B

TEST(HostGemm, PreshuffleAllLayoutsAndDtypes) {
  const shape sizes[] = {{64, 80, 128, 2, 1.0f, 0.5f, 1}, {33, 47, 70, 1, 0.5f, 0.0f, 0}};
  for (const shape& sh : sizes) {
    check_all_layouts<preshuffled(sig(dtype::fp16))>(sh);
    check_all_layouts<preshuffled(sig(dtype::fp8, dtype::fp8, dtype::fp16, dtype::fp8))>(sh);
    check_all_layouts<preshuffled(sig(dtype::int8, dtype::int8, dtype::int32, dtype::int8))>(sh);
    constexpr auto bf = preshuffled(sig(dtype::bf16));
    check(host_run<host_key(bf)>, bf, sh);
    constexpr auto f32 = preshuffled(sig(dtype::fp32));
    check(host_run<host_key(f32)>, f32, sh);
  }
}

// The preshuffled path computes the same C as the standard GEMM on the logical B
// that preshuffle_b_host shuffled (ties kernel, reference and shuffle together).
TEST(HostGemm, PreshuffleEqualsStandardOnShuffledB) {
  constexpr auto standard = sig(dtype::fp16, dtype::fp16, dtype::fp32, dtype::fp16, rrr);
  constexpr auto shuffled = preshuffled(standard);
  const shape sh{29, 45, 83, 1};
  const gemm_problem p = make_problem(standard, sh);
  buffers buf = make_buffers(p, sh, 9);
  ASSERT_TRUE(host_run<host_key(standard)>(p, buf.args, nullptr).is_ok());

  gemm_problem ps = make_problem(shuffled, sh);
  std::vector<half> b_shuffled(std::size_t(kernels::preshuffled_elements(sh.k, sh.n, 16)));
  kernels::preshuffle_b_host(buf.b.data(), layout::row, p.ldb, sh.k, sh.n, 16, b_shuffled.data());
  std::vector<float> c_shuffled(std::size_t(ps.stride_c));
  gemm_args args = buf.args;
  args.b = b_shuffled.data();
  args.c = c_shuffled.data();
  ASSERT_TRUE(host_run<host_key(shuffled)>(ps, args, nullptr).is_ok());
  EXPECT_EQ(reference::gemm(ps, args), reference::gemm(p, buf.args));  // reference agrees with itself
  const auto standard_c = reference::gather_c(p, buf.c.data());
  EXPECT_EQ(reference::gather_c(ps, c_shuffled.data()), standard_c);   // bit-identical kernel results
}

// ---------------------------------------------------------------------------
// The checks can fail

TEST(HostGemmChecks, NaNInputIsCaught) {
  constexpr auto s = sig(dtype::fp32);
  const shape sh{16, 16, 16};
  const gemm_problem p = make_problem(s, sh);
  buffers buf = make_buffers(p, sh, 3);
  const auto ref = reference::gemm(p, buf.args);
  reinterpret_cast<float*>(buf.a.data())[5] = std::numeric_limits<float>::quiet_NaN();
  ASSERT_TRUE(host_run<host_key(s)>(p, buf.args, nullptr).is_ok());
  const double err = reference::relative_error(p, buf.c.data(), ref);
  EXPECT_TRUE(std::isnan(err));
  EXPECT_FALSE(reference::passes(err, reference::tolerance(s)));
  // And a NaN in the reference is not forgiven either.
  EXPECT_FALSE(reference::passes(reference::relative_error(p, buf.c.data(), reference::gemm(p, buf.args)), 1e30));
}

TEST(HostGemmChecks, UnwrittenOutputFails) {
  for (dtype d : {dtype::fp32, dtype::fp16, dtype::fp8}) {
    const auto s = sig(d);
    const shape sh{8, 8, 8};
    const gemm_problem p = make_problem(s, sh);
    buffers buf = make_buffers(p, sh, 4);  // beta 0: C poisoned
    const auto ref = reference::gemm(p, buf.args);
    EXPECT_FALSE(reference::passes(reference::relative_error(p, buf.c.data(), ref), 1.0)) << to_string(d);
  }
}

TEST(HostGemmChecks, WrongValueFails) {
  constexpr auto s = sig(dtype::fp32);
  const shape sh{37, 53, 61};
  const gemm_problem p = make_problem(s, sh);
  buffers buf = make_buffers(p, sh, 5);
  const auto ref = reference::gemm(p, buf.args);
  ASSERT_TRUE(host_run<host_key(s)>(p, buf.args, nullptr).is_ok());
  ASSERT_TRUE(reference::passes(reference::relative_error(p, buf.c.data(), ref), reference::tolerance(s)));
  reinterpret_cast<float*>(buf.c.data())[100] += 0.05f;  // one element off
  EXPECT_FALSE(reference::passes(reference::relative_error(p, buf.c.data(), ref), reference::tolerance(s)));

  constexpr auto i8 = sig(dtype::int8, dtype::int8, dtype::int32, dtype::int8);
  const gemm_problem pi = make_problem(i8, sh);
  buffers bi = make_buffers(pi, sh, 5);
  const auto ri = reference::gemm(pi, bi.args);
  ASSERT_TRUE(host_run<host_key(i8)>(pi, bi.args, nullptr).is_ok());
  ASSERT_TRUE(reference::passes(reference::relative_error(pi, bi.c.data(), ri), 0.0));
  reinterpret_cast<std::int32_t*>(bi.c.data())[7] += 1;  // integers are exact: off by one fails
  EXPECT_FALSE(reference::passes(reference::relative_error(pi, bi.c.data(), ri), reference::tolerance(i8)));
}

TEST(HostGemmChecks, Tf32IsRoundedNotExact) {
  // The tf32 kernel really rounds its inputs: measurably worse than exact fp32,
  // still inside the tf32 tolerance.
  constexpr auto t = sig(dtype::fp32, dtype::fp32, dtype::fp32, dtype::tf32);
  const shape sh{64, 64, 256};
  const gemm_problem p = make_problem(t, sh);
  buffers buf = make_buffers(p, sh, 6);
  const auto ref = reference::gemm(p, buf.args);
  ASSERT_TRUE(host_run<host_key(t)>(p, buf.args, nullptr).is_ok());
  const double err = reference::relative_error(p, buf.c.data(), ref);
  EXPECT_GT(err, 1e-5);
  EXPECT_LT(err, 1e-3);
}

// ---------------------------------------------------------------------------
// why_not and run's refusals

TEST(HostGemmWhyNot, UnsupportedCombinationsAreExplained) {
  constexpr auto fp16_acc = [] { auto s = sig(dtype::fp16); s.acc = dtype::fp16; return s; }();
  constexpr auto int4 = sig(dtype::int4);
  constexpr auto tf32_on_fp16 = sig(dtype::fp16, dtype::fp16, dtype::fp16, dtype::tf32);
  constexpr auto int8_to_fp16 = sig(dtype::int8, dtype::int8, dtype::fp16, dtype::int8);
  gemm_problem p = make_problem(sig(dtype::fp16), {8, 8, 8});
  gemm_args args;
  auto expect_refused = [&](auto kernel, gemm_signature s) {
    p.sig = s;
    const auto why = decltype(kernel)::why_not(p, args);
    ASSERT_TRUE(why.has_value()) << describe(s);
    EXPECT_FALSE(why->empty());
    const status st = decltype(kernel)::run(p, args, nullptr);
    EXPECT_FALSE(st.is_ok());
    EXPECT_EQ(st.message(), *why);
  };
  expect_refused(kernels::gemm_kernel<host_key(fp16_acc), backend::host>{}, fp16_acc);
  expect_refused(kernels::gemm_kernel<host_key(int4), backend::host>{}, int4);
  expect_refused(kernels::gemm_kernel<host_key(tf32_on_fp16), backend::host>{}, tf32_on_fp16);
  expect_refused(kernels::gemm_kernel<host_key(int8_to_fp16), backend::host>{}, int8_to_fp16);
  constexpr auto fp64_shuffled = preshuffled(sig(dtype::fp64));  // format is for 8/16/32-bit B
  expect_refused(kernels::gemm_kernel<host_key(fp64_shuffled), backend::host>{}, fp64_shuffled);
  constexpr auto f16 = sig(dtype::fp16);
  expect_refused(kernels::gemm_kernel<host_key(f16, {30, 32, 8}, {4, 8, 1}), backend::host>{}, f16);  // 30 % 4
}

TEST(HostGemmWhyNot, ProblemMismatchesAndBadArguments) {
  constexpr auto s = sig(dtype::fp32);
  using kernel = kernels::gemm_kernel<host_key(s), backend::host>;
  const shape sh{8, 8, 8};
  gemm_problem p = make_problem(s, sh);
  buffers buf = make_buffers(p, sh, 7);
  EXPECT_FALSE(kernel::why_not(p, buf.args).has_value());

  gemm_problem other = p;
  other.sig.lay = rrr;
  EXPECT_TRUE(kernel::why_not(other, buf.args).has_value());
  other = p;
  other.sig.c = dtype::fp16;
  EXPECT_TRUE(kernel::why_not(other, buf.args).has_value());
  other = p;
  other.lda = 0;  // not normalized
  EXPECT_TRUE(kernel::why_not(other, buf.args).has_value());
  gemm_args no_c = buf.args;
  no_c.c = nullptr;
  EXPECT_TRUE(kernel::why_not(p, no_c).has_value());
  EXPECT_FALSE(kernel::run(p, no_c, nullptr).is_ok());

  constexpr auto md = multi_d(sig(dtype::fp32), elementwise::relu, 2);
  using md_kernel = kernels::gemm_kernel<host_key(md), backend::host>;
  gemm_problem pm = make_problem(md, sh);
  buffers bm = make_buffers(pm, sh, 8);
  EXPECT_FALSE(md_kernel::why_not(pm, bm.args).has_value());
  bm.args.d[1] = nullptr;
  EXPECT_TRUE(md_kernel::why_not(pm, bm.args).has_value());
  EXPECT_EQ(kernel::workspace_bytes(p), 0u);
}

// ---------------------------------------------------------------------------
// Threads

TEST(HostGemm, ConcurrentCallersGetCorrectResults) {
  static constexpr auto s = sig(dtype::fp32);
  std::vector<std::thread> callers;
  for (int t = 0; t < 3; ++t)
    callers.emplace_back([t] { check(host_run<host_key(s)>, s, {100 + t, 90, 80, 2}, std::uint64_t(20 + t)); });
  for (auto& c : callers) c.join();
}

}  // namespace
