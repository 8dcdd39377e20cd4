// The sm_90a forward convolution of 8-bit floating data (fp8 e4m3, bf8 e5m2, mixed), written
// in bf16, fp16 or fp32: each group's implicit GEMM run by the fp8 tma_wgmma GEMM kernel
// (kernels/gemm/cuda/sm90/gemm_sm90.cuh), batched over the groups.
//
//   A  [N x output pixels, taps x C/G]  the input gathered by im2col into the workspace
//                                       (im2col.cuh); a 1x1 layer of unit stride and no padding
//                                       whose pixels lie one stride apart reads the input itself
//   B  [K/G, taps x C/G] (K-major)      the weights as stored (GKZYXC: each output channel's taps x
//                                       C/G contiguous), or packed into the workspace where their
//                                       taps are not contiguous or TMA cannot load them (rows not
//                                       16-byte multiples: the RGB stem's 3 x 3 x 3 = 27 bytes)
//   C  [N x output pixels, K/G]         the output itself where its pixels lie one stride apart
//                                       (any alignment: the GEMM's staged epilogue), else a packed
//                                       copy in the workspace, copied out (copy_channels.cuh)
//
// wgmma reads 8-bit operands K-major only, which forward's are: the input's channels and the
// weights' taps x channels are contiguous. The gather writes taps x the input (9x for a 3x3
// filter) once, at the memory's speed; an implicit-GEMM producer for 8-bit data (the 16-bit
// kernels' TMA im2col loads) would save that traffic and is not built. Plain GEMMs: no
// specialization, one group per GEMM, no fused epilogue (conv_fwd_fp8_sm90_unsupported_reason).
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
#include "kdecl/kernels/conv/cuda/im2col.cuh"
#include "kdecl/kernels/conv/cuda/sm90/conv_fwd_sm90_config.cuh"
#include "kdecl/kernels/conv/pixel_rows.hpp"
#include "kdecl/kernels/cuda/device_types.cuh"
#include "kdecl/kernels/cuda/stream_scratch.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90.cuh"

namespace kdecl::kernels::cuda::sm90 {

template <grouped_conv_key K>
struct conv_fwd_fp8 {
  static_assert(conv_fwd_fp8_sm90_unsupported_reason(K) == nullptr,
                "key not supported by the sm90 8-bit forward convolution: see conv_fwd_fp8_sm90_unsupported_reason(K)");
  using in_t = storage_t<K.sig.in>;
  using wei_t = storage_t<K.sig.wei>;
  using out_t = storage_t<K.sig.out>;
  // The staged output is copied out as 16-bit words (an fp32 value as two): bits, not values.
  using copy_t = __half;
  static constexpr std::int64_t words = std::int64_t(sizeof(out_t) / sizeof(copy_t));
  using gemm_kernel = gemm<conv_fwd_fp8_gemm_key(K)>;
  static constexpr std::size_t align = 128;
  static constexpr std::int64_t row_bytes = 16;  // TMA: A's and B's rows a multiple of 16 bytes

  // Where each operand of the GEMMs comes from, the GEMM problem, the workspace it takes.
  struct plan {
    bool gather = false;   // A: im2col of the input into the workspace
    bool pack = false;     // B: the weights packed into the workspace
    bool stage = false;    // C: the output written packed into the workspace, then copied out
    gemm_problem g;
    std::size_t col_bytes = 0, wei_bytes = 0, out_bytes = 0;
    std::optional<std::string> reason;
    std::size_t bytes() const { return col_bytes + wei_bytes + out_bytes; }
  };

  static std::optional<std::string> why_not(const grouped_conv_problem& p, const grouped_conv_args& a) {
    return plan_of(p, a).reason;
  }

  static std::size_t workspace_bytes(const grouped_conv_problem& p) {
    const plan q = plan_of(p, stand_in_args());
    if (q.reason) return 0;
    return (q.bytes() ? align + q.bytes() : 0) + gemm_kernel::workspace_bytes(q.g);
  }

