#include "kdecl/runtime/fmha_check.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "kdecl/numeric/element_access.hpp"
#include "kdecl/numeric/fill.hpp"
#include "kdecl/numeric/host_storage.hpp"
#include "kdecl/fmha/fmha_tensor_elements.hpp"
#include "kdecl/reference/fmha_reference.hpp"
#include "kdecl/runtime/buffer.hpp"

namespace kdecl {
namespace {

// Bytes of a host buffer of n elements (at least one element, so that a pointer exists).
std::size_t bytes(std::size_t n, dtype d) { return std::max<std::size_t>(n, 1) * dtype_size_bytes(d); }

}  // namespace

fmha_host_inputs make_fmha_inputs(const fmha_problem& p, std::uint64_t seed) {
  fmha_host_inputs in;
  const fmha_tensor_elements elements = tensor_elements(p);
  const auto nq = std::size_t(elements.q), nk = std::size_t(elements.k), nv = std::size_t(elements.v);
  in.o_elements = std::max<std::size_t>(1, std::size_t(elements.o));
  in.q.resize(bytes(nq, p.qkv));
  in.k.resize(bytes(nk, p.qkv));
  in.v.resize(bytes(nv, p.qkv));
  numeric::fill_uniform(in.q.data(), p.qkv, nq, seed);
  numeric::fill_uniform(in.k.data(), p.qkv, nk, seed + 1);
  numeric::fill_uniform(in.v.data(), p.qkv, nv, seed + 2);
  in.lse_elements = std::max<std::size_t>(std::size_t(elements.lse), 1);
  if (p.bias == fmha_bias::elementwise) {
    const auto nb = std::size_t(elements.bias);
    in.bias.resize(bytes(nb, p.qkv));
    numeric::fill_uniform(in.bias.data(), p.qkv, nb, seed + 3);
  }
  if (p.bias == fmha_bias::alibi) {
    // ALiBi's slopes 2^(-8 (h + 1) / H); per batch, scaled so sequences differ.
    const std::int64_t n = (p.alibi_per_batch ? p.batch : 1) * p.heads_q;
    for (std::int64_t i = 0; i < n; ++i)
      in.alibi_slopes.push_back(float(std::exp2(-8.0 * double(i % p.heads_q + 1) / double(p.heads_q)) *
                                      (1.0 + 0.25 * double(i / p.heads_q))));
  }
  if (p.sinks) {
    std::mt19937_64 engine(seed + 4);
    for (std::int64_t h = 0; h < p.heads_q; ++h) in.sinks.push_back(float(double(engine() >> 11) * 0x1p-53 * 4.0 - 2.0));
  }
  return in;
}

fmha_check run_and_check(const fmha_dispatcher& dispatcher, const fmha_problem& problem,
                         const fmha_check_options& options) {
  if (auto e = problem.validate()) throw std::invalid_argument("invalid attention problem: " + *e);
  const fmha_problem p = problem.normalized();
  const device& dev = dispatcher.target();
  const fmha_host_inputs in = make_fmha_inputs(p, options.seed);

  fmha_args host_args;
  host_args.q = in.q.data();
  host_args.k = in.k.data();
  host_args.v = in.v.data();
  host_args.bias = in.bias.empty() ? nullptr : in.bias.data();
  host_args.alibi_slopes = in.alibi_slopes.empty() ? nullptr : in.alibi_slopes.data();
  host_args.sinks = in.sinks.empty() ? nullptr : in.sinks.data();
  const reference::fmha_result ref = reference::fmha(p, host_args);

  auto upload = [&](const void* data, std::size_t n) {
    buffer b(dev, std::max<std::size_t>(n, 1));
    if (n > 0) b.upload(data, n);
    return b;
  };
  buffer dq = upload(in.q.data(), in.q.size()), dk = upload(in.k.data(), in.k.size()),
         dv = upload(in.v.data(), in.v.size());
  buffer dbias = upload(in.bias.data(), in.bias.size());
  buffer dslopes = upload(in.alibi_slopes.data(), in.alibi_slopes.size() * sizeof(float));
  buffer dsinks = upload(in.sinks.data(), in.sinks.size() * sizeof(float));
  buffer dcq = upload(p.cu_seqlens_q.data(), p.cu_seqlens_q.size() * sizeof(std::int32_t));
  buffer dckv = upload(p.cu_seqlens_kv.data(), p.cu_seqlens_kv.size() * sizeof(std::int32_t));
  const std::size_t o_bytes = in.o_elements * dtype_size_bytes(p.o);
  buffer dout(dev, o_bytes), dlse(dev, in.lse_elements * sizeof(float));

  fmha_args args;
  args.q = dq.data();
  args.k = dk.data();
  args.v = dv.data();
  args.o = dout.data();
  args.lse = p.lse ? static_cast<float*>(dlse.data()) : nullptr;
  args.bias = in.bias.empty() ? nullptr : dbias.data();
  args.alibi_slopes = in.alibi_slopes.empty() ? nullptr : static_cast<const float*>(dslopes.data());
  args.sinks = in.sinks.empty() ? nullptr : static_cast<const float*>(dsinks.data());
  if (p.group_mode()) {
    args.cu_seqlens_q = static_cast<const std::int32_t*>(dcq.data());
    args.cu_seqlens_kv = static_cast<const std::int32_t*>(dckv.data());
  }

  std::shared_ptr<const fmha_instance> kernel;
  if (options.kernel.empty()) {
    auto sel = dispatcher.select(p, &args);
    if (!sel) throw std::runtime_error(sel.explain());
    kernel = sel.kernel;
  } else {
    auto found = registry::global().find(options.kernel);
    if (!found || found->op() != op_kind::fmha)
      throw std::runtime_error(fmt::format("no attention kernel named '{}' is registered", options.kernel));
    kernel = std::static_pointer_cast<const fmha_instance>(found);
    if (kernel->arch() != dev.arch)
      throw std::runtime_error(fmt::format("{} is built for {}, the device is {}", options.kernel,
                                           to_string(kernel->arch()), to_string(dev.arch)));
    if (auto why = fmha_rejection(*kernel, p, &args)) throw std::runtime_error(options.kernel + " cannot run it: " + *why);
  }

  auto run_once = [&] {
    auto st = kernel->run(p, args, nullptr);
    if (!st) throw std::runtime_error(fmt::format("{} failed: {}", kernel->name(), st.message()));
    if (auto sync = synchronize(dev); !sync) throw std::runtime_error(sync.message());
  };
  if (options.warm_up) run_once();
  dout.fill_bytes(0xFF);  // NaN in every float dtype: an element the kernel forgets cannot pass
  dlse.fill_bytes(0xFF);
  const auto t0 = std::chrono::steady_clock::now();
  run_once();
  const auto t1 = std::chrono::steady_clock::now();

  std::vector<unsigned char> out(o_bytes);
  dout.download(out.data(), out.size());
  std::vector<float> lse(in.lse_elements);
  dlse.download(lse.data(), lse.size() * sizeof(float));

  // The outputs in the reference's logical order.
  const std::int64_t hq = p.heads_q, dvd = p.hdim_v;
  std::vector<double> o_logical(ref.o.size()), lse_logical;
  if (p.lse) lse_logical.resize(ref.lse.size());
  for (std::int64_t b = 0; b < p.batch; ++b) {
    const std::int64_t first = p.group_mode() ? p.cu_seqlens_q[std::size_t(b)] : b * p.seqlen_q;
    for (std::int64_t i = 0; i < p.seqlen_q_of(b); ++i)
      for (std::int64_t h = 0; h < hq; ++h) {
        const std::int64_t r = first + i;
        const std::int64_t at = reference::detail::row_offset(p, p.o_strides, p.cu_seqlens_q, b, i, h);
        for (std::int64_t d = 0; d < dvd; ++d)
          o_logical[std::size_t((r * hq + h) * dvd + d)] = numeric::load_as_double(out.data(), p.o, std::size_t(at + d));
        if (p.lse) {
          const std::int64_t l = p.group_mode() ? h * p.lse_head_stride + r
                                                : b * p.lse_batch_stride + h * p.lse_head_stride + i;
          lse_logical[std::size_t(r * hq + h)] = lse[std::size_t(l)];
        }
      }
  }
  const reference::fmha_errors err = reference::compare(ref, o_logical, lse_logical);
  fmha_check check;
  check.kernel = kernel->name();
  check.o_error = err.o;
  check.lse_error = err.lse;
  check.o_tolerance = reference::o_tolerance(p.o);
  check.lse_tolerance = reference::lse_tolerance(p.qkv);
  check.passed = err.o <= check.o_tolerance && err.lse <= check.lse_tolerance;  // NaN fails both
  check.milliseconds = std::chrono::duration<double, std::milli>(t1 - t0).count();
  return check;
}

}  // namespace kdecl
