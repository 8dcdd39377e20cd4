// batch_prefill over a paged KV cache on sm_90a (kdecl/fmha/paged_kv.hpp; docs/fmha_serving.md):
// the tma_wgmma_ws forward kernel with its K/V tiles loaded page by page through TMA
// (kernels/fmha/cuda/decode/paged_prefill_sm90.cuh), the forward set's tiles (128 query rows;
// 128 keys, 80 at head dim 256), every mask, the LSE, fp16 and bf16, head dims 64, 128 and 256
// (smaller multiples of 8 padded). Deeper K/V rings than the forward set's 2 stages where shared
// memory allows: small pages mean many small copies per tile, whose latency 2 stages did not
// hide (H200, 2026-12-02, pages of 16 against the forward kernel on contiguous K/V: head dim
// 128 0.70-0.77x with 2 stages, 0.88-0.96x with 3 (one Q buffer then fits); 64: 0.65-0.80x with
// 2, 0.84-0.93x with 4; 256 keeps 2: 0.81-0.86x). Pages of 8 rows or more; the mma_sync prefill
// (instances/fmha_paged.cpp) serves smaller ones and sm_80. Built with the pingpong schedule only
// (the forward set's plain and overlap are A/B switches).
// The features the forward set ships, on the same tiles: the logit soft-cap at head dims 128 and
// 256 (Gemma 2) and sinks at 64 (gpt-oss); each compiled in, so a key runs only the problems with
// exactly its soft-cap and sinks.
#include <array>

#include "kdecl/declare/fmha.hpp"

namespace {

constexpr std::array<kdecl::dsl::fmha_decl, 6> prefill(kdecl::dtype d) {
  using namespace kdecl::dsl;
  auto base = fmha().family(batch_prefill).mode(group_mode).dtype(d).mask(generic_mask).lse(true)
                  .pipeline(tma_wgmma_ws).warps(8, 1, 1).pad(true, true, true, true);
  const auto d64 = base.hdim(64).tile(128, 128).stages(4);
  const auto d128 = base.hdim(128).tile(128, 128).stages(3);
  const auto d256 = base.hdim(256).tile(128, 80).stages(2);
  return {d64, d128, d256, d128.logits_soft_cap(true), d256.logits_soft_cap(true), d64.sink(true)};
}

}  // namespace

DECL_KERNEL_SET(fmha_paged_prefill_sm90_fp16, targets(sm_90), prefill(fp16));
DECL_KERNEL_SET(fmha_paged_prefill_sm90_bf16, targets(sm_90), prefill(bf16));
