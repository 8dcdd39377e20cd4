// What the sm_90 forward convolution derives from its key at compile time: the
// implicit GEMM key whose tma_wgmma config, wgmma and epilogues it runs, and the
// rules of keys it cannot build (the arch tables' tma_wgmma conv offer is checked
// against conv_sm90_unsupported_reason by tests/unit/conv_table_kernel_agreement_test.cu).
// A backward-data key runs the forward kernel of its forward key, once per stride
// phase (conv_bwd_data_sm90.cuh, kernels/conv/bwd_data_phases.hpp); a backward-weight
// key the crr GEMM of dY^T x im2col(input) (conv_bwd_weight_sm90.cuh).
#pragma once

#include "kdecl/conv/grouped_conv_key.hpp"
#include "kdecl/dsl/conv_rules.hpp"
#include "kdecl/kernels/conv/halo_tiles.hpp"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90_config.cuh"

namespace kdecl::kernels::cuda::sm90 {

// A = the input gathered (K-major), B = the weights (K-major), C = the output
// (row-major, any alignment: the GEMM's epilogues take it), 64-bit indices in
// the epilogue (an output may exceed 2^31 elements). A fused epilogue is the GEMM's
// multi_d: its activation, and as D tensors the bias then the residual
// (sm90/fused_epilogue_inputs.cuh says where each is read).
constexpr gemm_key conv_fwd_sm90_gemm_key(const grouped_conv_key& k) {
  gemm_key g = dsl::conv_rules::implicit_gemm(k);
  g.sig.compute = g.sig.a;
  g.algo.vector_bytes = 16;
  g.algo.index_bits = 64;
  if (const conv_fusion& f = k.sig.fuse; f.fused() && !f.dynamic) {
    g.sig.variant = gemm_variant::multi_d;
    g.sig.ew = f.act;
    g.sig.num_d = int(f.bias) + int(f.residual);
  }
  return g;
}

// The shared memory of the halo tiles' kernel (the stride1 specialization, conv_fwd_halo_sm90.cuh)
// on the GEMM key's tiles: `halo_stages` halo boxes; a ring of the weights whose stages hold
// several taps each where the tile is narrow (a 64- or 128-wide tile's tap is 4 short wgmma per
// m64 block: three taps per barrier round amortize its wait, fence and release); a full and an
// empty barrier per stage of either ring; the cshuffle strips; 1 KiB to align the rings. The
// weight ring has the key's stages, or as many as fit.
inline constexpr int halo_stages = 2;
constexpr int halo_taps_per_stage(const gemm_key& g) { return g.algo.tile.n <= 128 ? 3 : 1; }
constexpr int halo_weight_stage_bytes(const gemm_key& g) {
  return halo_taps_per_stage(g) * g.algo.tile.n * swizzle_row_bytes;
}
constexpr int halo_fixed_smem_bytes(const gemm_key& g) {
  const int consumer_copies = g.algo.sched == scheduler::pingpong ? 2 : 1;
  const int strips = g.algo.epi == epilogue::cshuffle ? consumer_copies * g.algo.warps.m * cshuffle_strip_bytes : 0;
  return 1024 + halo_stages * (kernels::halo_stage_bytes(g.algo.tile.m) + 16) + 16 + strips;
}
constexpr int halo_weight_stages(const gemm_key& g) {
  const int fit = (max_dynamic_smem_bytes - halo_fixed_smem_bytes(g)) / (halo_weight_stage_bytes(g) + 16);
  return g.algo.stages < fit ? g.algo.stages : fit;
}
constexpr int halo_smem_bytes_for(const gemm_key& g) {
  return halo_fixed_smem_bytes(g) + halo_weight_stages(g) * (halo_weight_stage_bytes(g) + 16);
}

// The stride1_rows kernel (conv_fwd_rows_sm90.cuh) on a key's tile (output pixels of one row,
// 64 output channels, 64 input channels): its ring of input rows (the key's stages), each row
// the tile's pixels plus 8 columns of filter reach, beside the resident weights of up to
// rows_max_taps taps (64 x 64 each), their barriers and 1 KiB to align the ring: the arch
// tables' formula (dsl::conv_rules::stride1_rows_smem_bytes).
inline constexpr int rows_max_taps = dsl::conv_rules::stride1_rows_taps;
inline constexpr int rows_max_reach_cols = dsl::conv_rules::stride1_rows_reach_columns;
constexpr int rows_box_cols(int pixels) { return pixels + rows_max_reach_cols; }
constexpr int rows_slot_bytes(int pixels) { return rows_box_cols(pixels) * swizzle_row_bytes; }
constexpr int rows_tap_bytes = 64 * swizzle_row_bytes;
constexpr int rows_smem_bytes(const grouped_conv_key& k) { return int(dsl::conv_rules::stride1_rows_smem_bytes(k)); }
constexpr const char* conv_rows_unsupported_reason(const grouped_conv_key& k) {
  if (k.sig.ndim != 2) return "sm90 conv builds stride1_rows for 2-D convolutions only";
  if (k.algo.groups_to_merge != 1) return "sm90 conv builds stride1_rows with one group per GEMM only";
  if (k.algo.tile.n != 64 || k.algo.tile.k != 64)
    return "sm90 conv stride1_rows: the tile is (pixels, 64, 64): 64 output channels of 64 input channels a block";
  if (k.algo.tile.m != 64 && k.algo.tile.m != 128 && k.algo.tile.m != 192)
    return "sm90 conv stride1_rows: a tile's pixels (tile m) are 64, 128 or 192 (one wgmma's N; the TMA box of "
           "an input row holds at most 256 columns)";
  if (k.algo.sched != scheduler::pingpong || k.algo.warps.m * k.algo.warps.n * k.algo.warps.k != 4)
    return "sm90 conv stride1_rows: two consumer warpgroups take alternate output rows: scheduler pingpong, "
           "warps (4, 1, 1)";
  if (k.algo.epi != epilogue::direct) return "sm90 conv stride1_rows stores from registers: epilogue direct";
  if (k.algo.stages < 5) return "sm90 conv stride1_rows needs at least 5 stages (input rows) in its ring";
  if (rows_smem_bytes(k) > max_dynamic_smem_bytes)
    return "sm90 conv stride1_rows: the ring's stages and 9 taps of resident weights exceed 227 KiB";
  return nullptr;
}

// nullptr when the kernel builds `k`, else the first rule it breaks.
constexpr const char* conv_fwd_sm90_unsupported_reason(const grouped_conv_key& k) {
  if (!k.concrete()) return "sm90 conv needs a concrete key";
  if (k.sig.dir != conv_direction::fwd) return "sm90 conv computes the forward direction only";
  if (k.sig.spec != conv_specialization::none && k.sig.spec != conv_specialization::stride1 &&
      k.sig.spec != conv_specialization::stride1_rows)
    return "sm90 conv specializes for unit strides (stride1, stride1_rows) only";
  if (k.sig.spec == conv_specialization::stride1) {
    if (k.sig.ndim < 2) return "sm90 conv builds stride1 (halo tiles) for 2-D and 3-D convolutions only";
    if (k.algo.groups_to_merge != 1) return "sm90 conv builds stride1 (halo tiles) with one group per GEMM only";
    if (halo_weight_stages(conv_fwd_sm90_gemm_key(k)) < 2)
      return "sm90 conv: fewer than two weight stages fit beside the halo tiles' two halo boxes in 227 KiB";
  }
  if (k.sig.spec == conv_specialization::stride1_rows) {
    if (const char* why = conv_rows_unsupported_reason(k)) return why;
    if (k.sig.fuse.fused()) return "sm90 conv stride1_rows stores transposed tiles from registers: no fused epilogue";
  }
  if (k.sig.fuse.dynamic) return "sm90 conv compiles its fused epilogue in (no fusion read at run time)";
  // Merged groups (merged_groups.hpp): neighbouring groups' channels must be contiguous.
  if (k.algo.groups_to_merge != 1 && k.sig.lay != conv_layout::nwgc && k.sig.lay != conv_layout::nhwgc &&
      k.sig.lay != conv_layout::ndhwgc)
    return "sm90 conv merges groups in channels-last layouts only (nwgc, nhwgc, ndhwgc)";
  if (k.sig.in != k.sig.wei || k.sig.in != k.sig.out || (k.sig.in != dtype::fp16 && k.sig.in != dtype::bf16))
    return "sm90 conv computes fp16 or bf16 data (input = weight = output)";
  if (k.sig.acc != dtype::fp32) return "sm90 conv accumulates in fp32";
  if (k.sig.compute != k.sig.in) return "sm90 conv multiplies in its data's dtype";
  const int bytes = bits_of(k.sig.in) / 8;
  if (k.algo.vector_in * bytes != 16 || k.algo.vector_wei * bytes != 16)
    return "sm90 conv gathers the input and the weights in 16-byte vectors";
  // stride1_rows runs its own consumers (the rules above); the others the GEMM's: intrawave (the
  // consumers share a tile) or pingpong (two consumers, a tile each).
  if (k.sig.spec == conv_specialization::stride1_rows) return nullptr;
  return key_unsupported_reason(conv_fwd_sm90_gemm_key(k));
}

// The forward key whose kernel computes a backward-data key's problems (per stride phase): dy is
// the forward input (bwd_data's `out` operand), dx the forward output (`in`), and the weights the
// flipped copy the backward-data makes (packed and aligned: 16-byte gathers, whatever the key's
// weight vector, which only says how the copy reads W).
constexpr grouped_conv_key forward_key_of_bwd_data(grouped_conv_key k) {
  k.sig.dir = conv_direction::fwd;
  const dtype dx = k.sig.in;
  k.sig.in = k.sig.out;
  k.sig.out = dx;
  const int dx_vector = k.algo.vector_in;
  k.algo.vector_in = k.algo.vector_out;
  k.algo.vector_out = dx_vector;
  k.algo.vector_wei = 128 / bits_of(k.sig.wei);
  return k;
}

// Backward-data's phases reading W as stored (kernels/conv/bwd_data_stored_weights.hpp): the
// forward key's GEMM with B read N-major (rrr), for keys of one group per GEMM on the im2col
// tiles (the halo and row kernels have their own weight rings) whose rrr GEMM config builds.
constexpr gemm_key stored_weights_gemm_key(const grouped_conv_key& k) {
  gemm_key g = conv_fwd_sm90_gemm_key(k);
  g.sig.lay = rrr;
  return g;
}
constexpr bool conv_fwd_reads_stored_weights(const grouped_conv_key& k) {
  return k.sig.spec == conv_specialization::none && k.algo.groups_to_merge == 1 &&
         key_unsupported_reason(stored_weights_gemm_key(k)) == nullptr;
}

// A key that takes an operand element by element (vector 1) reads and writes it through a
// packed copy with C/G and K/G padded to a multiple of 8 (conv/cuda/channel_padded.cuh), and
// runs the kernel of its gathering key on the copies: the same key with 16-byte vectors.
// Backward-data's dx and weights are the exception: its flipped weight copy and pixel-mapped
// store take any C/G as they are (sm90/conv_bwd_data_sm90.cuh), so only its dY is copied.
constexpr grouped_conv_key gathering_key(grouped_conv_key k) {
  const bool backward_data = k.sig.dir == conv_direction::bwd_data;
  if (k.algo.vector_in == 1 && !backward_data) k.algo.vector_in = 128 / bits_of(k.sig.in);
  if (k.algo.vector_wei == 1 && !backward_data) k.algo.vector_wei = 128 / bits_of(k.sig.wei);
  if (k.algo.vector_out == 1) k.algo.vector_out = 128 / bits_of(k.sig.out);
  return k;
}
constexpr bool reads_channel_padded_copies(const grouped_conv_key& k) { return gathering_key(k) != k; }

// Backward-weight: A = dY read M-major (output channels contiguous), B = the input
// gathered N-major (channels contiguous), C = dW (row-major: each output channel's
// taps x C/G), or its fp32 partials where the depth is split (partial key).
constexpr gemm_key conv_bwd_weight_sm90_gemm_key(const grouped_conv_key& k) {
  gemm_key g = conv_fwd_sm90_gemm_key(k);
  g.sig.lay = crr;
  return g;
}
constexpr gemm_key conv_bwd_weight_sm90_partial_key(const grouped_conv_key& k) {
  gemm_key g = conv_bwd_weight_sm90_gemm_key(k);
  g.sig.c = dtype::fp32;
  return g;
}

// nullptr when the sm_90 backward-weight kernel builds `k`, else the first rule it breaks.
constexpr const char* conv_bwd_weight_sm90_unsupported_reason(grouped_conv_key k) {
  if (k.sig.dir != conv_direction::bwd_weight) return "sm90 conv bwd_weight computes the backward-weight direction";
  // The forward kernel's rules on the key's data types, tiles and vectors, then the GEMMs it runs.
  grouped_conv_key as_forward = k;
  as_forward.sig.dir = conv_direction::fwd;
  if (const char* why = conv_fwd_sm90_unsupported_reason(as_forward)) return why;
  if (k.algo.vector_out * (bits_of(k.sig.out) / 8) != 16) return "sm90 conv bwd_weight gathers dY in 16-byte vectors";
  if (const char* why = key_unsupported_reason(conv_bwd_weight_sm90_gemm_key(k))) return why;
  return key_unsupported_reason(conv_bwd_weight_sm90_partial_key(k));
}

// 8-bit floating input and weights (fp8 e4m3, bf8 e5m2, mixed): forward convolutions as each
// group's GEMM on the fp8 tma_wgmma kernel (sm90/conv_fwd_fp8_sm90.cuh): A the input gathered by
// im2col (K-major: taps x C/G per output pixel), B the weights as stored (K-major: taps x C/G per
// output channel), C the output; 64-bit indices, 16-byte TMA operands (the kernel packs them).
constexpr bool conv_is_eight_bit(const grouped_conv_key& k) {
  return sm90_is_fp8_family(k.sig.in) || sm90_is_fp8_family(k.sig.wei);
}
constexpr gemm_key conv_fwd_fp8_gemm_key(const grouped_conv_key& k) {
  gemm_key g = dsl::conv_rules::implicit_gemm(k);
  g.algo.vector_bytes = 16;
  g.algo.index_bits = 64;
  return g;
}
constexpr const char* conv_fwd_fp8_sm90_unsupported_reason(const grouped_conv_key& k) {
  if (!k.concrete()) return "sm90 conv needs a concrete key";
  if (k.sig.dir != conv_direction::fwd) return "sm90 conv computes 8-bit data forward only";
  if (!sm90_is_fp8_family(k.sig.in) || !sm90_is_fp8_family(k.sig.wei)) return "sm90 conv: 8-bit input with 8-bit weights (fp8 or bf8, mixed)";
  if (k.sig.out != dtype::bf16 && k.sig.out != dtype::fp16 && k.sig.out != dtype::fp32)
    return "sm90 conv writes 8-bit convolutions in bf16, fp16 or fp32";
  if (k.sig.acc != dtype::fp32) return "sm90 conv accumulates in fp32";
  if (k.sig.spec != conv_specialization::none || k.algo.groups_to_merge != 1 || k.sig.fuse.fused() ||
      k.sig.fuse.dynamic)
    return "sm90 conv runs 8-bit data as plain GEMMs: no specialization, one group per GEMM, no fused epilogue";
  if (k.algo.tile.n % 64 != 0) return "sm90 conv builds tile.n multiples of 64";
  return key_unsupported_reason(conv_fwd_fp8_gemm_key(k));
}

// nullptr when one of the sm_90 convolution kernels builds `k` (forward, backward-data
// through its forward key, backward-weight), else the first rule it breaks.
constexpr const char* conv_sm90_unsupported_reason(const grouped_conv_key& k) {
  if (conv_is_eight_bit(k)) return conv_fwd_fp8_sm90_unsupported_reason(k);
  const grouped_conv_key gathered = gathering_key(k);  // one-element vectors: channel-padded copies
  // N-major operands move in 64-column boxes (backward-weight's); the GEMM's N = 160 is not built here.
  if (k.algo.tile.n % 64 != 0) return "sm90 conv builds tile.n multiples of 64";
  // The epilogue adds the bias and residual where it stores: into the output itself.
  if (k.sig.fuse.fused() && k.algo.vector_out == 1)
    return "sm90 conv fuses an epilogue only where it writes the output in place (an output vector, not one "
           "element through a channel-padded copy)";
  // Backward-data runs the forward kernel (its phases' forward convolutions merge as well).
  if (k.algo.groups_to_merge != 1 && k.sig.dir == conv_direction::bwd_weight)
    return "sm90 conv merges groups forward and backward-data only";
  if ((k.sig.spec == conv_specialization::stride1 || k.sig.spec == conv_specialization::stride1_rows) &&
      k.sig.dir == conv_direction::bwd_weight)
    return "sm90 conv builds stride1 (halo tiles) and stride1_rows forward and backward-data only";
  if (k.sig.dir == conv_direction::bwd_data) return conv_fwd_sm90_unsupported_reason(forward_key_of_bwd_data(gathered));
  if (k.sig.dir == conv_direction::bwd_weight) return conv_bwd_weight_sm90_unsupported_reason(gathered);
  return conv_fwd_sm90_unsupported_reason(gathered);
}

}  // namespace kdecl::kernels::cuda::sm90
