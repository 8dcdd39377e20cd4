// Packing: copy a block of an operand into contiguous micro-panels of the
// compute type, so the micro-kernel reads both operands with unit stride
// whatever the layout, dtype or shuffling of the source.
//
// A block of `count` lines (rows of A, or columns of B) by `depth` (the k
// extent) becomes ceil(count / Width) panels; panel q holds, for each p in
// [0, depth), the Width elements of lines q*Width .. q*Width+Width-1 at depth p:
//     out[q*Width*depth + p*Width + r]
// Lines past `count` are zero, so the micro-kernel always runs full width.
#pragma once

#include <cstdint>

#include "kdecl/kernels/gemm/host/compute_types.hpp"

namespace kdecl::kernels::host {

// Element (line, p) of the source sits at offset(line, p) from `base`.
template <int Width, bool RoundToTf32, class Compute, class Storage, class Offset>
void pack_panels(const Storage* base, Offset offset, int count, int depth, Compute* out) {
  for (int line0 = 0; line0 < count; line0 += Width) {
    const int lines = count - line0 < Width ? count - line0 : Width;
    for (int r = 0; r < lines; ++r)
      for (int p = 0; p < depth; ++p)
        out[p * Width + r] = to_compute<Compute, RoundToTf32>(base[offset(line0 + r, p)]);
    for (int r = lines; r < Width; ++r)
      for (int p = 0; p < depth; ++p) out[p * Width + r] = Compute(0);
    out += Width * depth;
  }
}

// Offsets of a plain strided operand: line and depth strides in elements.
struct strided_offset {
  std::int64_t line_stride, depth_stride;
  std::int64_t operator()(int line, int p) const { return line * line_stride + p * depth_stride; }
};

}  // namespace kdecl::kernels::host
