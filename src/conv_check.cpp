#include "kdecl/runtime/conv_check.hpp"

#include <chrono>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "kdecl/numeric/fill.hpp"
#include "kdecl/numeric/host_storage.hpp"
#include "kdecl/reference/conv_reference.hpp"
#include "kdecl/runtime/buffer.hpp"

namespace kdecl {

conv_check run_and_check(const conv_dispatcher& dispatcher, const grouped_conv_problem& problem,
                         const std::string& kernel_name, std::uint64_t seed) {
  if (auto e = problem.validate()) throw std::invalid_argument("invalid convolution problem: " + *e);
  const grouped_conv_problem p = problem.normalized();
  const device& dev = dispatcher.target();
  constexpr conv_tensor all[3] = {conv_tensor::input, conv_tensor::weight, conv_tensor::output};

  // Every tensor random (the computed one too: the kernel must overwrite it), spans as the strides give.
  std::vector<unsigned char> host[3];
  std::vector<buffer> dev_buf;
  grouped_conv_args host_args, args;
  for (int i = 0; i < 3; ++i) {
    const auto elements = std::size_t(p.span(all[i]));
    host[i].resize(elements * dtype_size_bytes(p.dtype_of(all[i])));
    numeric::fill_uniform(host[i].data(), p.dtype_of(all[i]), elements, seed + std::uint64_t(i));
    dev_buf.emplace_back(dev, host[i].size());
    dev_buf.back().upload(host[i].data(), host[i].size());
  }
  host_args = {host[0].data(), host[1].data(), host[2].data()};
  args = {dev_buf[0].data(), dev_buf[1].data(), dev_buf[2].data()};
  // A fused epilogue's bias (K values) and residual (the output's span), random in the output's dtype.
  std::vector<unsigned char> host_bias, host_residual;
  std::optional<buffer> dev_bias, dev_residual;
  const auto fused_input = [&](std::vector<unsigned char>& h, std::optional<buffer>& d, std::int64_t elements,
                               std::uint64_t salt) {
    h.resize(std::size_t(elements) * dtype_size_bytes(p.out_type));
    numeric::fill_uniform(h.data(), p.out_type, std::size_t(elements), seed + salt);
    d.emplace(dev, h.size());
    d->upload(h.data(), h.size());
    return std::pair<const void*, const void*>{h.data(), d->data()};
  };
  if (p.fusion.bias) std::tie(host_args.bias, args.bias) = fused_input(host_bias, dev_bias, p.k, 3);
  if (p.fusion.residual)
    std::tie(host_args.residual, args.residual) =
        fused_input(host_residual, dev_residual, p.span(conv_tensor::output), 4);
  const std::vector<double> ref = reference::grouped_conv(p, host_args);

  // The dispatcher's choice (a kernel, or a plain kernel and the epilogue pass), or the named kernel.
  conv_selection sel;
  std::shared_ptr<const conv_instance> kernel;
  if (kernel_name.empty()) {
    sel = dispatcher.select(p, &args);
    if (!sel) throw std::runtime_error(sel.explain());
    kernel = sel.kernel;
  } else {
    auto found = registry::global().find(kernel_name);
    if (!found || found->op() != op_kind::grouped_conv)
      throw std::runtime_error(fmt::format("no convolution kernel named '{}' is registered", kernel_name));
    kernel = std::static_pointer_cast<const conv_instance>(found);
    if (kernel->arch() != dev.arch)
      throw std::runtime_error(fmt::format("{} is built for {}, the device is {}", kernel_name,
                                           to_string(kernel->arch()), to_string(dev.arch)));
    if (auto why = conv_rejection(*kernel, p, &args)) throw std::runtime_error(kernel_name + " cannot run it: " + *why);
    sel.kernel = kernel;
  }

  // The workspace a kernel can use, poisoned: the kernel must initialise what it reads.
  buffer workspace(dev, conv_workspace_bytes(sel, p, &args));
  workspace.fill_bytes(0xFF);
  args.workspace = workspace.data();
  args.workspace_bytes = workspace.size();

  auto run_once = [&] {
    auto st = run_selected(sel, p, args, nullptr);
    if (!st) throw std::runtime_error(fmt::format("{} failed: {}", kernel->name(), st.message()));
    if (auto sync = synchronize(dev); !sync) throw std::runtime_error(sync.message());
  };
  const int result = int(p.result());
  run_once();                            // warm-up
  dev_buf[std::size_t(result)].fill_bytes(0xFF);  // then the checked run on a poisoned result
  const auto t0 = std::chrono::steady_clock::now();
  run_once();
  const auto t1 = std::chrono::steady_clock::now();

  std::vector<unsigned char> out(host[result].size());
  dev_buf[std::size_t(result)].download(out.data(), out.size());
  conv_check check;
  check.kernel = sel.composed_epilogue ? kernel->name() + " + the fused epilogue as a pass of its own" : kernel->name();
  check.error = reference::relative_error(p, out.data(), ref);
  check.tolerance = reference::tolerance(p);
  check.passed = reference::passes(check.error, check.tolerance);
  check.milliseconds = std::chrono::duration<double, std::milli>(t1 - t0).count();
  return check;
}

}  // namespace kdecl
