// FMHA rules and expansion over fmha_key and the tables in kdecl/arch/fmha_specs.hpp.
// AMD targets follow CK Tile's FMHA validation (ck_dispatcher_notes.md section 8);
// NVIDIA and host targets follow their pipelines' own rules (rule_style in the tables).
// Wildcards: pipeline, tile m0 / n0 / k0 (walk the pipeline's tile sweeps), stages
// (walk the legal range) and the four paddings.
#pragma once

#include "kdecl/arch/fmha_specs.hpp"
#include "kdecl/dsl/gemm_expand.hpp"
#include "kdecl/fmha/fmha_key.hpp"

namespace kdecl::dsl::fmha_rules {

namespace tables = kdecl::arch::fmha;

constexpr diagnostic fail(rule r, const fmha_key& k, std::uint32_t fields, long v0 = 0, long v1 = 0, long v2 = 0) {
  diagnostic d{};
  d.r = r;
  d.arch = k.algo.arch;
  d.a = k.sig.qkv;
  d.b = k.sig.o;
  d.v[0] = v0; d.v[1] = v1; d.v[2] = v2;
  d.v[3] = static_cast<long>(k.algo.pipe);
  d.fields = fields;
  return d;
}

constexpr const tables::dtype_offer* find_offer(const tables::target& t, dtype qkv, dtype o) {
  for (const auto& x : t.dtypes)
    if (x.qkv == qkv && x.o == o) return &x;
  return nullptr;
}

constexpr bool is_async(fmha_pipeline p) {
  return p == fmha_pipeline::qr_async || p == fmha_pipeline::qr_async_trload ||
         p == fmha_pipeline::qr_async_trload_v3;
}

constexpr bool hdims_offered(const tables::dtype_offer& o, int q, int v) {
  if (o.hdims.empty()) return q <= o.max_hdim && v <= o.max_hdim;
  for (const auto& h : o.hdims)
    if (h.q == q && h.v == v) return true;
  return false;
}

// Signature rules (never wildcards).
constexpr diagnostic check_signature(const fmha_key& k) {
  const auto& s = k.sig;
  const std::uint32_t sig = field::op_specific;
  const auto& t = tables::spec_of(k.algo.arch);
  if (s.hdim_q % 8 != 0 || s.hdim_v % 8 != 0 || s.hdim_q <= 0 || s.hdim_v <= 0)
    return fail(rule::fmha_hdim_not_multiple_of_8, k, sig, s.hdim_q, s.hdim_v);
  if (s.family == fmha_family::bwd && s.qkv != dtype::fp16 && s.qkv != dtype::bf16 && s.qkv != dtype::fp32)
    return fail(rule::fmha_backward_dtype_not_offered, k, sig);
  if (t.pipelines.empty()) return fail(rule::fmha_pipeline_not_offered_on_arch, k, sig | field::pipe);
  if ((t.families >> static_cast<unsigned>(s.family) & 1u) == 0)
    return fail(rule::fmha_family_not_offered_on_arch, k, sig, static_cast<long>(s.family));
  if (s.dropout && !t.dropout) return fail(rule::fmha_dropout_not_offered_on_arch, k, sig);
  if (s.v_layout == layout::col && !t.v_col_major) return fail(rule::fmha_v_col_major_not_offered_on_arch, k, sig);
  if (s.logits_soft_cap && s.bias != fmha_bias::none && !t.soft_cap_with_bias)
    return fail(rule::fmha_logits_soft_cap_requires_no_bias, k, sig);
  if (t.ck_rules && s.hdim_q == 192 && s.hdim_v == 128 && (s.bias != fmha_bias::none || s.dropout))
    return fail(rule::fmha_hdim_192_128_forbids_bias_and_dropout, k, sig);
  if (s.cache != dtype::any) {
    // Only the paged decode and append families hold their cache in a dtype of its own (fp8),
    // on targets whose serving pipelines read one.
    bool offered = s.cache == dtype::fp8 && !t.ck_rules &&
                   (s.family == fmha_family::fwd_pagedkv || s.family == fmha_family::fwd_splitkv ||
                    s.family == fmha_family::fwd_appendkv);
    if (offered) {
      offered = false;
      for (const auto& po : t.pipelines) offered = offered || po.fp8_cache;
    }
    if (!offered)
      return fail(rule::fmha_cache_dtype_not_offered, k, sig, static_cast<long>(s.cache), static_cast<long>(s.family));
  }
  if (!t.ck_rules && is_paged_family(s.family)) {
    const fmha_mode want = s.family == fmha_family::batch_prefill ? fmha_mode::group : fmha_mode::batch;
    if (s.mode != want) return fail(rule::fmha_family_requires_mode, k, sig, static_cast<long>(s.family), static_cast<long>(want));
    if (s.hdim_q != s.hdim_v) return fail(rule::fmha_paged_cache_requires_equal_hdims, k, sig, s.hdim_q, s.hdim_v);
  }
  const tables::dtype_offer* o = find_offer(t, s.qkv, s.o);
  if (o == nullptr) return fail(rule::fmha_dtype_not_offered_on_arch, k, sig);
  if (!hdims_offered(*o, s.hdim_q, s.hdim_v)) return fail(rule::fmha_hdim_not_offered_for_dtype, k, sig, s.hdim_q, s.hdim_v);
  return {};
}

// Algorithm rules on a key whose pipeline, tile, stages and paddings are chosen
// and whose defaults are filled (with_defaults).
constexpr diagnostic check_algorithm(const fmha_key& k) {
  using namespace field;
  using tables::rule_style;
  const auto& s = k.sig;
  const auto& a = k.algo;
  const auto& t = a.tile;
  const auto& tab = tables::spec_of(a.arch);
  const tables::pipeline_offer* po = tables::find_pipeline(tab, a.pipe);
  if (po == nullptr) return fail(rule::fmha_pipeline_not_offered_on_arch, k, pipe);
  const bool ck = po->rules == rule_style::ck_tile;
  if (po->families != 0 && (po->families >> static_cast<unsigned>(s.family) & 1u) == 0)
    return fail(rule::fmha_pipeline_does_not_serve_family, k, pipe | op_specific, static_cast<long>(s.family));
  if (po->qkv_dtypes != 0 && (po->qkv_dtypes >> static_cast<unsigned>(s.qkv) & 1u) == 0)
    return fail(rule::fmha_pipeline_does_not_compute_dtype, k, pipe | field::a, static_cast<long>(s.qkv));
  if (s.cache == dtype::fp8 && !po->fp8_cache)
    return fail(rule::fmha_cache_dtype_not_offered, k, pipe | op_specific, static_cast<long>(s.cache),
                static_cast<long>(s.family));
  if (po->rules == rule_style::paged) {
    // The serving kernels have one tile each (their sweeps hold one value).
    if (t.m0 != po->m0_sweep[0] || t.n0 != po->n0_sweep[0])
      return fail(rule::fmha_tile_not_offered_for_pipeline, k, tile_m | tile_n | pipe, t.m0, t.n0,
                  long(po->m0_sweep[0]) * 1000 + po->n0_sweep[0]);
    if (a.pipe == fmha_pipeline::paged_decode && !(s.hdim_q == 64 || s.hdim_q == 128 || s.hdim_q == 256))
      return fail(rule::fmha_pipeline_requires_hdim_64_128_or_256, k, pipe | op_specific, s.hdim_q);
  }
  if (ck && (a.pipe == fmha_pipeline::qr_async_trload || a.pipe == fmha_pipeline::qr_async_trload_v3 ||
             a.pipe == fmha_pipeline::v3) &&
      !(s.hdim_q == s.hdim_v && (s.hdim_q == 64 || s.hdim_q == 128)))
    return fail(rule::fmha_pipeline_requires_hdim_64_or_128, k, pipe | op_specific, 0, s.hdim_q, s.hdim_v);
  if (t.m0 <= 0 || t.n0 <= 0 || t.k0 <= 0 || t.n1 <= 0 || t.k1 <= 0)
    return fail(rule::value_not_positive, k, tile, t.m0, t.n0, t.k0);
  if (ck && a.pipe == fmha_pipeline::v3 && t.m0 != 256)
    return fail(rule::fmha_v3_pipeline_requires_tile_m0_256, k, pipe | tile_m, t.m0);
  const int k0max = tables::k0max_for(a.arch, s.hdim_q);
  if (t.k0max != k0max) return fail(rule::fmha_k0max_does_not_match_hdim_q, k, op_specific, t.k0max, k0max, s.hdim_q);
  if (ck) {
    if (t.k0 > s.hdim_q || s.hdim_q % t.k0 != 0)
      return fail(rule::fmha_tile_k0_does_not_divide_hdim_q, k, tile_k, t.k0, s.hdim_q);
  } else {
    if (t.k0 != t.k0max) return fail(rule::fmha_tile_k0_must_equal_k0max, k, tile_k, t.k0, t.k0max);
    if (t.k1 != t.n0) return fail(rule::fmha_tile_k1_must_equal_n0, k, tile_n | op_specific, t.k1, t.n0);
    const int n1 = tables::n1_for(a.arch, s.hdim_v);
    if (t.n1 != n1) return fail(rule::fmha_tile_n1_must_equal_padded_hdim_v, k, op_specific, t.n1, n1, s.hdim_v);
  }
  const tables::dtype_offer* o = find_offer(tab, s.qkv, s.o);
  for (const mnk& wt : {a.warp_tile0, a.warp_tile1}) {
    bool listed = false;
    for (const auto& x : o->warp_tiles) listed = listed || (x.m == wt.m && x.n == wt.n && x.k == wt.k);
    if (!listed) return fail(rule::fmha_warp_tile_not_offered_for_dtype, k, warp_tile | op_specific, wt.m, wt.n, wt.k);
  }
  const auto& w0 = a.warps0;
  const auto& w1 = a.warps1;
  const auto& x0 = a.warp_tile0;
  const auto& x1 = a.warp_tile1;
  if (!w0.concrete() || !w1.concrete()) return fail(rule::value_not_positive, k, warps, w0.m, w0.n, w0.k);
  if (!po->warps.empty()) {
    bool listed = false;
    for (const auto& x : po->warps) listed = listed || (x.m == w0.m && x.n == w0.n && x.k == w0.k);
    if (!listed) return fail(rule::fmha_warps_not_offered_for_pipeline, k, warps | pipe, w0.m, w0.n, w0.k);
  }
  // kdecl's kernels (every built pipeline, CK's qr on gfx90a/gfx942 included) run both stages on one
  // set of warps and one warp tile.
  if (!ck || po->kernel_built) {
    if (!(w1 == w0)) return fail(rule::fmha_stage_1_warps_must_equal_stage_0, k, warps | pipe, 0);
    if (!(x1 == x0)) return fail(rule::fmha_stage_1_warps_must_equal_stage_0, k, warp_tile | pipe, 1);
  }
  if (po->rules == rule_style::tma_wgmma && t.m0 != w0.m * 16)
    return fail(rule::fmha_tile_m0_must_be_64_rows_per_consumer_warpgroup, k, tile_m | warps, t.m0, w0.m * 16);
  // The tma_wgmma_ws kernel (kernels/fmha/cuda/sm90/) holds head dims in whole 128-byte swizzled
  // rows (64, 128, 192, 256; Q's and V's apart, e.g. 192/128); smaller head dims run on it padded.
  // Which pairs fit is then the accumulator cap's and shared memory's to say.
  auto whole_rows = [](long d) { return d > 0 && d % 64 == 0 && d <= 256; };
  if (po->rules == rule_style::tma_wgmma && !(whole_rows(s.hdim_q) && whole_rows(s.hdim_v)))
    return fail(rule::fmha_pipeline_requires_hdim_multiple_of_64, k, pipe | op_specific, 0, s.hdim_q, s.hdim_v);
  const long dims[6][2] = {{t.m0, w0.m * x0.m}, {t.n0, w0.n * x0.n}, {t.k0, w0.k * x0.k},
                           {t.n1, w1.n * x1.n}, {t.k1, w1.k * x1.k}, {t.m0, w1.m * x1.m}};
  // (paged_append has no tiles; paged_decode's one tile fits its warps by construction.)
  for (int i = 0; i < 6 && po->rules != rule_style::paged; ++i)
    if (dims[i][0] % dims[i][1] != 0)
      return fail(rule::fmha_tile_not_multiple_of_warps_x_warp_tile, k, tile | warps | warp_tile | op_specific, i,
                  dims[i][0], dims[i][1]);
  if (po->max_n > 0 && t.n0 > po->max_n) return fail(rule::fmha_tile_n_above_maximum, k, tile_n, t.n0, po->max_n, 0);
  if (po->max_n > 0 && t.n1 > po->max_n)
    return fail(rule::fmha_tile_n_above_maximum, k, op_specific | pipe, t.n1, po->max_n, 1);
  if (a.stages < po->stages.min || a.stages > po->stages.max)
    return fail(rule::fmha_stages_out_of_range, k, stages | pipe, a.stages, po->stages.min, po->stages.max);
  if (po->smem == tables::smem_formula::ck_qr) {
    if (!is_async(a.pipe)) {
      const long use = tables::smem_bytes(po->smem, k);
      if (use > po->smem_capacity)
        return fail(rule::fmha_lds_exceeds_capacity, k, tile | pipe | op_specific, use, po->smem_capacity);
    }
  } else if (po->smem != tables::smem_formula::none) {
    const long use = tables::smem_bytes(po->smem, k);
    if (use > po->smem_capacity)
      return fail(rule::fmha_smem_exceeds_capacity, k, tile_m | tile_n | pipe | stages | op_specific, use,
                  po->smem_capacity, a.stages);
  }
  if (po->max_accumulators > 0) {
    const long acc = tables::accumulators_per_thread(k);
    if (acc > po->max_accumulators)
      return fail(rule::fmha_accumulators_exceed_register_cap, k, tile_m | tile_n | warps | op_specific, acc,
                  po->max_accumulators);
  }
  if (s.mode == fmha_mode::group && (a.pad_s != tristate::yes || a.pad_sk != tristate::yes))
    return fail(rule::fmha_group_mode_requires_seq_padding, k, pad | op_specific);
  return {};
}

// Defaults filled from the signature and the pipeline (which must be chosen):
// k0max and n1 from the head dims; k0 (when 0) = k0max outside CK; k1 = k0 (CK) or n0; warps and warp tiles the
// pipeline's first (stage 1 as stage 0); stages the pipeline's default depth.
constexpr fmha_key with_defaults(fmha_key k) {
  const auto& tab = tables::spec_of(k.algo.arch);
  const tables::pipeline_offer* po = tables::find_pipeline(tab, k.algo.pipe);
  const bool ck = po == nullptr || po->rules == tables::rule_style::ck_tile;
  auto& t = k.algo.tile;
  if (t.k0max == 0) t.k0max = tables::k0max_for(k.algo.arch, k.sig.hdim_q);
  if (t.n1 == 0) t.n1 = tables::n1_for(k.algo.arch, k.sig.hdim_v);
  if (t.k0 == 0 && !ck) t.k0 = t.k0max;  // tile(m0, n0): the whole padded head dim
  if (t.k1 == 0) t.k1 = ck ? t.k0 : t.n0;
  const mnk unset{0, 0, 0};
  if (k.algo.warps0 == unset)
    k.algo.warps0 = po != nullptr && !po->warps.empty() ? mnk{po->warps[0].m, po->warps[0].n, po->warps[0].k}
                                                        : mnk{4, 1, 1};
  if (k.algo.warps1 == unset) k.algo.warps1 = k.algo.warps0;
  if (k.algo.warp_tile0 == unset) {
    const tables::dtype_offer* o = find_offer(tab, k.sig.qkv, k.sig.o);
    k.algo.warp_tile0 = o != nullptr && !o->warp_tiles.empty()
                            ? mnk{o->warp_tiles[0].m, o->warp_tiles[0].n, o->warp_tiles[0].k}
                            : mnk{32, 32, 16};
  }
  if (k.algo.warp_tile1 == unset) k.algo.warp_tile1 = k.algo.warp_tile0;
  if (k.algo.stages == 0 && po != nullptr) k.algo.stages = tables::default_stages(*po, k);
  return k;
}

}  // namespace kdecl::dsl::fmha_rules

