// The sm_90 attention kernels the soft-cap probe times: bf16, causal, batch mode,
// head dims 128 and 256, each with and without the logit soft-cap (the shipped
// declarations of instances/fmha_sm90_tma.cpp, nothing else). The probe's
// executables compile this file once per KDECL_FMHA_SM90_EXP2_POLY_EVERY.
#include <array>

#include "kdecl/declare/fmha.hpp"

namespace {

constexpr auto probe_kernels() {
  using namespace kdecl::dsl;
  auto tiled = [](fmha_decl d, int hdim, int keys) {
    return d.hdim(hdim, hdim).lse(true).pipeline(tma_wgmma_ws).warps(8, 1, 1).tile(128, keys).stages(2)
        .pad(true, true, true, true);
  };
  const fmha_decl causal = fmha().dtype(bf16).mask(bottom_right).mode(batch_mode);
  return std::array{tiled(causal, 128, 128), tiled(fmha_decl(causal).logits_soft_cap(true), 128, 128),
                    tiled(causal, 256, 80), tiled(fmha_decl(causal).logits_soft_cap(true), 256, 80)};
}

}  // namespace

DECL_KERNEL_SET(softcap_probe_bf16, targets(sm_90), probe_kernels());
