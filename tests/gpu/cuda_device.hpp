// The first CUDA device, or nothing: GPU tests skip without one (label gpu).
#pragma once

#include <optional>

#include "kdecl/runtime/device.hpp"

namespace kdecl::testing {

inline std::optional<device> cuda_device() {
  for (const auto& d : available_devices())
    if (d.kind() == backend::cuda) return d;
  return std::nullopt;
}

}  // namespace kdecl::testing
