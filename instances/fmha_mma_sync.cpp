// The mma_sync attention kernels (FlashAttention-2 style, mma.sync m16n8k16) for
// sm_80 and sm_90: fp16 and bf16; head dims 64, 128 and 256 (any smaller multiple
// of 8 runs on them zero-padded: 80 and 96 on 128, 192 on 256); every mask; batch
// and group mode; the LSE on request. Keys that differ only in the mask kind or
// the mode share one compiled kernel (fmha_sm80_config.cuh), so this set builds 12
// kernels per arch. Tiles: 128 x 128 keys on 8 warps for 64, 128 x 64 on 8 warps
// for 128, 64 x 32 on 4 warps for 256 (the accumulator and shared-memory rules of
// arch/fmha_specs.hpp admit them on both targets).
#include <array>

#include "kdecl/declare/fmha.hpp"

namespace {

struct head_config {
  int hdim, m0, n0, warps;
};
inline constexpr head_config heads[] = {{64, 128, 128, 8}, {128, 128, 64, 8}, {256, 64, 32, 4}};

constexpr auto mma_sync_attention(kdecl::dtype d) {
  using namespace kdecl::dsl;
  constexpr kdecl::fmha_mask masks[] = {no_mask, top_left, bottom_right, generic_mask};
  constexpr kdecl::fmha_mode modes[] = {batch_mode, group_mode};
  std::array<fmha_decl, std::size(heads) * 8> out{};
  std::size_t n = 0;
  for (const auto& h : heads)
    for (auto mask : masks)
      for (auto mode : modes)
        out[n++] = fmha().dtype(d).hdim(h.hdim).mask(mask).mode(mode).lse(true).pipeline(mma_sync)
                       .warps(h.warps, 1, 1).tile(h.m0, h.n0).stages(2).pad(true, true, true, true);
  return out;
}

}  // namespace

DECL_KERNEL_SET(fmha_mma_sync_fp16, targets(sm_80, sm_90), mma_sync_attention(fp16));
DECL_KERNEL_SET(fmha_mma_sync_bf16, targets(sm_80, sm_90), mma_sync_attention(bf16));
