#include "kdecl/tuning/fmha_selection_tiers.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "kdecl/tuning/fmha_features.hpp"
#include "kdecl/tuning/fmha_problem_key.hpp"
#include "kdecl/tuning/selection_tiers.hpp"
#include "tier_common.hpp"

namespace kdecl::tuning {

std::string registered_fmha_kernel_set(const registry& reg, arch_id arch, std::vector<std::string>* names,
                                       const std::vector<std::string>& signatures) {
  std::vector<std::string> v;
  for (const auto& e : reg.filter([&](const registered_kernel& k) {
         return k.instance->op() == op_kind::fmha && k.instance->arch() == arch;
       })) {
    const auto& key = std::static_pointer_cast<const fmha_instance>(e.instance)->key();
    if (is_paged_family(key.sig.family)) continue;  // fmha_paged_dispatcher's
    if (signatures.empty() || std::find(signatures.begin(), signatures.end(), kernel_signature(key)) != signatures.end())
      v.push_back(e.instance->name());
  }
  return detail::fingerprint_of_names(std::move(v), names);
}

namespace {

// What the shared tiers (tier_common.hpp) need of attention.
struct fmha_op {
  using problem = fmha_problem;
  using args = fmha_args;
  using instance = fmha_instance;
  using dispatcher = fmha_dispatcher;
  using tier = fmha_selection_tier;
  static constexpr const char* name = "fmha";
  static constexpr const char* text = "attention";
  static std::string key_of(const fmha_problem& p) { return problem_key(p); }
  static fmha_problem parse_key(std::string_view key) { return parse_fmha_problem_key(key); }
  static std::string signature(const fmha_problem& p) { return problem_signature(p); }
  // Every field of a normalized problem (what problem_key() spells out), as bytes.
  static detail::byte_key cache_key(const fmha_problem& p) {
    detail::byte_key k;
    k.add(p.batch, p.seqlen_q, p.seqlen_kv, p.heads_q, p.heads_kv, p.hdim_q, p.hdim_v, p.qkv, p.o, p.mask,
          p.window_left, p.window_right, p.bias, p.bias_per_batch, p.bias_per_head, p.bias_per_row, p.alibi_per_batch, p.scale,
          p.soft_cap, p.sinks, p.lse, p.lse_batch_stride, p.lse_head_stride);
    for (const fmha_strides* t : {&p.q_strides, &p.k_strides, &p.v_strides, &p.o_strides, &p.bias_strides})
      k.add(t->batch, t->seq, t->head);
    k.add_range(p.cu_seqlens_q).add_range(p.cu_seqlens_kv);
    return k;
  }
  static bool rejects(const fmha_instance& k, const fmha_problem& p, const fmha_args* a) {
    return fmha_rejection(k, p, a).has_value();
  }
  static std::string kernel_set(const registry& reg, arch_id arch, const std::vector<std::string>& signatures,
                                std::vector<std::string>* names = nullptr) {
    return registered_fmha_kernel_set(reg, arch, names, signatures);
  }
  // The dispatcher refuses misaligned pointers itself; the choice among the rest
  // does not depend on them, so every alignment shares one cache entry.
  static int pointer_alignment(const fmha_args*) { return 0; }
  // No device feature: every attention row so far comes from one device (an H200).
  template <class Ranked>
  static feature_matrix features(const fmha_problem& p, const Ranked& ranked, int, device_facts) {
    feature_matrix rows;
    rows.reserve(ranked.size(), fmha_feature_count);
    for (const auto& [k, us] : ranked) rows.push_back(fmha_features_of(p, k->key(), us, ranked.front().second));
    return rows;
  }
};

}  // namespace

std::shared_ptr<const fmha_selection_tier> fmha_database_tier(const std::string& path, arch_id arch) {
  return std::make_shared<detail::database_selection<fmha_op>>(path, arch);
}

std::shared_ptr<const fmha_selection_tier> fmha_model_tier(std::shared_ptr<const ranking_model> model,
                                                           const device& dev, const registry& reg,
                                                           std::string& refusal) {
  return detail::keyed_model_tier<fmha_op>(std::move(model), dev, reg, refusal);
}

std::shared_ptr<const fmha_selection_tier> fmha_model_tier(const std::string& path, const device& dev,
                                                           const registry& reg, std::string& refusal) {
  try {
    return fmha_model_tier(detail::cached_model(path), dev, reg, refusal);
  } catch (const std::exception& e) {
    refusal = e.what();
    return nullptr;
  }
}

void use_tuning_database(fmha_dispatcher& d, const std::string& path) { detail::use_database<fmha_op>(d, path); }
void use_ranking_model(fmha_dispatcher& d, const std::string& path) { detail::use_model<fmha_op>(d, path); }

std::vector<std::shared_ptr<const fmha_selection_tier>> default_fmha_tiers(const device& dev, const registry& reg,
                                                                           std::vector<std::string>& notes) {
  return detail::default_tiers_of<fmha_selection_tier>(
      "fmha", dev, model_search_paths(dev.arch, "fmha"), "KDECL_TUNING_FMHA_MODEL", notes,
      [&](const std::string& path) { return fmha_database_tier(path, dev.arch); },
      [&](const std::string& path, std::string& why) { return fmha_model_tier(path, dev, reg, why); });
}

namespace {
// Installs the defaults in every fmha_dispatcher of a program linked with kdecl::all.
const bool installed = (set_default_fmha_tiers(&default_fmha_tiers), true);
}  // namespace

}  // namespace kdecl::tuning
