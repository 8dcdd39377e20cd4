// The attention (forward) dispatcher's tiers before its analytical estimate, as
// selection_tiers.hpp is for GEMM and conv_selection_tiers.hpp for convolution:
// a tuning database's exact hits, then a learned ranking model trained on
// attention measurements (`kdecl train --op fmha`). Every fmha_dispatcher starts
// with the defaults (installed by this library through kdecl::all):
// $KDECL_TUNING_DB and $KDECL_TUNING_FMHA_MODEL (a path, or "off";
// KDECL_TUNING_MODEL=off turns every model off) or fmha_<arch>.model.json on
// model_search_paths(). The serving kernels (fmha_paged_dispatcher) are not ranked here.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kdecl/fmha/fmha_dispatcher.hpp"

namespace kdecl::tuning {

class ranking_model;

// The fingerprint and sorted names of the forward attention kernels (not the paged
// families) `reg` holds for `arch`; with `signatures` non-empty only those of these signatures.
std::string registered_fmha_kernel_set(const registry& reg, arch_id arch, std::vector<std::string>* names = nullptr,
                                       const std::vector<std::string>& signatures = {});

// Tier 1 from a database file (fmha rows of `arch`). Throws std::runtime_error when it cannot be read.
std::shared_ptr<const fmha_selection_tier> fmha_database_tier(const std::string& path, arch_id arch);

// Tier 2. Null, with `refusal` set, when the model cannot be read or was trained
// for another op, arch or kernel set.
std::shared_ptr<const fmha_selection_tier> fmha_model_tier(const std::string& path, const device& dev,
                                                           const registry& reg, std::string& refusal);
std::shared_ptr<const fmha_selection_tier> fmha_model_tier(std::shared_ptr<const ranking_model> model,
                                                           const device& dev, const registry& reg,
                                                           std::string& refusal);

// API calls; throw std::invalid_argument with the reason.
void use_tuning_database(fmha_dispatcher& dispatcher, const std::string& path);
void use_ranking_model(fmha_dispatcher& dispatcher, const std::string& path);

std::vector<std::shared_ptr<const fmha_selection_tier>> default_fmha_tiers(const device& dev, const registry& reg,
                                                                           std::vector<std::string>& notes);

}  // namespace kdecl::tuning
