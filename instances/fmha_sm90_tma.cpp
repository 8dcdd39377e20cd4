// The tma_wgmma_ws attention kernels (FlashAttention-3 style: TMA + mbarrier K/V
// ring, a producer warpgroup, two consumer warpgroups issuing wgmma for Q K^T
// and P V) for sm_90a: fp16 and bf16; head dims 64, 128, 192/128 (q/v, DeepSeek
// MLA's prefill) and 256 (any smaller multiple of 8 runs on the next one
// zero-padded by TMA); every mask; batch and group mode; the LSE on request.
// 128 query rows per block; 128 keys per tile, 80 at head dim 256 (FlashAttention-3's
// choice: O's 128 and S's 40 accumulators per thread fit the consumers' 240
// registers, and Q + two 80-key K/V stages fit 227 KiB); a 2-stage K/V ring.
// Keys that differ only in the mask kind or the mode share one compiled kernel
// (fmha_sm90_config.cuh), so the plain set builds 8 kernels per dtype.
// With score modifiers (kernels/fmha/cuda/score_mod.cuh, shared with mma_sync),
// for the models that use them, as fmha_mma_sync_features.cpp declares them:
//   logit soft-cap, head dims 128 and 256, causal and window masks (Gemma 2);
//   sinks, head dim 64, causal and window masks (gpt-oss);
//   ALiBi, head dim 128, every mask (BLOOM, MPT);
//   an elementwise bias, head dim 64, every mask.
// 7 more kernels per dtype. Problems it refuses (head dims above 256, strides
// TMA cannot address) go to the mma_sync kernels (fmha_mma_sync*.cpp).
#include <array>

#include "kdecl/declare/fmha.hpp"

namespace {

using kdecl::dsl::fmha_decl;

// Head dims (q, v) and the keys per tile that go with them.
struct head_dims {
  int q, v, keys;
};
inline constexpr head_dims hd64{64, 64, 128}, hd128{128, 128, 128}, hd192_128{192, 128, 128}, hd256{256, 256, 80};

constexpr kdecl::dsl::fmha_decl tiled(kdecl::dsl::fmha_decl d, head_dims h) {
  using namespace kdecl::dsl;
  return d.hdim(h.q, h.v).lse(true).pipeline(tma_wgmma_ws).warps(8, 1, 1).tile(128, h.keys).stages(2)
      .pad(true, true, true, true);
}

constexpr auto tma_attention(kdecl::dtype d) {
  using namespace kdecl::dsl;
  constexpr kdecl::fmha_mask masks[] = {no_mask, top_left, bottom_right, generic_mask};
  constexpr kdecl::fmha_mode modes[] = {batch_mode, group_mode};
  std::array<fmha_decl, 4 * 8> out{};
  std::size_t n = 0;
  for (head_dims h : {hd64, hd128, hd192_128, hd256})
    for (auto mask : masks)
      for (auto mode : modes)
        out[n++] = tiled(fmha().dtype(d).mask(mask).mode(mode), h);
  return out;
}

constexpr auto tma_featured_attention(kdecl::dtype dt) {
  using namespace kdecl::dsl;
  constexpr kdecl::fmha_mask masked[] = {top_left, bottom_right, generic_mask};
  constexpr kdecl::fmha_mask every[] = {no_mask, top_left, bottom_right, generic_mask};
  constexpr kdecl::fmha_mode modes[] = {batch_mode, group_mode};
  std::array<fmha_decl, 2 * (3 * 3 + 4 * 2)> out{};
  std::size_t n = 0;
  for (auto mode : modes) {
    for (auto mask : masked) {
      out[n++] = tiled(fmha().dtype(dt).mask(mask).mode(mode).logits_soft_cap(true), hd128);
      out[n++] = tiled(fmha().dtype(dt).mask(mask).mode(mode).logits_soft_cap(true), hd256);
      out[n++] = tiled(fmha().dtype(dt).mask(mask).mode(mode).sink(true), hd64);
    }
    for (auto mask : every) {
      out[n++] = tiled(fmha().dtype(dt).mask(mask).mode(mode).bias(alibi), hd128);
      out[n++] = tiled(fmha().dtype(dt).mask(mask).mode(mode).bias(elementwise_bias), hd64);
    }
  }
  return out;
}

}  // namespace

DECL_KERNEL_SET(fmha_sm90_tma_fp16, targets(sm_90), tma_attention(fp16));
DECL_KERNEL_SET(fmha_sm90_tma_bf16, targets(sm_90), tma_attention(bf16));
DECL_KERNEL_SET(fmha_sm90_tma_features_fp16, targets(sm_90), tma_featured_attention(fp16));
DECL_KERNEL_SET(fmha_sm90_tma_features_bf16, targets(sm_90), tma_featured_attention(bf16));
