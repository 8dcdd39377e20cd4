// Moves one operand tile global memory -> registers -> LDS.
//
// The operand tile is P x TK (P = tile.m for A, tile.n for B; TK = tile.k).
// In LDS it is always stored as P rows of TK k-contiguous elements (row length
// `LdsRow`, padded), which is what the MFMA fragment reads want.
// In global memory it is either k-contiguous (A row-major, B column-major) or
// p-contiguous (A column-major, B row-major). The tile is cut into vectors of
// VecBytes along the global contiguous direction; thread t loads vectors
// t, t + Threads, ... so that consecutive lanes read consecutive addresses.
//  * k-contiguous: a vector lands unchanged in one LDS row (one ds_write).
//  * p-contiguous: a vector holds one k of several rows, so its elements are
//    scattered over LDS rows (a transposing, element-wise store).
// Splitting load() from store() lets the pipelines keep the next tile in
// registers while the current one is consumed from LDS.
//
// Bounds (pad yes): a vector wholly inside the matrix is one vector load; one
// that straddles the contiguous edge is loaded element by element; anything
// outside reads as zero, which adds nothing to the dot products.
#pragma once

#include <hip/hip_runtime.h>

#include "kdecl/core/enums.hpp"
#include "kdecl/kernels/gemm/hip/fp8_fnuz.hpp"
#include "kdecl/kernels/hip/hip_storage.hpp"
#include "kdecl/kernels/hip/raw_bytes.hpp"

namespace kdecl::kernels::hip {

template <dtype D, arch_id Arch, int P, int TK, int LdsRow, int VecBytes, int Threads, bool KContiguous,
          bool CheckP, bool CheckK>
struct tile_loader {
  using T = storage_t<D>;
  static constexpr int vec = VecBytes / static_cast<int>(sizeof(T));
  static constexpr int contiguous_extent = KContiguous ? TK : P;
  static constexpr int strided_extent = KContiguous ? P : TK;
  static constexpr int vectors_per_line = contiguous_extent / vec;
  static constexpr int total_vectors = strided_extent * vectors_per_line;
  static constexpr int per_thread = (total_vectors + Threads - 1) / Threads;
  static constexpr bool ragged = total_vectors % Threads != 0;  // last round leaves some threads idle
  static constexpr bool check_strided = KContiguous ? CheckP : CheckK;
  static constexpr bool check_contiguous = KContiguous ? CheckK : CheckP;
  static_assert(contiguous_extent % vec == 0, "tile_loader: contiguous extent not a multiple of the vector");

  raw_bytes<VecBytes> regs[per_thread];

  // Loads the tile whose first row (p) is p0 and first k is k0. `base` points to
  // element (0, 0) of the operand; `ld` is its leading dimension; p_limit and
  // k_limit are the operand's extents (used only where padding is on).
  __device__ void load(const T* __restrict__ base, int ld, int p0, int k0, int p_limit, int k_limit, int tid) {
    const int s_origin = KContiguous ? p0 : k0;
    const int c_origin = KContiguous ? k0 : p0;
    const int s_limit = KContiguous ? p_limit : k_limit;
    const int c_limit = KContiguous ? k_limit : p_limit;
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int idx = tid + i * Threads;
      if (ragged && idx >= total_vectors) break;
      const int gs = s_origin + idx / vectors_per_line;
      const int gc = c_origin + (idx % vectors_per_line) * vec;
      const bool line_ok = !check_strided || gs < s_limit;
      regs[i].words = zero_bytes<VecBytes>().words;
      if (line_ok) {  // the address is formed only for lines inside the matrix
        const T* src = base + gs * ld + gc;
        if (!check_contiguous || gc + vec <= c_limit) {
          regs[i].words = load_bytes<VecBytes>(src).words;
        } else {
#pragma unroll
          for (int e = 0; e < vec; ++e)
            if (gc + e < c_limit) regs[i].template set<T>(e, src[e]);
        }
      }
      if constexpr (needs_fnuz_rewrite(D, Arch)) {
#pragma unroll
        for (int w = 0; w < VecBytes / 4; ++w) regs[i].words[w] = ocp_to_fnuz<D>(regs[i].words[w]);
      }
    }
  }

  // A gathered operand (a convolution's implicit-GEMM operand, kernels/conv/hip/): no
  // base + line * ld, but a Source that says where the vector at (p, k) starts (p: the operand's
  // row, k: its depth; the vector runs along the contiguous direction) or that it reads zero:
  //   typename Source::line;                                 what a thread keeps of row p
  //   __device__ line line_of(int p) const;                  decoded once (prepare)
  //   __device__ bool offset(const line&, int k, long long& at) const;  false: zeros
  // A thread's vector i keeps its p over the k tiles (the block's p0 does not move), so the
  // p side is decoded once per block, the k side per tile.
  template <class Source>
  struct gather_lines {
    typename Source::line line[per_thread];
  };

  template <class Source>
  __device__ static void prepare(const Source& src, int p0, int tid, gather_lines<Source>& lines) {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int idx = tid + i * Threads;
      if (ragged && idx >= total_vectors) break;
      lines.line[i] = src.line_of(p0 + (KContiguous ? idx / vectors_per_line : (idx % vectors_per_line) * vec));
    }
  }

  // load() of a gathered operand: `base` is where the Source's offsets count from.
  template <class Source>
  __device__ void load_gathered(const T* __restrict__ base, const Source& src, const gather_lines<Source>& lines,
                                int k0, int tid) {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int idx = tid + i * Threads;
      if (ragged && idx >= total_vectors) break;
      const int k = k0 + (KContiguous ? (idx % vectors_per_line) * vec : idx / vectors_per_line);
      long long at = 0;
      regs[i].words = zero_bytes<VecBytes>().words;
      if (src.offset(lines.line[i], k, at)) regs[i].words = load_bytes<VecBytes>(base + at).words;
      if constexpr (needs_fnuz_rewrite(D, Arch)) {
#pragma unroll
        for (int w = 0; w < VecBytes / 4; ++w) regs[i].words[w] = ocp_to_fnuz<D>(regs[i].words[w]);
      }
    }
  }

  // Writes the registers loaded by load() into the LDS tile `lds` (P rows of LdsRow).
  __device__ void store(T* lds, int tid) const {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int idx = tid + i * Threads;
      if (ragged && idx >= total_vectors) break;
      const int s = idx / vectors_per_line;
      const int c = (idx % vectors_per_line) * vec;
      if constexpr (KContiguous) {
        store_bytes<VecBytes>(lds + s * LdsRow + c, regs[i]);  // row s, k = c..c+vec
      } else {
#pragma unroll
        for (int e = 0; e < vec; ++e) lds[(c + e) * LdsRow + s] = regs[i].template get<T>(e);  // row c+e, k = s
      }
    }
  }
};

}  // namespace kdecl::kernels::hip
