// The fused multi-head attention kernel key: signature (what is computed) and
// algorithm (how), structural, with the DSL's wildcard conventions. The tile is
// two-stage like CK Tile's: stage 0 computes S = Q K^T in m0 x n0 blocks over k0
// slices of hdim_q (k0max = hdim_q padded), stage 1 computes O += P V in
// m0 x n1 blocks over k1 slices of the n0 keys.
#pragma once

#include <array>
#include <string_view>

#include "kdecl/core/enums.hpp"
#include "kdecl/gemm/gemm_key.hpp"

namespace kdecl {

enum class fmha_family : std::uint8_t { fwd, fwd_pagedkv, fwd_splitkv, fwd_appendkv, batch_prefill, bwd };
enum class fmha_mask : std::uint8_t { none, top_left, bottom_right, generic };  // causal = top_left
enum class fmha_bias : std::uint8_t { none, elementwise, alibi };
enum class fmha_mode : std::uint8_t { batch, group };  // group: variable sequence lengths
enum class fmha_pipeline : std::uint8_t {
  qr, qr_async, qs, qr_async_trload, qr_async_trload_v3, v3, qr_pagedkv, qr_nwarp_sshuffle, appendkv, any
};

namespace names {
inline constexpr std::array<std::string_view, 6> fmha_family{"fwd", "fwd_pagedkv", "fwd_splitkv",
                                                             "fwd_appendkv", "batch_prefill", "bwd"};
inline constexpr std::array<std::string_view, 4> fmha_mask{"none", "top_left", "bottom_right", "generic"};
inline constexpr std::array<std::string_view, 3> fmha_bias{"none", "elementwise", "alibi"};
inline constexpr std::array<std::string_view, 2> fmha_mode{"batch", "group"};
inline constexpr std::array<std::string_view, 10> fmha_pipeline{
    "qr", "qr_async", "qs", "qr_async_trload", "qr_async_trload_v3", "v3", "qr_pagedkv",
    "qr_nwarp_sshuffle", "appendkv", "*"};
}  // namespace names
template <> struct enum_table<fmha_family> { static constexpr const auto& names = names::fmha_family; };
template <> struct enum_table<fmha_mask> { static constexpr const auto& names = names::fmha_mask; };
template <> struct enum_table<fmha_bias> { static constexpr const auto& names = names::fmha_bias; };
template <> struct enum_table<fmha_mode> { static constexpr const auto& names = names::fmha_mode; };
template <> struct enum_table<fmha_pipeline> { static constexpr const auto& names = names::fmha_pipeline; };

struct fmha_signature {
  fmha_family family = fmha_family::fwd;
  dtype qkv = dtype::fp16;   // Q, K and V
  dtype o = dtype::fp16;     // output (fp8 attention may write fp16/bf16/fp32)
  int hdim_q = 128, hdim_v = 128;
  fmha_mask mask = fmha_mask::none;
  fmha_bias bias = fmha_bias::none;
  fmha_mode mode = fmha_mode::batch;
  layout v_layout = layout::row;
  bool lse = false, dropout = false, logits_soft_cap = false;
  constexpr bool operator==(const fmha_signature&) const = default;
};

struct fmha_tile {
  int m0 = any_int, n0 = any_int, k0 = any_int;  // stage 0 (Q K^T)
  int n1 = 0, k1 = 0;                            // stage 1 (P V); 0: n1 = hdim_v, k1 = k0
  int k0max = 0;                                 // 0: hdim_q rounded up per the arch table
  constexpr bool operator==(const fmha_tile&) const = default;
};

struct fmha_algorithm {
  fmha_tile tile{};
  mnk warps0{4, 1, 1}, warps1{4, 1, 1};                    // warps per block, stage 0 / 1
  mnk warp_tile0{32, 32, 16}, warp_tile1{32, 32, 16};      // MMA tile per warp, stage 0 / 1
  fmha_pipeline pipe = fmha_pipeline::any;
  tristate pad_s = tristate::yes, pad_sk = tristate::yes, pad_d = tristate::yes, pad_dv = tristate::yes;
  int block_per_cu = -1;  // occupancy hint; -1: kernel's choice
  arch_id arch = arch_id::host;
  constexpr bool operator==(const fmha_algorithm&) const = default;
};

struct fmha_key {
  fmha_signature sig{};
  fmha_algorithm algo{};
  constexpr bool operator==(const fmha_key&) const = default;
};

}  // namespace kdecl
