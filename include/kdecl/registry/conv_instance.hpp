// Type-erased grouped-convolution kernel instances: what the registry stores
// and the conv dispatcher runs (the convolution's counterpart of gemm_instance).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "kdecl/conv/grouped_conv_key.hpp"
#include "kdecl/conv/grouped_conv_name.hpp"
#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/conv_kernel.hpp"
#include "kdecl/kernels/conv/epilogue_pass.hpp"
#include "kdecl/registry/kernel_instance.hpp"

namespace kdecl {

class conv_instance : public kernel_instance {
 public:
  const grouped_conv_key& key() const { return key_; }
  op_kind op() const final { return op_kind::grouped_conv; }
  arch_id arch() const final { return key_.algo.arch; }

  // Kernel-specific refusals beyond what the dispatcher checks generically.
  virtual std::optional<std::string> why_not(const grouped_conv_problem&, const grouped_conv_args&) const = 0;
  virtual status run(const grouped_conv_problem&, const grouped_conv_args&, void* stream) const = 0;
  virtual std::size_t workspace_bytes(const grouped_conv_problem&) const = 0;
  // A forward problem's fused epilogue as a pass of its own on this kernel's backend and output
  // dtype: out = act(result + bias + residual), `result` the plain convolution in the output's
  // shape and strides (kernels/conv/epilogue_pass.hpp). What the dispatcher runs after a plain
  // kernel where no kernel compiles the problem's fusion in; only kernels that have one
  // (every declared forward kernel) are composed so.
  virtual bool has_epilogue_pass() const { return false; }
  virtual status run_epilogue_pass(const grouped_conv_problem&, const void* /*result*/, const grouped_conv_args&,
                                   void* /*stream*/) const {
    return status::error(name() + " has no fused-epilogue pass");
  }

 protected:
  explicit conv_instance(const grouped_conv_key& key) : kernel_instance(kernel_name(key)), key_(key) {}

 private:
  grouped_conv_key key_;
};

// The instance of one concrete key on one backend, forwarding to the kernel template.
template <grouped_conv_key K, backend B>
class conv_instance_of final : public conv_instance {
  using kernel = kernels::conv_kernel<K, B>;

 public:
  conv_instance_of() : conv_instance(K) {}
  std::optional<std::string> why_not(const grouped_conv_problem& p, const grouped_conv_args& a) const override {
    return kernel::why_not(p, a);
  }
  status run(const grouped_conv_problem& p, const grouped_conv_args& a, void* stream) const override {
    return kernel::run(p, a, stream);
  }
  std::size_t workspace_bytes(const grouped_conv_problem& p) const override { return kernel::workspace_bytes(p); }
  bool has_epilogue_pass() const override { return K.sig.dir == conv_direction::fwd; }
  status run_epilogue_pass(const grouped_conv_problem& p, const void* result, const grouped_conv_args& a,
                           void* stream) const override {
    if constexpr (K.sig.dir == conv_direction::fwd)
      return kernels::conv_epilogue_pass<B>::template run<K.sig.out>(p, result, a, stream);
    else
      return status::error("a backward convolution has no fused epilogue");
  }
};

}  // namespace kdecl
