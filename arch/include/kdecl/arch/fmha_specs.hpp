// FMHA tables per target.
//
// AMD targets: CK Tile's fmha_arch_specs.json and codegen/fmha/validation.py
// (ck_dispatcher_notes.md section 8), unchanged.
// NVIDIA targets: the mma_sync pipeline (sm_80+, FlashAttention-2 style:
// cp.async K/V ring, ldmatrix, mma.sync m16n8k16) whose kernel is
// include/kdecl/kernels/fmha/cuda/sm80/, and on sm_90 the tma_wgmma_ws pipeline
// (FlashAttention-3 style: TMA + mbarrier ring, a producer warpgroup, consumer
// warpgroups issuing wgmma) whose kernel is include/kdecl/kernels/fmha/cuda/sm90/.
// Host: the host_tiled pipeline (include/kdecl/kernels/fmha/host/).
// gfx90a and gfx942: CK's qr pipeline (forward) and qr_pagedkv (decode, split-KV and
// batch_prefill over a paged cache) are built by kdecl's HIP/MFMA kernel, appendkv by its
// HIP append kernel (include/kdecl/kernels/fmha/hip/; compiled for gfx90a and gfx940,
// never run): CK's signature and tile rules plus the kernels' own limits (mfma_qr,
// mfma_qr_pagedkv, hip_appendkv below).
//
// Each formula below is the one its kernel computes (file named), so a key the
// tables accept always fits when the kernel is instantiated.
#pragma once

#include <span>

#include "kdecl/arch/arch_spec.hpp"
#include "kdecl/fmha/fmha_key.hpp"

