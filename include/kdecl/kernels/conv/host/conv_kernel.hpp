// conv_kernel<K, backend::host>: the CPU implementation of the convolution
// kernel contract (kernels/conv/conv_kernel.hpp), for every direction.
//
// Each direction is computed as its implicit GEMMs (fwd_operands.hpp,
// bwd_data_operands.hpp, bwd_weight_operands.hpp) on the host GEMM's main loop
// (implicit_gemm.hpp): K's tile is the cache blocking (mc, nc, kc) of the
// implicit GEMM, its warp_tile the register micro-tile (MR, NR). Operands are
// gathered straight from the tensors (no im2col buffer), so every rank, layout
// and tensor stride runs. fp16, bf16 and fp32 data, fp32 accumulation. Runs
// synchronously (the stream is ignored) on the shared thread pool.
//
// bwd_weight reduces over N x output pixels; given a workspace it splits that
// depth into a fixed number of ranges (a function of the problem and the tile
// only, so results do not depend on the machine) for parallelism.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>

#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/host/epilogue_pass.hpp"
#include "kdecl/kernels/conv/conv_kernel.hpp"
#include "kdecl/kernels/conv/host/bwd_data_operands.hpp"
#include "kdecl/kernels/conv/host/bwd_weight_operands.hpp"
#include "kdecl/kernels/conv/host/fwd_operands.hpp"
#include "kdecl/kernels/conv/host/implicit_gemm.hpp"
#include "kdecl/numeric/host_storage.hpp"

namespace kdecl::kernels {

namespace host::conv {

// Depth ranges of a host bwd_weight: enough work items for a large machine
// (64), each range at least 4096 deep, the partials under 256 MiB.
inline int bwd_weight_splits(const grouped_conv_problem& p, int tile_m, int tile_n) {
  const auto e = p.implicit_gemm();
  const i64 tiles = p.g * ((e.m + tile_m - 1) / tile_m) * ((e.n + tile_n - 1) / tile_n);
  i64 s = std::min<i64>((64 + tiles - 1) / tiles, e.k / 4096);
  const i64 partial_bytes = p.g * e.m * e.n * i64(sizeof(float));
  s = std::min<i64>(s, (i64{256} << 20) / std::max<i64>(partial_bytes, 1));
  return int(std::clamp<i64>(s, 1, 64));
}

}  // namespace host::conv

template <grouped_conv_key K>
struct conv_kernel<K, backend::host> {
  // Why this key cannot be built for the host at all; nullptr when it can.
  static constexpr const char* unsupported_key_reason() {
    const auto& s = K.sig;
    const auto eight_bit = [](dtype d) { return d == dtype::fp8 || d == dtype::bf8; };
    const bool real_out = s.out == dtype::fp16 || s.out == dtype::bf16 || s.out == dtype::fp32;
    if (eight_bit(s.in) || eight_bit(s.wei)) {
      if (!eight_bit(s.in) || !eight_bit(s.wei) || !real_out)
        return "host convolution of 8-bit data takes fp8/bf8 input and weights and writes fp16, bf16 or fp32";
      if (s.dir != conv_direction::fwd) return "host convolution of 8-bit data is forward only";
    } else {
      if (s.in != s.wei || s.in != s.out) return "host convolution needs input, weight and output of one dtype";
      if (s.in != dtype::fp16 && s.in != dtype::bf16 && s.in != dtype::fp32)
        return "host convolution computes fp16, bf16 and fp32 data (and fp8/bf8 forward)";
    }
    if (s.acc != dtype::fp32) return "host convolution accumulates in fp32";
    if (!compute_suits(s.in, s.compute))
      return "host convolution multiplies in its data's dtype, or in tf32 for fp32 data";
    if (s.spec != conv_specialization::none) return "host convolution has no filter specializations";
    if (s.fuse.fused() && s.dir != conv_direction::fwd) return "host convolution fuses epilogues into forward only";
    if (K.algo.groups_to_merge != 1) return "host convolution computes one group per GEMM (groups_to_merge 1)";
    const mnk t = K.algo.tile, w = K.algo.warp_tile;
    if (!t.concrete() || w.m <= 0 || w.n <= 0) return "host convolution needs concrete tile and warp_tile";
    if (t.m % w.m != 0 || t.n % w.n != 0)
      return "host convolution needs tile.m % warp_tile.m == 0 and tile.n % warp_tile.n == 0";
    return nullptr;
  }

