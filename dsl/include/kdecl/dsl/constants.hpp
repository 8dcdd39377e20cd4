// The DSL's vocabulary: short names for every value a declaration uses, all
// inside kdecl::dsl (the lead's macro opens them with a using-directive inside
// a lambda; nothing is added to the global namespace).
#pragma once

#include "kdecl/conv/grouped_conv_key.hpp"
#include "kdecl/core/enums.hpp"
#include "kdecl/fmha/fmha_key.hpp"
#include "kdecl/gemm/gemm_key.hpp"

namespace kdecl::dsl {

// ---- data types
inline constexpr dtype fp16 = dtype::fp16, bf16 = dtype::bf16, fp32 = dtype::fp32, tf32 = dtype::tf32,
                       fp64 = dtype::fp64, fp8 = dtype::fp8, bf8 = dtype::bf8, int8 = dtype::int8,
                       int32 = dtype::int32, int4 = dtype::int4, pk_fp4 = dtype::pk_fp4;

// ---- layouts (A, B, C)
using kdecl::ccr;
using kdecl::crr;
using kdecl::rcr;
using kdecl::rrr;
using kdecl::rcc;
using kdecl::rrc;
using kdecl::crc;
using kdecl::ccc;
inline constexpr layout row = layout::row, col = layout::col;

// ---- targets
inline constexpr arch_id host = arch_id::host, sm_80 = arch_id::sm_80, sm_86 = arch_id::sm_86,
                         sm_89 = arch_id::sm_89, sm_90 = arch_id::sm_90, gfx908 = arch_id::gfx908,
                         gfx90a = arch_id::gfx90a, gfx942 = arch_id::gfx942, gfx950 = arch_id::gfx950,
                         gfx1100 = arch_id::gfx1100, gfx1200 = arch_id::gfx1200, gfx1201 = arch_id::gfx1201;

// ---- pipelines, epilogues, schedulers
inline constexpr pipeline mem = pipeline::mem, compv3 = pipeline::compv3, compv4 = pipeline::compv4,
                          compv5 = pipeline::compv5, compv6 = pipeline::compv6, comp_async = pipeline::comp_async,
                          preshufflev2 = pipeline::preshufflev2, cp_async = pipeline::cp_async,
                          tma_wgmma = pipeline::tma_wgmma, host_blocked = pipeline::host_blocked,
                          direct_conv = pipeline::direct_conv, gemv = pipeline::gemv;
inline constexpr epilogue direct = epilogue::direct, cshuffle = epilogue::cshuffle;
inline constexpr scheduler intrawave = scheduler::intrawave, interwave = scheduler::interwave,
                           pingpong = scheduler::pingpong;

// ---- GEMM variants and elementwise ops (tanh is tanh_op: ::tanh would clash under a using-directive)
inline constexpr gemm_variant standard = gemm_variant::standard, preshuffle = gemm_variant::preshuffle,
                               block_scaled = gemm_variant::block_scaled;
inline constexpr elementwise pass_through = elementwise::pass_through, multi_d_add = elementwise::multi_d_add,
                             relu = elementwise::relu, gelu = elementwise::gelu, sigmoid = elementwise::sigmoid,
                             tanh_op = elementwise::tanh;

// ---- grouped convolution
// `fwd` names both the forward convolution and the forward attention family.
struct fwd_t {
  constexpr operator conv_direction() const { return conv_direction::fwd; }
  constexpr operator fmha_family() const { return fmha_family::fwd; }
};
inline constexpr fwd_t fwd{};
inline constexpr conv_direction bwd_data = conv_direction::bwd_data, bwd_weight = conv_direction::bwd_weight;
inline constexpr conv_layout nwgc = conv_layout::nwgc, nhwgc = conv_layout::nhwgc, ndhwgc = conv_layout::ndhwgc,
                             gnwc = conv_layout::gnwc, gnhwc = conv_layout::gnhwc, gndhwc = conv_layout::gndhwc;
inline constexpr conv_specialization no_specialization = conv_specialization::none,
                                     filter1x1_pad0 = conv_specialization::filter1x1_pad0,
                                     filter1x1_stride1_pad0 = conv_specialization::filter1x1_stride1_pad0,
                                     stride1 = conv_specialization::stride1,
                                     stride1_rows = conv_specialization::stride1_rows;

// ---- fmha
inline constexpr fmha_family fwd_pagedkv = fmha_family::fwd_pagedkv, fwd_splitkv = fmha_family::fwd_splitkv,
                             fwd_appendkv = fmha_family::fwd_appendkv, batch_prefill = fmha_family::batch_prefill,
                             bwd = fmha_family::bwd;
inline constexpr fmha_mask no_mask = fmha_mask::none, causal = fmha_mask::top_left, top_left = fmha_mask::top_left,
                           bottom_right = fmha_mask::bottom_right, generic_mask = fmha_mask::generic;
inline constexpr fmha_bias no_bias = fmha_bias::none, elementwise_bias = fmha_bias::elementwise,
                           alibi = fmha_bias::alibi;
inline constexpr fmha_mode batch_mode = fmha_mode::batch, group_mode = fmha_mode::group;
inline constexpr fmha_pipeline qr = fmha_pipeline::qr, qr_async = fmha_pipeline::qr_async, qs = fmha_pipeline::qs,
                               qr_async_trload = fmha_pipeline::qr_async_trload,
                               qr_async_trload_v3 = fmha_pipeline::qr_async_trload_v3, v3 = fmha_pipeline::v3,
                               qr_pagedkv = fmha_pipeline::qr_pagedkv,
                               qr_nwarp_sshuffle = fmha_pipeline::qr_nwarp_sshuffle,
                               appendkv = fmha_pipeline::appendkv, mma_sync = fmha_pipeline::mma_sync,
                               tma_wgmma_ws = fmha_pipeline::tma_wgmma_ws, paged_decode = fmha_pipeline::paged_decode,
                               paged_append = fmha_pipeline::paged_append, host_tiled = fmha_pipeline::host_tiled;
// A sliding window (left, right) around the bottom-right diagonal: CK's generic mask.
inline constexpr fmha_mask sliding_window = fmha_mask::generic;

}  // namespace kdecl::dsl
