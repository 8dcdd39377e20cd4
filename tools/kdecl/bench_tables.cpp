#include "bench_tables.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "bench_timing.hpp"
#include "bias_option.hpp"
#include "problem_table.hpp"

namespace kdecl::cli {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::int64_t integer(const std::string& where, const std::string& column, const std::string& text) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size())
    throw std::invalid_argument(fmt::format("{}: column {}: '{}' is not an integer", where, column, text));
  return v;
}

float real(const std::string& where, const std::string& column, const std::string& text) {
  std::size_t used = 0;
  float v = 0;
  try {
    v = std::stof(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size())
    throw std::invalid_argument(fmt::format("{}: column {}: '{}' is not a number", where, column, text));
  return v;
}

}  // namespace

std::vector<fmha_row> read_fmha_rows(const std::string& path, dtype d) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(fmt::format("--problems '{}' cannot be opened", path));
  static const std::vector<std::string> required = {"name", "b", "hq", "hkv", "sq", "skv", "d", "dv", "mask",
                                                    "window_left", "window_right", "bias", "softcap", "scale",
                                                    "sinks", "varlen"};
  std::map<std::string, std::size_t> column;
  std::vector<fmha_row> rows;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    const std::string where = fmt::format("{}:{}", path, number);
    const auto cells = split_csv(t, where);
    if (column.empty()) {
      for (std::size_t i = 0; i < cells.size(); ++i) column[cells[i]] = i;
      for (const auto& c : required)
        if (!column.count(c))
          throw std::invalid_argument(fmt::format("{}: the header lacks column '{}' (needs {})", where, c,
                                                  fmt::join(required, ",")));
      continue;
    }
    if (cells.size() != column.size())
      throw std::invalid_argument(fmt::format("{}: {} cells, the header has {}", where, cells.size(), column.size()));
    auto cell = [&](const std::string& c) { return cells[column.at(c)]; };
    auto num = [&](const std::string& c) { return integer(where, c, cell(c)); };
    fmha_row r;
    r.file = stem_of(path);
    r.name = cell("name");
    r.source = column.count("source") ? cell("source") : "";
    r.line = number;
    fmha_problem p;
    p.dtype(d).heads(num("hq"), num("hkv")).head_dims(num("d"), num("dv"));
    if (const std::string v = cell("varlen"); !v.empty()) {
      std::vector<std::int32_t> lq, lkv;
      for (const auto& pair : split_on(v, ';')) {
        const auto qk = split_on(pair, ':');
        if (qk.size() != 2)
          throw std::invalid_argument(fmt::format("{}: column varlen: '{}' is not Q:KV", where, pair));
        const auto q = integer(where, "varlen", qk[0]), kv = integer(where, "varlen", qk[1]);
        if (q < 0 || kv < 0 || q > INT32_MAX || kv > INT32_MAX)
          throw std::invalid_argument(fmt::format("{}: column varlen: '{}': lengths lie in 0..2^31-1", where, pair));
        lq.push_back(std::int32_t(q));
        lkv.push_back(std::int32_t(kv));
      }
      p.varlen(lq, lkv);
    } else {
      p.sizes(num("b"), num("sq"), num("skv"));
    }
    const std::string mask = cell("mask");
    if (mask == "causal") p.causal(fmha_mask::bottom_right);
    else if (mask == "window") p.sliding_window(num("window_left"), num("window_right"));
    else if (mask != "none")
      throw std::invalid_argument(fmt::format("{}: column mask: '{}' is not none, causal or window", where, mask));
    const std::string bias = cell("bias");
    if (!apply_bias_option(p, bias))
      throw std::invalid_argument(fmt::format(
          "{}: column bias: '{}' is not none, alibi, elementwise[:b|:h|:1] or keys[:b|:h|:1]", where, bias));
    const std::string sinks = cell("sinks");
    if (sinks != "0" && sinks != "1")
      throw std::invalid_argument(fmt::format("{}: column sinks: '{}' is not 0 or 1", where, sinks));
    p.logits_soft_cap(real(where, "softcap", cell("softcap")))
        .softmax_scale(real(where, "scale", cell("scale")))
        .with_sinks(sinks == "1");
    if (auto e = p.validate()) throw std::invalid_argument(fmt::format("{} ({}): {}", where, r.name, *e));
    r.problem = p.normalized();
    rows.push_back(std::move(r));
  }
  if (column.empty()) throw std::invalid_argument(fmt::format("--problems '{}': no header line", path));
  if (rows.empty()) throw std::invalid_argument(fmt::format("--problems '{}': no rows", path));
  return rows;
}

