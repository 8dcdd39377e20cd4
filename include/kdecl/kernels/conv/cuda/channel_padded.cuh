// A convolution whose input channels per group a 16-byte gather cannot read (the RGB
// stem's C = 3, a single channel, any C/G that is not a multiple of 8; or strides and
// pointers off 16 bytes), run by a kernel that gathers 16-byte vectors: the operands the
// key reads element by element (vector 1) are copied into packed buffers with C/G rounded
// up to a multiple of 8, the extra channels zero, which adds nothing to any sum
// (copy_channels.cuh), and `Inner` runs on the copies.
//   forward:         x -> x' and W -> W' (those of them whose vector is 1); y in place.
//   backward-weight: x -> x'; Inner writes dW' (C'/G channels per tap) and its first C/G
//                    channels are copied out to dW (when the weight vector is 1).
// A problem Inner takes as it is runs without copies. The copies live in the caller's
// workspace, or in stream-ordered memory of their own where it is smaller.
// (Backward-data needs none of this: it reads the weights through its flipped copy and
// stores dx through a pixel map, any C/G: sm90/conv_bwd_data_sm90.cuh.)
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/cuda/copy_channels.cuh"
#include "kdecl/kernels/cuda/device_types.cuh"

namespace kdecl::kernels::cuda {

template <grouped_conv_key K, class Inner>
struct channel_padded {
  static_assert(K.sig.dir != conv_direction::bwd_data, "backward-data stores dx through a pixel map: no copies");
  using data_t = storage_t<K.sig.in>;
  static constexpr bool copies_input = K.algo.vector_in == 1;
  static constexpr bool copies_weights = K.algo.vector_wei == 1;  // forward: W in; backward-weight: dW out
  static constexpr std::int64_t vector = 16 / std::int64_t(sizeof(data_t));
  static constexpr std::size_t align = 128;

  // The problem Inner runs and the bytes of the copies it runs on (0: not copied).
  struct padded {
    grouped_conv_problem problem;
    std::size_t input_bytes = 0, weight_bytes = 0;
  };
  static padded padded_of(const grouped_conv_problem& p) {
    padded r;
    r.problem = p;
    r.problem.c = (p.c_per_group() + vector - 1) / vector * vector * p.g;
    if (copies_input) r.problem.in_strides = {};
    if (copies_weights) r.problem.wei_strides = {};
    r.problem = r.problem.normalized();  // the copies packed
    auto bytes = [](std::int64_t elements) {
      return (std::size_t(elements) * sizeof(data_t) + align - 1) / align * align;
    };
    if (copies_input) r.input_bytes = bytes(r.problem.elements(conv_tensor::input));
    if (copies_weights) r.weight_bytes = bytes(r.problem.elements(conv_tensor::weight));
    return r;
  }

  // A problem Inner takes as it is (with aligned pointers) needs no copies: Inner's workspace. Given
  // less than the copies need (pointers off 16 bytes after all), run() takes memory of its own.
  static std::size_t workspace_bytes(const grouped_conv_problem& p) {
    if (p.dir != K.sig.dir) return 0;
    if (!Inner::why_not(p, grouped_conv_args{stand_in(), stand_in(), stand_in()})) return Inner::workspace_bytes(p);
    const padded q = padded_of(p);
    return align + q.input_bytes + q.weight_bytes + Inner::workspace_bytes(q.problem);
  }

  static std::optional<std::string> why_not(const grouped_conv_problem& p, const grouped_conv_args& a) {
    if (!Inner::why_not(p, a)) return std::nullopt;  // runs as it is
    if (p.dir != K.sig.dir) return std::string("problem signature differs from the kernel's");
    if (!a.in || !a.wei || !a.out) return std::string("a tensor pointer (in, wei or out) is null");
    if (p.c_per_group() % vector != 0 && !(copies_input && copies_weights))
      return "C/G = " + std::to_string(p.c_per_group()) +
             " is no multiple of 8: the kernel pads the input and the weights only where its key reads both "
             "element by element (vector 1)";
    const padded q = padded_of(p);
    if (auto why = q.problem.exceeds_32bit_offsets()) return "with C/G padded to a multiple of 8: " + *why;
    return Inner::why_not(q.problem, inner_args(a, stand_in(), stand_in()));
  }

