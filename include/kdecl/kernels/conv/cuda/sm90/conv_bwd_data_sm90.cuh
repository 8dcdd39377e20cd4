// The sm_90a backward-data convolution of stride-1 layers: the forward
// convolution of dy with the flipped, transposed filter (kernels/conv/
// bwd_data_as_forward.hpp), run by the sm_90 forward kernel (conv_fwd_sm90.cuh)
// of the key's forward key. Two launches on the stream:
//
//   1. w' = the weights with input and output channels exchanged and every tap
//      flipped, into the workspace (cuda/flip_transpose_weights.cuh): K x C x taps
//      elements, a small copy beside the convolution;
//   2. the forward implicit GEMM of the equivalent problem: input dy, weights w',
//      output dx, padding dilation*(F-1) - pad on each side.
//
// 1x1 layers without padding skip both: dx = dy · W is an rrr GEMM per group, which the sm_90
// TMA GEMM of the same tiles reads directly (B MN-major), with no weight copy.
// Strided layers are refused (why_not): the cp_async stride-phase kernels take them.
// Entry point: sm90::conv_bwd_data<K> with the conv_kernel contract (kernels/conv/conv_kernel.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/bwd_data_as_forward.hpp"
#include "kdecl/kernels/conv/cuda/flip_transpose_weights.cuh"
#include "kdecl/gemm/gemm_problem.hpp"
#include "kdecl/kernels/conv/cuda/sm90/conv_fwd_sm90.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90.cuh"

namespace kdecl::kernels::cuda::sm90 {

template <grouped_conv_key K>
struct conv_bwd_data {
  static_assert(K.sig.dir == conv_direction::bwd_data, "sm90::conv_bwd_data computes the backward-data direction");
  using forward = conv_fwd<forward_key_of_bwd_data(K)>;
  using data_t = storage_t<K.sig.wei>;
  // 1x1 layers: the rrr GEMM of the forward key's tiles (A = dy, B = W as stored, C = dx).
  static constexpr gemm_key pointwise_key = [] {
    gemm_key g = conv_fwd_sm90_gemm_key(forward_key_of_bwd_data(K));
    g.sig.lay = rrr;
    return g;
  }();
  static_assert(key_unsupported_reason(pointwise_key) == nullptr, "the sm_90 GEMM must build the 1x1 layers' rrr key");
  using pointwise = gemm<pointwise_key>;
  static constexpr std::size_t align = 128;  // w' starts 16-byte aligned (the gather's vectors); 128 for good measure

  // w' and the slack to align it.
  static std::size_t workspace_bytes(const grouped_conv_problem& p) {
    if (bwd_data_as_forward_reason(p) || !bwd_data_as_gemm_reason(p)) return 0;
    return std::size_t(flipped_weights_map_of(p, forward_equivalent_of_bwd_data(p)).elements()) * sizeof(data_t) +
           align;
  }

  static std::optional<std::string> why_not(const grouped_conv_problem& p, const grouped_conv_args& a) {
    if (p.dir != K.sig.dir) return std::string("problem signature differs from the kernel's");
    if (p != p.normalized()) return std::string("problem is not normalized");
    if (auto why = bwd_data_as_forward_reason(p)) return "sm90 conv bwd_data: " + *why;
    if (runs_as_gemm(p, a)) return std::nullopt;
    // The forward kernel's rules on the equivalent problem: dy is its input, dx its output
    // (its weights are the copy run() makes, packed and aligned).
    return forward::why_not(forward_equivalent_of_bwd_data(p), forward_args(a, a.wei));
  }

  static status run(const grouped_conv_problem& p, const grouped_conv_args& a, void* stream) {
    if (auto why = why_not(p, a)) return status::error(*why);
    if (runs_as_gemm(p, a)) return pointwise::run(pointwise_problem(p), pointwise_args(a), stream);
    if (auto why = forward::device_reason()) return status::error(*why);
    const grouped_conv_problem f = forward_equivalent_of_bwd_data(p);
    const auto e = f.implicit_gemm();
    if (e.m == 0 || e.n == 0) return status::ok();
    const auto st = static_cast<cudaStream_t>(stream);

    // w' in the caller's workspace, or (given less) in stream-ordered memory of its own.
    const std::size_t wanted = workspace_bytes(p);
    void* scratch = a.workspace;
    bool owned = false;
    if (scratch == nullptr || a.workspace_bytes < wanted) {
      if (const cudaError_t err = cudaMallocAsync(&scratch, wanted, st); err != cudaSuccess)
        return status::error(std::string("sm90 conv bwd_data: cudaMallocAsync of the flipped weights: ") +
                             cudaGetErrorString(err));
      owned = true;
    }
    void* flipped = reinterpret_cast<void*>((reinterpret_cast<std::uintptr_t>(scratch) + align - 1) / align * align);
    const status copied = flip_transpose_weights<data_t>(flipped_weights_map_of(p, f), a.wei, flipped, st);
    const status ran = copied.is_ok() ? forward::run(f, forward_args(a, flipped), stream) : copied;
    if (owned) cudaFreeAsync(scratch, st);
    return ran;
  }

 private:
  // A 1x1 layer the GEMM takes as it is (alignment and leading dimensions: the GEMM's own rules).
  static bool runs_as_gemm(const grouped_conv_problem& p, const grouped_conv_args& a) {
    return !bwd_data_as_gemm_reason(p) && !pointwise::why_not(pointwise_problem(p), pointwise_args(a));
  }
  static gemm_problem pointwise_problem(const grouped_conv_problem& p) {
    gemm_problem g;
    g.sizes(p.n * p.input_pixels(), p.c_per_group(), p.k_per_group()).batched(p.g).dtype(K.sig.wei).layout(rrr);
    g.accumulator(K.sig.acc);
    g.leading_dims(p.out_strides.spatial[2], p.wei_strides.n, p.in_strides.spatial[2]);
    g.batch_strides(p.out_strides.g, p.wei_strides.g, p.in_strides.g);
    return g;
  }
  static gemm_args pointwise_args(const grouped_conv_args& a) {
    gemm_args g;
    g.a = a.out;
    g.b = a.wei;
    g.c = a.in;
    return g;
  }

  // The forward kernel's operands: dy in, w' (at `weights`), dx out.
  static grouped_conv_args forward_args(const grouped_conv_args& a, void* weights) {
    grouped_conv_args f;
    f.in = a.out;
    f.wei = weights;
    f.out = a.in;
    return f;
  }
};

}  // namespace kdecl::kernels::cuda::sm90
