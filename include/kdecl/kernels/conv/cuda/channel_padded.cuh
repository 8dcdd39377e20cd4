// A convolution whose channels per group a 16-byte gather or store cannot take (the RGB
// stem's C = 3, a single channel, a K/G or C/G that is not a multiple of 8; or strides
// and pointers off 16 bytes), run by a kernel that moves 16-byte vectors: the operands
// the key takes element by element (vector 1) are copied into packed buffers with C/G
// and K/G rounded up to a multiple of 8, the extra channels and filters zero, which adds
// nothing to any sum (copy_channels.cuh); `Inner` runs on the copies, and the results it
// wrote to a copy are copied back out (their first K/G or C/G channels).
//
//   direction        read (copied in)                written (copied back)
//   forward          x (C padded), W (C, K padded)   y (K padded)
//   backward-data    dY (K padded), W (K padded)     - (dx: Inner's pixel map takes any C)
//   backward-weight  x (C padded), dY (K padded)     dW (C, K padded)
//
// Only what the problem needs is copied: a padded channel count copies the tensors that
// hold it, and the rest stay in place unless Inner refuses their pointers or strides (then
// every operand the key takes element by element is copied). A problem Inner takes as it is
// runs without copies. The copies live in the caller's workspace, or in stream-ordered
// memory of their own where it is smaller (cuda/stream_scratch.cuh).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/cuda/copy_channels.cuh"
#include "kdecl/kernels/cuda/device_types.cuh"
#include "kdecl/kernels/cuda/stream_scratch.cuh"

namespace kdecl::kernels::cuda {

template <grouped_conv_key K, class Inner>
struct channel_padded {
  using data_t = storage_t<K.sig.in>;
  static constexpr std::int64_t vector = 16 / std::int64_t(sizeof(data_t));
  static constexpr std::size_t align = 128;
  static constexpr int tensors = 3;  // conv_tensor: input, weight, output
  static constexpr bool backward_data = K.sig.dir == conv_direction::bwd_data;

  // Which operands the key lets the kernel copy: those it takes element by element, but dx,
  // which backward-data's pixel-mapped store writes at any C/G itself.
  static constexpr std::array<bool, tensors> copyable = {K.algo.vector_in == 1 && !backward_data,
                                                          K.algo.vector_wei == 1, K.algo.vector_out == 1};
  // The operands Inner writes (copied back): forward's y, backward-weight's dW.
  static constexpr std::array<bool, tensors> written = {false, K.sig.dir == conv_direction::bwd_weight,
                                                         K.sig.dir == conv_direction::fwd};

  // What Inner runs: its problem, the operands it reads from copies, and their bytes; or why not.
  struct plan {
    grouped_conv_problem problem;
    std::array<bool, tensors> copied{};
    std::array<std::size_t, tensors> bytes{};  // of each copy, rounded up to `align`
    std::optional<std::string> reason;         // set: no plan
    bool copies() const { return copied[0] || copied[1] || copied[2]; }
    std::size_t copy_bytes() const { return bytes[0] + bytes[1] + bytes[2]; }
  };

  static plan plan_of(const grouped_conv_problem& p, const grouped_conv_args& a) {
    plan r;
    r.problem = p;
    if (!Inner::why_not(p, a)) return r;  // runs as it is
    if (p.dir != K.sig.dir) return refused("problem signature differs from the kernel's");
    if (!a.in || !a.wei || !a.out) return refused("a tensor pointer (in, wei or out) is null");
    // Channel counts a 16-byte vector cannot take are padded, with every tensor that holds them.
    const bool pad_c = !backward_data && p.c_per_group() % vector != 0;
    const bool pad_k = p.k_per_group() % vector != 0;
    if (pad_c && !(copyable[0] && copyable[1]))
      return refused("C/G = " + std::to_string(p.c_per_group()) +
                     " is no multiple of 8: the kernel pads the input channels only where its key takes both the "
                     "input and the weights element by element (vector 1)");
    if (pad_k && !(copyable[1] && copyable[2]))
      return refused("K/G = " + std::to_string(p.k_per_group()) +
                     " is no multiple of 8: the kernel pads the output channels only where its key takes both the "
                     "weights and the output element by element (vector 1)");
    const std::array<bool, tensors> needed = {pad_c, pad_c || pad_k, pad_k};
    r = with_copies(p, a, pad_c, pad_k, needed);
    if (r.reason && needed != copyable) r = with_copies(p, a, pad_c, pad_k, copyable);  // pointers, strides
    return r;
  }

  static std::size_t workspace_bytes(const grouped_conv_problem& p) {
    if (p.dir != K.sig.dir) return 0;
    grouped_conv_args stand_ins{stand_in(), stand_in(), stand_in()};
    stand_ins.bias = stand_ins.residual = stand_in();  // a fused epilogue's inputs, where the problem has them
    const plan q = plan_of(p, stand_ins);
    if (q.reason) return 0;
    return (q.copies() ? align + q.copy_bytes() : 0) + Inner::workspace_bytes(q.problem);
  }

  static std::optional<std::string> why_not(const grouped_conv_problem& p, const grouped_conv_args& a) {
    return plan_of(p, a).reason;
  }