  static status run(const grouped_conv_problem& p, const grouped_conv_args& a, void* stream) {
    const plan q = plan_of(p, a);
    if (q.reason) return status::error(*q.reason);
    if (q.g.m == 0 || q.g.n == 0 || q.g.batch == 0) return status::ok();
    const auto st = static_cast<cudaStream_t>(stream);
    gemm_args g;
    g.a = a.in;
    g.b = a.wei;
    g.c = a.out;
    g.workspace = a.workspace;
    g.workspace_bytes = a.workspace_bytes;
    if (q.bytes() == 0) return gemm_kernel::run(q.g, g, st);
    const stream_scratch scratch(a.workspace, a.workspace_bytes, q.bytes(), align, st,
                                 "sm90 fp8 conv: the gathered input, packed weights or staged output");
    if (!scratch) return scratch.error();
    unsigned char* next = scratch.get();
    if (q.gather) {
      if (status s = im2col<in_t>(static_cast<const in_t*>(a.in), reinterpret_cast<in_t*>(next),
                                  input_geometry(p, q.g.lda), st);
          !s)
        return s;
      g.a = next;
      next += q.col_bytes;
    }
    if (q.pack) {
      if (status s = im2col<wei_t>(static_cast<const wei_t*>(a.wei), reinterpret_cast<wei_t*>(next),
                                   weight_geometry(p, q.g.ldb), st);
          !s)
        return s;
      g.b = next;
      next += q.wei_bytes;
    }
    if (q.stage) g.c = next;
    // The GEMM's own workspace (a split tail's partials): what the caller lent past ours, else its own.
    g.workspace = nullptr;
    g.workspace_bytes = 0;
    if (a.workspace != nullptr) {
      auto* const lent = static_cast<unsigned char*>(a.workspace);
      unsigned char* const rest = scratch.get() + q.bytes();
      if (scratch.get() >= lent && rest <= lent + a.workspace_bytes) {
        g.workspace = rest;
        g.workspace_bytes = std::size_t(lent + a.workspace_bytes - rest);
      }
    }
    if (status s = gemm_kernel::run(q.g, g, st); !s) return s;
    if (q.stage) return copy_channels<copy_t>(g.c, a.out, copy_out(p), st);
    return status::ok();
  }

 private:
  static std::int64_t round_up(std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; }
  static std::size_t rounded_bytes(std::int64_t elements, std::size_t element) {
    return (std::size_t(elements) * element + align - 1) / align * align;
  }
  static void* stand_in() { return scratch_stand_in(align); }
  static grouped_conv_args stand_in_args() { return {stand_in(), stand_in(), stand_in()}; }

  // A 1x1 layer of unit stride and no padding: its GEMM's A is the input's pixels themselves.
  static bool unit_pointwise(const grouped_conv_problem& p) {
    for (int d = 0; d < 3; ++d)
      if (p.stride_dims[d] != 1) return false;
    return p.is_pointwise();
  }

  static im2col_geometry input_geometry(const grouped_conv_problem& p, std::int64_t ld) {
    im2col_geometry g;
    g.images = p.n;
    g.groups = p.g;
    const auto out = p.output_dims();
    for (int d = 0; d < 3; ++d) {
      g.out[d] = out[std::size_t(d)];
      g.in[d] = p.input_dims[d];
      g.filter[d] = p.filter_dims[d];
      g.stride[d] = p.stride_dims[d];
      g.dilation[d] = p.dilation_dims[d];
      g.pad_left[d] = p.pad_left_dims[d];
      g.in_pos[d] = p.in_strides.spatial[std::size_t(d)];
    }
    g.in_image = p.in_strides.n;
    g.in_group = p.in_strides.g;
    g.channels = p.c_per_group();
    g.ld = ld;
    return g;
  }
  // The weights as an "input" of K/G images whose filter covers them whole: one row per output channel.
  static im2col_geometry weight_geometry(const grouped_conv_problem& p, std::int64_t ld) {
    im2col_geometry g;
    g.images = p.k_per_group();
    g.groups = p.g;
    for (int d = 0; d < 3; ++d) {
      g.in[d] = g.filter[d] = p.filter_dims[d];
      g.in_pos[d] = p.wei_strides.spatial[std::size_t(d)];
    }
    g.in_image = p.wei_strides.n;
    g.in_group = p.wei_strides.g;
    g.channels = p.c_per_group();
    g.ld = ld;
    return g;
  }
  // The staged output [G][N][D][H][W][K/G] back into the output's own strides (in 16-bit words).
  static channel_copy copy_out(const grouped_conv_problem& p) {
    const auto out = p.output_dims();
    const std::int64_t kg = p.k_per_group(), pixels = p.output_pixels();
    channel_copy c;
    const std::int64_t extent[5] = {p.n, p.g, out[0], out[1], out[2]};
    const std::int64_t src[5] = {pixels * kg, p.n * pixels * kg, out[1] * out[2] * kg, out[2] * kg, kg};
    const std::int64_t dst[5] = {p.out_strides.n, p.out_strides.g, p.out_strides.spatial[0], p.out_strides.spatial[1],
                                 p.out_strides.spatial[2]};
    for (int i = 0; i < 5; ++i) {
      c.extent[i] = extent[i];
      c.src_stride[i] = src[i] * words;
      c.dst_stride[i] = dst[i] * words;
    }
    c.channels = c.dst_channels = int(kg * words);
    return c;
  }

