#include "kdecl/tuning/fmha_problem_key.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "kdecl/fmha/fmha_name.hpp"
#include "key_text.hpp"

namespace kdecl::tuning {

using namespace key_text;

namespace {

std::string offsets_text(const std::vector<std::int32_t>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += fmt::format("{}{}", i ? "," : "", v[i]);
  return out;
}

std::vector<std::int32_t> parse_offsets(std::string_view key, std::string_view s) {
  std::vector<std::int32_t> out;
  for (auto part : split(s, ',')) {
    const auto v = parse_int(key, part);
    if (v < 0 || v > INT32_MAX) bad(key, part, "is not an offset within 0..2^31-1");
    out.push_back(std::int32_t(v));
  }
  return out;
}

float parse_float(std::string_view key, std::string_view s) {
  float v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size()) bad(key, s, "is not a number");
  return v;
}

std::string strides_text(const fmha_strides& s) { return fmt::format("{}.{}.{}", s.batch, s.seq, s.head); }

fmha_strides parse_strides(std::string_view key, std::string_view s) {
  auto v = split(s, '.');
  if (v.size() != 3) bad(key, s, "is not <batch>.<seq>.<head>");
  return {parse_int(key, v[0]), parse_int(key, v[1]), parse_int(key, v[2])};
}

// The strides a problem would have with none given.
fmha_problem packed_of(const fmha_problem& p) {
  fmha_problem q = p;
  q.q_strides = q.k_strides = q.v_strides = q.o_strides = q.bias_strides = {};
  q.lse_batch_stride = q.lse_head_stride = 0;
  return q.normalized();
}

bool same_strides(const fmha_problem& a, const fmha_problem& b) {
  return a.q_strides == b.q_strides && a.k_strides == b.k_strides && a.v_strides == b.v_strides &&
         a.o_strides == b.o_strides && a.bias_strides == b.bias_strides && a.lse_batch_stride == b.lse_batch_stride &&
         a.lse_head_stride == b.lse_head_stride;
}

std::string signature_text(fmha_family family, dtype qkv, dtype o, fmha_mode mode) {
  return fmt::format("fmha/{}/{}-{}/{}", to_string(family), to_string(qkv), to_string(o), to_string(mode));
}

}  // namespace

std::string problem_signature(const fmha_problem& p) {
  const auto s = p.signature();
  return signature_text(s.family, s.qkv, s.o, s.mode);
}

std::string kernel_signature(const fmha_key& key) {
  return signature_text(key.sig.family, key.sig.qkv, key.sig.o, key.sig.mode);
}

std::vector<std::string> fmha_kernels_of_signatures(const std::vector<std::string>& names,
                                                    const std::vector<std::string>& signatures) {
  std::vector<std::string> out;
  for (const auto& n : names) {
    try {
      if (std::find(signatures.begin(), signatures.end(), kernel_signature(parse_fmha_name(n))) != signatures.end())
        out.push_back(n);
    } catch (const std::invalid_argument&) {
    }
  }
  return out;
}

std::string problem_key(const fmha_problem& problem) {
  const fmha_problem p = problem.normalized();
  std::string mask(to_string(p.mask));
  if (p.mask == fmha_mask::generic) mask += fmt::format("-l{}r{}", p.window_left, p.window_right);
  std::string bias(to_string(p.bias));
  if (p.bias == fmha_bias::alibi && p.alibi_per_batch) bias += "-b";
  if (p.bias == fmha_bias::elementwise) {
    bias += fmt::format("_b{}h{}", int(p.bias_per_batch), int(p.bias_per_head));
    if (!p.bias_per_row) bias += "r0";  // a key bias; per-row biases keep the older spelling
  }
  const std::string strides =
      same_strides(p, packed_of(p))
          ? std::string("packed")
          : fmt::format("st{}-{}-{}-{}-{}-{}.{}", strides_text(p.q_strides), strides_text(p.k_strides),
                        strides_text(p.v_strides), strides_text(p.o_strides), strides_text(p.bias_strides),
                        p.lse_batch_stride, p.lse_head_stride);
  std::string key = fmt::format(
      "fmha/{}-{}/{}/b{}q{}k{}h{}g{}d{}v{}/{}/{}/{}_{}_cap{}_scale{}/{}", to_string(p.qkv), to_string(p.o),
      p.group_mode() ? "group" : "batch", p.batch, p.seqlen_q, p.seqlen_kv, p.heads_q, p.heads_kv, p.hdim_q, p.hdim_v,
      mask, bias, p.lse ? "lse" : "nolse", p.sinks ? "sinks" : "nosinks", p.soft_cap, p.scale, strides);
  if (p.group_mode()) key += fmt::format("/cu{}_{}", offsets_text(p.cu_seqlens_q), offsets_text(p.cu_seqlens_kv));
  return key;
}

