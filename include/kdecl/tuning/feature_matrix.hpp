// Feature rows of one problem's kernels, one row per kernel, row-major in one
// block of floats: the ranking model reads it in place (no copy per call), and
// its width is the op's feature count (GEMM and convolution differ).
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace kdecl::tuning {

struct feature_matrix {
  std::size_t width = 0;
  std::vector<float> values;

  std::size_t rows() const { return width ? values.size() / width : 0; }
  bool empty() const { return values.empty(); }
  std::span<const float> row(std::size_t i) const { return {values.data() + i * width, width}; }
  void reserve(std::size_t rows, std::size_t w) { values.reserve(rows * w); }

  // Appends a row; the first row sets the width, a later row of another width is a bug.
  template <class Row>
  void push_back(const Row& r) {
    if (width == 0) width = r.size();
    if (r.size() != width)
      throw std::logic_error("feature_matrix: a row of " + std::to_string(r.size()) + " features after rows of " +
                             std::to_string(width));
    values.insert(values.end(), r.begin(), r.end());
  }
};

}  // namespace kdecl::tuning