  // The GEMMs of `p` with A, B and C read in place where `direct` allows and the GEMM takes them.
  static plan plan_with(const grouped_conv_problem& p, const grouped_conv_args& a, bool direct_a, bool direct_b,
                        bool direct_c) {
    plan q;
    const std::int64_t rows = p.n * p.output_pixels(), kg = p.k_per_group(), cg = p.c_per_group();
    const std::int64_t width = p.filter_taps() * cg;
    gemm_problem& g = q.g;
    g.sizes(rows, kg, width).batched(p.g).dtypes(K.sig.in, K.sig.wei, K.sig.out).layout(rcr);
    g.accumulator(K.sig.acc);
    g.compute(K.sig.compute);
    gemm_args ga;
    if (direct_a && unit_pointwise(p) && pixels_evenly_strided(p, conv_tensor::input)) {
      g.lda = p.in_strides.spatial[2];
      g.stride_a = p.in_strides.g;
      ga.a = a.in;
    } else {
      q.gather = true;
      g.lda = round_up(width, row_bytes);
      g.stride_a = rows * g.lda;
      q.col_bytes = rounded_bytes(p.g * rows * g.lda, sizeof(in_t));
      ga.a = stand_in();
    }
    if (direct_b && filter_taps_contiguous(p)) {
      g.ldb = std::max(p.wei_strides.n, width);
      g.stride_b = p.wei_strides.g;
      ga.b = a.wei;
    } else {
      q.pack = true;
      g.ldb = round_up(width, row_bytes);
      g.stride_b = kg * g.ldb;
      q.wei_bytes = rounded_bytes(p.g * kg * g.ldb, sizeof(wei_t));
      ga.b = stand_in();
    }
    if (direct_c && pixels_evenly_strided(p, conv_tensor::output)) {
      g.ldc = p.out_strides.spatial[2];
      g.stride_c = p.out_strides.g;
      ga.c = a.out;
    } else {
      q.stage = true;
      g.ldc = kg;
      g.stride_c = rows * kg;
      q.out_bytes = rounded_bytes(p.g * rows * kg, sizeof(out_t));
      ga.c = stand_in();
    }
    q.reason = gemm_kernel::why_not(g, ga);
    return q;
  }

  static plan plan_of(const grouped_conv_problem& p, const grouped_conv_args& a) {
    if (p.dir != conv_direction::fwd || p.in_type != K.sig.in || p.wei_type != K.sig.wei || p.out_type != K.sig.out)
      return refused("problem signature differs from the kernel's");
    if (p.fusion.fused()) return refused("the sm90 8-bit convolution fuses no epilogue (the host kernels do)");
    if (!a.in || !a.wei || !a.out) return refused("a tensor pointer (in, wei or out) is null");
    // Each operand in place where it can be; what the GEMM refuses in place goes through the workspace.
    plan q = plan_with(p, a, true, true, true);
    if (q.reason) q = plan_with(p, a, true, false, true);
    if (q.reason) q = plan_with(p, a, false, false, false);
    if (q.reason) q.reason = "sm90 fp8 conv: its GEMM: " + *q.reason;
    return q;
  }
  static plan refused(std::string why) {
    plan q;
    q.reason = std::move(why);
    return q;
  }
};

}  // namespace kdecl::kernels::cuda::sm90
