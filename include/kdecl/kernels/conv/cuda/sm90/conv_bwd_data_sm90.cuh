// The sm_90a backward-data convolution: per stride phase (kernels/conv/
// bwd_data_phases.hpp) the forward convolution of dy with the phase's taps flipped
// and transposed, run by the sm_90 forward kernel of the key's forward key storing
// through a pixel map (conv_fwd<K, true>: the phase's dx pixels are every stride-th).
// On the caller's stream:
//
//   1. w' = each phase's taps of the weights with input and output channels exchanged
//      and flipped, into the workspace (cuda/flip_transpose_weights.cuh): one small
//      copy kernel for up to 8 phases (all phases together hold K x C x taps elements).
//      Not where the phases read W as stored (kernels/conv/bwd_data_stored_weights.hpp:
//      keys without a unit-stride specialization, every phase's dy and W allowing TMA
//      maps: K/G a multiple of 64, 16-byte aligned W and strides): each k-block's B is
//      then one N-major box per 64 channels of the tap's line of W, no copy, no workspace;
//   2. zeros at the dx pixels of the phases no tap reaches (cuda/zero_pixel_rows.cuh);
//   3. the forward implicit GEMM of each phase: input dy (the rows it reads), weights
//      w', output the phase's dx pixels; no work on the zeros between strided dY
//      pixels. The phases run in one launch (up to 2^ndim of them: conv_phase_set.cuh), the
//      most work first, so that a small layer pays for one launch and the phases' tails
//      overlap.
//
// Stride 1 is one phase. A key of the stride1 specialization runs it on the halo-tile forward
// kernel (conv_fwd_halo_sm90.cuh) instead: each tile's dY rows are loaded once for all taps; one
// of stride1_rows on the row-streaming kernel (conv_fwd_rows_sm90.cuh, whose definition the
// translation units of such keys include).
// 1x1 layers of stride 1 without padding skip all of it: dx = dy · W is an
// rrr GEMM per group, which the sm_90 TMA GEMM of the same tiles reads directly (B
// MN-major), with no weight copy. Patchify layers (stride = filter, no padding: ConvNeXt's
// stem and downsampling) skip it too: the same rrr GEMM on W as stored writes each dY
// pixel's taps x C/G values into the workspace, and one copy scatters them to their
// patches' dx pixels (kernels/conv/bwd_data_patches.hpp, cuda/scatter_patches.cuh).
// 3-D layers of at most 8 input channels whose taps overlap (video stems: R3D-18's 3x7x7, 3 -> 64)
// skip it too: the narrow-channel kernel (cuda/direct/narrow_bwd_data.cuh) runs each stride phase
// on mma.sync with dy staged once per depth tap, where the implicit GEMM would pad N = C = 3 to its
// tile and read dy from L2 once per tap (1-D and 2-D stems take it on the direct_conv keys;
// narrow_bwd_data_plan::runs_on_path).
// Entry point: sm90::conv_bwd_data<K> with the conv_kernel contract (kernels/conv/conv_kernel.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_runtime.h>

#include "kdecl/arch/arch.hpp"
#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/conv/grouped_conv_problem_hash.hpp"
#include "kdecl/dispatch/alignment.hpp"
#include "kdecl/dispatch/choice_cache.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/bwd_data_as_forward.hpp"
#include "kdecl/kernels/conv/bwd_data_patches.hpp"
#include "kdecl/kernels/conv/bwd_data_phases.hpp"
#include "kdecl/kernels/conv/bwd_data_stored_weights.hpp"
#include "kdecl/kernels/conv/narrow_bwd_data_plan.hpp"
#include "kdecl/kernels/conv/cuda/direct/narrow_bwd_data_decl.cuh"
#include "kdecl/kernels/conv/cuda/flip_transpose_weights.cuh"
#include "kdecl/kernels/conv/cuda/scatter_patches.cuh"
#include "kdecl/kernels/conv/cuda/zero_pixel_rows.cuh"
#include "kdecl/kernels/cuda/stream_scratch.cuh"
#include "kdecl/gemm/gemm_problem.hpp"
#include "kdecl/kernels/conv/cuda/sm90/conv_fwd_halo_sm90.cuh"
#include "kdecl/kernels/conv/cuda/sm90/conv_fwd_rows_sm90_decl.cuh"
#include "kdecl/kernels/conv/cuda/sm90/conv_fwd_sm90.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90.cuh"

