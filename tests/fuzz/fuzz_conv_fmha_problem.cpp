// Fuzzes the convolution and attention problem builders (grouped_conv_problem,
// fmha_problem) and their validation, and what consumes a valid problem:
// normalization, the derived sizes, and the dispatchers' selection on the host.
//
// Invariants (a violation aborts, which libFuzzer reports as a crash):
//  - validate() never crashes, overflows or throws, and explains every refusal;
//  - a valid problem stays valid once normalized, and normalizing is idempotent;
//  - the derived values of a valid problem (elements, spans, flops, bytes) are
//    finite and not negative;
//  - select() on the host backend neither crashes nor throws (it picks a kernel
//    or explains why none; the fuzz build registers no convolution or attention
//    kernel, so it exercises the refusals).
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kdecl/conv/conv_dispatcher.hpp"
#include "kdecl/fmha/fmha_dispatcher.hpp"

namespace {

using namespace kdecl;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_conv_fmha_problem: invariant broken: %s\n", what.c_str());
  std::abort();
}

template <class E>
E pick(FuzzedDataProvider& in) {
  return static_cast<E>(in.ConsumeIntegralInRange<std::size_t>(0, enum_count<E>() - 1));
}

// Sizes: mostly small, sometimes large, huge or extreme (negative included).
std::int64_t size(FuzzedDataProvider& in, std::int64_t small_max = 16) {
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0: case 1: case 2: return in.ConsumeIntegralInRange<std::int64_t>(1, small_max);
    case 3: return in.ConsumeIntegralInRange<std::int64_t>(-3, 1 << 20);
    case 4: return std::int64_t{1} << in.ConsumeIntegralInRange<int>(0, 62);
    default: return in.ConsumeIntegral<std::int64_t>();
  }
}

// A stride: packed (0) most of the time, else anything.
std::int64_t stride(FuzzedDataProvider& in) {
  return in.ConsumeIntegralInRange<int>(0, 3) == 0 ? size(in, 4096) : 0;
}

void check_finite(double v, const char* what) {
  if (!std::isfinite(v) || v < 0) fail(std::string(what) + " is negative or not finite");
}

void fuzz_conv(FuzzedDataProvider& in) {
  grouped_conv_problem p;
  p.direction(pick<conv_direction>(in)).batch(size(in, 4)).channels(size(in), size(in)).groups(size(in, 4));
  const int rank = in.ConsumeIntegralInRange<int>(1, 3);
  auto dims = [&](std::int64_t small_max) {
    conv_dims d;
    d.count = rank;
    for (int i = 0; i < 3; ++i) d.v[std::size_t(i)] = i < 3 - rank ? 1 : size(in, small_max);
    return d;
  };
  p.input_size(dims(12)).filter_size(dims(3));
  if (in.ConsumeBool()) p.stride(dims(3));
  if (in.ConsumeBool()) p.dilation(dims(2));
  if (in.ConsumeBool()) {
    auto pad = [&] {
      conv_dims d;
      d.count = rank;
      for (int i = 0; i < 3; ++i) d.v[std::size_t(i)] = i < 3 - rank ? 0 : in.ConsumeIntegralInRange<std::int64_t>(-2, 4);
      return d;
    };
    p.padding(pad(), pad());
  }
  if (in.ConsumeBool()) p.layout(pick<conv_layout>(in));
  p.dtypes(pick<dtype>(in), pick<dtype>(in), pick<dtype>(in));
  if (in.ConsumeBool()) p.accumulator(pick<dtype>(in));
  if (in.ConsumeBool()) {
    auto strides = [&] {
      conv_tensor_strides s;
      s.n = stride(in);
      s.g = stride(in);
      s.c = in.ConsumeBool() ? 0 : in.ConsumeIntegralInRange<std::int64_t>(-1, 2);
      for (auto& v : s.spatial) v = stride(in);
      return s;
    };
    p.input_strides(strides()).weight_strides(strides()).output_strides(strides());
  }
  if (in.ConsumeBool()) {  // a fused epilogue, now and then one that validation must refuse
    conv_fusion f;
    f.act = pick<elementwise>(in);
    f.bias = in.ConsumeBool();
    f.residual = in.ConsumeBool();
    f.dynamic = in.ConsumeIntegralInRange<int>(0, 15) == 0;
    p.fuse(f);
  }

  const auto error = p.validate();
  if (error) {
    if (error->empty()) fail("conv validate() refused without a reason");
    return;
  }
  if (p.fusion.fused() && (p.dir != conv_direction::fwd || p.fusion.dynamic || !conv_activation(p.fusion.act)))
    fail("validate() accepted a fused epilogue it must refuse: " + describe(p.fusion));
  const grouped_conv_problem n = p.normalized();
  if (auto e = n.validate()) fail("a valid convolution problem is invalid once normalized: " + *e);
  if (auto e = n.normalized().validate()) fail("normalizing twice made the problem invalid: " + *e);
  if (n.normalized().lay != n.lay || n.normalized().in_strides != n.in_strides ||
      n.normalized().out_strides != n.out_strides || n.normalized().wei_strides != n.wei_strides)
    fail("conv normalized() is not idempotent");
  for (conv_tensor t : {conv_tensor::input, conv_tensor::weight, conv_tensor::output}) {
    if (n.elements(t) <= 0) fail("a tensor of a valid problem has no elements");
    if (n.span(t) < n.elements(t)) fail("a tensor spans fewer elements than it holds");
  }
  check_finite(p.flops(), "conv flops()");
  check_finite(p.bytes(), "conv bytes()");
  (void)n.implicit_gemm();
  (void)n.exceeds_32bit_offsets();
  conv_dispatcher host(device::host());
  const auto sel = host.select(p, nullptr, in.ConsumeBool());
  (void)sel.explain(3);
}

