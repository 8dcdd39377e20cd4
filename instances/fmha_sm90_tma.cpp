// The tma_wgmma_ws attention kernels (FlashAttention-3 style: TMA + mbarrier K/V
// ring, a producer warpgroup, two consumer warpgroups issuing wgmma for Q K^T
// and P V) for sm_90a: fp16 and bf16; head dims 64 and 128 (any smaller multiple
// of 8 runs on them zero-padded by TMA); every mask; batch and group mode; the
// LSE on request. 128 query rows x 128 keys per tile, a 2-stage K/V ring. Keys
// that differ only in the mask kind or the mode share one compiled kernel
// (fmha_sm90_config.cuh), so the plain set builds 4 kernels per dtype.
// With score modifiers (kernels/fmha/cuda/score_mod.cuh, shared with mma_sync),
// for the models that use them, as fmha_mma_sync_features.cpp declares them:
//   logit soft-cap, head dim 128, causal and window masks (Gemma 2);
//   sinks, head dim 64, causal and window masks (gpt-oss);
//   ALiBi, head dim 128, every mask (BLOOM, MPT);
//   an elementwise bias, head dim 64, every mask.
// 4 more kernels per dtype. Problems it refuses (head dims above 128, strides
// TMA cannot address) go to the mma_sync kernels (fmha_mma_sync*.cpp).
#include <array>

#include "kdecl/declare/fmha.hpp"

namespace {

using kdecl::dsl::fmha_decl;

constexpr kdecl::dsl::fmha_decl tiled(kdecl::dsl::fmha_decl d, int hdim) {
  using namespace kdecl::dsl;
  return d.hdim(hdim).lse(true).pipeline(tma_wgmma_ws).warps(8, 1, 1).tile(128, 128).stages(2)
      .pad(true, true, true, true);
}

constexpr auto tma_attention(kdecl::dtype d) {
  using namespace kdecl::dsl;
  constexpr kdecl::fmha_mask masks[] = {no_mask, top_left, bottom_right, generic_mask};
  constexpr kdecl::fmha_mode modes[] = {batch_mode, group_mode};
  std::array<fmha_decl, 2 * 8> out{};
  std::size_t n = 0;
  for (int hdim : {64, 128})
    for (auto mask : masks)
      for (auto mode : modes)
        out[n++] = tiled(fmha().dtype(d).mask(mask).mode(mode), hdim);
  return out;
}

constexpr auto tma_featured_attention(kdecl::dtype dt) {
  using namespace kdecl::dsl;
  constexpr kdecl::fmha_mask masked[] = {top_left, bottom_right, generic_mask};
  constexpr kdecl::fmha_mask every[] = {no_mask, top_left, bottom_right, generic_mask};
  constexpr kdecl::fmha_mode modes[] = {batch_mode, group_mode};
  std::array<fmha_decl, 2 * (3 * 2 + 4 * 2)> out{};
  std::size_t n = 0;
  for (auto mode : modes) {
    for (auto mask : masked) {
      out[n++] = tiled(fmha().dtype(dt).mask(mask).mode(mode).logits_soft_cap(true), 128);
      out[n++] = tiled(fmha().dtype(dt).mask(mask).mode(mode).sink(true), 64);
    }
    for (auto mask : every) {
      out[n++] = tiled(fmha().dtype(dt).mask(mask).mode(mode).bias(alibi), 128);
      out[n++] = tiled(fmha().dtype(dt).mask(mask).mode(mode).bias(elementwise_bias), 64);
    }
  }
  return out;
}

}  // namespace

DECL_KERNEL_SET(fmha_sm90_tma_fp16, targets(sm_90), tma_attention(fp16));
DECL_KERNEL_SET(fmha_sm90_tma_bf16, targets(sm_90), tma_attention(bf16));
DECL_KERNEL_SET(fmha_sm90_tma_features_fp16, targets(sm_90), tma_featured_attention(fp16));
DECL_KERNEL_SET(fmha_sm90_tma_features_bf16, targets(sm_90), tma_featured_attention(bf16));