table_filter::table_filter(const std::string& expr, std::set<std::string> known) {
  for (const auto& raw : split_on(expr, ',')) {
    const std::string t = trim(raw);
    if (t.empty()) continue;
    const auto at = t.find_first_of("!=~");
    if (at == std::string::npos || at == 0)
      throw std::invalid_argument(fmt::format("filter term '{}' is not FIELD=VALUE, FIELD!=VALUE or FIELD~TEXT", t));
    term tm;
    tm.field = trim(t.substr(0, at));
    tm.op = t.compare(at, 2, "!=") == 0 ? "!=" : t.substr(at, 1);
    if (tm.op == "!") throw std::invalid_argument(fmt::format("filter term '{}': '!' must be followed by '='", t));
    tm.value = trim(t.substr(at + tm.op.size()));
    if (!known.count(tm.field))
      throw std::invalid_argument(fmt::format("filter field '{}' is unknown; fields: {}", tm.field, fmt::join(known, ", ")));
    tm.alternatives = split_on(tm.value, '|');
    terms_.push_back(std::move(tm));
  }
}

bool table_filter::matches(const std::map<std::string, std::string>& fields) const {
  for (const auto& t : terms_) {
    auto it = fields.find(t.field);
    const std::string v = it == fields.end() ? std::string() : it->second;
    if (t.op == "~") {
      if (v.find(t.value) == std::string::npos) return false;
    } else {
      const bool equal = v == t.value || std::find(t.alternatives.begin(), t.alternatives.end(), v) != t.alternatives.end();
      if (equal != (t.op == "=")) return false;
    }
  }
  return true;
}

std::string conv_key(const grouped_conv_problem& p) { return p.describe(); }

std::string fmha_key(const fmha_problem& p) {
  std::string key = fmt::format("{}", to_string(p.qkv));
  if (p.o != p.qkv) key += fmt::format("/{}", to_string(p.o));
  if (p.group_mode()) {
    // Up to 8 sequences listed; longer batches by count, totals, longest and a hash of every length.
    if (p.batch <= 8) {
      key += " varlen";
      for (std::int64_t b = 0; b < p.batch; ++b)
        key += fmt::format("{}{}:{}", b ? ";" : "=", p.seqlen_q_of(b), p.seqlen_kv_of(b));
    } else {
      std::uint32_t h = 2166136261u;  // FNV-1a over the lengths
      for (std::int64_t b = 0; b < p.batch; ++b)
        for (auto v : {p.seqlen_q_of(b), p.seqlen_kv_of(b)}) h = (h ^ std::uint32_t(v)) * 16777619u;
      key += fmt::format(" varlen {} seqs q{}/kv{} max {}:{} #{:08x}", p.batch, p.total_q(), p.total_kv(), p.seqlen_q,
                         p.seqlen_kv, h);
    }
  } else {
    key += fmt::format(" b{} sq{} skv{}", p.batch, p.seqlen_q, p.seqlen_kv);
  }
  key += fmt::format(" hq{} hkv{} d{}", p.heads_q, p.heads_kv, p.hdim_q);
  if (p.hdim_v != p.hdim_q) key += fmt::format(" dv{}", p.hdim_v);
  if (p.mask == fmha_mask::generic) key += fmt::format(" window{},{}", p.window_left, p.window_right);
  else if (p.mask != fmha_mask::none) key += fmt::format(" {}", to_string(p.mask));
  if (p.bias == fmha_bias::alibi) key += p.alibi_per_batch ? " alibi:b" : " alibi";
  if (p.bias == fmha_bias::elementwise)
    key += fmt::format(" {}:{}{}", p.bias_per_row ? "bias" : "keybias", p.bias_per_batch ? "b" : "",
                       p.bias_per_head ? "h" : (p.bias_per_batch ? "" : "1"));
  if (p.soft_cap > 0) key += fmt::format(" softcap{:g}", p.soft_cap);
  if (p.scale != 0) key += fmt::format(" scale{:g}", p.scale);
  if (p.sinks) key += " sinks";
  if (p.lse) key += " lse";
  // Strides other than packed BSHD (BHSD, say).
  fmha_problem packed = p;
  packed.strides({}, {}, {}, {});
  if (packed.normalized().q_strides != p.q_strides || packed.normalized().o_strides != p.o_strides) key += " strided";
  return key;
}

std::string conv_class(const grouped_conv_problem& p) {
  if (p.is_depthwise()) return "depthwise";
  if (p.g > 1) return "grouped";
  return p.is_pointwise() ? "pointwise" : "dense";
}

}  // namespace kdecl::cli
