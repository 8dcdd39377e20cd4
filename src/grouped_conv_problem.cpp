#include "kdecl/conv/grouped_conv_problem.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "kdecl/numeric/host_storage.hpp"

namespace kdecl {

conv_dims::conv_dims(std::initializer_list<std::int64_t> values) : count(int(values.size())) {
  // Right-aligned; more than three values are remembered only by count (validate() reports them).
  const std::size_t n = std::min<std::size_t>(values.size(), 3);
  std::copy(values.end() - n, values.end(), v.end() - n);
}

namespace {

constexpr std::int64_t int32_limit = (std::int64_t{1} << 31) - 1;

constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();

__int128 floor_div(__int128 a, __int128 b) {
  const __int128 q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// A 128-bit value clamped into int64 (sizes beyond it are refused by validate()).
std::int64_t clamp64(__int128 v) {
  return v > int64_max ? int64_max : v < -int64_max ? -int64_max : std::int64_t(v);
}

constexpr std::string_view tensor_name(conv_tensor t) {
  return t == conv_tensor::input ? "input" : t == conv_tensor::weight ? "weight" : "output";
}

// The name of spatial slot s (0..2) of activations and of the filter.
constexpr std::string_view slot_name(int s) { return s == 0 ? "D" : s == 1 ? "H" : "W"; }
constexpr std::string_view filter_slot_name(int s) { return s == 0 ? "Z" : s == 1 ? "Y" : "X"; }

conv_layout channels_last(int rank) {
  return rank == 1 ? conv_layout::nwgc : rank == 3 ? conv_layout::ndhwgc : conv_layout::nhwgc;
}

bool group_major(conv_layout l) {
  return l == conv_layout::gnwc || l == conv_layout::gnhwc || l == conv_layout::gndhwc;
}

// One dimension of a tensor as memory sees it.
struct dim_ref {
  std::string_view name;  // a literal ("C", "H", ...)
  std::int64_t extent;
  std::int64_t* stride;
};

// A tensor's dimensions, at most six (channels, group, three spatial, images or output channels),
// kept in place: validate() and normalized() list them on every launch, where a heap allocation
// and its release were a fifth of a cached selection's host time.
struct dim_list {
  std::array<dim_ref, 6> items{};
  std::size_t count = 0;
  void push_back(const dim_ref& d) { items[count++] = d; }
  std::size_t size() const { return count; }
  const dim_ref& operator[](std::size_t i) const { return items[i]; }
  dim_ref* begin() { return items.data(); }
  dim_ref* end() { return items.data() + count; }
  const dim_ref* begin() const { return items.data(); }
  const dim_ref* end() const { return items.data() + count; }
};

// The dimensions of tensor t, innermost first (channels), for a problem whose
// rank and layout are resolved. Leading spatial slots a lower rank does not use
// are left out (their extent is 1).
dim_list dims_inner_first(grouped_conv_problem& p, conv_tensor t) {
  const int rank = p.ndim();
  const int first_slot = 3 - rank;
  dim_list d;
  if (t == conv_tensor::weight) {
    auto& s = p.wei_strides;
    d.push_back({"C", p.c_per_group(), &s.c});
    for (int slot = 2; slot >= first_slot; --slot)
      d.push_back({filter_slot_name(slot), p.filter_dims[slot], &s.spatial[std::size_t(slot)]});
    d.push_back({"K", p.k_per_group(), &s.n});
    d.push_back({"G", p.g, &s.g});
    return d;
  }
  const bool in = t == conv_tensor::input;
  auto& s = in ? p.in_strides : p.out_strides;
  d.push_back({in ? "C" : "K", in ? p.c_per_group() : p.k_per_group(), &s.c});
  const bool gmajor = group_major(p.layout_or_default());
  if (!gmajor) d.push_back({"G", p.g, &s.g});
  for (int slot = 2; slot >= first_slot; --slot)
    d.push_back({slot_name(slot), in ? p.input_dims[slot] : p.output_dim(slot),
                 &s.spatial[std::size_t(slot)]});
  d.push_back({"N", p.n, &s.n});
  if (gmajor) d.push_back({"G", p.g, &s.g});
  return d;
}

std::int64_t span_of(const dim_list& dims) {
  std::int64_t last = 0;
  for (const auto& d : dims) last += (d.extent - 1) * *d.stride;
  return last + 1;
}

}  // namespace

std::string describe(const conv_fusion& f) {
  if (f.dynamic) return "any, read at run time";
  if (!f.fused()) return "none";
  std::string parts;
  if (f.bias) parts = "bias";
  if (f.residual) parts += parts.empty() ? "residual" : " + residual";
  if (f.act == elementwise::pass_through) return parts;
  return parts.empty() ? std::string(to_string(f.act)) : fmt::format("{}, then {}", parts, to_string(f.act));
}

conv_layout grouped_conv_problem::layout_or_default() const { return lay.value_or(channels_last(ndim())); }

std::int64_t grouped_conv_problem::output_dim(int slot) const {
  // In 128 bits: any int64 sizes (also those validate() refuses) give a result, clamped, never an overflow.
  const __int128 extent = (__int128(filter_dims[slot]) - 1) * dilation_dims[slot] + 1;
  const __int128 padded = __int128(input_dims[slot]) + pad_left_dims[slot] + pad_right_dims[slot];
  if (stride_dims[slot] <= 0) return 0;
  return clamp64(floor_div(padded - extent, stride_dims[slot]) + 1);
}

std::int64_t grouped_conv_problem::elements(conv_tensor t) const {
  switch (t) {
    case conv_tensor::input: return n * c * input_pixels();
    case conv_tensor::weight: return k * c_per_group() * filter_taps();
    case conv_tensor::output: return n * k * output_pixels();
  }
  return 0;
}

std::int64_t grouped_conv_problem::span(conv_tensor t) const {
  grouped_conv_problem p = *this;  // dims_inner_first points into the strides it is given
  return span_of(dims_inner_first(p, t));
}

dtype grouped_conv_problem::dtype_of(conv_tensor t) const {
  return t == conv_tensor::input ? in_type : t == conv_tensor::weight ? wei_type : out_type;
}

const conv_tensor_strides& grouped_conv_problem::strides_of(conv_tensor t) const {
  return t == conv_tensor::input ? in_strides : t == conv_tensor::weight ? wei_strides : out_strides;
}

conv_tensor grouped_conv_problem::result() const {
  switch (dir) {
    case conv_direction::fwd: return conv_tensor::output;
    case conv_direction::bwd_data: return conv_tensor::input;
    case conv_direction::bwd_weight: return conv_tensor::weight;
  }
  return conv_tensor::output;
}

grouped_conv_problem::gemm_shape grouped_conv_problem::implicit_gemm() const {
  switch (dir) {
    case conv_direction::fwd: return {n * output_pixels(), k_per_group(), c_per_group() * filter_taps()};
    case conv_direction::bwd_data: return {n * input_pixels(), c_per_group(), k_per_group() * filter_taps()};
    case conv_direction::bwd_weight: return {k_per_group(), c_per_group() * filter_taps(), n * output_pixels()};
  }
  return {0, 0, 0};
}

grouped_conv_problem grouped_conv_problem::normalized() const {
  grouped_conv_problem p = *this;
  const int rank = input_dims.count;
  if (rank < 1 || rank > 3) return p;  // validate() reports it; nothing else can be resolved
  if (!p.lay) p.lay = channels_last(rank);
  auto resolve = [&](conv_dims& d, std::int64_t neutral, std::int64_t fallback) {
    if (d.count != 0 && d.count != 1 && d.count != rank) return;  // validate() reports the mismatch
    const std::int64_t one = d.count == 1 ? d.v[2] : fallback;
    for (int s = 0; s < 3; ++s)
      d.v[std::size_t(s)] = s < 3 - rank ? neutral : d.count == rank ? d.v[std::size_t(s)] : one;
    d.count = rank;
  };
  resolve(p.input_dims, 1, 1);
  if (p.filter_dims.count != 0) resolve(p.filter_dims, 1, 1);  // an unset filter stays unset (an error)
  resolve(p.stride_dims, 1, 1);
  resolve(p.dilation_dims, 1, 1);
  resolve(p.pad_left_dims, 0, 0);
  resolve(p.pad_right_dims, 0, 0);
  if (p.filter_dims.count != rank) return p;
  // Packed strides: tight over the dimensions inside, whatever was given for them.
  for (conv_tensor t : {conv_tensor::input, conv_tensor::weight, conv_tensor::output}) {
    std::int64_t footprint = 1;
    for (auto& d : dims_inner_first(p, t)) {  // the channels come first: packed, their stride is 1
      if (*d.stride == 0) *d.stride = footprint;
      // Saturated at 2^63 - 1 for sizes validate() refuses: never an overflow.
      footprint = clamp64(__int128(footprint) +
                          __int128(std::max<std::int64_t>(d.extent, 1) - 1) * std::max<std::int64_t>(*d.stride, 0));
    }
    // Spatial slots a lower rank leaves out: one step past everything (never used for indexing).
    auto& s = t == conv_tensor::input ? p.in_strides : t == conv_tensor::weight ? p.wei_strides : p.out_strides;
    for (int slot = 0; slot < 3 - rank; ++slot)
      if (s.spatial[std::size_t(slot)] == 0) s.spatial[std::size_t(slot)] = footprint;
  }
  return p;
}

std::optional<std::string> grouped_conv_problem::validate() const {
  for (auto [what, v] : {std::pair{"N", n}, {"C", c}, {"K", k}, {"G", g}})
    if (v <= 0) return fmt::format("{} = {} must be positive", what, v);
  if (c % g != 0)
    return fmt::format("C = {} is not divisible by G = {}: every group takes C/G input channels", c, g);
  if (k % g != 0)
    return fmt::format("K = {} is not divisible by G = {}: every group makes K/G output channels", k, g);

  const int rank = input_dims.count;
  if (rank == 0) return "input size is not set: input_size({W}), ({H, W}) or ({D, H, W})";
  if (rank > 3)
    return fmt::format("input size has {} values: convolutions have 1 to 3 spatial dimensions", rank);
  if (filter_dims.count == 0) return "filter size is not set: filter_size({X}), ({Y, X}) or ({Z, Y, X})";
  for (auto [what, d] : {std::pair{"filter size", &filter_dims}, {"stride", &stride_dims},
                         {"dilation", &dilation_dims}, {"left padding", &pad_left_dims},
                         {"right padding", &pad_right_dims}})
    if (d->count != 0 && d->count != 1 && d->count != rank)
      return fmt::format("{} has {} values but the convolution is {}-D (the input size has {}): give one value "
                         "per dimension, or one for all",
                         what, d->count, rank, rank);
  if (lay && spatial_rank(*lay) != rank)
    return fmt::format("layout {} is {}-D but the input size has {} value{}", to_string(*lay), spatial_rank(*lay),
                       rank, rank == 1 ? "" : "s");

  const grouped_conv_problem p = normalized();
  for (int s = 3 - rank; s < 3; ++s) {
    if (p.input_dims[s] <= 0) return fmt::format("input {} = {} must be positive", slot_name(s), p.input_dims[s]);
    if (p.filter_dims[s] <= 0)
      return fmt::format("filter {} = {} must be positive", filter_slot_name(s), p.filter_dims[s]);
    if (p.stride_dims[s] <= 0)
      return fmt::format("stride of {} = {} must be positive", slot_name(s), p.stride_dims[s]);
    if (p.dilation_dims[s] <= 0)
      return fmt::format("dilation of {} = {} must be positive", slot_name(s), p.dilation_dims[s]);
    for (auto [side, pad] : {std::pair{"left", p.pad_left_dims[s]}, {"right", p.pad_right_dims[s]}})
      if (pad < 0) return fmt::format("{} padding of {} = {} must not be negative", side, slot_name(s), pad);
  }
  // Every size within int32 before anything multiplies them (no convolution comes near:
  // the tensors' spans are bounded below as well).
  for (auto [what, v] : {std::pair{"N", n}, {"C", c}, {"K", k}, {"G", g}})
    if (v > int32_limit) return fmt::format("{} = {} exceeds 2^31 - 1", what, v);
  for (int s = 3 - rank; s < 3; ++s)
    for (auto [what, v] : {std::pair{"input", p.input_dims[s]}, {"stride of", p.stride_dims[s]},
                           {"dilation of", p.dilation_dims[s]}, {"left padding of", p.pad_left_dims[s]},
                           {"right padding of", p.pad_right_dims[s]}})
      if (v > int32_limit) return fmt::format("{} {} = {} exceeds 2^31 - 1", what, slot_name(s), v);
  for (int s = 3 - rank; s < 3; ++s)
    if (p.filter_dims[s] > int32_limit)
      return fmt::format("filter {} = {} exceeds 2^31 - 1", filter_slot_name(s), p.filter_dims[s]);
  for (int s = 3 - rank; s < 3; ++s) {
    const std::int64_t extent = (p.filter_dims[s] - 1) * p.dilation_dims[s] + 1;
    for (auto [side, pad] : {std::pair{"left", p.pad_left_dims[s]}, {"right", p.pad_right_dims[s]}})
      if (pad >= extent)
        return fmt::format("{} padding of {} = {} is not smaller than the dilated filter extent {} "
                           "((filter {} - 1) * dilation {} + 1): an output would see only padding",
                           side, slot_name(s), pad, extent, filter_slot_name(s), p.dilation_dims[s]);
    if (p.output_dim(s) < 1) {
      const std::int64_t padded = p.input_dims[s] + p.pad_left_dims[s] + p.pad_right_dims[s];
      return fmt::format("output {} = {} must be at least 1: the padded input {} + {} + {} = {} is shorter than the "
                         "dilated filter extent {}",
                         slot_name(s), p.output_dim(s), p.input_dims[s], p.pad_left_dims[s], p.pad_right_dims[s],
                         padded, extent);
    }
  }

  for (auto [what, d] : {std::pair{"input", in_type}, {"weight", wei_type}, {"output", out_type},
                         {"accumulator", acc_type}}) {
    if (d == kdecl::dtype::any) return fmt::format("dtype of the {} is not set", what);
    if (d == kdecl::dtype::tf32)
      return fmt::format("dtype of the {} is tf32, a compute precision, not a storage dtype: store fp32", what);
    if (!has_host_storage(d))
      return fmt::format("dtype of the {} ({}) is a packed sub-byte type: convolution tensors need whole-byte "
                         "elements",
                         what, to_string(d));
  }
  auto fp8ish = [](kdecl::dtype d) { return d == kdecl::dtype::fp8 || d == kdecl::dtype::bf8; };
  if (in_type != wei_type && !(fp8ish(in_type) && fp8ish(wei_type)))
    return fmt::format("dtype of the input ({}) and weight ({}) differ; only fp8/bf8 may be mixed",
                       to_string(in_type), to_string(wei_type));
  if (acc_type != default_accumulator(in_type))
    return fmt::format("accumulator {} does not suit {} data (floating-point data accumulates in fp32, fp64 in fp64, "
                       "int8 in int32)",
                       to_string(acc_type), to_string(in_type));
  if (!compute_suits(in_type, compute_type))
    return fmt::format("compute {} does not suit {} data: a convolution multiplies in its input's dtype, or in tf32 "
                       "for fp32 data",
                       to_string(compute_type), to_string(in_type));

  if (fusion.fused() && dir != conv_direction::fwd)
    return fmt::format("a fused epilogue ({}) is for forward convolutions only; the direction is {}",
                       kdecl::describe(fusion), to_string(dir));
  if (fusion.dynamic)
    return "fusion.dynamic is a kernel property (a kernel that reads the fusion at run time): a problem names its "
           "bias, residual and activation";
  if (!conv_activation(fusion.act))
    return fmt::format("activation {} is not one a convolution epilogue applies: pass_through, relu, gelu, sigmoid "
                       "or tanh",
                       to_string(fusion.act));

  for (conv_tensor t : {conv_tensor::input, conv_tensor::weight, conv_tensor::output}) {
    const auto& s = strides_of(t);
    auto negative = [&](std::string_view dim, std::int64_t v) -> std::optional<std::string> {
      if (v < 0) return fmt::format("{} stride of {} = {} must not be negative (0 means packed)", tensor_name(t), dim, v);
      return std::nullopt;
    };
    const bool w = t == conv_tensor::weight;
    if (auto e = negative(w ? "K" : "N", s.n)) return e;
    if (auto e = negative("G", s.g)) return e;
    for (int slot = 3 - rank; slot < 3; ++slot)
      if (auto e = negative(w ? filter_slot_name(slot) : slot_name(slot), s.spatial[std::size_t(slot)])) return e;
    if (s.c != 0 && s.c != 1)
      return fmt::format("{} channel stride = {} must be 1: channels are contiguous in every layout kdecl knows "
                         "(channels-last)",
                         tensor_name(t), s.c);
  }
  // Elements and spans in 128 bits: each tensor within 2^63 - 1 elements (so that
  // elements(), span() and every offset a kernel or check computes fit int64). Every tensor's span
  // first, then the overlaps (whose check multiplies extents by strides the first loop bounded).
  grouped_conv_problem q = p;
  dim_list dims[3];
  for (conv_tensor t : {conv_tensor::input, conv_tensor::weight, conv_tensor::output}) {
    dims[int(t)] = dims_inner_first(q, t);
    __int128 elements = 1, span = 1;
    for (const auto& d : dims[int(t)]) {
      elements *= std::max<std::int64_t>(d.extent, 1);
      span += __int128(std::max<std::int64_t>(d.extent, 1) - 1) * *d.stride;
      if (elements > int64_max || span > int64_max)
        return fmt::format("the {} spans more than 2^63 - 1 elements: beyond 64-bit offsets", tensor_name(t));
    }
  }
  for (conv_tensor t : {conv_tensor::input, conv_tensor::weight, conv_tensor::output}) {
    const dim_list& inner_first = dims[int(t)];
    std::int64_t footprint = 1;
    for (std::size_t i = 0; i < inner_first.size(); ++i) {
      const dim_ref& d = inner_first[i];
      if (d.extent <= 1) continue;
      if (i > 0 && *d.stride < footprint) {
        std::string inside;  // the dimensions inside d, outermost first (the message only: built on refusal)
        for (std::size_t j = i; j-- > 0;) inside += fmt::format("{}{}", inside.empty() ? "" : ", ", inner_first[j].name);
        return fmt::format("{} stride of {} = {} is smaller than the {} elements the dimensions inside it ({}) "
                           "span: elements would overlap",
                           tensor_name(t), d.name, *d.stride, footprint, inside);
      }
      footprint = std::max(footprint, (d.extent - 1) * *d.stride + footprint);
    }
  }
  return std::nullopt;
}

std::optional<std::string> grouped_conv_problem::exceeds_32bit_offsets() const {
  for (conv_tensor t : {conv_tensor::input, conv_tensor::weight, conv_tensor::output})
    if (const std::int64_t elements = span(t); elements > int32_limit)
      return fmt::format("the {} spans {} elements: offsets overflow the kernel's 32-bit indexing", tensor_name(t),
                         elements);
  return std::nullopt;
}

double grouped_conv_problem::flops() const {
  const grouped_conv_problem p = normalized();  // spatial values as the geometry uses them
  return 2.0 * double(n) * double(k) * double(c_per_group()) * double(p.output_pixels()) * double(p.filter_taps());
}

double grouped_conv_problem::bytes() const {
  const grouped_conv_problem p = normalized();
  double total = 0;
  for (conv_tensor t : {conv_tensor::input, conv_tensor::weight, conv_tensor::output})
    total += double(p.elements(t)) * double(std::max(1, bits_of(dtype_of(t)))) / 8.0;
  const double out_bytes = double(std::max(1, bits_of(out_type))) / 8.0;
  if (fusion.bias) total += double(k) * out_bytes;
  if (fusion.residual) total += double(p.elements(conv_tensor::output)) * out_bytes;
  return total;
}

bool grouped_conv_problem::is_pointwise() const {
  const grouped_conv_problem p = normalized();
  for (int s = 0; s < 3; ++s)
    if (p.filter_dims[s] != 1 || p.pad_left_dims[s] != 0 || p.pad_right_dims[s] != 0) return false;
  return true;
}

std::string grouped_conv_problem::describe() const {
  const grouped_conv_problem p = normalized();
  const int rank = std::clamp(p.ndim(), 1, 3);
  auto dims = [&](auto value) {
    std::string s;
    for (int slot = 3 - rank; slot < 3; ++slot) s += fmt::format("{}{}", s.empty() ? "" : "x", value(slot));
    return s;
  };
  std::string types = in_type == wei_type && in_type == out_type
                          ? std::string(to_string(in_type))
                          : fmt::format("{}-{}-{}", to_string(in_type), to_string(wei_type), to_string(out_type));
  if (compute_type != in_type) types += fmt::format(" (multiplied in {})", to_string(compute_type));
  if (fusion.fused()) types += fmt::format(" fused {}", kdecl::describe(fusion));
  return fmt::format("{} {}-D N={} C={} K={} G={} input {} filter {} stride {} dilation {} padding {}/{} "
                     "(output {}) {} {}",
                     to_string(dir), rank, n, c, k, g, dims([&](int s) { return p.input_dims[s]; }),
                     dims([&](int s) { return p.filter_dims[s]; }), dims([&](int s) { return p.stride_dims[s]; }),
                     dims([&](int s) { return p.dilation_dims[s]; }), dims([&](int s) { return p.pad_left_dims[s]; }),
                     dims([&](int s) { return p.pad_right_dims[s]; }), dims([&](int s) { return p.output_dim(s); }),
                     types, p.lay ? to_string(*p.lay) : std::string_view{"?"});
}

}  // namespace kdecl