void fuzz_fmha(FuzzedDataProvider& in) {
  fmha_problem p;
  const auto d = pick<dtype>(in);
  if (in.ConsumeBool()) p.dtype(d); else p.dtypes(d, pick<dtype>(in));
  p.heads(size(in, 8), in.ConsumeBool() ? size(in, 8) : 0).head_dims(size(in, 64), size(in, 64));
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
    std::vector<std::int32_t> lq, lkv;
    const int count = in.ConsumeIntegralInRange<int>(0, 6);
    for (int i = 0; i < count; ++i) {
      lq.push_back(in.ConsumeIntegralInRange<std::int32_t>(in.ConsumeBool() ? -2 : 0, 40));
      lkv.push_back(in.ConsumeIntegralInRange<std::int32_t>(in.ConsumeBool() ? -2 : 0, 40));
    }
    if (in.ConsumeBool() && !lkv.empty()) lkv.pop_back();  // mismatched counts: validate() refuses them
    p.varlen(lq, lkv);
  } else {
    p.sizes(size(in, 4), size(in, 64), size(in, 64));
    if (in.ConsumeBool()) p.bhsd();
    if (in.ConsumeBool()) {
      auto s = [&] { return fmha_strides{stride(in), stride(in), stride(in)}; };
      p.strides(s(), s(), s(), s());
    }
  }
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: break;
    case 1: p.causal(in.ConsumeBool() ? fmha_mask::top_left : fmha_mask::bottom_right); break;
    default: {
      // Window sides: mostly small (negative: unbounded), sometimes anything.
      auto side = [&] {
        return in.ConsumeBool() ? in.ConsumeIntegralInRange<std::int64_t>(-2, 40) : in.ConsumeIntegral<std::int64_t>();
      };
      const std::int64_t left = side();
      p.sliding_window(left, side());
      break;
    }
  }
  switch (in.ConsumeIntegralInRange<int>(0, 2)) {
    case 0: break;
    case 1: p.alibi(in.ConsumeBool()); break;
    default: p.elementwise_bias(in.ConsumeBool(), in.ConsumeBool()); break;
  }
  p.softmax_scale(in.ConsumeFloatingPoint<float>()).logits_soft_cap(in.ConsumeFloatingPoint<float>());
  p.with_sinks(in.ConsumeBool());
  if (in.ConsumeBool()) p.return_lse(true, stride(in), stride(in));

  const auto error = p.validate();
  if (error) {
    if (error->empty()) fail("fmha validate() refused without a reason");
    return;
  }
  const fmha_problem n = p.normalized();
  if (auto e = n.validate()) fail("a valid attention problem is invalid once normalized: " + *e);
  const fmha_problem nn = n.normalized();
  if (nn.q_strides != n.q_strides || nn.k_strides != n.k_strides || nn.v_strides != n.v_strides ||
      nn.o_strides != n.o_strides || nn.lse_batch_stride != n.lse_batch_stride ||
      nn.lse_head_stride != n.lse_head_stride)
    fail("fmha normalized() is not idempotent");
  check_finite(p.bytes(), "fmha bytes()");
  (void)n.signature();
  (void)n.effective_scale();
  // flops() and selection visit every query row of a windowed mask: only for sizes that take milliseconds.
  if (n.seqlen_q > (1 << 16) || n.seqlen_kv > (1 << 16) || n.batch > 64) return;
  check_finite(p.flops(), "fmha flops()");
  for (std::int64_t b = 0; b < n.batch; ++b)
    if (n.attended_pairs(b) < 0) fail("negative attended pairs");
  fmha_dispatcher host(device::host());
  const auto sel = host.select(p, nullptr, in.ConsumeBool());
  (void)sel.explain(3);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  if (in.ConsumeBool()) fuzz_conv(in); else fuzz_fmha(in);
  return 0;
}
