// The GEMM rules: one function per group of related rules, each checking a
// (possibly partially expanded) key against one target's tables. Expansion
// (gemm_expand.hpp) calls them level by level to prune; validate() runs them
// all on one concrete key. Every failure names the key fields it read, so the
// expander can tell "this explicit value is wrong" from "this wildcard choice
// does not fit".
#pragma once

#include "kdecl/arch/arch.hpp"
#include "kdecl/dsl/rule.hpp"
#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/gemm/gemm_problem.hpp"

namespace kdecl::dsl::gemm_rules {

using arch::arch_spec;
using arch::dtype_offer;
using arch::pipeline_caps;
using arch::shape3;

constexpr diagnostic fail(rule r, const gemm_key& k, std::uint32_t fields, long v0 = 0, long v1 = 0,
                          long v2 = 0, long v3 = 0) {
  diagnostic d{};
  d.r = r;
  d.arch = k.algo.arch;
  d.pipe = k.algo.pipe;
  d.a = k.sig.a;
  d.b = k.sig.b;
  d.v[0] = v0; d.v[1] = v1; d.v[2] = v2; d.v[3] = v3;
  d.fields = fields;
  return d;
}

constexpr bool is_fp8_family(dtype d) { return d == dtype::fp8 || d == dtype::bf8; }
constexpr long bytes_of(long elements, dtype d) { return elements * bits_of(d) / 8; }

// Shared memory (LDS) a key uses under its pipeline's formula, in bytes (the
// formulas are documented, and copied from their kernels, in arch_spec.hpp).
// `with_epilogue` false leaves out the epilogue's share (to tell whether the
// epilogue choice is what overflows).
constexpr long smem_use(const gemm_key& k, const pipeline_caps& c, bool with_epilogue = true) {
  const auto& t = k.algo.tile;
  const long m = t.m, n = t.n, kk = t.k, st = k.algo.stages;
  const long sa = bits_of(k.sig.a) / 8, sb = bits_of(k.sig.b) / 8;
  const bool cshuffle = with_epilogue && k.algo.epi == epilogue::cshuffle;
  switch (c.smem) {
    case arch::smem_formula::none: return 0;
    case arch::smem_formula::ring_ab:
      return st * (bytes_of(m * kk, k.sig.a) + bytes_of(n * kk, k.sig.b));
    case arch::smem_formula::cp_async_ring_or_staging: {
      const bool pre = k.sig.variant == gemm_variant::preshuffle;
      const long ring = st * (m * kk * sa + (pre ? 0 : n * kk * sb));
      const long staging = !cshuffle ? 0 : k.sig.lay.c == layout::row ? m * (n + 8) * 4 : n * (m + 4) * 4;
      return ring > staging ? ring : staging;
    }
    case arch::smem_formula::tma_ring_barriers_strips:
      // cshuffle strips: one per consumer warp; pingpong runs the declared warps twice.
      return st * (m + n) * kk * (sa > 0 ? sa : 1) + 1024 + (16 * st + 16 + 127) / 128 * 128 +
             (cshuffle ? (k.algo.sched == scheduler::pingpong ? 2 : 1) * k.algo.warps.m * 2304L : 0);
    case arch::smem_formula::hip_padded_ring_or_shuffle: {
      if (sa == 0 || sb == 0) return 0;
      const long ring = st * (m * (kk + 16 / sa) * sa + n * (kk + 16 / sb) * sb);
      const auto& w = k.algo.warps;
      const auto& wt = k.algo.warp_tile;
      const long shuffle = cshuffle ? static_cast<long>(w.m) * w.n * wt.m * (wt.n + 4) * 4 : 0;
      return ring > shuffle ? ring : shuffle;
    }
  }
  return 0;
}

// A 16-byte-chunk XOR swizzle is conflict-free only for rows of 16, 32 or 64 bytes
// or a multiple of 128 bytes (sm80/config.cuh swizzle_friendly).
constexpr bool swizzle_friendly(long row_bytes) {
  return row_bytes == 16 || row_bytes == 32 || row_bytes == 64 || (row_bytes > 0 && row_bytes % 128 == 0);
}

// ---- level 0: pipeline --------------------------------------------------------
constexpr diagnostic check_pipeline(const gemm_key& k, const arch_spec& s) {
  if (s.find(k.algo.pipe) == nullptr)
    return fail(rule::pipeline_not_offered_on_arch, k, field::pipe, static_cast<long>(k.algo.pipe));
  return {};
}

// ---- level 1: signature (dtypes, layout, variant) ------------------------------
constexpr const dtype_offer* find_offer(const pipeline_caps& c, const gemm_signature& s) {
  for (const auto& o : c.dtypes)
    if (o.a == s.a && o.b == s.b && o.acc == s.acc && o.compute == s.compute) return &o;
  return nullptr;
}

constexpr diagnostic check_signature(const gemm_key& k, const arch_spec& s, const pipeline_caps& c) {
  using namespace field;
  const auto& g = k.sig;
  if ((is_fp8_family(g.a) || is_fp8_family(g.b)) && !s.has_fp8)
    return fail(rule::fp8_requires_sm_89_or_gfx940, k, a | b);
  if (g.compute == dtype::tf32 && (g.a != dtype::fp32 || g.b != dtype::fp32))
    return fail(rule::tf32_compute_requires_fp32_data, k, a | b | compute);
  if (g.variant == gemm_variant::preshuffle && !arch::has(c.variants, gemm_variant::preshuffle))
    return fail(rule::preshuffle_requires_preshuffle_pipeline, k, variant | pipe);
  if (g.variant != gemm_variant::preshuffle && c.preshuffle)
    return fail(rule::preshuffle_pipeline_requires_preshuffle_variant, k, variant | pipe);
  if (g.variant == gemm_variant::multi_d && (g.num_d < 1 || g.num_d > max_d_tensors))
    return fail(rule::multi_d_num_d_out_of_range, k, variant, g.num_d, max_d_tensors);
  if (g.variant != gemm_variant::multi_d && (g.ew != elementwise::pass_through || g.num_d != 0))
    return fail(rule::elementwise_op_requires_multi_d, k, variant, static_cast<long>(g.ew), g.num_d);
  const dtype_offer* o = find_offer(c, g);
  if (o == nullptr)
    return fail(rule::dtype_combination_not_offered_by_pipeline, k, a | b | acc | compute | pipe,
                static_cast<long>(g.acc), static_cast<long>(g.compute));
  if (!arch::has(o->c_types, g.c))
    return fail(rule::c_dtype_not_offered_for_dtype_combination, k, dtypes | pipe, static_cast<long>(g.c),
                static_cast<long>(o->c_types));
  if ((o->layouts >> arch::layout_index(g.lay) & 1u) == 0)
    return fail(rule::layout_not_offered_for_dtype, k, layout | a | b | acc | compute | pipe,
                static_cast<long>(arch::layout_index(g.lay)), static_cast<long>(o->layouts));
  if (!arch::has(o->variants, g.variant))
    return fail(rule::variant_not_offered_for_dtype, k, variant | a | b | acc | compute | pipe,
                static_cast<long>(g.variant));
  if (g.variant == gemm_variant::block_scaled) {
    if (g.c != dtype::fp16 && g.c != dtype::bf16 && g.c != dtype::fp32)
      return fail(rule::block_scaled_c_dtype_not_16_or_32_bit, k, variant | field::c, static_cast<long>(g.c));
    if ((c.block_scaled_layouts >> arch::layout_index(g.lay) & 1u) == 0)
      return fail(rule::block_scaled_layout_not_offered_by_pipeline, k, variant | layout | pipe,
                  static_cast<long>(arch::layout_index(g.lay)));
  }
  return {};
}

// ---- level 2: warps per block ---------------------------------------------------
constexpr diagnostic check_warps(const gemm_key& k, const arch_spec& s, const pipeline_caps& c) {
  const auto& w = k.algo.warps;
  if (!w.concrete()) return fail(rule::value_not_positive, k, field::warps, w.m, w.n, w.k, 1);
  bool listed = false;
  for (const auto& x : c.warps) listed = listed || (x.m == w.m && x.n == w.n && x.k == w.k);
  if (!listed) return fail(rule::warps_not_offered_for_pipeline_on_arch, k, field::warps | field::pipe, w.m, w.n, w.k);
  const long threads = (static_cast<long>(w.m) * w.n * w.k + c.extra_warps) * s.warp_size;
  if (threads > s.max_threads_per_block)
    return fail(rule::threads_per_block_exceed_limit, k, field::warps | field::pipe, threads, s.max_threads_per_block);
  return {};
}

// ---- level 3: warp tile ------------------------------------------------------------
constexpr diagnostic check_warp_tile(const gemm_key& k, const pipeline_caps& c) {
  const auto& t = k.algo.warp_tile;
  if (!t.concrete()) return fail(rule::value_not_positive, k, field::warp_tile, t.m, t.n, t.k, 2);
  const dtype_offer* o = find_offer(c, k.sig);
  if (o != nullptr)
    for (const auto& x : o->warp_tiles)
      if (x.m == t.m && x.n == t.n && x.k == t.k) return {};
  return fail(rule::warp_tile_not_offered_for_dtype_on_arch, k,
              field::warp_tile | field::a | field::b | field::acc | field::compute | field::pipe | field::variant,
              t.m, t.n, t.k);
}

// ---- level 4: block tile ---------------------------------------------------------------
// check_tile_dim: the rules on one extent (dim 0 = m, 1 = n, 2 = k) that read no
// other extent, so expansion can test each sweep value once per warp layout;
// check_tile_cross: the rules that combine extents (run once all three are set).
constexpr int extent(const mnk& x, int dim) { return dim == 0 ? x.m : dim == 1 ? x.n : x.k; }
constexpr int extent(const shape3& x, int dim) { return dim == 0 ? x.m : dim == 1 ? x.n : x.k; }

constexpr diagnostic check_tile_dim(const gemm_key& k, const pipeline_caps& c, const dtype_offer* o, int dim) {
  using namespace field;
  const auto& a = k.algo;
  const auto& g = k.sig;
  const int t = extent(a.tile, dim), w = extent(a.warps, dim), wt = extent(a.warp_tile, dim);
  const std::uint32_t tf = dim == 0 ? tile_m : dim == 1 ? tile_n : tile_k;
  if (t <= 0) return fail(rule::value_not_positive, k, tf, a.tile.m, a.tile.n, a.tile.k, 0);
  if (t < extent(c.tile_min, dim))
    return fail(rule::tile_below_minimum_for_pipeline, k, tf | pipe | variant, a.tile.m, a.tile.n, a.tile.k);
  if (const int hi = extent(c.tile_max, dim); hi != 0 && t > hi)
    return fail(rule::tile_above_maximum_for_pipeline, k, tf | pipe, dim, t, hi);
  if (t % extent(c.tile_align, dim) != 0)
    return fail(rule::tile_not_aligned_for_pipeline, k, tf | pipe | variant, a.tile.m, a.tile.n, a.tile.k);
  if (t % (w * wt) != 0) {
    const std::uint32_t wf = dim == 0 ? warps_m : dim == 1 ? warps_n : warps_k;
    const std::uint32_t xf = dim == 0 ? warp_tile_m : dim == 1 ? warp_tile_n : warp_tile_k;
    const rule r = dim == 0   ? rule::tile_m_not_multiple_of_warps_m_x_warp_tile_m
                   : dim == 1 ? rule::tile_n_not_multiple_of_warps_n_x_warp_tile_n
                              : rule::tile_k_not_multiple_of_warps_k_x_warp_tile_k;
    return fail(r, k, tf | wf | xf, t, w * wt);
  }
  // Every operand tile extent is a whole number of `tile_chunk_bytes` chunks.
  if (c.tile_chunk_bytes != 0) {
    const long e0 = bytes_of(t, dim == 1 ? g.b : g.a);
    const long e1 = dim == 2 ? bytes_of(t, g.b) : 0;
    if (e0 % c.tile_chunk_bytes != 0 || e1 % c.tile_chunk_bytes != 0)
      return fail(rule::tile_extent_bytes_not_multiple_of_chunk, k, tf | field::a | field::b | pipe, dim, t,
                  e0 % c.tile_chunk_bytes != 0 ? e0 : e1, c.tile_chunk_bytes);
  }
  // SIMT: the region one warp owns is a whole number of lane grids.
  if (o != nullptr && dim < 2) {
    const int grid = dim == 0 ? o->warp_region_align.m : o->warp_region_align.n;
    if (grid != 0 && (t / w) % grid != 0)
      return fail(rule::warp_region_not_multiple_of_simt_grid, k, tf | (dim == 0 ? warps_m : warps_n) | dtypes | pipe,
                  dim, t / w, grid);
  }
  if (dim == 1 && g.variant == gemm_variant::block_scaled && scale_block_n % t != 0 &&
      (t % scale_block_n != 0 || c.block_scaled_tile_n_in_one_block))
    return fail(rule::block_scaled_tile_n_straddles_scale_block, k, tile_n | variant | pipe, t, scale_block_n,
                c.block_scaled_tile_n_in_one_block);
  if (dim == 1 && c.tile_n_is_warp_tile_n && t != a.warp_tile.n)
    return fail(rule::tile_n_must_equal_warp_tile_n, k, tile_n | warp_tile_n | pipe, t, a.warp_tile.n);
  if (dim == 2) {
    if (g.variant == gemm_variant::block_scaled && t != scale_block_k &&
        !(c.block_scaled_k_tiles_per_block && scale_block_k % t == 0))
      return fail(rule::block_scaled_tile_k_not_scale_block, k, tile_k | variant | pipe, t, scale_block_k,
                  c.block_scaled_k_tiles_per_block);
    if (c.tile_k_bytes != 0 && bytes_of(t, g.a) != c.tile_k_bytes)
      return fail(rule::tile_k_bytes_must_equal_swizzle_row, k, tile_k | field::a | pipe, t, bytes_of(t, g.a),
                  c.tile_k_bytes);
    if (g.variant == gemm_variant::preshuffle && c.preshuffle_k_bytes != 0 &&
        bytes_of(t, g.b) % c.preshuffle_k_bytes != 0)
      return fail(rule::preshuffle_tile_k_bytes_not_multiple_of_block, k, tile_k | field::b | variant | pipe, t,
                  bytes_of(t, g.b), c.preshuffle_k_bytes);
  }
  return {};
}

constexpr diagnostic check_tile_cross(const gemm_key& k, const arch_spec& s, const pipeline_caps& c) {
  using namespace field;
  const auto& a = k.algo;
  const auto& g = k.sig;
  if (c.max_accumulators != 0) {
    const long threads = static_cast<long>(a.warps.m) * a.warps.n * a.warps.k * s.warp_size;
    const long acc = static_cast<long>(a.tile.m) * a.tile.n / threads;
    if (acc > c.max_accumulators)
      return fail(rule::accumulators_per_thread_exceed_register_cap, k, tile_m | tile_n | warps | pipe, acc,
                  c.max_accumulators, threads);
    // A block-scaled kernel holds each k-block's product beside the scaled sum.
    if (g.variant == gemm_variant::block_scaled && 2 * acc > c.max_accumulators)
      return fail(rule::block_scaled_accumulators_exceed_register_cap, k, tile_m | tile_n | warps | pipe | variant,
                  acc, c.max_accumulators, threads);
  }
  if (c.max_chunks_in_flight != 0) {
    // The block's lanes share (tile_m + tile_n) x tile_k values per step, 16 bytes a chunk: per
    // lane, tile_k x size / (warps_k x 32 x 16) chunks of each row and column, however the warp
    // tile hands them out (a CUDA-core lane reads every row, an mma.sync lane two rows of 16).
    const long per_row = bytes_of(a.tile.k, g.a) / (static_cast<long>(a.warps.k) * s.warp_size * 16);
    const long chunks = (static_cast<long>(a.tile.m) + a.tile.n) * per_row;
    if (chunks > c.max_chunks_in_flight)
      return fail(rule::gemv_chunks_in_flight_exceed_register_cap, k, tile | warps_k | warp_tile_k | pipe, chunks,
                  per_row, c.max_chunks_in_flight);
  }
  const bool pre = g.variant == gemm_variant::preshuffle;
  if (c.swizzle_rows) {
    // Operands lie in shared memory as in global memory: K-major rows hold tile_k elements.
    const long row_a = bytes_of(g.lay.a == layout::row ? a.tile.k : a.tile.m, g.a);
    const long row_b = bytes_of(g.lay.b == layout::col ? a.tile.k : a.tile.n, g.b);
    if (!swizzle_friendly(row_a))
      return fail(rule::smem_row_bytes_not_swizzle_friendly, k, tile | layout | field::a | pipe, 0, row_a);
    if (!pre && !swizzle_friendly(row_b))
      return fail(rule::smem_row_bytes_not_swizzle_friendly, k, tile | layout | field::b | pipe | variant, 1, row_b);
  }
  if (c.mn_major_box_bytes != 0) {
    // The kernel's operands: a column-major C runs as C^T = B^T A^T, its A the key's B^T and
    // its B the key's A^T, on the same tile.
    const bool col_c = g.lay.c == layout::col;
    const bool a_mn_major = col_c ? g.lay.b == layout::row : g.lay.a == layout::col;
    const bool b_mn_major = col_c ? g.lay.a == layout::col : g.lay.b == layout::row;
    const long box = c.mn_major_box_bytes;
    const long bytes_m = bytes_of(a.tile.m, col_c ? g.b : g.a), bytes_n = bytes_of(a.tile.n, col_c ? g.a : g.b);
    if (a_mn_major && bytes_m % box != 0)
      return fail(rule::mn_major_tile_not_multiple_of_box, k, tile_m | layout | dtypes | pipe, 0, a.tile.m, bytes_m, box);
    if (b_mn_major && bytes_n % box != 0)
      return fail(rule::mn_major_tile_not_multiple_of_box, k, tile_n | layout | dtypes | pipe, 1, a.tile.n, bytes_n, box);
  }
  return {};
}

constexpr diagnostic check_tile(const gemm_key& k, const arch_spec& s, const pipeline_caps& c) {
  const dtype_offer* o = find_offer(c, k.sig);
  for (int dim = 0; dim < 3; ++dim)
    if (auto d = check_tile_dim(k, c, o, dim); !d.ok()) return d;
  return check_tile_cross(k, s, c);
}

// ---- level 5: stages (resolved, > 0), then shared memory (needs the epilogue) ----------
constexpr diagnostic check_stage_range(const gemm_key& k, const pipeline_caps& c) {
  const int st = k.algo.stages;
  if (st < c.stages.min || st > c.stages.max)
    return fail(rule::stages_out_of_range_for_pipeline, k, field::stages | field::pipe, st, c.stages.min,
                c.stages.max);
  return {};
}

constexpr diagnostic check_smem(const gemm_key& k, const arch_spec& s, const pipeline_caps& c) {
  using namespace field;
  if (c.smem == arch::smem_formula::none) return {};
  const long use = smem_use(k, c);
  if (use <= c.smem_capacity) return {};
  // The epilogue (and what its share reads) is to blame only when the main loop alone fits.
  std::uint32_t f = tile | a | b | stages | pipe | variant;
  if (smem_use(k, c, false) <= c.smem_capacity) f |= epi | warps | warp_tile | layout | field::c;
  const rule r = s.be == backend::hip ? rule::lds_exceeds_capacity_for_pipeline : rule::stages_do_not_fit_shared_memory;
  return fail(r, k, f, use, c.smem_capacity, k.algo.stages);
}

constexpr diagnostic check_stages(const gemm_key& k, const arch_spec& s, const pipeline_caps& c) {
  if (auto d = check_stage_range(k, c); !d.ok()) return d;
  return check_smem(k, s, c);
}

// ---- level 6: epilogue and scheduler --------------------------------------------------
// The rule of a scheduler that reads the block's shape (the expander runs it per
// kernel; the other trait rules it runs once per pipeline). pingpong: the declared
// warps are one consumer warpgroup and the block runs two of them (each with its
// own epilogue strips: smem_use counts them).
constexpr diagnostic check_schedule_warps(const gemm_key& k) {
  const auto& w = k.algo.warps;
  if (k.algo.sched == scheduler::pingpong && !(w.m == 4 && w.n == 1 && w.k == 1))
    return fail(rule::pingpong_needs_one_consumer_warpgroup, k, field::sched | field::warps, w.m, w.n, w.k);
  return {};
}

constexpr diagnostic check_traits(const gemm_key& k, const arch_spec& s, const pipeline_caps& c) {
  using namespace field;
  if (!arch::has(c.epilogues, k.algo.epi))
    return fail(rule::epilogue_not_offered_by_pipeline, k, epi | pipe, static_cast<long>(k.algo.epi));
  if (!arch::has(c.schedulers, k.algo.sched))
    return fail(rule::scheduler_not_offered_by_pipeline, k, sched | pipe, static_cast<long>(k.algo.sched));
  if (s.trait_unsupported(k.algo.pipe, k.algo.epi, k.algo.sched))
    return fail(rule::interwave_scheduler_not_allowed_with_pipeline, k, pipe | epi | sched,
                static_cast<long>(k.algo.epi));
  return {};
}

// ---- level 7: global access width (resolved, > 0) ----------------------------------------
// Contiguous bytes of one row of a block tile of operand X (its leading dimension side).
constexpr long row_bytes(layout l, int rows_if_col, int cols_if_row, dtype d) {
  return bytes_of(l == layout::row ? cols_if_row : rows_if_col, d);
}

// The operands the width binds: A and B always, C (and D) unless the pipeline's
// epilogue picks its own access width (pipeline_caps::epilogue_any_alignment).
constexpr int operands_bound_by_width(const pipeline_caps& c) { return c.epilogue_any_alignment ? 2 : 3; }

// The width itself: offered, and whole elements of each operand it binds.
constexpr diagnostic check_vector_width(const gemm_key& k, const pipeline_caps& c) {
  using namespace field;
  const int v = k.algo.vector_bytes;
  bool listed = false;
  for (int x : c.vector_bytes) listed = listed || x == v;
  if (!listed) return fail(rule::vector_bytes_not_offered_by_pipeline, k, vector | pipe, v);
  // Where width 1 means element-by-element access, any element size fits it.
  if (!(v == 1 && c.width_one_is_scalar)) {
    const dtype types[3] = {k.sig.a, k.sig.b, k.sig.c};
    for (int i = 0; i < operands_bound_by_width(c); ++i)
      if ((v * 8) % bits_of(types[i]) != 0)
        return fail(rule::vector_bytes_not_multiple_of_element_size, k, vector | dtypes | pipe, v,
                    bits_of(types[i]) / 8, static_cast<long>(types[i]));
  }
  return {};
}

// The width against the block tile: it divides the contiguous rows of each operand tile it binds.
constexpr diagnostic check_vector_rows(const gemm_key& k, const pipeline_caps& c) {
  using namespace field;
  const int v = k.algo.vector_bytes;
  const auto& t = k.algo.tile;
  const auto& l = k.sig.lay;
  const long rows[3] = {row_bytes(l.a, t.m, t.k, k.sig.a), row_bytes(l.b, t.k, t.n, k.sig.b),
                        row_bytes(l.c, t.m, t.n, k.sig.c)};
  for (int i = 0; i < operands_bound_by_width(c); ++i)
    if (rows[i] % v != 0)
      return fail(rule::vector_bytes_do_not_divide_tile_row_bytes, k, vector | tile | layout | dtypes | pipe, v,
                  rows[i], i);
  return {};
}

// The same, for callers that hold only the key (its arch and pipeline name the caps).
constexpr diagnostic check_vector_rows(const gemm_key& k) {
  const pipeline_caps* c = spec_of(k.algo.arch).find(k.algo.pipe);
  if (c == nullptr) return fail(rule::pipeline_not_offered_on_arch, k, field::pipe, static_cast<long>(k.algo.pipe));
  return check_vector_rows(k, *c);
}

constexpr diagnostic check_vector(const gemm_key& k, const pipeline_caps& c) {
  if (auto d = check_vector_width(k, c); !d.ok()) return d;
  return check_vector_rows(k, c);
}

// ---- level 8: offset width, thread-block cluster ---------------------------------------------
// The offset width is never a wildcard; it is checked with the cluster, the last
// per-key rule expansion runs (gemm_expand.hpp).
constexpr diagnostic check_index_bits(const gemm_key& k, const pipeline_caps& c) {
  for (int x : c.index_bits)
    if (x == k.algo.index_bits) return {};
  return fail(rule::index_bits_not_offered_by_pipeline, k, field::index | field::pipe, k.algo.index_bits);
}

constexpr diagnostic check_cluster(const gemm_key& k, const pipeline_caps& c) {
  if (auto d = check_index_bits(k, c); !d.ok()) return d;
  const int cm = k.algo.cluster_m, cn = k.algo.cluster_n;
  if (cm < 1 || cn < 1) return fail(rule::value_not_positive, k, field::cluster, cm, cn, 0, 3);
  if ((cm != 1 || cn != 1) && k.algo.arch != arch_id::sm_90)
    return fail(rule::cluster_requires_sm_90, k, field::cluster, cm, cn);
  for (const auto& x : c.clusters)
    if (x.m == cm && x.n == cn) return {};
  return fail(rule::cluster_not_offered_by_pipeline, k, field::cluster | field::pipe, cm, cn);
}

// What a multicast cluster (two blocks sharing A or B) builds: the cooperative
// standard kernel, with operands read M/N-major split in whole 64-wide boxes. These read
// the tile, layout and schedule: the expander runs them per kernel, after the cluster.
constexpr diagnostic check_cluster_kernel(const gemm_key& k) {
  const int cm = k.algo.cluster_m, cn = k.algo.cluster_n;
  if (cm * cn == 1) return {};
  auto no = [&](long why, std::uint32_t fields) {
    return fail(rule::multicast_cluster_unsupported, k, field::cluster | fields, why, cm, cn);
  };
  if (k.sig.variant != gemm_variant::standard) return no(0, field::variant);
  if (k.algo.sched != scheduler::intrawave) return no(1, field::sched);
  if (k.sig.lay.c != layout::row) return no(4, field::layout);  // column-major C runs as C^T: no cluster
  if (cn == 2 && k.sig.lay.a != layout::row && (k.algo.tile.m / 64) % 2 != 0) return no(2, field::tile_m | field::layout);
  if (cm == 2 && k.sig.lay.b != layout::col && (k.algo.tile.n / 64) % 2 != 0) return no(3, field::tile_n | field::layout);
  return {};
}

}  // namespace kdecl::dsl::gemm_rules