  static status run(const grouped_conv_problem& p, const grouped_conv_args& a, void* stream) {
    const plan q = plan_of(p, a);
    if (q.reason) return status::error(*q.reason);
    if (!q.copies()) return Inner::run(p, a, stream);
    const auto st = static_cast<cudaStream_t>(stream);
    const std::size_t inner_bytes = Inner::workspace_bytes(q.problem);
    const stream_scratch scratch(a.workspace, a.workspace_bytes, q.copy_bytes() + inner_bytes, align, st,
                                 "channel-padded conv: the padded copies");
    if (!scratch) return scratch.error();
    grouped_conv_args inner = a;
    unsigned char* next = scratch.get();
    for (int t = 0; t < tensors; ++t) {
      if (!q.copied[std::size_t(t)]) continue;
      tensor_of(inner, conv_tensor(t)) = next;
      next += q.bytes[std::size_t(t)];
    }
    inner.workspace = inner_bytes ? next : nullptr;
    inner.workspace_bytes = inner_bytes;
    for (int t = 0; t < tensors; ++t)  // the operands Inner reads
      if (q.copied[std::size_t(t)] && !written[std::size_t(t)])
        if (status s = copy_channels<data_t>(a.tensor(conv_tensor(t)), inner.tensor(conv_tensor(t)),
                                             copy_of(conv_tensor(t), p, p, q.problem), st);
            !s)
          return s;
    if (status s = Inner::run(q.problem, inner, st); !s) return s;
    for (int t = 0; t < tensors; ++t)  // the results it wrote to copies: their real channels back out
      if (q.copied[std::size_t(t)] && written[std::size_t(t)])
        if (status s = copy_channels<data_t>(inner.tensor(conv_tensor(t)), a.tensor(conv_tensor(t)),
                                             copy_of(conv_tensor(t), p, q.problem, p), st);
            !s)
          return s;
    return status::ok();
  }

 private:
  static plan refused(std::string why) {
    plan r;
    r.reason = std::move(why);
    return r;
  }

  // Inner's problem with the padded channel counts and the `copied` tensors packed, and Inner's
  // verdict on it (the copies stand in as aligned pointers).
  static plan with_copies(const grouped_conv_problem& p, const grouped_conv_args& a, bool pad_c, bool pad_k,
                          const std::array<bool, tensors>& copied) {
    plan r;
    r.copied = copied;
    r.problem = p;
    auto round_up = [](std::int64_t per_group) { return (per_group + vector - 1) / vector * vector; };
    if (pad_c) r.problem.c = round_up(p.c_per_group()) * p.g;
    if (pad_k) r.problem.k = round_up(p.k_per_group()) * p.g;
    if (copied[0]) r.problem.in_strides = {};
    if (copied[1]) r.problem.wei_strides = {};
    if (copied[2]) r.problem.out_strides = {};
    r.problem = r.problem.normalized();  // the copies packed
    for (int t = 0; t < tensors; ++t)
      if (copied[std::size_t(t)])
        r.bytes[std::size_t(t)] =
            (std::size_t(r.problem.elements(conv_tensor(t))) * sizeof(data_t) + align - 1) / align * align;
    if (auto why = r.problem.exceeds_32bit_offsets()) {
      r.reason = "with the channels padded to a multiple of 8: " + *why;
      return r;
    }
    grouped_conv_args stand_ins = a;
    for (int t = 0; t < tensors; ++t)
      if (copied[std::size_t(t)]) tensor_of(stand_ins, conv_tensor(t)) = stand_in();
    r.reason = Inner::why_not(r.problem, stand_ins);
    return r;
  }

  // One tensor of the real problem `p` between `from`'s layout and `to`'s: p's channels copied,
  // `to`'s further channels (and the weights' further output channels) zero.
  static channel_copy copy_of(conv_tensor t, const grouped_conv_problem& p, const grouped_conv_problem& from,
                              const grouped_conv_problem& to) {
    channel_copy c;
    const auto out = p.output_dims();
    const std::int64_t extent[3][5] = {
        {p.n, p.g, p.input_dims[0], p.input_dims[1], p.input_dims[2]},
        {p.k_per_group(), p.g, p.filter_dims[0], p.filter_dims[1], p.filter_dims[2]},
        {p.n, p.g, out[0], out[1], out[2]}};
    auto strides = [t](const grouped_conv_problem& q) {
      return t == conv_tensor::input ? q.in_strides : t == conv_tensor::weight ? q.wei_strides : q.out_strides;
    };
    auto channels = [t](const grouped_conv_problem& q) {
      return t == conv_tensor::output ? q.k_per_group() : q.c_per_group();
    };
    const conv_tensor_strides& src = strides(from);
    const conv_tensor_strides& dst = strides(to);
    const std::int64_t s[5] = {src.n, src.g, src.spatial[0], src.spatial[1], src.spatial[2]};
    const std::int64_t d[5] = {dst.n, dst.g, dst.spatial[0], dst.spatial[1], dst.spatial[2]};
    for (int i = 0; i < 5; ++i) {
      c.extent[i] = extent[int(t)][i];
      c.src_stride[i] = s[i];
      c.dst_stride[i] = d[i];
    }
    c.channels = int(channels(p));
    c.dst_channels = int(channels(to));
    if (t == conv_tensor::weight) c.dst_extent0 = to.k_per_group();
    return c;
  }

  static void*& tensor_of(grouped_conv_args& a, conv_tensor t) {
    return t == conv_tensor::input ? a.in : t == conv_tensor::weight ? a.wei : a.out;
  }
  static void* stand_in() { return scratch_stand_in(align); }  // a copy not yet made
};

}  // namespace kdecl::kernels::cuda
