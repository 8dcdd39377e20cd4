// fmha_kernel<K, backend::hip>: forwards to kdecl::kernels::hip::fmha<K>, the MFMA
// attention forward (CK's qr pipeline on gfx90a and gfx942; compiled, never run).
// Empty unless __HIPCC__ (the kernel is HIP code), as gemm_kernel_hip.hpp.
#pragma once

#if defined(__HIPCC__)

#include "kdecl/kernels/fmha/fmha_kernel.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip.hpp"

namespace kdecl::kernels {

template <fmha_key K>
struct fmha_kernel<K, backend::hip> : hip::fmha<K> {
  static_assert(K.algo.pipe == fmha_pipeline::qr, "kdecl: the HIP attention kernel implements CK's qr pipeline only");
};

}  // namespace kdecl::kernels

#endif  // __HIPCC__
