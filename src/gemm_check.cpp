#include "kdecl/runtime/gemm_check.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "kdecl/kernels/gemm/preshuffle.hpp"
#include "kdecl/numeric/fill.hpp"
#include "kdecl/numeric/host_storage.hpp"
#include "kdecl/reference/gemm_reference.hpp"
#include "kdecl/runtime/buffer.hpp"

namespace kdecl {
namespace {

// Automatic mode checks every row when the reference needs at most this many
// flops per hardware thread (a few seconds: it runs at 1-3 GFLOP/s per thread),
// and otherwise samples as many rows as this budget allows (at least 2, at most 256).
constexpr double full_check_flops_per_thread = 0x1p33;
constexpr double sampled_flops_per_thread = 0x1p32;
constexpr std::int64_t max_sampled_rows = 256;
// B converted to double is used for sampled rows only up to this size.
constexpr std::size_t sampled_b_in_double_limit = std::size_t{1} << 30;
// What the process itself needs besides the planned buffers (code, stacks, heap slack).
constexpr std::size_t process_reserve = std::size_t{64} << 20;

std::size_t add(std::size_t a, std::size_t b) {
  return a > std::numeric_limits<std::size_t>::max() - b ? std::numeric_limits<std::size_t>::max() : a + b;
}
std::size_t mul(std::size_t a, std::size_t b) {
  return b != 0 && a > std::numeric_limits<std::size_t>::max() / b ? std::numeric_limits<std::size_t>::max() : a * b;
}

// Bytes of `elements` elements of `d` (sub-byte dtypes packed).
std::size_t bytes_of(std::size_t elements, dtype d) {
  const auto bits = unsigned(bits_of(d));
  return bits % 8 == 0 ? mul(elements, bits / 8) : std::size_t((static_cast<unsigned __int128>(elements) * bits + 7) / 8);
}

// Elements each operand spans in memory (the problem normalized and validated: no overflow).
struct operand_spans {
  std::size_t a = 0, b = 0, c = 0, d = 0;
  std::size_t scale_a = 0, scale_b = 0;  // block_scaled: float scales
};

operand_spans spans_of(const gemm_problem& p) {
  auto span = [&](std::int64_t stride, std::int64_t rows, std::int64_t ld) {
    return std::size_t((p.batch - 1) * stride + rows * ld);
  };
  operand_spans s;
  s.a = span(p.stride_a, p.rows_a(), p.lda);
  s.b = p.sig.variant == gemm_variant::preshuffle
            ? std::size_t((p.batch - 1) * p.stride_b + kernels::preshuffled_elements(p.k, p.n, bits_of(p.sig.b)))
            : span(p.stride_b, p.rows_b(), p.ldb);
  s.c = span(p.stride_c, p.rows_c(), p.ldc);
  s.d = p.sig.variant == gemm_variant::multi_d ? span(p.stride_d, p.rows_c(), p.ldd) : 0;
  if (p.sig.variant == gemm_variant::block_scaled) {
    s.scale_a = std::size_t(p.scale_a_elements());
    s.scale_b = std::size_t(p.scale_b_elements());
  }
  return s;
}

// The block_scaled variant's scales: uniform in [0.5, 2), a different value for every block,
// so that a kernel applying one block's scale to another's slice is off by tens of percent.
std::vector<float> random_scales(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 engine(seed * 0x2545f4914f6cdd1dull + 0x9e3779b97f4a7c15ull);
  std::uniform_real_distribution<float> between(0.5f, 2.0f);
  std::vector<float> out(count);
  for (float& x : out) x = between(engine);
  return out;
}

// Bytes of C's whole buffer (`out`, `size` bytes: the offset's bytes, then the
// operand) outside the matrix that differ from what was there before the run:
// `before` (same size), or the 0xFF poison when `before` is null. Every byte is
// compared except those of the m x n elements of each batch. validate() keeps
// rows and batches disjoint and ascending, so the gaps are walked in order
// (no per-element map: C may hold billions of elements).
std::int64_t outside_writes(const gemm_problem& p, const unsigned char* out, std::size_t size,
                            const unsigned char* before, std::size_t c_offset_bytes) {
  const std::size_t eb = dtype_size_bytes(p.sig.c);
  std::int64_t changed = 0;
  auto compare = [&](std::size_t from, std::size_t to) {
    for (std::size_t byte = from; byte < to && byte < size; ++byte)
      if (out[byte] != (before ? before[byte] : static_cast<unsigned char>(0xFF))) ++changed;
  };
  std::size_t cursor = 0;  // first byte not yet compared or skipped
  for (std::int64_t b = 0; b < p.batch; ++b)
    for (std::int64_t r = 0; r < p.rows_c(); ++r) {
      const std::size_t start = c_offset_bytes + std::size_t(b * p.stride_c + r * p.ldc) * eb;
      compare(cursor, start);
      cursor = std::max(cursor, start + std::size_t(p.cols_c()) * eb);
    }
  compare(cursor, size);
  return changed;
}

std::int64_t hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

// The rows a sampled check compares: the first and last row of the first and
// the last batch, then rows drawn at random (seeded) until there are `count`.
std::vector<std::int64_t> sample_rows(const gemm_problem& p, std::int64_t count, std::uint64_t seed) {
  const std::int64_t total = p.batch * p.m;
  std::set<std::int64_t> rows{0, p.m - 1, total - p.m, total - 1};
  std::mt19937_64 engine(seed ^ 0x9e3779b97f4a7c15ull);
  while (std::int64_t(rows.size()) < count) rows.insert(std::int64_t(engine() % std::uint64_t(total)));
  while (std::int64_t(rows.size()) > count) rows.erase(std::prev(rows.end(), 2));  // keep the last row
  return {rows.begin(), rows.end()};
}

std::string gflop(double flops) { return fmt::format("{:.3g} GFLOP", flops / 1e9); }

}  // namespace

gemm_check_plan plan_check(const gemm_problem& problem, const device& dev, std::size_t workspace_bytes, float beta,
                           check_mode mode, std::size_t host_available, std::uint64_t seed) {
  const gemm_problem p = problem.normalized();
  const auto& s = p.sig;
  const operand_spans sp = spans_of(p);
  const bool on_host = dev.kind() == backend::host;
  gemm_check_plan plan;
  plan.total_rows = p.batch * p.m;

  // Operands: in host memory for the host backend; otherwise on the device, with
  // host copies of the inputs that the reference reads after the run.
  auto& operands = on_host ? plan.host_parts : plan.device_parts;
  operands.emplace_back("A", bytes_of(sp.a, s.a));
  operands.emplace_back("B", bytes_of(sp.b, s.b));
  operands.emplace_back("C", bytes_of(sp.c, s.c));
  if (s.num_d > 0) operands.emplace_back(fmt::format("{} D tensor(s)", s.num_d), mul(bytes_of(sp.d, s.c), s.num_d));
  if (s.variant == gemm_variant::block_scaled) {
    operands.emplace_back("A's and B's scales", mul(add(sp.scale_a, sp.scale_b), sizeof(float)));
    if (!on_host) plan.host_parts.emplace_back("host copies of the scales", mul(add(sp.scale_a, sp.scale_b), sizeof(float)));
  }
  if (workspace_bytes > 0) operands.emplace_back("kernel workspace", workspace_bytes);
  if (on_host) {
    if (beta != 0.0f) plan.host_parts.emplace_back("C before the run (beta != 0)", bytes_of(sp.c, s.c));
  } else {
    plan.host_parts.emplace_back("host copy of A", bytes_of(sp.a, s.a));
    plan.host_parts.emplace_back("host copy of B", bytes_of(sp.b, s.b));
    plan.host_parts.emplace_back(beta != 0.0f ? "host copy of C before the run" : "host copy of the output",
                                 bytes_of(sp.c, s.c));
    if (s.num_d > 0) plan.host_parts.emplace_back("host copies of D", mul(bytes_of(sp.d, s.c), s.num_d));
    if (beta != 0.0f) plan.host_parts.emplace_back("host copy of the output", bytes_of(sp.c, s.c));
  }
  const std::int64_t threads = hardware_threads();
  // A row of A in double per thread and the partial sums (see relative_error_over_rows).
  const std::size_t scratch =
      mul(std::size_t(threads), 8 * std::size_t(std::min<std::int64_t>(p.k, std::int64_t{1} << 20))) + (std::size_t{2} << 20);
  plan.host_parts.emplace_back("reference scratch", scratch);
  std::size_t base = process_reserve;
  for (const auto& [what, bytes] : plan.host_parts) base = add(base, bytes);
  const std::size_t b_double = mul(mul(std::size_t(p.n), std::size_t(p.k)), 8);
  // (When even the base does not fit, the run is refused anyway: choose as if memory were plentiful.)
  const bool b_double_fits = add(base, b_double) <= host_available || base > host_available;

  const double nk2 = 2.0 * double(p.n) * double(p.k);
  const double full_flops = nk2 * double(plan.total_rows);
  const double full_budget = full_check_flops_per_thread * double(threads);
  switch (mode) {
    case check_mode::full:
      plan.sampled = false;
      plan.why = "every row (--check full)";
      break;
    case check_mode::sampled:
      plan.sampled = true;
      plan.why = "a sample of rows (--check sampled)";
      break;
    case check_mode::automatic:
      if (full_flops > full_budget) {
        plan.sampled = true;
        plan.why = fmt::format("a sample of rows: checking every row would take {} of reference work, over the "
                               "{} (a few seconds) allowed on {} thread(s)",
                               gflop(full_flops), gflop(full_budget), threads);
      } else if (!b_double_fits) {
        plan.sampled = true;
        plan.why = fmt::format("a sample of rows: checking every row needs B in double ({:.3g} GiB), more than the "
                               "host memory left",
                               double(b_double) / double(1 << 30));
      } else {
        plan.why = fmt::format("every row: the reference takes {}", gflop(full_flops));
      }
      break;
  }
  if (plan.sampled) {
    const double affordable = std::floor(sampled_flops_per_thread * double(threads) / nk2);
    const std::int64_t count =
        std::min(plan.total_rows, std::clamp<std::int64_t>(std::int64_t(std::min(affordable, 1e9)), 2, max_sampled_rows));
    if (count >= plan.total_rows) {
      plan.sampled = false;  // the sample would be every row
      plan.why += " (which here is every row)";
    } else {
      plan.rows = sample_rows(p, count, seed);
    }
  }
  plan.b_in_double = b_double_fits && (!plan.sampled || b_double <= sampled_b_in_double_limit);
  if (plan.b_in_double) plan.host_parts.emplace_back("reference's B in double", b_double);
  plan.reference_flops = nk2 * double(plan.rows_checked());
  for (const auto& [what, bytes] : plan.host_parts) plan.host_bytes = add(plan.host_bytes, bytes);
  for (const auto& [what, bytes] : plan.device_parts) plan.device_bytes = add(plan.device_bytes, bytes);
  return plan;
}

gemm_check run_and_check(const gemm_dispatcher& dispatcher, const gemm_problem& problem, float alpha, float beta,
                         const gemm_check_plan& plan, const std::string& kernel_name, std::uint64_t seed,
                         const gemm_check_options& options) {
  const gemm_problem p = problem.normalized();
  const device& dev = dispatcher.target();
  const auto& s = p.sig;
  const bool on_host = dev.kind() == backend::host;
  if (options.offset_a < 0 || options.offset_b < 0 || options.offset_c < 0 || options.offset_d < 0)
    throw std::invalid_argument("run_and_check: pointer offsets must not be negative");
  const operand_spans sp = spans_of(p);
  const std::size_t a_bytes = bytes_of(sp.a, s.a), b_bytes = bytes_of(sp.b, s.b), c_bytes = bytes_of(sp.c, s.c),
                    d_bytes = bytes_of(sp.d, s.c);
  // Each buffer holds its offset's elements first; the operand starts after them
  // (misaligned pointers, the way a slice of a larger tensor gives them).
  const std::size_t oa = bytes_of(std::size_t(options.offset_a), s.a),
                    ob = bytes_of(std::size_t(options.offset_b), s.b),
                    oc = bytes_of(std::size_t(options.offset_c), s.c),
                    od = bytes_of(std::size_t(options.offset_d), s.c);
  const auto at = [](auto& storage, std::size_t offset) { return static_cast<unsigned char*>(storage.data()) + offset; };

  // Inputs are made in host memory: the operand buffers themselves on the host
  // backend, otherwise host copies (kept for the reference) that are uploaded.
  buffer da(dev, oa + a_bytes), db(dev, ob + b_bytes), dc(dev, oc + c_bytes);
  std::vector<buffer> dd;
  for (int i = 0; i < s.num_d; ++i) dd.emplace_back(dev, od + d_bytes);
  std::vector<unsigned char> ha, hb, hc, c_before;
  std::vector<std::vector<unsigned char>> hd(std::size_t(s.num_d));
  // Where the operand starts in host memory (after its offset).
  auto host_side = [&](buffer& device_buffer, std::vector<unsigned char>& copy, std::size_t offset) -> void* {
    if (on_host) return at(device_buffer, offset);
    copy.resize(device_buffer.size());
    return at(copy, offset);
  };
  void* pa = host_side(da, ha, oa);
  void* pb = host_side(db, hb, ob);
  numeric::fill_uniform(pa, s.a, sp.a, seed);
  numeric::fill_uniform(pb, s.b, sp.b, seed + 1);
  std::vector<const void*> pd;
  for (int i = 0; i < s.num_d; ++i) {
    auto& copy = hd[std::size_t(i)];
    void* ptr = host_side(dd[std::size_t(i)], copy, od);
    numeric::fill_uniform(ptr, s.c, sp.d, seed + 3 + std::uint64_t(i));
    pd.push_back(ptr);
    if (!on_host) dd[std::size_t(i)].upload(copy.data(), copy.size());
  }
  if (!on_host) {
    da.upload(ha.data(), ha.size());
    db.upload(hb.data(), hb.size());
  }
  // C's initial values matter only when beta reads them: then C's whole buffer is
  // made in a host copy (kept for the reference, to restore C after the warm-up
  // and to find writes outside C): the offset's bytes 0xA5, then random values.
  // With beta == 0 C is only poisoned (a fill of a large C takes longer than the run).
  void* pc = nullptr;
  const std::vector<unsigned char>* c_initial = nullptr;
  if (beta != 0.0f) {
    std::vector<unsigned char>& initial = on_host ? c_before : hc;
    initial.resize(dc.size());
    std::memset(initial.data(), 0xA5, oc);
    pc = at(initial, oc);
    numeric::fill_uniform(pc, s.c, sp.c, seed + 2);
    c_initial = &initial;
  }

  gemm_args args{at(da, oa), at(db, ob), at(dc, oc), alpha, beta};
  for (int i = 0; i < s.num_d; ++i) args.d[std::size_t(i)] = at(dd[std::size_t(i)], od);
  // The block_scaled variant's scales: made here, uploaded beside the operands.
  std::vector<float> scale_a, scale_b;
  buffer d_scale_a, d_scale_b;
  if (s.variant == gemm_variant::block_scaled) {
    scale_a = random_scales(sp.scale_a, seed + 11);
    scale_b = random_scales(sp.scale_b, seed + 12);
    d_scale_a = buffer(dev, scale_a.size() * sizeof(float));
    d_scale_b = buffer(dev, scale_b.size() * sizeof(float));
    d_scale_a.upload(scale_a);
    d_scale_b.upload(scale_b);
    args.scale_a = static_cast<const float*>(d_scale_a.data());
    args.scale_b = static_cast<const float*>(d_scale_b.data());
  }

  std::shared_ptr<const gemm_instance> kernel;
  if (kernel_name.empty()) {
    auto sel = dispatcher.select(p, &args);
    if (!sel) throw std::runtime_error(sel.explain());
    kernel = sel.kernel;
  } else {
    auto found = registry::global().find(kernel_name);
    if (!found || found->op() != op_kind::gemm)
      throw std::runtime_error(fmt::format("no GEMM kernel named '{}' is registered", kernel_name));
    kernel = std::static_pointer_cast<const gemm_instance>(found);
    if (auto why = gemm_rejection(*kernel, p, &args)) throw std::runtime_error(kernel_name + " cannot run it: " + *why);
  }

  // The workspace a kernel can use (split-K partials), poisoned: the kernel must initialise what it reads.
  buffer workspace(dev, kernel->workspace_bytes(p));
  workspace.fill_bytes(0xFF);
  args.workspace = workspace.data();
  args.workspace_bytes = workspace.size();

  auto run_once = [&] {
    auto st = kernel->run(p, args, nullptr);
    if (!st) throw std::runtime_error(fmt::format("{} failed: {}", kernel->name(), st.message()));
    if (auto sync = synchronize(dev); !sync) throw std::runtime_error(sync.message());
  };
  auto prepare_c = [&] {
    if (beta == 0.0f) dc.fill_bytes(0xFF); else dc.upload(c_initial->data(), c_initial->size());
  };
  // Warm-up, then the checked run on a poisoned output (C restored when beta reads it).
  prepare_c();
  run_once();
  prepare_c();
  auto t0 = std::chrono::steady_clock::now();
  run_once();
  auto t1 = std::chrono::steady_clock::now();

  // C's whole buffer in host memory: the buffer itself on the host backend, else a
  // download (into C's host copy when beta == 0: the reference does not read it).
  const unsigned char* out = at(dc, 0);
  std::vector<unsigned char> downloaded;
  if (!on_host) {
    std::vector<unsigned char>& target = beta == 0.0f ? hc : downloaded;
    target.resize(dc.size());
    dc.download(target.data(), dc.size());
    out = target.data();
  }

  gemm_args reference_args{pa, pb, beta != 0.0f ? pc : nullptr, alpha, beta};
  for (int i = 0; i < s.num_d; ++i) reference_args.d[std::size_t(i)] = pd[std::size_t(i)];
  reference_args.scale_a = scale_a.data();
  reference_args.scale_b = scale_b.data();
  gemm_check check;
  check.kernel = kernel->name();
  // tf32 kernels: the sm_90 wgmma path feeds fp32 bits from shared memory (truncated to tf32), the
  // mma.sync and host kernels round to nearest first; the reference rounds the inputs the same way.
  const auto rounding = s.compute != dtype::tf32                       ? reference::tf32_inputs::exact
                        : kernel->key().algo.pipe == pipeline::tma_wgmma ? reference::tf32_inputs::truncate
                                                                        : reference::tf32_inputs::round_nearest;
  check.error =
      reference::relative_error_over_rows(p, reference_args, out + oc, plan.rows, plan.b_in_double, rounding);
  if (plan.sampled && !std::isnan(check.error) && reference::any_nan(p, out + oc))
    check.error = std::numeric_limits<double>::quiet_NaN();
  check.tolerance = reference::tolerance(s);
  check.outside_writes = outside_writes(p, out, dc.size(), c_initial ? c_initial->data() : nullptr, oc);
  check.passed = reference::passes(check.error, check.tolerance) && check.outside_writes == 0;
  check.milliseconds = std::chrono::duration<double, std::milli>(t1 - t0).count();
  check.sampled = plan.sampled;
  check.rows_checked = plan.rows_checked();
  check.rows_total = plan.total_rows;
  return check;
}

gemm_check run_and_check(const gemm_dispatcher& dispatcher, const gemm_problem& problem, float alpha, float beta,
                         const std::string& kernel, std::uint64_t seed, const gemm_check_options& options) {
  std::size_t workspace = 0;
  if (!kernel.empty()) {
    if (auto k = registry::global().find(kernel); k && k->op() == op_kind::gemm)
      workspace = static_cast<const gemm_instance&>(*k).workspace_bytes(problem.normalized());
  } else if (auto sel = dispatcher.select(problem)) {
    workspace = sel.kernel->workspace_bytes(problem.normalized());
  }
  const auto plan = plan_check(problem, dispatcher.target(), workspace, beta, check_mode::automatic,
                               memory_available(device::host()).bytes, seed);
  return run_and_check(dispatcher, problem, alpha, beta, plan, kernel, seed, options);
}

gemm_check run_and_check(const gemm_dispatcher& dispatcher, const gemm_problem& problem, float alpha, float beta,
                         const std::string& kernel, std::uint64_t seed) {
  return run_and_check(dispatcher, problem, alpha, beta, kernel, seed, gemm_check_options{});
}

}  // namespace kdecl
