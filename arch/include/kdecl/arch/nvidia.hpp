// NVIDIA targets (sm_80, sm_86, sm_89, sm_90): hardware facts, matrix
// instructions, reference-part figures, and what the cp_async and tma_wgmma
// pipelines offer: exactly the keys their kernels build (see "pipeline offers").
#pragma once

#include <array>

#include "kdecl/arch/arch_spec.hpp"

namespace kdecl::arch::nvidia {

// ---- matrix instructions ------------------------------------------------------
// mma.sync exists on every target; sm_89 adds fp8 (e4m3/e5m2) shapes; sm_90 adds
// wgmma (a warpgroup of 4 warps, M = 64, N = 8..256 in steps of 8; listed at N = 256).
inline constexpr mma_instruction mma_sm80[] = {
    {"mma.sync", dtype::fp16, dtype::fp16, dtype::fp32, {16, 8, 16}},
    {"mma.sync", dtype::bf16, dtype::bf16, dtype::fp32, {16, 8, 16}},
    {"mma.sync", dtype::tf32, dtype::tf32, dtype::fp32, {16, 8, 8}},
    {"mma.sync", dtype::int8, dtype::int8, dtype::int32, {16, 8, 32}},
    {"mma.sync", dtype::fp64, dtype::fp64, dtype::fp64, {8, 8, 4}},
};
inline constexpr mma_instruction mma_sm89[] = {
    {"mma.sync", dtype::fp16, dtype::fp16, dtype::fp32, {16, 8, 16}},
    {"mma.sync", dtype::bf16, dtype::bf16, dtype::fp32, {16, 8, 16}},
    {"mma.sync", dtype::tf32, dtype::tf32, dtype::fp32, {16, 8, 8}},
    {"mma.sync", dtype::int8, dtype::int8, dtype::int32, {16, 8, 32}},
    {"mma.sync", dtype::fp8, dtype::fp8, dtype::fp32, {16, 8, 32}},
    {"mma.sync", dtype::bf8, dtype::bf8, dtype::fp32, {16, 8, 32}},
    {"mma.sync", dtype::fp64, dtype::fp64, dtype::fp64, {8, 8, 4}},
};
inline constexpr mma_instruction mma_sm90[] = {
    {"mma.sync", dtype::fp16, dtype::fp16, dtype::fp32, {16, 8, 16}},
    {"mma.sync", dtype::bf16, dtype::bf16, dtype::fp32, {16, 8, 16}},
    {"mma.sync", dtype::tf32, dtype::tf32, dtype::fp32, {16, 8, 8}},
    {"mma.sync", dtype::int8, dtype::int8, dtype::int32, {16, 8, 32}},
    {"mma.sync", dtype::fp8, dtype::fp8, dtype::fp32, {16, 8, 32}},
    {"mma.sync", dtype::bf8, dtype::bf8, dtype::fp32, {16, 8, 32}},
    {"mma.sync", dtype::fp64, dtype::fp64, dtype::fp64, {8, 8, 4}},
    {"wgmma.mma_async", dtype::fp16, dtype::fp16, dtype::fp32, {64, 256, 16}},
    {"wgmma.mma_async", dtype::bf16, dtype::bf16, dtype::fp32, {64, 256, 16}},
    {"wgmma.mma_async", dtype::tf32, dtype::tf32, dtype::fp32, {64, 256, 8}},
    {"wgmma.mma_async", dtype::fp8, dtype::fp8, dtype::fp32, {64, 256, 32}},
    {"wgmma.mma_async", dtype::bf8, dtype::bf8, dtype::fp32, {64, 256, 32}},
    {"wgmma.mma_async", dtype::int8, dtype::int8, dtype::int32, {64, 256, 32}},
};

// ---- reference parts (dense peaks from NVIDIA's datasheets; int8 in TOP/s) -----
// A100 SXM4 80GB (GA100, 108 SMs): 2039 GB/s HBM2e.
inline constexpr peak_rate peaks_a100[] = {
    {dtype::fp16, 312.0}, {dtype::bf16, 312.0}, {dtype::tf32, 156.0}, {dtype::fp32, 19.5},
    {dtype::int8, 624.0}, {dtype::fp64, 19.5}};
// A10 (GA102, 72 SMs; the data-centre sm_86 part, full-rate fp32 accumulate): 600 GB/s GDDR6.
inline constexpr peak_rate peaks_a10[] = {
    {dtype::fp16, 125.0}, {dtype::bf16, 125.0}, {dtype::tf32, 62.5}, {dtype::fp32, 31.2},
    {dtype::int8, 250.0}};
// L40 (AD102, 142 SMs; the data-centre sm_89 part): 864 GB/s GDDR6.
inline constexpr peak_rate peaks_l40[] = {
    {dtype::fp16, 181.05}, {dtype::bf16, 181.05}, {dtype::tf32, 90.5}, {dtype::fp32, 90.5},
    {dtype::fp8, 362.1}, {dtype::int8, 362.1}};
// H100 SXM5 80GB (GH100, 132 SMs): 3350 GB/s HBM3.
inline constexpr peak_rate peaks_h100_sxm[] = {
    {dtype::fp16, 989.4}, {dtype::bf16, 989.4}, {dtype::tf32, 494.7}, {dtype::fp32, 66.9},
    {dtype::fp8, 1978.9}, {dtype::int8, 1978.9}, {dtype::fp64, 66.9}};

// ---- pipeline offers -----------------------------------------------------------
// Exactly what the kernels build (narrower is allowed, wider never):
//   cp_async  -- include/kdecl/kernels/gemm/cuda/sm80/config.cuh, sm80::key_unsupported_reason
//   tma_wgmma -- include/kdecl/kernels/gemm/cuda/sm90/gemm_sm90_config.cuh, sm90::key_unsupported_reason
//   gemv      -- include/kdecl/kernels/gemm/cuda/gemv/gemv_config.cuh, gemv::key_unsupported_reason
// tests/unit/table_kernel_agreement_test.cu expands wildcard sets over these
// tables and checks every key against these functions.
inline constexpr std::uint32_t four_layouts = layouts(rcr, rrr, crr, ccr);
// 8-bit operands must be K-major (ldmatrix cannot transpose bytes): A row, B column; C either.
inline constexpr std::uint32_t k_major_layouts = layouts(rcr, rcc);
inline constexpr std::uint32_t c_fp16 = bits(dtype::fp16, dtype::fp32);
inline constexpr std::uint32_t c_bf16 = bits(dtype::bf16, dtype::fp32);
inline constexpr std::uint32_t c_16bit = bits(dtype::fp16, dtype::bf16, dtype::fp32);
inline constexpr std::uint32_t c_fp8 = bits(dtype::fp16, dtype::bf16, dtype::fp32);

// cp_async: a warp computes (m, n) in {16, 32, 64}^2 with k = the instruction's k
// (16 for 16-bit, 8 for tf32, 32 for 8-bit, 1 for SIMT fp32).
constexpr std::array<shape3, 9> cp_async_tiles(int k) {
  return {{{16, 16, k}, {16, 32, k}, {16, 64, k}, {32, 16, k}, {32, 32, k},
           {32, 64, k}, {64, 16, k}, {64, 32, k}, {64, 64, k}}};
}
inline constexpr auto cp_async_tiles_k16 = cp_async_tiles(16);
inline constexpr auto cp_async_tiles_k8 = cp_async_tiles(8);
inline constexpr auto cp_async_tiles_k32 = cp_async_tiles(32);
inline constexpr auto cp_async_tiles_k1 = cp_async_tiles(1);

// Exact fp32 (SIMT FFMA): no preshuffle; a warp's region is a 4 x 8 lane grid of 4x4 runs.
inline constexpr dtype_offer cp_async_simt_fp32{dtype::fp32, dtype::fp32, dtype::fp32, dtype::fp32,
                                                bits(dtype::fp32), all_layouts, cp_async_tiles_k1, {},
                                                unshuffled_variants, {16, 32}};
inline constexpr dtype_offer cp_async_dtypes_sm80[] = {
    {dtype::fp16, dtype::fp16, dtype::fp32, dtype::fp16, c_fp16, all_layouts, cp_async_tiles_k16, {}},
    {dtype::bf16, dtype::bf16, dtype::fp32, dtype::bf16, c_bf16, all_layouts, cp_async_tiles_k16, {}},
    {dtype::fp32, dtype::fp32, dtype::fp32, dtype::tf32, bits(dtype::fp32), all_layouts, cp_async_tiles_k8, {}},
    cp_async_simt_fp32,
    {dtype::int8, dtype::int8, dtype::int32, dtype::int8, bits(dtype::int32), k_major_layouts, cp_async_tiles_k32, {}},
};
// sm_89 and sm_90 add fp8/bf8 (any e4m3/e5m2 mix; compute = A's type), block-scaled too (rcr:
// sm80/block_scales.cuh; the fallback of the TMA kernels for rows that are not 16-byte multiples).
inline constexpr dtype_offer cp_async_dtypes_sm89[] = {
    cp_async_dtypes_sm80[0], cp_async_dtypes_sm80[1], cp_async_dtypes_sm80[2], cp_async_dtypes_sm80[3],
    cp_async_dtypes_sm80[4],
    {dtype::fp8, dtype::fp8, dtype::fp32, dtype::fp8, c_fp8, k_major_layouts, cp_async_tiles_k32, {}, block_scaled_fp8_variants},
    {dtype::fp8, dtype::bf8, dtype::fp32, dtype::fp8, c_fp8, k_major_layouts, cp_async_tiles_k32, {}, block_scaled_fp8_variants},
    {dtype::bf8, dtype::fp8, dtype::fp32, dtype::bf8, c_fp8, k_major_layouts, cp_async_tiles_k32, {}, block_scaled_fp8_variants},
    {dtype::bf8, dtype::bf8, dtype::fp32, dtype::bf8, c_fp8, k_major_layouts, cp_async_tiles_k32, {}, block_scaled_fp8_variants},
};
inline constexpr shape3 cp_async_warps[] = {{1, 1, 1}, {1, 2, 1}, {1, 4, 1}, {2, 1, 1},
                                            {2, 2, 1}, {2, 4, 1}, {4, 1, 1}, {4, 2, 1}};
inline constexpr int cp_async_tile_mn[] = {16, 32, 64, 128, 256};
inline constexpr int cp_async_tile_k[] = {8, 16, 32, 64, 128};
// 16, 8, 4: cp.async copies; 2, 1: register-staged loads (cp.async has no narrower
// size) for data aligned to one 16-bit or 8-bit element only.
inline constexpr int cp_async_vectors[] = {16, 8, 4, 2, 1};
inline constexpr shape2 no_cluster[] = {{1, 1}};
// tma_wgmma: one block, or two sharing B (2x1, along M) or A (1x2, along N) by TMA multicast.
inline constexpr shape2 tma_wgmma_clusters[] = {{1, 1}, {2, 1}, {1, 2}};

// tma_wgmma: warp_tile (16, N, 16): each warp of a consumer warpgroup owns 16 rows
// of one wgmma m64nNk16; warps (4,1,1) or (8,1,1) consumers plus a producer warpgroup.
// 8-bit operands use wgmma k32 and tf32 k8 (32 bytes of K per instruction either
// way); wgmma reads them only K-major from shared memory (no transpose immediate),
// so they are offered in layout rcr (and rcc, below) alone, standard variant only
// (sm90/gemm_sm90_config.cuh, sm90_operand_class). fp8/bf8 mix freely, compute =
// A's type; per-tensor scales fold into alpha (alpha = scale_a * scale_b, divided
// by C's scale for fp8 output).
// 16-bit operands also take N = 160: tile counts between 128 x 192's and 128 x 128's, for the shapes
// whose 128 x 192 tiles leave the last wave mostly empty (1576 x 3072: 208 tiles on 132 SMs; 260 of
// 128 x 160 fill two waves). N-major B moves in 64-column boxes, so N = 160 needs B K-major
// (mn_major_box_bytes below).
inline constexpr shape3 wgmma_tiles_k16[] = {{16, 64, 16}, {16, 128, 16}, {16, 160, 16}, {16, 192, 16}, {16, 256, 16}};
inline constexpr shape3 wgmma_tiles_k32[] = {{16, 64, 32}, {16, 128, 32}, {16, 192, 32}, {16, 256, 32}};
inline constexpr shape3 wgmma_tiles_k8[] = {{16, 64, 8}, {16, 128, 8}, {16, 192, 8}, {16, 256, 8}};
// Column-major C runs as C^T = B^T A^T on the row-major-C kernel (A and B exchanged and read
// as their transposes: sm90/column_major_c.cuh): every 16-bit layout; for the K-major types
// rcc, whose transpose is rcr. No multicast cluster with column-major C (the DSL's cluster rule).
inline constexpr std::uint32_t wgmma_k_major_layouts = layouts(rcr, rcc);
inline constexpr std::uint32_t c_wgmma_fp8 = bits(dtype::fp16, dtype::bf16, dtype::fp32, dtype::fp8);
inline constexpr std::uint32_t standard_only = bits(gemm_variant::standard);
// fp8/bf8 also block-scaled (1 x 128 A scales, 128 x 128 B scales; sm90/block_scaled_mainloop.cuh), rcr only.
inline constexpr std::uint32_t standard_or_block_scaled = bits(gemm_variant::standard, gemm_variant::block_scaled);
inline constexpr dtype_offer tma_wgmma_dtypes[] = {
    {dtype::fp16, dtype::fp16, dtype::fp32, dtype::fp16, c_16bit, all_layouts, wgmma_tiles_k16, {}, unshuffled_variants},
    {dtype::bf16, dtype::bf16, dtype::fp32, dtype::bf16, c_16bit, all_layouts, wgmma_tiles_k16, {}, unshuffled_variants},
    {dtype::fp8, dtype::fp8, dtype::fp32, dtype::fp8, c_wgmma_fp8, wgmma_k_major_layouts, wgmma_tiles_k32, {}, standard_or_block_scaled},
    {dtype::fp8, dtype::bf8, dtype::fp32, dtype::fp8, c_wgmma_fp8, wgmma_k_major_layouts, wgmma_tiles_k32, {}, standard_or_block_scaled},
    {dtype::bf8, dtype::fp8, dtype::fp32, dtype::bf8, c_wgmma_fp8, wgmma_k_major_layouts, wgmma_tiles_k32, {}, standard_or_block_scaled},
    {dtype::bf8, dtype::bf8, dtype::fp32, dtype::bf8, c_wgmma_fp8, wgmma_k_major_layouts, wgmma_tiles_k32, {}, standard_or_block_scaled},
    {dtype::int8, dtype::int8, dtype::int32, dtype::int8, bits(dtype::int32, dtype::int8), wgmma_k_major_layouts,
     wgmma_tiles_k32, {}, standard_only},
    {dtype::fp32, dtype::fp32, dtype::fp32, dtype::tf32, bits(dtype::fp32), wgmma_k_major_layouts, wgmma_tiles_k8, {},
     standard_only},
};
inline constexpr shape3 tma_wgmma_warps[] = {{4, 1, 1}, {8, 1, 1}};
inline constexpr int tma_wgmma_tile_m[] = {64, 128, 192, 256};
inline constexpr int tma_wgmma_tile_n[] = {64, 128, 160, 192, 256};
inline constexpr int tma_wgmma_tile_k[] = {32, 64, 128};  // one 128-byte row: tf32, 16-bit, 8-bit
inline constexpr int tma_wgmma_vectors[] = {16};

// tma_wgmma's ring depth is bounded by shared memory only: the largest depth
// that fits the smallest tile (64 x 64, direct epilogue) under the formula.
constexpr int tma_wgmma_max_stages(int smem_opt_in) {
  int s = 2;
  while ((s + 1) * (64 + 64) * 128 + 1024 + (16 * (s + 1) + 16 + 127) / 128 * 128 <= smem_opt_in) ++s;
  return s;
}

constexpr pipeline_caps cp_async(int smem_opt_in, std::span<const dtype_offer> dtypes) {
  pipeline_caps c{pipeline::cp_async, dtypes, cp_async_warps, 0, {16, 16, 8}, {16, 16, 8}, false, 0,
                  cp_async_tile_mn, cp_async_tile_mn, cp_async_tile_k, {2, 5, 3},
                  bits(epilogue::direct, epilogue::cshuffle), bits(scheduler::intrawave),
                  cp_async_vectors, 16, smem_formula::cp_async_ring_or_staging, smem_opt_in, no_cluster, false};
  c.variants = block_scaled_fp8_variants;  // preshuffle per dtype offer (tensor-core types), block_scaled for fp8
  c.block_scaled_layouts = layouts(rcr);     // as tma_wgmma: the same problems, at any alignment
  c.block_scaled_k_tiles_per_block = true;   // k tiles of 32 or 64 summed per 128-deep scale block
  c.block_scaled_tile_n_in_one_block = true;  // one B scale per block tile
  c.tile_chunk_bytes = 16;
  c.swizzle_rows = true;
  // The kernel's "stage sizes are multiples of 128 bytes" follows from 16-byte chunks
  // and the 16-element tile alignment (16 rows x 16*j bytes), so it needs no rule.
  c.preshuffle_k_bytes = 64;
  // Convolutions as implicit GEMMs with cp.async gathers (kernels/conv/cuda/sm80/:
  // conv_fwd_unsupported_reason, conv_bwd_unsupported_reason): forward, backward-data
  // (stride phases) and backward-weight (split-K); fp16 and bf16 data, and fp32
  // multiplied in tf32 or exactly (FFMA: the GEMM's SIMT warp); every layout,
  // vectors of 4 bytes or more.
  c.conv = {bits(conv_direction::fwd, conv_direction::bwd_data, conv_direction::bwd_weight),
            bits(conv_layout::nwgc, conv_layout::nhwgc, conv_layout::ndhwgc, conv_layout::gnwc, conv_layout::gnhwc,
                 conv_layout::gndhwc),
            bits(dtype::fp16, dtype::bf16, dtype::fp32), bits(conv_specialization::none), 1, bits(scheduler::intrawave),
            /*min_vector_bytes=*/4};  // cp.async copies 4, 8 or 16 bytes
  // The forward kernel fuses a bias, a residual and an activation on the GEMM's multi_d epilogue.
  c.conv.fused_specializations = bits(conv_specialization::none);
  c.epilogue_any_alignment = true;  // sm80/epilogue.cuh: store width chosen per run at run time
  c.index_bits = index_bits_32_64;
  return c;
}
constexpr pipeline_caps tma_wgmma(int smem_opt_in) {
  pipeline_caps c{pipeline::tma_wgmma, tma_wgmma_dtypes, tma_wgmma_warps, 4, {64, 64, 8}, {16, 8, 8}, true, 128,
                  tma_wgmma_tile_m, tma_wgmma_tile_n, tma_wgmma_tile_k, {2, tma_wgmma_max_stages(smem_opt_in), 4},
                  // intrawave: the consumers share one tile; pingpong: two consumers, a tile each
                  bits(epilogue::direct, epilogue::cshuffle), bits(scheduler::intrawave, scheduler::pingpong),
                  tma_wgmma_vectors, 16, smem_formula::tma_ring_barriers_strips, smem_opt_in, tma_wgmma_clusters,
                  false};
  c.tile_max = {256, 256, 128};
  c.max_accumulators = 128;  // per consumer thread; more spills (setmaxnreg budget)
  c.mn_major_box_bytes = 128;  // M/N-major operands move in 64-element boxes of 16-bit data (load_operand_tile)
  c.variants = unshuffled_variants | bits(gemm_variant::block_scaled);  // per dtype offer: block_scaled for fp8/bf8
  c.block_scaled_layouts = layouts(rcr);  // a column-major C would exchange A's and B's scale blocks
  // vector_bytes 16 is TMA's rule for A and B; C and D go through a direct-store
  // epilogue that takes any alignment (sm90/epilogue_math.cuh).
  c.epilogue_any_alignment = true;
  c.index_bits = index_bits_32_64;
  // Convolutions as implicit GEMMs on these consumers and epilogues, the operands
  // loaded into the swizzled ring by TMA (im2col mode) or a cp.async gather: forward,
  // backward-data as one forward convolution per stride phase (any stride, stored
  // through a pixel map) and backward-weight as the crr GEMM of
  // dY and the gathered input, its depth split (kernels/conv/cuda/sm90/:
  // conv_sm90_unsupported_reason): 16-bit data, every layout, 16-byte gathers, the
  // cooperative (intrawave) or pingpong schedule. Every operand may be a one-element vector (any C/G and
  // K/G: the RGB stem's 3, odd filter counts): the kernels copy those operands into
  // packed buffers with C/G and K/G padded to a multiple of 8, and results back out
  // (conv/cuda/channel_padded.cuh); backward-data reads the weights through its flipped
  // copy and stores dx through a pixel map anyway. Forward and backward-data convolutions in
  // channels-last layouts may merge up to 16 neighbouring groups into one GEMM (block-diagonal
  // weights: kernels/conv/merged_groups.hpp), for few channels per group. The stride1
  // specialization (2-D and 3-D forward and backward-data, one group per GEMM) loads each
  // tile's input halo once for all filter taps (kernels/conv/halo_tiles.hpp,
  // sm90/conv_fwd_halo_sm90.cuh; backward-data of stride 1 is one forward convolution). The
  // stride1_rows specialization (2-D forward and backward-data, one group per GEMM, 64 channels
  // per group) streams input rows and computes whole output rows with resident weights
  // (sm90/conv_fwd_rows_sm90.cuh).
  c.conv = {bits(conv_direction::fwd, conv_direction::bwd_data, conv_direction::bwd_weight),
            bits(conv_layout::nwgc, conv_layout::nhwgc, conv_layout::ndhwgc, conv_layout::gnwc, conv_layout::gnhwc,
                 conv_layout::gndhwc),
            bits(dtype::fp16, dtype::bf16), bits(conv_specialization::none, conv_specialization::stride1, conv_specialization::stride1_rows),
            /*max_groups_to_merge=*/16,
            /*schedulers=*/bits(scheduler::intrawave, scheduler::pingpong), /*min_vector_bytes=*/16,
            /*element_operands=*/0b111,
            /*merge_directions=*/bits(conv_direction::fwd, conv_direction::bwd_data),
            /*merge_layouts=*/bits(conv_layout::nwgc, conv_layout::nhwgc, conv_layout::ndhwgc),
            /*stride1_directions=*/bits(conv_direction::fwd, conv_direction::bwd_data), /*stride1_ndims=*/0b1100u,
            /*stride1_rows_directions=*/bits(conv_direction::fwd, conv_direction::bwd_data),
            /*stride1_rows_ndims=*/0b0100u, /*stride1_rows_pixel_tiles=*/0b1110u, /*stride1_rows_min_stages=*/5};
  // A fused forward epilogue (bias, residual, activation) on the GEMM's epilogues: the im2col
  // and halo kernels (the rows kernel stores transposed tiles from registers: not fused).
  c.conv.fused_specializations = bits(conv_specialization::none, conv_specialization::stride1);
  // The convolutions' tiles: multiples of 64 along N (output channels, or the weight gradient's
  // columns read N-major by backward-weight); N = 160 is the GEMM's, for K-major B only.
  c.conv.tile_n_multiple = 64;
  // 8-bit floating input and weights (fp8 e4m3, bf8 e5m2, mixed), forward, written in 16 or 32
  // bits: each group's GEMM on the fp8 wgmma kernels (K-major A and B, as forward's are), A the
  // input gathered into the workspace by an im2col kernel where it is not a 1x1 layer's input as
  // it lies (sm90/conv_fwd_fp8_sm90.cuh); every layout, any C/G and K/G (one-element vectors),
  // one group per GEMM, no specialization and no fused epilogue.
  c.conv.fp8_forward_outputs = bits(dtype::bf16, dtype::fp16, dtype::fp32);
  c.conv.fp8_forward_plain = true;
  return c;
}

// gemv: GEMMs with a few rows of A (decoding one or a few tokens through a linear layer)
// (kernels/gemm/cuda/gemv/): each block computes tile_n columns of C for every row of A
// (M <= tile_m), its warps_k warps splitting K; each lane streams 16-byte chunks of B's
// K-contiguous columns (a linear layer's weights as stored) and of A's rows. The warp tile names
// the arithmetic: (1, 1, 256) CUDA cores, up to 8 rows and 8 columns a block; (16, 8, 32)
// mma.sync m16n8k16, 16 rows and 8-column groups. 16-bit A and B, A row-major and B
// column-major, C either; no shared-memory ring (a reduction array of 16 KiB at most, static).
inline constexpr shape3 gemv_warp_tiles[] = {{1, 1, 256}, {16, 8, 32}};
inline constexpr dtype_offer gemv_dtypes[] = {
    {dtype::fp16, dtype::fp16, dtype::fp32, dtype::fp16, c_fp16, k_major_layouts, gemv_warp_tiles, {},
     bits(gemm_variant::standard)},
    {dtype::bf16, dtype::bf16, dtype::fp32, dtype::bf16, c_bf16, k_major_layouts, gemv_warp_tiles, {},
     bits(gemm_variant::standard)},
};
inline constexpr shape3 gemv_warps[] = {{1, 1, 4}, {1, 1, 8}};
inline constexpr int gemv_tile_m[] = {1, 2, 4, 8, 16};
inline constexpr int gemv_tile_n[] = {1, 2, 4, 8, 16, 32};
inline constexpr int gemv_tile_k[] = {256, 512, 1024, 2048, 4096, 8192};
inline constexpr int gemv_vectors[] = {16};
constexpr pipeline_caps gemv() {
  pipeline_caps c{pipeline::gemv, gemv_dtypes, gemv_warps, 0, {1, 1, 256}, {1, 1, 256}, false, 0,
                  gemv_tile_m, gemv_tile_n, gemv_tile_k, {1, 1, 1},
                  bits(epilogue::direct), bits(scheduler::intrawave),
                  gemv_vectors, 16, smem_formula::none, 0, no_cluster, false};
  c.variants = bits(gemm_variant::standard);
  // 16 rows only on mma.sync: the CUDA-core tile's chunk cap below leaves it 8 rows and 8 columns at most.
  c.tile_max = {16, 32, 8192};
  c.max_chunks_in_flight = 16;    // 64 registers of loads; with 64 accumulators at most, no spills
  c.epilogue_any_alignment = true;  // C element by element (vector_bytes binds A and B)
  return c;
}

// direct_conv: the direct convolution (kernels/conv/cuda/direct/, direct_unsupported_reason):
// 1-D and 2-D channels-last forward and (depthwise only, checked per problem) backward data
// and backward weight, 16-bit data; 16-, 8-, 4- and 2-byte channel vectors. Targets with TMA
// (sm_90) also stage depthwise forward tiles through it (stages 2), up to 8 output rows per thread.
inline constexpr int direct_conv_threads[] = {64, 128, 256, 512};
inline constexpr int direct_conv_vectors[] = {16, 8, 4, 2};
constexpr direct_conv_caps direct_conv(int smem_opt_in, bool tma) {
  return {bits(conv_direction::fwd, conv_direction::bwd_data, conv_direction::bwd_weight), bits(conv_layout::nwgc, conv_layout::nhwgc), bits(dtype::fp16, dtype::bf16),
          direct_conv_threads, /*max_tile_pixels=*/1024, /*max_tile_channels=*/256, /*max_pixels_per_thread=*/8,
          direct_conv_vectors, smem_opt_in, /*staged_max_rows_per_thread=*/tma ? 8 : 0};
}

// ---- targets ------------------------------------------------------------------
// Max opt-in shared memory per block (cudaDevAttrMaxSharedMemoryPerBlockOptin).
inline constexpr int smem_sm80 = 166912, smem_sm86 = 101376, smem_sm89 = 101376, smem_sm90 = 232448;

inline constexpr pipeline_caps pipelines_sm80[] = {cp_async(smem_sm80, cp_async_dtypes_sm80), gemv()};
inline constexpr pipeline_caps pipelines_sm86[] = {cp_async(smem_sm86, cp_async_dtypes_sm80), gemv()};
inline constexpr pipeline_caps pipelines_sm89[] = {cp_async(smem_sm89, cp_async_dtypes_sm89), gemv()};
inline constexpr pipeline_caps pipelines_sm90[] = {cp_async(smem_sm90, cp_async_dtypes_sm89), tma_wgmma(smem_sm90),
                                                   gemv()};

constexpr arch_spec nv_spec(arch_id id, std::string_view family, std::string_view target_family,
                            std::string_view description, int smem, bool fp8, std::string_view part,
                            int sms, double gbs, std::span<const peak_rate> peaks,
                            std::span<const mma_instruction> mma, std::span<const pipeline_caps> pipes) {
  return {id, backend::cuda, family, target_family, description, 32, 1024, smem, 65536, fp8,
          part, sms, gbs, peaks, {}, {}, {}, mma, {}, pipes, /*kernels_available=*/true,
          direct_conv(smem, /*tma=*/id == arch_id::sm_90)};
}

inline constexpr arch_spec sm_80 = nv_spec(arch_id::sm_80, "ampere", "sm_8x", "A100 class (GA100)", smem_sm80,
    false, "A100 SXM4 80GB", 108, 2039.0, peaks_a100, mma_sm80, pipelines_sm80);
inline constexpr arch_spec sm_86 = nv_spec(arch_id::sm_86, "ampere", "sm_8x", "RTX 3090 / A10 class (GA102)",
    smem_sm86, false, "A10", 72, 600.0, peaks_a10, mma_sm80, pipelines_sm86);
inline constexpr arch_spec sm_89 = nv_spec(arch_id::sm_89, "ada", "sm_8x", "L40 / RTX 4090 class (AD102)",
    smem_sm89, true, "L40", 142, 864.0, peaks_l40, mma_sm89, pipelines_sm89);
inline constexpr arch_spec sm_90 = nv_spec(arch_id::sm_90, "hopper", "sm_9x", "H100 / H200 class (GH100)",
    smem_sm90, true, "H100 SXM5 80GB", 132, 3350.0, peaks_h100_sxm, mma_sm90, pipelines_sm90);

}  // namespace kdecl::arch::nvidia
