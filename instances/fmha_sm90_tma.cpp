// The tma_wgmma_ws attention kernels (FlashAttention-3 style: TMA + mbarrier K/V
// ring, a producer warpgroup, two consumer warpgroups issuing wgmma for Q K^T
// and P V) for sm_90a: fp16 and bf16; head dims 64 and 128 (any smaller multiple
// of 8 runs on them zero-padded by TMA); every mask; batch and group mode; the
// LSE on request. 128 query rows x 128 keys per tile, a 2-stage K/V ring. Keys
// that differ only in the mask kind or the mode share one compiled kernel
// (fmha_sm90_config.cuh), so this set builds 4 kernels per dtype. Problems it
// refuses (bias, soft-cap, sinks, head dims above 128, strides TMA cannot
// address) go to the mma_sync kernels (fmha_mma_sync*.cpp).
#include <array>

#include "kdecl/declare.hpp"

namespace {

constexpr auto tma_attention(kdecl::dtype d) {
  using namespace kdecl::dsl;
  constexpr kdecl::fmha_mask masks[] = {no_mask, top_left, bottom_right, generic_mask};
  constexpr kdecl::fmha_mode modes[] = {batch_mode, group_mode};
  std::array<fmha_decl, 2 * 8> out{};
  std::size_t n = 0;
  for (int hdim : {64, 128})
    for (auto mask : masks)
      for (auto mode : modes)
        out[n++] = fmha().dtype(d).hdim(hdim).mask(mask).mode(mode).lse(true).pipeline(tma_wgmma_ws)
                       .warps(8, 1, 1).tile(128, 128).stages(2).pad(true, true, true, true);
  return out;
}

}  // namespace

DECL_KERNEL_SET(fmha_sm90_tma_fp16, targets(sm_90), tma_attention(fp16));
DECL_KERNEL_SET(fmha_sm90_tma_bf16, targets(sm_90), tma_attention(bf16));
