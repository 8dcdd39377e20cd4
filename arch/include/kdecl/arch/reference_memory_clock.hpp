// The memory clock of each NVIDIA target's reference part (arch_spec::reference_part), as
// cudaDevAttrMemoryClockRate reports it, in MHz: bandwidth = clock x 2 x bus bits / 8 (the H100
// SXM5's 2619 MHz x 2 x 5120 bits = 3352 GB/s, arch_spec::mem_bandwidth_gbs). The learned ranking
// models see a device's memory clock (tuning::device_facts); a device that does not say, as an arch
// named without a GPU (`kdecl select --device sm_90`), is taken to be this part.
// Kept beside arch_spec rather than in it: only the tuning code reads it, and a field there would
// rebuild every kernel translation unit.
#pragma once

#include "kdecl/core/enums.hpp"

namespace kdecl::arch {

constexpr int reference_memory_clock_mhz(arch_id id) {
  switch (id) {
    case arch_id::sm_80: return 1593;  // A100 SXM4 80GB, HBM2e, 2039 GB/s
    case arch_id::sm_86: return 6251;  // A10, GDDR6, 600 GB/s
    case arch_id::sm_89: return 9001;  // L40, GDDR6, 864 GB/s
    case arch_id::sm_90: return 2619;  // H100 SXM5 80GB, HBM3, 3350 GB/s
    default: return 0;                 // AMD and host: no model reads it
  }
}

}  // namespace kdecl::arch
