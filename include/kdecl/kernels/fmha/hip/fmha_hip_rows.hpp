// Which query token and head each row of a HIP attention block stands for, and where
// key j's K or V row lives: in a contiguous tensor (the forward pass) or in a page of a
// paged cache (the serving families). Plain constexpr (host and device alike): the
// kernel calls these, and tests/unit/fmha_hip_paged_test.cpp walks them over random
// paged problems against the host reference's own addressing.
#pragma once

#include <cstdint>

namespace kdecl::kernels::hip {

// A block's query rows. The forward pass and prefill give a block m0 consecutive tokens
// of one head (heads = 1). Decode packs the query heads that share a KV head into the
// rows, token-major (row = token * heads + head - head0), so that one K/V read serves
// all of them: a block is m0 rows of the group * seqlen_q rows of (sequence, KV head).
struct fmha_query_rows {
  int first = 0;  // the block's first row among its (sequence, head group)'s rows
  int heads = 1;  // query heads interleaved in the rows: 1, or the GQA group
  int head0 = 0;  // the first of those heads
  constexpr int token(int r) const { return (first + r) / heads; }
  constexpr int head(int r) const { return head0 + (first + r) % heads; }
};

// Key j's row in a contiguous tensor, `ld` elements after key j - 1's.
struct contiguous_kv_rows {
  std::int64_t ld = 0;
  constexpr std::int64_t at(int j) const { return std::int64_t(j) * ld; }
};

// Key j's row in a paged cache: slot j & (page_size - 1) of page table[j >> shift]
// (strides in elements; the table is the sequence's row of the block table or its
// stretch of the page list).
struct paged_kv_rows {
  const std::int32_t* table = nullptr;
  std::int64_t page = 0, row = 0;
  int shift = 0;  // log2 of the page size
  constexpr std::int64_t at(int j) const {
    return std::int64_t(table[j >> shift]) * page + std::int64_t(j & ((1 << shift) - 1)) * row;
  }
};

}  // namespace kdecl::kernels::hip