fmha_problem parse_fmha_problem_key(std::string_view key) {
  auto parts = split(key, '/');
  if (parts.size() < 8 || parts.size() > 9 || parts[0] != "fmha")
    bad(key, key, "is not fmha/<dtypes>/<mode>/b..q..k..h..g..d..v../<mask>/<bias>/<flags>/<strides>[/cu..]");
  fmha_problem p;
  auto dts = split(parts[1], '-');
  if (dts.size() != 2) bad(key, parts[1], "is not <qkv>-<o>");
  p.dtypes(parse_enum<dtype>(key, dts[0]), parse_enum<dtype>(key, dts[1]));
  const bool group = parts[2] == "group";
  if (!group && parts[2] != "batch") bad(key, parts[2], "is not batch or group");
  if (group != (parts.size() == 9)) bad(key, parts[2], "and the offsets segment disagree (group mode lists cu..)");
  auto sizes = lettered(key, parts[3], "bqkhgdv");
  p.batch = sizes[0];
  p.seqlen_q = sizes[1];
  p.seqlen_kv = sizes[2];
  p.heads(sizes[3], sizes[4]).head_dims(sizes[5], sizes[6]);
  {
    const auto m = parts[4];
    const auto dash = m.find('-');
    p.mask = parse_enum<fmha_mask>(key, m.substr(0, dash));
    if (p.mask == fmha_mask::generic) {
      if (dash == std::string_view::npos) bad(key, m, "is not generic-l<left>r<right>");
      auto w = lettered(key, m.substr(dash + 1), "lr");
      p.window_left = w[0];
      p.window_right = w[1];
    } else if (dash != std::string_view::npos) {
      bad(key, m, "gives a window to a mask that is not generic");
    }
  }
  {
    auto b = split(parts[5], '_');
    if (b[0] == "alibi-b") {
      p.alibi(true);
    } else {
      p.bias = parse_enum<fmha_bias>(key, b[0]);
      if (p.bias == fmha_bias::alibi) p.alibi(false);
    }
    if (p.bias == fmha_bias::elementwise) {
      if (b.size() != 2) bad(key, parts[5], "is not elementwise_b<0|1>h<0|1>[r0]");
      const bool rows = b[1].find('r') == std::string_view::npos;
      auto f = lettered(key, b[1], rows ? "bh" : "bhr");
      if (!rows && f[2] != 0) bad(key, parts[5], "spells a per-row bias with r; only r0 (a key bias) is written");
      if (rows) p.elementwise_bias(f[0] != 0, f[1] != 0);
      else p.key_bias(f[0] != 0, f[1] != 0);
    } else if (b.size() != 1) {
      bad(key, parts[5], "gives broadcast flags to a bias that is not elementwise");
    }
  }
  {
    auto f = split(parts[6], '_');
    if (f.size() != 4 || (f[0] != "lse" && f[0] != "nolse") || (f[1] != "sinks" && f[1] != "nosinks") ||
        !f[2].starts_with("cap") || !f[3].starts_with("scale"))
      bad(key, parts[6], "is not <lse|nolse>_<sinks|nosinks>_cap<x>_scale<x>");
    p.lse = f[0] == "lse";
    p.sinks = f[1] == "sinks";
    p.soft_cap = parse_float(key, f[2].substr(3));
    p.scale = parse_float(key, f[3].substr(5));
  }
  if (group) {
    const auto cu = parts[8];
    const auto us = cu.find('_');
    if (!cu.starts_with("cu") || us == std::string_view::npos) bad(key, cu, "is not cu<q offsets>_<kv offsets>");
    p.varlen_offsets(parse_offsets(key, cu.substr(2, us - 2)), parse_offsets(key, cu.substr(us + 1)));
  }
  if (parts[7] != "packed") {
    if (!parts[7].starts_with("st")) bad(key, parts[7], "is not 'packed' or st<q>-<k>-<v>-<o>-<bias>-<lse>");
    auto t = split(parts[7].substr(2), '-');
    if (t.size() != 6) bad(key, parts[7], "does not hold six tensors' strides");
    p.strides(parse_strides(key, t[0]), parse_strides(key, t[1]), parse_strides(key, t[2]), parse_strides(key, t[3]));
    p.bias_strides = parse_strides(key, t[4]);
    auto lse = split(t[5], '.');
    if (lse.size() != 2) bad(key, t[5], "is not <batch>.<head> LSE strides");
    p.lse_batch_stride = parse_int(key, lse[0]);
    p.lse_head_stride = parse_int(key, lse[1]);
  }
  if (auto e = p.validate()) bad(key, key, "names an invalid problem: " + *e);
  return p.normalized();
}

}  // namespace kdecl::tuning
