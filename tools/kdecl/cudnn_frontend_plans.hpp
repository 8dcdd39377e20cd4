// The steps every cuDNN graph-API baseline of `kdecl bench` takes once its graph is
// described (cudnn_sdpa.cpp: fused attention; cudnn_conv_graph.cpp: convolutions):
// check each cudnn-frontend call, build the execution plans of heuristics A and
// FALLBACK, and size the chosen plan's workspace. Header-only: both files are also
// built into targets of their own (benchmarks/CMakeLists.txt).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include <cudnn_frontend.h>
#include <fmt/format.h>

#include "kdecl/core/enums.hpp"
#include "kdecl/runtime/buffer.hpp"
#include "kdecl/runtime/device.hpp"

namespace kdecl::cli::cudnn_graph {

namespace fe = cudnn_frontend;

// A new graph of 16-bit data (bf16 where `io` is bf16, else fp16) computed and kept in between in
// fp32: what every baseline here builds on.
inline std::shared_ptr<fe::graph::Graph> new_16bit_graph(dtype io) {
  auto g = std::make_shared<fe::graph::Graph>();
  g->set_io_data_type(io == dtype::bf16 ? fe::DataType_t::BFLOAT16 : fe::DataType_t::HALF)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  return g;
}

// Throws std::runtime_error "cuDNN <who> <what>: <cuDNN's message>" when `e` is an error.
inline void check(fe::error_t e, const char* who, const char* what) {
  if (e.is_bad()) throw std::runtime_error(fmt::format("cuDNN {} {}: {}", who, what, e.get_message()));
}

// Validates `g`, builds its operation graph and the execution plans of heuristics A and
// FALLBACK that support it, with `policy` (HEURISTICS_CHOICE: the first; ALL: every one,
// for autotuning). Returns how many plans were built.
inline int build_plans(fe::graph::Graph& g, cudnnHandle_t handle, fe::BuildPlanPolicy_t policy, const char* who) {
  check(g.validate(), who, "validate");
  check(g.build_operation_graph(handle), who, "build the operation graph");
  check(g.create_execution_plans({fe::HeurMode_t::A, fe::HeurMode_t::FALLBACK}), who, "create execution plans");
  check(g.check_support(handle), who, "check support");
  check(g.build_plans(policy), who, "build plans");
  return int(g.get_execution_plan_count());
}

// The workspace of the plan `g` executes, allocated on `dev` (at least one byte).
inline buffer workspace_of(fe::graph::Graph& g, const device& dev, const char* who) {
  std::int64_t bytes = 0;
  check(g.get_workspace_size(bytes), who, "workspace size");
  return buffer(dev, std::size_t(std::max<std::int64_t>(bytes, 1)));
}

// The engine name of the plan `g` executes ("(unnamed)" when cuDNN gives none).
inline std::string plan_name(fe::graph::Graph& g) {
  std::string name;
  if (g.get_plan_name(name).is_bad()) name = "(unnamed)";
  return name;
}

}  // namespace kdecl::cli::cudnn_graph
