// Compile-time shape of one tma_wgmma kernel instance, derived from its key,
// and the list of key values this pipeline supports.
//
// Block = 1 producer warpgroup (TMA issue) + consumer warpgroups (wgmma):
//   intrawave (cooperative): W = warps.m / 4 consumers stacked along M on one tile:
//     consumer w owns rows [w*tile_m/W, (w+1)*tile_m/W) and computes them as
//     tile_m/(64W) wgmma m64 x N blocks;
//   pingpong: warps (4,1,1) describe one consumer; the block runs two of them,
//     each on its own tile (alternate tiles of the block's share), so that one's
//     epilogue overlaps the other's main loop.
#pragma once

#include "kdecl/core/enums.hpp"
#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/kernels/cuda/device_types.cuh"

namespace kdecl::kernels::cuda::sm90 {

inline constexpr int max_dynamic_smem_bytes = 227 * 1024;  // per block on sm_90
inline constexpr int swizzle_row_bytes = 128;

// Per consumer warp, the cshuffle epilogue's strip: 16 rows x (32 + 4) floats.
inline constexpr int cshuffle_strip_bytes = 16 * 36 * 4;

// The barriers (full and empty per stage) plus 16 spare bytes, rounded up to 128 bytes so
// that the cshuffle strips after them can be TMA-store sources (epilogue_tma_store.cuh).
constexpr int barrier_block_bytes(int stages) { return (2 * 8 * stages + 16 + 127) / 128 * 128; }

// Shared memory a key needs: the ring, 1 KiB to align it to the swizzle atom,
// the barrier block, and the cshuffle strips.
constexpr int smem_bytes_for(const gemm_key& k) {
  const int elem = bits_of(k.sig.a) / 8;
  const int stage = (k.algo.tile.m + k.algo.tile.n) * k.algo.tile.k * (elem > 0 ? elem : 1);
  const int consumer_copies = k.algo.sched == scheduler::pingpong ? 2 : 1;
  const int strips = k.algo.epi == epilogue::cshuffle ? consumer_copies * k.algo.warps.m * cshuffle_strip_bytes : 0;
  return k.algo.stages * stage + 1024 + barrier_block_bytes(k.algo.stages) + strips;
}

// The operand families of wgmma: 16-bit (k16, either major-ness), 8-bit floats
// (e4m3/e5m2 in any mix, k32), int8 (k32, s32 accumulators), tf32 (fp32 data,
// k8). All but 16-bit are read only K-major. Every family fills a 128-byte
// swizzled row with one tile_k and advances 32 bytes per instruction.
enum class sm90_operand_class { none, bits16, fp8, int8, tf32 };

constexpr bool sm90_is_fp8_family(dtype d) { return d == dtype::fp8 || d == dtype::bf8; }

constexpr sm90_operand_class sm90_operand_class_of(const gemm_signature& s) {
  if ((s.a == dtype::fp16 || s.a == dtype::bf16) && s.b == s.a && s.compute == s.a && s.acc == dtype::fp32)
    return sm90_operand_class::bits16;
  if (sm90_is_fp8_family(s.a) && sm90_is_fp8_family(s.b) && s.compute == s.a && s.acc == dtype::fp32)
    return sm90_operand_class::fp8;
  if (s.a == dtype::int8 && s.b == dtype::int8 && s.compute == dtype::int8 && s.acc == dtype::int32)
    return sm90_operand_class::int8;
  if (s.a == dtype::fp32 && s.b == dtype::fp32 && s.compute == dtype::tf32 && s.acc == dtype::fp32)
    return sm90_operand_class::tf32;
  return sm90_operand_class::none;
}

// K of one wgmma instruction (32 bytes of the operand type).
constexpr int sm90_instruction_k(sm90_operand_class c) {
  return c == sm90_operand_class::bits16 ? 16 : c == sm90_operand_class::tf32 ? 8 : 32;
}

// A column-major C is C^T = B^T A^T stored row-major: the signature of that product, A and B
// exchanged (dtypes, and each operand's layout flipped: B^T of a column-major B is row-major;
// fp8 mixes name A's type as the compute type), C (and D) row-major. A row-major C's is its own.
constexpr gemm_signature row_major_c_signature(const gemm_signature& s) {
  if (s.lay.c == layout::row) return s;
  const auto flip = [](layout l) { return l == layout::row ? layout::col : layout::row; };
  gemm_signature t = s;
  t.a = s.b;
  t.b = s.a;
  if (sm90_is_fp8_family(s.a) && s.compute == s.a) t.compute = t.a;
  t.lay = {flip(s.lay.b), flip(s.lay.a), layout::row};
  return t;
}

// The key of the kernel that computes a column-major C: the same tile, schedule and epilogue
// over C^T (whose rows are C's columns: column_major_c.cuh exchanges M and N).
constexpr gemm_key row_major_c_key(const gemm_key& k) {
  gemm_key t = k;
  t.sig = row_major_c_signature(k.sig);
  return t;
}

// nullptr when the key is one this pipeline implements, else the first reason it is not.
constexpr const char* key_unsupported_reason(const gemm_key& k) {
  const auto& s = k.sig;
  const auto& a = k.algo;
  if (a.pipe != pipeline::tma_wgmma) return "pipeline is not tma_wgmma";
  if (s.lay.c == layout::col) {
    if (a.cluster_m * a.cluster_n != 1) return "multicast clusters are built for row-major C only";
    if (s.variant == gemm_variant::block_scaled)
      return "block_scaled is built for row-major C only (C^T would exchange A's and B's scale blocks)";
    return key_unsupported_reason(row_major_c_key(k));
  }
  const sm90_operand_class cls = sm90_operand_class_of(s);
  if (cls == sm90_operand_class::none)
    return "dtypes must be fp16 or bf16 (same A, B, compute; fp32 acc), fp8/bf8 in any mix (compute = A, fp32 "
           "acc), int8 (int32 acc) or fp32 data with tf32 compute (fp32 acc)";
  if (cls == sm90_operand_class::bits16 &&
      !(s.c == dtype::fp16 || s.c == dtype::bf16 || s.c == dtype::fp32)) return "C dtype must be fp16, bf16 or fp32";
  if (cls == sm90_operand_class::fp8 &&
      !(s.c == dtype::fp16 || s.c == dtype::bf16 || s.c == dtype::fp32 || s.c == dtype::fp8))
    return "C dtype of an fp8/bf8 GEMM must be fp16, bf16, fp32 or fp8";
  if (cls == sm90_operand_class::int8 && s.c != dtype::int32 && s.c != dtype::int8)
    return "C dtype of an int8 GEMM must be int32 or int8 (alpha scales, saturating)";
  if (cls == sm90_operand_class::tf32 && s.c != dtype::fp32) return "C dtype of a tf32 GEMM must be fp32";
  if (cls != sm90_operand_class::bits16 && !(s.lay.a == layout::row && s.lay.b == layout::col))
    return "8-bit and tf32 operands must be K-major (layout rcr, or rcc with column-major C): wgmma reads them only "
           "K-major from shared memory";
  const bool block_scaled = s.variant == gemm_variant::block_scaled;
  if (cls != sm90_operand_class::bits16 && s.variant != gemm_variant::standard &&
      !(cls == sm90_operand_class::fp8 && block_scaled))
    return "8-bit and tf32 GEMMs are built for the standard variant only (fp8/bf8 also block_scaled)";
  if (block_scaled && cls != sm90_operand_class::fp8) return "block_scaled needs fp8/bf8 A and B";
  if (block_scaled && s.c == dtype::fp8) return "a block_scaled GEMM writes an fp16, bf16 or fp32 C";
  if (s.variant == gemm_variant::preshuffle) return "preshuffled B is not supported";
  if (s.variant == gemm_variant::multi_d && (s.num_d < 0 || s.num_d > 4)) return "multi_d needs 0..4 D tensors";
  if (s.variant == gemm_variant::standard && (s.num_d != 0 || s.ew != elementwise::pass_through))
    return "standard variant takes no D tensors and no elementwise op";
  if (!(a.warps.m == 4 || a.warps.m == 8) || a.warps.n != 1 || a.warps.k != 1)
    return "warps must be (4,1,1) or (8,1,1): one or two consumer warpgroups";
  if (a.sched != scheduler::intrawave && a.sched != scheduler::pingpong)
    return "scheduler must be intrawave (consumers share a tile) or pingpong (two consumers, a tile each)";
  if (a.sched == scheduler::pingpong && a.warps.m != 4)
    return "pingpong needs warps (4,1,1): the block runs two copies of one consumer warpgroup";
  const int W = a.warps.m / 4;
  const int n = a.warp_tile.n;
  if (a.warp_tile.m != 16 || a.warp_tile.k != sm90_instruction_k(cls))
    return "warp_tile must be (16, N, K) with K = the wgmma K: 16 for 16-bit, 32 for 8-bit, 8 for tf32 inputs";
  if (!(n == 64 || n == 128 || n == 160 || n == 192 || n == 256)) return "warp_tile.n must be 64, 128, 160, 192 or 256";
  if (n == 160 && cls != sm90_operand_class::bits16) return "warp_tile.n 160 is built for 16-bit operands";
  // An operand read M/N-major moves in 64-element (128-byte) boxes (load_operand_tile).
  if (s.lay.b == layout::row && (n * (bits_of(s.b) / 8)) % swizzle_row_bytes != 0)
    return "tile.n must be a multiple of 64 where B is row-major (B moves in 64-column TMA boxes)";
  if (a.tile.n != n) return "tile.n must equal warp_tile.n";
  if (a.tile.m <= 0 || a.tile.m % (64 * W) != 0 || a.tile.m > 256) return "tile.m must be a multiple of 64*W, at most 256";
  if (a.tile.k * (bits_of(s.a) / 8) != swizzle_row_bytes)
    return "tile.k must fill one 128-byte swizzled row: 64 for 16-bit, 128 for 8-bit, 32 for tf32 (fp32) inputs";
  if ((a.tile.m / (64 * W)) * n / 2 > 128) return "more than 128 accumulator registers per consumer thread (spills)";
  if (block_scaled && (a.tile.m / (64 * W)) * n > 128)
    return "block_scaled: more than 128 accumulator registers per consumer thread with each k-block's partial sums";
  if (block_scaled && n > 128) return "block_scaled: tile.n must be 64 or 128 (one B scale per tile and k-block)";
  if (a.stages < 2) return "stages must be at least 2";
  if (smem_bytes_for(k) > max_dynamic_smem_bytes) return "shared-memory ring exceeds 227 KiB";
  if (a.epi != epilogue::direct && a.epi != epilogue::cshuffle) return "epilogue must be direct or cshuffle";
  if (a.vector_bytes != 16) return "vector_bytes must be 16 (TMA alignment of A and B)";
  const int cluster = a.cluster_m * a.cluster_n;
  if (!(cluster == 1 || (a.cluster_m == 2 && a.cluster_n == 1) || (a.cluster_m == 1 && a.cluster_n == 2)))
    return "cluster must be 1x1, 2x1 (two tiles along M share B, multicast) or 1x2 (two along N share A)";
  if (cluster > 1 && s.variant != gemm_variant::standard)
    return "multicast clusters are built for the standard variant only";
  if (cluster > 1 && a.sched != scheduler::intrawave)
    return "multicast clusters are built for the cooperative (intrawave) schedule only";
  // An operand read M/N-major moves in 64-wide boxes: the two blocks take alternate ones.
  if (a.cluster_n == 2 && s.lay.a != layout::row && (a.tile.m / 64) % 2 != 0)
    return "a 1x2 cluster with column-major A needs tile.m a multiple of 128 (the blocks share A's 64-row boxes)";
  if (a.cluster_m == 2 && s.lay.b != layout::col && (a.tile.n / 64) % 2 != 0)
    return "a 2x1 cluster with row-major B needs tile.n a multiple of 128 (the blocks share B's 64-column boxes)";
  if (a.index_bits != 32 && a.index_bits != 64) return "index_bits must be 32 or 64";
  if (a.pad_m == tristate::any || a.pad_n == tristate::any || a.pad_k == tristate::any) return "padding must be concrete";
  return nullptr;
}

template <gemm_key K>
struct sm90_config {
  static_assert(key_unsupported_reason(K) == nullptr, "key not supported by the sm90 tma_wgmma kernel");
  static_assert(K.sig.lay.c == layout::row,
                "the kernel stores C row-major: a column-major C runs as row_major_c_key(K) (column_major_c.cuh)");

