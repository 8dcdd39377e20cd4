// Problem tables of `kdecl bench conv` and `kdecl bench fmha`: the attention
// shape lists (benchmarks/shapes/fmha_*.csv), the row filter both benches take
// (--filter), and the stable identities (keys) that --resume matches.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/fmha/fmha_problem.hpp"

namespace kdecl::cli {

// One row of an attention shape list.
struct fmha_row {
  std::string file;    // file name without folder and extension
  std::string name, source;
  int line = 0;
  fmha_problem problem;  // normalized and valid
};

// Reads a list with the columns name, source, b, hq, hkv, sq, skv, d, dv, mask
// (none | causal | window), window_left, window_right, bias (none | alibi |
// elementwise[:b|:h|:1]), softcap, scale, sinks (0 | 1), varlen (Q:KV;Q:KV...;
// empty: batch mode). '#' starts a comment line; cells may be double-quoted.
// causal is bottom-right (for self-attention, Sq = Skv, the same as top-left).
// Throws std::invalid_argument naming file:line, the column and the value.
std::vector<fmha_row> read_fmha_rows(const std::string& path, dtype d);

// `--filter EXPR` over a row's named fields: comma-separated terms that must all
// hold, each FIELD=VALUE (alternatives a|b), FIELD!=VALUE or FIELD~TEXT (contains).
class table_filter {
 public:
  // Throws std::invalid_argument naming the malformed term or unknown field.
  table_filter(const std::string& expr, std::set<std::string> known_fields);
  bool matches(const std::map<std::string, std::string>& fields) const;

 private:
  struct term {
    std::string field, op, value;
    std::vector<std::string> alternatives;
  };
  std::vector<term> terms_;
};

// Stable identities: every value that makes two problems differ, e.g.
// "fwd bf16 nhwgc n32 c256 k256 g32 56x56 f3x3 s1x1 p1x1 d1x1" and
// "bf16 b4 hq32 hkv8 sq4096 skv4096 d128 causal".
std::string conv_key(const grouped_conv_problem& normalized);
std::string fmha_key(const fmha_problem& normalized);

// "dense", "grouped", "depthwise" (and "pointwise" for dense 1x1 without padding): the
// classes the performance bars name.
std::string conv_class(const grouped_conv_problem& normalized);

}  // namespace kdecl::cli
