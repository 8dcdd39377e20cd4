#include "kdecl/conv/grouped_conv_name.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "detail/name_reader.hpp"

namespace kdecl {
namespace {

// One dtype throughout, its default accumulator (the multiply may still be tf32).
bool uniform_dtypes(const grouped_conv_signature& s) {
  return s.wei == s.in && s.out == s.in && s.acc == default_accumulator(s.in);
}

}  // namespace

std::string fusion_segment(const conv_fusion& f) {
  if (f.dynamic) return "fused-dynamic";
  std::string out = "fused";
  if (f.bias) out += "-bias";
  if (f.residual) out += "-residual";
  if (f.act != elementwise::pass_through) out += fmt::format("-{}", to_string(f.act));
  return out;
}

std::optional<conv_fusion> parse_fusion_segment(std::string_view segment) {
  if (segment == "fused-dynamic") return conv_fusion{.dynamic = true};
  const auto parts = detail::name_reader::split(segment, '-');
  if (parts.size() < 2 || parts[0] != "fused") return std::nullopt;
  conv_fusion f;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const auto act = parse<elementwise>(parts[i]);
    if (parts[i] == "bias") f.bias = true;
    else if (parts[i] == "residual") f.residual = true;
    else if (act && parts[i] != "*") f.act = *act;
    else return std::nullopt;
  }
  // One spelling per fusion: parts in order, each once, a real activation.
  if (!conv_activation(f.act) || fusion_segment(f) != segment) return std::nullopt;
  return f;
}

std::string kernel_name(const grouped_conv_key& key) {
  const auto& s = key.sig;
  const auto& a = key.algo;
  if (!key.concrete()) throw std::invalid_argument("kernel_name: the convolution key still holds a wildcard");
  std::string out = fmt::format("conv_{}_{}d_", to_string(s.dir), s.ndim);
  out += uniform_dtypes(s) ? std::string(to_string(s.in))
                           : fmt::format("{}-{}-{}-{}", to_string(s.in), to_string(s.wei), to_string(s.out),
                                         to_string(s.acc));
  if (s.compute != s.in) out += fmt::format("-{}", to_string(s.compute));
  out += fmt::format("_{}", to_string(s.lay));
  if (s.spec != conv_specialization::none) out += fmt::format("_{}", to_string(s.spec));
  if (s.fuse.fused()) out += "_" + fusion_segment(s.fuse);
  out += fmt::format("_{}_{}_{}_{}x{}x{}_{}x{}x{}_{}x{}x{}_s{}_v{}x{}x{}", to_string(a.pipe), to_string(a.epi),
                     to_string(a.sched), a.tile.m, a.tile.n, a.tile.k, a.warps.m, a.warps.n, a.warps.k,
                     a.warp_tile.m, a.warp_tile.n, a.warp_tile.k, a.stages, a.vector_in, a.vector_wei,
                     a.vector_out);
  if (a.groups_to_merge != 1) out += fmt::format("_gm{}", a.groups_to_merge);
  out += fmt::format("_{}", to_string(a.arch));
  return out;
}

grouped_conv_key parse_conv_name(std::string_view name) {
  detail::name_reader r(name, "convolution");
  grouped_conv_key k;
  auto& s = k.sig;
  auto& a = k.algo;
  if (r.take("operation") != "conv") r.bad(name.substr(0, name.find('_')), "is not 'conv'");
  s.dir = r.take_enum<conv_direction>("convolution direction");
  const auto nd = r.take("rank");
  if (nd.size() != 2 || nd[1] != 'd' || nd[0] < '1' || nd[0] > '3') r.bad(nd, "is not 1d, 2d or 3d");
  s.ndim = nd[0] - '0';

  const auto dt = r.take("dtypes");
  const auto dts = detail::name_reader::split(dt, '-');
  // dtype[-compute] or in-wei-out-acc[-compute]; the compute is named only when it is not the input's.
  if (dts.size() == 1 || dts.size() == 2) {
    s.in = s.wei = s.out = r.parse_enum<dtype>(dts[0], "dtype");
    s.acc = default_accumulator(s.in);
  } else if (dts.size() == 4 || dts.size() == 5) {
    s.in = r.parse_enum<dtype>(dts[0], "dtype");
    s.wei = r.parse_enum<dtype>(dts[1], "dtype");
    s.out = r.parse_enum<dtype>(dts[2], "dtype");
    s.acc = r.parse_enum<dtype>(dts[3], "dtype");
    if (uniform_dtypes(s)) r.bad(dt, "spells out default dtypes (the short form is canonical)");
  } else {
    r.bad(dt, "is neither dtype[-compute] nor in-wei-out-acc[-compute]");
  }
  s.compute = s.in;
  if (dts.size() == 2 || dts.size() == 5) {
    s.compute = r.parse_enum<dtype>(dts.back(), "compute dtype");
    if (s.compute == s.in) r.bad(dt, "names the input's dtype as the compute (the short form is canonical)");
  }
  s.lay = r.take_enum<conv_layout>("convolution layout");
  if (spatial_rank(s.lay) != s.ndim) r.bad(to_string(s.lay), fmt::format("is not a {}-D layout", s.ndim));
  s.spec = conv_specialization::none;
  for (auto spec : {conv_specialization::filter1x1_stride1_pad0, conv_specialization::filter1x1_pad0,
                    conv_specialization::stride1_rows, conv_specialization::stride1})
    if (r.next_starts_with(std::string(to_string(spec)) + "_")) s.spec = r.take_enum<conv_specialization>("specialization");
  if (r.next_starts_with("fused-")) {
    const auto seg = r.take("fused epilogue");
    const auto f = parse_fusion_segment(seg);
    if (!f) r.bad(seg, "is not fused[-bias][-residual][-relu|gelu|sigmoid|tanh] or fused-dynamic");
    s.fuse = *f;
  }

  a.pipe = r.take_enum<pipeline>("pipeline");
  a.epi = r.take_enum<epilogue>("epilogue");
  a.sched = r.take_enum<scheduler>("scheduler");
  a.tile = r.parse_mnk(r.take("tile"));
  a.warps = r.parse_mnk(r.take("warps"));
  a.warp_tile = r.parse_mnk(r.take("warp tile"));
  a.stages = r.parse_prefixed_int(r.take("stages"), "s");
  const auto vec = r.take("vector sizes");
  if (!vec.starts_with('v')) r.bad(vec, "is not v<in>x<wei>x<out>");
  const mnk v = r.parse_mnk(vec.substr(1));
  a.vector_in = v.m;
  a.vector_wei = v.n;
  a.vector_out = v.k;
  a.groups_to_merge = 1;
  if (r.next_starts_with("gm")) {
    const auto seg = r.take("groups to merge");
    a.groups_to_merge = r.parse_prefixed_int(seg, "gm");
    if (a.groups_to_merge == 1) r.bad(seg, "names the default (omitted in canonical names)");
  }
  a.arch = r.take_enum<arch_id>("arch");
  if (!r.done()) r.bad(r.rest(), "is trailing text after the arch");
  return k;
}

}  // namespace kdecl
