#include "kdecl/tuning/conv_features.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "kdecl/conv/conv_heuristic.hpp"
#include "kdecl/dispatch/alignment.hpp"
#include "kdecl/kernels/conv/direct_window.hpp"
#include "kdecl/kernels/conv/halo_plan.hpp"
#include "kdecl/kernels/conv/rows_plan.hpp"

namespace kdecl::tuning {

const std::array<std::string_view, conv_feature_count>& conv_feature_names() {
  static const auto names = [] {
    // Views into strings that live as long as the program (the prefixed GEMM names).
    static std::array<std::string, feature_count> gemm;
    std::array<std::string_view, conv_feature_count> out{};
    for (std::size_t i = 0; i < feature_count; ++i) {
      gemm[i] = "gemm_" + std::string(feature_names()[i]);
      out[i] = gemm[i];
    }
    static constexpr std::array<std::string_view, conv_extra_feature_count> extra{
        "direction", "ndim",
        "log2_taps", "stride", "dilation",            // largest over the spatial dimensions
        "log2_groups", "log2_c_per_group", "log2_k_per_group",
        "depthwise", "pointwise",
        "direct",                                     // a direct (not implicit-GEMM) kernel
        "groups_to_merge",
        "vector_in_bytes", "vector_wei_bytes", "vector_out_bytes",
        "group_tile_fill",                            // (merged groups x) K/G over the N tile (fwd)
        "halo_tiles",                                 // the stride1 specialization's halo tiles
        "halo_tile_fill",                             // output pixels over the halo tiles' pixels
        "rows",                                       // the stride1_rows specialization's streamed rows
        "rows_fill",                                  // a row's output pixels over its strips' pixels
        "direct_staged",                              // the TMA-staged depthwise kernel (direct_conv stages 2)
        "direct_reads_per_output",                    // a direct thread's input vectors read per output
        "log2_bytes"};                                // the least traffic, every tensor once
    for (std::size_t i = 0; i < extra.size(); ++i) out[feature_count + i] = extra[i];
    return out;
  }();
  return names;
}

int conv_alignment(const grouped_conv_problem& p) {
  int a = 16;
  auto fold = [&](std::int64_t elements, dtype d) {
    if (elements > 0) a = std::min(a, dispatch::power_of_two_dividing(std::uint64_t(elements) * dispatch::element_bytes(d)));
  };
  fold(p.c_per_group(), p.in_type);
  fold(p.k_per_group(), p.out_type);
  for (conv_tensor t : {conv_tensor::input, conv_tensor::weight, conv_tensor::output}) {
    const auto& s = p.strides_of(t);
    const dtype d = p.dtype_of(t);
    fold(s.n, d);
    fold(s.g, d);
    for (int slot = 3 - p.ndim(); slot < 3; ++slot) fold(s.spatial[std::size_t(slot)], d);
  }
  return a;
}

conv_feature_row conv_features_of(const grouped_conv_problem& p, const grouped_conv_key& key, double estimate_us,
                                  double best_estimate_us, int alignment, device_facts device) {
  // The implicit GEMM as this kernel computes it (split-K ranges included).
  const gemm_key g = implicit_gemm_key(key);
  const problem_profile pp = conv_problem_profile(key, p, machine_model_of(g).processors);
  gemm_problem gp;
  gp.sig = g.sig;
  gp.sizes(std::max<std::int64_t>(1, std::llround(pp.m)), std::max<std::int64_t>(1, std::llround(pp.n)),
           std::max<std::int64_t>(1, std::llround(pp.k)));
  gp.batch = std::max<std::int64_t>(1, std::llround(pp.batch));
  const auto gemm = features_of(gp.normalized(), g, estimate_us, best_estimate_us, {alignment, alignment}, device);

  conv_feature_row f{};
  std::copy(gemm.begin(), gemm.end(), f.begin());
  std::size_t i = feature_count;
  const auto bytes_of = [](int elements, dtype d) { return float(elements * dispatch::element_bytes(d)); };
  std::int64_t stride = 1, dilation = 1;
  for (int s = 0; s < 3; ++s) {
    stride = std::max(stride, p.stride_dims[s]);
    dilation = std::max(dilation, p.dilation_dims[s]);
  }
  const auto& a = key.algo;
  f[i++] = float(int(p.dir));
  f[i++] = float(p.ndim());
  f[i++] = float(std::log2(double(p.filter_taps())));
  f[i++] = float(stride);
  f[i++] = float(dilation);
  f[i++] = float(std::log2(double(p.g)));
  f[i++] = float(std::log2(double(p.c_per_group())));
  f[i++] = float(std::log2(double(p.k_per_group())));
  f[i++] = p.is_depthwise() ? 1.0f : 0.0f;
  f[i++] = p.is_pointwise() ? 1.0f : 0.0f;
  f[i++] = a.pipe == pipeline::direct_conv ? 1.0f : 0.0f;
  f[i++] = float(a.groups_to_merge);
  f[i++] = bytes_of(a.vector_in, key.sig.in);
  f[i++] = bytes_of(a.vector_wei, key.sig.wei);
  f[i++] = bytes_of(a.vector_out, key.sig.out);
  f[i++] = p.dir == conv_direction::fwd && a.tile.n > 0
               ? float(std::min(1.0, double(a.groups_to_merge * p.k_per_group()) / double(a.tile.n)))
               : 1.0f;
  // Halo tiles: of the forward convolution they compute (a stride-1 backward-data's forward equivalent).
  const auto halo =
      key.sig.spec == conv_specialization::stride1 ? kernels::halo_plan_of(p, a.tile.m) : std::nullopt;
  f[i++] = halo ? 1.0f : 0.0f;
  f[i++] = halo ? float(double(halo->output_pixels) / double(halo->tiling.rows())) : 1.0f;
  const auto rows =
      key.sig.spec == conv_specialization::stride1_rows ? kernels::rows_plan_of(p, a.tile.m) : std::nullopt;
  f[i++] = rows ? 1.0f : 0.0f;
  f[i++] = rows ? float(rows->fill()) : 1.0f;
  f[i++] = a.pipe == pipeline::direct_conv && a.stages == 2 ? 1.0f : 0.0f;
  f[i++] = float(kernels::direct_reads_per_output(key, p));
  f[i++] = float(std::log2(std::max(1.0, p.bytes())));
  return f;
}

}  // namespace kdecl::tuning
