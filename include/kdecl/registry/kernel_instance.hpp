// Type-erased kernel instances: what the registry stores and the dispatcher runs.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "kdecl/core/enums.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/fmha/fmha_key.hpp"
#include "kdecl/fmha/fmha_name.hpp"
#include "kdecl/fmha/fmha_problem.hpp"
#include "kdecl/fmha/paged_kv.hpp"
#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/gemm/gemm_name.hpp"
#include "kdecl/gemm/gemm_problem.hpp"
#include "kdecl/kernels/fmha/fmha_kernel.hpp"
#include "kdecl/kernels/fmha/fmha_paged_kernel.hpp"
#include "kdecl/kernels/gemm/gemm_kernel.hpp"

namespace kdecl {

// Op-generic part: every registered kernel has an operation, an arch and a unique name.
class kernel_instance {
 public:
  virtual ~kernel_instance() = default;
  virtual op_kind op() const = 0;
  virtual arch_id arch() const = 0;
  const std::string& name() const { return name_; }

 protected:
  explicit kernel_instance(std::string name) : name_(std::move(name)) {}

 private:
  std::string name_;
};

class gemm_instance : public kernel_instance {
 public:
  const gemm_key& key() const { return key_; }
  op_kind op() const final { return op_kind::gemm; }
  arch_id arch() const final { return key_.algo.arch; }

  // Kernel-specific refusals beyond what the dispatcher checks generically.
  virtual std::optional<std::string> why_not(const gemm_problem&, const gemm_args&) const = 0;
  virtual status run(const gemm_problem&, const gemm_args&, void* stream) const = 0;
  virtual std::size_t workspace_bytes(const gemm_problem&) const = 0;

 protected:
  explicit gemm_instance(const gemm_key& key) : kernel_instance(kernel_name(key)), key_(key) {}

 private:
  gemm_key key_;
};

// The instance of one concrete key on one backend, forwarding to the kernel template.
template <gemm_key K, backend B>
class gemm_instance_of final : public gemm_instance {
  using kernel = kernels::gemm_kernel<K, B>;

 public:
  gemm_instance_of() : gemm_instance(K) {}
  std::optional<std::string> why_not(const gemm_problem& p, const gemm_args& a) const override {
    return kernel::why_not(p, a);
  }
  status run(const gemm_problem& p, const gemm_args& a, void* stream) const override {
    return kernel::run(p, a, stream);
  }
  std::size_t workspace_bytes(const gemm_problem& p) const override {
    return kernel::workspace_bytes(p);
  }
};

class fmha_instance : public kernel_instance {
 public:
  const fmha_key& key() const { return key_; }
  op_kind op() const final { return op_kind::fmha; }
  arch_id arch() const final { return key_.algo.arch; }

  // Kernel-specific refusals beyond what the dispatcher checks generically.
  virtual std::optional<std::string> why_not(const fmha_problem&, const fmha_args&) const = 0;
  virtual status run(const fmha_problem&, const fmha_args&, void* stream) const = 0;
  virtual std::size_t workspace_bytes(const fmha_problem&) const = 0;

 protected:
  explicit fmha_instance(const fmha_key& key) : kernel_instance(kernel_name(key)), key_(key) {}

 private:
  fmha_key key_;
};

template <fmha_key K, backend B>
class fmha_instance_of final : public fmha_instance {
  using kernel = kernels::fmha_kernel<K, B>;

 public:
  fmha_instance_of() : fmha_instance(K) {}
  std::optional<std::string> why_not(const fmha_problem& p, const fmha_args& a) const override {
    return kernel::why_not(p, a);
  }
  status run(const fmha_problem& p, const fmha_args& a, void* stream) const override { return kernel::run(p, a, stream); }
  std::size_t workspace_bytes(const fmha_problem& p) const override { return kernel::workspace_bytes(p); }
};

// A serving-attention kernel (a paged family: is_paged_family(key().sig.family)). It is an
// attention kernel of the registry like the forward ones, but takes fmha_paged_problem
// through fmha_paged_dispatcher; the forward interface refuses every fmha_problem.
class fmha_paged_instance : public fmha_instance {
 public:
  std::optional<std::string> why_not(const fmha_problem&, const fmha_args&) const final {
    return std::string("a paged-cache kernel (family ") + std::string(to_string(key().sig.family)) +
           "): it runs fmha_paged_problem through fmha_paged_dispatcher";
  }
  status run(const fmha_problem& p, const fmha_args& a, void*) const final {
    return status::error(*why_not(p, a));
  }
  std::size_t workspace_bytes(const fmha_problem&) const final { return 0; }

  virtual std::optional<std::string> why_not_paged(const fmha_paged_problem&, const fmha_paged_args&) const = 0;
  // Splits and workspace of a run, planned once (kernels::paged_plan).
  virtual kernels::paged_plan plan_paged(const fmha_paged_problem&) const = 0;
  virtual status run_paged(const fmha_paged_problem&, const fmha_paged_args&, void* stream) const = 0;

 protected:
  explicit fmha_paged_instance(const fmha_key& key) : fmha_instance(key) {}
};

template <fmha_key K, backend B>
class fmha_paged_instance_of final : public fmha_paged_instance {
  using kernel = kernels::fmha_paged_kernel<K, B>;

 public:
  fmha_paged_instance_of() : fmha_paged_instance(K) {}
  // The kernels take normalized, valid problems (the dispatcher's); a caller that comes to
  // the registered kernel directly gets the problem's own rule back, never a launch of an
  // invalid problem (e.g. an fp8 cache whose 120-byte rows a 16-byte copy cannot read).
  std::optional<std::string> why_not_paged(const fmha_paged_problem& p, const fmha_paged_args& a) const override {
    if (auto e = p.validate()) return e;
    return kernel::why_not(p.normalized(), a);
  }
  kernels::paged_plan plan_paged(const fmha_paged_problem& p) const override {
    return p.validate() ? kernels::paged_plan{} : kernel::plan_of(p.normalized());
  }
  status run_paged(const fmha_paged_problem& p, const fmha_paged_args& a, void* stream) const override {
    if (auto e = p.validate()) return status::error(*e);
    return kernel::run(p.normalized(), a, stream);
  }
};

}  // namespace kdecl
