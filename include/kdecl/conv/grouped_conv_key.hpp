// The grouped-convolution kernel key, modelled like gemm_key: a signature
// (what is computed) and an algorithm (how), structural so it can be a
// template argument, with the same wildcard conventions (`any`, any_int = -1;
// stages 0 and vector sizes 0 are defaults resolved during expansion).
//
// Kernels are implicit GEMMs: tile/warps/warp_tile are those of the GEMM with
//   fwd:        M = N*Ho*Wo (output pixels), N = K/G, K = C/G * filter volume
//   bwd_data:   M = N*Hi*Wi, N = C/G, K = K/G * filter volume
//   bwd_weight: M = K/G, N = C/G * filter volume, K = N*Ho*Wo
// and the GEMM rules of the target apply to that implicit GEMM.
#pragma once

#include <array>
#include <string_view>

#include "kdecl/core/enums.hpp"
#include "kdecl/gemm/gemm_key.hpp"

namespace kdecl {

enum class conv_direction : std::uint8_t { fwd, bwd_data, bwd_weight };

// Activation layout; weights are G K [Z Y] X C and outputs match the activation
// layout with K channels. The spatial rank is part of the layout name.
enum class conv_layout : std::uint8_t { nwgc, nhwgc, ndhwgc, gnwc, gnhwc, gndhwc };

// stride1: unit strides in every dimension, any filter, padding and dilation. The sm_90
// forward kernel of such a key loads each tile's input rows once for all filter taps
// (kernels/conv/halo_tiles.hpp) instead of once per tap.
// stride1_rows: unit strides, 64 input channels per group, a filter reaching at most 3 input
// rows: the sm_90 kernel streams input rows through shared memory and computes whole output
// rows, output channels x pixels, with the weights resident (sm90/conv_fwd_rows_sm90.cuh).
enum class conv_specialization : std::uint8_t { none, filter1x1_pad0, filter1x1_stride1_pad0, stride1, stride1_rows };

namespace names {
inline constexpr std::array<std::string_view, 3> conv_direction{"fwd", "bwd_data", "bwd_weight"};
inline constexpr std::array<std::string_view, 6> conv_layout{"nwgc", "nhwgc", "ndhwgc", "gnwc", "gnhwc", "gndhwc"};
inline constexpr std::array<std::string_view, 5> conv_specialization{"none", "filter1x1_pad0",
                                                                     "filter1x1_stride1_pad0", "stride1",
                                                                     "stride1_rows"};
}  // namespace names
template <> struct enum_table<conv_direction> { static constexpr const auto& names = names::conv_direction; };
template <> struct enum_table<conv_layout> { static constexpr const auto& names = names::conv_layout; };
template <> struct enum_table<conv_specialization> { static constexpr const auto& names = names::conv_specialization; };

// Spatial rank a layout implies (1, 2 or 3).
constexpr int spatial_rank(conv_layout l) {
  switch (l) {
    case conv_layout::nwgc: case conv_layout::gnwc: return 1;
    case conv_layout::nhwgc: case conv_layout::gnhwc: return 2;
    case conv_layout::ndhwgc: case conv_layout::gndhwc: return 3;
  }
  return 0;
}

// A convolution multiplies in its data's dtype, or in tf32 for fp32 data (tensor cores):
// the rule the problem, the DSL's kernels and the kernels themselves share.
constexpr bool compute_suits(dtype data, dtype compute) {
  return compute == data || (data == dtype::fp32 && compute == dtype::tf32);
}

// A forward convolution's fused epilogue, in cuDNN's conv-bias-activation order:
//   out[n, o, g, k] = act(conv[n, o, g, k] + bias[g * K/G + k] + residual[n, o, g, k])
// bias: one value per output channel (K values, contiguous, the output's dtype); residual:
// a tensor of the output's shape, dtype and strides (a ResNet block's shortcut). Each part
// is optional; act is pass_through, relu, gelu (exact, erf), sigmoid or tanh. Backward
// directions have no fused epilogue (validation refuses one).
//
// A kernel's fusion is compiled in (the GPU kernels: an instance per fusion) or, with
// `dynamic`, read from the problem at run time (the host kernels: one instance serves
// every fusion and none). `dynamic` is a kernel property; a problem never sets it.
struct conv_fusion {
  elementwise act = elementwise::pass_through;
  bool bias = false;
  bool residual = false;
  bool dynamic = false;
  constexpr bool operator==(const conv_fusion&) const = default;
  constexpr bool fused() const { return act != elementwise::pass_through || bias || residual || dynamic; }
  // Whether a kernel of this fusion computes a problem of fusion `problem`.
  constexpr bool serves(const conv_fusion& problem) const { return dynamic || *this == problem; }
};

// The activations a fused epilogue applies (multi_d_add is the GEMM's D sum, no activation).
constexpr bool conv_activation(elementwise e) { return e != elementwise::multi_d_add; }

struct grouped_conv_signature {
  conv_direction dir = conv_direction::fwd;
  int ndim = 2;  // spatial dimensions
  dtype in = dtype::fp16, wei = dtype::fp16, out = dtype::fp16;
  dtype acc = dtype::fp32;
  // What the multiply runs in: the input's dtype, or tf32 for fp32 data on tensor
  // cores (as gemm_signature::compute). The builder's dtype() sets it to the input's.
  dtype compute = dtype::fp16;
  conv_layout lay = conv_layout::nhwgc;
  conv_specialization spec = conv_specialization::none;
  conv_fusion fuse{};  // forward only: bias, residual, activation applied before the store
  constexpr bool operator==(const grouped_conv_signature&) const = default;
};

struct grouped_conv_algorithm {
  mnk tile{};        // implicit-GEMM block tile
  mnk warps{};       // warps per block
  mnk warp_tile{};   // MMA tile of one warp
  pipeline pipe = pipeline::any;
  int stages = 0;    // 0: the pipeline's default depth; any_int: every legal depth
  epilogue epi = epilogue::any;
  scheduler sched = scheduler::any;
  // Elements per global access of input, weight, output; 0: the pipeline's default width.
  int vector_in = 0, vector_wei = 0, vector_out = 0;
  int groups_to_merge = 1;  // groups one block processes together
  arch_id arch = arch_id::host;
  constexpr bool operator==(const grouped_conv_algorithm&) const = default;
};

struct grouped_conv_key {
  grouped_conv_signature sig{};
  grouped_conv_algorithm algo{};
  constexpr bool operator==(const grouped_conv_key&) const = default;

  // True when no field holds a wildcard: only such keys are registered.
  constexpr bool concrete() const {
    return algo.tile.concrete() && algo.warps.concrete() && algo.warp_tile.concrete() &&
           algo.pipe != pipeline::any && algo.stages > 0 && algo.epi != epilogue::any &&
           algo.sched != scheduler::any && algo.vector_in > 0 && algo.vector_wei > 0 && algo.vector_out > 0 &&
           algo.groups_to_merge > 0 && sig.in != dtype::any && sig.wei != dtype::any && sig.out != dtype::any &&
           sig.acc != dtype::any && sig.compute != dtype::any;
  }
};

}  // namespace kdecl