  static constexpr gemm_key key = K;
  using out_t = storage_t<K.sig.c>;

  // pingpong: two consumers, each on its own tile; otherwise all consumers on one tile.
  static constexpr bool pingpong = K.algo.sched == scheduler::pingpong;
  static constexpr int consumer_warpgroups = pingpong ? 2 : K.algo.warps.m / 4;
  static constexpr int warpgroups_per_tile = pingpong ? 1 : consumer_warpgroups;
  static constexpr int threads = (consumer_warpgroups + 1) * 128;
  // Multicast cluster: two blocks on neighbouring tiles; each loads half of the tile they
  // share (A along N, B along M) into both (tma_multicast.cuh).
  static constexpr int cluster_m = K.algo.cluster_m;
  static constexpr int cluster_n = K.algo.cluster_n;
  static constexpr int cluster_size = cluster_m * cluster_n;
  static constexpr bool multicast_a = cluster_n == 2;
  static constexpr bool multicast_b = cluster_m == 2;
  static constexpr int consumer_threads = consumer_warpgroups * 128;
  static constexpr int tile_m = K.algo.tile.m;
  static constexpr int tile_n = K.algo.tile.n;
  static constexpr int tile_k = K.algo.tile.k;
  static constexpr int stages = K.algo.stages;
  static constexpr int rows_per_warpgroup = tile_m / warpgroups_per_tile;
  static constexpr int m_blocks = rows_per_warpgroup / 64;  // wgmma m64 blocks per consumer
  static constexpr sm90_operand_class operands = sm90_operand_class_of(K.sig);
  static constexpr int instruction_k = sm90_instruction_k(operands);
  static constexpr int k_steps = tile_k / instruction_k;   // wgmma steps per stage, 32 bytes of K each
  static constexpr bool integer_acc = operands == sm90_operand_class::int8;
  // Scales per 1 x 128 block of A and 128 x 128 block of B (block_scaled_mainloop.cuh): tile_k is the block.
  static constexpr bool block_scaled = K.sig.variant == gemm_variant::block_scaled;
  static constexpr int acc_regs = tile_n / 2;              // per m64 block, per thread

