// What an fmha_key means for the HIP/MFMA attention kernel (CK's qr pipeline, and
// qr_pagedkv for the serving families over a paged cache, on gfx90a and gfx942): the
// keys it builds (fmha_hip_unsupported, its single list of rules) and the numbers its
// code is made of (fmha_hip_geometry). Plain constexpr
// C++ without HIP headers, so the arch tables' agreement test and the host tests
// read the same rules the kernel static_asserts.
//
// Compiled for gfx90a and gfx940 by hipcc, never run: no AMD GPU is available to
// this project (docs/fmha.md, "The HIP/MFMA kernel").
#pragma once

#include "kdecl/arch/fmha_specs.hpp"
#include "kdecl/fmha/fmha_key.hpp"
#include "kdecl/kernels/hip/mfma_table.hpp"

namespace kdecl::kernels::hip {

inline constexpr int fmha_wave = 64;           // lanes per wavefront on CDNA
inline constexpr int fmha_max_accumulators = 256;  // fp32 S and O values per lane; beyond, the wave spills

struct fmha_hip_geometry {
  int mn = 0;              // MFMA output edge (32: v_mfma_f32_32x32x8*, 16: v_mfma_f32_16x16x16*)
  int k_instr = 0;         // K of one MFMA (8 or 16)
  int lane_groups = 0;     // 64 / mn: lanes that share one output column
  int waves = 0, threads = 0;
  int m0 = 0, rows_per_wave = 0, rep_m = 0;  // query rows: per block, per wave, MFMA row tiles per wave
  int n0 = 0, n_tiles = 0;                   // keys per block and their MFMA tiles
  int k0 = 0, d_pad = 0, k_slices = 0;       // Q K^T: K slice width, head dim rounded up to k0, slices
  int pair = 0, pairs = 0, pairs_per_slice = 0;  // two MFMAs read one 16-byte fragment (pair dims)
  int k1 = 0, v_slices = 0;                  // P V: V slice length in keys, slices per block
  int n1 = 0, o_tiles = 0;                   // V / O head dim (padded) and its MFMA tiles
  int pv_per_tile = 0;                       // P V instructions fed by one S^T tile's accumulators
  int acc = 0;                               // accumulators of one MFMA output tile per lane
  int k_pitch = 0, v_pitch = 0;              // LDS row bytes: K slice rows (keys), V^T rows (dims)
  int k_bytes = 0, lds_bytes = 0;
  int accumulators = 0;                      // fp32 S and O values per lane
};

// nullptr when the kernel builds `k`, else the first rule it breaks (fmha<K> static_asserts it).
constexpr const char* fmha_hip_unsupported(const fmha_key& k) {
  const auto& s = k.sig;
  const auto& a = k.algo;
  const auto& t = a.tile;
  if (!k.concrete()) return "the HIP attention kernel needs a concrete key";
  if (a.pipe != fmha_pipeline::qr && a.pipe != fmha_pipeline::qr_pagedkv)
    return "the HIP attention kernel implements CK's qr and qr_pagedkv pipelines";
  if (a.arch != arch_id::gfx90a && a.arch != arch_id::gfx942) return "the HIP attention kernel targets gfx90a and gfx942";
  if (a.pipe == fmha_pipeline::qr && s.family != fmha_family::fwd) return "qr is the forward pass (family fwd)";
  if (a.pipe == fmha_pipeline::qr_pagedkv && s.family != fmha_family::fwd_pagedkv && s.family != fmha_family::fwd_splitkv &&
      s.family != fmha_family::batch_prefill)
    return "qr_pagedkv serves fwd_pagedkv, fwd_splitkv and batch_prefill";
  if ((s.qkv != dtype::fp16 && s.qkv != dtype::bf16) || s.o != s.qkv)
    return "the HIP attention kernel computes fp16 or bf16 (O in Q's dtype)";
  if (s.cache != dtype::any && s.cache != s.qkv) return "the HIP kernels keep the cache in Q's dtype (no fp8 cache)";
  if (a.pipe == fmha_pipeline::qr_pagedkv && s.bias != fmha_bias::none) return "qr_pagedkv takes no bias or ALiBi";
  if (s.dropout || s.v_layout != layout::row) return "no dropout, row-major V";
  if (!(a.warp_tile0 == a.warp_tile1) || !(a.warps0 == a.warps1)) return "both stages run on one set of warps and warp tile";
  const mfma_shape mf = native_mfma(s.qkv, a.arch, a.warp_tile0.m);
  if (!mf.exists() || a.warp_tile0.n != a.warp_tile0.m || a.warp_tile0.k != 2 * mf.k)
    return "warp tiles are 32x32x16 or 16x16x32 (two MFMAs per 16-byte fragment)";
  if (a.warps0.n != 1 || a.warps0.k != 1 || a.warps0.m < 1 || a.warps0.m > 16) return "warps split the query rows only (1..16)";
  const int mn = mf.mn;
  if (t.m0 % (a.warps0.m * mn) != 0) return "m0 is a multiple of warps x the MFMA edge";
  if (t.n0 % mn != 0) return "n0 is a multiple of the MFMA edge";
  if (t.k0 % (2 * mf.k) != 0) return "k0 is a multiple of two MFMA k steps";
  if (t.k1 % mf.k != 0) return "k1 is a multiple of the MFMA k step";
  if (t.n1 % mn != 0) return "n1 is a multiple of the MFMA edge";
  if (t.k0max < s.hdim_q || t.n1 < s.hdim_v) return "k0max and n1 hold the head dims";
  return nullptr;
}

constexpr fmha_hip_geometry fmha_geometry_of(const fmha_key& k) {
  fmha_hip_geometry g{};
  const auto& t = k.algo.tile;
  const mfma_shape mf = native_mfma(k.sig.qkv, k.algo.arch, k.algo.warp_tile0.m);
  const int e = bits_of(k.sig.qkv) / 8;
  g.mn = mf.mn;
  g.k_instr = mf.k;
  g.lane_groups = fmha_wave / g.mn;
  g.waves = k.algo.warps0.m;
  g.threads = g.waves * fmha_wave;
  g.m0 = t.m0;
  g.rows_per_wave = t.m0 / g.waves;
  g.rep_m = g.rows_per_wave / g.mn;
  g.n0 = t.n0;
  g.n_tiles = t.n0 / g.mn;
  g.k0 = t.k0;
  g.d_pad = (t.k0max + t.k0 - 1) / t.k0 * t.k0;
  g.k_slices = g.d_pad / t.k0;
  g.pair = 2 * mf.k;  // = lane_groups * 8: each lane group reads 8 consecutive dims
  g.pairs = g.d_pad / g.pair;
  g.pairs_per_slice = t.k0 / g.pair;
  g.k1 = t.k1;
  g.v_slices = (t.n0 + t.k1 - 1) / t.k1;
  g.n1 = t.n1;
  g.o_tiles = t.n1 / g.mn;
  g.acc = g.mn * g.mn / fmha_wave;
  g.pv_per_tile = g.acc / 4;
  g.k_pitch = t.k0 * e + 16;
  g.v_pitch = t.k1 * e + 8;
  g.k_bytes = t.n0 * g.k_pitch;
  g.lds_bytes = g.k_bytes + t.n1 * g.v_pitch;
  g.accumulators = g.rep_m * (g.n_tiles + g.o_tiles) * g.acc;
  return g;
}

// fmha_hip_unsupported, then the limits of the geometry (LDS, registers).
constexpr const char* fmha_hip_unbuildable(const fmha_key& k) {
  if (const char* why = fmha_hip_unsupported(k)) return why;
  const fmha_hip_geometry g = fmha_geometry_of(k);
  if (g.lds_bytes > kdecl::arch::fmha::mfma_lds_bytes) return "the K and V^T slices exceed 64 KiB of LDS";
  if (g.accumulators > fmha_max_accumulators) return "S and O exceed 256 fp32 accumulators per lane";
  return nullptr;
}

}  // namespace kdecl::kernels::hip
