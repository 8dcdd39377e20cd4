// Serving attention over a paged KV cache on gfx90a (MI200) and gfx942 (MI300)
// (kernels/fmha/hip/fmha_paged_hip.hpp), run by fmha_paged_dispatcher:
//  * decode, one stage (fwd_pagedkv) and split-KV + combine (fwd_splitkv): CK's
//    qr_pagedkv pipeline on kdecl's MFMA attention block, 16 query rows (the query
//    heads sharing a KV head times the query tokens) x 64-key blocks on one wave,
//    16x16 MFMAs, head dims 64, 128 and 256 (smaller multiples of 8 padded), fp16
//    and bf16; every mask, soft-cap and sinks at run time. Both families of one
//    (dtype, head dim) share one compiled kernel;
//  * batch_prefill: the forward set's blocks (128 query rows of one head on 4 waves,
//    32x32 MFMAs) over paged keys, head dims 64 and 128 (and smaller), every mask,
//    soft-cap and sinks;
//  * append-KV with rotary embedding (fwd_appendkv, pipeline appendkv): any head dim
//    to 256.
// The cache holds Q's dtype (no fp8 cache on HIP). Compiled by hipcc for gfx90a and
// gfx940 code objects and linked; never run (no AMD GPU is available to this project):
// see docs/fmha_serving.md.
#include <array>

#include "kdecl/declare/fmha.hpp"

namespace {

using kdecl::dsl::fmha_decl;

constexpr auto decode(kdecl::dtype d) {
  using namespace kdecl::dsl;
  std::array<fmha_decl, 6> out{};
  std::size_t n = 0;
  for (int hdim : {64, 128, 256})
    for (auto family : {fwd_pagedkv, fwd_splitkv})
      out[n++] = fmha().family(family).dtype(d).hdim(hdim).mask(generic_mask).lse(true).logits_soft_cap(true)
                     .sink(true).pipeline(qr_pagedkv).warps(1, 1, 1).warp_tile(16, 16, 32).tile(16, 64, 32)
                     .pad(true, true, true, true);
  return out;
}

constexpr auto prefill(kdecl::dtype d) {
  using namespace kdecl::dsl;
  std::array<fmha_decl, 2> out{};
  std::size_t n = 0;
  for (int hdim : {64, 128})
    out[n++] = fmha().family(batch_prefill).mode(group_mode).dtype(d).hdim(hdim).mask(generic_mask).lse(true)
                   .logits_soft_cap(true).sink(true).pipeline(qr_pagedkv).warps(4, 1, 1).warp_tile(32, 32, 16)
                   .tile(128, 64, 32).pad(true, true, true, true);
  return out;
}

constexpr std::array<fmha_decl, 2> appends() {
  using namespace kdecl::dsl;
  auto base = fmha().family(fwd_appendkv).hdim(256).pipeline(appendkv).tile(1, 1).pad(true, true, true, true);
  return {base.dtype(fp16), base.dtype(bf16)};
}

}  // namespace

DECL_KERNEL_SET(fmha_paged_hip_decode_fp16, targets(gfx90a, gfx942), decode(fp16));
DECL_KERNEL_SET(fmha_paged_hip_decode_bf16, targets(gfx90a, gfx942), decode(bf16));
DECL_KERNEL_SET(fmha_paged_hip_prefill_fp16, targets(gfx90a, gfx942), prefill(fp16));
DECL_KERNEL_SET(fmha_paged_hip_prefill_bf16, targets(gfx90a, gfx942), prefill(bf16));
DECL_KERNEL_SET(fmha_paged_hip_append, targets(gfx90a, gfx942), appends());
