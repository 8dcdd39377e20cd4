// cuDNN's fused attention forward (scaled dot-product attention) for a kdecl
// attention problem: the vendor baseline of `kdecl bench fmha` (CUDA builds with
// cuDNN and the cudnn-frontend headers found; see cmake/FindCUDNN.cmake).
//
// One cudnn-frontend graph per problem: Q [B, Hq, Sq, D], K [B, Hkv, Skv, D],
// V [B, Hkv, Skv, Dv] and O with the problem's own strides (BSHD, BHSD, ...;
// GQA/MQA by fewer K/V heads, no copy), fp32 compute, the problem's softmax
// scale, masks as cuDNN's diagonal band (causal top-left and bottom-right,
// sliding windows), ALiBi, an elementwise bias, attention sinks, the LSE as
// cuDNN's stats, and variable lengths as ragged tensors with a padding mask.
// The execution plan is the first that cuDNN's heuristics (mode A, then the
// fallback list) offer and that builds, as PyTorch's cuDNN SDPA backend does;
// its workspace is allocated once. Building the graph is not timed.
//
// This header stays free of cuDNN's and the frontend's headers (the frontend
// brings its own JSON library; only cudnn_sdpa.cpp includes it).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "kdecl/fmha/fmha_problem.hpp"
#include "kdecl/runtime/device.hpp"

namespace kdecl::cli {

class cudnn_sdpa {
 public:
  // Why cuDNN's SDPA cannot compute the (normalized, valid) problem, or empty
  // (soft-cap, per-batch ALiBi slopes, fp32 inputs, ...). cuDNN may still refuse
  // a problem this accepts: the constructor then throws with its reason.
  static std::optional<std::string> unsupported(const fmha_problem& normalized);

  // Builds the graph and its plan, allocates the workspace (and, for variable
  // lengths, the sequence lengths and ragged offsets) on `dev`. Throws
  // std::runtime_error with cuDNN's message when it refuses or fails.
  cudnn_sdpa(const device& dev, const fmha_problem& normalized);
  ~cudnn_sdpa();
  cudnn_sdpa(const cudnn_sdpa&) = delete;
  cudnn_sdpa& operator=(const cudnn_sdpa&) = delete;

  // Queues the attention on the default stream with the problem's tensors
  // (q, k, v, o; lse, bias, sinks when the problem has them).
  void run(const fmha_args& args);

  const std::string& plan() const;  // the engine cuDNN chose
  std::size_t workspace_bytes() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace kdecl::cli
