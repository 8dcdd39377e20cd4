#include "problem_table.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kdecl::cli {
namespace {

std::string trim(std::string s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

bool parse_int(const std::string& text, std::int64_t& out) {
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc{} && ptr == end && !text.empty();
}

std::string stem_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  auto dot = name.rfind('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

const std::vector<std::string>& filter_fields() {
  static const std::vector<std::string> f{"model", "layer", "m", "n", "k", "batch", "dtype", "layout", "source", "file"};
  return f;
}

bool numeric_field(const std::string& f) { return f == "m" || f == "n" || f == "k" || f == "batch"; }

std::string field_of(const problem_row& r, const std::string& f) {
  if (f == "model") return r.model;
  if (f == "layer") return r.layer;
  if (f == "m") return std::to_string(r.m);
  if (f == "n") return std::to_string(r.n);
  if (f == "k") return std::to_string(r.k);
  if (f == "batch") return std::to_string(r.batch);
  if (f == "dtype") return r.dtype;
  if (f == "layout") return r.layout;
  if (f == "source") return r.source;
  return r.file;
}

std::int64_t number_of(const problem_row& r, const std::string& f) {
  return f == "m" ? r.m : f == "n" ? r.n : f == "k" ? r.k : r.batch;
}


}  // namespace

std::vector<std::string> split_on(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

std::vector<std::string> split_csv(const std::string& line, const std::string& where) {
  std::vector<std::string> fields;
  std::string cur;
  bool quoted = false, was_quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"' && trim(cur).empty()) {
      quoted = was_quoted = true;
      cur.clear();
    } else if (c == ',') {
      fields.push_back(was_quoted ? cur : trim(cur));
      cur.clear();
      was_quoted = false;
    } else {
      cur += c;
    }
  }
  if (quoted) throw std::invalid_argument(fmt::format("{}: a quoted field is not closed", where));
  fields.push_back(was_quoted ? cur : trim(cur));
  return fields;
}

std::vector<problem_row> read_problem_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(fmt::format("--problems '{}' cannot be opened", path));
  const std::string file = stem_of(path);
  std::vector<problem_row> rows;
  std::map<std::string, std::size_t> column;  // name -> index; empty until a header is read
  bool first_record = true;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const std::string where = fmt::format("{}:{}", path, line_no);
    const std::string content = trim(line);
    if (content.empty() || content[0] == '#') continue;
    auto fields = split_csv(content, where);
    if (first_record) {
      first_record = false;
      std::int64_t ignored = 0;
      if (!parse_int(fields[0], ignored)) {  // a header row names the columns
        for (std::size_t i = 0; i < fields.size(); ++i) column[trim(fields[i])] = i;
        for (const char* required : {"m", "n", "k"})
          if (!column.count(required))
            throw std::invalid_argument(fmt::format("{}: the header names no '{}' column (it needs m, n and k; "
                                                    "optional: model, layer, dtype, layout, source, batch)",
                                                    where, required));
        continue;
      }
    }
    problem_row r;
    r.file = file;
    r.line = line_no;
    auto number = [&](const char* name, std::size_t index, std::int64_t& out) {
      if (index >= fields.size())
        throw std::invalid_argument(fmt::format("{}: '{}' has no {} column", where, content, name));
      if (!parse_int(fields[index], out))
        throw std::invalid_argument(fmt::format("{}: {} = '{}' is not an integer", where, name, fields[index]));
    };
    if (column.empty()) {  // plain m,n,k[,batch]
      if (fields.size() < 3 || fields.size() > 4)
        throw std::invalid_argument(fmt::format("{}: '{}' is not m,n,k[,batch]", where, content));
      number("m", 0, r.m);
      number("n", 1, r.n);
      number("k", 2, r.k);
      if (fields.size() == 4) number("batch", 3, r.batch);
    } else {
      number("m", column["m"], r.m);
      number("n", column["n"], r.n);
      number("k", column["k"], r.k);
      if (auto it = column.find("batch"); it != column.end() && it->second < fields.size() && !fields[it->second].empty())
        number("batch", it->second, r.batch);
      auto text = [&](const char* name) -> std::string {
        auto it = column.find(name);
        return it != column.end() && it->second < fields.size() ? fields[it->second] : std::string();
      };
      r.model = text("model");
      r.layer = text("layer");
      r.dtype = text("dtype");
      r.layout = text("layout");
      r.source = text("source");
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

row_filter::row_filter(const std::string& expr) {
  for (const auto& raw : split_on(expr, ',')) {
    const std::string t = trim(raw);
    if (t.empty()) continue;
    const auto at = t.find_first_of("<>!=~");
    if (at == std::string::npos || at == 0)
      throw std::invalid_argument(fmt::format("filter term '{}' is not FIELD OP VALUE (OP: = != ~ < <= > >=)", t));
    term tm;
    tm.field = trim(t.substr(0, at));
    const bool two = at + 1 < t.size() && t[at + 1] == '=' && t[at] != '=' && t[at] != '~';
    tm.op = t.substr(at, two ? 2 : 1);
    tm.value = trim(t.substr(at + tm.op.size()));
    if (tm.op == "!") throw std::invalid_argument(fmt::format("filter term '{}': '!' must be followed by '='", t));
    if (std::find(filter_fields().begin(), filter_fields().end(), tm.field) == filter_fields().end())
      throw std::invalid_argument(fmt::format("filter field '{}' is unknown; fields: {}", tm.field,
                                              fmt::join(filter_fields(), ", ")));
    if (tm.op[0] == '<' || tm.op[0] == '>') {
      if (!numeric_field(tm.field))
        throw std::invalid_argument(fmt::format("filter term '{}': {} compares numbers; only m, n, k and batch are "
                                                "numbers (use = or ~ for {})", t, tm.op, tm.field));
      if (!parse_int(tm.value, tm.number))
        throw std::invalid_argument(fmt::format("filter term '{}': '{}' is not an integer", t, tm.value));
    }
    if (tm.op == "=" || tm.op == "!=") tm.alternatives = split_on(tm.value, '|');
    terms_.push_back(std::move(tm));
  }
}

bool row_filter::matches(const problem_row& row) const {
  for (const auto& t : terms_) {
    if (t.op == "=" || t.op == "!=") {
      const std::string v = field_of(row, t.field);
      // The whole value, or one of its '|' alternatives (layer names may themselves hold '|').
      const bool equal = v == t.value || std::find(t.alternatives.begin(), t.alternatives.end(), v) != t.alternatives.end();
      if (equal != (t.op == "=")) return false;
    } else if (t.op == "~") {
      if (field_of(row, t.field).find(t.value) == std::string::npos) return false;
    } else {
      const std::int64_t v = number_of(row, t.field);
      const bool ok = t.op == "<" ? v < t.number : t.op == "<=" ? v <= t.number : t.op == ">" ? v > t.number : v >= t.number;
      if (!ok) return false;
    }
  }
  return true;
}

std::string problem_key(const gemm_problem& p) {
  const auto& s = p.sig;
  std::string key = (s.a == s.b && s.b == s.c) ? std::string(to_string(s.a))
                                               : fmt::format("{}/{}/{}", to_string(s.a), to_string(s.b), to_string(s.c));
  if (s.compute != s.a) key += fmt::format(" compute={}", to_string(s.compute));
  key += fmt::format(" {}{}{} {}x{}x{}", to_string(s.lay.a), to_string(s.lay.b), to_string(s.lay.c), p.m, p.n, p.k);
  if (p.batch > 1) key += fmt::format(" batch={}", p.batch);
  if (p.lda != p.cols_a()) key += fmt::format(" lda={}", p.lda);
  if (p.ldb != p.cols_b()) key += fmt::format(" ldb={}", p.ldb);
  if (p.ldc != p.cols_c()) key += fmt::format(" ldc={}", p.ldc);
  if (s.variant == gemm_variant::preshuffle) key += " preshuffle";
  if (s.variant == gemm_variant::block_scaled) key += " block_scaled";
  if (s.variant == gemm_variant::multi_d) key += fmt::format(" multi_d={}:{}", to_string(s.ew), s.num_d);
  return key;
}

std::vector<sweep_problem> group_rows(const std::vector<problem_row>& rows, const gemm_options& base,
                                      bool dtype_from_command_line, bool layout_from_command_line) {
  std::vector<sweep_problem> out;
  std::map<std::string, std::size_t> index;
  for (const auto& r : rows) {
    gemm_options o = base;
    o.m = r.m;
    o.n = r.n;
    o.k = r.k;
    o.batch = r.batch;
    if (!dtype_from_command_line && !r.dtype.empty()) o.dtype = r.dtype;
    if (!layout_from_command_line && !r.layout.empty()) o.layout = r.layout;
    gemm_problem p;
    try {
      p = o.problem().normalized();
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("{}:{}{}: {}", r.file, r.line,
                                              r.model.empty() ? "" : fmt::format(" ({} {})", r.model, r.layer), e.what()));
    }
    auto key = problem_key(p);
    auto [it, fresh] = index.emplace(key, out.size());
    if (fresh) out.push_back({p, key, {}});
    out[it->second].uses.push_back(r);
  }
  return out;
}

}  // namespace kdecl::cli