namespace kdecl::dsl {

// The integer fields of a key that are wildcards, as field bits. Stage count 0
// and access width 0 are defaults (resolved to one value), not wildcards.
constexpr std::uint32_t wildcard_fields(const gemm_key& k) {
  std::uint32_t w = 0;
  auto flag = [&](bool is_wild, std::uint32_t f) { if (is_wild) w |= f; };
  flag(k.sig.a == dtype::any, field::a);
  flag(k.sig.b == dtype::any, field::b);
  flag(k.sig.c == dtype::any, field::c);
  flag(k.sig.acc == dtype::any, field::acc);
  flag(k.sig.compute == dtype::any, field::compute);
  const auto& g = k.algo;
  flag(g.tile.m == any_int, field::tile_m);
  flag(g.tile.n == any_int, field::tile_n);
  flag(g.tile.k == any_int, field::tile_k);
  flag(g.warps.m == any_int, field::warps_m);
  flag(g.warps.n == any_int, field::warps_n);
  flag(g.warps.k == any_int, field::warps_k);
  flag(g.warp_tile.m == any_int, field::warp_tile_m);
  flag(g.warp_tile.n == any_int, field::warp_tile_n);
  flag(g.warp_tile.k == any_int, field::warp_tile_k);
  flag(g.pipe == pipeline::any, field::pipe);
  flag(g.stages == any_int, field::stages);
  flag(g.epi == epilogue::any, field::epi);
  flag(g.sched == scheduler::any, field::sched);
  flag(g.pad_m == tristate::any || g.pad_n == tristate::any || g.pad_k == tristate::any, field::pad);
  flag(g.vector_bytes == any_int, field::vector);
  flag(g.cluster_m == any_int || g.cluster_n == any_int, field::cluster);
  return w;
}

// Run-time (and constexpr) check of one key against one target's tables.
// Stage count 0 and access width 0 mean the pipeline's defaults; any other
// wildcard is reported as key_has_wildcard. The key's own arch field is ignored.
constexpr diagnostic validate(const gemm_key& key, arch_id target) {
  using namespace gemm_rules;
  gemm_key k = key;
  k.algo.arch = target;
  if (wildcard_fields(k) != 0) return fail(rule::key_has_wildcard, k, wildcard_fields(k));
  const arch_spec& s = spec_of(target);
  if (auto d = check_pipeline(k, s); !d.ok()) return d;
  const pipeline_caps& c = *s.find(k.algo.pipe);
  if (k.algo.stages == 0) k.algo.stages = c.stages.def;
  if (k.algo.vector_bytes == 0) k.algo.vector_bytes = c.vector_default;
  if (auto d = check_signature(k, s, c); !d.ok()) return d;
  if (auto d = check_warps(k, s, c); !d.ok()) return d;
  if (auto d = check_schedule_warps(k); !d.ok()) return d;
  if (auto d = check_warp_tile(k, c); !d.ok()) return d;
  if (auto d = check_tile(k, s, c); !d.ok()) return d;
  if (auto d = check_stages(k, s, c); !d.ok()) return d;
  if (auto d = check_traits(k, s, c); !d.ok()) return d;
  if (auto d = check_vector(k, c); !d.ok()) return d;
  if (auto d = check_cluster(k, c); !d.ok()) return d;
  if (auto d = check_cluster_kernel(k); !d.ok()) return d;
  return {};
}

}  // namespace kdecl::dsl