namespace kdecl::dsl {

constexpr std::uint32_t wildcard_fields(const fmha_key& k) {
  std::uint32_t w = 0;
  if (k.algo.pipe == fmha_pipeline::any) w |= field::pipe;
  if (k.algo.tile.m0 == any_int) w |= field::tile_m;
  if (k.algo.tile.n0 == any_int) w |= field::tile_n;
  if (k.algo.tile.k0 == any_int) w |= field::tile_k;
  if (k.algo.stages == any_int) w |= field::stages;
  for (auto p : {k.algo.pad_s, k.algo.pad_sk, k.algo.pad_d, k.algo.pad_dv})
    if (p == tristate::any) w |= field::pad;
  return w;
}

// Run-time check of one FMHA key on one target (unset n1/k1/k0max/warps/warp tiles/stages
// take their defaults).
constexpr diagnostic validate(const fmha_key& key, arch_id target) {
  fmha_key k = key;
  k.algo.arch = target;
  if (const auto w = wildcard_fields(k); w != 0) return fmha_rules::fail(rule::key_has_wildcard, k, w);
  if (auto d = fmha_rules::check_signature(k); !d.ok()) return d;
  return fmha_rules::check_algorithm(fmha_rules::with_defaults(k));
}

}  // namespace kdecl::dsl

