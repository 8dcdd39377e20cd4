// cuDNN's fused attention over a paged KV cache (cudnn-frontend's paged attention: K and V
// containers [pages, Hkv, page rows, D] read through per-sequence page tables, cuDNN 9.5 and
// newer), for a decode problem of kdecl's serving families: the like-for-like vendor baseline of
// `kdecl bench fmha --paged` and kdecl_bench_decode, beside cuDNN on a contiguous cache
// (cudnn_sdpa.hpp). The same pages, block table and per-sequence lengths as kdecl's kernel
// reads; Q [B, Hq, Sq, D] and O with the problem's strides; a padding mask with the lengths
// (cuDNN's paged route asks for one); causal and windowed masks as cuDNN's diagonal band; sinks
// and the LSE where the problem has them. The execution plan is the first cuDNN's heuristics
// offer that builds (as cudnn_sdpa); building it is not timed.
//
// Like cudnn_sdpa.hpp, free of cuDNN's headers (only cudnn_paged_sdpa.cpp includes them).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "kdecl/fmha/paged_kv.hpp"
#include "kdecl/runtime/device.hpp"

namespace kdecl::cli {

class cudnn_paged_sdpa {
 public:
  // Why cuDNN's paged attention cannot compute the (normalized, valid) problem here, or empty:
  // an fp8 cache, a soft-cap, the flat page-list form, batch_prefill, sinks with one query token
  // (cuDNN's decode mode takes none). cuDNN may still refuse what this accepts: the constructor
  // then throws with its reason.
  static std::optional<std::string> unsupported(const fmha_paged_problem& normalized);

  // Builds the graph and its plan on `dev` and allocates its workspace and the query lengths.
  // Throws std::runtime_error with cuDNN's message when it refuses or fails.
  cudnn_paged_sdpa(const device& dev, const fmha_paged_problem& normalized);
  ~cudnn_paged_sdpa();
  cudnn_paged_sdpa(const cudnn_paged_sdpa&) = delete;
  cudnn_paged_sdpa& operator=(const cudnn_paged_sdpa&) = delete;

  // Queues the attention on the default stream over the problem's tensors (q, o, k_cache,
  // v_cache, block_table, seqlens_kv; lse and sinks when the problem has them).
  void run(const fmha_paged_args& args);

  const std::string& plan() const;  // the engine cuDNN chose

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace kdecl::cli
