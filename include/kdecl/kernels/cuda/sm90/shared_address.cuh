// The 32-bit shared-memory address PTX instructions take for a generic pointer.
#pragma once

#include <cstdint>

namespace kdecl::kernels::cuda::sm90 {

__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

}  // namespace kdecl::kernels::cuda::sm90
