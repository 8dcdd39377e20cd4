// The two tiers the GEMM dispatcher consults before its analytical model:
//  1. a tuning database (an exact problem hit returns its fastest kernel that
//     can run the problem);
//  2. a learned ranking model (ranks every eligible kernel, takes the top one;
//     choices are cached by problem, alignment and registry generation).
// Every dispatcher starts with the defaults (this library, linked through
// kdecl::all, installs them): the database named by $KDECL_TUNING_DB, and the
// model for the device's arch, $KDECL_TUNING_MODEL (a path, or "off") or
// gemm_<arch>.model.json in $KDECL_MODEL_DIR, the source tree's models/ or the
// installed share/kdecl/models/. A model trained for another arch or kernel set
// is refused, and --explain says so.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kdecl/gemm/gemm_dispatcher.hpp"

namespace kdecl::tuning {

class ranking_model;

// The fingerprint (tuning::fingerprint_of) and sorted names of the GEMM kernels `reg` holds for `arch`;
// with `signatures` non-empty only those whose signature (kernel_signature) is one of them, with
// `pipelines` non-empty only those of these pipelines: the scope of a model trained on those
// signatures and pipelines, which kernels of other signatures or pipelines leave valid.
std::string registered_kernel_set(const registry& reg, arch_id arch, std::vector<std::string>* names = nullptr,
                                  const std::vector<std::string>& signatures = {},
                                  const std::vector<std::string>& pipelines = {});

// The distinct pipelines (to_string(pipeline), sorted) of `names` (kernel names, parse_gemm_name);
// names that do not parse are left out.
std::vector<std::string> pipelines_of(const std::vector<std::string>& names);

// problem_signature() of the problems a kernel key runs ("bf16-bf16-bf16-fp32-bf16/rcr/standard").
std::string kernel_signature(const gemm_key& key);

// The names among `names` (kernel names, parse_gemm_name) whose signature is one of `signatures`;
// names that do not parse are left out.
std::vector<std::string> kernels_of_signatures(const std::vector<std::string>& names,
                                               const std::vector<std::string>& signatures);

// Tier 1 from a database file (rows of `arch`). Throws std::runtime_error when it cannot be read.
std::shared_ptr<const gemm_selection_tier> database_tier(const std::string& path, arch_id arch);

// Tier 2 from a model file. Null, with `refusal` set, when the model cannot be
// read or was trained for another op, arch or kernel set than `reg` holds for `dev`.
std::shared_ptr<const gemm_selection_tier> model_tier(const std::string& path, const device& dev, const registry& reg,
                                                      std::string& refusal);
std::shared_ptr<const gemm_selection_tier> model_tier(std::shared_ptr<const ranking_model> model, const device& dev,
                                                      const registry& reg, std::string& refusal);

// API calls: point a dispatcher at a database (consulted first) or a model
// (replacing any model tier it has). Throw std::invalid_argument with the reason.
void use_tuning_database(gemm_dispatcher& dispatcher, const std::string& path);
void use_ranking_model(gemm_dispatcher& dispatcher, const std::string& path);

// What a new dispatcher starts with (see above); notes receives what was refused or not found.
std::vector<std::shared_ptr<const gemm_selection_tier>> default_tiers(const device& dev, const registry& reg,
                                                                      std::vector<std::string>& notes);

// Where the default model of an op ("gemm", "conv") for an arch is looked for, in order.
std::vector<std::string> model_search_paths(arch_id arch, const std::string& op = "gemm");

}  // namespace kdecl::tuning
