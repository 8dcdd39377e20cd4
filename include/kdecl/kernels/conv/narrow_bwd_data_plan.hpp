// Backward-data of layers with few input channels per group (stems: C = 1 or 3),
// on tensor cores: what the host needs to know before the launch (the kernel is
// cuda/direct/narrow_bwd_data.cuh).
//
// The implicit GEMMs compute dx as a GEMM whose N is C: with C = 3 a 64-wide tile
// multiplies mostly zeros, and each A element (dy, the large tensor) is fetched
// from L2 once per tap. The narrow kernel instead splits dx into its stride
// phases (pixels i with i mod stride = phase, per dimension); within one phase a
// tap either reaches every pixel or none, and consecutive pixels read consecutive
// dy pixels, so
//
//   dx[n, (i, j) of the phase, c] = sum over the phase's taps (fy, fx) and k of
//                                   dy[n, i + base_y(fy), j + base_x(fx), k] * w[k, fy, fx, c]
//
// with base(f) = (phase + pad - f * dilation) / stride exact. A block stages the
// dy pixels of a tile of one phase once in shared memory and runs that sum as
// m16n8k16 MMAs: 16 pixels x 16 channels k of dy (ldmatrix, one row address per
// pixel and tap) times 16 k x 8 of the weights (C padded to 8). No tap of another
// phase is multiplied, and dy is read from L2 once per phase, not once per tap.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "kdecl/conv/grouped_conv_key.hpp"
#include "kdecl/conv/grouped_conv_problem.hpp"

namespace kdecl::kernels {

inline constexpr int narrow_max_filter = 32;  // taps per dimension (the tap lists live in shared memory)

// The taps of one dimension that reach a stride phase (the pixels i with i mod stride =
// phase), in filter order, and each one's base: dy index = i / stride + base, exact. The
// bases decrease along the list. Host and device (the kernel builds the lists per block).
struct narrow_taps {  // trivial: the kernel keeps two in static shared memory
  int count;
  int tap[narrow_max_filter];
  int base[narrow_max_filter];
};

constexpr narrow_taps narrow_phase_taps(int phase, int pad, int filter, int dilation, int stride) {
  narrow_taps t{};
  for (int f = 0; f < filter && t.count < narrow_max_filter; ++f) {
    const int r = phase + pad - f * dilation;
    if (((r % stride) + stride) % stride != 0) continue;
    t.tap[t.count] = f;
    t.base[t.count] = r / stride;  // exact
    ++t.count;
  }
  return t;
}

struct narrow_bwd_data_plan {
  static constexpr int max_channels = 8;   // C/G: the MMA's N
  static constexpr int max_filter = narrow_max_filter;
  static constexpr int chunk_k = 32;       // dy channels staged at a time
  static constexpr int pitch = chunk_k + 8;  // elements per staged pixel: 80 bytes, ldmatrix without bank conflicts
  static constexpr int threads = 256;      // 8 warps
  static constexpr int warps = threads / 32;
  static constexpr int max_groups_per_warp = 4;  // 16-pixel MMA rows per warp
  // The kernel's static shared memory (its two tap lists), and the dynamic shared memory a block
  // may then take on a target of `capacity` bytes.
  static constexpr long static_smem = 2 * long(sizeof(narrow_taps));
  static constexpr long dynamic_capacity(long capacity) { return capacity - static_smem; }

  // Whether a normalized problem is of the kind: a dense (G = 1) backward-data of at most 8
  // input channels, not depthwise (C = K = 1: the direct depthwise kernel's), 1-D, 2-D or 3-D,
  // whose taps overlap along some dimension (a dilated filter longer than the stride). The kernel
  // indexes groups (grid z), but grouped layers of few channels per group keep the kernels
  // measured on them (merged groups, the direct forward path of stride 1) until the narrow kernel
  // is measured there. Without overlap (patchify stems, 1x1 layers) the backward-data is one plain
  // GEMM, which the implicit GEMMs run faster (ConvNeXt-T's 4x4 stride-4 stem at batch 32 on an
  // H100: 118.7 us here, 46.8 us on the GEMM). 1-D and 2-D layers take the path on the
  // direct_conv keys, 3-D ones on the sm_90 implicit GEMM keys (runs_on_path).
  static bool applies(const grouped_conv_problem& p) {
    if (p.dir != conv_direction::bwd_data || p.g != 1 || p.c > max_channels || (p.c == 1 && p.k == 1)) return false;
    for (int slot = 0; slot < 3; ++slot)
      if ((p.filter_dims[slot] - 1) * p.dilation_dims[slot] + 1 > p.stride_dims[slot]) return true;
    return false;
  }

  // Whether a kernel of key `k` runs a problem the path applies to on the narrow kernel: the
  // direct_conv backward-data keys (1-D and 2-D: there are no 3-D direct keys) and, for 3-D layers,
  // the sm_90 TMA + wgmma backward-data keys of 16-bit data (cuda/sm90/conv_bwd_data_sm90.cuh), so
  // that no new key changes the kernel set the learned model was trained on.
  static bool runs_on_path(const grouped_conv_key& k, const grouped_conv_problem& p) {
    if (k.sig.dir != conv_direction::bwd_data || !applies(p)) return false;
    if (k.algo.pipe == pipeline::direct_conv) return true;
    return k.sig.ndim == 3 && k.algo.pipe == pipeline::tma_wgmma && k.algo.arch == arch_id::sm_90 &&
           (k.sig.in == dtype::fp16 || k.sig.in == dtype::bf16);
  }

