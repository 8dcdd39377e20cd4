#include "kdecl/conv/conv_dispatcher.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "kdecl/conv/conv_heuristic.hpp"
#include "kdecl/dsl/conv_rules.hpp"
#include "kdecl/dsl/describe.hpp"
#include "kdecl/dispatch/alignment.hpp"
#include "kdecl/kernels/conv/narrow_bwd_data_plan.hpp"

namespace kdecl {
namespace {

// Everything a kernel must match exactly; the index buckets kernels by it.
// (A kernel whose fusion is dynamic sits in the bucket of fusion {dynamic}: a problem's
// kernels are those of its own bucket and of its dynamic twin.)
using signature_tuple =
    std::tuple<conv_direction, int, conv_layout, dtype, dtype, dtype, dtype, dtype, elementwise, bool, bool, bool>;

signature_tuple signature_of(const grouped_conv_signature& s) {
  const conv_fusion& f = s.fuse;
  return {s.dir, s.ndim, s.lay, s.in, s.wei, s.out, s.acc, s.compute, f.act, f.bias, f.residual, f.dynamic};
}
signature_tuple signature_of(const grouped_conv_problem& p, bool dynamic_twin = false) {
  const conv_fusion f = dynamic_twin ? conv_fusion{.dynamic = true} : p.fusion;
  return {p.dir,      p.ndim(),     p.layout_or_default(), p.in_type, p.wei_type, p.out_type, p.acc_type,
          p.compute_type, f.act, f.bias, f.residual, f.dynamic};
}

// The signature is checked in stages (direction, rank and layout, dtypes), so a
// refused kernel that differs only in dtype reads as closer than one computing
// another direction.
std::optional<std::string> signature_mismatch(const grouped_conv_signature& s, const grouped_conv_problem& p,
                                              dispatch::staged_check& check) {
  if (s.dir != p.dir)
    return check.reject(fmt::format("direction is {}, the problem's is {}", to_string(s.dir), to_string(p.dir)));
  check.passed_stage();
  if (s.ndim != p.ndim())
    return check.reject(fmt::format("computes {}-D convolutions, the problem is {}-D", s.ndim, p.ndim()));
  if (s.lay != p.layout_or_default())
    return check.reject(
        fmt::format("layout is {}, the problem's is {}", to_string(s.lay), to_string(p.layout_or_default())));
  check.passed_stage();
  for (auto [what, kernel, problem] : {std::tuple{"input", s.in, p.in_type}, {"weight", s.wei, p.wei_type},
                                      {"output", s.out, p.out_type}, {"accumulator", s.acc, p.acc_type},
                                      {"compute", s.compute, p.compute_type}})
    if (kernel != problem)
      return check.reject(fmt::format("{} dtype is {}, the problem's is {}", what, to_string(kernel),
                                      to_string(problem)));
  check.passed_stage();
  if (!s.fuse.serves(p.fusion))
    return check.reject(fmt::format("fused epilogue is {}, the problem's is {}", describe(s.fuse), describe(p.fusion)));
  check.passed_stage();
  return std::nullopt;
}

std::string dims_text(const grouped_conv_problem& p, const conv_dims& d) {
  std::string s;
  for (int slot = 3 - p.ndim(); slot < 3; ++slot) s += fmt::format("{}{}", s.empty() ? "" : "x", d[slot]);
  return s;
}

std::optional<std::string> specialization_mismatch(const grouped_conv_key& k, const grouped_conv_problem& p) {
  const conv_specialization spec = k.sig.spec;
  if (spec == conv_specialization::none) return std::nullopt;
  bool unit_strides = true;
  for (int s = 0; s < 3; ++s) unit_strides = unit_strides && p.stride_dims[s] == 1;
  if (spec == conv_specialization::stride1 || spec == conv_specialization::stride1_rows)
    return unit_strides ? std::nullopt
                        : std::optional<std::string>(fmt::format("is specialized for unit strides ({}); the problem's "
                                                                 "stride is {}",
                                                                 to_string(spec), dims_text(p, p.stride_dims)));
  if (!p.is_pointwise())
    return fmt::format("is specialized for 1x1 filters without padding ({}); the problem's filter is {} with padding "
                       "{}/{}",
                       to_string(spec), dims_text(p, p.filter_dims), dims_text(p, p.pad_left_dims),
                       dims_text(p, p.pad_right_dims));
  if (spec == conv_specialization::filter1x1_stride1_pad0 && !unit_strides)
    return fmt::format("is specialized for stride 1 ({}); the problem's stride is {}", to_string(spec),
                       dims_text(p, p.stride_dims));
  return std::nullopt;
}

// A tensor's per-dimension strides with names, for the alignment check (dimensions of extent 1 never step).
struct named_stride {
  const char* name;
  std::int64_t extent, stride;
};
// Spatial innermost first, then groups, then images (output channels): at most five.
struct tensor_steps {
  std::array<named_stride, 5> step{};
  int count = 0;
  const named_stride* begin() const { return step.data(); }
  const named_stride* end() const { return step.data() + count; }
};
tensor_steps steps_of(const grouped_conv_problem& p, conv_tensor t) {
  const auto& s = p.strides_of(t);
  static constexpr const char* act[3] = {"D", "H", "W"};
  static constexpr const char* fil[3] = {"Z", "Y", "X"};
  tensor_steps out;
  const bool w = t == conv_tensor::weight;
  const auto o = p.output_dims();
  for (int slot = 2; slot >= 3 - p.ndim(); --slot)
    out.step[std::size_t(out.count++)] = {
        w ? fil[slot] : act[slot],
        t == conv_tensor::input ? p.input_dims[slot] : t == conv_tensor::output ? o[std::size_t(slot)] : p.filter_dims[slot],
        s.spatial[std::size_t(slot)]};
  out.step[std::size_t(out.count++)] = {"G", p.g, s.g};
  out.step[std::size_t(out.count++)] = {w ? "K" : "N", w ? p.k_per_group() : p.n, s.n};
  return out;
}

// What the per-kernel checks need of the problem alone: computed once per problem
// when ranked() checks every kernel (it was most of a selection's time).
struct problem_facts {
  std::array<tensor_steps, 3> steps;           // input, weight, output
  std::optional<std::string> exceeds_32bit;    // p.exceeds_32bit_offsets()
  explicit problem_facts(const grouped_conv_problem& p)
      : steps{steps_of(p, conv_tensor::input), steps_of(p, conv_tensor::weight), steps_of(p, conv_tensor::output)},
        exceeds_32bit(p.exceeds_32bit_offsets()) {}
  const tensor_steps& of(conv_tensor t) const { return steps[std::size_t(t)]; }
};

constexpr const char* tensor_name(conv_tensor t) {
  return t == conv_tensor::input ? "input" : t == conv_tensor::weight ? "weight" : "output";
}
// What misaligned_pointer() names the access (no string built per kernel).
constexpr const char* access_name(conv_tensor t) {
  return t == conv_tensor::input ? "input access" : t == conv_tensor::weight ? "weight access" : "output access";
}

// Stand-in arguments for a selection made before the buffers exist (dispatch::stand_in_pointer).
grouped_conv_args assumed_args() {
  void* aligned = dispatch::stand_in_pointer();
  grouped_conv_args a{aligned, aligned, aligned};
  a.bias = a.residual = aligned;  // read only where the problem fuses them
  return a;
}

// direct_conv (kernels/conv/cuda/direct/) reads and writes vectors along the channels
// of all groups, which must therefore be packed (group stride = channels per group):
// C, K, image and pixel strides multiples of the vector, in and out aligned to it. The
// narrow-channel backward-data path (kernels/conv/narrow_bwd_data_plan.hpp) reads dy in vectors
// and stores dx element by element: only K and dy's strides and pointer are held to the vector.
std::optional<std::string> direct_vector_mismatch(const grouped_conv_key& k, const grouped_conv_problem& p,
                                                  const grouped_conv_args* args, const problem_facts& facts) {
  const int v = k.algo.vector_out;
  if (p.in_strides.g != p.c_per_group() || p.out_strides.g != p.k_per_group())
    return std::string("direct_conv reads channels packed across groups (group stride = channels per group)");
  const bool narrow = kernels::narrow_bwd_data_plan::applies(p);
  for (auto [what, channels] : {std::pair{"C", p.c}, {"K", p.k}})
    if (channels % v != 0 && !(narrow && *what == 'C'))
      return fmt::format("{} = {} channels is not a multiple of the kernel's channel vector of {} elements", what,
                         channels, v);
  for (conv_tensor t : {conv_tensor::input, conv_tensor::output}) {
    if (narrow && t == conv_tensor::input) continue;
    for (const auto& step : facts.of(t))
      if (step.name != std::string_view("G") && step.extent > 1 && step.stride % v != 0)
        return fmt::format("{} stride of {} = {} elements is not a multiple of the kernel's channel vector of {} "
                           "elements",
                           tensor_name(t), step.name, step.stride, v);
    if (args)
      if (auto e = dispatch::misaligned_pointer(t == conv_tensor::input ? "in" : "out", args->tensor(t),
                                                v * dispatch::element_bytes(p.dtype_of(t)),
                                                access_name(t)))
        return e;
  }
  if (!(p.c_per_group() == 1 && p.k_per_group() == 1) && !narrow)  // each block's first input channel starts a vector
    for (std::int64_t k0 = 0; k0 < p.k; k0 += k.algo.tile.k)
      if (k0 / p.k_per_group() * p.c_per_group() % v != 0)
        return fmt::format("a block's first input channel ({}) is not a multiple of the kernel's channel vector of {} "
                           "elements",
                           k0 / p.k_per_group() * p.c_per_group(), v);
  return std::nullopt;
}

}  // namespace

namespace {

std::optional<std::string> rejection(const conv_instance& kernel, const grouped_conv_problem& p,
                                     const grouped_conv_args* args, int* closeness, const problem_facts& facts) {
  const grouped_conv_key& k = kernel.key();
  dispatch::staged_check check(closeness);
  auto reject = [&](std::string why) { return check.reject(std::move(why)); };
  if (auto e = signature_mismatch(k.sig, p, check)) return e;

  if (auto e = specialization_mismatch(k, p)) return reject(*e);
  if (p.g % k.algo.groups_to_merge != 0)
    return reject(fmt::format("G = {} is not a multiple of the kernel's groups_to_merge {}", p.g,
                              k.algo.groups_to_merge));
  check.passed_stage();

  // direct_conv vectors run along the channels of all groups together (C/G may be 1).
  const bool per_group_vectors = k.algo.pipe != pipeline::direct_conv;
  if (!per_group_vectors)
    if (auto e = direct_vector_mismatch(k, p, args, facts)) return reject(*e);
  // Merged groups (groups_to_merge m > 1, kernels/conv/merged_groups.hpp): the input and output
  // vectors run along m groups' channels together, whose group stride the kernel checks; the
  // weights are read per group in pieces the kernel's why_not checks.
  const int merge = k.algo.groups_to_merge;
  for (conv_tensor t : {conv_tensor::input, conv_tensor::weight, conv_tensor::output}) {
    if (!per_group_vectors) break;
    if (merge > 1 && t == conv_tensor::weight) continue;
    const int v = t == conv_tensor::input ? k.algo.vector_in : t == conv_tensor::weight ? k.algo.vector_wei
                                                                                        : k.algo.vector_out;
    if (v <= 1 && !args) continue;
    const std::int64_t channels = merge * (t == conv_tensor::output ? p.k_per_group() : p.c_per_group());
    if (channels % v != 0)
      return reject(merge > 1 ? fmt::format("{} x {} = {} {} channels of the merged groups is not a multiple of the "
                                            "kernel's {} vector of {} elements",
                                            merge, t == conv_tensor::output ? "K/G" : "C/G", channels, tensor_name(t),
                                            tensor_name(t), v)
                              : fmt::format("{} = {} {} channels per group is not a multiple of the kernel's {} vector "
                                            "of {} elements",
                                            t == conv_tensor::output ? "K/G" : "C/G", channels, tensor_name(t),
                                            tensor_name(t), v));
    for (const auto& step : facts.of(t))
      if (step.extent > 1 && step.stride % v != 0 && !(merge > 1 && step.name == std::string_view("G")))
        return reject(fmt::format("{} stride of {} = {} elements is not a multiple of the kernel's {} vector of {} "
                                  "elements",
                                  tensor_name(t), step.name, step.stride, tensor_name(t), v));
    if (args)
      if (auto e = dispatch::misaligned_pointer(t == conv_tensor::input ? "in" : t == conv_tensor::weight ? "wei" : "out",
                                                args->tensor(t), v * dispatch::element_bytes(p.dtype_of(t)),
                                                access_name(t)))
        return reject(*e);
  }
  check.passed_stage();

  if (k.algo.arch != arch_id::host && facts.exceeds_32bit) return reject(*facts.exceeds_32bit);
  check.passed_stage();

  if (auto e = kernel.why_not(p, args ? *args : assumed_args())) return reject(*e);
  return check.accept();
}

}  // namespace

std::optional<std::string> conv_rejection(const conv_instance& kernel, const grouped_conv_problem& p,
                                          const grouped_conv_args* args, int* closeness) {
  return rejection(kernel, p, args, closeness, problem_facts(p));
}

std::string conv_selection::explain(std::size_t max_candidates) const {
  if (!problem_error.empty()) return "invalid convolution problem: " + problem_error;
  std::string out =
      !kernel ? dispatch::describe_refusals("convolution", rejected, max_candidates)
      : composed_epilogue
          ? fmt::format("selected {} and the fused epilogue as a pass of its own (estimated {:.1f} us in all)",
                        kernel->name(), estimated_us)
      : tier == "analytical model"
          ? fmt::format("selected {} (estimated {:.1f} us)", kernel->name(), estimated_us)
          : fmt::format("selected {} by the {} (analytical estimate {:.1f} us)", kernel->name(), tier, estimated_us);
  if (!fusion_hint.empty()) out += "\n  " + fusion_hint;
  for (const auto& n : tier_notes) out += "\n  " + n;
  return out;
}

// One indexed kernel: its profile for the cost model, computed once.
struct conv_indexed_kernel {
  std::shared_ptr<const conv_instance> kernel;
  kernel_profile profile;
};

// Kernels of the device's arch, bucketed by exact signature (rebuilt by index_ when the registry grows).
struct conv_dispatcher::index {
  std::vector<std::shared_ptr<const conv_instance>> for_arch;  // name order
  std::map<signature_tuple, std::vector<conv_indexed_kernel>> by_signature;
};

namespace {
std::atomic<conv_tier_factory> default_conv_tiers{nullptr};
}

void set_default_conv_tiers(conv_tier_factory factory) { default_conv_tiers.store(factory); }

conv_dispatcher::conv_dispatcher(device dev, const registry& reg)
    : device_(std::move(dev)), registry_(&reg), workspaces_(device_) {
  if (auto factory = default_conv_tiers.load()) tiers_ = factory(device_, *registry_, tier_load_notes_);
}

void conv_dispatcher::add_tier(std::shared_ptr<const conv_selection_tier> tier, bool first) {
  tiers_.insert(first ? tiers_.begin() : tiers_.end(), std::move(tier));
}

void conv_dispatcher::clear_tiers() {
  tiers_.clear();
  tier_load_notes_.clear();
}

std::shared_ptr<const conv_dispatcher::index> conv_dispatcher::current_index() const {
  return index_.get(*registry_, [&] {
    index idx;
    for (auto& k : dispatch::kernels_of<conv_instance>(*registry_, op_kind::grouped_conv, device_.arch)) {
      idx.by_signature[signature_of(k->key().sig)].push_back({k, conv_kernel_profile(k->key())});
      idx.for_arch.push_back(std::move(k));
    }
    return idx;
  });
}

namespace {

// A tma_wgmma key that takes an operand element by element (a vector of 1) runs through a
// channel-padded copy of that operand (one more launch and pass over the tensor; backward-data
// stores dx element by element): the key with 16-byte vectors everywhere does the same GEMM
// without either. Where that twin is eligible too, the element-wise key is passed over: the
// learned model ranked it first on small backward-data layers where it measured 1.0-1.4x slower
// (docs/perf/h200-2026-11-28-conv-wide-3d-tiles/).
bool reads_padded_copies(const grouped_conv_key& k) {
  return k.algo.pipe == pipeline::tma_wgmma && (k.algo.vector_in == 1 || k.algo.vector_wei == 1 || k.algo.vector_out == 1);
}
grouped_conv_key with_16_byte_vectors(grouped_conv_key k) {
  k.algo.vector_in = 128 / bits_of(k.sig.in);
  k.algo.vector_wei = 128 / bits_of(k.sig.wei);
  k.algo.vector_out = 128 / bits_of(k.sig.out);
  return k;
}
void pass_over_padded_twins(std::vector<std::pair<std::shared_ptr<const conv_instance>, double>>& eligible) {
  std::vector<bool> dominated(eligible.size(), false);
  for (std::size_t i = 0; i < eligible.size(); ++i) {
    const grouped_conv_key& k = eligible[i].first->key();
    if (!reads_padded_copies(k)) continue;
    const grouped_conv_key twin = with_16_byte_vectors(k);
    dominated[i] = std::any_of(eligible.begin(), eligible.end(), [&](const auto& e) { return e.first->key() == twin; });
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < eligible.size(); ++i)
    if (!dominated[i]) eligible[kept++] = std::move(eligible[i]);
  eligible.resize(kept);
}

// Dense backward-data of at most 8 input channels whose taps overlap (stems): the direct kernels
// (1-D, 2-D) and the sm_90 implicit GEMM keys (3-D) run it on the narrow-channel path
// (kernels/conv/narrow_bwd_data_plan.hpp: each stride phase on tensor cores, dy staged once per
// phase), where the implicit GEMMs pad N = C to a 64-wide tile and fetch dy from L2 once per tap
// (ResNet-50's and U-Net's stems on an H100: 2.0-2.2x cuDNN against 0.56-0.65x). Where a kernel on
// the path is eligible, the others are passed over, and of those only the one the analytical
// estimate ranks first is kept (the learned model has not seen the path: it picked among the keys at
// random; the estimate prefers 16-byte staging).
void prefer_narrow_channel_path(std::vector<std::pair<std::shared_ptr<const conv_instance>, double>>& eligible,
                                const grouped_conv_problem& p) {
  auto on_path = [&](const auto& e) { return kernels::narrow_bwd_data_plan::runs_on_path(e.first->key(), p); };
  if (std::none_of(eligible.begin(), eligible.end(), on_path)) return;
  std::erase_if(eligible, [&](const auto& e) { return !on_path(e); });
  dispatch::rank_by_estimate(eligible);
  eligible.resize(1);
}

}  // namespace

std::vector<std::pair<std::shared_ptr<const conv_instance>, double>> conv_dispatcher::ranked(
    const grouped_conv_problem& problem, const grouped_conv_args* args) const {
  std::vector<std::pair<std::shared_ptr<const conv_instance>, double>> out;
  if (problem.validate()) return out;
  const grouped_conv_problem p = problem.normalized();
  auto idx = current_index();
  // The problem's bucket, and for a forward problem the kernels that read the fusion at run time.
  std::vector<const conv_indexed_kernel*> candidates;
  int buckets = 0;
  for (bool twin : {false, true}) {
    if (twin && p.dir != conv_direction::fwd) break;
    if (auto it = idx->by_signature.find(signature_of(p, twin)); it != idx->by_signature.end()) {
      for (const auto& e : it->second) candidates.push_back(&e);
      ++buckets;
    }
  }
  if (candidates.empty()) return out;
  if (buckets > 1)  // each bucket is in name order already
    std::sort(candidates.begin(), candidates.end(),
              [](const auto* a, const auto* b) { return a->kernel->name() < b->kernel->name(); });
  const problem_profile pp = conv_problem_profile(p);
  const problem_facts facts(p);
  for (const auto* ep : candidates) {  // name order
    const auto& e = *ep;
    if (!rejection(*e.kernel, p, args, nullptr, facts)) {
      const auto& key = e.kernel->key();
      if (key.algo.pipe == pipeline::direct_conv || kernels::narrow_bwd_data_plan::runs_on_path(key, p)) {
        out.emplace_back(e.kernel, estimate_microseconds(key, p));
      } else {
        // A profile per kernel where the kernel changes the GEMM it runs: split-K (backward-weight),
        // merged groups (wider, deeper), halo tiles (more rows, fewer A bytes from L2), the sm_90
        // backward-data's weight copy. The learned model was
        // trained on estimate_microseconds(key, p): the ranking must feed it the same estimates.
        const bool own = key.sig.dir == conv_direction::bwd_weight || key.algo.groups_to_merge > 1 ||
                         key.sig.spec == conv_specialization::stride1 ||
                         key.sig.spec == conv_specialization::stride1_rows ||
                         (key.sig.dir == conv_direction::bwd_data && key.algo.pipe == pipeline::tma_wgmma);
        // As estimate_microseconds(key, p), from the profile indexed once.
        const double us =
            estimate_microseconds(e.profile, own ? conv_problem_profile(key, p, int(e.profile.processors)) : pp) *
            group_padding_factor(key, p);
        out.emplace_back(e.kernel, us);
      }
    }
  }
  pass_over_padded_twins(out);
  prefer_narrow_channel_path(out, p);
  dispatch::rank_by_estimate(out);
  return out;
}

conv_selection conv_dispatcher::select(const grouped_conv_problem& problem, const grouped_conv_args* args,
                                       bool explain_all) const {
  conv_selection sel;
  if (auto e = problem.validate()) {
    sel.problem_error = *e;
    return sel;
  }
  const grouped_conv_problem p = problem.normalized();
  sel.tier_notes = tier_load_notes_;
  if (auto k = dispatch::consult_tiers(
          tiers_, *this, p, args,
          [](const conv_instance& k, const grouped_conv_problem& q, const grouped_conv_args* a) {
            return conv_rejection(k, q, a).has_value();
          },
          sel.tier_notes, sel.tier)) {
    sel.kernel = std::move(k);
    sel.estimated_us = estimate_microseconds(sel.kernel->key(), p);
  } else if (auto r = ranked(p, args); !r.empty()) {
    sel.kernel = r.front().first;
    sel.estimated_us = r.front().second;
  }
  // A fusion compiles into a GPU kernel: where no registered kernel has the problem's, the best
  // kernel of the plain convolution runs and the epilogue follows as a pass of its own.
  if (!sel.kernel && p.fusion.fused()) {
    grouped_conv_problem plain = p;
    plain.fuse({});
    auto r = ranked(plain, args);
    std::erase_if(r, [](const auto& e) { return !e.first->has_epilogue_pass(); });
    if (!r.empty()) {
      sel.kernel = r.front().first;
      sel.composed_epilogue = true;
      // The pass reads the plain result (and the residual) and writes the output once.
      const kernel_profile kp = conv_kernel_profile(sel.kernel->key());
      const double out_bytes = double(p.elements(conv_tensor::output)) * dispatch::element_bytes(p.out_type);
      const double pass_bytes = out_bytes * (p.fusion.residual ? 3.0 : 2.0);
      sel.estimated_us = r.front().second + 3.0 + pass_bytes / std::max(kp.bandwidth, 1.0) * 1e6;
      // Whether the plain kernel's own shape could be declared with the fusion (the direct kernels and
      // stride1_rows cannot: the tables say why).
      grouped_conv_key fused_key = sel.kernel->key();
      fused_key.sig.fuse = p.fusion;
      const dsl::diagnostic fusable = dsl::validate(fused_key, fused_key.algo.arch);
      const std::string advice =
          fusable.ok() ? fmt::format("for one pass declare e.g. grouped_conv()...{}{}.activation({}) in a "
                                     "DECL_KERNEL_SET (docs/conv.md, \"Fused epilogue\")",
                                     p.fusion.bias ? ".bias()" : "", p.fusion.residual ? ".residual()" : "",
                                     to_string(p.fusion.act))
                       : fmt::format("its pipeline cannot fuse it ({})", dsl::describe(fusable).view());
      sel.fusion_hint = fmt::format(
          "no registered kernel compiles the fused epilogue ({}) in: {} computes the plain convolution and a "
          "second pass applies it (one more read and write of the output); {}",
          describe(p.fusion), sel.kernel->name(), advice);
    }
  }
  // The keys' names do not say that they run stems' backward-data on the narrow-channel kernel.
  if (sel.kernel && kernels::narrow_bwd_data_plan::runs_on_path(sel.kernel->key(), p))
    sel.tier_notes.push_back(
        "narrow-channel path: C <= 8 with overlapping taps runs one stride phase at a time on tensor cores "
        "(kernels/conv/narrow_bwd_data_plan.hpp); the kernels that would run it as an implicit GEMM were passed "
        "over");
  if (!sel.kernel || explain_all) {
    // Why every kernel of this arch was refused, closest first.
    const problem_facts facts(p);
    for (const auto& k : current_index()->for_arch) {
      int closeness = 0;
      if (auto why = rejection(*k, p, args, &closeness, facts)) sel.rejected.push_back({k->name(), *why, closeness});
    }
    dispatch::sort_closest_first(sel.rejected);
  }
  return sel;
}

namespace {
constexpr std::size_t workspace_alignment = 256;
std::size_t aligned_up(std::size_t bytes) { return (bytes + workspace_alignment - 1) / workspace_alignment * workspace_alignment; }
// A composed epilogue whose residual is the output: the plain result goes to the workspace first.
bool result_needs_room(const conv_selection& sel, const grouped_conv_problem& p, const grouped_conv_args* args) {
  return sel.composed_epilogue && p.fusion.residual && (!args || args->residual == args->out);
}
std::size_t result_bytes(const grouped_conv_problem& p) {
  return std::size_t(p.span(conv_tensor::output)) * std::size_t(dispatch::element_bytes(p.out_type));
}
}  // namespace

std::size_t conv_workspace_bytes(const conv_selection& sel, const grouped_conv_problem& p,
                                 const grouped_conv_args* args) {
  if (!sel.kernel) return 0;
  grouped_conv_problem plain = p;
  if (sel.composed_epilogue) plain.fuse({});
  const std::size_t own = sel.kernel->workspace_bytes(plain);
  return result_needs_room(sel, p, args) ? aligned_up(own) + result_bytes(p) : own;
}

status run_selected(const conv_selection& sel, const grouped_conv_problem& p, const grouped_conv_args& args,
                    void* stream) {
  if (!sel.kernel) return status::error("no kernel selected");
  if (!sel.composed_epilogue) return sel.kernel->run(p, args, stream);
  grouped_conv_problem plain = p;
  plain.fuse({});
  grouped_conv_args first = args;  // the plain convolution, into the output unless the residual is the output
  first.bias = first.residual = nullptr;
  if (result_needs_room(sel, p, &args)) {
    const std::size_t own = aligned_up(sel.kernel->workspace_bytes(plain));
    if (args.workspace == nullptr || args.workspace_bytes < own + result_bytes(p))
      return status::error(fmt::format(
          "the composed epilogue's residual is the output itself: the plain result needs {} bytes of workspace "
          "after the kernel's {} (conv_workspace_bytes), {} given",
          result_bytes(p), own, args.workspace ? args.workspace_bytes : 0));
    first.out = static_cast<unsigned char*>(args.workspace) + own;
    if (reinterpret_cast<std::uintptr_t>(first.out) % workspace_alignment != 0)  // the kernel was chosen for out's
      return status::error(fmt::format("the composed epilogue's workspace must be {}-byte aligned (the plain result "
                                       "goes there)",
                                       workspace_alignment));
    first.workspace_bytes = own;
    if (own == 0) first.workspace = nullptr;
  }
  if (status st = sel.kernel->run(plain, first, stream); !st) return st;
  return sel.kernel->run_epilogue_pass(p, first.out, args, stream);
}

status conv_dispatcher::run(const grouped_conv_problem& problem, const grouped_conv_args& args, void* stream) const {
  auto sel = select(problem, &args);
  if (!sel) return status::error(problem.describe() + ": " + sel.explain());
  const grouped_conv_problem p = problem.normalized();
  grouped_conv_args with_workspace = args;
  // A composed epilogue whose residual is the output needs room for the plain result: lent when
  // the caller's workspace is smaller; otherwise a workspace only speeds the kernel up.
  const bool required = result_needs_room(sel, p, &args);
  grouped_conv_problem plain = p;
  if (sel.composed_epilogue) plain.fuse({});
  const std::size_t wanted = required ? conv_workspace_bytes(sel, p, &args) : sel.kernel->workspace_bytes(plain);
  if (wanted > args.workspace_bytes && (args.workspace == nullptr || required)) {
    const auto lent = workspaces_.lend(stream, wanted);  // the dispatcher's own, one per stream
    with_workspace.workspace = lent.data;
    with_workspace.workspace_bytes = lent.bytes;
  }
  return run_selected(sel, p, with_workspace, stream);
}

}  // namespace kdecl
