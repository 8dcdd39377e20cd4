#include "kdecl/fmha/fmha_problem.hpp"
#include "kdecl/fmha/fmha_tensor_elements.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>

namespace kdecl {
namespace {

std::int64_t element_bytes(dtype d) { return bits_of(d) / 8 > 0 ? bits_of(d) / 8 : 1; }

constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();

// Products of sizes for packed strides, saturated at 2^63 - 1 (validate() then
// refuses the span) rather than overflowing; negative factors pass through
// unsaturated (validate() refuses them by their sign first).
std::int64_t mul_sat(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? int64_max : r;
}
std::int64_t mul_sat(std::int64_t a, std::int64_t b, std::int64_t c) { return mul_sat(mul_sat(a, b), c); }

std::string decimal(__int128 v) {
  if (v < 0) return "-" + decimal(-v);
  std::string digits;
  do {
    digits.insert(digits.begin(), char('0' + int(v % 10)));
    v /= 10;
  } while (v > 0);
  return digits;
}

// Elements a tensor spans: 1 + the largest offset, in 128 bits (never overflows
// for int64 inputs), for extents of at least 1.
__int128 span128(std::initializer_list<std::pair<std::int64_t, std::int64_t>> stride_extent, std::int64_t row) {
  __int128 span = row;
  for (auto [stride, extent] : stride_extent) span += __int128(stride) * __int128(std::max<std::int64_t>(extent, 1) - 1);
  return span;
}

// Elements the elementwise bias spans through a normalized problem's strides (a key bias's row stride is 0).
__int128 bias_span(const fmha_problem& n) {
  return span128({{n.bias_strides.batch, n.bias_per_batch ? n.batch : 1},
                  {n.bias_strides.head, n.bias_per_head ? n.heads_q : 1},
                  {n.bias_strides.seq, n.bias_per_row ? n.seqlen_q : 1}},
                 n.seqlen_kv);
}

// Elements every tensor spans through a normalized problem's strides, in 128 bits (a tensor
// without rows spans its row: validate() bounds these, tensor_elements() zeroes them).
struct tensor_spans {
  __int128 q, k, v, o, lse, bias;
};
tensor_spans spans_of(const fmha_problem& n) {
  const bool group = n.group_mode();
  const std::int64_t rows = group ? n.total_q() : n.seqlen_q, rows_k = group ? n.total_kv() : n.seqlen_kv;
  const std::int64_t batches = group ? 1 : n.batch;
  auto tensor = [&](const fmha_strides& st, std::int64_t r, std::int64_t heads, std::int64_t dim) {
    return span128({{st.batch, batches}, {st.seq, r}, {st.head, heads}}, dim);
  };
  return {tensor(n.q_strides, rows, n.heads_q, n.hdim_q),
          tensor(n.k_strides, rows_k, n.heads_kv, n.hdim_q),
          tensor(n.v_strides, rows_k, n.heads_kv, n.hdim_v),
          tensor(n.o_strides, rows, n.heads_q, n.hdim_v),
          n.lse ? span128({{n.lse_head_stride, n.heads_q}, {n.lse_batch_stride, batches}}, rows) : __int128(0),
          n.bias == fmha_bias::elementwise ? bias_span(n) : __int128(0)};
}

// Offsets must be non-decreasing from 0; returns the longest sequence or an error.
std::optional<std::string> check_offsets(const char* name, const std::vector<std::int32_t>& cu, std::size_t want) {
  if (cu.size() != want)
    return fmt::format("{} holds {} offsets; group mode needs batch + 1 = {}", name, cu.size(), want);
  if (cu[0] != 0) return fmt::format("{}[0] = {} must be 0 (offsets are cumulative from the first sequence)", name, cu[0]);
  for (std::size_t i = 1; i < cu.size(); ++i)
    if (cu[i] < cu[i - 1])
      return fmt::format("{}[{}] = {} is smaller than {}[{}] = {} (offsets must not decrease: a length is negative)",
                         name, i, cu[i], name, i - 1, cu[i - 1]);
  return std::nullopt;
}

std::int32_t longest(const std::vector<std::int32_t>& cu) {
  std::int32_t m = 0;
  for (std::size_t i = 1; i < cu.size(); ++i) m = std::max(m, cu[i] - cu[i - 1]);
  return m;
}

// Whether rows of `row` contiguous elements at every index of the given dims
// (stride, extent) are pairwise disjoint: sorted by stride, each stride must
// step over everything the smaller ones span. A dim of extent 0 leaves no row at all
// (an empty batch-mode query: its packed strides are 0, which overlap nothing).
bool disjoint(std::int64_t row, std::vector<std::pair<std::int64_t, std::int64_t>> dims) {
  for (auto [stride, extent] : dims)
    if (extent <= 0) return true;
  std::sort(dims.begin(), dims.end());
  std::int64_t span = row;
  for (auto [stride, extent] : dims) {
    if (extent <= 1) continue;
    if (stride < span) return false;
    span = stride * (extent - 1) + span;
  }
  return true;
}

}  // namespace

fmha_problem& fmha_problem::varlen(const std::vector<std::int32_t>& lengths_q,
                                   const std::vector<std::int32_t>& lengths_kv) {
  std::vector<std::int32_t> cq{0}, ck{0};
  // Offsets are accumulated in 64 bits and clamped: validate() reports a negative
  // length or a total beyond 2^31 - 1 rather than a wrapped number.
  std::int64_t sq = 0, sk = 0;
  constexpr std::int64_t max32 = std::numeric_limits<std::int32_t>::max();
  for (auto l : lengths_q) cq.push_back(std::int32_t(std::min(max32, sq += l)));
  for (auto l : lengths_kv) ck.push_back(std::int32_t(std::min(max32, sk += l)));
  return varlen_offsets(std::move(cq), std::move(ck));
}

fmha_problem& fmha_problem::varlen_offsets(std::vector<std::int32_t> cu_q, std::vector<std::int32_t> cu_kv) {
  batch = std::int64_t(cu_q.size()) - 1;
  cu_seqlens_q = std::move(cu_q);
  cu_seqlens_kv = std::move(cu_kv);
  seqlen_q = longest(cu_seqlens_q);
  seqlen_kv = longest(cu_seqlens_kv);
  return *this;
}

fmha_problem& fmha_problem::bhsd() {
  const std::int64_t tq = group_mode() ? total_q() : seqlen_q, tk = group_mode() ? total_kv() : seqlen_kv;
  const bool g = group_mode();
  q_strides = {g ? 0 : mul_sat(heads_q, tq, hdim_q), hdim_q, mul_sat(tq, hdim_q)};
  k_strides = {g ? 0 : mul_sat(heads_kv, tk, hdim_q), hdim_q, mul_sat(tk, hdim_q)};
  v_strides = {g ? 0 : mul_sat(heads_kv, tk, hdim_v), hdim_v, mul_sat(tk, hdim_v)};
  o_strides = {g ? 0 : mul_sat(heads_q, tq, hdim_v), hdim_v, mul_sat(tq, hdim_v)};
  return *this;
}

float fmha_problem::effective_scale() const {
  return scale != 0.0f ? scale : float(1.0 / std::sqrt(double(hdim_q > 0 ? hdim_q : 1)));
}

fmha_signature fmha_problem::signature() const {
  fmha_signature s;
  s.family = fmha_family::fwd;
  s.qkv = qkv;
  s.o = o;
  s.hdim_q = int(hdim_q);
  s.hdim_v = int(hdim_v);
  s.mask = mask;
  s.bias = bias;
  s.mode = group_mode() ? fmha_mode::group : fmha_mode::batch;
  s.v_layout = layout::row;
  s.lse = lse;
  s.dropout = false;
  s.logits_soft_cap = soft_cap > 0.0f;
  s.sink = sinks;
  return s;
}

fmha_problem fmha_problem::normalized() const {
  fmha_problem p = *this;
  const bool g = group_mode();
  auto fill = [&](fmha_strides& s, std::int64_t seqlen, std::int64_t heads, std::int64_t dim) {
    if (s.head == 0) s.head = dim;
    if (s.seq == 0) s.seq = mul_sat(heads, dim);
    if (s.batch == 0 && !g) s.batch = mul_sat(seqlen, heads, dim);
  };
  fill(p.q_strides, seqlen_q, heads_q, hdim_q);
  fill(p.k_strides, seqlen_kv, heads_kv, hdim_q);
  fill(p.v_strides, seqlen_kv, heads_kv, hdim_v);
  fill(p.o_strides, seqlen_q, heads_q, hdim_v);
  if (bias == fmha_bias::elementwise) {
    auto& b = p.bias_strides;
    if (!bias_per_row) b.seq = 0;  // key_bias: every query row reads the same row
    else if (b.seq == 0) b.seq = seqlen_kv;
    const std::int64_t plane = bias_per_row ? mul_sat(seqlen_q, b.seq) : seqlen_kv;
    if (!bias_per_head) b.head = 0;
    else if (b.head == 0) b.head = plane;
    if (!bias_per_batch) b.batch = 0;
    else if (b.batch == 0) b.batch = (bias_per_head ? mul_sat(heads_q, b.head) : plane);
  }
  if (lse) {
    if (p.lse_head_stride == 0) p.lse_head_stride = g ? total_q() : seqlen_q;
    if (p.lse_batch_stride == 0 && !g) p.lse_batch_stride = mul_sat(heads_q, p.lse_head_stride);
  }
  return p;
}

std::optional<std::string> fmha_problem::validate() const {
  if (batch <= 0) return fmt::format("batch = {} must be positive", batch);
  if (heads_q <= 0) return fmt::format("heads_q = {} must be positive", heads_q);
  if (heads_kv <= 0) return fmt::format("heads_kv = {} must be positive", heads_kv);
  if (heads_q % heads_kv != 0)
    return fmt::format("heads_q = {} is not a multiple of heads_kv = {} (each K/V head serves heads_q / heads_kv "
                       "query heads)", heads_q, heads_kv);
  for (auto [what, d] : {std::pair{"hdim_q", hdim_q}, {"hdim_v", hdim_v}})
    if (d <= 0 || d > fmha_max_head_dim)
      return fmt::format("{} = {} is outside 1..{} (the largest head dim kdecl's attention supports)", what, d,
                         fmha_max_head_dim);
  if (qkv != dtype::fp16 && qkv != dtype::bf16 && qkv != dtype::fp32)
    return fmt::format("dtype of Q, K and V is {}; attention takes fp16, bf16 or fp32 (fp8 is not supported yet)",
                       to_string(qkv));
  if (o != qkv) return fmt::format("dtype of O ({}) must equal that of Q, K and V ({})", to_string(o), to_string(qkv));

  if (group_mode()) {
    if (auto e = check_offsets("cu_seqlens_q", cu_seqlens_q, std::size_t(batch + 1))) return e;
    if (auto e = check_offsets("cu_seqlens_kv", cu_seqlens_kv, std::size_t(batch + 1))) return e;
    if (seqlen_q != longest(cu_seqlens_q) || seqlen_kv != longest(cu_seqlens_kv))
      return fmt::format("seqlen_q = {} and seqlen_kv = {} must be the longest sequences of cu_seqlens ({} and {}); "
                         "set group mode with varlen()", seqlen_q, seqlen_kv, longest(cu_seqlens_q),
                         longest(cu_seqlens_kv));
    for (auto [what, s] : {std::pair{"Q", q_strides.batch}, {"K", k_strides.batch}, {"V", v_strides.batch},
                           {"O", o_strides.batch}, {"LSE", lse_batch_stride}})
      if (s != 0)
        return fmt::format("batch stride of {} = {} is unused in group mode (sequences are found through "
                           "cu_seqlens); leave it 0", what, s);
  } else {
    if (!cu_seqlens_kv.empty()) return "cu_seqlens_kv is set but cu_seqlens_q is empty: group mode needs both";
    if (seqlen_q < 0) return fmt::format("seqlen_q = {} must not be negative", seqlen_q);
    if (seqlen_kv < 0) return fmt::format("seqlen_kv = {} must not be negative", seqlen_kv);
  }

  for (auto [what, s] : {std::pair{"Q", q_strides}, {"K", k_strides}, {"V", v_strides}, {"O", o_strides},
                         {"bias", bias_strides}})
    for (auto [dim, v] : {std::pair{"batch", s.batch}, {"seq", s.seq}, {"head", s.head}})
      if (v < 0) return fmt::format("{} stride of {} = {} must not be negative (0 means packed)", dim, what, v);
  if (lse_batch_stride < 0 || lse_head_stride < 0)
    return fmt::format("LSE strides (batch {}, head {}) must not be negative (0 means packed)", lse_batch_stride,
                       lse_head_stride);

  // Sizes before anything multiplies them: rows in total must fit int32 (the
  // offsets' type; varlen() clamps running sums at 2^31 - 1, so reaching it
  // means they overflowed), and every tensor must span at most 2^63 - 1 elements.
  constexpr std::int64_t int32_max = std::numeric_limits<std::int32_t>::max();
  const __int128 rows_q = group_mode() ? __int128(total_q()) : __int128(batch) * seqlen_q;
  const __int128 rows_kv = group_mode() ? __int128(total_kv()) : __int128(batch) * seqlen_kv;
  if (rows_q >= int32_max || rows_kv >= int32_max)
    return fmt::format("{} query and {} key rows in total reach 2^31 - 1 (offsets must fit int32)",
                       decimal(rows_q), decimal(rows_kv));
  const fmha_problem p = normalized();
  const std::int64_t rows = group_mode() ? total_q() : seqlen_q;
  const tensor_spans spans = spans_of(p);
  for (auto [what, span] : {std::pair{"Q", spans.q}, {"K", spans.k}, {"V", spans.v}, {"O", spans.o},
                            {"LSE", spans.lse}, {"the bias", spans.bias}})
    if (span > int64_max)
      return fmt::format("{} spans {} elements: beyond 64-bit offsets (2^63 - 1 elements at most)", what,
                         decimal(span));
  {
    std::vector<std::pair<std::int64_t, std::int64_t>> dims{{p.o_strides.seq, rows}, {p.o_strides.head, heads_q}};
    if (!group_mode()) dims.emplace_back(p.o_strides.batch, batch);
    if (!disjoint(hdim_v, dims))
      return fmt::format("strides of O (batch {}, seq {}, head {}) make two (sequence, head) rows of hdim_v = {} "
                         "elements overlap; the output needs disjoint rows", p.o_strides.batch, p.o_strides.seq,
                         p.o_strides.head, hdim_v);
  }
  if (lse) {
    std::vector<std::pair<std::int64_t, std::int64_t>> dims{{p.lse_head_stride, heads_q}};
    if (!group_mode()) dims.emplace_back(p.lse_batch_stride, batch);
    if (!disjoint(rows, dims))
      return fmt::format("LSE strides (batch {}, head {}) make rows of {} values overlap", p.lse_batch_stride,
                         p.lse_head_stride, rows);
  }

  if (mask != fmha_mask::generic && (window_left >= 0 || window_right >= 0))
    return fmt::format("a window (left {}, right {}) needs the generic (sliding-window) mask, not {}", window_left,
                       window_right, to_string(mask));
  if (bias != fmha_bias::elementwise && bias_strides != fmha_strides{})
    return fmt::format("bias strides are set but the bias is {}, not elementwise", to_string(bias));
  if (bias == fmha_bias::elementwise && !bias_per_row && bias_strides.seq != 0)
    return fmt::format("a key bias ([Bb, Hb, 1, Skv]) has one row for every query row: its row stride must be 0 "
                       "(unset), not {}", bias_strides.seq);
  if (bias != fmha_bias::elementwise && !bias_per_row)
    return fmt::format("the bias is {}: only an elementwise bias can be a key bias", to_string(bias));
  if (!std::isfinite(scale)) return fmt::format("scale = {} is not finite", scale);
  if (!std::isfinite(soft_cap) || soft_cap < 0.0f)
    return fmt::format("soft_cap = {} must be positive and finite (0 turns it off)", soft_cap);
  return std::nullopt;
}

std::int64_t fmha_problem::attended_pairs(std::int64_t b) const {
  const std::int64_t sq = seqlen_q_of(b), skv = seqlen_kv_of(b);
  if (sq <= 0 || skv <= 0) return 0;
  const fmha_visibility vis = fmha_visibility::of(*this, sq, skv);
  if (vis.left < 0 && vis.right < 0) return sq * skv;
  std::int64_t n = 0;
  for (std::int64_t i = 0; i < sq; ++i) {
    const std::int64_t d = i + vis.offset;
    const std::int64_t lo = vis.left < 0 ? 0 : std::max<std::int64_t>(0, d - vis.left);
    const std::int64_t hi = vis.right < 0 ? skv - 1 : std::min(skv - 1, d + vis.right);
    n += std::max<std::int64_t>(0, hi - lo + 1);
  }
  return n;
}

double fmha_problem::flops() const {
  if (validate()) return 0.0;
  double pairs = 0.0;
  for (std::int64_t b = 0; b < (group_mode() ? batch : 1); ++b) pairs += double(attended_pairs(b));
  if (!group_mode()) pairs *= double(batch);
  return 2.0 * double(heads_q) * double(hdim_q + hdim_v) * pairs;
}

fmha_tensor_elements tensor_elements(const fmha_problem& problem) {
  if (problem.validate()) return {};
  const fmha_problem p = problem.normalized();
  const tensor_spans s = spans_of(p);  // validate() bounds every one by 2^63 - 1
  const bool q_rows = (p.group_mode() ? p.total_q() : p.seqlen_q) > 0;
  const bool kv_rows = (p.group_mode() ? p.total_kv() : p.seqlen_kv) > 0;
  fmha_tensor_elements e;
  e.q = q_rows ? std::int64_t(s.q) : 0;
  e.o = q_rows ? std::int64_t(s.o) : 0;
  e.lse = q_rows ? std::int64_t(s.lse) : 0;
  e.k = kv_rows ? std::int64_t(s.k) : 0;
  e.v = kv_rows ? std::int64_t(s.v) : 0;
  e.bias = p.bias_elements();
  return e;
}

std::int64_t fmha_problem::bias_elements() const {
  if (bias != fmha_bias::elementwise || seqlen_q <= 0 || seqlen_kv <= 0) return 0;
  return std::int64_t(bias_span(normalized()));  // validate() bounds it by 2^63 - 1
}

double fmha_problem::bytes() const {
  if (validate()) return 0.0;
  const double e = double(element_bytes(qkv)), eo = double(element_bytes(o));
  const double tq = double(total_q()), tk = double(total_kv());
  double b = tq * double(heads_q * hdim_q) * e + tk * double(heads_kv * (hdim_q + hdim_v)) * e +
             tq * double(heads_q * hdim_v) * eo;
  if (lse) b += tq * double(heads_q) * 4.0;
  if (bias == fmha_bias::elementwise) {
    double cells = 0.0;
    if (bias_per_batch && group_mode())
      for (std::int64_t i = 0; i < batch; ++i) cells += double((bias_per_row ? seqlen_q_of(i) : 1) * seqlen_kv_of(i));
    else
      cells = double((bias_per_row ? seqlen_q : 1) * seqlen_kv) * double(bias_per_batch ? batch : 1);
    b += cells * double(bias_per_head ? heads_q : 1) * e;
  }
  return b;
}

}  // namespace kdecl
