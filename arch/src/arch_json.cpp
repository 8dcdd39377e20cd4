// JSON and Markdown export of the constexpr arch tables (kdecl/arch/arch.hpp).
#include "kdecl/arch/arch_json.hpp"

#include <sstream>
#include <string_view>

#include "kdecl/arch/arch.hpp"
#include "kdecl/arch/ck_tile_tables.hpp"
#include "kdecl/arch/fmha_specs.hpp"

namespace kdecl::arch {
namespace {

using nlohmann::json;

std::string str(std::string_view s) { return std::string(s); }

json shape(const shape3& s) { return json::array({s.m, s.n, s.k}); }

json shapes(std::span<const shape3> list) {
  json out = json::array();
  for (const auto& s : list) out.push_back(shape(s));
  return out;
}

std::string dtype_key(dtype a, dtype b, dtype acc) {
  return str(to_string(a)) + "_" + str(to_string(b)) + "_" + str(to_string(acc));
}

template <class E>
json enum_set(std::uint32_t set) {
  json out = json::array();
  for (std::size_t i = 0; i < enum_count<E>(); ++i)
    if (set >> i & 1u) out.push_back(str(to_string(static_cast<E>(i))));
  return out;
}

std::string layout_code(gemm_layout l) {
  std::string s;
  for (layout x : {l.a, l.b, l.c}) s += str(to_string(x));
  return s;
}

json layout_set(std::uint32_t set) {
  json out = json::array();
  for (unsigned i = 0; i < 8; ++i)
    if (set >> i & 1u) out.push_back(layout_code(layout_of_index(i)));
  return out;
}

json ints(std::span<const int> v) { return json(std::vector<int>(v.begin(), v.end())); }

std::string_view formula_name(smem_formula f) {
  switch (f) {
    case smem_formula::none: return "none";
    case smem_formula::ring_ab: return "stages*(tile_m*tile_k*size(A) + tile_n*tile_k*size(B))";
    case smem_formula::cp_async_ring_or_staging:
      return "max(stages*(tile_m*tile_k*size(A) + (preshuffle ? 0 : tile_n*tile_k*size(B))), "
             "cshuffle ? (C row ? tile_m*(tile_n+8)*4 : tile_n*(tile_m+4)*4) : 0)";
    case smem_formula::tma_ring_barriers_strips:
      return "stages*(tile_m+tile_n)*tile_k*size(A) + 1024 + roundup(16*stages + 16, 128) + "
             "(cshuffle ? (pingpong ? 2 : 1)*warps_m*2304 : 0)";
    case smem_formula::hip_padded_ring_or_shuffle:
      return "max(stages*(tile_m*(tile_k+16/size(A))*size(A) + tile_n*(tile_k+16/size(B))*size(B)), "
             "cshuffle ? warps_m*warps_n*warp_tile_m*(warp_tile_n+4)*4 : 0)";
  }
  return "?";
}

json pipeline_json(const pipeline_caps& c) {
  json dtypes = json::array();
  for (const auto& o : c.dtypes)
    dtypes.push_back({{"a", str(to_string(o.a))},
                      {"b", str(to_string(o.b))},
                      {"acc", str(to_string(o.acc))},
                      {"compute", str(to_string(o.compute))},
                      {"c", enum_set<dtype>(o.c_types)},
                      {"layouts", layout_set(o.layouts)},
                      {"warp_tiles", shapes(o.warp_tiles)},
                      {"preshuffle_warp_tiles", shapes(o.preshuffle_warp_tiles)},
                      {"variants", enum_set<gemm_variant>(o.variants)},
                      {"warp_region_align", json::array({o.warp_region_align.m, o.warp_region_align.n})}});
  json clusters = json::array();
  for (const auto& cl : c.clusters) clusters.push_back(json::array({cl.m, cl.n}));
  return {{"pipeline", str(to_string(c.pipe))},
          {"dtypes", dtypes},
          {"warps", shapes(c.warps)},
          {"extra_warps", c.extra_warps},
          {"tile_min", shape(c.tile_min)},
          {"tile_align", shape(c.tile_align)},
          {"tile_n_is_warp_tile_n", c.tile_n_is_warp_tile_n},
          {"tile_k_bytes", c.tile_k_bytes},
          {"tile_sweep", {{"m", ints(c.tile_m_sweep)}, {"n", ints(c.tile_n_sweep)}, {"k", ints(c.tile_k_sweep)}}},
          {"stages", {{"min", c.stages.min}, {"max", c.stages.max}, {"default", c.stages.def}}},
          {"epilogues", enum_set<epilogue>(c.epilogues)},
          {"schedulers", enum_set<scheduler>(c.schedulers)},
          {"vector_bytes", ints(c.vector_bytes)},
          {"vector_default", c.vector_default},
          {"smem_formula", str(formula_name(c.smem))},
          {"smem_capacity", c.smem_capacity},
          {"clusters", clusters},
          {"preshuffle_only", c.preshuffle},
          {"variants", enum_set<gemm_variant>(c.variants)},
          {"tile_max", shape(c.tile_max)},
          {"max_accumulators_per_thread", c.max_accumulators},
          {"max_chunks_in_flight", c.max_chunks_in_flight},
          {"tile_chunk_bytes", c.tile_chunk_bytes},
          {"swizzle_rows", c.swizzle_rows},
          {"preshuffle_k_bytes", c.preshuffle_k_bytes},
          {"block_scaled_layouts", layout_set(c.block_scaled_layouts)},
          {"block_scaled_k_tiles_per_block", c.block_scaled_k_tiles_per_block},
          {"block_scaled_tile_n_in_one_block", c.block_scaled_tile_n_in_one_block},
          {"conv",
           {{"directions", enum_set<conv_direction>(c.conv.directions)},
            {"layouts", enum_set<conv_layout>(c.conv.layouts)},
            {"dtypes", enum_set<dtype>(c.conv.dtypes)},
            {"specializations", enum_set<conv_specialization>(c.conv.specializations)},
            {"max_groups_to_merge", c.conv.max_groups_to_merge},
            {"schedulers", enum_set<scheduler>(c.conv.schedulers)},
            {"min_vector_bytes", c.conv.min_vector_bytes},
            {"element_operands", c.conv.element_operands},
            {"merge_directions", enum_set<conv_direction>(c.conv.merge_directions)},
            {"merge_layouts", enum_set<conv_layout>(c.conv.merge_layouts)},
            {"stride1_directions", enum_set<conv_direction>(c.conv.stride1_directions)},
            {"stride1_ndims", c.conv.stride1_ndims},
            {"fused_specializations", enum_set<conv_specialization>(c.conv.fused_specializations)},
            {"dynamic_fusion", c.conv.dynamic_fusion},
            {"fp8_forward_outputs", enum_set<dtype>(c.conv.fp8_forward_outputs)},
            {"fp8_forward_plain", c.conv.fp8_forward_plain}}},
          {"epilogue_any_alignment", c.epilogue_any_alignment},
          {"width_one_is_scalar", c.width_one_is_scalar},
          {"index_bits", ints(c.index_bits)}};
}

json warp_tile_lists(std::span<const warp_tile_list> lists) {
  json out = json::object();
  for (const auto& l : lists) out[dtype_key(l.a, l.b, l.acc)] = shapes(l.tiles);
  return out;
}

json ck_tile_json() {
  json sizes = json::object();
  for (const auto& e : ck_tile::element_sizes) sizes[str(to_string(e.type))] = e.bits / 8.0;
  json combos = json::object();
  for (const auto& c : ck_tile::dtype_combinations)
    combos[str(to_string(c.a)) + "_" + str(to_string(c.b))] = {{"acc", str(to_string(c.acc))}, {"notes", str(c.notes)}};
  json lds = json::object();
  for (const auto& l : ck_tile::lds_capacity_limits) lds[str(l.pipeline)] = l.bytes;
  for (const auto& l : ck_tile::lds_capacity_fixes) lds[str(l.pipeline)] = l.bytes;
  json traits = json::array();
  for (const auto& t : ck_tile::unsupported_traits)
    traits.push_back({str(to_string(t.pipe)), str(to_string(t.epi)), str(to_string(t.sched))});
  json pre = json::array();
  for (auto p : ck_tile::preshuffle_pipelines) pre.push_back(str(to_string(p)));
  return {{"element_sizes", sizes},
          {"dtype_combinations", combos},
          {"lds_capacity_limits", lds},
          {"unsupported_trait_combinations", traits},
          {"preshuffle_pipelines", pre},
          {"operator_tile_constraints",
           {{"gemm", {{"min", shape(ck_tile::gemm_tile_min)}, {"align", shape(ck_tile::gemm_tile_align)}}},
            {"preshuffle",
             {{"min", shape(ck_tile::preshuffle_tile_min)}, {"align", shape(ck_tile::preshuffle_tile_align)}}}}}};
}

json fmha_json(arch_id a) {
  const auto& t = fmha::spec_of(a);
  json dtypes = json::array();
  for (const auto& o : t.dtypes) {
    json hd = json::array();
    for (const auto& h : o.hdims) hd.push_back(json::array({h.q, h.v}));
    json d{{"qkv", str(to_string(o.qkv))}, {"o", str(to_string(o.o))}, {"hdims", hd},
           {"warp_tiles", shapes(o.warp_tiles)}};
    if (o.hdims.empty()) d["max_hdim"] = o.max_hdim;  // any multiple of 8 up to it
    dtypes.push_back(std::move(d));
  }
  json pipes = json::array();
  for (const auto& p : t.pipelines) pipes.push_back(str(to_string(p.pipe)));
  json out{{"dtypes", dtypes}, {"pipelines", pipes}, {"trload", t.trload}, {"v3", t.v3}};
  if (t.ck_rules) return out;
  // kdecl's own pipelines: their rules in full.
  constexpr std::string_view styles[] = {"ck_tile", "mma_sync", "tma_wgmma", "host", "paged"};
  constexpr std::string_view smem[] = {"none", "ck_qr", "q_kv_ring_padded", "tma_q_kv_ring_o", "mfma_k_vt_slices",
                                       "paged_decode_ring"};
  auto family_names = [](std::uint32_t set) {
    json out = json::array();
    for (std::size_t i = 0; i < enum_count<fmha_family>(); ++i)
      if (set >> i & 1u) out.push_back(str(to_string(static_cast<fmha_family>(i))));
    return out;
  };
  json details = json::object();
  for (const auto& p : t.pipelines)
    details[str(to_string(p.pipe))] = {
        {"families", family_names(p.families != 0 ? p.families : t.families)},
        {"fp8_cache", p.fp8_cache},
        {"rules", str(styles[static_cast<int>(p.rules)])},
        {"warps", shapes(p.warps)},
        {"extra_warps", p.extra_warps},
        {"m0_sweep", ints(p.m0_sweep)},
        {"n0_sweep", ints(p.n0_sweep)},
        {"k0", "k0max"},
        {"stages", {{"min", p.stages.min}, {"max", p.stages.max}, {"default", p.stages.def}}},
        {"smem_formula", str(smem[static_cast<int>(p.smem)])},
        {"smem_capacity", p.smem_capacity},
        {"max_accumulators", p.max_accumulators},
        {"max_n", p.max_n},
        {"kernel_built", p.kernel_built},
        {"access_bytes", p.access_bytes}};
  out["pipeline_rules"] = details;
  out["families"] = family_names(t.families);
  out["dropout"] = t.dropout;
  out["v_col_major"] = t.v_col_major;
  out["soft_cap_with_bias"] = t.soft_cap_with_bias;
  return out;
}

}  // namespace

nlohmann::json arch_to_json(arch_id a) {
  const arch_spec& s = spec_of(a);
  json peaks = json::object();
  for (const auto& p : s.peaks) peaks[str(to_string(p.compute))] = p.tflops;
  json mma = json::array();
  for (const auto& m : s.mma)
    mma.push_back({{"instruction", str(m.name)}, {"key", dtype_key(m.a, m.b, m.acc)}, {"shape", shape(m.shape)}});
  json traits = json::array();
  for (const auto& t : s.unsupported_traits)
    traits.push_back({str(to_string(t.pipe)), str(to_string(t.epi)), str(to_string(t.sched))});
  json pipes = json::array();
  for (const auto& c : s.pipelines) pipes.push_back(pipeline_json(c));
  return {{"arch", str(to_string(a))},
          {"backend", str(to_string(s.be))},
          {"family", str(s.family)},
          {"target_family", str(s.target_family)},
          {"description", str(s.description)},
          {"warp_size", s.warp_size},
          {"max_threads_per_block", s.max_threads_per_block},
          {"smem_per_block", s.smem_per_block},
          {"registers_per_sm", s.registers_per_sm},
          {"has_fp8", s.has_fp8},
          {"kernels_available", s.kernels_available},
          {"reference_part",
           {{"name", str(s.reference_part)}, {"sm_count", s.sm_count}, {"mem_bandwidth_gbs", s.mem_bandwidth_gbs},
            {"peak_dense_tflops", peaks}}},
          {"warp_configs", shapes(s.warp_configs)},
          {"warp_tiles", warp_tile_lists(s.warp_tiles)},
          {"preshuffle_warp_tiles", warp_tile_lists(s.preshuffle_warp_tiles)},
          {"mma_instructions", mma},
          {"unsupported_traits", traits},
          {"pipelines", pipes},
          {"direct_conv",
           {{"directions", enum_set<conv_direction>(s.direct_conv.directions)},
            {"layouts", enum_set<conv_layout>(s.direct_conv.layouts)},
            {"dtypes", enum_set<dtype>(s.direct_conv.dtypes)},
            {"threads", ints(s.direct_conv.threads)},
            {"max_tile_pixels", s.direct_conv.max_tile_pixels},
            {"max_tile_channels", s.direct_conv.max_tile_channels},
            {"max_pixels_per_thread", s.direct_conv.max_pixels_per_thread},
            {"vector_bytes", ints(s.direct_conv.vector_bytes)},
            {"smem_capacity", s.direct_conv.smem_capacity},
            {"staged_max_rows_per_thread", s.direct_conv.staged_max_rows_per_thread}}},
          {"fmha", fmha_json(a)}};
}

nlohmann::json all_arch_json() {
  json targets = json::array();
  for (const arch_spec* s : all_specs) targets.push_back(arch_to_json(s->id));
  return {{"targets", targets}, {"ck_tile", ck_tile_json()}};
}

namespace {

std::string cell(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  std::string s = j.dump();
  std::string out;
  for (char ch : s) out += ch == '"' ? std::string() : ch == '|' ? std::string("\\|") : std::string(1, ch);
  return out;
}

}  // namespace

std::string arch_to_markdown() {
  std::ostringstream md;
  const json all = all_arch_json();
  md << "# kdecl architecture tables\n\n"
     << "Generated from the constexpr tables in `arch/include/kdecl/arch/` by `kdecl::arch::arch_to_markdown()`.\n"
     << "Do not edit: regenerate with `kdecl arch --markdown > docs/arch_tables.md` (or any program printing "
     << "`arch_to_markdown()`).\n\n";
  md << "## Targets\n\n| arch | backend | family | warp size | max threads | shared memory / LDS per block | "
        "registers / SM | fp8 | kdecl kernels | reference part | SMs / CUs | GB/s | dense TFLOP/s |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& t : all["targets"])
    md << "| " << cell(t["arch"]) << " | " << cell(t["backend"]) << " | " << cell(t["family"]) << " | "
       << t["warp_size"] << " | " << t["max_threads_per_block"] << " | " << t["smem_per_block"] << " | "
       << t["registers_per_sm"] << " | " << (t["has_fp8"].get<bool>() ? "yes" : "no") << " | "
       << (t["kernels_available"].get<bool>() ? "yes" : "no (tables only)") << " | "
       << cell(t["reference_part"]["name"]) << " | " << t["reference_part"]["sm_count"] << " | "
       << t["reference_part"]["mem_bandwidth_gbs"] << " | " << cell(t["reference_part"]["peak_dense_tflops"])
       << " |\n";
  const json& ck = all["ck_tile"];
  md << "\n## CK Tile arch-independent tables\n\n";
  for (const char* name : {"element_sizes", "dtype_combinations", "lds_capacity_limits",
                           "unsupported_trait_combinations", "preshuffle_pipelines", "operator_tile_constraints"})
    md << "- **" << name << "**: `" << ck[name].dump() << "`\n";
  for (const auto& t : all["targets"]) {
    md << "\n## " << cell(t["arch"]) << " — " << cell(t["description"]) << "\n\n";
    if (!t["warp_configs"].empty()) md << "- warp configs (warps per block): `" << t["warp_configs"].dump() << "`\n";
    if (!t["warp_tiles"].empty()) md << "- warp tiles (a_b_acc): `" << t["warp_tiles"].dump() << "`\n";
    if (!t["preshuffle_warp_tiles"].empty())
      md << "- preshuffle warp tiles: `" << t["preshuffle_warp_tiles"].dump() << "`\n";
    if (!t["mma_instructions"].empty()) md << "- matrix instructions: `" << t["mma_instructions"].dump() << "`\n";
    if (!t["unsupported_traits"].empty())
      md << "- unsupported (pipeline, epilogue, scheduler): `" << t["unsupported_traits"].dump() << "`\n";
    if (!t["fmha"]["pipelines"].empty()) md << "- fmha: `" << t["fmha"].dump() << "`\n";
    if (!t["direct_conv"]["directions"].empty())
      md << "- direct_conv (direct convolution; tile = pixels rows x columns x channels, warp tile = pixels x "
            "channels x rows per thread, rows > 1 with stages 2: the TMA-staged depthwise kernel): `"
         << t["direct_conv"].dump() << "`\n";
    md << "\n| pipeline | dtypes (a b acc compute -> C; layouts) | warps | stages (default) | epilogues | "
          "schedulers | vector bytes (default) | smem formula <= capacity | clusters | tile min / align / max | "
          "limits |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& p : t["pipelines"]) {
      std::string dt;
      for (const auto& o : p["dtypes"]) {
        dt += cell(o["a"]) + " " + cell(o["b"]) + " " + cell(o["acc"]) + " " + cell(o["compute"]) + " -> " +
              cell(o["c"]) + "; " + cell(o["layouts"]) + "; wt " + cell(o["warp_tiles"]);
        if (o["variants"] != p["variants"]) dt += "; variants " + cell(o["variants"]);
        if (o["warp_region_align"][0].get<int>() != 0) dt += "; warp region multiple of " + cell(o["warp_region_align"]);
        dt += "<br>";
      }
      std::string limits = "variants " + cell(p["variants"]);
      if (p["tile_n_is_warp_tile_n"].get<bool>()) limits += "; tile_n = warp_tile_n";
      if (p["tile_k_bytes"].get<int>() != 0) limits += "; tile_k*size(A) = " + p["tile_k_bytes"].dump();
      if (p["max_accumulators_per_thread"].get<int>() != 0)
        limits += "; accumulators/thread <= " + p["max_accumulators_per_thread"].dump();
      if (p["max_chunks_in_flight"].get<int>() != 0)
        limits += "; (tile_m + tile_n) x 16-byte chunks per lane and step <= " + p["max_chunks_in_flight"].dump();
      if (p["tile_chunk_bytes"].get<int>() != 0)
        limits += "; tile extents multiples of " + p["tile_chunk_bytes"].dump() + " bytes";
      if (p["swizzle_rows"].get<bool>()) limits += "; smem rows 16/32/64/128n bytes";
      if (p["preshuffle_k_bytes"].get<int>() != 0)
        limits += "; preshuffle tile_k*size(B) multiple of " + p["preshuffle_k_bytes"].dump();
      if (p["block_scaled_layouts"].size() != 8) limits += "; block_scaled layouts " + cell(p["block_scaled_layouts"]);
      if (p["block_scaled_k_tiles_per_block"].get<bool>()) limits += "; block_scaled tile_k divides 128";
      if (p["block_scaled_tile_n_in_one_block"].get<bool>()) limits += "; block_scaled tile_n divides 128";
      if (!p["conv"]["directions"].empty())
        limits += "; convolutions: " + cell(p["conv"]["directions"]) + " " + cell(p["conv"]["layouts"]) + " " +
                  cell(p["conv"]["dtypes"]) + " (input = weight = output), specializations " +
                  cell(p["conv"]["specializations"]) + ", groups_to_merge <= " +
                  p["conv"]["max_groups_to_merge"].dump() +
                  (p["conv"]["merge_directions"].empty()
                       ? std::string()
                       : " (" + cell(p["conv"]["merge_directions"]) + " " + cell(p["conv"]["merge_layouts"]) + ")") +
                  (p["conv"]["fused_specializations"].empty()
                       ? std::string()
                       : ", fused epilogues (fwd) for " + cell(p["conv"]["fused_specializations"]) +
                             (p["conv"]["dynamic_fusion"].get<bool>() ? " (also read at run time)" : "")) +
                  (p["conv"]["fp8_forward_outputs"].empty()
                       ? std::string()
                       : ", fp8/bf8 input and weights forward writing " + cell(p["conv"]["fp8_forward_outputs"]) +
                             (p["conv"]["fp8_forward_plain"].get<bool>()
                                  ? " (no specialization, merged groups or fused epilogue)"
                                  : ""));
      if (p["epilogue_any_alignment"].get<bool>()) limits += "; C/D any alignment (vector_bytes binds A, B)";
      limits += "; index bits " + cell(p["index_bits"]);
      md << "| " << cell(p["pipeline"]) << " | " << dt << " | " << cell(p["warps"]) << " | "
         << p["stages"]["min"] << ".." << p["stages"]["max"] << " (" << p["stages"]["default"] << ") | "
         << cell(p["epilogues"]) << " | " << cell(p["schedulers"]) << " | " << cell(p["vector_bytes"]) << " ("
         << p["vector_default"] << ") | " << cell(p["smem_formula"]) << " <= " << p["smem_capacity"] << " | "
         << cell(p["clusters"]) << " | " << cell(p["tile_min"]) << " / " << cell(p["tile_align"]) << " / "
         << cell(p["tile_max"]) << " | " << limits << " |\n";
    }
  }
  return md.str();
}

}  // namespace kdecl::arch
