// The HIP/MFMA attention forward (CK's qr pipeline, kernels/fmha/hip/) for gfx90a
// (MI200) and gfx942 (MI300): fp16 and bf16, head dims 64 and 128 (any smaller
// multiple of 8 runs on them zero-padded), every mask, batch and group mode, the LSE.
// CK's qr tiles: 128 query rows on 4 waves (32 each, one 32x32 MFMA row tile),
// 64 or 128 keys per block, K and V through LDS in 32-wide slices. Keys that differ
// only in the mask kind or the mode share one compiled kernel, so this set builds 8
// kernels per arch. Compiled by hipcc for gfx90a and gfx940 code objects and linked;
// never run (no AMD GPU is available to this project): see docs/fmha.md.
// Kept small on purpose: CI compiles every HIP translation unit for two offload archs.
#include <array>

#include "kdecl/declare/fmha.hpp"

namespace {

struct head_config {
  int hdim, n0;
};
inline constexpr head_config heads[] = {{64, 64}, {128, 128}};

constexpr auto mfma_attention(kdecl::dtype d) {
  using namespace kdecl::dsl;
  constexpr kdecl::fmha_mask masks[] = {no_mask, top_left, bottom_right, generic_mask};
  constexpr kdecl::fmha_mode modes[] = {batch_mode, group_mode};
  std::array<fmha_decl, std::size(heads) * 8> out{};
  std::size_t n = 0;
  for (const auto& h : heads)
    for (auto mask : masks)
      for (auto mode : modes)
        out[n++] = fmha().dtype(d).hdim(h.hdim).mask(mask).mode(mode).lse(true).pipeline(qr)
                       .warps(4, 1, 1).warp_tile(32, 32, 16).tile(128, h.n0, 32).pad(true, true, true, true);
  return out;
}

}  // namespace

DECL_KERNEL_SET(fmha_hip_mfma_fp16, targets(gfx90a, gfx942), mfma_attention(fp16));
DECL_KERNEL_SET(fmha_hip_mfma_bf16, targets(gfx90a, gfx942), mfma_attention(bf16));
