// mma_sync attention kernels with score modifiers, for the models that use them
// (sm_80 and sm_90, fp16 and bf16, batch and group mode, the LSE on request):
//   logit soft-cap, head dims 128 and 256, causal and window masks (Gemma 2);
//   sinks, head dim 64, causal and window masks (gpt-oss);
//   ALiBi, head dim 128, every mask (BLOOM, MPT);
//   an elementwise bias, head dim 64, every mask (encoder padding masks, relative position biases).
// 7 compiled kernels per dtype and arch (fmha_sm80_config.cuh shares one kernel among
// mask kinds and modes); the plain kernels are in fmha_mma_sync.cpp.
#include <array>

#include "kdecl/declare/fmha.hpp"

namespace {

using kdecl::dsl::fmha_decl;

constexpr fmha_decl tiled(fmha_decl d, int hdim) {
  using namespace kdecl::dsl;
  d = d.hdim(hdim).lse(true).pipeline(mma_sync).stages(2).pad(true, true, true, true);
  if (hdim == 64) return d.warps(8, 1, 1).tile(128, 128);
  if (hdim == 128) return d.warps(8, 1, 1).tile(128, 64);
  return d.warps(4, 1, 1).tile(64, 32);
}

constexpr auto featured_attention(kdecl::dtype dt) {
  using namespace kdecl::dsl;
  constexpr kdecl::fmha_mask masked[] = {top_left, bottom_right, generic_mask};
  constexpr kdecl::fmha_mask every[] = {no_mask, top_left, bottom_right, generic_mask};
  constexpr kdecl::fmha_mode modes[] = {batch_mode, group_mode};
  std::array<fmha_decl, 2 * 3 * 2 + 3 * 2 + 4 * 2 + 4 * 2> out{};
  std::size_t n = 0;
  for (auto mode : modes) {
    for (auto mask : masked) {
      for (int hdim : {128, 256}) out[n++] = tiled(fmha().dtype(dt).mask(mask).mode(mode).logits_soft_cap(true), hdim);
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

DECL_KERNEL_SET(fmha_mma_sync_features_fp16, targets(sm_80, sm_90), featured_attention(fp16));
DECL_KERNEL_SET(fmha_mma_sync_features_bf16, targets(sm_80, sm_90), featured_attention(bf16));
