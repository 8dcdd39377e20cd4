#include "kdecl/tuning/conv_selection_tiers.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "kdecl/dispatch/alignment.hpp"
#include "kdecl/dispatch/registry_index.hpp"
#include "kdecl/tuning/conv_features.hpp"
#include "kdecl/tuning/conv_problem_key.hpp"
#include "kdecl/tuning/selection_tiers.hpp"
#include "tier_common.hpp"

namespace kdecl::tuning {

std::string registered_conv_kernel_set(const registry& reg, arch_id arch, std::vector<std::string>* names,
                                       const std::vector<std::string>& signatures) {
  std::vector<std::string> v;
  for (const auto& k : dispatch::kernels_of<conv_instance>(reg, op_kind::grouped_conv, arch))
    if (signatures.empty() ||
        std::find(signatures.begin(), signatures.end(), kernel_signature(k->key())) != signatures.end())
      v.push_back(k->name());
  return detail::fingerprint_of_names(std::move(v), names);
}

namespace {

// What the shared tiers (tier_common.hpp) need of convolution.
struct conv_op {
  using problem = grouped_conv_problem;
  using args = grouped_conv_args;
  using instance = conv_instance;
  using dispatcher = conv_dispatcher;
  using tier = conv_selection_tier;
  static constexpr const char* name = "conv";
  static constexpr const char* text = "convolution";
  static std::string key_of(const grouped_conv_problem& p) { return problem_key(p); }
  static grouped_conv_problem parse_key(std::string_view key) { return parse_conv_problem_key(key); }
  static std::string signature(const grouped_conv_problem& p) { return problem_signature(p); }
  // Every field of a normalized problem (what problem_key() spells out), as bytes.
  static detail::byte_key cache_key(const grouped_conv_problem& p) {
    detail::byte_key k;
    k.add(p.dir, p.n, p.c, p.k, p.g, p.layout_or_default(), p.in_type, p.wei_type, p.out_type, p.acc_type,
          p.compute_type);
    for (const conv_dims* d : {&p.input_dims, &p.filter_dims, &p.stride_dims, &p.dilation_dims, &p.pad_left_dims,
                               &p.pad_right_dims})
      k.add(d->v, d->count);
    for (const conv_tensor_strides* t : {&p.in_strides, &p.wei_strides, &p.out_strides})
      k.add(t->n, t->g, t->c, t->spatial);
    return k;
  }
  static bool rejects(const conv_instance& k, const grouped_conv_problem& p, const grouped_conv_args* a) {
    return conv_rejection(k, p, a).has_value();
  }
  static std::string kernel_set(const registry& reg, arch_id arch, const std::vector<std::string>& signatures,
                                std::vector<std::string>* names = nullptr) {
    return registered_conv_kernel_set(reg, arch, names, signatures);
  }
  // The three tensors' pointers' alignment (256 without arguments).
  static int pointer_alignment(const grouped_conv_args* args) {
    if (!args) return 256;
    return dispatch::address_alignment(reinterpret_cast<std::uintptr_t>(args->in) |
                              reinterpret_cast<std::uintptr_t>(args->wei) | reinterpret_cast<std::uintptr_t>(args->out));
  }
  template <class Ranked>
  static feature_matrix features(const grouped_conv_problem& p, const Ranked& ranked, int pointers,
                                 device_facts device) {
    const int alignment = std::min(conv_alignment(p), std::min(16, pointers));
    feature_matrix rows;
    rows.reserve(ranked.size(), conv_feature_count);
    for (const auto& [k, us] : ranked)
      rows.push_back(conv_features_of(p, k->key(), us, ranked.front().second, alignment, device));
    return rows;
  }
};

}  // namespace

std::shared_ptr<const conv_selection_tier> conv_database_tier(const std::string& path, arch_id arch) {
  return std::make_shared<detail::database_selection<conv_op>>(path, arch);
}

std::shared_ptr<const conv_selection_tier> conv_model_tier(std::shared_ptr<const ranking_model> model,
                                                           const device& dev, const registry& reg,
                                                           std::string& refusal) {
  return detail::keyed_model_tier<conv_op>(std::move(model), dev, reg, refusal);
}

std::shared_ptr<const conv_selection_tier> conv_model_tier(const std::string& path, const device& dev,
                                                           const registry& reg, std::string& refusal) {
  try {
    return conv_model_tier(detail::cached_model(path), dev, reg, refusal);
  } catch (const std::exception& e) {
    refusal = e.what();
    return nullptr;
  }
}

void use_tuning_database(conv_dispatcher& d, const std::string& path) { detail::use_database<conv_op>(d, path); }
void use_ranking_model(conv_dispatcher& d, const std::string& path) { detail::use_model<conv_op>(d, path); }

std::vector<std::shared_ptr<const conv_selection_tier>> default_conv_tiers(const device& dev, const registry& reg,
                                                                           std::vector<std::string>& notes) {
  return detail::default_tiers_of<conv_selection_tier>(
      "conv", dev, model_search_paths(dev.arch, "conv"), "KDECL_TUNING_CONV_MODEL", notes,
      [&](const std::string& path) { return conv_database_tier(path, dev.arch); },
      [&](const std::string& path, std::string& why) { return conv_model_tier(path, dev, reg, why); });
}

namespace {
// Installs the defaults in every conv_dispatcher of a program linked with kdecl::all.
const bool installed = (set_default_conv_tiers(&default_conv_tiers), true);
}  // namespace

}  // namespace kdecl::tuning
