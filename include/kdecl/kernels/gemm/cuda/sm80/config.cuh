// Everything the cp_async kernel derives from its gemm_key at compile time:
// element types, operand majorness, the per-warp region, shared-memory sizes,
// and the static checks that reject keys this kernel cannot build.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/gemm/gemm_problem.hpp"  // scale_block_k, scale_block_n
#include "kdecl/kernels/cuda/device_types.cuh"

namespace kdecl::kernels::cuda::sm80 {

// mma.sync k extent in elements for a compute dtype: every shape consumes 32 bytes of k.
constexpr int mma_k_elems(dtype compute) {
  switch (compute) {
    case dtype::fp16: case dtype::bf16: return 16;
    case dtype::tf32: return 8;
    case dtype::int8: case dtype::fp8: case dtype::bf8: return 32;
    case dtype::fp32: return 1;  // SIMT FFMA: one k per step
    default: return 0;
  }
}

constexpr bool is_fp8_family(dtype d) { return d == dtype::fp8 || d == dtype::bf8; }

// Padding (in 4-byte words) of each staged row of the cshuffle epilogue: chosen
// so that the accumulator writes from the mma fragment layout are conflict-free
// (8 for 8-byte pair writes along rows, 4 for scalar writes down columns).
constexpr int cshuffle_pad(layout c) { return c == layout::row ? 8 : 4; }

// Shared memory one instance needs, in bytes. The epilogue staging reuses the
// main-loop ring (it starts after the last k tile), hence the max.
constexpr int sm80_smem_bytes(const gemm_key& k) {
  const auto& a = k.algo;
  const int bytes_a = bits_of(k.sig.a) / 8, bytes_b = bits_of(k.sig.b) / 8;
  const bool pre = k.sig.variant == gemm_variant::preshuffle;
  const int ring = a.stages * (a.tile.m * a.tile.k * bytes_a + (pre ? 0 : a.tile.n * a.tile.k * bytes_b));
  int staging = 0;
  if (a.epi == epilogue::cshuffle) {
    staging = k.sig.lay.c == layout::row ? a.tile.m * (a.tile.n + cshuffle_pad(layout::row)) * 4
                                         : a.tile.n * (a.tile.m + cshuffle_pad(layout::col)) * 4;
  }
  return ring > staging ? ring : staging;
}

// A 16-byte-chunk XOR swizzle keeps ldmatrix conflict-free only for rows whose
// width is 16, 32 or 64 bytes or a multiple of 128 bytes.
constexpr bool swizzle_friendly(int row_bytes) {
  return row_bytes == 16 || row_bytes == 32 || row_bytes == 64 || (row_bytes > 0 && row_bytes % 128 == 0);
}

// nullptr when this kernel builds `k`, else the first rule it breaks (the text
// of the rule). config<K> asserts it; the arch tables' agreement test
// (tests/unit/table_kernel_agreement_test.cu) calls it on every expanded key.
constexpr const char* key_unsupported_reason(const gemm_key& k) {
  const gemm_signature& sig = k.sig;
  const gemm_algorithm& algo = k.algo;
  if (!k.concrete()) return "sm80::gemm needs a concrete key";
  if (algo.pipe != pipeline::cp_async) return "sm80::gemm implements pipeline::cp_async";
  if (algo.warps.k != 1) return "cp_async: warps.k must be 1 (no split-k inside a block)";
  if (algo.stages < 2 || algo.stages > 5) return "cp_async: stages must be 2..5";
  const int vec = algo.vector_bytes;
  if (vec != 1 && vec != 2 && vec != 4 && vec != 8 && vec != 16)
    return "cp_async: vector_bytes must be 16, 8, 4 (cp.async) or 2, 1 (register-staged)";
  if (algo.index_bits != 32 && algo.index_bits != 64) return "cp_async: index_bits must be 32 or 64";
  if (algo.warps.m * algo.warps.n * 32 > 1024) return "too many warps";
  const int tile_m = algo.tile.m, tile_n = algo.tile.n, tile_k = algo.tile.k;
  const int warps_m = algo.warps.m, warps_n = algo.warps.n;
  if (!(tile_m % (warps_m * algo.warp_tile.m) == 0 && tile_n % (warps_n * algo.warp_tile.n) == 0 &&
        tile_k % algo.warp_tile.k == 0))
    return "the block tile must be a whole number of warp tiles per warp";
  const int mma_k = mma_k_elems(sig.compute);
  if (mma_k <= 0) return "unsupported compute dtype for cp_async";
  if (algo.warp_tile.k % mma_k != 0) return "warp_tile.k must be a multiple of the instruction k";
  if (!((sig.a == sig.b && (sig.a == dtype::fp16 || sig.a == dtype::bf16 || sig.a == dtype::int8 ||
                            sig.a == dtype::fp32)) ||
        (is_fp8_family(sig.a) && is_fp8_family(sig.b))))
    return "cp_async: A and B must be fp16, bf16, fp32 or int8 (same type), or fp8/bf8";
  if (!(sig.compute == sig.a || (sig.a == dtype::fp32 && sig.compute == dtype::tf32) ||
        (is_fp8_family(sig.a) && is_fp8_family(sig.compute))))
    return "cp_async: compute dtype must equal A's, or be tf32 for fp32 data";
  const bool int_acc = sig.acc == dtype::int32;
  if (int_acc != (sig.a == dtype::int8)) return "int8 accumulates in int32, every other type in fp32";
  if (sig.acc != dtype::int32 && sig.acc != dtype::fp32) return "accumulator must be fp32 or int32";
  const bool simt = sig.compute == dtype::fp32;
  if (!(simt ? (algo.warp_tile.k == 1) : (algo.warp_tile.m % 16 == 0 && algo.warp_tile.n % 8 == 0)))
    return "warp_tile must be a multiple of the mma.sync tile (m16 n8), or k == 1 for SIMT fp32";
  const int warp_rows = tile_m / warps_m, warp_cols = tile_n / warps_n;
  if (simt && !(warp_rows % 16 == 0 && warp_cols % 32 == 0))
    return "SIMT fp32: a warp's region must be a multiple of 16 x 32 (4 x 8 lanes, 4-wide runs)";
  const bool a_kmajor = sig.lay.a == layout::row, b_kmajor = sig.lay.b == layout::col;
  const bool preshuffle = sig.variant == gemm_variant::preshuffle;
  const int bytes_a = bits_of(sig.a) / 8, bytes_b = bits_of(sig.b) / 8, bytes_c = bits_of(sig.c) / 8;
  if (!(bytes_a != 1 || (a_kmajor && (b_kmajor || preshuffle))))
    return "8-bit operands must be K-major (layout rcr): ldmatrix cannot transpose bytes";
  if (!(tile_k * bytes_a % 16 == 0 && tile_m * bytes_a % 16 == 0 && tile_n * bytes_b % 16 == 0))
    return "tile extents must be whole 16-byte chunks";
  const int a_row_bytes = (a_kmajor ? tile_k : tile_m) * bytes_a;
  const int b_row_bytes = (b_kmajor ? tile_k : tile_n) * bytes_b;
  if (!(swizzle_friendly(a_row_bytes) && (preshuffle || swizzle_friendly(b_row_bytes))))
    return "smem row width must be 16, 32, 64 or a multiple of 128 bytes (swizzle)";
  const int a_stage_bytes = tile_m * tile_k * bytes_a;
  const int b_stage_bytes = preshuffle ? 0 : tile_n * tile_k * bytes_b;
  if (!(a_stage_bytes % 128 == 0 && b_stage_bytes % 128 == 0)) return "stage sizes must be multiples of 128 bytes";
  if (preshuffle && !(!simt && tile_k * bytes_b % 64 == 0))
    return "preshuffle: tensor-core paths only, and tile_k must cover whole 64-byte k blocks";
  if (vec % bytes_a != 0 || vec % bytes_b != 0) return "cp_async: vector_bytes must hold whole A and B elements";
  const bool c_row = sig.lay.c == layout::row;
  if (algo.epi == epilogue::cshuffle && !((c_row ? tile_n : tile_m) * bytes_c % 16 == 0))
    return "cshuffle: a staged row must be a whole number of 16-byte output runs";
  const int num_d = sig.variant == gemm_variant::multi_d ? sig.num_d : 0;
  if (num_d > 4) return "at most 4 D tensors";
  if (sig.variant == gemm_variant::block_scaled) {  // sm80/block_scales.cuh
    if (!(is_fp8_family(sig.a) && is_fp8_family(sig.b))) return "block_scaled: A and B must be fp8/bf8";
    if (!(sig.lay == rcr))
      return "block_scaled: built for layout rcr (per-row A scales, per-128-column B scales)";
    if (scale_block_k % tile_k != 0) return "block_scaled: tile_k must divide the 128-deep scale block";
    if (scale_block_n % tile_n != 0) return "block_scaled: tile_n must divide the 128 columns of one B scale";
  }
  return nullptr;
}

template <gemm_key K>
struct config {
  static constexpr gemm_signature sig = K.sig;
  static constexpr gemm_algorithm algo = K.algo;

