#include "kdecl/tuning/conv_problem_key.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "kdecl/conv/grouped_conv_name.hpp"
#include "key_text.hpp"

namespace kdecl::tuning {

using namespace key_text;

namespace {

std::string dims_text(const conv_dims& d, int rank) {
  std::string out;
  for (int s = 3 - rank; s < 3; ++s) out += fmt::format("{}{}", s == 3 - rank ? "" : "x", d[s]);
  return out;
}

conv_dims parse_dims(std::string_view key, std::string_view s, std::string_view prefix, int rank) {
  if (!s.starts_with(prefix)) bad(key, s, fmt::format("does not start with '{}'", prefix));
  auto parts = split(s.substr(prefix.size()), 'x');
  if (int(parts.size()) != rank) bad(key, s, fmt::format("does not hold {} values (the input's rank)", rank));
  conv_dims d;
  d.count = rank;
  for (int i = 0; i < rank; ++i) d.v[std::size_t(3 - rank + i)] = parse_int(key, parts[std::size_t(i)]);
  return d;
}

std::string strides_text(const conv_tensor_strides& s) {
  return fmt::format("{}.{}.{}.{}.{}.{}", s.n, s.g, s.c, s.spatial[0], s.spatial[1], s.spatial[2]);
}

conv_tensor_strides parse_strides(std::string_view key, std::string_view s) {
  auto v = split(s, '.');
  if (v.size() != 6) bad(key, s, "is not <n>.<g>.<c>.<d>.<h>.<w>");
  conv_tensor_strides t;
  t.n = parse_int(key, v[0]);
  t.g = parse_int(key, v[1]);
  t.c = parse_int(key, v[2]);
  for (int i = 0; i < 3; ++i) t.spatial[std::size_t(i)] = parse_int(key, v[std::size_t(3 + i)]);
  return t;
}

// in-wei-out-acc, with -compute appended when the multiply is not the input's dtype (fp32 in tf32);
// the layout, with +<fusion segment> appended for a fused epilogue (nhwgc+fused-bias-relu).
std::string signature_text(conv_direction dir, dtype in, dtype wei, dtype out, dtype acc, dtype compute,
                           conv_layout lay, const conv_fusion& fuse) {
  return fmt::format("conv/{}/{}-{}-{}-{}{}/{}{}", to_string(dir), to_string(in), to_string(wei), to_string(out),
                     to_string(acc), compute == in ? std::string() : "-" + std::string(to_string(compute)),
                     to_string(lay), fuse.fused() ? "+" + fusion_segment(fuse) : std::string());
}

}  // namespace

std::string problem_signature(const grouped_conv_problem& problem) {
  const auto p = problem.normalized();
  return signature_text(p.dir, p.in_type, p.wei_type, p.out_type, p.acc_type, p.compute_type, p.layout_or_default(),
                        p.fusion);
}

std::string kernel_signature(const grouped_conv_key& key) {
  const auto& s = key.sig;
  return signature_text(s.dir, s.in, s.wei, s.out, s.acc, s.compute, s.lay, s.fuse);
}

std::vector<std::string> conv_kernels_of_signatures(const std::vector<std::string>& names,
                                                    const std::vector<std::string>& signatures) {
  std::vector<std::string> out;
  for (const auto& n : names) {
    try {
      if (std::find(signatures.begin(), signatures.end(), kernel_signature(parse_conv_name(n))) != signatures.end())
        out.push_back(n);
    } catch (const std::invalid_argument&) {
    }
  }
  return out;
}

std::string problem_key(const grouped_conv_problem& problem) {
  const auto p = problem.normalized();
  const int r = p.ndim();
  auto packed = p;
  packed.in_strides = packed.wei_strides = packed.out_strides = {};
  packed = packed.normalized();
  const bool is_packed = packed.in_strides == p.in_strides && packed.wei_strides == p.wei_strides &&
                         packed.out_strides == p.out_strides;
  return fmt::format("{}/n{}c{}k{}g{}/i{}/f{}/s{}/d{}/p{}_{}/{}", problem_signature(p), p.n, p.c, p.k, p.g,
                     dims_text(p.input_dims, r), dims_text(p.filter_dims, r), dims_text(p.stride_dims, r),
                     dims_text(p.dilation_dims, r), dims_text(p.pad_left_dims, r), dims_text(p.pad_right_dims, r),
                     is_packed ? std::string("packed")
                               : fmt::format("st{}-{}-{}", strides_text(p.in_strides), strides_text(p.wei_strides),
                                             strides_text(p.out_strides)));
}

grouped_conv_problem parse_conv_problem_key(std::string_view key) {
  auto parts = split(key, '/');
  if (parts.size() != 11 || parts[0] != "conv")
    bad(key, key, "is not conv/<dir>/<dtypes>/<layout>/n..c..k..g../i../f../s../d../p.._../<strides>");
  grouped_conv_problem p;
  p.dir = parse_enum<conv_direction>(key, parts[1]);
  auto dts = split(parts[2], '-');
  if (dts.size() != 4 && dts.size() != 5) bad(key, parts[2], "is not <in>-<wei>-<out>-<acc>[-<compute>]");
  p.dtypes(parse_enum<dtype>(key, dts[0]), parse_enum<dtype>(key, dts[1]), parse_enum<dtype>(key, dts[2]));
  p.accumulator(parse_enum<dtype>(key, dts[3]));
  if (dts.size() == 5) p.compute(parse_enum<dtype>(key, dts[4]));
  const auto plus = parts[3].find('+');
  const conv_layout lay = parse_enum<conv_layout>(key, parts[3].substr(0, plus));
  p.layout(lay);
  if (plus != std::string_view::npos) {
    const auto f = parse_fusion_segment(parts[3].substr(plus + 1));
    if (!f || f->dynamic) bad(key, parts[3], "is not <layout>+fused[-bias][-residual][-<activation>]");
    p.fuse(*f);
  }
  const int r = spatial_rank(lay);
  auto sizes = lettered(key, parts[4], "nckg");
  p.batch(sizes[0]).channels(sizes[1], sizes[2]).groups(sizes[3]);
  p.input_size(parse_dims(key, parts[5], "i", r));
  p.filter_size(parse_dims(key, parts[6], "f", r));
  p.stride(parse_dims(key, parts[7], "s", r));
  p.dilation(parse_dims(key, parts[8], "d", r));
  {
    const auto pads = parts[9];
    const auto us = pads.find('_');
    if (!pads.starts_with("p") || us == std::string_view::npos) bad(key, pads, "is not p<left>_<right>");
    p.padding(parse_dims(key, pads.substr(0, us), "p", r), parse_dims(key, pads.substr(us + 1), "", r));
  }
  if (parts[10] != "packed") {
    if (!parts[10].starts_with("st")) bad(key, parts[10], "is not 'packed' or st<input>-<weight>-<output>");
    auto t = split(parts[10].substr(2), '-');
    if (t.size() != 3) bad(key, parts[10], "does not hold three tensors' strides");
    p.input_strides(parse_strides(key, t[0])).weight_strides(parse_strides(key, t[1])).output_strides(
        parse_strides(key, t[2]));
  }
  if (auto e = p.validate()) bad(key, key, "names an invalid problem: " + *e);
  return p.normalized();
}

}  // namespace kdecl::tuning