  static status run(const grouped_conv_problem& p, const grouped_conv_args& a, void* stream) {
    if (!Inner::why_not(p, a)) return Inner::run(p, a, stream);
    if (auto why = why_not(p, a)) return status::error(*why);
    const auto st = static_cast<cudaStream_t>(stream);
    const padded q = padded_of(p);
    const std::size_t inner_bytes = Inner::workspace_bytes(q.problem);
    const std::size_t wanted = align + q.input_bytes + q.weight_bytes + inner_bytes;
    void* scratch = a.workspace;
    bool owned = false;
    if (scratch == nullptr || a.workspace_bytes < wanted) {
      if (const cudaError_t err = cudaMallocAsync(&scratch, wanted, st); err != cudaSuccess)
        return status::error(std::string("channel-padded conv: cudaMallocAsync of the padded copies: ") +
                             cudaGetErrorString(err));
      owned = true;
    }
    auto* base = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(scratch) + align - 1) / align * align);
    unsigned char* input = base;
    unsigned char* weights = input + q.input_bytes;
    grouped_conv_args inner = inner_args(a, input, weights);
    inner.workspace = weights + q.weight_bytes;
    inner.workspace_bytes = inner_bytes;
    const status ran = run_padded(p, q.problem, a, inner, st);
    if (owned) cudaFreeAsync(scratch, st);
    return ran;
  }

 private:
  static status run_padded(const grouped_conv_problem& p, const grouped_conv_problem& q, const grouped_conv_args& a,
                           const grouped_conv_args& inner, cudaStream_t st) {
    if constexpr (copies_input)
      if (status s = copy_channels<data_t>(a.in, inner.in, activations(p, q), st); !s) return s;
    if constexpr (copies_weights && K.sig.dir == conv_direction::fwd)
      if (status s = copy_channels<data_t>(a.wei, inner.wei, filters(p, q), st); !s) return s;
    if (status s = Inner::run(q, inner, st); !s) return s;
    if constexpr (copies_weights && K.sig.dir == conv_direction::bwd_weight) {
      channel_copy out = filters(q, p);  // dW' -> dW: the first C/G channels of each tap
      return copy_channels<data_t>(inner.wei, a.wei, out, st);
    }
    return status::ok();
  }

  // The copies of the input (N, G, D, H, W pixel groups) and of the weights (K/G, G, Z, Y, X),
  // from `from`'s strides and C/G to `to`'s (zeros past from's channels).
  static channel_copy activations(const grouped_conv_problem& from, const grouped_conv_problem& to) {
    channel_copy c;
    const std::int64_t extent[5] = {from.n, from.g, from.input_dims[0], from.input_dims[1], from.input_dims[2]};
    fill(c, extent, from.in_strides, to.in_strides, from, to);
    return c;
  }
  static channel_copy filters(const grouped_conv_problem& from, const grouped_conv_problem& to) {
    channel_copy c;
    const std::int64_t extent[5] = {from.k_per_group(), from.g, from.filter_dims[0], from.filter_dims[1],
                                    from.filter_dims[2]};
    fill(c, extent, from.wei_strides, to.wei_strides, from, to);
    return c;
  }
  static void fill(channel_copy& c, const std::int64_t (&extent)[5], const conv_tensor_strides& src,
                   const conv_tensor_strides& dst, const grouped_conv_problem& from, const grouped_conv_problem& to) {
    const std::int64_t s[5] = {src.n, src.g, src.spatial[0], src.spatial[1], src.spatial[2]};
    const std::int64_t d[5] = {dst.n, dst.g, dst.spatial[0], dst.spatial[1], dst.spatial[2]};
    for (int i = 0; i < 5; ++i) {
      c.extent[i] = extent[i];
      c.src_stride[i] = s[i];
      c.dst_stride[i] = d[i];
    }
    c.channels = int(std::min(from.c_per_group(), to.c_per_group()));
    c.dst_channels = int(to.c_per_group());
  }

  // Inner's operands: the copies in place of the operands the key copies.
  static grouped_conv_args inner_args(const grouped_conv_args& a, void* input, void* weights) {
    grouped_conv_args r = a;
    if (copies_input) r.in = input;
    if (copies_weights) r.wei = weights;
    r.workspace = nullptr;
    r.workspace_bytes = 0;
    return r;
  }
  // What why_not checks in place of a copy (not yet made): a pointer aligned as the copies are.
  static void* stand_in() { return reinterpret_cast<void*>(std::uintptr_t{align}); }
};

}  // namespace kdecl::kernels::cuda