namespace kdecl::dsl::fmha_expansion {

// The values one wildcard walks (or the one declared value).
struct choices {
  int values[16]{};
  int count = 0;
};

constexpr choices sweep(int declared, std::span<const int> table) {
  choices c{};
  if (declared != any_int) {
    c.values[c.count++] = declared;
    return c;
  }
  for (int v : table)
    if (c.count < 16) c.values[c.count++] = v;
  return c;
}

template <class Sink>
constexpr gemm_expansion::outcome expand(const fmha_key& decl, arch_id target, Sink&& sink) {
  namespace tables = kdecl::arch::fmha;
  gemm_expansion::outcome out{};
  gemm_expansion::detail::walker w{wildcard_fields(decl)};
  fmha_key k = decl;
  k.algo.arch = target;
  if (auto e = fmha_rules::check_signature(k); !e.ok()) return {e, {}, 0, 0};
  const auto& tab = tables::spec_of(target);
  const auto& t = decl.algo.tile;
  const bool pipe_wild = decl.algo.pipe == fmha_pipeline::any;
  const int k0max = tables::k0max_for(target, decl.sig.hdim_q);
  for (const auto& po : tab.pipelines) {
    if (!pipe_wild && po.pipe != decl.algo.pipe) continue;
    const int one_k0[1] = {k0max};
    const choices ms = sweep(t.m0, po.m0_sweep), ns = sweep(t.n0, po.n0_sweep),
                  ks = sweep(t.k0, po.k0_sweep.empty() ? std::span<const int>(one_k0) : po.k0_sweep);
    const int s_lo = decl.algo.stages == any_int ? po.stages.min : decl.algo.stages;
    const int s_hi = decl.algo.stages == any_int ? po.stages.max : decl.algo.stages;
    for (int im = 0; im < ms.count; ++im)
      for (int in = 0; in < ns.count; ++in)
        for (int ik = 0; ik < ks.count; ++ik)
          for (int st = s_lo; st <= s_hi; ++st)
            for (int pads = 0; pads < 16; ++pads) {
              fmha_key c = k;
              c.algo.pipe = po.pipe;
              c.algo.tile.m0 = ms.values[im];
              c.algo.tile.n0 = ns.values[in];
              c.algo.tile.k0 = ks.values[ik];
              c.algo.stages = st;
              tristate* p[4] = {&c.algo.pad_s, &c.algo.pad_sk, &c.algo.pad_d, &c.algo.pad_dv};
              bool skip = false;
              for (int b = 0; b < 4; ++b) {
                const tristate choice = (pads >> b & 1) ? tristate::yes : tristate::no;
                if (*p[b] == tristate::any) *p[b] = choice;
                else if (choice == tristate::yes) skip = true;  // explicit pad: only the "no" iteration
              }
              if (skip) continue;
              c = fmha_rules::with_defaults(c);
              ++out.considered;
              if (w.rejects(fmha_rules::check_algorithm(c))) {
                if (w.any_fatal) { out.error = w.fatal; return out; }
                continue;
              }
              sink(c);
              ++out.produced;
            }
  }
  if (out.produced == 0) {
    if (!pipe_wild && tables::find_pipeline(tab, decl.algo.pipe) == nullptr)
      return {fmha_rules::fail(rule::fmha_pipeline_not_offered_on_arch, k, field::pipe), {}, 0, out.considered};
    diagnostic e{};
    e.r = rule::wildcards_leave_no_valid_kernel;
    e.arch = target;
    out.error = e;
    out.cause = w.last;
  }
  return out;
}

constexpr long candidate_count(const fmha_key& decl, arch_id target) {
  namespace tables = kdecl::arch::fmha;
  const auto& t = decl.algo.tile;
  long n = 0;
  for (const auto& po : tables::spec_of(target).pipelines) {
    if (decl.algo.pipe != fmha_pipeline::any && po.pipe != decl.algo.pipe) continue;
    long c = 1;
    c *= t.m0 == any_int ? static_cast<long>(po.m0_sweep.size()) : 1;
    c *= t.n0 == any_int ? static_cast<long>(po.n0_sweep.size()) : 1;
    c *= t.k0 == any_int && !po.k0_sweep.empty() ? static_cast<long>(po.k0_sweep.size()) : 1;
    c *= decl.algo.stages == any_int ? static_cast<long>(po.stages.max - po.stages.min + 1) : 1;
    n += c;
  }
  for (auto p : {decl.algo.pad_s, decl.algo.pad_sk, decl.algo.pad_d, decl.algo.pad_dv}) n *= p == tristate::any ? 2 : 1;
  return n;
}

// Whether kdecl builds the kernel of an expanded key (dsl::expand<> requires it).
constexpr diagnostic kernel_missing(const fmha_key& k) {
  const auto* po = kdecl::arch::fmha::find_pipeline(kdecl::arch::fmha::spec_of(k.algo.arch), k.algo.pipe);
  if (po != nullptr && po->kernel_built) return {};
  diagnostic d = fmha_rules::fail(rule::no_kernel_built_for_fmha_pipeline, k, field::pipe);
  if (po == nullptr || !kdecl::arch::fmha::kernels_available(k.algo.arch)) {
    d.r = rule::no_kernel_built_for_arch;
    d.v[0] = static_cast<long>(op_kind::fmha);
  }
  return d;
}

}  // namespace kdecl::dsl::fmha_expansion
