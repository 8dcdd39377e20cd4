// conv_kernel<K, backend::cuda>: routes a convolution key to the CUDA kernel of
// its pipeline and direction: the sm_80 cp_async implicit GEMMs (forward,
// backward-data by stride phases, backward-weight with split-K), the sm_90
// tma_wgmma forward implicit GEMM (backward-data as one forward convolution per
// stride phase; the stride1 specialization on halo tiles) and backward-weight GEMM
// (each also on channel-padded copies of narrow operands), the sm_90 8-bit forward convolution
// (each group's GEMM on the fp8 wgmma kernel), and the direct_conv forward and depthwise
// backward-data and backward-weight convolutions.
#pragma once

#include <type_traits>

#include "kdecl/kernels/conv/cuda/epilogue_pass.cuh"
#include "kdecl/kernels/conv/conv_kernel.hpp"
#include "kdecl/kernels/conv/cuda/channel_padded.cuh"
#include "kdecl/kernels/conv/cuda/direct/direct_bwd_data.cuh"
#include "kdecl/kernels/conv/cuda/direct/direct_bwd_weight.cuh"
#include "kdecl/kernels/conv/cuda/direct/direct_fwd.cuh"
#include "kdecl/kernels/conv/cuda/direct/dw_staged_sm90_decl.cuh"
#include "kdecl/kernels/conv/cuda/sm80/conv_bwd_data_sm80.cuh"
#include "kdecl/kernels/conv/cuda/sm80/conv_bwd_weight_sm80.cuh"
#include "kdecl/kernels/conv/cuda/sm80/conv_fwd_sm80.cuh"
#include "kdecl/kernels/conv/cuda/sm90/conv_bwd_data_sm90.cuh"
#include "kdecl/kernels/conv/cuda/sm90/conv_bwd_weight_sm90.cuh"
#include "kdecl/kernels/conv/cuda/sm90/conv_fwd_fp8_sm90.cuh"
#include "kdecl/kernels/conv/cuda/sm90/conv_fwd_halo_sm90.cuh"
#include "kdecl/kernels/conv/cuda/sm90/conv_fwd_rows_sm90_decl.cuh"
#include "kdecl/kernels/conv/cuda/sm90/conv_fwd_sm90.cuh"

namespace kdecl::kernels {

namespace detail {
// The kernel of a key's direction among one pipeline's three.
template <grouped_conv_key K, template <grouped_conv_key> class Fwd, template <grouped_conv_key> class BwdData,
          template <grouped_conv_key> class BwdWeight>
using of_direction =
    std::conditional_t<K.sig.dir == conv_direction::fwd, Fwd<K>,
                       std::conditional_t<K.sig.dir == conv_direction::bwd_data, BwdData<K>, BwdWeight<K>>>;

// sm_90 keys that take an operand element by element run the kernel of their gathering key
// on channel-padded copies (channel_padded.cuh; sm90/conv_fwd_sm90_config.cuh says which).
template <grouped_conv_key K, template <grouped_conv_key> class Gathering>
using sm90_any_channels =
    std::conditional_t<cuda::sm90::reads_channel_padded_copies(K),
                       cuda::channel_padded<K, Gathering<cuda::sm90::gathering_key(K)>>, Gathering<K>>;
// The stride1 specialization loads halo tiles (conv_fwd_halo_sm90.cuh), stride1_rows streams
// input rows (conv_fwd_rows_sm90.cuh, complete only where its sets include it), the others load
// im2col tiles. (A class, not an alias: g++ 12 crashes on the alias as a template template argument.)
template <grouped_conv_key K>
struct sm90_forward
    : std::conditional_t<K.sig.spec == conv_specialization::stride1, cuda::sm90::conv_fwd_halo<K>,
                         std::conditional_t<K.sig.spec == conv_specialization::stride1_rows,
                                            cuda::sm90::conv_fwd_rows<K>, cuda::sm90::conv_fwd<K>>> {};
template <grouped_conv_key K>
using sm90_fwd = sm90_any_channels<K, sm90_forward>;
template <grouped_conv_key K>
using sm90_bwd_data = sm90_any_channels<K, cuda::sm90::conv_bwd_data>;
template <grouped_conv_key K>
using sm90_bwd_weight = sm90_any_channels<K, cuda::sm90::conv_bwd_weight>;

// direct_conv keys with stages 2 are the TMA-staged depthwise forward kernel (dw_staged_sm90.cuh,
// complete only where its set includes it), the others the direct kernels of their direction.
template <grouped_conv_key K>
struct direct_forward : std::conditional_t<K.algo.stages == 2, cuda::direct::conv_dw_staged_fwd<K>,
                                           cuda::direct::conv_direct_fwd<K>> {};

// 8-bit floating data (forward only) runs each group's GEMM on the fp8 wgmma kernel (conv_fwd_fp8_sm90.cuh).
template <grouped_conv_key K>
using sm90_impl = std::conditional_t<cuda::sm90::conv_is_eight_bit(K), cuda::sm90::conv_fwd_fp8<K>,
                                     of_direction<K, sm90_fwd, sm90_bwd_data, sm90_bwd_weight>>;

template <grouped_conv_key K>
using cuda_conv_impl = std::conditional_t<
    K.algo.pipe == pipeline::direct_conv,
    of_direction<K, direct_forward, cuda::direct::conv_direct_bwd_data, cuda::direct::conv_direct_bwd_weight>,
    std::conditional_t<K.algo.pipe == pipeline::tma_wgmma, sm90_impl<K>,
                       of_direction<K, cuda::sm80::conv_fwd, cuda::sm80::conv_bwd_data, cuda::sm80::conv_bwd_weight>>>;
}  // namespace detail

template <grouped_conv_key K>
struct conv_kernel<K, backend::cuda> : detail::cuda_conv_impl<K> {
  static_assert(K.algo.pipe == pipeline::cp_async || K.algo.pipe == pipeline::tma_wgmma ||
                    K.algo.pipe == pipeline::direct_conv,
                "kdecl: no CUDA convolution kernel implements this pipeline and direction");
};

}  // namespace kdecl::kernels
