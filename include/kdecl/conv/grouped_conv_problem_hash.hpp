// A hash of every field grouped_conv_problem's operator== compares (FNV-1a over the words), for
// maps keyed by a problem: what a kernel plans from a problem alone is planned once per problem
// (dispatch/choice_cache.hpp), since a layer runs with the same problem every training step.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kdecl/conv/grouped_conv_problem.hpp"

namespace kdecl {

struct grouped_conv_problem_hash {
  std::size_t operator()(const grouped_conv_problem& p) const {
    std::uint64_t h = 1469598103934665603ull;
    const auto mix = [&h](std::int64_t x) { h = (h ^ std::uint64_t(x)) * 1099511628211ull; };
    for (std::int64_t x : {std::int64_t(p.dir), p.n, p.c, p.k, p.g, std::int64_t(p.lay ? int(*p.lay) + 1 : 0),
                           std::int64_t(p.in_type), std::int64_t(p.wei_type), std::int64_t(p.out_type),
                           std::int64_t(p.acc_type), std::int64_t(p.compute_type), std::int64_t(p.fusion.act),
                           std::int64_t(p.fusion.bias) | std::int64_t(p.fusion.residual) << 1 |
                               std::int64_t(p.fusion.dynamic) << 2})
      mix(x);
    for (const conv_dims* d : {&p.input_dims, &p.filter_dims, &p.stride_dims, &p.dilation_dims, &p.pad_left_dims,
                               &p.pad_right_dims}) {
      mix(d->count);
      for (std::int64_t x : d->v) mix(x);
    }
    for (const conv_tensor_strides* t : {&p.in_strides, &p.wei_strides, &p.out_strides}) {
      mix(t->n);
      mix(t->g);
      mix(t->c);
      for (std::int64_t x : t->spatial) mix(x);
    }
    return std::size_t(h);
  }
};

}  // namespace kdecl
