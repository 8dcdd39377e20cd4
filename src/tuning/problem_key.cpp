#include "kdecl/tuning/problem_key.hpp"

#include <fmt/format.h>

#include "key_text.hpp"

namespace kdecl::tuning {

using namespace key_text;

std::string layout_code(const gemm_layout& lay) {
  auto c = [](layout l) { return l == layout::row ? 'r' : 'c'; };
  return {c(lay.a), c(lay.b), c(lay.c)};
}

gemm_layout parse_layout_code(std::string_view code) {
  if (code.size() != 3 || code.find_first_not_of("rc") != std::string_view::npos)
    throw std::invalid_argument(fmt::format("layout '{}' is not three letters r or c (e.g. rcr)", code));
  auto l = [](char ch) { return ch == 'r' ? layout::row : layout::col; };
  return {l(code[0]), l(code[1]), l(code[2])};
}

std::string problem_key(const gemm_problem& problem) {
  gemm_problem p = problem.normalized();
  if (p.sig.variant != gemm_variant::multi_d) p.ldd = p.stride_d = 0;  // no D tensor: not part of the problem
  std::string key = fmt::format("gemm/{}/m{}n{}k{}b{}/ld{}-{}-{}-{}/st{}-{}-{}-{}", problem_signature(p), p.m, p.n,
                                p.k, p.batch, p.lda, p.ldb, p.ldc, p.ldd, p.stride_a, p.stride_b, p.stride_c,
                                p.stride_d);
  // The block scales' layout (normalized: packed ones spelled out), where the variant has them.
  if (p.sig.variant == gemm_variant::block_scaled)
    key += fmt::format("/sc{}-{}-{}-{}", p.scales.ld_a, p.scales.ld_b, p.scales.stride_a, p.scales.stride_b);
  return key;
}

std::string problem_signature(const gemm_problem& p) {
  const auto& s = p.sig;
  std::string variant = s.variant == gemm_variant::multi_d
                            ? fmt::format("multid-{}-d{}", to_string(s.ew), s.num_d)
                            : std::string(to_string(s.variant));
  return fmt::format("{}-{}-{}-{}-{}/{}/{}", to_string(s.a), to_string(s.b), to_string(s.c), to_string(s.acc),
                     to_string(s.compute), layout_code(s.lay), variant);
}

gemm_problem parse_problem_key(std::string_view key) {
  auto parts = split(key, '/');
  if ((parts.size() != 7 && parts.size() != 8) || parts[0] != "gemm")
    bad(key, key, "is not gemm/<dtypes>/<layout>/<variant>/m..n..k..b../ld../st..[/sc..]");
  gemm_problem p;
  auto dts = split(parts[1], '-');
  if (dts.size() != 5) bad(key, parts[1], "is not <a>-<b>-<c>-<acc>-<compute>");
  p.sig.a = parse_enum<dtype>(key, dts[0]);
  p.sig.b = parse_enum<dtype>(key, dts[1]);
  p.sig.c = parse_enum<dtype>(key, dts[2]);
  p.sig.acc = parse_enum<dtype>(key, dts[3]);
  p.sig.compute = parse_enum<dtype>(key, dts[4]);
  try {
    p.sig.lay = parse_layout_code(parts[2]);
  } catch (const std::invalid_argument&) {
    bad(key, parts[2], "is not a layout such as rcr");
  }
  if (parts[3].starts_with("multid-")) {
    auto v = split(parts[3], '-');
    if (v.size() != 3 || !v[2].starts_with("d")) bad(key, parts[3], "is not multid-<op>-d<n>");
    p.sig.variant = gemm_variant::multi_d;
    p.sig.ew = parse_enum<elementwise>(key, v[1]);
    p.sig.num_d = int(parse_int(key, v[2].substr(1)));
  } else {
    p.sig.variant = parse_enum<gemm_variant>(key, parts[3]);
  }
  auto sizes = lettered(key, parts[4], "mnkb");
  p.m = sizes[0]; p.n = sizes[1]; p.k = sizes[2]; p.batch = sizes[3];
  auto ld = dashed(key, parts[5], "ld", 4);
  p.lda = ld[0]; p.ldb = ld[1]; p.ldc = ld[2]; p.ldd = ld[3];
  auto st = dashed(key, parts[6], "st", 4);
  p.stride_a = st[0]; p.stride_b = st[1]; p.stride_c = st[2]; p.stride_d = st[3];
  if (p.sig.variant != gemm_variant::multi_d && (p.ldd != 0 || p.stride_d != 0))
    bad(key, parts[5], "gives D strides to a problem without D tensors");
  if ((parts.size() == 8) != (p.sig.variant == gemm_variant::block_scaled))
    bad(key, key, "has block-scale strides (/sc..) exactly when the variant is block_scaled");
  if (parts.size() == 8) {
    auto sc = dashed(key, parts[7], "sc", 4);
    p.scales = {sc[0], sc[1], sc[2], sc[3]};
  }
  if (auto e = p.validate()) bad(key, key, "names an invalid problem: " + *e);
  return p;
}

}  // namespace kdecl::tuning
