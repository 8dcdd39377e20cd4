#include "kdecl/fmha/fmha_name.hpp"

#include <charconv>
#include <optional>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace kdecl {
namespace {

std::string shape(const mnk& s) { return fmt::format("{}x{}x{}", s.m, s.n, s.k); }

std::string pad_code(const fmha_algorithm& a) {
  std::string s = "pad";
  if (a.pad_s == tristate::yes) s += 's';
  if (a.pad_sk == tristate::yes) s += 'k';
  if (a.pad_d == tristate::yes) s += 'd';
  if (a.pad_dv == tristate::yes) s += 'v';
  if (s.size() == 3) s += '-';
  return s;
}

[[noreturn]] void bad(std::string_view name, std::string_view segment, std::string_view rule) {
  throw std::invalid_argument(
      fmt::format("not a kdecl FMHA kernel name: '{}': segment '{}' {}", name, segment, rule));
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

// Reads a name left to right; enum names may contain '_', so they are matched
// against their tables greedily (the longest prefix ending at '_' or the end).
class reader {
 public:
  explicit reader(std::string_view name) : name_(name), rest_(name) {}

  bool done() const { return rest_.empty(); }
  std::string_view rest() const { return rest_; }
  bool next_is(std::string_view token) const {
    return rest_ == token || (rest_.starts_with(token) && rest_.size() > token.size() && rest_[token.size()] == '_');
  }

  std::string_view take(std::string_view what) {
    if (rest_.empty()) bad(name_, "", fmt::format("ends before the {}", what));
    const auto pos = rest_.find('_');
    const auto seg = rest_.substr(0, pos);
    rest_ = pos == std::string_view::npos ? std::string_view{} : rest_.substr(pos + 1);
    return seg;
  }

  template <class E>
  E take_enum(std::string_view what, std::string_view prefix = {}) {
    if (!rest_.starts_with(prefix)) bad(name_, rest_.substr(0, rest_.find('_')), fmt::format("is not {}<{}>", prefix, what));
    const std::string_view body = rest_.substr(prefix.size());
    std::size_t best = 0;
    std::optional<E> found;
    for (std::size_t i = 0; i <= body.size(); ++i)
      if (i == body.size() || body[i] == '_')
        if (auto v = parse<E>(body.substr(0, i)); v && body.substr(0, i) != "*") {
          found = v;
          best = i;
        }
    if (!found) bad(name_, rest_.substr(0, rest_.find('_')), fmt::format("is not a {}", what));
    rest_ = best == body.size() ? std::string_view{} : body.substr(best + 1);
    return *found;
  }

  int number(std::string_view seg) const {
    int v = 0;
    auto [p, ec] = std::from_chars(seg.data(), seg.data() + seg.size(), v);
    if (ec != std::errc{} || p != seg.data() + seg.size() || v <= 0) bad(name_, seg, "is not a positive integer");
    return v;
  }

  std::vector<int> numbers(std::string_view seg, std::size_t count, std::string_view form) const {
    auto parts = split(seg, 'x');
    if (parts.size() != count) bad(name_, seg, fmt::format("is not of the form {}", form));
    std::vector<int> out;
    for (auto p : parts) out.push_back(number(p));
    return out;
  }

  // "<a>x<b>x<c>[-<d>x<e>x<f>]" after `prefix`: the second shape defaults to the first.
  std::pair<mnk, mnk> shape_pair(std::string_view prefix, std::string_view what) {
    auto seg = take(what);
    if (!seg.starts_with(prefix)) bad(name_, seg, fmt::format("is not {}<m>x<n>x<k>", prefix));
    auto halves = split(seg.substr(prefix.size()), '-');
    if (halves.size() > 2) bad(name_, seg, "holds more than two shapes");
    auto a = numbers(halves[0], 3, "MxNxK");
    mnk first{a[0], a[1], a[2]}, second = first;
    if (halves.size() == 2) {
      auto b = numbers(halves[1], 3, "MxNxK");
      second = {b[0], b[1], b[2]};
      if (second == first) bad(name_, seg, "repeats the stage-0 shape (omitted in canonical names)");
    }
    return {first, second};
  }

  std::string_view name() const { return name_; }

 private:
  std::string_view name_;
  std::string_view rest_;
};

}  // namespace

std::string kernel_name(const fmha_key& key) {
  if (!key.concrete()) throw std::invalid_argument("kernel_name: the FMHA key still holds a wildcard or unset field");
  const auto& s = key.sig;
  const auto& a = key.algo;
  const auto& t = a.tile;
  std::string out = fmt::format("fmha_{}_", to_string(s.family));
  out += s.o == s.qkv ? std::string(to_string(s.qkv)) : fmt::format("{}-{}", to_string(s.qkv), to_string(s.o));
  if (s.cache != dtype::any) out += fmt::format("_kv-{}", to_string(s.cache));
  out += fmt::format("_{}_h{}x{}", to_string(s.mode), s.hdim_q, s.hdim_v);
  if (s.v_layout == layout::col) out += "_vcol";
  out += fmt::format("_mask-{}_bias-{}", to_string(s.mask), to_string(s.bias));
  if (s.lse) out += "_lse";
  if (s.logits_soft_cap) out += "_softcap";
  if (s.sink) out += "_sink";
  if (s.dropout) out += "_dropout";
  out += fmt::format("_{}_{}x{}x{}x{}x{}x{}_w{}", to_string(a.pipe), t.m0, t.n0, t.k0, t.n1, t.k1, t.k0max,
                     shape(a.warps0));
  if (!(a.warps1 == a.warps0)) out += "-" + shape(a.warps1);
  out += "_wt" + shape(a.warp_tile0);
  if (!(a.warp_tile1 == a.warp_tile0)) out += "-" + shape(a.warp_tile1);
  out += fmt::format("_s{}_{}", a.stages, pad_code(a));
  if (a.block_per_cu != -1) out += fmt::format("_bpc{}", a.block_per_cu);
  out += '_' + std::string(to_string(a.arch));
  return out;
}

fmha_key parse_fmha_name(std::string_view name) {
  reader r(name);
  fmha_key k;
  auto& s = k.sig;
  auto& a = k.algo;
  if (r.take("operation") != "fmha") bad(name, name.substr(0, name.find('_')), "is not 'fmha'");
  s.family = r.take_enum<fmha_family>("family");
  auto dt = r.take("dtypes");
  auto dts = split(dt, '-');
  auto dtype_of = [&](std::string_view seg) {
    auto d = parse<dtype>(seg);
    if (!d || seg == "*") bad(name, seg, "is not a dtype");
    return *d;
  };
  if (dts.size() == 1) {
    s.qkv = s.o = dtype_of(dts[0]);
  } else if (dts.size() == 2) {
    s.qkv = dtype_of(dts[0]);
    s.o = dtype_of(dts[1]);
    if (s.o == s.qkv) bad(name, dt, "spells out equal dtypes (the short form is canonical)");
  } else {
    bad(name, dt, "is neither one dtype nor <qkv>-<o>");
  }
  s.cache = dtype::any;
  if (r.rest().starts_with("kv-")) {
    const auto seg = r.take("cache dtype");
    s.cache = dtype_of(seg.substr(3));
  }
  s.mode = r.take_enum<fmha_mode>("mode");
  auto hd = r.take("head dims");
  if (!hd.starts_with('h')) bad(name, hd, "is not h<q>x<v>");
  auto h = r.numbers(hd.substr(1), 2, "h<q>x<v>");
  s.hdim_q = h[0];
  s.hdim_v = h[1];
  s.v_layout = layout::row;
  if (r.next_is("vcol")) {
    r.take("V layout");
    s.v_layout = layout::col;
  }
  s.mask = r.take_enum<fmha_mask>("mask", "mask-");
  s.bias = r.take_enum<fmha_bias>("bias", "bias-");
  auto flag = [&](std::string_view token) {
    if (!r.next_is(token)) return false;
    r.take(token);
    return true;
  };
  s.lse = flag("lse");
  s.logits_soft_cap = flag("softcap");
  s.sink = flag("sink");
  s.dropout = flag("dropout");
  a.pipe = r.take_enum<fmha_pipeline>("pipeline");
  auto tile = r.numbers(r.take("tile"), 6, "m0xn0xk0xn1xk1xk0max");
  a.tile = {tile[0], tile[1], tile[2], tile[3], tile[4], tile[5]};
  std::tie(a.warps0, a.warps1) = r.shape_pair("w", "warps");
  std::tie(a.warp_tile0, a.warp_tile1) = r.shape_pair("wt", "warp tile");
  auto st = r.take("stages");
  if (!st.starts_with('s')) bad(name, st, "is not s<stages>");
  a.stages = r.number(st.substr(1));
  auto pad = r.take("padding");
  if (!pad.starts_with("pad")) bad(name, pad, "is not pad<letters>");
  auto letters = pad.substr(3);
  const std::string_view order = "skdv";
  if (letters != "-") {
    std::size_t at = 0;
    for (char c : letters) {
      auto pos = order.find(c, at);
      if (pos == std::string_view::npos) bad(name, pad, "lists padded dimensions out of s,k,d,v order");
      at = pos + 1;
    }
    if (letters.empty()) bad(name, pad, "names no padding (write pad-)");
  }
  auto has = [&](char c) { return letters.find(c) != std::string_view::npos ? tristate::yes : tristate::no; };
  a.pad_s = has('s');
  a.pad_sk = has('k');
  a.pad_d = has('d');
  a.pad_dv = has('v');
  a.block_per_cu = -1;
  if (r.rest().starts_with("bpc")) {
    auto seg = r.take("blocks per CU");
    a.block_per_cu = r.number(seg.substr(3));
  }
  a.arch = r.take_enum<arch_id>("arch");
  if (!r.done()) bad(name, r.rest(), "is trailing text after the arch");
  if (!k.concrete()) bad(name, name, "does not describe a concrete key");
  return k;
}

}  // namespace kdecl
