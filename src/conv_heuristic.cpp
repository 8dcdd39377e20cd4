#include "kdecl/conv/conv_heuristic.hpp"

#include <algorithm>
#include <vector>

#include "kdecl/dsl/conv_rules.hpp"
#include "kdecl/kernels/conv/cuda/sm80/conv_bwd_plan.hpp"

namespace kdecl {

gemm_key implicit_gemm_key(const grouped_conv_key& key) {
  gemm_key g = dsl::conv_rules::implicit_gemm(key);
  g.sig.compute = g.sig.a;
  // The narrowest of the three tensors' accesses bounds the kernel's issue rate.
  auto bytes = [](int elements, dtype d) { return std::max(1, elements * std::max(1, bits_of(d) / 8)); };
  g.algo.vector_bytes = std::min({bytes(key.algo.vector_in, key.sig.in), bytes(key.algo.vector_wei, key.sig.wei),
                                  bytes(key.algo.vector_out, key.sig.out)});
  return g;
}

namespace {

// Sum over the stride phases of (input positions in the phase) x (taps reaching them), per dimension.
double phase_work(std::int64_t size, std::int64_t filter, std::int64_t stride, std::int64_t dilation,
                  std::int64_t pad) {
  std::vector<double> rows(std::size_t(stride), 0.0), taps(std::size_t(stride), 0.0);
  for (std::int64_t i = 0; i < size; ++i) rows[std::size_t((i + pad) % stride)] += 1;
  for (std::int64_t f = 0; f < filter; ++f) taps[std::size_t(f * dilation % stride)] += 1;
  double work = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) work += rows[r] * taps[r];
  return work;
}

}  // namespace

problem_profile conv_problem_profile(const grouped_conv_problem& p) {
  const auto e = p.implicit_gemm();
  problem_profile pp{double(e.m), double(e.n), double(e.k), double(p.g), p.bytes()};
  if (p.dir == conv_direction::bwd_data) {
    // Depth per input pixel, averaged over the stride phases.
    double work = 1;
    for (int s = 0; s < 3; ++s)
      work *= phase_work(p.input_dims[s], p.filter_dims[s], p.stride_dims[s], p.dilation_dims[s], p.pad_left_dims[s]);
    pp.k = std::max(1.0, double(p.k_per_group()) * work / double(std::max<std::int64_t>(1, p.input_pixels())));
  }
  return pp;
}

problem_profile conv_problem_profile(const grouped_conv_key& key, const grouped_conv_problem& p, int processors) {
  problem_profile pp = conv_problem_profile(p);
  if (key.sig.dir == conv_direction::bwd_weight && key.algo.pipe == pipeline::cp_async && key.algo.arch != arch_id::host) {
    // The cp_async bwd_weight splits its long depth into `s` ranges (conv_bwd_plan.hpp): s times
    // the batch of GEMMs s times shallower, plus the fp32 partials written and read once.
    const int s =
        kernels::cuda::sm80::bwd_weight_gpu_splits(p, key.algo.tile.m, key.algo.tile.n, key.algo.tile.k, processors);
    if (s > 1) {
      pp.dram_bytes += 8.0 * s * pp.batch * pp.m * pp.n;  // partials: 4 bytes written, 4 read
      pp.k = std::max(1.0, pp.k / s);
      pp.batch *= s;
    }
  }
  return pp;
}

double estimate_microseconds(const grouped_conv_key& key, const grouped_conv_problem& p) {
  const gemm_key g = implicit_gemm_key(key);
  const machine_model mm = machine_model_of(g);
  return estimate_microseconds(profile_of(g, mm), conv_problem_profile(key, p, mm.processors));
}

}  // namespace kdecl
