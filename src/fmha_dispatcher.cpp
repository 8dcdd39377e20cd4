#include "kdecl/fmha/fmha_dispatcher.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <thread>

#include <fmt/format.h>

#include "kdecl/arch/arch.hpp"
#include "kdecl/arch/fmha_specs.hpp"

namespace kdecl {
namespace {

std::int64_t bytes_of(dtype d) { return bits_of(d) / 8 > 0 ? bits_of(d) / 8 : 1; }

const arch::fmha::pipeline_offer* offer_of(const fmha_key& k) {
  return arch::fmha::find_pipeline(arch::fmha::spec_of(k.algo.arch), k.algo.pipe);
}

// The pipeline's access width in bytes (0 in the table: one element).
int access_bytes(const fmha_key& k) {
  const auto* po = offer_of(k);
  const int w = po != nullptr ? po->access_bytes : 0;
  return w > 0 ? w : int(bytes_of(k.sig.qkv));
}

std::optional<std::string> signature_mismatch(const fmha_signature& s, const fmha_signature& q) {
  auto differ = [](const char* what, auto kernel, auto problem) -> std::optional<std::string> {
    if (kernel != problem)
      return fmt::format("{} is {}, the problem's is {}", what, to_string(kernel), to_string(problem));
    return std::nullopt;
  };
  auto flag = [](const char* what, bool kernel, bool problem) -> std::optional<std::string> {
    if (kernel != problem)
      return fmt::format("{} {}, the problem {}", kernel ? "computes" : "has no", what, problem ? "needs it" : "does not");
    return std::nullopt;
  };
  if (auto e = differ("family", s.family, q.family)) return e;
  if (auto e = differ("Q/K/V dtype", s.qkv, q.qkv)) return e;
  if (auto e = differ("O dtype", s.o, q.o)) return e;
  if (auto e = differ("mode", s.mode, q.mode)) return e;
  if (auto e = differ("mask", s.mask, q.mask)) return e;
  if (auto e = differ("bias", s.bias, q.bias)) return e;
  if (auto e = flag("the logit soft-cap", s.logits_soft_cap, q.logits_soft_cap)) return e;
  if (auto e = flag("sinks", s.sink, q.sink)) return e;
  if (auto e = flag("dropout", s.dropout, q.dropout)) return e;
  if (s.v_layout != q.v_layout) return std::string("V layout differs");
  if (q.lse && !s.lse) return std::string("cannot write the LSE the problem asks for");
  return std::nullopt;
}

// signature_mismatch() without the message: the hot filter of ranked().
bool signature_matches(const fmha_signature& s, const fmha_signature& q) {
  return s.family == q.family && s.qkv == q.qkv && s.o == q.o && s.mode == q.mode && s.mask == q.mask &&
         s.bias == q.bias && s.logits_soft_cap == q.logits_soft_cap && s.sink == q.sink && s.dropout == q.dropout &&
         s.v_layout == q.v_layout && (s.lse || !q.lse);
}

fmha_args assumed_args(const fmha_problem& p) {
  const void* aligned = reinterpret_cast<const void*>(std::uintptr_t{256});
  fmha_args a;
  a.q = a.k = a.v = aligned;
  a.o = const_cast<void*>(aligned);
  if (p.lse) a.lse = static_cast<float*>(const_cast<void*>(aligned));
  if (p.bias == fmha_bias::elementwise) a.bias = aligned;
  if (p.bias == fmha_bias::alibi) a.alibi_slopes = static_cast<const float*>(aligned);
  if (p.sinks) a.sinks = static_cast<const float*>(aligned);
  if (p.group_mode()) {
    a.cu_seqlens_q = p.cu_seqlens_q.data();
    a.cu_seqlens_kv = p.cu_seqlens_kv.data();
  }
  return a;
}

}  // namespace

std::optional<std::string> fmha_rejection(const fmha_instance& kernel, const fmha_problem& p, const fmha_args* args,
                                          int* closeness) {
  const fmha_key& k = kernel.key();
  int stage = 0;
  auto reject = [&](std::string why) -> std::optional<std::string> {
    if (closeness) *closeness = stage;
    return why;
  };
  if (auto e = signature_mismatch(k.sig, p.signature())) return reject(*e);
  ++stage;

  const auto& a = k.algo;
  auto head_dim = [&](const char* what, std::int64_t problem, int kernel_dim, tristate pad) -> std::optional<std::string> {
    if (problem > kernel_dim)
      return fmt::format("{} = {} is larger than the kernel's {}", what, problem, kernel_dim);
    if (problem < kernel_dim && pad != tristate::yes)
      return fmt::format("{} = {} is smaller than the kernel's {} and the kernel does not pad it", what, problem,
                         kernel_dim);
    return std::nullopt;
  };
  if (auto e = head_dim("hdim_q", p.hdim_q, k.sig.hdim_q, a.pad_d)) return reject(*e);
  if (auto e = head_dim("hdim_v", p.hdim_v, k.sig.hdim_v, a.pad_dv)) return reject(*e);
  for (std::int64_t b = 0; b < p.batch; ++b) {
    if (a.pad_s != tristate::yes && p.seqlen_q_of(b) % a.tile.m0 != 0)
      return reject(fmt::format("seqlen_q = {} (sequence {}) is not a multiple of tile m0 = {} and the kernel does not "
                                "pad query rows", p.seqlen_q_of(b), b, a.tile.m0));
    if (a.pad_sk != tristate::yes && p.seqlen_kv_of(b) % a.tile.n0 != 0)
      return reject(fmt::format("seqlen_kv = {} (sequence {}) is not a multiple of tile n0 = {} and the kernel does not "
                                "pad keys", p.seqlen_kv_of(b), b, a.tile.n0));
    if (!p.group_mode()) break;  // one length for every sequence
  }
  ++stage;

  const int vb = access_bytes(k);
  const std::int64_t e = bytes_of(p.qkv);
  auto aligned = [&](std::string what, std::int64_t elements) -> std::optional<std::string> {
    if ((elements * e) % vb != 0)
      return fmt::format("{} = {} elements ({} bytes) is not a multiple of the kernel's {}-byte access width", what,
                         elements, elements * e, vb);
    return std::nullopt;
  };
  if (auto r = aligned("hdim_q", p.hdim_q)) return reject(*r);
  if (auto r = aligned("hdim_v", p.hdim_v)) return reject(*r);
  for (auto [name, s] : {std::pair{"Q", p.q_strides}, {"K", p.k_strides}, {"V", p.v_strides}, {"O", p.o_strides}}) {
    if (auto r = aligned(fmt::format("seq stride of {}", name), s.seq)) return reject(*r);
    if (auto r = aligned(fmt::format("head stride of {}", name), s.head)) return reject(*r);
    if (!p.group_mode())
      if (auto r = aligned(fmt::format("batch stride of {}", name), s.batch)) return reject(*r);
  }
  // The bias is read one element at a time (its rows are as long as the keys, often odd):
  // any strides, and a pointer aligned to its element (below).
  if (args) {
    auto ptr = [&](const char* what, const void* q) -> std::optional<std::string> {
      if (q != nullptr && reinterpret_cast<std::uintptr_t>(q) % std::uintptr_t(vb) != 0)
        return fmt::format("pointer {} = {} is not aligned to the kernel's {}-byte access width", what, q, vb);
      return std::nullopt;
    };
    for (auto [what, q] : {std::pair<const char*, const void*>{"Q", args->q}, {"K", args->k}, {"V", args->v},
                           {"O", args->o}})
      if (auto r = ptr(what, q)) return reject(*r);
    if (p.bias == fmha_bias::elementwise && args->bias != nullptr &&
        reinterpret_cast<std::uintptr_t>(args->bias) % std::uintptr_t(e) != 0)
      return reject(fmt::format("pointer bias = {} is not aligned to its {}-byte element", args->bias, e));
  }
  ++stage;

  if (a.arch != arch_id::host && (p.batch > 65535 || p.heads_q > 65535))
    return reject(fmt::format("batch = {} and heads_q = {} must each be at most 65535 (grid dimensions)", p.batch,
                              p.heads_q));
  ++stage;

  if (auto r = kernel.why_not(p, args ? *args : assumed_args(p))) return reject(*r);
  if (closeness) *closeness = stage + 1;
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// Ranking: an estimate of the kernel's time. Work is counted as the kernel does
// it: every m0 x n0 score tile a query block visits (the mask's band, whole
// tiles), with the head dims padded to the kernel's k0max and n1; blocks run in
// waves over the processors; the memory bound is the problem's compulsory bytes.

double fmha_estimate_us(const fmha_key& key, const fmha_problem& p) {
  const auto& a = key.algo;
  const auto& spec = arch::spec_of(a.arch);
  const auto* po = offer_of(key);
  double processors = 1.0, tflops = 0.02, bandwidth = 20e9, efficiency = 1.0, launch_us = 3.0;
  double slots_per_processor = 1.0;
  if (a.arch == arch_id::host) {
    processors = std::max(1u, std::thread::hardware_concurrency());
    tflops = 0.01 * processors;  // ~10 GFLOP/s per core for the fp32 host kernel
    launch_us = 5.0;
  } else {
    processors = spec.sm_count;
    bandwidth = spec.mem_bandwidth_gbs * 1e9 * 0.7;
    if (spec.peak_tflops(key.sig.qkv) > 0) tflops = spec.peak_tflops(key.sig.qkv);
    // FlashAttention-2-style mma.sync kernels reach ~70% of peak on A100 and ~35% on H100; the
    // FlashAttention-3-style tma_wgmma_ws kernels are ranked at 70% (FlashAttention-3: 60-75% of H100 peak).
    efficiency = a.pipe == fmha_pipeline::mma_sync ? (a.arch == arch_id::sm_90 ? 0.35 : 0.6) : 0.7;
    if (po != nullptr && po->smem_capacity > 0) {
      const long smem = arch::fmha::smem_bytes(po->smem, key);
      const double by_smem = smem > 0 ? std::floor(double(po->smem_capacity + 1024) / double(smem + 1024)) : 8.0;
      const double threads = double(a.warps0.m * a.warps0.n * a.warps0.k + (po ? po->extra_warps : 0)) * 32.0;
      slots_per_processor = std::max(1.0, std::min({by_smem, std::floor(2048.0 / threads), 8.0}));
    }
    // The warp-specialized kernels split the whole register file between their warpgroups
    // (setmaxnreg): one block per SM whatever the shared memory would allow.
    if (a.pipe == fmha_pipeline::tma_wgmma_ws) slots_per_processor = 1.0;
  }
  const double m0 = a.tile.m0, n0 = a.tile.n0;
  // GPU kernels compute the padded head dims; the host kernel the problem's own.
  const double dims = a.arch == arch_id::host ? double(p.hdim_q + p.hdim_v) : double(a.tile.k0max + a.tile.n1);
  const double per_tile_flops = 2.0 * m0 * n0 * dims;
  double tiles = 0.0, blocks = 0.0;
  for (std::int64_t b = 0; b < p.batch; ++b) {
    const std::int64_t sq = p.seqlen_q_of(b), skv = p.seqlen_kv_of(b);
    const fmha_visibility vis = fmha_visibility::of(p, sq, skv);
    double seq_tiles = 0.0, seq_blocks = 0.0;
    for (std::int64_t i0 = 0; i0 < sq; i0 += a.tile.m0) {
      const std::int64_t i1 = std::min<std::int64_t>(sq, i0 + a.tile.m0) - 1;
      const std::int64_t lo = vis.left < 0 ? 0 : std::max<std::int64_t>(0, i0 + vis.offset - vis.left);
      const std::int64_t hi = vis.right < 0 ? skv - 1 : std::min<std::int64_t>(skv - 1, i1 + vis.offset + vis.right);
      if (hi >= lo) seq_tiles += double(hi / a.tile.n0 - lo / a.tile.n0 + 1);
      seq_blocks += 1.0;
    }
    const double copies = p.group_mode() ? 1.0 : double(p.batch);
    tiles += seq_tiles * copies;
    blocks += seq_blocks * copies;
    if (!p.group_mode()) break;
  }
  tiles *= double(p.heads_q);
  blocks *= double(p.heads_q);
  if (blocks == 0.0) return launch_us;
  const double rate = tflops * 1e12 * efficiency;  // flop/s over the whole device
  const double slots = processors * slots_per_processor;
  const double waves = std::ceil(blocks / slots);
  const double compute_s = tiles * per_tile_flops / rate * (waves * slots / blocks);
  const double memory_s = p.bytes() / bandwidth;
  // A hundredth of the compute time on top: where launch or memory bound hides it, the kernel that
  // pads the head dims less still ranks first (hdim 64 on the 64 kernel, not the 128 one).
  return launch_us + 1e6 * (std::max(compute_s, memory_s) + 0.01 * compute_s);
}

// ---------------------------------------------------------------------------

std::string fmha_selection::explain(std::size_t max_candidates) const {
  if (!problem_error.empty()) return "invalid attention problem: " + problem_error;
  std::string out;
  if (kernel) {
    out = tier == "analytical model"
              ? fmt::format("selected {} (estimated {:.1f} us)", kernel->name(), estimated_us)
              : fmt::format("selected {} by the {} (analytical estimate {:.1f} us)", kernel->name(), tier, estimated_us);
  } else if (rejected.empty()) {
    out = "no attention kernel is registered for this device's arch";
  } else {
    out = fmt::format("no registered attention kernel can run this problem; the {} closest of {} candidates:",
                      std::min(max_candidates, rejected.size()), rejected.size());
    for (std::size_t i = 0; i < rejected.size() && i < max_candidates; ++i)
      out += fmt::format("\n  {}: {}", rejected[i].kernel, rejected[i].reason);
  }
  for (const auto& n : tier_notes) out += "\n  " + n;
  return out;
}

// Attention kernels of the device's arch in name order, rebuilt when the registry grows.
struct fmha_dispatcher::index {
  std::uint64_t generation = 0;
  std::vector<std::shared_ptr<const fmha_instance>> kernels;
};

namespace {
std::atomic<fmha_tier_factory> default_fmha_tiers{nullptr};
}

void set_default_fmha_tiers(fmha_tier_factory factory) { default_fmha_tiers.store(factory); }

fmha_dispatcher::fmha_dispatcher(device dev, const registry& reg) : device_(std::move(dev)), registry_(&reg) {
  if (auto factory = default_fmha_tiers.load()) tiers_ = factory(device_, *registry_, tier_load_notes_);
}

void fmha_dispatcher::add_tier(std::shared_ptr<const fmha_selection_tier> tier, bool first) {
  tiers_.insert(first ? tiers_.begin() : tiers_.end(), std::move(tier));
}

void fmha_dispatcher::clear_tiers() {
  tiers_.clear();
  tier_load_notes_.clear();
}

std::shared_ptr<const fmha_dispatcher::index> fmha_dispatcher::current_index() const {
  std::lock_guard lock(mutex_);
  const auto gen = registry_->generation();
  if (!index_ || index_->generation != gen) {
    auto idx = std::make_shared<index>();
    idx->generation = gen;
    for (const auto& e : registry_->filter([&](const registered_kernel& k) {
           return k.instance->op() == op_kind::fmha && k.instance->arch() == device_.arch;
         })) {
      auto kernel = std::static_pointer_cast<const fmha_instance>(e.instance);
      // The serving families' kernels (a paged cache) are fmha_paged_dispatcher's.
      if (!is_paged_family(kernel->key().sig.family)) idx->kernels.push_back(std::move(kernel));
    }
    index_ = std::move(idx);
  }
  return index_;
}

std::vector<std::pair<std::shared_ptr<const fmha_instance>, double>> fmha_dispatcher::ranked(
    const fmha_problem& problem, const fmha_args* args) const {
  std::vector<std::pair<std::shared_ptr<const fmha_instance>, double>> out;
  if (problem.validate()) return out;
  const fmha_problem p = problem.normalized();
  const fmha_signature wanted = p.signature();
  for (const auto& k : current_index()->kernels)
    if (signature_matches(k->key().sig, wanted) && !fmha_rejection(*k, p, args))
      out.emplace_back(k, fmha_estimate_us(k->key(), p));
  // Name order in, stable sort: equal estimates keep the smaller name first.
  std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
  return out;
}

fmha_selection fmha_dispatcher::select(const fmha_problem& problem, const fmha_args* args, bool explain_all) const {
  fmha_selection sel;
  if (auto e = problem.validate()) {
    sel.problem_error = *e;
    return sel;
  }
  const fmha_problem p = problem.normalized();
  sel.tier_notes = tier_load_notes_;
  if (auto k = dispatch::consult_tiers(
          tiers_, *this, p, args,
          [](const fmha_instance& k, const fmha_problem& q, const fmha_args* a) {
            return fmha_rejection(k, q, a).has_value();
          },
          sel.tier_notes, sel.tier)) {
    sel.kernel = std::move(k);
    sel.estimated_us = fmha_estimate_us(sel.kernel->key(), p);
  } else if (auto best = ranked(problem, args); !best.empty()) {
    sel.kernel = best.front().first;
    sel.estimated_us = best.front().second;
  }
  if (!sel.kernel || explain_all) {
    for (const auto& k : current_index()->kernels) {
      int closeness = 0;
      if (auto why = fmha_rejection(*k, p, args, &closeness)) sel.rejected.push_back({k->name(), *why, closeness});
    }
    std::stable_sort(sel.rejected.begin(), sel.rejected.end(),
                     [](const auto& x, const auto& y) { return x.closeness > y.closeness; });
  }
  return sel;
}

status fmha_dispatcher::run(const fmha_problem& problem, const fmha_args& args, void* stream) const {
  auto sel = select(problem, &args);
  if (!sel) return status::error(sel.explain());
  return sel.kernel->run(problem.normalized(), args, stream);
}

}  // namespace kdecl
