// Host (CPU) attention kernels: the fallback backend and what `kdecl run fmha`
// checks on machines without a GPU. One kernel per signature a problem can have:
// fp16, bf16 and fp32; every mask; no bias, ALiBi or an elementwise bias; with
// and without the logit soft-cap and sinks; batch and group mode (96 per dtype).
// Each computes any head dims up to 256 (the key's 256/256 with pad_d and pad_dv)
// and writes the LSE on request (lse is a capability, so every key has it).
#include <array>

#include "kdecl/declare/fmha.hpp"

namespace {

// Every signature of one dtype, as declarations (a constexpr generator).
constexpr auto host_attention(kdecl::dtype d) {
  using namespace kdecl::dsl;
  constexpr kdecl::fmha_mask masks[] = {no_mask, top_left, bottom_right, generic_mask};
  constexpr kdecl::fmha_bias biases[] = {no_bias, alibi, elementwise_bias};
  constexpr kdecl::fmha_mode modes[] = {batch_mode, group_mode};
  std::array<fmha_decl, 96> out{};
  std::size_t n = 0;
  for (auto mode : modes)
    for (auto mask : masks)
      for (auto bias : biases)
        for (int features = 0; features < 4; ++features)
          out[n++] = fmha().dtype(d).hdim(256).mode(mode).mask(mask).bias(bias).lse(true)
                         .logits_soft_cap((features & 1) != 0).sink((features & 2) != 0)
                         .pipeline(host_tiled).tile(64, 128).pad(true, true, true, true);
  return out;
}

}  // namespace

DECL_KERNEL_SET(fmha_host_fp16, targets(host), host_attention(fp16));
DECL_KERNEL_SET(fmha_host_bf16, targets(host), host_attention(bf16));
DECL_KERNEL_SET(fmha_host_fp32, targets(host), host_attention(fp32));
