// Which AMD architecture: the one a device compilation pass targets (compile
// time) and the one the current HIP device is (run time).
//
// hipcc compiles every kernel once per --offload-arch. A kernel whose key names
// another arch must not emit that arch's instructions (gfx942 int8/fp8 MFMAs do
// not exist on gfx90a and vice versa), so kernels compare compiling_for with
// their key and keep their body only on a match. gfx940, gfx941 and gfx942 share
// the CDNA3 matrix instruction set and all map to arch_id::gfx942 (a code object
// still runs only on the exact target it was built for: the HIP runtime refuses
// it elsewhere, which why_not reports).
#pragma once

#include <hip/hip_runtime.h>

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "kdecl/core/enums.hpp"

namespace kdecl::kernels::hip {

#if defined(__gfx90a__)
inline constexpr arch_id compiling_for = arch_id::gfx90a;
#elif defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
inline constexpr arch_id compiling_for = arch_id::gfx942;
#else
inline constexpr arch_id compiling_for = arch_id::host;  // host pass, or a target this family does not serve
#endif

// arch_id of a device from its gcnArchName ("gfx90a:sramecc+:xnack-"); nullopt for others.
inline std::optional<arch_id> arch_from_gcn_name(std::string_view name) {
  const std::string_view base = name.substr(0, name.find(':'));
  if (base == "gfx90a") return arch_id::gfx90a;
  if (base == "gfx940" || base == "gfx941" || base == "gfx942") return arch_id::gfx942;
  return std::nullopt;
}

// Empty when the current HIP device is of arch `want`; otherwise why not.
// Device properties are queried once per device and cached.
inline std::optional<std::string> device_arch_mismatch(arch_id want) {
  int device = -1;
  if (hipGetDevice(&device) != hipSuccess) return std::string("hip: no current HIP device");
  static std::mutex lock;
  static std::map<int, std::string> names;
  std::string name;
  {
    std::lock_guard<std::mutex> guard(lock);
    auto it = names.find(device);
    if (it == names.end()) {
      hipDeviceProp_t prop{};
      if (hipGetDeviceProperties(&prop, device) != hipSuccess)
        return std::string("hip: cannot read the device's properties");
      it = names.emplace(device, std::string(prop.gcnArchName)).first;
    }
    name = it->second;
  }
  const std::optional<arch_id> have = arch_from_gcn_name(name);
  if (have == want) return std::nullopt;
  return "hip: kernel built for " + std::string(to_string(want)) + ", device is " + name;
}

}  // namespace kdecl::kernels::hip
