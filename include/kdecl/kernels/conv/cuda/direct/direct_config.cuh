// What the direct convolution derives from its key at compile time: the rules
// of keys it cannot build. They are the arch tables' direct_conv rules
// (arch_spec.hpp direct_conv_caps, dsl/conv_rules.hpp check_direct) plus what
// the kernel template itself needs.
#pragma once

#include "kdecl/conv/grouped_conv_key.hpp"
#include "kdecl/dsl/conv_rules.hpp"

namespace kdecl::kernels::cuda::direct {

// nullptr when the kernel builds `k`, else the first rule it breaks.
constexpr const char* direct_unsupported_reason(const grouped_conv_key& k) {
  if (!k.concrete()) return "direct conv needs a concrete key";
  if (k.algo.pipe != pipeline::direct_conv) return "direct conv builds pipeline direct_conv only";
  if (k.algo.arch == arch_id::host || backend_of(k.algo.arch) != backend::cuda)
    return "direct conv is a CUDA kernel";
  if (!dsl::conv_rules::check_direct(k).ok()) return "the key breaks a direct_conv rule of the arch tables";
  if (!(k.sig.ndim == 2 && k.sig.lay == conv_layout::nhwgc) && !(k.sig.ndim == 1 && k.sig.lay == conv_layout::nwgc))
    return "direct conv computes 1-D NWGC and 2-D NHWGC convolutions";
  const int bytes = k.algo.vector_out * bits_of(k.sig.out) / 8;
  if (bytes != 16 && bytes != 8 && bytes != 4 && bytes != 2) return "direct conv vectors are 2, 4, 8 or 16 bytes";
  return nullptr;
}

}  // namespace kdecl::kernels::cuda::direct
