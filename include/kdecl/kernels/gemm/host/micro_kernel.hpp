// The register-tiled inner kernel: an MR x NR block of C from packed panels.
//
// Each of the MR accumulator rows is one NR-wide vector held in registers for
// the whole depth loop; a step broadcasts a[i] and does MR vector
// multiply-adds with one contiguous load of B. We spell the row as a GNU
// vector type (GCC and Clang) rather than hoping for auto-vectorisation: with
// plain loops, -O2 builds were fine but -O3 -march=native made GCC vectorise
// across rows with shuffles and run 5-10x slower. The compiler splits a row
// into as many hardware registers as the target has width (SSE2 by default).
#pragma once

#include <cstdint>
#include <cstring>

namespace kdecl::kernels::host {

template <class T, int NR>
struct vector_row {
  typedef T type __attribute__((vector_size(sizeof(T) * NR)));
};

// GNU vectors need a power-of-two byte size; other widths use the plain loop.
template <class T, int NR>
constexpr bool has_vector_row = NR >= 2 && (NR & (NR - 1)) == 0 && sizeof(T) * NR <= 128;

template <class T, int MR, int NR>
inline void micro_kernel(int depth, const T* __restrict a_panel, const T* __restrict b_panel,
                         T* __restrict c, std::int64_t ldc, bool accumulate) {
  if constexpr (has_vector_row<T, NR>) {
    using row = typename vector_row<T, NR>::type;
    row acc[MR] = {};
    for (int p = 0; p < depth; ++p) {
      row b;
      std::memcpy(&b, b_panel + p * NR, sizeof b);  // unaligned vector load
      const T* a = a_panel + p * MR;
      for (int i = 0; i < MR; ++i) acc[i] += a[i] * b;
    }
    for (int i = 0; i < MR; ++i) {
      T* out = c + i * ldc;
      if (accumulate) {
        row old;
        std::memcpy(&old, out, sizeof old);
        acc[i] += old;
      }
      std::memcpy(out, &acc[i], sizeof acc[i]);
    }
  } else {
    T acc[MR][NR] = {};
    for (int p = 0; p < depth; ++p) {
      const T* a = a_panel + p * MR;
      const T* b = b_panel + p * NR;
      for (int i = 0; i < MR; ++i)
        for (int j = 0; j < NR; ++j) acc[i][j] += a[i] * b[j];
    }
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < NR; ++j) c[i * ldc + j] = accumulate ? c[i * ldc + j] + acc[i][j] : acc[i][j];
  }
}

}  // namespace kdecl::kernels::host
