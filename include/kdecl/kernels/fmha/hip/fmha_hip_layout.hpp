// Where the HIP attention kernel's values live in a wavefront's registers.
//
// The kernel computes the transposed products, S^T = K Q^T and O^T = V^T P^T, so
// that a lane's MFMA output column is one query row: the softmax statistics of a
// row and the rescaling of its O stay inside the lane (plus a reduction over the
// 64 / mn lanes of the same column), and the S^T accumulators are, element for
// element, the B operands of the P V instructions (no shuffle, no LDS round trip).
// Single-block MFMA layouts (mfma_table.hpp): output (row, col) at accumulator v of
// lane col + mn * g with row = mfma_out_row(v, lane); operands supply k = 4g + r
// as element r of lane group g = lane / mn.
// Plain constexpr: the kernel calls these and the host tests check them by brute force.
#pragma once

#include "kdecl/kernels/hip/mfma_table.hpp"

namespace kdecl::kernels::hip::fmha_layout {

// The query row (within an MFMA tile) of a lane: its output column, in S^T and O^T alike.
constexpr int query_of(int lane, int mn) { return lane % mn; }

// The key (within an S^T tile of mn keys) of accumulator v of `lane`.
constexpr int s_key(int v, int lane, int mn) { return mfma_out_row(v, lane, mn); }

// The key (within the same tile) that element r of lane's P^T operand of P V
// instruction q (over keys q * k_instr ...) stands for. P V instruction q takes
// accumulators 4q .. 4q + 3 of the S^T tile as its operand: s_key(4q + r, lane)
// must equal pv_key(q, r, lane), which the host test checks for both shapes.
constexpr int pv_key(int q, int r, int lane, int mn, int k_instr) { return q * k_instr + 4 * (lane / mn) + r; }

// The head dim that element e (0..7) of lane's 16-byte Q or K fragment of dim pair p
// holds: each lane group reads 8 consecutive dims, MFMA e / 4 of the pair consumes
// elements 4 (e / 4) .. + 3. Q and K share the assignment, so the reduction over
// the pair's 2 * k_instr dims is exact.
constexpr int qk_dim(int p, int e, int lane, int mn) { return p * (512 / mn) + 8 * (lane / mn) + e; }

// The head dim (within an O^T tile of mn dims) of O^T accumulator v of `lane`.
constexpr int o_dim(int v, int lane, int mn) { return mfma_out_row(v, lane, mn); }

}  // namespace kdecl::kernels::hip::fmha_layout
