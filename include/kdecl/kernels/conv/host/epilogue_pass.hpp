// conv_epilogue_pass<backend::host>: the fused forward epilogue as a pass of its own
// (kernels/conv/epilogue_pass.hpp), in fp32 as the host kernels' fused store computes it
// (fwd_operands.hpp), rows spread over the thread pool.
#pragma once

#include <algorithm>
#include <atomic>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/epilogue_pass.hpp"
#include "kdecl/kernels/gemm/host/epilogue.hpp"
#include "kdecl/kernels/host/thread_pool.hpp"
#include "kdecl/numeric/host_storage.hpp"

namespace kdecl::kernels {

template <>
struct conv_epilogue_pass<backend::host> {
  template <dtype Out>
  static status run(const grouped_conv_problem& p, const void* result, const grouped_conv_args& a, void* /*stream*/) {
    using T = host_storage_t<Out>;
    const conv_epilogue_rows rows = epilogue_rows_of(p);
    const auto* r = static_cast<const T*>(result);
    const auto* bias = static_cast<const T*>(a.bias);
    const auto* residual = static_cast<const T*>(a.residual);
    auto* out = static_cast<T*>(a.out);
    constexpr std::int64_t rows_per_item = 64;
    const std::int64_t items = (rows.rows() + rows_per_item - 1) / rows_per_item;
    std::atomic<std::int64_t> next{0};
    auto& pool = host::thread_pool::instance();
    pool.run(int(std::min<std::int64_t>(items, pool.size())), [&](int) {
      for (std::int64_t item; (item = next.fetch_add(1)) < items;)
        for (std::int64_t row = item * rows_per_item; row < std::min(rows.rows(), (item + 1) * rows_per_item); ++row) {
          std::int64_t g = 0;
          const std::int64_t at = rows.row_offset(row, g);
          for (std::int64_t k = 0; k < rows.kg; ++k) {
            float v = host::load_real<float>(r[at + k]);
            if (rows.fuse.bias) v += host::load_real<float>(bias[g * rows.kg + k]);
            if (rows.fuse.residual) v += host::load_real<float>(residual[at + k]);
            out[at + k] = host::store_as<T>(host::apply_elementwise(rows.fuse.act, v));
          }
        }
    });
    return status::ok();
  }
};

}  // namespace kdecl::kernels
