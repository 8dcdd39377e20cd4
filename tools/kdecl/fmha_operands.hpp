// The device tensors of attention calls (Q, K, V, O in rotated sets past the L2;
// LSE, bias, ALiBi slopes, sinks and sequence offsets once), for `kdecl bench fmha`
// and `kdecl tune fmha`.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "kdecl/fmha/fmha_problem.hpp"
#include "kdecl/runtime/buffer.hpp"
#include "kdecl/runtime/device.hpp"

namespace kdecl::cli {

struct fmha_operands {
  std::vector<std::array<buffer, 4>> sets;  // q, k, v, o
  buffer lse, bias, slopes, sinks, cu_q, cu_kv;
  const fmha_problem* p = nullptr;
  // The arguments of call i (set i modulo the sets).
  fmha_args args(std::size_t i);
};

// Elements each tensor of a call spans with its strides, at least 1 (kdecl::tensor_elements: the buffers to allocate).
struct fmha_spans {
  std::size_t q, k, v, o, lse, bias;
};
fmha_spans spans_of(const fmha_problem& normalized_problem);

// Bytes of Q, K, V, the bias and O a call touches (what the sets rotate).
double operand_bytes(const fmha_problem& normalized_problem);

// Random Q, K, V (and bias, sinks), ALiBi's slopes, the problem's offsets; enough
// sets that one pass over them touches more than twice `l2_bytes`. Keeps &p.
fmha_operands make_operands(const device& dev, const fmha_problem& p, std::size_t l2_bytes);

}  // namespace kdecl::cli
