// Grouped-convolution rules and expansion. A convolution kernel is an implicit
// GEMM, so the GEMM rules of the target apply to that GEMM (expansion goes
// through gemm_expansion::expand); the rules here are the convolution's own.
#pragma once

#include "kdecl/conv/grouped_conv_key.hpp"
#include "kdecl/dsl/gemm_expand.hpp"

namespace kdecl::dsl::conv_rules {

using namespace gemm_rules;

constexpr diagnostic fail(rule r, const grouped_conv_key& k, std::uint32_t fields, long v0 = 0, long v1 = 0,
                          long v2 = 0, long v3 = 0) {
  diagnostic d{};
  d.r = r;
  d.arch = k.algo.arch;
  d.pipe = k.algo.pipe;
  d.a = k.sig.in;
  d.b = k.sig.wei;
  d.v[0] = v0; d.v[1] = v1; d.v[2] = v2; d.v[3] = v3;
  d.fields = fields;
  return d;
}

// The implicit GEMM of a convolution declaration (wildcards carried over).
// Operands by direction: fwd in x wei -> out; bwd_data out x wei -> in; bwd_weight out x in -> wei.
constexpr gemm_key implicit_gemm(const grouped_conv_key& k) {
  gemm_key g{};
  const auto& s = k.sig;
  switch (s.dir) {
    case conv_direction::fwd: g.sig.a = s.in; g.sig.b = s.wei; g.sig.c = s.out; break;
    case conv_direction::bwd_data: g.sig.a = s.out; g.sig.b = s.wei; g.sig.c = s.in; break;
    case conv_direction::bwd_weight: g.sig.a = s.out; g.sig.b = s.in; g.sig.c = s.wei; break;
  }
  g.sig.acc = s.acc;
  g.sig.compute = s.compute;
  g.sig.lay = rcr;
  g.algo.tile = k.algo.tile;
  g.algo.warps = k.algo.warps;
  g.algo.warp_tile = k.algo.warp_tile;
  g.algo.pipe = k.algo.pipe;
  g.algo.stages = k.algo.stages;
  g.algo.epi = k.algo.epi;
  g.algo.sched = k.algo.sched;
  g.algo.arch = k.algo.arch;
  return g;  // padding on, default access width, no cluster
}

// The convolution key of one expanded implicit GEMM.
constexpr grouped_conv_key from_gemm(const grouped_conv_key& decl, const gemm_key& g) {
  grouped_conv_key k = decl;
  switch (decl.sig.dir) {
    case conv_direction::fwd: k.sig.in = g.sig.a; k.sig.wei = g.sig.b; k.sig.out = g.sig.c; break;
    case conv_direction::bwd_data: k.sig.out = g.sig.a; k.sig.wei = g.sig.b; k.sig.in = g.sig.c; break;
    case conv_direction::bwd_weight: k.sig.out = g.sig.a; k.sig.in = g.sig.b; k.sig.wei = g.sig.c; break;
  }
  k.sig.acc = g.sig.acc;
  k.sig.compute = g.sig.compute;
  k.algo.tile = g.algo.tile;
  k.algo.warps = g.algo.warps;
  k.algo.warp_tile = g.algo.warp_tile;
  k.algo.pipe = g.algo.pipe;
  k.algo.stages = g.algo.stages;
  k.algo.epi = g.algo.epi;
  k.algo.sched = g.algo.sched;
  k.algo.arch = g.algo.arch;
  const int width = spec_of(g.algo.arch).find(g.algo.pipe)->vector_default;
  auto resolve = [&](int v, dtype d) { return v != 0 ? v : (width * 8 / bits_of(d) > 0 ? width * 8 / bits_of(d) : 1); };
  k.algo.vector_in = resolve(decl.algo.vector_in, k.sig.in);
  k.algo.vector_wei = resolve(decl.algo.vector_wei, k.sig.wei);
  k.algo.vector_out = resolve(decl.algo.vector_out, k.sig.out);
  return k;
}

constexpr bool power_of_two(int v) { return v > 0 && (v & (v - 1)) == 0; }

// Rules on fields that are never wildcards: fatal on their own.
constexpr diagnostic check_signature(const grouped_conv_key& k) {
  const auto& s = k.sig;
  if (s.ndim < 1 || s.ndim > 3) return fail(rule::conv_ndim_out_of_range, k, field::op_specific, s.ndim);
  if (spatial_rank(s.lay) != s.ndim)
    return fail(rule::conv_layout_does_not_match_ndim, k, field::op_specific, static_cast<long>(s.lay), s.ndim);
  if (k.algo.groups_to_merge < 1)
    return fail(rule::conv_groups_to_merge_not_positive, k, field::op_specific, k.algo.groups_to_merge);
  if (s.fuse.fused() && s.dir != conv_direction::fwd)
    return fail(rule::conv_fusion_requires_forward, k, field::op_specific, static_cast<long>(s.dir));
  if (!conv_activation(s.fuse.act))
    return fail(rule::conv_fusion_activation_not_offered, k, field::op_specific, static_cast<long>(s.fuse.act));
  const int vecs[3] = {k.algo.vector_in, k.algo.vector_wei, k.algo.vector_out};
  for (int i = 0; i < 3; ++i)
    if (vecs[i] != 0 && !power_of_two(vecs[i]))
      return fail(rule::conv_vector_size_not_power_of_two, k, field::op_specific, i, vecs[i]);
  return {};
}

// The stride1_rows kernel's shared memory (kernels/conv/cuda/sm90/conv_fwd_rows_sm90.cuh): a ring
// of `stages` input rows of (pixels + 8) 128-byte pixels, 9 taps of resident weights (64 x 64,
// 8 KiB each), a full and an empty barrier per stage and a pair for the weights, 1 KiB to align.
inline constexpr int stride1_rows_reach_columns = 8;
inline constexpr int stride1_rows_taps = 9;
constexpr long stride1_rows_smem_bytes(const grouped_conv_key& k) {
  return 1024 + long(k.algo.stages) * (k.algo.tile.m + stride1_rows_reach_columns) * 128 +
         long(stride1_rows_taps) * 64 * 128 + 8 * (2 * long(k.algo.stages) + 2);
}

// The stride1_rows kernel's shapes (arch::conv_offer): checked on the fields a key has chosen.
constexpr diagnostic check_stride1_rows_shape(const grouped_conv_key& k, const pipeline_caps& c) {
  const arch::conv_offer& o = c.conv;
  const auto& a = k.algo;
  bool built = true;
  if (a.tile.m > 0) built = built && a.tile.m % 64 == 0 && (o.stride1_rows_pixel_tiles >> (a.tile.m / 64) & 1u) != 0;
  if (a.tile.n > 0) built = built && a.tile.n == 64;
  if (a.tile.k > 0) built = built && a.tile.k == 64;
  if (a.sched != scheduler::any) built = built && a.sched == scheduler::pingpong;
  if (a.warps.m > 0) built = built && a.warps.m * a.warps.n * a.warps.k == 4;
  if (a.epi != epilogue::any) built = built && a.epi == epilogue::direct;
  if (a.stages > 0) built = built && a.stages >= o.stride1_rows_min_stages;
  if (a.stages > 0 && a.tile.m > 0) built = built && stride1_rows_smem_bytes(k) <= c.smem_capacity;
  if (built) return {};
  return fail(rule::conv_stride1_rows_shape_not_built, k, field::tile | field::warps | field::sched | field::epi |
                                                               field::stages | field::pipe,
              a.tile.m, a.stages, a.stages > 0 && a.tile.m > 0 ? stride1_rows_smem_bytes(k) : 0, c.smem_capacity);
}

// On a target that builds convolutions, the pipeline's conv offer lists exactly
// what its kernels compute; elsewhere the tables only validate (no offer).
constexpr diagnostic check_offer(const grouped_conv_key& k, const arch_spec& s, const pipeline_caps& c) {
  if (!s.conv_kernels_available()) return {};
  const arch::conv_offer& o = c.conv;
  const auto& sig = k.sig;
  if (o.empty()) return fail(rule::conv_not_built_by_pipeline, k, field::pipe, static_cast<long>(sig.dir));
  if (!arch::has(o.directions, sig.dir))
    return fail(rule::conv_direction_not_offered_by_pipeline, k, field::op_specific | field::pipe,
                static_cast<long>(sig.dir), o.directions);
  if (!arch::has(o.layouts, sig.lay))
    return fail(rule::conv_layout_not_offered_by_pipeline, k, field::op_specific | field::pipe,
                static_cast<long>(sig.lay), o.layouts);
  const auto eight_bit = [](dtype d) { return d == dtype::fp8 || d == dtype::bf8; };
  const bool fp8_forward = eight_bit(sig.in) && eight_bit(sig.wei) && sig.dir == conv_direction::fwd &&
                           arch::has(o.fp8_forward_outputs, sig.out);
  if (!fp8_forward && (sig.in != sig.wei || sig.in != sig.out || !arch::has(o.dtypes, sig.in)))
    return fail(rule::conv_dtypes_not_offered_by_pipeline, k, field::dtypes | field::pipe, static_cast<long>(sig.in),
                static_cast<long>(sig.wei), static_cast<long>(sig.out),
                long(o.dtypes) | long(o.fp8_forward_outputs) << 32);  // both sets in one value
  if (fp8_forward && o.fp8_forward_plain &&
      (sig.spec != conv_specialization::none || k.algo.groups_to_merge != 1 || sig.fuse.fused()))
    return fail(rule::conv_fp8_forward_not_plain, k, field::op_specific | field::pipe, static_cast<long>(sig.spec),
                k.algo.groups_to_merge, sig.fuse.fused() ? 1 : 0);
  if (!arch::has(o.specializations, sig.spec))
    return fail(rule::conv_specialization_not_offered_by_pipeline, k, field::op_specific | field::pipe,
                static_cast<long>(sig.spec), o.specializations);
  if (k.algo.groups_to_merge > o.max_groups_to_merge)
    return fail(rule::conv_groups_to_merge_above_pipeline_maximum, k, field::op_specific | field::pipe,
                k.algo.groups_to_merge, o.max_groups_to_merge);
  if (k.algo.groups_to_merge > 1 && (!arch::has(o.merge_directions, sig.dir) || !arch::has(o.merge_layouts, sig.lay)))
    return fail(rule::conv_groups_to_merge_not_offered_for_signature, k, field::op_specific | field::pipe,
                k.algo.groups_to_merge, static_cast<long>(sig.dir), static_cast<long>(sig.lay),
                long(o.merge_directions) | long(o.merge_layouts) << 32);  // both sets in one value
  if (sig.spec == conv_specialization::stride1 &&
      (!arch::has(o.stride1_directions, sig.dir) || (o.stride1_ndims >> sig.ndim & 1u) == 0 ||
       k.algo.groups_to_merge != 1))
    return fail(rule::conv_stride1_not_offered_for_signature, k, field::op_specific | field::pipe,
                static_cast<long>(sig.dir), sig.ndim, k.algo.groups_to_merge,
                long(o.stride1_directions) | long(o.stride1_ndims) << 32);  // both sets in one value
  if (sig.spec == conv_specialization::stride1_rows &&
      (!arch::has(o.stride1_rows_directions, sig.dir) || (o.stride1_rows_ndims >> sig.ndim & 1u) == 0 ||
       k.algo.groups_to_merge != 1))
    return fail(rule::conv_stride1_rows_not_offered_for_signature, k, field::op_specific | field::pipe,
                static_cast<long>(sig.dir), sig.ndim, k.algo.groups_to_merge,
                long(o.stride1_rows_directions) | long(o.stride1_rows_ndims) << 32);
  if (sig.spec == conv_specialization::stride1_rows)
    if (auto d = check_stride1_rows_shape(k, c); !d.ok()) return d;
  if (sig.fuse.dynamic && !o.dynamic_fusion)
    return fail(rule::conv_dynamic_fusion_not_offered_by_pipeline, k, field::op_specific | field::pipe);
  if (sig.fuse.fused() && !arch::has(o.fused_specializations, sig.spec))
    return fail(rule::conv_fusion_not_offered_by_pipeline, k, field::op_specific | field::pipe,
                static_cast<long>(sig.spec), o.fused_specializations);
  if (sig.fuse.fused() && k.algo.vector_out == 1 && (o.element_operands >> 2 & 1u) != 0)
    return fail(rule::conv_fusion_requires_output_vector, k, field::op_specific | field::pipe, k.algo.vector_out);
  if (k.algo.sched != scheduler::any && !arch::has(o.schedulers, k.algo.sched))
    return fail(rule::conv_scheduler_not_offered_by_pipeline, k, field::sched | field::pipe,
                static_cast<long>(k.algo.sched), o.schedulers);
  if (o.tile_n_multiple > 0 && k.algo.tile.n > 0 && k.algo.tile.n % o.tile_n_multiple != 0)
    return fail(rule::conv_tile_n_not_built, k, field::tile_n | field::pipe, k.algo.tile.n, o.tile_n_multiple);
  return {};
}

// Rules on a concrete key (pipeline and dtypes chosen).
constexpr diagnostic check_algorithm(const grouped_conv_key& k) {
  const arch_spec& s = spec_of(k.algo.arch);
  if (auto d = check_offer(k, s, *s.find(k.algo.pipe)); !d.ok()) return d;
  // CK Tile's backward convolutions build only with compv3 or mem (arch_filter.py).
  if (s.be == backend::hip && k.sig.dir != conv_direction::fwd && k.algo.pipe != pipeline::compv3 &&
      k.algo.pipe != pipeline::mem)
    return fail(rule::conv_backward_requires_compv3_or_mem, k, field::pipe | field::op_specific,
                static_cast<long>(k.sig.dir));
  const pipeline_caps* c = s.find(k.algo.pipe);
  const int widest = c->vector_bytes.empty() ? 0 : c->vector_bytes[0];
  const int vecs[3] = {k.algo.vector_in, k.algo.vector_wei, k.algo.vector_out};
  const dtype types[3] = {k.sig.in, k.sig.wei, k.sig.out};
  for (int i = 0; i < 3; ++i) {
    const long bytes = bytes_of(vecs[i], types[i]);
    if (bytes > widest && vecs[i] > 1)
      return fail(rule::conv_vector_bytes_exceed_pipeline_width, k, field::op_specific | field::dtypes | field::pipe,
                  i, vecs[i], bytes, widest);
  }
  // Where convolutions are built, every vector is an access width the pipeline issues
  // (an element-wise pipeline, width 1 byte: the host, takes one element), or one element
  // of an operand the pipeline's conv kernels take element by element (conv_offer).
  if (s.conv_kernels_available())
    for (int i = 0; i < 3; ++i) {
      if (vecs[i] == 1 && (c->conv.element_operands >> i & 1u) != 0) continue;
      const long bytes = bytes_of(vecs[i], types[i]);
      bool issued = false;
      for (int w : c->vector_bytes) issued = issued || w == bytes || (w == 1 && vecs[i] == 1);
      if (!issued || bytes < c->conv.min_vector_bytes)
        return fail(rule::conv_vector_bytes_not_offered_by_pipeline, k,
                    field::op_specific | field::dtypes | field::pipe, i, vecs[i], bytes);
    }
  return {};
}

// ---- direct_conv (arch_spec.hpp direct_conv_caps): not an implicit GEMM, so
// none of the GEMM rules apply; its own rules on the key's fields follow.

// Defaults a direct_conv declaration leaves open: stages 1, the direct epilogue,
// 16-byte input and output vectors, element-wise weight staging.
constexpr grouped_conv_key direct_defaults(grouped_conv_key k) {
  if (k.algo.stages == 0) k.algo.stages = 1;
  if (k.algo.epi == epilogue::any) k.algo.epi = epilogue::direct;
  if (k.algo.sched == scheduler::any) k.algo.sched = scheduler::intrawave;
  auto widest = [](dtype d) { return bits_of(d) >= 8 ? 128 / bits_of(d) : 1; };
  if (k.algo.vector_in == 0) k.algo.vector_in = widest(k.sig.in);
  if (k.algo.vector_out == 0) k.algo.vector_out = widest(k.sig.out);
  if (k.algo.vector_wei == 0) k.algo.vector_wei = 1;
  return k;
}

// Shared memory of a direct_conv block for a filter (fy, fx) with strides and
// dilations (sy, sx, dy, dx) and `channels_in` staged input channels: the input
// tile + halo in the data type and the taps of its output channels in fp32
// (kernels/conv/cuda/direct/direct_fwd.cuh computes the same).
constexpr long direct_smem_bytes(const grouped_conv_key& k, long fy, long fx, long sy, long sx, long dy, long dx,
                                 long channels_in, long channels_per_group_in) {
  const long rows = (k.algo.tile.m - 1) * sy + (fy - 1) * dy + 1;
  const long cols = (k.algo.tile.n - 1) * sx + (fx - 1) * dx + 1;
  // Stages 2 (dw_staged_sm90.cuh): two TMA boxes of tile.k channels, each 128-byte aligned, and
  // their two mbarriers; the taps live in registers.
  if (k.algo.stages == 2) return 2 * ((rows * cols * long(k.algo.tile.k) * bits_of(k.sig.in) / 8 + 127) / 128 * 128) + 16;
  const long pitch = (channels_in + k.algo.vector_in - 1) / k.algo.vector_in * k.algo.vector_in;
  const long in_bytes = (rows * cols * pitch * bits_of(k.sig.in) / 8 + 15) / 16 * 16;
  return in_bytes + fy * fx * channels_per_group_in * long(k.algo.tile.k) * 4;
}

constexpr diagnostic check_direct(const grouped_conv_key& k) {
  const arch_spec& s = spec_of(k.algo.arch);
  const arch::direct_conv_caps& c = s.direct_conv;
  const auto& sig = k.sig;
  const auto& a = k.algo;
  if (c.empty()) return fail(rule::conv_not_built_by_pipeline, k, field::pipe, static_cast<long>(sig.dir));
  if (!arch::has(c.directions, sig.dir))
    return fail(rule::conv_direction_not_offered_by_pipeline, k, field::op_specific | field::pipe,
                static_cast<long>(sig.dir), c.directions);
  if (!arch::has(c.layouts, sig.lay))
    return fail(rule::conv_layout_not_offered_by_pipeline, k, field::op_specific | field::pipe,
                static_cast<long>(sig.lay), c.layouts);
  if (sig.in != sig.wei || sig.in != sig.out || !arch::has(c.dtypes, sig.in) || sig.acc != dtype::fp32)
    return fail(rule::conv_dtypes_not_offered_by_pipeline, k, field::dtypes | field::pipe, static_cast<long>(sig.in),
                static_cast<long>(sig.wei), static_cast<long>(sig.out), c.dtypes);
  if (sig.compute != sig.in)
    return fail(rule::conv_computes_in_its_input_dtype, k, field::dtypes | field::pipe, static_cast<long>(sig.in),
                static_cast<long>(sig.compute));
  if (sig.spec != conv_specialization::none)
    return fail(rule::conv_specialization_not_offered_by_pipeline, k, field::op_specific | field::pipe,
                static_cast<long>(sig.spec), arch::bits(conv_specialization::none));
  if (sig.fuse.fused())  // the direct kernels store plain results
    return fail(rule::conv_fusion_not_offered_by_pipeline, k, field::op_specific | field::pipe,
                static_cast<long>(sig.spec), 0);
  if (!a.tile.concrete()) return fail(rule::conv_direct_needs_explicit_shape, k, field::tile, 0);
  if (!a.warps.concrete()) return fail(rule::conv_direct_needs_explicit_shape, k, field::warps, 1);
  if (!a.warp_tile.concrete()) return fail(rule::conv_direct_needs_explicit_shape, k, field::warp_tile, 2);
  const bool staged = a.stages == 2;
  if (a.warps.n != 1 || a.warps.k != 1 || (a.warp_tile.k != 1 && !staged) || (a.stages != 1 && !staged) ||
      a.warp_tile.k < 1 || a.groups_to_merge != 1 ||
      a.epi != epilogue::direct || a.sched != scheduler::intrawave || a.tile.m < 1 || a.tile.n < 1 ||
      a.warp_tile.m < 1)
    return fail(rule::conv_direct_shape_not_one_dimensional, k,
                field::warps | field::warp_tile | field::stages | field::epi | field::sched);
  const int threads = a.warps.m * s.warp_size;
  bool offered = false;
  for (int t : c.threads) offered = offered || t == threads;
  if (!offered) return fail(rule::conv_direct_threads_not_offered, k, field::warps, threads);
  if (staged) {  // the TMA-staged depthwise forward kernel (kernels/conv/cuda/direct/dw_staged_sm90.cuh)
    if (c.staged_max_rows_per_thread == 0) return fail(rule::conv_direct_staged_not_offered, k, field::stages, a.stages);
    if (sig.dir != conv_direction::fwd || sig.ndim != 2 || sig.lay != conv_layout::nhwgc)
      return fail(rule::conv_direct_staged_shape_not_built, k, field::op_specific, 0, static_cast<long>(sig.dir));
    if (a.warp_tile.k > c.staged_max_rows_per_thread)
      return fail(rule::conv_direct_staged_shape_not_built, k, field::warp_tile, 1, a.warp_tile.k);
    if (long(a.tile.k) * bits_of(sig.in) / 8 % 16 != 0)
      return fail(rule::conv_direct_staged_shape_not_built, k, field::tile, 2, a.tile.k);
    if (a.tile.m % a.warp_tile.k != 0 || a.tile.n % a.warp_tile.m != 0)
      return fail(rule::conv_direct_staged_shape_not_built, k, field::tile | field::warp_tile, 3, a.tile.m);
  }
  const int vecs[3] = {a.vector_in, a.vector_wei, a.vector_out};
  const dtype types[3] = {sig.in, sig.wei, sig.out};
  if (a.vector_wei != 1) return fail(rule::conv_direct_weight_vector_not_one, k, field::op_specific, a.vector_wei);
  for (int i = 0; i < 3; i += 2) {
    const long bytes = bytes_of(vecs[i], types[i]);
    bool issued = false;
    for (int w : c.vector_bytes) issued = issued || w == bytes;
    if (!issued)
      return fail(rule::conv_vector_bytes_not_offered_by_pipeline, k, field::op_specific | field::dtypes | field::pipe,
                  i, vecs[i], bytes);
  }
  if (a.warp_tile.n != a.vector_out || a.warp_tile.n != a.vector_in)
    return fail(rule::conv_direct_channels_per_thread_not_vector, k, field::warp_tile | field::op_specific,
                a.warp_tile.n, a.vector_in, a.vector_out);
  const int lanes = a.tile.k / a.warp_tile.n;
  if (a.tile.k % a.warp_tile.n != 0 || lanes < 1 || threads % lanes != 0 || a.tile.n % a.warp_tile.m != 0 ||
      long(a.tile.m) * a.tile.n != long(threads / lanes) * a.warp_tile.m * a.warp_tile.k)
    return fail(rule::conv_direct_tile_not_threads_x_pixels, k, field::tile | field::warp_tile | field::warps,
                a.tile.m, a.tile.n, a.tile.k, lanes > 0 ? long(threads / lanes) * a.warp_tile.m * a.warp_tile.k : 0);
  if (a.tile.m * a.tile.n > c.max_tile_pixels || a.tile.k > c.max_tile_channels ||
      a.warp_tile.m > c.max_pixels_per_thread)
    return fail(rule::conv_direct_tile_above_maximum, k, field::tile | field::warp_tile, long(a.tile.m) * a.tile.n,
                a.tile.k, a.warp_tile.m);
  const long smem = direct_smem_bytes(k, 3, 3, 1, 1, 1, 1, a.tile.k, 1);
  if (smem > c.smem_capacity)
    return fail(rule::conv_direct_smem_exceeds_capacity, k, field::tile, smem, c.smem_capacity);
  return {};
}

}  // namespace kdecl::dsl::conv_rules

