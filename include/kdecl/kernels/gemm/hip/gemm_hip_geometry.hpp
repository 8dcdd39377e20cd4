// What the HIP GEMM supports, and the block geometry it derives from a key.
//
// hip_gemm_unsupported(key) is the single list of rules: it returns the first
// rule the key breaks (one sentence) or nullptr. The kernel template asserts it
// at compile time (the sentence appears in the compiler's "in call to
// 'reject(...)'" note), and arch tables or registries may call it to filter.
//
// Block structure: warps.m x warps.n wavefronts of 64 lanes; each wave owns a
// (tile.m / warps.m) x (tile.n / warps.n) sub-tile, covered by rep_m x rep_n
// warp tiles of warp_tile.m x warp_tile.n, each one MFMA output tile.
// LDS holds the A tile as tile.m rows and the B tile as tile.n rows, both
// k-contiguous, each row padded by 16 bytes (keeps 16-byte alignment for vector
// stores and spreads rows over banks). The cshuffle epilogue reuses the same LDS.
// Needs no HIP header: host-only code may include it to filter keys.
#pragma once

#include <algorithm>

#include "kdecl/core/enums.hpp"
#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/gemm/gemm_problem.hpp"
#include "kdecl/kernels/hip/mfma_table.hpp"

namespace kdecl::kernels::hip {

inline constexpr int wave_size = 64;            // CDNA wavefront
inline constexpr int lds_capacity = 65536;      // bytes per workgroup on gfx90a and gfx942
inline constexpr int lds_row_pad_bytes = 16;
inline constexpr int max_accumulators = 256;    // per lane; beyond this the wave spills

// LDS tiles the main loop keeps: mem and compv3 one, compv4 two. The key's
// `stages` (shared-memory ring depth) must equal it.
constexpr int lds_buffers_of(pipeline p) {
  switch (p) {
    case pipeline::mem: case pipeline::compv3: return 1;
    case pipeline::compv4: return 2;
    default: return 0;
  }
}

struct hip_gemm_geometry {
  int threads = 0;
  int waves = 0;
  int rep_m = 0, rep_n = 0;            // warp tiles per wave along m and n
  int wave_m = 0, wave_n = 0;          // sub-tile one wave owns
  mfma_shape inst{};                   // native instruction
  int k_repeat = 0;                    // instructions per warp tile along k
  int fragment_bytes = 0;              // LDS bytes one lane reads per operand and warp tile
  int accumulators = 0;                // per lane
  int a_bytes = 0, b_bytes = 0, c_bytes = 0;  // element sizes
  int lds_row_a = 0, lds_row_b = 0;    // padded LDS row length, elements
  int lds_buffers = 0;
  int lds_mainloop_bytes = 0;
  int shuffle_row = 0;                 // cshuffle staging row length, accumulator elements
  int c_vector = 0;                    // C/D elements per vector access in the cshuffle epilogue
  int lds_epilogue_bytes = 0;
  int lds_bytes = 0;
};

constexpr hip_gemm_geometry geometry_of(const gemm_key& k) {
  hip_gemm_geometry g;
  const auto& a = k.algo;
  g.waves = a.warps.m * a.warps.n;
  g.threads = g.waves * wave_size;
  g.wave_m = a.warp_tile.m > 0 && a.warps.m > 0 ? a.tile.m / a.warps.m : 0;
  g.wave_n = a.warp_tile.n > 0 && a.warps.n > 0 ? a.tile.n / a.warps.n : 0;
  g.rep_m = a.warp_tile.m > 0 ? g.wave_m / a.warp_tile.m : 0;
  g.rep_n = a.warp_tile.n > 0 ? g.wave_n / a.warp_tile.n : 0;
  g.inst = native_mfma(k.sig.a, a.arch, a.warp_tile.m);
  g.a_bytes = bits_of(k.sig.a) / 8;
  g.b_bytes = bits_of(k.sig.b) / 8;
  g.c_bytes = bits_of(k.sig.c) / 8;
  g.k_repeat = g.inst.exists() ? a.warp_tile.k / g.inst.k : 0;
  g.fragment_bytes = g.k_repeat * g.inst.k_per_lane * g.a_bytes;
  g.accumulators = g.rep_m * g.rep_n * (g.inst.exists() ? g.inst.mn * g.inst.mn / wave_size : 0);
  if (g.a_bytes == 0 || g.b_bytes == 0 || g.c_bytes == 0) return g;
  g.lds_row_a = a.tile.k + lds_row_pad_bytes / g.a_bytes;
  g.lds_row_b = a.tile.k + lds_row_pad_bytes / g.b_bytes;
  g.lds_buffers = lds_buffers_of(a.pipe);
  g.lds_mainloop_bytes = g.lds_buffers * (a.tile.m * g.lds_row_a * g.a_bytes + a.tile.n * g.lds_row_b * g.b_bytes);
  g.shuffle_row = a.warp_tile.n + 4;  // 4 accumulators of padding: rows start 16-byte aligned, on distinct banks
  g.c_vector = std::max(1, std::min(a.vector_bytes / g.c_bytes, a.warp_tile.n));
  g.lds_epilogue_bytes = a.epi == epilogue::cshuffle ? g.waves * a.warp_tile.m * g.shuffle_row * 4 : 0;
  g.lds_bytes = std::max(g.lds_mainloop_bytes, g.lds_epilogue_bytes);
  return g;
}

// Returns the first rule `k` breaks, or nullptr when the HIP GEMM implements it.
constexpr const char* hip_gemm_unsupported(const gemm_key& k) {
  const auto& s = k.sig;
  const auto& a = k.algo;
  if (!k.concrete()) return "hip gemm: the key still holds a wildcard";
  if (a.arch != arch_id::gfx90a && a.arch != arch_id::gfx942) return "hip gemm: arch must be gfx90a or gfx942";
  if (s.variant == gemm_variant::preshuffle) return "hip gemm: the preshuffle variant is not implemented";
  if (s.variant == gemm_variant::standard && (s.ew != elementwise::pass_through || s.num_d != 0))
    return "hip gemm: a standard GEMM has no elementwise op and no D tensors";
  if (s.num_d < 0 || s.num_d > max_d_tensors) return "hip gemm: num_d must be within 0..max_d_tensors";
  if (s.a != s.b) return "hip gemm: A and B must have the same dtype";
  if (s.compute != s.a) return "hip gemm: compute dtype must equal the data dtype (no tf32/xf32)";
  if (s.acc != default_accumulator(s.a)) return "hip gemm: accumulator must be fp32 (int32 for int8)";
  if (s.a != dtype::fp16 && s.a != dtype::bf16 && s.a != dtype::fp32 && s.a != dtype::int8 &&
      s.a != dtype::fp8 && s.a != dtype::bf8)
    return "hip gemm: A/B dtype must be fp16, bf16, fp32, int8, fp8 or bf8";
  if ((s.a == dtype::fp8 || s.a == dtype::bf8) && a.arch != arch_id::gfx942)
    return "hip gemm: fp8/bf8 need gfx942 (gfx90a has no fp8 MFMA)";
  if (s.acc == dtype::int32 && s.c != dtype::int32 && s.c != dtype::int8)
    return "hip gemm: int8 GEMM writes C as int32 or int8";
  if (s.acc == dtype::fp32 && s.c != dtype::fp16 && s.c != dtype::bf16 && s.c != dtype::fp32)
    return "hip gemm: C dtype must be fp16, bf16 or fp32";
  if (s.lay.c != layout::row) return "hip gemm: C (and D) must be row-major";
  if (a.cluster_m != 1 || a.cluster_n != 1) return "hip gemm: clusters are an sm_90 feature";
  if (a.sched != scheduler::intrawave) return "hip gemm: only the intrawave scheduler is implemented";
  if (a.epi != epilogue::direct && a.epi != epilogue::cshuffle) return "hip gemm: epilogue must be direct or cshuffle";
  if (lds_buffers_of(a.pipe) == 0) return "hip gemm: pipeline must be mem, compv3 or compv4";
  if (a.stages != lds_buffers_of(a.pipe))
    return "hip gemm: stages must be the pipeline's LDS tile count (mem 1, compv3 1, compv4 2)";
  if (a.warps.k != 1) return "hip gemm: warps.k must be 1";
  if (a.warps.m * a.warps.n > 16) return "hip gemm: at most 16 waves (1024 threads) per block";
  if (a.warp_tile.m != a.warp_tile.n) return "hip gemm: warp tile must be square in m and n (16 or 32)";
  const hip_gemm_geometry g = geometry_of(k);
  if (!g.inst.exists()) return "hip gemm: no MFMA instruction for this dtype, arch and warp_tile m/n";
  if (a.warp_tile.k % g.inst.k != 0) return "hip gemm: warp_tile.k must be a multiple of the MFMA instruction's k";
  if (g.fragment_bytes != 4 && g.fragment_bytes != 8 && g.fragment_bytes != 16)
    return "hip gemm: warp_tile.k must make one lane's operand slice 4, 8 or 16 bytes (one LDS read)";
  if (a.tile.m % (a.warps.m * a.warp_tile.m) != 0) return "hip gemm: tile.m must be a multiple of warps.m * warp_tile.m";
  if (a.tile.n % (a.warps.n * a.warp_tile.n) != 0) return "hip gemm: tile.n must be a multiple of warps.n * warp_tile.n";
  if (a.tile.k % a.warp_tile.k != 0) return "hip gemm: tile.k must be a multiple of warp_tile.k";
  if ((a.tile.k * g.a_bytes) % 16 != 0 || (a.tile.k * g.b_bytes) % 16 != 0)
    return "hip gemm: tile.k must span a multiple of 16 bytes (LDS row alignment)";
  if (a.vector_bytes != 4 && a.vector_bytes != 8 && a.vector_bytes != 16) return "hip gemm: vector_bytes must be 4, 8 or 16";
  if (a.vector_bytes < g.a_bytes || a.vector_bytes < g.c_bytes) return "hip gemm: vector_bytes smaller than one element";
  const int va = a.vector_bytes / g.a_bytes, vb = a.vector_bytes / g.b_bytes;
  if ((s.lay.a == layout::row ? a.tile.k : a.tile.m) % va != 0)
    return "hip gemm: A tile's contiguous extent must be a multiple of the vector width";
  if ((s.lay.b == layout::col ? a.tile.k : a.tile.n) % vb != 0)
    return "hip gemm: B tile's contiguous extent must be a multiple of the vector width";
  if (g.accumulators > max_accumulators) return "hip gemm: more than 256 accumulators per lane (tile too large for the waves)";
  if (g.lds_bytes > lds_capacity) return "hip gemm: LDS footprint above 64 KiB";
  return nullptr;
}

namespace detail {
// Reaching the throw ends constant evaluation; compilers print the call, i.e. the reason.
constexpr bool reject(const char* reason, bool fail = true) {
  if (fail) throw reason;
  return false;
}
}  // namespace detail

// For static_assert: compiles to true, or fails naming the broken rule.
constexpr bool hip_gemm_require_supported(const gemm_key& k) {
  if (const char* why = hip_gemm_unsupported(k)) return detail::reject(why);
  return true;
}

}  // namespace kdecl::kernels::hip
