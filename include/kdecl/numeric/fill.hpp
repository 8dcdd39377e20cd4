// Test-data helpers: deterministic random fills and poisoning, for buffers
// whose dtype is known only at run time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>

#include "kdecl/core/enums.hpp"
#include "kdecl/numeric/element_access.hpp"

namespace kdecl::numeric {

// Fills `count` elements with values drawn uniformly from [-1, 1] and rounded to
// `d`; a value that rounds to zero is drawn again, so no element is zero (a zero
// input hides indexing bugs). Integer dtypes get small integers in [-4, 4] (zeros
// allowed) so int8 products sum exactly, but never an all-zero buffer.
// std::mt19937_64 is fully specified, so a seed gives the same data everywhere.
inline void fill_uniform(void* buffer, dtype d, std::size_t count, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  const bool integral = d == dtype::int8 || d == dtype::int32;
  bool all_zero = true;
  for (std::size_t i = 0; i < count; ++i) {
    if (integral) {
      const int v = int(engine() % 9) - 4;
      all_zero = all_zero && v == 0;
      store_from_double(buffer, d, i, v);
      continue;
    }
    do {
      const double unit = double(engine() >> 11) * 0x1p-53;  // [0, 1)
      store_from_double(buffer, d, i, 2.0 * unit - 1.0);
    } while (load_as_double(buffer, d, i) == 0.0);
  }
  if (integral && all_zero && count > 0) store_from_double(buffer, d, 0, 1.0);
}

// Overwrites `count` elements with 0xFF bytes: NaN for every floating dtype
// (fp32/fp64/fp16/bf16/fp8/bf8), -1 for integers. Outputs are poisoned before a
// kernel runs so that an element the kernel forgot to write cannot pass a check.
inline void poison(void* buffer, dtype d, std::size_t count) {
  std::memset(buffer, 0xFF, count * dtype_size_bytes(d));
}

}  // namespace kdecl::numeric
