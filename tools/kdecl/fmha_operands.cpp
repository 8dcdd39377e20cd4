#include "fmha_operands.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kdecl/fmha/fmha_tensor_elements.hpp"
#include "kdecl/numeric/host_storage.hpp"
#include "bench_timing.hpp"

namespace kdecl::cli {

fmha_spans spans_of(const fmha_problem& p) {
  const fmha_tensor_elements e = tensor_elements(p);
  auto at_least_one = [](std::int64_t n) { return std::max<std::size_t>(std::size_t(n), 1); };
  return {at_least_one(e.q), at_least_one(e.k), at_least_one(e.v), at_least_one(e.o), at_least_one(e.lse),
          at_least_one(e.bias)};
}

fmha_args fmha_operands::args(std::size_t i) {
  auto& s = sets[i % sets.size()];
  fmha_args a;
  a.q = s[0].data();
  a.k = s[1].data();
  a.v = s[2].data();
  a.o = s[3].data();
  if (p->lse) a.lse = static_cast<float*>(lse.data());
  if (p->bias == fmha_bias::elementwise) a.bias = bias.data();
  if (p->bias == fmha_bias::alibi) a.alibi_slopes = static_cast<const float*>(slopes.data());
  if (p->sinks) a.sinks = static_cast<const float*>(sinks.data());
  if (p->group_mode()) {
    a.cu_seqlens_q = static_cast<const std::int32_t*>(cu_q.data());
    a.cu_seqlens_kv = static_cast<const std::int32_t*>(cu_kv.data());
  }
  return a;
}

double operand_bytes(const fmha_problem& p) {
  const auto s = spans_of(p);
  return double(s.q + s.k + s.v + s.bias) * double(dtype_size_bytes(p.qkv)) + double(s.o) * double(dtype_size_bytes(p.o));
}

fmha_operands make_operands(const device& dev, const fmha_problem& p, std::size_t l2_bytes) {
  fmha_operands ops;
  ops.p = &p;
  const auto s = spans_of(p);
  const std::size_t count = rotation_count(std::size_t(operand_bytes(p)), l2_bytes);
  for (std::size_t i = 0; i < count; ++i)
    ops.sets.push_back({random_buffer(dev, s.q, p.qkv, 10 * i + 1), random_buffer(dev, s.k, p.qkv, 10 * i + 2),
                        random_buffer(dev, s.v, p.qkv, 10 * i + 3), buffer(dev, s.o * dtype_size_bytes(p.o))});
  ops.lse = buffer(dev, s.lse * sizeof(float));
  ops.bias = random_buffer(dev, s.bias, p.qkv, 7);
  // ALiBi's slopes 2^(-8 (h + 1) / H) (also what cuDNN uses); sinks in [-1, 1].
  std::vector<float> slopes;
  for (std::int64_t i = 0; i < (p.alibi_per_batch ? p.batch : 1) * p.heads_q; ++i)
    slopes.push_back(float(std::exp2(-8.0 * double(i % p.heads_q + 1) / double(p.heads_q))));
  ops.slopes = buffer(dev, std::max<std::size_t>(slopes.size(), 1) * sizeof(float));
  if (!slopes.empty()) ops.slopes.upload(slopes);
  ops.sinks = random_buffer(dev, std::size_t(p.heads_q), dtype::fp32, 8);
  auto upload = [&](buffer& dst, const std::vector<std::int32_t>& v) {
    dst = buffer(dev, std::max<std::size_t>(v.size(), 1) * sizeof(std::int32_t));
    if (!v.empty()) dst.upload(v);
  };
  upload(ops.cu_q, p.cu_seqlens_q);
  upload(ops.cu_kv, p.cu_seqlens_kv);
  return ops;
}

}  // namespace kdecl::cli