  // Whether dy can be staged in 16-byte copies (16-bit data): K/G a multiple of 8, dy's image,
  // depth (where deeper than 1), row and pixel strides multiples of 8 elements, dy 16-byte aligned.
  static bool dy_in_16_bytes(const grouped_conv_problem& p, const void* dy) {
    const auto out = p.output_dims();
    const auto& so = p.out_strides;
    if (p.k % 8 != 0 || so.n % 8 != 0 || so.spatial[1] % 8 != 0 || so.spatial[2] % 8 != 0) return false;
    if (out[0] > 1 && so.spatial[0] % 8 != 0) return false;
    return reinterpret_cast<std::uintptr_t>(dy) % 16 == 0;
  }

  // Per dimension (slot 1 = H, 2 = W): the largest spread of base(f) over a phase's taps,
  // the most taps a phase has, and the phase lattice's extent (pixels of phase 0).
  struct dim_plan {
    int spread = 0, taps = 0, lattice = 0;
  };
  static dim_plan plan_dim(const grouped_conv_problem& p, int slot) {
    const int s = int(p.stride_dims[slot]);
    dim_plan out;
    out.lattice = int((p.input_dims[slot] + s - 1) / s);
    for (int phase = 0; phase < s; ++phase) {
      const narrow_taps t = narrow_phase_taps(phase, int(p.pad_left_dims[slot]), int(p.filter_dims[slot]),
                                              int(p.dilation_dims[slot]), s);
      out.taps = std::max(out.taps, t.count);
      if (t.count) out.spread = std::max(out.spread, t.base[0] - t.base[t.count - 1]);
    }
    return out;
  }

  // A tile: th rows x tw columns of one phase's lattice (tw a multiple of 16: one MMA row
  // group of 16 pixels), th * tw / 16 row groups shared by the 8 warps.
  struct tile {
    int th = 0, tw = 0;
    int groups_per_warp() const { return th * tw / 16 / warps; }
  };
  // Largest first; each holds 128 pixels or more (every warp has a row group).
  static constexpr std::array<tile, 6> tiles{{{8, 64}, {4, 64}, {2, 64}, {1, 128}, {4, 32}, {8, 16}}};

  static long smem_bytes(const dim_plan& y, const dim_plan& x, tile t) {
    const long rows = t.th + y.spread, cols = t.tw + x.spread;
    const long staged = rows * cols * pitch * 2;
    const long weights = long(y.taps) * x.taps * (chunk_k / 16) * 32 * 8;  // one uint2 per lane per (tap, k step)
    return staged + weights;
  }
  static long smem_bytes(const grouped_conv_problem& p, tile t) { return smem_bytes(plan_dim(p, 1), plan_dim(p, 2), t); }

  // The first tile whose shared memory fits `capacity` and whose rows the lattice fills
  // (1-D layers: one row); else the first that fits.
  static std::optional<tile> tile_for(const grouped_conv_problem& p, long capacity) {
    const dim_plan y = plan_dim(p, 1), x = plan_dim(p, 2);
    for (const tile& t : tiles)
      if (t.th <= y.lattice && smem_bytes(y, x, t) <= capacity) return t;
    for (const tile& t : tiles)
      if (smem_bytes(y, x, t) <= capacity) return t;
    return std::nullopt;
  }

  static long least_smem(const grouped_conv_problem& p) {
    const dim_plan y = plan_dim(p, 1), x = plan_dim(p, 2);
    long least = smem_bytes(y, x, tiles[0]);
    for (const tile& t : tiles) least = std::min(least, smem_bytes(y, x, t));
    return least;
  }

  // Why the narrow kernel cannot run a normalized problem of its kind, or nothing.
  static std::optional<std::string> why_not(const grouped_conv_problem& p, long capacity) {
    for (int slot = 0; slot < 3; ++slot)
      if (p.filter_dims[slot] > max_filter)
        return "the narrow-channel backward-data kernel takes filters of at most " + std::to_string(max_filter) +
               " taps per dimension; this one has " + std::to_string(p.filter_dims[slot]);
    if (p.n > 65535) return "the narrow-channel backward-data kernel takes N <= 65535 (grid y); N = " + std::to_string(p.n);
    if (p.g > 65535) return "the narrow-channel backward-data kernel takes G <= 65535 (grid z); G = " + std::to_string(p.g);
    if (p.in_strides.c != 1 || p.out_strides.c != 1 || p.wei_strides.c != 1)
      return std::string("the narrow-channel backward-data kernel reads channels packed (channel stride 1)");
    const auto t = tile_for(p, capacity);
    if (!t)
      return "the narrow-channel backward-data kernel's tiles need at least " + std::to_string(least_smem(p)) +
             " bytes of shared memory for this filter, stride and dilation; the device allows " +
             std::to_string(capacity);
    const dim_plan y = plan_dim(p, 1), x = plan_dim(p, 2);
    const std::int64_t blocks = std::int64_t((y.lattice + t->th - 1) / t->th) * ((x.lattice + t->tw - 1) / t->tw) *
                                p.stride_dims[1] * p.stride_dims[2] * p.input_dims[0];
    if (blocks > 2147483647)
      return "the narrow-channel backward-data kernel's grid takes at most 2^31 - 1 tiles per image (tiles x "
             "phases x depth); this layer has " +
             std::to_string(blocks);
    return std::nullopt;
  }
};

}  // namespace kdecl::kernels
