// Serving attention over a paged KV cache (kdecl/fmha/paged_kv.hpp; docs/fmha_serving.md),
// run by fmha_paged_dispatcher.
//
// CUDA (sm_80 and sm_90):
//  * decode, one stage (fwd_pagedkv) and split-KV + combine (fwd_splitkv): paged_decode,
//    16 query rows x 64-key tiles, for head dims 64, 128 and 256 (smaller ones padded),
//    fp16 and bf16, a cache in Q's dtype or fp8 (e4m3, per-tensor or per-head scales);
//    every mask, soft-cap and sinks at run time (mask generic, soft-cap and sink keys);
//    the ring depth each head dim had before stages were a key field (2 to 4). Both
//    families of one (dtype, cache, head dim) share one compiled kernel;
//  * append-KV with rotary embedding (fwd_appendkv): paged_append, any head dim to 256;
//  * batch_prefill: the mma_sync forward kernel with paged K/V loads, the forward set's
//    tiles for each head dim (128x128 on 8 warps for 64, 128x64 on 8 warps for 128,
//    64x32 on 4 warps for 256), every mask; and as the forward set, the logit soft-cap at
//    head dims 128 and 256 and sinks at 64 (compiled in: each key runs only the problems with
//    exactly its soft-cap and sinks).
// Host: the exact references (kernels/fmha/host/fmha_paged_kernel_host.hpp) for the same
// families, split-KV in the same 64-key tiles.
#include <array>

#include "kdecl/declare/fmha.hpp"

namespace {

using kdecl::dsl::fmha_decl;

template <std::size_t... N>
constexpr auto concat(const std::array<fmha_decl, N>&... parts) {
  std::array<fmha_decl, (N + ...)> out{};
  std::size_t n = 0;
  ((void)[&] {
    for (const auto& d : parts) out[n++] = d;
  }(), ...);
  return out;
}

// Decode of both families for one dtype, cache (any: Q's dtype) and head dim.
constexpr std::array<fmha_decl, 2> decode(kdecl::dtype d, kdecl::dtype cache, int hdim) {
  using namespace kdecl::dsl;
  std::array<fmha_decl, 2> out{};
  std::size_t n = 0;
  for (auto family : {fwd_pagedkv, fwd_splitkv}) {
    fmha_decl k = fmha().family(family).dtype(d).hdim(hdim).mask(generic_mask).lse(true).logits_soft_cap(true)
                      .sink(true).pipeline(paged_decode).tile(16, 64).pad(true, true, true, true);
    out[n++] = cache == kdecl::dtype::any ? k : k.kv_cache(cache);
  }
  return out;
}

constexpr auto decode_all_hdims(kdecl::dtype d, kdecl::dtype cache) {
  return concat(decode(d, cache, 64), decode(d, cache, 128), decode(d, cache, 256));
}

constexpr std::array<fmha_decl, 1> append(kdecl::dtype d, kdecl::dtype cache) {
  using namespace kdecl::dsl;
  fmha_decl k = fmha().family(fwd_appendkv).dtype(d).hdim(256).pipeline(paged_append).tile(1, 1).pad(true, true, true, true);
  return {cache == kdecl::dtype::any ? k : k.kv_cache(cache)};
}

constexpr auto appends() {
  using kdecl::dtype;
  return concat(append(dtype::fp16, dtype::any), append(dtype::fp16, dtype::fp8), append(dtype::bf16, dtype::any),
                append(dtype::bf16, dtype::fp8));
}

constexpr std::array<fmha_decl, 6> prefill(kdecl::dtype d) {
  using namespace kdecl::dsl;
  auto base = fmha().family(batch_prefill).mode(group_mode).dtype(d).mask(generic_mask).lse(true).pipeline(mma_sync)
                  .stages(2).pad(true, true, true, true);
  const auto d64 = base.hdim(64).tile(128, 128).warps(8, 1, 1);
  const auto d128 = base.hdim(128).tile(128, 64).warps(8, 1, 1);
  const auto d256 = base.hdim(256).tile(64, 32).warps(4, 1, 1);
  return {d64, d128, d256, d128.logits_soft_cap(true), d256.logits_soft_cap(true), d64.sink(true)};
}

constexpr std::array<fmha_decl, 1> host_prefill(kdecl::dtype d) {
  using namespace kdecl::dsl;
  return {fmha().family(batch_prefill).mode(group_mode).dtype(d).hdim(256).mask(generic_mask).lse(true)
              .logits_soft_cap(true).sink(true).pipeline(host_tiled).tile(64, 128).pad(true, true, true, true)};
}

}  // namespace

DECL_KERNEL_SET(fmha_paged_decode_fp16, targets(sm_80, sm_90),
                concat(decode_all_hdims(fp16, kdecl::dtype::any), decode_all_hdims(fp16, fp8)));
DECL_KERNEL_SET(fmha_paged_decode_bf16, targets(sm_80, sm_90),
                concat(decode_all_hdims(bf16, kdecl::dtype::any), decode_all_hdims(bf16, fp8)));
DECL_KERNEL_SET(fmha_paged_append, targets(sm_80, sm_90), appends());
DECL_KERNEL_SET(fmha_paged_prefill, targets(sm_80, sm_90), concat(prefill(fp16), prefill(bf16)));

// Host: the references at head dim 256 (every smaller multiple of 8 runs padded).
DECL_KERNEL_SET(fmha_paged_host_decode, targets(host),
                concat(decode(fp16, kdecl::dtype::any, 256), decode(fp16, fp8, 256), decode(bf16, kdecl::dtype::any, 256),
                       decode(bf16, fp8, 256)));
DECL_KERNEL_SET(fmha_paged_host_append, targets(host), appends());
DECL_KERNEL_SET(fmha_paged_host_prefill, targets(host), concat(host_prefill(fp16), host_prefill(bf16)));
