#include "kdecl/fmha/fmha_paged_dispatcher.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <thread>

#include <fmt/format.h>

#include "kdecl/arch/arch.hpp"

namespace kdecl {
namespace {

// Pointers as a caller with none yet would pass them: given, 256-byte aligned.
fmha_paged_args assumed_args(const fmha_paged_problem& p) {
  auto* aligned = reinterpret_cast<void*>(std::uintptr_t{256});
  const auto* ints = static_cast<const std::int32_t*>(aligned);
  const auto* floats = static_cast<const float*>(aligned);
  fmha_paged_args a;
  a.q = a.k_new = a.v_new = aligned;
  a.o = a.k_cache = a.v_cache = aligned;
  a.lse = p.lse ? static_cast<float*>(aligned) : nullptr;
  a.block_table = a.page_list = a.page_offsets = a.seqlens_kv = a.cu_seqlens_q = ints;
  a.sinks = p.sinks ? floats : nullptr;
  a.k_scale = a.v_scale = floats;
  a.rope_cos = a.rope_sin = floats;
  return a;
}

}  // namespace

std::optional<std::string> fmha_paged_rejection(const fmha_paged_instance& kernel, const fmha_paged_problem& p,
                                                const fmha_paged_args* args, int* closeness) {
  const fmha_key& k = kernel.key();
  const fmha_signature& s = k.sig;
  dispatch::staged_check check(closeness);
  if (s.family != p.family)
    return check.reject(fmt::format("family is {}, the problem's is {}", to_string(s.family), to_string(p.family)));
  check.passed_stage();  // (each signature check a stage: a kernel that differs later is closer)
  if (s.qkv != p.qkv) return check.reject(fmt::format("Q/O dtype is {}, the problem's is {}", to_string(s.qkv), to_string(p.qkv)));
  check.passed_stage();
  const dtype cache = s.cache == dtype::any ? s.qkv : s.cache;
  if (cache != p.cache_dtype())
    return check.reject(fmt::format("cache dtype is {}, the problem's is {}", to_string(cache), to_string(p.cache_dtype())));
  check.passed_stage();
  if (p.family != fmha_family::fwd_appendkv) {
    if (s.mask != fmha_mask::generic && s.mask != p.mask)
      return check.reject(fmt::format("mask is {} (generic takes every mask), the problem's is {}", to_string(s.mask),
                                      to_string(p.mask)));
    if (p.soft_cap > 0.0f && !s.logits_soft_cap) return check.reject("has no logit soft-cap, the problem needs it");
    if (p.sinks && !s.sink) return check.reject("has no sinks, the problem needs them");
    if (p.lse && !s.lse) return check.reject("cannot write the LSE the problem asks for");
  }
  check.passed_stage();

  if (p.hdim > s.hdim_q) return check.reject(fmt::format("hdim = {} is larger than the kernel's {}", p.hdim, s.hdim_q));
  if (p.hdim < s.hdim_q && k.algo.pad_d != tristate::yes)
    return check.reject(fmt::format("hdim = {} is smaller than the kernel's {} and the kernel does not pad it", p.hdim,
                                    s.hdim_q));
  check.passed_stage();

  const fmha_paged_args assumed = assumed_args(p);
  if (auto why = kernel.why_not_paged(p, args ? *args : assumed)) return check.reject(*why);
  return check.accept();
}

// Bytes over bandwidth for the memory-bound families, with the padded head dim the kernel
// moves through shared memory and the waves its blocks take; prefill adds its compute.
double fmha_paged_estimate_us(const fmha_key& key, const fmha_paged_problem& p) {
  const auto& a = key.algo;
  const auto& spec = arch::spec_of(a.arch);
  double processors = 1.0, bandwidth = 20e9, tflops = 0.02, launch_us = 3.0;
  if (a.arch == arch_id::host) {
    processors = std::max(1u, std::thread::hardware_concurrency());
    tflops = 0.01 * processors;
    launch_us = 5.0;
  } else {
    processors = spec.sm_count;
    bandwidth = spec.mem_bandwidth_gbs * 1e9 * 0.85;
    if (spec.peak_tflops(key.sig.qkv) > 0) tflops = spec.peak_tflops(key.sig.qkv);
  }
  const double padding = double(key.sig.hdim_q) / double(std::max<std::int64_t>(p.hdim, 1));
  double bytes = p.bytes() * padding;
  if (p.family == fmha_family::fwd_appendkv)  // reads the new K/V (and Q), writes them into the pages
    bytes = 2.0 * double(p.batch * p.seqlen_q) * double(p.heads_q + 2 * p.heads_kv) * double(p.hdim) * 2.0;
  double seconds = bytes / bandwidth;
  const bool decode = p.family == fmha_family::fwd_pagedkv || p.family == fmha_family::fwd_splitkv;
  if (decode && a.arch != arch_id::host) {
    // One block per (sequence, KV head, m0 query rows[, split]): fewer blocks than processors
    // leave bandwidth unused (the split plan fills the device; this ranks between tiles).
    const std::int64_t m0 = std::max(1, key.algo.tile.m0);
    const double blocks = double(p.batch * p.heads_kv * ((p.group() * p.seqlen_q + m0 - 1) / m0));
    if (blocks < processors && p.family == fmha_family::fwd_pagedkv) seconds *= processors / blocks;
  }
  if (p.family == fmha_family::batch_prefill) {
    double pairs = 0.0;
    for (std::int64_t b = 0; b < p.batch; ++b) {
      const double sq = double(p.q_len(b)), skv = double(p.seqlens_kv[std::size_t(b)]);
      pairs += p.mask == fmha_mask::none ? sq * skv : sq * std::max(0.0, skv - sq / 2.0);
    }
    const double flops = 4.0 * double(p.heads_q) * double(key.sig.hdim_q) * pairs;
    // The share of peak each prefill kernel reaches (the forward dispatcher's rates): tma_wgmma_ws 70%,
    // mma_sync 35% on sm_90 and 60% on sm_80.
    const double efficiency = a.arch == arch_id::host                ? 1.0
                              : a.pipe == fmha_pipeline::tma_wgmma_ws ? 0.7
                              : a.arch == arch_id::sm_90             ? 0.35
                                                                     : 0.6;
    seconds = std::max(seconds, flops / (tflops * 1e12 * efficiency));
  }
  const double second_launch = p.family == fmha_family::fwd_splitkv ? launch_us * 0.5 : 0.0;
  return launch_us + second_launch + 1e6 * seconds;
}

std::string fmha_paged_selection::explain(std::size_t max_candidates) const {
  if (!problem_error.empty()) return "invalid paged attention problem: " + problem_error;
  if (kernel) {
    std::string how = splits > 1 ? fmt::format(", split-KV in {} splits + combine, workspace {} bytes", splits, workspace_bytes)
                                 : std::string();
    return fmt::format("selected {} (estimated {:.1f} us{})", kernel->name(), estimated_us, how);
  }
  return dispatch::describe_refusals("paged attention", rejected, max_candidates);
}

struct fmha_paged_dispatcher::index {
  std::uint64_t generation = 0;
  std::vector<std::shared_ptr<const fmha_paged_instance>> kernels;
};

fmha_paged_dispatcher::fmha_paged_dispatcher(device dev, const registry& reg)
    : device_(std::move(dev)), registry_(&reg), workspaces_(device_) {}

std::shared_ptr<const fmha_paged_dispatcher::index> fmha_paged_dispatcher::current_index() const {
  std::lock_guard lock(mutex_);
  const auto gen = registry_->generation();
  if (!index_ || index_->generation != gen) {
    auto idx = std::make_shared<index>();
    idx->generation = gen;
    for (const auto& e : registry_->filter([&](const registered_kernel& k) {
           return k.instance->op() == op_kind::fmha && k.instance->arch() == device_.arch;
         }))
      if (auto paged = std::dynamic_pointer_cast<const fmha_paged_instance>(e.instance)) idx->kernels.push_back(paged);
    index_ = std::move(idx);
  }
  return index_;
}

namespace {

using paged_kernels = std::vector<std::shared_ptr<const fmha_paged_instance>>;
using paged_ranking = std::vector<std::pair<std::shared_ptr<const fmha_paged_instance>, double>>;

// ranked(), select() and run() on a problem already validated and normalized (once per call).
paged_ranking rank(const paged_kernels& kernels, const fmha_paged_problem& p, const fmha_paged_args* args) {
  paged_ranking out;
  for (const auto& k : kernels)
    if (!fmha_paged_rejection(*k, p, args)) out.emplace_back(k, fmha_paged_estimate_us(k->key(), p));
  std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
  return out;
}

fmha_paged_selection choose(const paged_kernels& kernels, const fmha_paged_problem& p, const fmha_paged_args* args,
                            bool explain_all) {
  fmha_paged_selection sel;
  if (auto best = rank(kernels, p, args); !best.empty()) {
    sel.kernel = best.front().first;
    sel.estimated_us = best.front().second;
    const auto plan = sel.kernel->plan_paged(p);  // once: a CUDA plan asks the device's occupancy
    sel.splits = plan.splits;
    sel.workspace_bytes = plan.workspace_bytes;
  }
  if (!sel.kernel || explain_all) {
    for (const auto& k : kernels) {
      int closeness = 0;
      if (auto why = fmha_paged_rejection(*k, p, args, &closeness)) sel.rejected.push_back({k->name(), *why, closeness});
    }
    dispatch::sort_closest_first(sel.rejected);
  }
  return sel;
}

}  // namespace

std::vector<std::pair<std::shared_ptr<const fmha_paged_instance>, double>> fmha_paged_dispatcher::ranked(
    const fmha_paged_problem& problem, const fmha_paged_args* args) const {
  if (problem.validate()) return {};
  return rank(current_index()->kernels, problem.normalized(), args);
}

fmha_paged_selection fmha_paged_dispatcher::select(const fmha_paged_problem& problem, const fmha_paged_args* args,
                                                   bool explain_all) const {
  if (auto e = problem.validate()) {
    fmha_paged_selection sel;
    sel.problem_error = *e;
    return sel;
  }
  return choose(current_index()->kernels, problem.normalized(), args, explain_all);
}

status fmha_paged_dispatcher::run(const fmha_paged_problem& problem, const fmha_paged_args& args, void* stream) const {
  if (auto e = problem.validate()) return status::error("invalid paged attention problem: " + *e);
  const fmha_paged_problem p = problem.normalized();
  const auto sel = choose(current_index()->kernels, p, &args, false);
  if (!sel) return status::error(sel.explain());
  fmha_paged_args with_workspace = args;
  const std::size_t wanted = sel.workspace_bytes;  // the plan choose() made (a CUDA plan queries occupancy)
  if (wanted > 0 && (args.workspace == nullptr || args.workspace_bytes < wanted)) {
    const auto lent = workspaces_.lend(stream, wanted);  // the dispatcher's own, one per stream
    with_workspace.workspace = lent.data;
    with_workspace.workspace_bytes = lent.bytes;
  }
  return sel.kernel->run_paged(p, with_workspace, stream);
}

}  // namespace kdecl
