// The shape of the architecture tables: plain constexpr aggregates.
//
// One `arch_spec` per target describes the hardware (warp size, shared memory,
// instruction shapes, reference-part figures) and, per main-loop pipeline, what
// that pipeline offers on that target (`pipeline_caps`): these are the
// *legality* tables the DSL validates against. Curated tuning choices live in
// the shipped kernel sets, which may only narrow what is legal here.
//
// Lists are std::span over static constexpr arrays so each table can have its
// own length and still be walked by constexpr code.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "kdecl/conv/grouped_conv_key.hpp"
#include "kdecl/core/enums.hpp"
#include "kdecl/gemm/gemm_key.hpp"

namespace kdecl::arch {

struct shape3 {
  int m, n, k;
  constexpr bool operator==(const shape3&) const = default;
};

struct shape2 {
  int m, n;
  constexpr bool operator==(const shape2&) const = default;
};

// Warp-tile (MFMA/WMMA/MMA) shapes for one dtype combination, keyed "a_b_acc".
struct warp_tile_list {
  dtype a, b, acc;
  std::span<const shape3> tiles;
};

// A (A dtype, B dtype) -> accumulator combination (CK Tile DTYPE_COMBINATIONS).
struct dtype_combination {
  dtype a, b, acc;
  std::string_view notes;
};

struct element_size {
  dtype type;
  int bits;  // bits, so 4-bit types are exact (CK says 0.5 bytes)
};

// A (pipeline, epilogue, scheduler) triple a backend cannot build.
struct trait_triple {
  pipeline pipe;
  epilogue epi;
  scheduler sched;
};

// One matrix instruction of a target (NVIDIA mma.sync / wgmma).
struct mma_instruction {
  std::string_view name;  // PTX mnemonic family
  dtype a, b, acc;
  shape3 shape;
};

struct peak_rate {
  dtype compute;   // fp16, bf16, tf32, fp32 (SIMT), fp8, int8, fp64
  double tflops;   // dense, no sparsity (TOP/s for int8)
};

// ---------------------------------------------------------------------------
// Bit sets over enum values (enumerations here have < 32 members).

template <class E>
constexpr std::uint32_t bit(E e) { return std::uint32_t{1} << static_cast<unsigned>(e); }

template <class... E>
constexpr std::uint32_t bits(E... e) { return (std::uint32_t{0} | ... | bit(e)); }

template <class E>
constexpr bool has(std::uint32_t set, E e) { return (set & bit(e)) != 0; }

// Layout triples are numbered a*4 + b*2 + c (row = 0, col = 1): rcr = 2, rrr = 0, crr = 4, ccr = 6.
constexpr unsigned layout_index(gemm_layout l) {
  return static_cast<unsigned>(l.a) * 4 + static_cast<unsigned>(l.b) * 2 + static_cast<unsigned>(l.c);
}
constexpr gemm_layout layout_of_index(unsigned i) {
  return {static_cast<layout>((i >> 2) & 1), static_cast<layout>((i >> 1) & 1), static_cast<layout>(i & 1)};
}
template <class... L>
constexpr std::uint32_t layouts(L... l) { return (std::uint32_t{0} | ... | (std::uint32_t{1} << layout_index(l))); }
inline constexpr std::uint32_t all_layouts = 0xFF;  // A, B and C each row or column major

inline constexpr std::uint32_t all_variants =
    bits(gemm_variant::standard, gemm_variant::multi_d, gemm_variant::preshuffle);
inline constexpr std::uint32_t unshuffled_variants = bits(gemm_variant::standard, gemm_variant::multi_d);
// fp8/bf8 signatures whose pipeline also scales A and B per block (gemm_variant::block_scaled).
inline constexpr std::uint32_t block_scaled_fp8_variants = all_variants | bits(gemm_variant::block_scaled);

// ---------------------------------------------------------------------------
// What one pipeline offers on one target.

// One dtype signature a pipeline computes, with its MMA warp tiles.
struct dtype_offer {
  dtype a, b, acc, compute;
  std::uint32_t c_types;                 // allowed C dtypes (bit set over dtype)
  std::uint32_t layouts;                 // allowed layout triples (bit set over layout_index)
  std::span<const shape3> warp_tiles;    // tiles one warp computes per MMA step
  std::span<const shape3> preshuffle_warp_tiles;  // subset usable with preshuffled B (AMD)
  // GEMM variants this signature is built for (bit set over gemm_variant); the
  // pipeline's own `variants` must allow them too.
  std::uint32_t variants = all_variants;
  // SIMT paths: the region one warp owns (tile_m/warps_m x tile_n/warps_n) must be
  // a multiple of this lane grid; {0, 0}: no constraint.
  shape2 warp_region_align{0, 0};
};

inline constexpr int index_bits_32[] = {32};
inline constexpr int index_bits_32_64[] = {32, 64};

struct int_range {
  int min, max, def;
};

// How a pipeline's shared memory (LDS) use is computed from a key. Each formula
// is the one its kernel computes (kernel file named), so a key the tables accept
// always fits when the kernel is instantiated.
enum class smem_formula : std::uint8_t {
  none,        // host: no shared memory
  ring_ab,     // CK Tile seed: stages * (tile_m*tile_k*size(A) + tile_n*tile_k*size(B))
  // cp_async (sm80/config.cuh sm80_smem_bytes): max(ring, staging), where
  //   ring = stages * (tile_m*tile_k*size(A) + (preshuffle ? 0 : tile_n*tile_k*size(B)))
  //   staging (cshuffle only) = C row-major ? tile_m*(tile_n+8)*4 : tile_n*(tile_m+4)*4
  cp_async_ring_or_staging,
  // tma_wgmma (sm90/gemm_sm90_config.cuh smem_bytes_for):
  //   stages*(tile_m+tile_n)*tile_k*size(A) + 1024 + roundup(16*stages + 16, 128)
  //   + (cshuffle ? (pingpong ? 2 : 1)*warps_m*2304 : 0)
  tma_ring_barriers_strips,
  // HIP kernel (hip/gemm_hip_geometry.hpp geometry_of): rows padded by 16 bytes,
  //   max(stages*(tile_m*(tile_k + 16/size(A))*size(A) + tile_n*(tile_k + 16/size(B))*size(B)),
  //       cshuffle ? warps_m*warps_n*warp_tile_m*(warp_tile_n + 4)*4 : 0)
  hip_padded_ring_or_shuffle,
};

// The grouped-convolution kernels a pipeline builds on a target (an empty
// offer, directions == 0: none). A convolution key is an implicit GEMM, so the
// pipeline's GEMM rules apply to it too (conv_rules.hpp); this says which
// convolutions its kernels compute. Targets whose tables hold no offer keep
// the seed-derived convolution rules only (declarations validate, nothing is built).
struct conv_offer {
  std::uint32_t directions = 0;       // bit set over conv_direction
  std::uint32_t layouts = 0;          // bit set over conv_layout
  std::uint32_t dtypes = 0;           // data dtypes (input = weight = output), bit set over dtype
  std::uint32_t specializations = 0;  // bit set over conv_specialization
  int max_groups_to_merge = 1;
  // Schedulers its convolution kernels run (bit set over scheduler; by default every
  // concrete one: intrawave, interwave, pingpong, as far as the pipeline's GEMM rules allow).
  std::uint32_t schedulers = 0b111;
  // The narrowest access its convolution loaders issue, in bytes: the GEMM's narrower
  // widths (register-staged loads) are not open to the convolution gather.
  int min_vector_bytes = 1;
  // Operands (bit 0 input, 1 weights, 2 output) whose vector may also be one element:
  // the kernels read or write them element by element outside their gathers (a packed,
  // channel-padded copy; a pixel-mapped store), so any channel count and stride works.
  std::uint32_t element_operands = 0;
  // Where groups_to_merge > 1 is built: directions and layouts (bit sets; merged groups need
  // neighbouring groups' channels contiguous, kernels/conv/merged_groups.hpp).
  std::uint32_t merge_directions = 0;
  std::uint32_t merge_layouts = 0;
  // Where the stride1 specialization is built (when `specializations` holds it): directions
  // (bit set over conv_direction) and spatial ranks (bit d for d dimensions), one group per GEMM.
  std::uint32_t stride1_directions = 0;
  std::uint32_t stride1_ndims = 0;
  // The same for the stride1_rows specialization, and its kernel's shapes: tiles of `pixels` x 64
  // x 64 (bit i of stride1_rows_pixel_tiles: pixels = 64 i), the pingpong schedule with one
  // warpgroup's warps (4, 1, 1), the direct epilogue, at least stride1_rows_min_stages input rows
  // in its ring and the ring beside 9 taps of weights within the pipeline's smem_capacity
  // (dsl::conv_rules::stride1_rows_smem_bytes).
  std::uint32_t stride1_rows_directions = 0;
  std::uint32_t stride1_rows_ndims = 0;
  std::uint32_t stride1_rows_pixel_tiles = 0;
  int stride1_rows_min_stages = 0;
  // Specializations (bit set over conv_specialization) whose forward kernels fuse an epilogue
  // (bias, residual, activation: grouped_conv_key.hpp conv_fusion); 0: none fused.
  std::uint32_t fused_specializations = 0;
  // Whether its forward kernels may read the fusion from the problem at run time (conv_fusion::dynamic).
  bool dynamic_fusion = false;
  // 8-bit floating data (fp8 and bf8 input and weights, mixed or not) in forward convolutions, the
  // output in one of these dtypes (bit set over dtype; 0: no 8-bit data).
  std::uint32_t fp8_forward_outputs = 0;
  // Whether 8-bit keys are plain: no specialization, one group per GEMM, no fused epilogue.
  bool fp8_forward_plain = false;
  // Its implicit GEMMs' tile_n is a multiple of this (0: whatever the pipeline's GEMM takes).
  int tile_n_multiple = 0;
  constexpr bool empty() const { return directions == 0; }
};

// The direct convolution pipeline of a target (pipeline::direct_conv,
// kernels/conv/cuda/direct/): a memory-bound kernel on CUDA cores, not an
// implicit GEMM, so none of the GEMM rules apply. A key reads
//   tile      = (output rows, output columns, output channels) of one block
//   warps     = (warps per block, 1, 1)
//   warp_tile = (consecutive output columns per thread, output channels per thread, 1)
//   vectors   = elements per access along channels (input staging, weights, output)
// and the rules are (direct_config.cuh direct_unsupported_reason computes them too):
//   threads = 32 x warps in `threads`; channels per thread = vector_out;
//   tile.k = channel lanes x channels per thread with tile.m x tile.n = (threads / lanes) x pixels per thread;
//   tile.n a multiple of the pixels per thread; every vector a width in `vector_bytes`;
//   the input tile + halo of a 3x3 stride-1 filter plus the fp32 taps fit `smem_capacity`
//   (a larger filter or stride is checked per problem at run time: why_not).
// Where `staged_max_rows_per_thread` > 0 the target also builds the TMA-staged depthwise
// forward kernel (stages 2, kernels/conv/cuda/direct/dw_staged_sm90.cuh): 2-D channels-last
// forward only; warp_tile = (output columns per thread, channels per thread, output rows per
// thread), tile.m x tile.n = (threads / lanes) x columns x rows with tile.m a multiple of the
// rows and tile.n of the columns, tile.k whole 16-byte lines, and two input tiles + halo of a 3x3
// stride-1 filter in `smem_capacity`.
struct direct_conv_caps {
  std::uint32_t directions = 0;       // bit set over conv_direction
  std::uint32_t layouts = 0;          // bit set over conv_layout
  std::uint32_t dtypes = 0;           // data dtypes (input = weight = output)
  std::span<const int> threads;       // legal threads per block
  int max_tile_pixels = 0;            // tile.m x tile.n at most
  int max_tile_channels = 0;          // tile.k at most
  int max_pixels_per_thread = 0;      // warp_tile.m at most
  std::span<const int> vector_bytes;  // legal access widths along channels
  int smem_capacity = 0;              // bytes
  int staged_max_rows_per_thread = 0;  // 0: no staged depthwise kernel (stages 2) on this target
  constexpr bool empty() const { return directions == 0; }
};

struct pipeline_caps {
  pipeline pipe;
  std::span<const dtype_offer> dtypes;
  std::span<const shape3> warps;       // warps per block (m, n, k)
  int extra_warps;                     // warps added to the block beyond `warps` (producer warpgroup)
  shape3 tile_min;                     // smallest block tile per dimension
  shape3 tile_align;                   // block tile must be a multiple of this
  bool tile_n_is_warp_tile_n;          // one instruction spans the block's N (wgmma)
  int tile_k_bytes;                    // 0: free; else tile_k * size(A) must equal it (128-byte swizzle rows)
  std::span<const int> tile_m_sweep;   // values a tile wildcard tries
  std::span<const int> tile_n_sweep;
  std::span<const int> tile_k_sweep;
  int_range stages;                    // shared-memory ring depth: legal range and default
  std::uint32_t epilogues;             // bit set over epilogue
  std::uint32_t schedulers;            // bit set over scheduler
  std::span<const int> vector_bytes;   // legal global access widths, widest first
  int vector_default;
  smem_formula smem;
  int smem_capacity;                   // bytes the formula may reach on this target
  std::span<const shape2> clusters;    // thread-block cluster shapes
  bool preshuffle;                     // builds only the preshuffled-B variant
  // ---- kernel-specific limits (0 / false: none) --------------------------------
  std::uint32_t variants = unshuffled_variants;  // GEMM variants the pipeline builds (bit set)
  shape3 tile_max{0, 0, 0};            // largest block tile per dimension
  int max_accumulators = 0;            // accumulator registers per thread: tile_m*tile_n / (warps*warp_size)
  // Streaming (gemv) kernels: 16-byte chunks a lane holds in registers per step, (tile_m + tile_n) x
  // tile_k x size / (warps_k x 32 x 16): the step's rows of A and columns of B over the block's lanes.
  int max_chunks_in_flight = 0;
  int tile_chunk_bytes = 0;            // tile_m*size(A), tile_n*size(B), tile_k*size(A|B) multiples of it
  bool swizzle_rows = false;           // every operand's smem row is 16, 32, 64 or a multiple of 128 bytes
  // TMA boxes: an operand read M/N-major (A column-major, B row-major) moves in boxes this many
  // bytes wide along M or N, so its tile extent there is a multiple of it (0: no such rule).
  int mn_major_box_bytes = 0;
  int preshuffle_k_bytes = 0;          // preshuffle variant: tile_k*size(B) a multiple of it
  std::uint32_t block_scaled_layouts = all_layouts;  // block_scaled variant: layout triples built
  // block_scaled variant: tile_k may divide the 128-deep scale block (the kernel adds its k tiles'
  // sums up per block before scaling them); false: tile_k is the block (one scaling per k tile).
  bool block_scaled_k_tiles_per_block = false;
  // block_scaled variant: tile_n divides the 128 columns of one B scale (the kernel reads one B
  // scale per tile); false: tile_n may also be a multiple of 128.
  bool block_scaled_tile_n_in_one_block = false;
  conv_offer conv{};                   // grouped convolutions its kernels compute (none by default)
  // ---- alignment and offsets -------------------------------------------------------
  // The epilogue takes C and D at any address, leading dimension and batch stride
  // their dtype allows (it picks its access width per row at run time): the key's
  // vector_bytes then binds A and B only. false: it binds C and D too.
  bool epilogue_any_alignment = false;
  // vector_bytes = 1 means element-by-element access at any address (host), not a
  // 1-byte vector: no element-size rule applies to it.
  bool width_one_is_scalar = false;
  std::span<const int> index_bits = index_bits_32;  // offset widths (gemm_algorithm::index_bits) built
};

// ---------------------------------------------------------------------------
// One target.

struct arch_spec {
  arch_id id;
  backend be;
  std::string_view family;          // cdna3, rdna4, ampere, hopper, host, ...
  std::string_view target_family;   // gfx9, gfx11, gfx12, sm_8x, sm_9x, host
  std::string_view description;
  int warp_size;                    // 64 CDNA, 32 RDNA and NVIDIA, 1 host (a "warp" is a thread)
  int max_threads_per_block;
  int smem_per_block;               // LDS per workgroup / opt-in shared memory per block, bytes
  int registers_per_sm;             // 32-bit registers per SM / CU (0: not tabulated)
  bool has_fp8;                     // fp8/bf8 matrix instructions exist
  // Reference part for the cost models' estimates: every target kdecl builds kernels for has one
  // (tests/unit/arch_reference_part_test.cpp); RDNA targets (tables only) have none.
  std::string_view reference_part;
  int sm_count;                     // SMs (NVIDIA) or CUs (AMD) of the reference part
  double mem_bandwidth_gbs;
  std::span<const peak_rate> peaks;
  // Raw tables (CK Tile arch specs for AMD; instruction shapes for NVIDIA).
  std::span<const shape3> warp_configs;
  std::span<const warp_tile_list> warp_tiles;
  std::span<const warp_tile_list> preshuffle_warp_tiles;
  std::span<const mma_instruction> mma;
  std::span<const trait_triple> unsupported_traits;
  // What each pipeline offers here.
  std::span<const pipeline_caps> pipelines;
  // Whether kdecl builds GEMM kernels for this target. Targets without them keep
  // their (seed-derived) tables so declarations can be validated and explored
  // (dsl::expand_legal), but dsl::expand -- what DECL_KERNEL_SET builds -- rejects them.
  bool kernels_available = false;
  // The direct convolution pipeline (conv keys only; empty: not built here).
  direct_conv_caps direct_conv{};

  // The reference part's dense peak for `compute` in TFLOP/s (TOP/s for int8); 0 where not tabulated.
  constexpr double peak_tflops(dtype compute) const {
    double tflops = 0.0;
    for (const auto& r : peaks)
      if (r.compute == compute) tflops = r.tflops;
    return tflops;
  }

  constexpr const pipeline_caps* find(pipeline p) const {
    for (const auto& c : pipelines)
      if (c.pipe == p) return &c;
    return nullptr;
  }
  // Whether kdecl builds grouped-convolution kernels here: GEMM kernels are
  // built (the implicit GEMM's machinery) and some pipeline offers convolutions.
  constexpr bool conv_kernels_available() const {
    if (!kernels_available) return false;
    for (const auto& c : pipelines)
      if (!c.conv.empty()) return true;
    return !direct_conv.empty();
  }
  constexpr bool trait_unsupported(pipeline p, epilogue e, scheduler s) const {
    for (const auto& t : unsupported_traits)
      if (t.pipe == p && t.epi == e && t.sched == s) return true;
    return false;
  }
};

}  // namespace kdecl::arch
