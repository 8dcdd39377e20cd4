// Problem lists for `kdecl bench gemm --problems FILE...`: CSV files of GEMM
// shapes (benchmarks/shapes/gemm_*.csv, or plain m,n,k[,batch] lines), a filter
// that chooses rows, and the grouping of rows that describe the same problem
// (a shape that several models share is measured once).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gemm_options.hpp"
#include "kdecl/gemm/gemm_problem.hpp"

namespace kdecl::cli {

struct problem_row {
  std::string model, layer, source;  // empty in the plain m,n,k[,batch] format
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  std::string dtype, layout;         // empty: the command line's
  std::string file;                  // the CSV's file name without folder and extension
  int line = 0;
};

// The pieces of `s` between the separators (n separators give n + 1 pieces, empty ones kept).
std::vector<std::string> split_on(const std::string& s, char sep);

// One CSV record: comma-separated cells, trimmed unless double-quoted ("" inside
// quotes is a quote). Throws std::invalid_argument naming `where` when a quote is not closed.
std::vector<std::string> split_csv(const std::string& line, const std::string& where);

// Reads a CSV whose first row names its columns (m, n, k required; model, layer,
// dtype, layout, source, batch optional; other columns ignored), or headerless
// m,n,k[,batch] lines. Blank lines and lines starting with '#' are skipped;
// fields may be double-quoted. Throws std::invalid_argument naming file:line,
// the column and the value that is wrong.
std::vector<problem_row> read_problem_csv(const std::string& path);

// `--filter EXPR`: comma-separated terms that must all hold, each FIELD OP VALUE
// with OP one of  =  (equal; VALUE may list alternatives a|b|c)  !=  ~ (contains)
// and, for m, n, k and batch,  <  <=  >  >= . Fields: model, layer, m, n, k,
// batch, dtype, layout, source, file.
class row_filter {
 public:
  // Throws std::invalid_argument naming the malformed term or unknown field.
  explicit row_filter(const std::string& expr);
  bool matches(const problem_row& row) const;

 private:
  struct term {
    std::string field, op, value;
    std::vector<std::string> alternatives;  // for '=' and '!='
    std::int64_t number = 0;                 // for the numeric comparisons
  };
  std::vector<term> terms_;
};

// One problem to measure and every row it stands for.
struct sweep_problem {
  gemm_problem problem;           // normalized
  std::string key;                // problem_key(problem): the identity --resume matches
  std::vector<problem_row> uses;  // empty for --sizes / --ms problems
};

// A stable, readable identity of a problem: dtypes, compute, layout, sizes,
// batch, and whatever differs from a packed plain GEMM (leading dimensions,
// variant, epilogue), e.g. "bf16 rcr 512x4096x4096".
std::string problem_key(const gemm_problem& normalized_problem);

// Builds each row's problem from `base` (the command line: dtype, layout,
// epilogue, alpha/beta ...), taking the row's dtype and layout where it has
// them unless the command line set them explicitly; rows that give the same
// problem are merged, in first-seen order. Throws std::invalid_argument naming
// the row when its problem is invalid.
std::vector<sweep_problem> group_rows(const std::vector<problem_row>& rows, const gemm_options& base,
                                      bool dtype_from_command_line, bool layout_from_command_line);

}  // namespace kdecl::cli