  using ta = storage_t<sig.a>;
  using tb = storage_t<sig.b>;
  using tc = storage_t<sig.c>;

  static constexpr bool simt = sig.compute == dtype::fp32;         // exact fp32 through FFMA
  static constexpr bool int_acc = sig.acc == dtype::int32;
  using acc_t = std::conditional_t<int_acc, std::int32_t, float>;

  static constexpr bool a_kmajor = sig.lay.a == layout::row;  // A(i,k) contiguous along k
  static constexpr bool b_kmajor = sig.lay.b == layout::col;  // B(k,j) contiguous along k
  static constexpr bool c_row = sig.lay.c == layout::row;
  static constexpr bool preshuffle = sig.variant == gemm_variant::preshuffle;
  static constexpr bool block_scaled = sig.variant == gemm_variant::block_scaled;  // sm80/block_scales.cuh
  static constexpr int num_d = sig.variant == gemm_variant::multi_d ? sig.num_d : 0;
  static constexpr elementwise ew = sig.variant == gemm_variant::multi_d ? sig.ew : elementwise::pass_through;

  static constexpr int tile_m = algo.tile.m, tile_n = algo.tile.n, tile_k = algo.tile.k;
  static constexpr int warps_m = algo.warps.m, warps_n = algo.warps.n;
  static constexpr int threads = warps_m * warps_n * 32;
  static constexpr int warp_rows = tile_m / warps_m;  // the region one warp owns
  static constexpr int warp_cols = tile_n / warps_n;
  static constexpr int stages = algo.stages;
  static constexpr int vec = algo.vector_bytes;
  static constexpr bool staged = vec < 4;  // A and B through registers (cp.async copies 4, 8 or 16 bytes)
  using index_t = std::conditional_t<algo.index_bits == 64, std::int64_t, std::int32_t>;
  static constexpr bool pad_m = algo.pad_m == tristate::yes;
  static constexpr bool pad_n = algo.pad_n == tristate::yes;
  static constexpr bool pad_k = algo.pad_k == tristate::yes;
  static constexpr bool cshuffle = algo.epi == epilogue::cshuffle;

  static constexpr int bytes_a = sizeof(ta), bytes_b = sizeof(tb);
  static constexpr int mma_k = mma_k_elems(sig.compute);

  // Operand tiles are kept in shared memory as they lie in global memory:
  // K-major tiles are tile_mn rows of tile_k elements, MN-major tiles tile_k rows of tile_mn.
  static constexpr int a_rows = a_kmajor ? tile_m : tile_k;
  static constexpr int a_row_bytes = (a_kmajor ? tile_k : tile_m) * bytes_a;
  static constexpr int b_rows = b_kmajor ? tile_n : tile_k;
  static constexpr int b_row_bytes = (b_kmajor ? tile_k : tile_n) * bytes_b;
  static constexpr int a_stage_bytes = tile_m * tile_k * bytes_a;
  static constexpr int b_stage_bytes = preshuffle ? 0 : tile_n * tile_k * bytes_b;
  static constexpr int smem_bytes = sm80_smem_bytes(K);

  // ---- what this kernel can build (the reason names the broken rule) ---------------
  static_assert(key_unsupported_reason(K) == nullptr,
                "key not supported by the sm80 cp_async kernel: see sm80::key_unsupported_reason(K)");
};

}  // namespace kdecl::kernels::cuda::sm80