namespace kdecl::kernels::cuda::sm90 {

template <grouped_conv_key K>
struct conv_bwd_data {
  static_assert(K.sig.dir == conv_direction::bwd_data, "sm90::conv_bwd_data computes the backward-data direction");
  // The phases' forward kernel: im2col tiles stored through the phases' pixel maps, several
  // phases a launch; or, for the stride1 and stride1_rows specializations (unit strides: one
  // phase), halo tiles or streamed rows.
  static constexpr bool unit_stride = K.sig.spec == conv_specialization::stride1 ||
                               K.sig.spec == conv_specialization::stride1_rows;
  using forward = conv_fwd<forward_key_of_bwd_data(K), /*PixelRows=*/true>;
  // The phases on W as stored (no flipped copy), where the key's forward kernel builds it.
  static constexpr bool reads_stored_weights =
      !unit_stride && conv_fwd_reads_stored_weights(forward_key_of_bwd_data(K));
  using stored_forward = conv_fwd<forward_key_of_bwd_data(K), true, reads_stored_weights>;
  using unit_stride_forward =
      std::conditional_t<K.sig.spec == conv_specialization::stride1_rows, conv_fwd_rows<forward_key_of_bwd_data(K)>,
                         conv_fwd_halo<forward_key_of_bwd_data(K)>>;
  using data_t = storage_t<K.sig.wei>;
  // 1x1 layers: the rrr GEMM of the forward key's tiles (A = dy, B = W as stored, C = dx).
  static constexpr gemm_key pointwise_key = [] {
    gemm_key g = conv_fwd_sm90_gemm_key(forward_key_of_bwd_data(K));
    g.sig.lay = rrr;
    return g;
  }();
  static_assert(key_unsupported_reason(pointwise_key) == nullptr, "the sm_90 GEMM must build the 1x1 layers' rrr key");
  using pointwise = gemm<pointwise_key>;
  static constexpr std::size_t align = 128;  // each phase's w' 16-byte aligned (the loads'); 128 for good measure

  // A patchify layer's GEMM rows (with the slack to align them), or every phase's w', each
  // aligned, and the slack to align the first.
  static std::size_t workspace_bytes(const grouped_conv_problem& p) {
    const std::shared_ptr<const decision> d = decide(p, stand_in_args());
    switch (d->how) {
      case route::patch_gemm: return align + patch_rows_bytes(p);
      case route::phases: return d->taps ? 0 : workspace_bytes(*d->phases);
      default: return 0;
    }
  }

  static std::optional<std::string> why_not(const grouped_conv_problem& p, const grouped_conv_args& a) {
    return decide(p, a)->refusal;
  }

  static status run(const grouped_conv_problem& p, const grouped_conv_args& a, void* stream) {
    const std::shared_ptr<const decision> d = decide(p, a);
    if (d->refusal) return status::error(*d->refusal);
    const auto st = static_cast<cudaStream_t>(stream);
    switch (d->how) {
      case route::narrow:
        if constexpr (sizeof(data_t) == 2)  // runs_on_path holds for 16-bit keys only
          return direct::narrow_bwd_data<data_t>::run(p, a, narrow_bwd_data_plan::dy_in_16_bytes(p, a.out), stream);
        break;
      case route::gemm: return pointwise::run(pointwise_problem(p), pointwise_args(a), stream);
      case route::patch_gemm: return run_patch_gemm(p, a, st);
      case route::phases: {
        const device_info dev = current_device_info();  // once a launch: each ask is a runtime call
        if constexpr (reads_stored_weights) {
          if (d->taps) {
            if (auto why = stored_forward::device_reason(dev)) return status::error(*why);
            return run_phases(p, *d->phases, a, nullptr, d->taps.get(), st, dev);
          }
        }
        if constexpr (!unit_stride) {
          if (auto why = forward::device_reason(dev)) return status::error(*why);
        }
        // w' in the caller's workspace, or (given less) in stream-ordered memory of its own.
        const stream_scratch scratch(a.workspace, a.workspace_bytes, workspace_bytes(*d->phases) - align, align, st,
                                     "sm90 conv bwd_data: the flipped weights");
        if (!scratch) return scratch.error();
        return run_phases(p, *d->phases, a, scratch.get(), nullptr, st, dev);
      }
      case route::refused: break;
    }
    return status::error("sm90 conv bwd_data: no route for " + p.describe());
  }

