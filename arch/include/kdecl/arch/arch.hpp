// All targets' tables and the one lookup: spec_of(arch_id).
#pragma once

#include "kdecl/arch/amd_cdna.hpp"
#include "kdecl/arch/amd_rdna.hpp"
#include "kdecl/arch/host.hpp"
#include "kdecl/arch/nvidia.hpp"

namespace kdecl::arch {

// Every target, in arch_id order (checked below).
inline constexpr const arch_spec* all_specs[] = {
    &host_cpu::host, &nvidia::sm_80, &nvidia::sm_86, &nvidia::sm_89, &nvidia::sm_90,
    &cdna::gfx908,   &cdna::gfx90a,  &cdna::gfx942,  &cdna::gfx950,
    &rdna::gfx1100,  &rdna::gfx1200, &rdna::gfx1201,
};

constexpr const arch_spec& spec_of(arch_id a) { return *all_specs[static_cast<std::size_t>(a)]; }

namespace detail {
constexpr bool specs_in_order() {
  for (std::size_t i = 0; i < std::size(all_specs); ++i)
    if (static_cast<std::size_t>(all_specs[i]->id) != i) return false;
  return std::size(all_specs) == names::arch_id.size();
}
static_assert(specs_in_order(), "kdecl::arch::all_specs must list every arch_id in enum order");
}  // namespace detail

// Element size in bits of a dtype (tf32 is stored as fp32).
constexpr int element_bits(dtype d) { return bits_of(d); }

}  // namespace kdecl::arch

namespace kdecl {
using arch::spec_of;
}