namespace kdecl::arch::fmha {

struct hdim_pair {
  int q, v;
};

struct dtype_offer {
  dtype qkv, o;
  std::span<const hdim_pair> hdims;     // offered (q, v) pairs; empty: any multiple of 8 up to max_hdim
  std::span<const shape3> warp_tiles;   // the first is the default
  int max_hdim = 0;
};

// Which family of rules a pipeline's keys follow.
enum class rule_style : std::uint8_t {
  ck_tile,    // CK Tile's tile constraints (free k0 slices, LDS formula for qr/qs)
  mma_sync,   // k0 = k0max, k1 = n0, n1 = padded hdim_v; Q + K/V ring in shared memory; register cap
  tma_wgmma,  // as mma_sync, plus m0 = 64 rows per consumer warpgroup, n0 and n1 up to 256 (wgmma N)
  host,       // as mma_sync without shared memory or registers
  paged,      // the serving kernels (paged_decode, paged_append): as mma_sync, with the one tile the
              // kernel has (the tile sweeps hold one value each) and K and V of one head dim
};

// How a pipeline's shared memory is computed from a key (bytes; e = element size):
enum class smem_formula : std::uint8_t {
  none,
  // CK qr/qs (validation.py): (m0*k0 + n0*k0) * e, against lds_limit_qr. Async CK pipelines: not modelled.
  ck_qr,
  // mma_sync (kernels/fmha/cuda/sm80/fmha_sm80_config.cuh smem_bytes): rows padded by 16 bytes,
  //   m0*(max(k0max, n1)*e + 16) + stages*n0*((k0max*e + 16) + (n1*e + 16))
  q_kv_ring_padded,
  // tma_wgmma_ws (kernels/fmha/cuda/sm90/fmha_sm90_config.cuh smem_bytes): Q, the K/V ring,
  // four mbarriers per stage (K and V full and empty) plus two, 1 KiB of alignment slack:
  //   m0*k0max*e + stages*n0*(k0max + n1)*e + 8*(4*stages + 2) + 1024
  tma_q_kv_ring_o,
  // qr on gfx90a / gfx942, kdecl's HIP kernel (kernels/fmha/hip/fmha_hip_geometry.hpp lds_bytes): a K slice
  //   of n0 keys x k0 dims (rows padded by 16 bytes) and a V slice of k1 keys held transposed (n1 rows
  //   of k1 keys, padded by 8 bytes): n0*(k0*e + 16) + n1*(k1*e + 8)
  mfma_k_vt_slices,
  // paged_decode (kernels/fmha/cuda/decode/decode_plan.hpp decode_smem_bytes): Q (16 rows), the
  //   K/V cp.async ring of 64-key tiles (rows padded by 16 bytes, cache dtype c; an fp8 cache is
  //   widened in registers), or the warps' merge buffer if larger:
  //   max(16*(2d+16) + stages*2*64*(d*c+16),  4*16*d*4 + 4*16*2*4)
  paged_decode_ring,
};

struct int_range {
  int min, max, def;
};

struct pipeline_offer {
  fmha_pipeline pipe;
  rule_style rules;
  std::span<const shape3> warps;  // warps per block (stage 0; NVIDIA and host: stage 1 the same); empty: any
  int extra_warps;                // warps beyond `warps` (a producer warpgroup)
  std::span<const int> m0_sweep;  // values a tile wildcard walks
  std::span<const int> n0_sweep;
  std::span<const int> k0_sweep;  // empty: k0 is k0max (the whole head dim per step)
  int_range stages;               // K/V ring depth
  smem_formula smem;
  int smem_capacity;              // bytes the formula may reach on this target (0: none)
  int max_accumulators;           // fp32 accumulators (O and S) per thread; 0: no cap
  int max_n;                      // largest n0 and n1 (wgmma N); 0: no cap
  bool kernel_built;              // kdecl builds this pipeline's kernel (dsl::expand<> requires it)
  // Global access width in bytes: rows (head dims), strides and pointers must be
  // multiples of it. 0: one element (no constraint beyond the dtype).
  int access_bytes = 0;
  std::uint32_t families = 0;  // bit set over fmha_family of the families it serves; 0: every one of the target's
  bool fp8_cache = false;      // reads / writes an fp8 (e4m3) paged cache (signature cache = fp8)
  std::uint32_t qkv_dtypes = 0;  // bit set over dtype of the Q/K/V dtypes it computes; 0: every one the target offers
};

struct target {
  arch_id id;
  std::span<const dtype_offer> dtypes;
  std::span<const pipeline_offer> pipelines;
  bool trload, v3;
  std::uint32_t families;          // bit set over fmha_family
  bool dropout;                    // dropout offered
  bool v_col_major;                // column-major V offered
  bool soft_cap_with_bias;         // logits soft-cap may combine with a bias
  bool ck_rules;                   // CK Tile's signature rules (hdim 192/128, k0max map) apply
};

// ---------------------------------------------------------------------------
// AMD (CK Tile)

// supported_hdims
inline constexpr hdim_pair hdims_16bit[] = {{32, 32}, {64, 64}, {80, 96}, {96, 128}, {128, 128},
                                            {160, 160}, {192, 128}, {192, 192}, {256, 256}};
inline constexpr hdim_pair hdims_fp32[] = {{32, 32}, {48, 48}, {64, 64}, {96, 128}, {128, 128}, {192, 192}, {256, 256}};
inline constexpr hdim_pair hdims_fp8[] = {{64, 64}, {128, 128}, {192, 128}, {256, 256}};
inline constexpr hdim_pair hdims_fp8fp32[] = {{128, 128}};

// fmha_warp_tiles
inline constexpr shape3 warp_tiles_16bit[] = {{32, 32, 16}, {16, 16, 32}};
inline constexpr shape3 warp_tiles_fp32[] = {{16, 16, 16}};
inline constexpr shape3 warp_tiles_fp8[] = {{32, 32, 32}};

// k0max_map: hdim_q -> padded K tile
inline constexpr hdim_pair k0max_map[] = {{32, 32}, {48, 48}, {64, 64}, {80, 96}, {96, 128},
                                          {128, 128}, {160, 256}, {192, 192}, {256, 256}};

// tile_sweep_ranges (values an m0 / n0 / k0 wildcard tries)
inline constexpr int sweep_m0[] = {16, 32, 64, 128, 192, 256};
inline constexpr int sweep_n0[] = {16, 32, 64, 96, 128, 192, 256, 384};
inline constexpr int sweep_k0[] = {16, 32, 64, 96, 128, 256};

// lds_limits for the non-async pipelines (qr, qs); async ones use their own formula.
inline constexpr int lds_limit_qr = 65536;

inline constexpr dtype_offer dtypes_gfx90a[] = {
    {dtype::fp16, dtype::fp16, hdims_16bit, warp_tiles_16bit},
    {dtype::bf16, dtype::bf16, hdims_16bit, warp_tiles_16bit},
    {dtype::fp32, dtype::fp32, hdims_fp32, warp_tiles_fp32},
};
inline constexpr dtype_offer dtypes_gfx94x[] = {  // gfx942 and gfx950
    {dtype::fp16, dtype::fp16, hdims_16bit, warp_tiles_16bit},
    {dtype::bf16, dtype::bf16, hdims_16bit, warp_tiles_16bit},
    {dtype::fp32, dtype::fp32, hdims_fp32, warp_tiles_fp32},
    {dtype::fp8, dtype::fp8, hdims_fp8, warp_tiles_fp8},
    {dtype::fp8, dtype::fp16, hdims_fp8, warp_tiles_fp8},
    {dtype::fp8, dtype::bf16, hdims_fp8, warp_tiles_fp8},
    {dtype::fp8, dtype::fp32, hdims_fp8fp32, warp_tiles_fp8},
    {dtype::bf8, dtype::bf8, hdims_fp8, warp_tiles_fp8},
};
inline constexpr dtype_offer dtypes_gfx1100[] = {
    {dtype::fp16, dtype::fp16, hdims_16bit, warp_tiles_16bit},
    {dtype::bf16, dtype::bf16, hdims_16bit, warp_tiles_16bit},
};
inline constexpr dtype_offer dtypes_gfx1201[] = {
    {dtype::fp16, dtype::fp16, hdims_16bit, warp_tiles_16bit},
    {dtype::bf16, dtype::bf16, hdims_16bit, warp_tiles_16bit},
    {dtype::fp8, dtype::fp8, hdims_fp8, warp_tiles_fp8},
    {dtype::fp8, dtype::bf16, hdims_fp8, warp_tiles_fp8},
};

using P = fmha_pipeline;
constexpr pipeline_offer ck(fmha_pipeline p) {
  return {p, rule_style::ck_tile, {}, 0, sweep_m0, sweep_n0, sweep_k0, {1, 1, 1}, smem_formula::ck_qr,
          lds_limit_qr, 0, 0, false};
}
inline constexpr pipeline_offer pipes_gfx9[] = {ck(P::qr), ck(P::qr_async), ck(P::qs), ck(P::qr_pagedkv),
                                                ck(P::qr_nwarp_sshuffle), ck(P::appendkv)};

// kdecl's HIP/MFMA attention kernel (kernels/fmha/hip/) implements CK's qr pipeline (Q in registers,
// K and V through LDS in k0 / k1 slices) on gfx90a and gfx942. CK's rules hold (head dim pairs,
// k0max map, k0 divides hdim_q, warp tiles 32x32x16 / 16x16x32, tile multiples); the kernel adds:
// warps along the query rows only (stage 1 as stage 0), the forward family, fp16 and bf16, its own
// LDS formula within 64 KiB, at most 256 fp32 accumulators (S and O) per lane, 16-byte global
// accesses. Its authority is fmha_hip_unsupported(key) (tests/unit/fmha_hip_test.cpp checks every
// key these rules expand to against it). Compiled, never run: no AMD GPU is available.
inline constexpr shape3 mfma_qr_warps[] = {{4, 1, 1}, {2, 1, 1}, {1, 1, 1}, {8, 1, 1}};
inline constexpr int mfma_lds_bytes = 65536;
constexpr pipeline_offer mfma_qr() {
  pipeline_offer o = ck(P::qr);
  o.warps = mfma_qr_warps;
  o.smem = smem_formula::mfma_k_vt_slices;
  o.smem_capacity = mfma_lds_bytes;
  o.max_accumulators = 256;
  o.kernel_built = true;
  o.access_bytes = 16;
  o.families = bit(fmha_family::fwd);
  o.qkv_dtypes = bits(dtype::fp16, dtype::bf16);
  return o;
}
// qr_pagedkv (CK's pipeline for the paged families): the same kernel and rules, its K/V rows read
// through the page table (kernels/fmha/hip/fmha_hip_paged_kernel.hpp): decode (one stage and
// split-KV, the query heads of a KV head packed into the rows) and batch_prefill. The cache in
// Q's dtype; no bias or ALiBi (the paged problem has none).
constexpr pipeline_offer mfma_qr_pagedkv() {
  pipeline_offer o = mfma_qr();
  o.pipe = P::qr_pagedkv;
  o.families = bit(fmha_family::fwd_pagedkv) | bit(fmha_family::fwd_splitkv) | bit(fmha_family::batch_prefill);
  return o;
}
// appendkv: kdecl's HIP append kernel (no tiles: one block of 4 waves per sequence and new token,
// as CUDA's paged_append; its tile is 1 x 1).
inline constexpr shape3 hip_append_warps[] = {{4, 1, 1}};
inline constexpr int hip_append_tile[] = {1};
constexpr pipeline_offer hip_appendkv() {
  return {P::appendkv, rule_style::paged, hip_append_warps, 0, hip_append_tile, hip_append_tile, {}, {1, 1, 1},
          smem_formula::none, 0, 0, 0, true, 16, bit(fmha_family::fwd_appendkv), false, bits(dtype::fp16, dtype::bf16)};
}
inline constexpr pipeline_offer pipes_cdna_kdecl[] = {mfma_qr(), ck(P::qr_async), ck(P::qs), mfma_qr_pagedkv(),
                                                      ck(P::qr_nwarp_sshuffle), hip_appendkv()};
inline constexpr pipeline_offer pipes_gfx950[] = {ck(P::qr), ck(P::qr_async), ck(P::qs), ck(P::qr_pagedkv),
                                                  ck(P::qr_nwarp_sshuffle), ck(P::appendkv), ck(P::qr_async_trload),
                                                  ck(P::qr_async_trload_v3), ck(P::v3)};
inline constexpr pipeline_offer pipes_rdna[] = {ck(P::qr), ck(P::qs), ck(P::qr_pagedkv), ck(P::qr_nwarp_sshuffle),
                                                ck(P::appendkv)};

inline constexpr std::uint32_t all_families =
    bit(fmha_family::fwd) | bit(fmha_family::fwd_pagedkv) | bit(fmha_family::fwd_splitkv) |
    bit(fmha_family::fwd_appendkv) | bit(fmha_family::batch_prefill) | bit(fmha_family::bwd);

constexpr target amd(arch_id id, std::span<const dtype_offer> d, std::span<const pipeline_offer> p, bool trload,
                     bool v3) {
  return {id, d, p, trload, v3, all_families, true, true, false, true};
}

// ---------------------------------------------------------------------------
// NVIDIA

// fp16 and bf16 (o = qkv), any head dim that is a multiple of 8 up to 256; the
// kernel pads it to a multiple of 16 (k0max) in shared memory.
inline constexpr shape3 mma_sync_warp_tiles[] = {{16, 8, 16}};  // one m16n8k16; a warp owns 16-row slices
inline constexpr dtype_offer dtypes_nvidia[] = {
    {dtype::fp16, dtype::fp16, {}, mma_sync_warp_tiles, 256},
    {dtype::bf16, dtype::bf16, {}, mma_sync_warp_tiles, 256},
};
inline constexpr shape3 mma_sync_warps[] = {{4, 1, 1}, {8, 1, 1}};          // along the query rows only
inline constexpr int mma_sync_m0[] = {64, 128};
inline constexpr int mma_sync_n0[] = {32, 64, 128};
inline constexpr shape3 tma_wgmma_warps[] = {{8, 1, 1}};  // two consumer warpgroups (the kernel's only shape)
inline constexpr int tma_wgmma_m0[] = {128};
inline constexpr int tma_wgmma_n0[] = {64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256};

// Max opt-in shared memory per block (as nvidia.hpp).
inline constexpr int smem_sm80 = 166912, smem_sm86 = 101376, smem_sm89 = 101376, smem_sm90 = 232448;

inline constexpr std::uint32_t forward_families = bit(fmha_family::fwd) | bit(fmha_family::batch_prefill);
inline constexpr std::uint32_t decode_families = bit(fmha_family::fwd_pagedkv) | bit(fmha_family::fwd_splitkv);
inline constexpr std::uint32_t kdecl_families =
    forward_families | decode_families | bit(fmha_family::fwd_appendkv);

constexpr pipeline_offer mma_sync(int smem) {
  // 160 accumulators: O (hdim_v 256, 16 rows per warp) and S (64 keys) stay in registers without spills.
  // batch_prefill: the same kernel with its K/V loads through the page table (kernels/fmha/cuda/decode/paged_prefill.cuh).
  return {P::mma_sync, rule_style::mma_sync, mma_sync_warps, 0, mma_sync_m0, mma_sync_n0, {}, {2, 3, 2},
          smem_formula::q_kv_ring_padded, smem, 160, 0, true, 16, forward_families};
}
constexpr pipeline_offer tma_wgmma_ws(int smem) {
  // Consumer threads run with 240 registers (setmaxnreg); 176 of them may hold accumulators.
  // batch_prefill: the same kernel loading K/V tiles page by page (kernels/fmha/cuda/decode/paged_prefill_sm90.cuh).
  return {P::tma_wgmma_ws, rule_style::tma_wgmma, tma_wgmma_warps, 4, tma_wgmma_m0, tma_wgmma_n0, {}, {2, 4, 2},
          smem_formula::tma_q_kv_ring_o, smem, 176, 256, true, 16, forward_families};
}
// paged_decode: 16 query rows (the query heads sharing a KV head times the query tokens) by 64
// keys per tile; its 4 warps take 16 keys each (warps 1x4x1) and merge their partial O at the end.
inline constexpr shape3 paged_decode_warps[] = {{1, 4, 1}};
inline constexpr int paged_decode_m0[] = {16};
inline constexpr int paged_decode_n0[] = {64};
constexpr pipeline_offer paged_decode(int smem) {
  return {P::paged_decode, rule_style::paged, paged_decode_warps, 0, paged_decode_m0, paged_decode_n0, {}, {2, 4, 3},
          smem_formula::paged_decode_ring, smem, 0, 0, true, 16, decode_families, true};
}
// paged_append: no tiles (one block of 4 warps per sequence and new token): its tile is 1 x 1.
inline constexpr shape3 paged_append_warps[] = {{4, 1, 1}};
inline constexpr int paged_append_tile[] = {1};
constexpr pipeline_offer paged_append() {
  return {P::paged_append, rule_style::paged, paged_append_warps, 0, paged_append_tile, paged_append_tile, {}, {1, 1, 1},
          smem_formula::none, 0, 0, 0, true, 16, bit(fmha_family::fwd_appendkv), true};
}
inline constexpr pipeline_offer pipes_sm80[] = {mma_sync(smem_sm80), paged_decode(smem_sm80), paged_append()};
inline constexpr pipeline_offer pipes_sm86[] = {mma_sync(smem_sm86), paged_decode(smem_sm86), paged_append()};
inline constexpr pipeline_offer pipes_sm89[] = {mma_sync(smem_sm89), paged_decode(smem_sm89), paged_append()};
inline constexpr pipeline_offer pipes_sm90[] = {mma_sync(smem_sm90), tma_wgmma_ws(smem_sm90), paged_decode(smem_sm90),
                                                paged_append()};

// The forward family (batch and group mode) and the serving families over a paged cache
// (decode, split-KV decode, append-KV, batch_prefill); row-major V; no dropout.
constexpr target kdecl_target(arch_id id, std::span<const dtype_offer> d, std::span<const pipeline_offer> p) {
  return {id, d, p, false, false, kdecl_families, false, false, true, false};
}

// ---------------------------------------------------------------------------
// Host

inline constexpr shape3 one[] = {{1, 1, 1}};
inline constexpr dtype_offer dtypes_host[] = {
    {dtype::fp16, dtype::fp16, {}, one, 256},
    {dtype::bf16, dtype::bf16, {}, one, 256},
    {dtype::fp32, dtype::fp32, {}, one, 256},
};
inline constexpr int host_m0[] = {16, 32, 64, 128};
inline constexpr int host_n0[] = {32, 64, 128, 256};
// The serving families run on the host with the paged references (kernels/fmha/host/fmha_paged_host.hpp),
// split-KV in the CUDA kernel's 64-key tiles; their keys name the CUDA pipelines' tiles.
inline constexpr pipeline_offer pipes_host[] = {
    {P::host_tiled, rule_style::host, one, 0, host_m0, host_n0, {}, {1, 1, 1}, smem_formula::none, 0, 0, 0, true, 0,
     forward_families},
    {P::paged_decode, rule_style::paged, paged_decode_warps, 0, paged_decode_m0, paged_decode_n0, {}, {1, 1, 1},
     smem_formula::none, 0, 0, 0, true, 0, decode_families, true},
    {P::paged_append, rule_style::paged, paged_append_warps, 0, paged_append_tile, paged_append_tile, {}, {1, 1, 1},
     smem_formula::none, 0, 0, 0, true, 0, bit(fmha_family::fwd_appendkv), true}};

inline constexpr target targets[] = {
    kdecl_target(arch_id::host, dtypes_host, pipes_host),
    kdecl_target(arch_id::sm_80, dtypes_nvidia, pipes_sm80),
    kdecl_target(arch_id::sm_86, dtypes_nvidia, pipes_sm86),
    kdecl_target(arch_id::sm_89, dtypes_nvidia, pipes_sm89),
    kdecl_target(arch_id::sm_90, dtypes_nvidia, pipes_sm90),
    amd(arch_id::gfx908, {}, {}, false, false),
    amd(arch_id::gfx90a, dtypes_gfx90a, pipes_cdna_kdecl, false, false),
    amd(arch_id::gfx942, dtypes_gfx94x, pipes_cdna_kdecl, false, false),
    amd(arch_id::gfx950, dtypes_gfx94x, pipes_gfx950, true, true),
    amd(arch_id::gfx1100, dtypes_gfx1100, pipes_rdna, false, false),
    amd(arch_id::gfx1200, {}, {}, false, false),
    amd(arch_id::gfx1201, dtypes_gfx1201, pipes_rdna, false, false),
};

constexpr const target& spec_of(arch_id a) { return targets[static_cast<std::size_t>(a)]; }

namespace detail {
constexpr bool targets_in_order() {
  for (std::size_t i = 0; i < std::size(targets); ++i)
    if (static_cast<std::size_t>(targets[i].id) != i) return false;
  return std::size(targets) == names::arch_id.size();
}
static_assert(targets_in_order(), "kdecl::arch::fmha::targets must list every arch_id in enum order");
}  // namespace detail

constexpr const pipeline_offer* find_pipeline(const target& t, fmha_pipeline p) {
  for (const auto& o : t.pipelines)
    if (o.pipe == p) return &o;
  return nullptr;
}

// Whether kdecl builds any FMHA kernel for the target.
constexpr bool kernels_available(arch_id a) {
  for (const auto& o : fmha::spec_of(a).pipelines)
    if (o.kernel_built) return true;
  return false;
}

constexpr int round_up(int v, int to) { return (v + to - 1) / to * to; }

// The head dim of Q as the kernel's tiles hold it (k0max): CK's map on AMD; the next
// multiple of 16 (one mma k step) on NVIDIA; the head dim itself on the host. 0: none.
constexpr int k0max_for(arch_id a, int hdim_q) {
  if (fmha::spec_of(a).ck_rules) {
    for (const auto& e : k0max_map)
      if (e.q == hdim_q) return e.v;
    return 0;
  }
  if (hdim_q <= 0) return 0;
  return a == arch_id::host ? hdim_q : round_up(hdim_q, 16);
}

// The head dim of V as the kernel's stage-1 tile holds it (n1).
constexpr int n1_for(arch_id a, int hdim_v) {
  if (fmha::spec_of(a).ck_rules || a == arch_id::host || hdim_v <= 0) return hdim_v;
  return round_up(hdim_v, 16);
}

// The tma_wgmma_ws kernel's shared memory with `q_buffers` Q tiles: Q, the K/V ring, the mbarriers
// (K and V full/empty per stage, Q full/empty per buffer) and 1 KiB of alignment slack.
constexpr long tma_ws_smem_bytes(const fmha_key& k, int q_buffers) {
  const auto& t = k.algo.tile;
  const long e = bits_of(k.sig.qkv) / 8;
  return q_buffers * long(t.m0) * t.k0max * e + long(k.algo.stages) * t.n0 * (t.k0max + t.n1) * e +
         8 * (4 * k.algo.stages + 2 * q_buffers) + 1024;
}

// Q tiles the tma_wgmma_ws kernel holds: two where they fit sm_90's shared memory (the next tile's
// Q then lands while this tile runs: short sequences have few key tiles to hide its load behind),
// else one (head dim 256, or deep K/V rings).
constexpr int tma_ws_q_buffers(const fmha_key& k) { return tma_ws_smem_bytes(k, 2) <= smem_sm90 ? 2 : 1; }

// The paged decode kernel (kernels/fmha/cuda/decode/paged_decode.cuh, whose traits assert they
// agree): its K/V ring depth when a key names none, chosen by measurement on an H200
// (docs/perf/h200-2026-12-02-decode-table-ahead): shallow rings, so that more blocks share an SM
// (the loop waits on its own latencies more than on memory): 2 stages of 64-key tiles (3 blocks
// per SM at head dim 128, 4 at 64), 3 for an fp8 cache at head dim 128 (60 KB: 3 blocks per SM).
constexpr int paged_decode_default_stages(long hdim, bool fp8_cache) {
  return fp8_cache && hdim > 64 && hdim <= 128 ? 3 : 2;
}
// Its shared memory for padded head dim d: Q (q_rows rows) and the cp.async ring of `stages` K/V
// tile pairs of `keys` rows (an fp8 cache's rows are widened in registers, stored 8-bit), or the
// warps' merge buffer if larger.
constexpr long paged_decode_smem_bytes(long d, bool fp8_cache, long stages, long q_rows = 16, long keys = 64) {
  const long pitch = d * 2 + 16, cache_pitch = d * (fp8_cache ? 1 : 2) + 16;
  const long ring = q_rows * pitch + stages * 2 * keys * cache_pitch;
  const long merge = 4 * q_rows * d * 4 + 4 * q_rows * 2 * 4;
  return ring > merge ? ring : merge;
}

// Shared memory the pipeline's formula gives for a key (bytes); 0 for none/unmodelled.
constexpr long smem_bytes(smem_formula f, const fmha_key& k) {
  const auto& t = k.algo.tile;
  const long e = bits_of(k.sig.qkv) / 8;
  switch (f) {
    case smem_formula::none: return 0;
    case smem_formula::ck_qr: return (long(t.m0) * t.k0 + long(t.n0) * t.k0) * e;
    case smem_formula::q_kv_ring_padded: {
      const long q_row = (t.k0max > t.n1 ? t.k0max : t.n1) * e + 16;
      return t.m0 * q_row + long(k.algo.stages) * t.n0 * ((t.k0max * e + 16) + (t.n1 * e + 16));
    }
    case smem_formula::tma_q_kv_ring_o:
      return tma_ws_smem_bytes(k, tma_ws_q_buffers(k));
    case smem_formula::mfma_k_vt_slices:
      return long(t.n0) * (t.k0 * e + 16) + long(t.n1) * (t.k1 * e + 8);
    case smem_formula::paged_decode_ring:
      return paged_decode_smem_bytes(t.k0max, k.sig.cache == dtype::fp8, k.algo.stages, t.m0, t.n0);
  }
  return 0;
}

// The K/V ring depth a pipeline takes when a declaration names none: paged_decode's is the
// one measured best for its head dim and cache (paged_decode_default_stages).
constexpr int default_stages(const pipeline_offer& po, const fmha_key& k) {
  if (po.pipe != fmha_pipeline::paged_decode || k.algo.arch == arch_id::host) return po.stages.def;
  return paged_decode_default_stages(k.sig.hdim_q, k.sig.cache == dtype::fp8);
}

// fp32 accumulators one thread holds: O (m0 x n1) and S (m0 x n0) over the consumer threads
// (32 per warp on NVIDIA and the host, 64 lanes per wavefront on AMD).
constexpr long accumulators_per_thread(const fmha_key& k) {
  const auto& t = k.algo.tile;
  const long lanes = backend_of(k.algo.arch) == backend::hip ? 64 : 32;
  const long threads = long(k.algo.warps0.m) * k.algo.warps0.n * k.algo.warps0.k * lanes;
  return threads > 0 ? (long(t.m0) * t.n1 + long(t.m0) * t.n0) / threads : 0;
}

}  // namespace kdecl::arch::fmha