 private:
  // How run() computes a problem (the narrow-channel kernel, the 1x1 GEMM, the patch GEMM, or the
  // stride phases' forward convolutions), or why it cannot: decided once per problem and class of
  // pointers (null or each one's alignment, which is all the checks read of them). The checks plan
  // the stride phases and check each phase's forward problem, 1-8 us of host time a call, and the
  // dispatcher's selection and run() both make them on every launch of a layer that runs every
  // training step with the same problem.
  enum class route { refused, narrow, gemm, patch_gemm, phases };
  struct decision {
    route how = route::refused;
    std::optional<std::string> refusal;
    std::shared_ptr<const std::vector<bwd_data_phase_problem>> phases;  // route::phases
    // route::phases on W as stored: each phase's taps on W's lines (none: the flipped copy).
    std::shared_ptr<const std::vector<stored_weight_taps>> taps;
  };
  struct decision_key {
    grouped_conv_problem p;
    int in = 0, wei = 0, out = 0;  // 0: null; else the pointer's alignment class (dispatch::address_alignment)
    bool operator==(const decision_key&) const = default;
  };
  struct decision_key_hash {
    std::size_t operator()(const decision_key& k) const {
      return grouped_conv_problem_hash{}(k.p) ^ (std::size_t(k.in) << 1) ^ (std::size_t(k.wei) << 12) ^
             (std::size_t(k.out) << 23);
    }
  };
  static int pointer_class(const void* ptr) {
    return ptr ? dispatch::address_alignment(reinterpret_cast<std::uintptr_t>(ptr)) : 0;
  }

  static std::shared_ptr<const decision> decide(const grouped_conv_problem& p, const grouped_conv_args& a) {
    static dispatch::choice_cache<decision_key, std::shared_ptr<const decision>, decision_key_hash> decided;
    const decision_key key{p, pointer_class(a.in), pointer_class(a.wei), pointer_class(a.out)};
    if (auto hit = decided.find(key)) return *hit;
    auto made = std::make_shared<decision>(decide_now(p, a));
    decided.remember(key, made);
    return made;
  }
  static decision decide_now(const grouped_conv_problem& p, const grouped_conv_args& a) {
    decision d;
    if ((d.refusal = problem_reason(p, a))) return d;
    if (narrow_bwd_data_plan::runs_on_path(K, p)) {
      if (!(d.refusal = narrow_reason(p, a))) d.how = route::narrow;
      return d;
    }
    if (runs_as_gemm(p, a)) {
      d.how = route::gemm;
      return d;
    }
    if (runs_as_patch_gemm(p, a)) {
      d.how = route::patch_gemm;
      return d;
    }
    auto phases = std::make_shared<const std::vector<bwd_data_phase_problem>>(bwd_data_phases(p));
    if (!(d.refusal = phases_reason(*phases, a))) {
      d.how = route::phases;
      if constexpr (reads_stored_weights)
        if (stored_weights_allowed() && !stored_weights_reason(p, *phases, a)) d.taps = stored_taps(p, *phases);
      d.phases = std::move(phases);
    }
    return d;
  }

