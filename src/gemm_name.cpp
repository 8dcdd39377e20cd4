#include "kdecl/gemm/gemm_name.hpp"

#include <charconv>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace kdecl {
namespace {

bool default_dtypes(const gemm_signature& s) {
  return s.b == s.a && s.c == s.a && s.acc == default_accumulator(s.a) && s.compute == s.a;
}

std::string layout_code(const gemm_layout& l) {
  return fmt::format("{}{}{}", to_string(l.a), to_string(l.b), to_string(l.c));
}

std::string pad_code(const gemm_algorithm& a) {
  std::string s = "pad";
  if (a.pad_m == tristate::yes) s += 'm';
  if (a.pad_n == tristate::yes) s += 'n';
  if (a.pad_k == tristate::yes) s += 'k';
  if (s.size() == 3) s += '-';
  return s;
}

[[noreturn]] void bad(std::string_view name, std::string_view segment, std::string_view rule) {
  throw std::invalid_argument(
      fmt::format("not a kdecl GEMM kernel name: '{}': segment '{}' {}", name, segment, rule));
}

template <class E>
E parse_enum(std::string_view name, std::string_view seg, std::string_view what) {
  auto v = parse<E>(seg);
  if (!v || seg == "*") bad(name, seg, fmt::format("is not a {}", what));
  return *v;
}

int parse_int(std::string_view name, std::string_view seg) {
  int v = 0;
  auto [p, ec] = std::from_chars(seg.data(), seg.data() + seg.size(), v);
  if (ec != std::errc{} || p != seg.data() + seg.size() || v <= 0)
    bad(name, seg, "is not a positive integer");
  if (seg.starts_with('0')) bad(name, seg, "has a leading zero (names spell numbers one way only)");
  return v;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

mnk parse_mnk(std::string_view name, std::string_view seg) {
  auto parts = split(seg, 'x');
  if (parts.size() != 3) bad(name, seg, "is not of the form MxNxK");
  return {parse_int(name, parts[0]), parse_int(name, parts[1]), parse_int(name, parts[2])};
}

}  // namespace

std::string kernel_name(const gemm_key& key) {
  const auto& s = key.sig;
  const auto& a = key.algo;
  if (!key.concrete()) throw std::invalid_argument("kernel_name: the key still holds a wildcard");
  std::string out = "gemm_";
  out += default_dtypes(s) ? std::string(to_string(s.a))
                           : fmt::format("{}-{}-{}-{}-{}", to_string(s.a), to_string(s.b),
                                         to_string(s.c), to_string(s.acc), to_string(s.compute));
  out += '_' + layout_code(s.lay);
  if (s.variant == gemm_variant::preshuffle) out += "_preshuffle";
  if (s.variant == gemm_variant::block_scaled) out += "_blockscaled";
  if (s.variant == gemm_variant::multi_d)
    out += fmt::format("_multid-{}-d{}", to_string(s.ew), s.num_d);
  out += fmt::format("_{}_{}_{}_{}x{}x{}_{}x{}x{}_{}x{}x{}_s{}_v{}", to_string(a.pipe),
                     to_string(a.epi), to_string(a.sched), a.tile.m, a.tile.n, a.tile.k,
                     a.warps.m, a.warps.n, a.warps.k, a.warp_tile.m, a.warp_tile.n,
                     a.warp_tile.k, a.stages, a.vector_bytes);
  if (a.index_bits != 32) out += fmt::format("_i{}", a.index_bits);
  if (a.cluster_m != 1 || a.cluster_n != 1) out += fmt::format("_c{}x{}", a.cluster_m, a.cluster_n);
  out += '_' + pad_code(a);
  out += '_' + std::string(to_string(a.arch));
  return out;
}

gemm_key parse_gemm_name(std::string_view name) {
  // Pipeline, scheduler and arch names contain '_', so tokens are matched
  // against the name tables greedily rather than split blindly.
  gemm_key k;
  std::string_view rest = name;
  auto take = [&](std::string_view what) -> std::string_view {
    if (rest.empty()) bad(name, "", fmt::format("ends before the {}", what));
    auto pos = rest.find('_');
    auto seg = rest.substr(0, pos);
    rest = pos == std::string_view::npos ? std::string_view{} : rest.substr(pos + 1);
    return seg;
  };
  // Takes the longest prefix of `rest` (ending at '_' or the end) that names an E.
  auto take_enum = [&]<class E>(E*, std::string_view what) -> E {
    std::size_t best = 0;
    std::optional<E> found;
    for (std::size_t i = 0; i <= rest.size(); ++i)
      if (i == rest.size() || rest[i] == '_')
        if (auto v = parse<E>(rest.substr(0, i)); v && rest.substr(0, i) != "*") { found = v; best = i; }
    if (!found) bad(name, rest.substr(0, rest.find('_')), fmt::format("is not a {}", what));
    rest = best == rest.size() ? std::string_view{} : rest.substr(best + 1);
    return *found;
  };

  if (name.ends_with('_')) bad(name, "", "is empty: the name ends with '_'");
  if (take("operation") != "gemm") bad(name, name.substr(0, name.find('_')), "is not 'gemm'");

  auto dt = take("dtypes");
  auto dts = split(dt, '-');
  if (dts.size() == 1) {
    auto d = parse_enum<dtype>(name, dts[0], "dtype");
    k.sig.a = k.sig.b = k.sig.c = k.sig.compute = d;
    k.sig.acc = default_accumulator(d);
  } else if (dts.size() == 5) {
    k.sig.a = parse_enum<dtype>(name, dts[0], "dtype");
    k.sig.b = parse_enum<dtype>(name, dts[1], "dtype");
    k.sig.c = parse_enum<dtype>(name, dts[2], "dtype");
    k.sig.acc = parse_enum<dtype>(name, dts[3], "dtype");
    k.sig.compute = parse_enum<dtype>(name, dts[4], "dtype");
    if (default_dtypes(k.sig)) bad(name, dt, "spells out default dtypes (the short form is canonical)");
  } else {
    bad(name, dt, "is neither one dtype nor five dash-separated dtypes");
  }

  auto lay = take("layout");
  if (lay.size() != 3) bad(name, lay, "is not a three-letter layout such as rcr");
  k.sig.lay = {parse_enum<layout>(name, lay.substr(0, 1), "layout letter"),
               parse_enum<layout>(name, lay.substr(1, 1), "layout letter"),
               parse_enum<layout>(name, lay.substr(2, 1), "layout letter")};

  if (rest.starts_with("preshuffle_")) {
    take("variant");
    k.sig.variant = gemm_variant::preshuffle;
  } else if (rest.starts_with("blockscaled_")) {
    take("variant");
    k.sig.variant = gemm_variant::block_scaled;
  } else if (rest.starts_with("multid-")) {
    // The op's own name may contain '_', so the segment ends at "-d<digits>_".
    std::size_t end = std::string_view::npos;
    for (std::size_t i = 7; i + 2 < rest.size(); ++i)
      if (rest[i] == '-' && rest[i + 1] == 'd') {
        std::size_t j = i + 2;
        while (j < rest.size() && rest[j] >= '0' && rest[j] <= '9') ++j;
        if (j > i + 2 && j < rest.size() && rest[j] == '_') { end = j; break; }
      }
    if (end == std::string_view::npos) bad(name, rest.substr(0, rest.find('_')), "is not of the form multid-<op>-d<n>");
    auto seg = rest.substr(0, end);
    rest = rest.substr(end + 1);
    auto dash = seg.rfind("-d");
    k.sig.variant = gemm_variant::multi_d;
    k.sig.ew = parse_enum<elementwise>(name, seg.substr(7, dash - 7), "elementwise op");
    k.sig.num_d = parse_int(name, seg.substr(dash + 2));
  }

  auto& a = k.algo;
  a.pipe = take_enum((pipeline*)nullptr, "pipeline");
  a.epi = take_enum((epilogue*)nullptr, "epilogue");
  a.sched = take_enum((scheduler*)nullptr, "scheduler");
  a.tile = parse_mnk(name, take("tile"));
  a.warps = parse_mnk(name, take("warps"));
  a.warp_tile = parse_mnk(name, take("warp tile"));
  auto st = take("stages");
  if (!st.starts_with('s')) bad(name, st, "is not s<stages>");
  a.stages = parse_int(name, st.substr(1));
  auto vb = take("vector width");
  if (!vb.starts_with('v')) bad(name, vb, "is not v<bytes>");
  a.vector_bytes = parse_int(name, vb.substr(1));
  a.index_bits = 32;
  if (rest.starts_with('i')) {
    auto seg = take("index width");
    if (seg != "i64") bad(name, seg, "is not i64 (the only index width named; 32 is the default and omitted)");
    a.index_bits = 64;
  }
  a.cluster_m = a.cluster_n = 1;
  if (rest.starts_with('c')) {
    auto seg = take("cluster");
    auto parts = split(seg.substr(1), 'x');
    if (parts.size() != 2) bad(name, seg, "is not c<m>x<n>");
    a.cluster_m = parse_int(name, parts[0]);
    a.cluster_n = parse_int(name, parts[1]);
    if (a.cluster_m == 1 && a.cluster_n == 1) bad(name, seg, "names the default cluster (omitted in canonical names)");
  }
  auto pad = take("padding");
  if (!pad.starts_with("pad")) bad(name, pad, "is not pad<dims>");
  auto dims = pad.substr(3);
  if (dims != "-" && dims != "m" && dims != "n" && dims != "k" && dims != "mn" && dims != "mk" &&
      dims != "nk" && dims != "mnk")
    bad(name, pad, "lists padded dimensions out of m,n,k order");
  auto has = [&](char c) { return dims.find(c) != std::string_view::npos ? tristate::yes : tristate::no; };
  a.pad_m = has('m'); a.pad_n = has('n'); a.pad_k = has('k');
  a.arch = take_enum((arch_id*)nullptr, "arch");
  if (!rest.empty()) bad(name, rest, "is trailing text after the arch");
  return k;
}

}  // namespace kdecl
