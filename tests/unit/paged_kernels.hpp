// The paged-attention kernels the registry holds for one arch (test helper shared by the
// paged dispatch tests and the HIP paged tests).
#pragma once

#include <memory>
#include <vector>

#include "kdecl/fmha/fmha_paged_dispatcher.hpp"
#include "kdecl/registry/registry.hpp"

namespace kdecl::testing {

inline std::vector<std::shared_ptr<const fmha_paged_instance>> paged_kernels(arch_id arch) {
  std::vector<std::shared_ptr<const fmha_paged_instance>> out;
  for (const auto& e : registry::global().filter([&](const registered_kernel& k) {
         return k.instance->op() == op_kind::fmha && k.instance->arch() == arch;
       }))
    if (auto p = std::dynamic_pointer_cast<const fmha_paged_instance>(e.instance)) out.push_back(p);
  return out;
}

}  // namespace kdecl::testing