  // KDECL_CONV_BWD_DATA_STORED_WEIGHTS=0 keeps the flipped copy everywhere: an A/B switch for
  // benchmarks, read once per process (the decisions are remembered).
  static bool stored_weights_allowed() {
    static const bool allowed = [] {
      const char* v = std::getenv("KDECL_CONV_BWD_DATA_STORED_WEIGHTS");
      return v == nullptr || v[0] != '0';
    }();
    return allowed;
  }
  // Why the phases cannot read W as stored (then the flipped copy): each phase's dy and W as
  // TMA must map them (stored_forward::stored_weights_reason).
  static std::optional<std::string> stored_weights_reason(const grouped_conv_problem& p,
                                                          const std::vector<bwd_data_phase_problem>& phases,
                                                          const grouped_conv_args& a) {
    const stored_weights_operand w = stored_weights_operand_of(p, a.wei);
    for (const bwd_data_phase_problem& ph : phases)
      if (!ph.zero)
        if (auto why = stored_forward::stored_weights_reason(ph.forward, phase_args(ph, a, a.wei), w)) return why;
    return std::nullopt;
  }
  static std::shared_ptr<const std::vector<stored_weight_taps>> stored_taps(
      const grouped_conv_problem& p, const std::vector<bwd_data_phase_problem>& phases) {
    const stored_weights_lines lines = stored_weights_lines_of(p);
    auto taps = std::make_shared<std::vector<stored_weight_taps>>();
    for (const bwd_data_phase_problem& ph : phases) taps->push_back(stored_weight_taps_of(ph.weights, lines));
    return taps;
  }

