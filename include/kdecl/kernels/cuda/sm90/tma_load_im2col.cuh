// Device side of TMA's im2col mode (tensor_map_im2col.cuh): one load of
// pixels_per_load rows (output pixels, in W, H, D, N order from the first) of
// channels_per_load channels at one filter tap. `origin` is the first pixel's window
// origin in input coordinates (output position x stride - padding: negative in the
// padding), `tap` the tap's offset (tap x dilation) per spatial dimension, W first.
#pragma once

#include <cstdint>

#include <cuda.h>

#include "kdecl/kernels/cuda/sm90/shared_address.cuh"

namespace kdecl::kernels::cuda::sm90 {

template <int Spatial>
__device__ __forceinline__ void tma_load_im2col(void* smem_dst, const CUtensorMap* map, std::uint64_t* bar,
                                                int channel, const int (&origin)[3], int image, const int (&tap)[3]) {
  const std::uint32_t dst = shared_address(smem_dst), mbar = shared_address(bar);
  const auto desc = reinterpret_cast<std::uint64_t>(map);
  if constexpr (Spatial == 1) {
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%3, %4, %5}], [%2], {%6};" ::"r"(dst), "l"(desc), "r"(mbar), "r"(channel), "r"(origin[0]),
        "r"(image), "h"(static_cast<std::uint16_t>(tap[0]))
        : "memory");
  } else if constexpr (Spatial == 2) {
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%3, %4, %5, %6}], [%2], {%7, %8};" ::"r"(dst), "l"(desc), "r"(mbar), "r"(channel),
        "r"(origin[0]), "r"(origin[1]), "r"(image), "h"(static_cast<std::uint16_t>(tap[0])),
        "h"(static_cast<std::uint16_t>(tap[1]))
        : "memory");
  } else {
    static_assert(Spatial == 3, "im2col loads take 1 to 3 spatial dimensions");
    asm volatile(
        "cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%3, %4, %5, %6, %7}], [%2], {%8, %9, %10};" ::"r"(dst), "l"(desc), "r"(mbar), "r"(channel),
        "r"(origin[0]), "r"(origin[1]), "r"(origin[2]), "r"(image), "h"(static_cast<std::uint16_t>(tap[0])),
        "h"(static_cast<std::uint16_t>(tap[1])), "h"(static_cast<std::uint16_t>(tap[2]))
        : "memory");
  }
}

}  // namespace kdecl::kernels::cuda::sm90
