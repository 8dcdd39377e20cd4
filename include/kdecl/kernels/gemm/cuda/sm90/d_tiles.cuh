// multi_d with the staged (cshuffle) epilogue: the D tensors of a tile travel by
// TMA into the operand ring, so the epilogue reads D from shared memory instead of
// waiting on global loads (one round trip per 4-element pass, 32 per tile, was the
// cost of multi_d; see docs/kernels/sm90.md).
//
// A tile's D data is cut into chunks of tile_m rows x 32 columns (one cshuffle
// strip) per D tensor, ordered strip-major: chunk q = strip * num_d + d. Chunks
// fill ring slots (A part first, then B part, whole chunks only); the producer
// loads those "D slots" right after the tile's last k-block, in ring order, so they
// arrive while the consumers still run the main loop. The epilogue waits for a slot
// when it first needs one of its strips and frees it after the last strip in it,
// which lets a tile's D data exceed the ring as long as one strip's chunks do not.
#pragma once

#include <cstdint>

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90_config.cuh"
#include "kdecl/kernels/cuda/sm90/mbarrier.cuh"

namespace kdecl::kernels::cuda::sm90 {

template <class Cfg>
struct d_tile_layout {
  static constexpr gemm_key K = Cfg::key;
  static constexpr int num_d = K.sig.variant == gemm_variant::multi_d ? K.sig.num_d : 0;
  static constexpr int chunk_cols = 32;  // == cshuffle_cols (checked in epilogue_cshuffle.cuh)
  static constexpr int chunk_bytes = Cfg::tile_m * chunk_cols * static_cast<int>(sizeof(typename Cfg::out_t));
  static constexpr int chunks_in_a = Cfg::a_stage_bytes / chunk_bytes;
  static constexpr int chunks_in_b = Cfg::b_stage_bytes / chunk_bytes;
  static constexpr int chunks_per_slot = chunks_in_a + chunks_in_b;
  static constexpr int strips = Cfg::tile_n / chunk_cols;
  static constexpr int chunks = num_d * strips;
  static constexpr int slots = chunks_per_slot > 0 ? (chunks + chunks_per_slot - 1) / chunks_per_slot : 0;

  // The last slot strip s reads, and how many slots are finished once strip s is done.
  static constexpr int last_slot(int s) { return ((s + 1) * num_d - 1) / chunks_per_slot; }
  static constexpr int slots_done_after(int s) {
    return s < 0 ? 0 : (s == strips - 1 ? slots : (s + 1) * num_d / chunks_per_slot);
  }
  // The most slots the epilogue holds at once; more than the ring has would deadlock.
  static constexpr int most_held() {
    int most = 0;
    for (int s = 0; s < strips; ++s) {
      const int held = last_slot(s) - slots_done_after(s - 1) + 1;
      most = held > most ? held : most;
    }
    return most;
  }
  static constexpr bool enabled =
      Cfg::staged_epilogue && num_d > 0 && chunks_per_slot > 0 && most_held() <= Cfg::stages;

  // Chunks in slot j and the bytes its full barrier waits for.
  static constexpr int chunks_in_slot(int j) {
    const int rest = chunks - j * chunks_per_slot;
    return rest < chunks_per_slot ? rest : chunks_per_slot;
  }
};

// The D slots of one tile as a consumer sees them: where the first one is in the ring.
struct d_ring_view {
  unsigned char* ring_a;
  unsigned char* ring_b;
  std::uint64_t* full;
  std::uint64_t* empty;
  int stage;             // ring stage of D slot 0
  std::uint32_t phase;   // its full-barrier parity
};

template <class Cfg>
__device__ __forceinline__ int d_slot_stage(const d_ring_view& r, int j) {
  return (r.stage + j) % Cfg::stages;
}

template <class Cfg>
__device__ __forceinline__ std::uint32_t d_slot_phase(const d_ring_view& r, int j) {
  return r.phase ^ (((r.stage + j) / Cfg::stages) & 1u);
}

// Shared-memory address of chunk q of the tile (row-major, tile_m x 32 elements).
template <class Cfg>
__device__ __forceinline__ unsigned char* d_chunk(unsigned char* ring_a, unsigned char* ring_b, int stage, int q) {
  using dl = d_tile_layout<Cfg>;
  const int o = q % dl::chunks_per_slot;
  return o < dl::chunks_in_a ? ring_a + stage * Cfg::a_stage_bytes + o * dl::chunk_bytes
                             : ring_b + stage * Cfg::b_stage_bytes + (o - dl::chunks_in_a) * dl::chunk_bytes;
}

}  // namespace kdecl::kernels::cuda::sm90
