// The mask band of the HIP attention kernel as host-callable arithmetic: which
// keys a query row sees, which key blocks a block of query rows visits, and which
// of those blocks need the per-element test. Query i's diagonal key is i + offset
// (offset 0 for top-left causal, Skv - Sq otherwise); a window keeps
// i + offset - left <= j <= i + offset + right, a negative bound is unbounded
// (causal: left -1, right 0). Every key j < skv of an unmasked problem is visible.
#pragma once

namespace kdecl::kernels::hip {

struct fmha_band {
  bool masked = false;
  int offset = 0, left = -1, right = -1;
};

// The keys [begin, end) a block may see at all: its sequence's (0, skv), or one split-KV
// share of them (paged_split_range), whose ends need not fall on block boundaries.
struct fmha_key_span {
  int begin = 0, end = 0;
};

constexpr bool fmha_visible(const fmha_band& b, int i, int j, fmha_key_span keys) {
  if (j < keys.begin || j >= keys.end) return false;
  if (!b.masked) return true;
  return (b.left < 0 || j >= i + b.offset - b.left) && (b.right < 0 || j <= i + b.offset + b.right);
}
constexpr bool fmha_visible(const fmha_band& b, int i, int j, int skv) { return fmha_visible(b, i, j, {0, skv}); }

struct fmha_key_blocks {
  int begin = 0, count = 0;  // key blocks begin .. begin + count - 1 of n0 keys each
};

// The key blocks any of rows m0 .. m0 + rows - 1 may see within `keys`.
constexpr fmha_key_blocks fmha_blocks_of(const fmha_band& b, int m0, int rows, fmha_key_span keys, int n0) {
  int lo = keys.begin, hi = keys.end - 1;
  if (b.masked) {
    if (b.left >= 0) lo = lo > m0 + b.offset - b.left ? lo : m0 + b.offset - b.left;
    if (b.right >= 0) hi = hi < m0 + rows - 1 + b.offset + b.right ? hi : m0 + rows - 1 + b.offset + b.right;
  }
  if (hi < lo) return {0, 0};
  return {lo / n0, hi / n0 + 1 - lo / n0};
}
constexpr fmha_key_blocks fmha_blocks_of(const fmha_band& b, int m0, int rows, int skv, int n0) {
  return fmha_blocks_of(b, m0, rows, fmha_key_span{0, skv}, n0);
}

// Whether the block of keys j0 .. j0 + n0 - 1 needs the per-element test for rows
// m0 .. m0 + rows - 1: it crosses an end of `keys` or a band edge. Otherwise every
// (row, key) pair of it is visible.
constexpr bool fmha_block_is_edge(const fmha_band& b, int m0, int rows, int j0, int n0, fmha_key_span keys) {
  if (j0 < keys.begin || j0 + n0 > keys.end) return true;
  if (!b.masked) return false;
  const bool inside_left = b.left < 0 || j0 >= m0 + rows - 1 + b.offset - b.left;
  const bool inside_right = b.right < 0 || j0 + n0 - 1 <= m0 + b.offset + b.right;
  return !(inside_left && inside_right);
}
constexpr bool fmha_block_is_edge(const fmha_band& b, int m0, int rows, int j0, int n0, int skv) {
  return fmha_block_is_edge(b, m0, rows, j0, n0, fmha_key_span{0, skv});
}

}  // namespace kdecl::kernels::hip