  // The launches, on `st`: every phase's w' (one copy kernel per 8 phases, at `weights`; none where
  // `taps` says how each phase reads W as stored), the zeros of the phases no tap reaches (one
  // kernel), then the phases' forward convolutions, up to 2^ndim a launch.
  static status run_phases(const grouped_conv_problem& p, const std::vector<bwd_data_phase_problem>& phases,
                           const grouped_conv_args& a, unsigned char* weights,
                           const std::vector<stored_weight_taps>* taps, cudaStream_t st, const device_info& dev) {
    std::vector<std::int64_t> offset(phases.size(), 0);  // elements of each phase's w' from `weights`
    flipped_weights_batch flips;
    zero_pixel_regions zeros;
    zeros.groups = int(p.g);
    zeros.channels = int(p.c_per_group());
    zeros.group_stride = p.in_strides.g;
    std::int64_t next = 0;
    for (std::size_t i = 0; i < phases.size(); ++i) {
      const bwd_data_phase_problem& ph = phases[i];
      if (ph.zero) {
        zeros.region[zeros.count++] = {ph.pixels, ph.rows, ph.dx_offset};
        if (zeros.count == zero_regions_max)
          if (status done = flush_zeros(zeros, a, st); !done.is_ok()) return done;
        continue;
      }
      if (taps) continue;  // W as stored: no copy
      offset[i] = next;
      next += std::int64_t(weights_bytes(ph) / sizeof(data_t));
      flips.map[flips.count] = ph.weights;
      flips.offset[flips.count++] = offset[i];
      if (flips.count == flip_transpose_batch_max)
        if (status done = flush_flips(flips, a, weights, st); !done.is_ok()) return done;
    }
    if (status done = flush_zeros(zeros, a, st); !done.is_ok()) return done;
    if (status done = flush_flips(flips, a, weights, st); !done.is_ok()) return done;
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < phases.size(); ++i)
      if (!phases[i].zero) order.push_back(i);
    if constexpr (unit_stride) {  // unit strides: at most one phase, on halo tiles or streamed rows
      for (std::size_t i : order) {
        const auto* w = reinterpret_cast<const data_t*>(weights) + offset[i];
        if (status done = unit_stride_forward::run(phases[i].forward, phase_args(phases[i], a, w), st); !done.is_ok())
          return done;
      }
    } else {
      // The phases' convolutions in sets of one launch each (conv_phase_set.cuh), the most work
      // first: the persistent blocks take the longest units before the short ones.
      const auto work = [&](std::size_t i) { return phases[i].rows * phases[i].weights.taps; };
      std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return work(x) > work(y); });
      constexpr int per_launch = forward::phases_per_launch;
      static_assert(per_launch == stored_forward::phases_per_launch);
      grouped_conv_problem problems[per_launch];
      grouped_conv_args args[per_launch];
      stored_weight_taps set_taps[per_launch];
      const stored_weights_operand w = taps ? stored_weights_operand_of(p, a.wei) : stored_weights_operand{};
      for (std::size_t first = 0; first < order.size(); first += per_launch) {
        const int count = int(std::min<std::size_t>(per_launch, order.size() - first));
        for (int j = 0; j < count; ++j) {
          const std::size_t i = order[first + std::size_t(j)];
          problems[j] = phases[i].forward;
          args[j] = phase_args(phases[i], a, taps ? a.wei : reinterpret_cast<const data_t*>(weights) + offset[i]);
          if (taps) set_taps[j] = (*taps)[i];
        }
        const auto launch = [&]() -> status {
          if constexpr (reads_stored_weights)
            if (taps) return stored_forward::launch_set_on_stored_weights(problems, args, set_taps, count, w, st, dev);
          return forward::launch_set(problems, args, count, st, dev);
        };
        if (status done = launch(); !done.is_ok()) return done;
      }
    }
    return status::ok();
  }
  static status flush_flips(flipped_weights_batch& flips, const grouped_conv_args& a, void* weights, cudaStream_t st) {
    if (flips.count == 0) return status::ok();
    const status done = flip_transpose_weights<data_t>(flips, a.wei, weights, st);
    flips.count = 0;
    return done;
  }
  static status flush_zeros(zero_pixel_regions& zeros, const grouped_conv_args& a, cudaStream_t st) {
    if (zeros.count == 0) return status::ok();
    const status done = zero_pixel_rows<data_t>(a.in, zeros, st);
    zeros.count = 0;
    return done;
  }

  // A 3-D stem on the narrow-channel kernel: element-aligned tensors (dy is staged in 16-byte
  // copies only where dy_in_16_bytes allows it) and the kernel's own limits.
  static std::optional<std::string> narrow_reason(const grouped_conv_problem& p, const grouped_conv_args& a) {
    for (const void* ptr : {a.in, a.wei, a.out})
      if (reinterpret_cast<std::uintptr_t>(ptr) % sizeof(data_t) != 0)
        return "sm90 conv bwd_data (narrow channels): in, wei and out must be aligned to " +
               std::to_string(sizeof(data_t)) + " bytes";
    return narrow_bwd_data_plan::why_not(
        p, narrow_bwd_data_plan::dynamic_capacity(arch::spec_of(K.algo.arch).direct_conv.smem_capacity));
  }

  static std::optional<std::string> problem_reason(const grouped_conv_problem& p, const grouped_conv_args& a) {
    if (p.dir != K.sig.dir) return std::string("problem signature differs from the kernel's");
    if (p != p.normalized()) return std::string("problem is not normalized");
    if (!a.in || !a.wei || !a.out) return std::string("a tensor pointer (in, wei or out) is null");
    return std::nullopt;
  }

  // The forward kernel's rules on each phase's problem: dy is its input, dx its output (its
  // weights are the copy run() makes, packed and aligned: `stand_in`).
  static std::optional<std::string> phases_reason(const std::vector<bwd_data_phase_problem>& phases,
                                                  const grouped_conv_args& a) {
    for (const bwd_data_phase_problem& ph : phases) {
      if (ph.rows > std::numeric_limits<int>::max())
        return std::string("sm90 conv bwd_data: N x pixels must be < 2^31");
      if (ph.zero) continue;
      if constexpr (unit_stride) {
        if (auto why = unit_stride_forward::why_not(ph.forward, phase_args(ph, a, stand_in()))) return why;
      } else {
        if (auto why = forward::why_not(ph.forward, phase_args(ph, a, stand_in()))) return why;
      }
    }
    return std::nullopt;
  }
  static std::size_t workspace_bytes(const std::vector<bwd_data_phase_problem>& phases) {
    std::size_t bytes = align;
    for (const bwd_data_phase_problem& ph : phases)
      if (!ph.zero) bytes += weights_bytes(ph);
    return bytes;
  }
  // A patchify layer (kernels/conv/bwd_data_patches.hpp) whose operands the GEMM takes: dy times W
  // as stored into rows [N x dY pixels][G][taps][C/G] of the workspace, then scattered to dx.
  static bool runs_as_patch_gemm(const grouped_conv_problem& p, const grouped_conv_args& a) {
    return !bwd_data_as_patch_gemm_reason(p) && p.n * p.output_pixels() <= std::numeric_limits<int>::max() &&
           !pointwise::why_not(patch_problem(p), patch_args(a, stand_in()));
  }
  static std::int64_t patch_width(const grouped_conv_problem& p) {  // taps x C/G: one group's GEMM columns
    return p.filter_dims[0] * p.filter_dims[1] * p.filter_dims[2] * p.c_per_group();
  }
  static std::size_t patch_rows_bytes(const grouped_conv_problem& p) {
    const std::int64_t elements = p.n * p.output_pixels() * p.g * patch_width(p);
    return (std::size_t(elements) * sizeof(data_t) + align - 1) / align * align;
  }
  static gemm_problem patch_problem(const grouped_conv_problem& p) {
    const std::int64_t width = patch_width(p);
    gemm_problem g;
    g.sizes(p.n * p.output_pixels(), width, p.k_per_group()).batched(p.g).dtype(K.sig.wei).layout(rrr);
    g.accumulator(K.sig.acc);
    g.leading_dims(p.out_strides.spatial[2], p.wei_strides.n, p.g * width);
    g.batch_strides(p.out_strides.g, p.wei_strides.g, width);
    return g;
  }
  static gemm_args patch_args(const grouped_conv_args& a, void* rows) {
    gemm_args g;
    g.a = a.out;
    g.b = a.wei;
    g.c = rows;
    return g;
  }
  static status run_patch_gemm(const grouped_conv_problem& p, const grouped_conv_args& a, cudaStream_t st) {
    const stream_scratch scratch(a.workspace, a.workspace_bytes, patch_rows_bytes(p), align, st,
                                 "sm90 conv bwd_data: the patch rows");
    if (!scratch) return scratch.error();
    if (status s = pointwise::run(patch_problem(p), patch_args(a, scratch.get()), st); !s) return s;
    return scatter_patches<data_t>(scratch.get(), a.in, patch_scatter_of(p), p.n * p.output_pixels(), int(p.g),
                                   int(p.c_per_group()), st);
  }

  // A 1x1 layer the GEMM takes as it is (alignment and leading dimensions: the GEMM's own rules).
  static bool runs_as_gemm(const grouped_conv_problem& p, const grouped_conv_args& a) {
    return !bwd_data_as_gemm_reason(p) && !pointwise::why_not(pointwise_problem(p), pointwise_args(a));
  }
  static gemm_problem pointwise_problem(const grouped_conv_problem& p) {
    gemm_problem g;
    g.sizes(p.n * p.input_pixels(), p.c_per_group(), p.k_per_group()).batched(p.g).dtype(K.sig.wei).layout(rrr);
    g.accumulator(K.sig.acc);
    g.leading_dims(p.out_strides.spatial[2], p.wei_strides.n, p.in_strides.spatial[2]);
    g.batch_strides(p.out_strides.g, p.wei_strides.g, p.in_strides.g);
    return g;
  }
  static gemm_args pointwise_args(const grouped_conv_args& a) {
    gemm_args g;
    g.a = a.out;
    g.b = a.wei;
    g.c = a.in;
    return g;
  }

  // A phase's forward operands: dy from the rows it reads, w' (at `weights`), dx at its first pixel.
  static grouped_conv_args phase_args(const bwd_data_phase_problem& ph, const grouped_conv_args& a,
                                      const void* weights) {
    grouped_conv_args f;
    f.in = static_cast<data_t*>(a.out) + ph.dy_offset;
    f.wei = const_cast<void*>(weights);
    f.out = static_cast<data_t*>(a.in) + ph.dx_offset;
    return f;
  }
  // A phase's w' in the workspace, rounded up to keep the next one aligned.
  static std::size_t weights_bytes(const bwd_data_phase_problem& ph) {
    return (std::size_t(ph.weights.elements()) * sizeof(data_t) + align - 1) / align * align;
  }
  static void* stand_in() { return scratch_stand_in(align); }  // w' or the patch rows, not yet made
  static grouped_conv_args stand_in_args() { return {stand_in(), stand_in(), stand_in()}; }
};

}  // namespace kdecl::kernels::cuda::sm90