  static constexpr bool a_k_major = K.sig.lay.a == layout::row;
  static constexpr bool b_k_major = K.sig.lay.b == layout::col;

  static constexpr int a_stage_bytes = tile_m * swizzle_row_bytes;
  static constexpr int b_stage_bytes = tile_n * swizzle_row_bytes;
  static constexpr int stage_bytes = a_stage_bytes + b_stage_bytes;
  static constexpr int smem_bytes = smem_bytes_for(K);

  // Split-K partial tile (fp32, rows padded by 8 floats against bank conflicts),
  // written over the operand ring once the block's single unit is done.
  static constexpr int split_k_partial_ld = tile_n + 8;
  // (pingpong never splits: its two consumers already work on separate tiles; a multicast
  // cluster neither: its cluster is the pair of blocks.)
  static constexpr bool split_k_fits =
      !pingpong && cluster_size == 1 && tile_m * split_k_partial_ld * 4 <= stages * stage_bytes;
  // Split tail (tail_split.cuh): the cooperative schedule without a cluster, fp32
  // accumulators, no D tensors (their ring slots follow every unit, the tails' too).
  static constexpr bool tail_split_fits = !pingpong && cluster_size == 1 && !integer_acc &&
                                        K.sig.variant == gemm_variant::standard;

  static constexpr bool staged_epilogue = K.algo.epi == epilogue::cshuffle;
  static constexpr bool check_m = K.algo.pad_m != tristate::no;
  static constexpr bool check_n = K.algo.pad_n != tristate::no;

  // setmaxnreg budgets: 128*producer + consumer_threads*consumer <= 64K registers. The
  // block_scaled consumers hold the tile's sums and two k-blocks' partial sums (3 x 64 for a
  // 64 x 128 slice): two of them take 240 and leave the producer 24 (fewer spills, measured
  // faster: docs/perf/h100-2026-12-05-block-scaled-overlap/).
  static constexpr int producer_regs = block_scaled && consumer_warpgroups == 2 ? 24 : 40;
  static constexpr int consumer_regs = consumer_warpgroups == 2 && !block_scaled ? 232 : 240;
};

}  // namespace kdecl::kernels::cuda::sm90
