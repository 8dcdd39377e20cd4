// The convolution dispatcher's tiers before its analytical model, as
// selection_tiers.hpp is for GEMM:
//  1. a tuning database (an exact problem hit returns its fastest kernel that
//     can run the problem);
//  2. a learned ranking model trained on convolution measurements (`kdecl train
//     --op conv`), choices cached per problem, pointer alignment and registry
//     generation.
// Every conv_dispatcher starts with the defaults (installed by this library,
// linked through kdecl::all): the database named by $KDECL_TUNING_DB and the
// model $KDECL_TUNING_CONV_MODEL (a path, or "off"; KDECL_TUNING_MODEL=off
// turns every model off) or conv_<arch>.model.json on model_search_paths().
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kdecl/conv/conv_dispatcher.hpp"

namespace kdecl::tuning {

class ranking_model;

// The fingerprint and sorted names of the convolution kernels `reg` holds for
// `arch`; with `signatures` non-empty only those whose kernel_signature is one of them.
std::string registered_conv_kernel_set(const registry& reg, arch_id arch, std::vector<std::string>* names = nullptr,
                                       const std::vector<std::string>& signatures = {});

// Tier 1 from a database file (conv rows of `arch`). Throws std::runtime_error when it cannot be read.
std::shared_ptr<const conv_selection_tier> conv_database_tier(const std::string& path, arch_id arch);

// Tier 2 from a model file or a loaded model. Null, with `refusal` set, when the
// model cannot be read or was trained for another op, arch or kernel set.
std::shared_ptr<const conv_selection_tier> conv_model_tier(const std::string& path, const device& dev,
                                                           const registry& reg, std::string& refusal);
std::shared_ptr<const conv_selection_tier> conv_model_tier(std::shared_ptr<const ranking_model> model,
                                                           const device& dev, const registry& reg,
                                                           std::string& refusal);

// API calls: a database (consulted first) or a model (replacing any model tier).
// Throw std::invalid_argument with the reason.
void use_tuning_database(conv_dispatcher& dispatcher, const std::string& path);
void use_ranking_model(conv_dispatcher& dispatcher, const std::string& path);

// What a new conv_dispatcher starts with; notes receives what was refused or not found.
std::vector<std::shared_ptr<const conv_selection_tier>> default_conv_tiers(const device& dev, const registry& reg,
                                                                           std::vector<std::string>& notes);

}  // namespace kdecl::tuning