  static std::optional<std::string> why_not(const grouped_conv_problem& p, const grouped_conv_args& a) {
    if (const char* why = unsupported_key_reason()) return std::string(why);
    const auto& s = K.sig;
    if (!p.has_signature(s))
      return std::string("problem signature differs from the kernel's");
    if (p != p.normalized()) return std::string("problem is not normalized");
    if (!a.in || !a.wei || !a.out) return std::string("a tensor pointer (in, wei or out) is null");
    if (p.fusion.bias && !a.bias) return std::string("the fused epilogue's bias pointer is null");
    if (p.fusion.residual && !a.residual) return std::string("the fused epilogue's residual pointer is null");
    return std::nullopt;
  }

  static std::size_t workspace_bytes(const grouped_conv_problem& p) {
    if constexpr (K.sig.dir == conv_direction::bwd_weight) {
      const int splits = host::conv::bwd_weight_splits(p, K.algo.tile.m, K.algo.tile.n);
      if (splits <= 1) return 0;
      const auto e = p.implicit_gemm();
      return std::size_t(splits) * std::size_t(p.g * e.m * e.n) * sizeof(float);
    } else {
      return 0;
    }
  }

  static status run(const grouped_conv_problem& p, const grouped_conv_args& a, void* /*stream*/) {
    if (auto why = why_not(p, a)) return status::error(*why);
    if constexpr (unsupported_key_reason() == nullptr) {
      namespace hc = host::conv;
      using data = host_storage_t<K.sig.in>;  // one dtype, except 8-bit forward (weights and output their own)
      using weights = host_storage_t<K.sig.wei>;
      using result = host_storage_t<K.sig.out>;
      constexpr int mr = K.algo.warp_tile.m, nr = K.algo.warp_tile.n;
      constexpr bool tf32 = K.sig.compute == dtype::tf32;  // operands rounded as a tensor core reads them
      const host::blocking blk{K.algo.tile.m, K.algo.tile.n, K.algo.tile.k};
      const hc::conv_geometry geo(p);
      const auto* in = static_cast<const data*>(a.in);
      const auto* wei = static_cast<const weights*>(a.wei);
      const auto* out = static_cast<const result*>(a.out);
      if constexpr (K.sig.dir == conv_direction::fwd) {
        const conv_fusion fuse = K.sig.fuse.dynamic ? p.fusion : K.sig.fuse;  // has_signature: equal unless dynamic
        const hc::fwd_operands<data, weights, result, float, tf32> ops(geo, in, wei, static_cast<result*>(a.out), fuse,
                                                                       static_cast<const result*>(a.bias),
                                                                       static_cast<const result*>(a.residual));
        hc::implicit_gemm<float, mr, nr, std::remove_cvref_t<decltype(ops)>>(ops, blk).run();
      } else if constexpr (K.sig.dir == conv_direction::bwd_data) {
        const hc::bwd_data_operands<data, data, data, float, tf32> ops(geo, out, wei, static_cast<data*>(a.in));
        hc::implicit_gemm<float, mr, nr, std::remove_cvref_t<decltype(ops)>>(ops, blk).run();
      } else {
        const hc::bwd_weight_operands<data, data, data, float, tf32> ops(geo, in, out, static_cast<data*>(a.wei));
        const std::size_t wanted = workspace_bytes(p);
        const bool split = wanted > 0 && a.workspace != nullptr && a.workspace_bytes >= wanted;
        const int splits = split ? hc::bwd_weight_splits(p, K.algo.tile.m, K.algo.tile.n) : 1;
        hc::implicit_gemm<float, mr, nr, std::remove_cvref_t<decltype(ops)>>(ops, blk, splits, split ? static_cast<float*>(a.workspace)
                                                                                 : nullptr)
            .run();
      }
    }
    return status::ok();
  }
};

}  // namespace kdecl::kernels