namespace kdecl::dsl {

constexpr std::uint32_t wildcard_fields(const grouped_conv_key& k) {
  return wildcard_fields(conv_rules::implicit_gemm(k));
}

// Run-time check of one grouped-convolution key on one target.
constexpr diagnostic validate(const grouped_conv_key& key, arch_id target) {
  grouped_conv_key k = key;
  k.algo.arch = target;
  if (auto d = conv_rules::check_signature(k); !d.ok()) return d;
  if (k.algo.pipe == pipeline::direct_conv) return conv_rules::check_direct(conv_rules::direct_defaults(k));
  if (auto d = validate(conv_rules::implicit_gemm(k), target); !d.ok()) return d;
  gemm_key g = conv_rules::implicit_gemm(k);
  return conv_rules::check_algorithm(conv_rules::from_gemm(k, g));
}

}  // namespace kdecl::dsl

namespace kdecl::dsl::conv_expansion {

// direct_conv declarations: a dtype wildcard walks the offered data types; every
// other field is named or takes direct_defaults.
template <class Sink>
constexpr gemm_expansion::outcome walk_direct(const grouped_conv_key& d, Sink&& sink) {
  gemm_expansion::outcome out{};
  const bool wild = d.sig.in == dtype::any;
  const dtype candidates[2] = {dtype::fp16, dtype::bf16};
  for (int i = 0; i < (wild ? 2 : 1); ++i) {
    grouped_conv_key k = d;
    if (wild) {
      k.sig.in = k.sig.wei = k.sig.out = k.sig.compute = candidates[i];
      k.sig.acc = dtype::fp32;
    }
    k = conv_rules::direct_defaults(k);
    ++out.considered;
    const diagnostic e = conv_rules::check_direct(k);
    if (e.ok()) {
      ++out.produced;
      sink(k);
    } else if (!wild) {
      out.error = e;
      return out;
    } else {
      out.cause = e;
    }
  }
  if (out.produced == 0) {
    diagnostic e{};
    e.r = rule::wildcards_leave_no_valid_kernel;
    e.arch = d.algo.arch;
    out.error = e;
  }
  return out;
}

// Walks the implicit GEMM's candidates in the given mode (gemm_expand.hpp), with
// the convolution rules as the extra rule and keys converted back on the way out.
template <gemm_expansion::walk_mode Mode, class Sink>
constexpr gemm_expansion::outcome walk(const grouped_conv_key& decl, arch_id target, Sink&& sink) {
  grouped_conv_key d = decl;
  d.algo.arch = target;
  if (auto e = conv_rules::check_signature(d); !e.ok()) return {e, {}, 0, 0};
  if (d.algo.pipe == pipeline::direct_conv) return walk_direct(d, sink);
  auto extra = [&](const gemm_key& g) { return conv_rules::check_algorithm(conv_rules::from_gemm(d, g)); };
  auto forward = [&](const gemm_key& g) { sink(conv_rules::from_gemm(d, g)); };
  return gemm_expansion::walk<Mode>(conv_rules::implicit_gemm(d), target, extra, forward);
}
template <class Sink>
constexpr gemm_expansion::outcome expand(const grouped_conv_key& decl, arch_id target, Sink&& sink) {
  return walk<gemm_expansion::walk_mode::diagnose>(decl, target, sink);
}
constexpr gemm_expansion::outcome count(const grouped_conv_key& decl, arch_id target) {
  auto none = [](const grouped_conv_key&) {};
  auto out = walk<gemm_expansion::walk_mode::count>(decl, target, none);
  if (out.produced == 0) out = walk<gemm_expansion::walk_mode::diagnose>(decl, target, none);
  return out;
}
template <class Sink>
constexpr void collect(const grouped_conv_key& decl, arch_id target, Sink&& sink) {
  walk<gemm_expansion::walk_mode::collect>(decl, target, sink);
}
constexpr long candidate_count(const grouped_conv_key& decl, arch_id target) {
  if (decl.algo.pipe == pipeline::direct_conv) return decl.sig.in == dtype::any ? 2 : 1;
  return gemm_expansion::candidate_count(conv_rules::implicit_gemm(decl), target);
}

}  // namespace kdecl::dsl::conv_expansion
