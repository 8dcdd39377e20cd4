// The plan of a paged decode on a CUDA device (pure C++, so that host tests check it):
// one stage or split-KV, and how many splits, from the problem, the SM count and the
// blocks one SM runs at once. The kernel itself is paged_decode.cuh.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "kdecl/arch/fmha_specs.hpp"
#include "kdecl/fmha/paged_kv.hpp"

namespace kdecl::kernels::cuda::decode {

inline constexpr int decode_block_keys = 64;  // keys per tile of the decode kernel

struct decode_plan {
  int splits = 1;
  int padded_hdim = 0;  // the kernel's head dim: 64, 128 or 256
  int row_groups = 1;
  int blocks = 0;       // blocks of the first stage
  std::size_t workspace_bytes = 0;
};

inline int decode_padded_hdim(std::int64_t hdim) { return hdim <= 64 ? 64 : hdim <= 128 ? 128 : 256; }

// The K/V ring depth of the decode kernel when its key names none, and its shared memory for
// padded head dim d (decode_traits::smem_bytes asserts they agree): the arch table's formulas
// (arch/fmha_specs.hpp paged_decode_default_stages, paged_decode_smem_bytes), the one source.
constexpr int decode_default_stages(int d, bool fp8_cache) { return arch::fmha::paged_decode_default_stages(d, fp8_cache); }
constexpr int decode_smem_bytes(int d, bool fp8_cache, int stages) {
  return int(arch::fmha::paged_decode_smem_bytes(d, fp8_cache, stages));
}
constexpr int decode_smem_bytes(int d, bool fp8_cache) {
  return decode_smem_bytes(d, fp8_cache, decode_default_stages(d, fp8_cache));
}

// Decode blocks one SM holds, without a device to ask: what the occupancy API answers
// for blocks of `smem_bytes` on an SM whose blocks may take `smem_capacity` bytes each
// (the arch table's paged_decode offer: 227 KiB on sm_90), where the SM has 1 KiB more
// than that and the driver reserves 1 KiB per block. At most 16.
constexpr int decode_blocks_per_sm_offline(int smem_bytes, int smem_capacity) {
  const int blocks = (smem_capacity + 1024) / (smem_bytes + 1024);
  return blocks < 1 ? 1 : blocks > 16 ? 16 : blocks;
}

// Under one wave, splits are planned for at most this many blocks per SM, whatever the occupancy
// allows: the split kernel waits on its own latencies, and a third block per SM brought more
// splits (more partial rows to combine) rather than more bandwidth. Measured on an H100
// (docs/perf/h100-2026-12-07-decode-cluster-combine, call C): against planning for 3, batch 1 at 8k
// to 32k keys 3-7% faster, batches 2 to 32 within -1.3% to +5%.
inline constexpr int decode_split_blocks_per_sm = 2;

// Splits for a (normalized, valid) problem on a device with `sms` SMs that runs
// `per_sm` decode blocks at once. Under 80% of one wave of (sequence, KV head, row
// group) blocks: the fewest splits whose wave efficiency on sms x min(per_sm,
// decode_split_blocks_per_sm) slots is within 85% of the best (FlashAttention's rule), each
// at least two 64-key tiles long. One to three waves:
// the last wave may run mostly empty (512 blocks on 396 slots leave the second wave a
// third full, 0.65 of the device busy), so the keys are split (at most 8 ways, each
// split at least 8 tiles, so the partial outputs and the combine stay small) where that
// evens the waves out: the fewest splits within 97% of the best efficiency. From three
// waves on, one stage (blocks that start late even out the tail). fwd_pagedkv is always
// one stage, a problem's explicit splits are kept.
inline decode_plan plan_paged_decode(const fmha_paged_problem& p, int sms, int per_sm) {
  decode_plan plan;
  plan.padded_hdim = decode_padded_hdim(p.hdim);
  plan.row_groups = int((p.group() * p.seqlen_q + 15) / 16);
  const std::int64_t base = p.batch * p.heads_kv * plan.row_groups;
  std::int64_t splits = 1;
  if (p.family == fmha_family::fwd_splitkv) {
    if (p.splits > 0) {
      splits = p.splits;
    } else {
      // One stage when the blocks fill 80% of a wave of per_sm blocks per SM; splits fill
      // that wave (on an H200, filling one block per SM instead was slower: docs/fmha_serving.md).
      const std::int64_t capacity = std::int64_t(sms) * std::max(1, per_sm);
      const std::int64_t tiles = (p.max_seqlen_kv() + 63) / 64;
      // Splits are whole tiles: s splits of the longest sequence are really
      // ceil(tiles / ceil(tiles / s)) non-empty ones.
      auto effective = [&](std::int64_t s) {
        const std::int64_t per = (tiles + s - 1) / s;
        return (tiles + per - 1) / per;
      };
      // Wave efficiency of s splits on `slots` blocks at once: blocks / (waves * slots).
      auto efficiency = [&](std::int64_t s, std::int64_t slots) {
        const std::int64_t n = base * effective(s), waves = (n + slots - 1) / slots;
        return double(n) / double(waves * slots);
      };
      // The fewest splits up to `most` within `share` of the best efficiency.
      auto fewest_within = [&](std::int64_t most, double share, std::int64_t slots) {
        double best = 0.0;
        for (std::int64_t s = 1; s <= most; ++s) best = std::max(best, efficiency(s, slots));
        for (std::int64_t s = 1; s <= most; ++s)
          if (efficiency(s, slots) >= share * best) return effective(s);
        return std::int64_t(1);
      };
      // Under one wave the splits fill at most decode_split_blocks_per_sm blocks per SM.
      const std::int64_t split_slots = std::int64_t(sms) * std::clamp(per_sm, 1, decode_split_blocks_per_sm);
      if (base > 0 && base * 5 < capacity * 4)
        splits = fewest_within(std::min<std::int64_t>(std::max<std::int64_t>(1, tiles / 2), paged_max_splits), 0.85,
                               split_slots);
      else if (base > 0 && base < 3 * capacity)
        splits = fewest_within(std::clamp<std::int64_t>(tiles / 8, 1, 8), 0.97, capacity);
    }
  }
  plan.splits = int(splits);
  plan.blocks = int(std::min<std::int64_t>(base * splits, std::numeric_limits<int>::max()));
  if (splits > 1)
    plan.workspace_bytes = std::size_t(p.batch * p.heads_q * p.seqlen_q) * std::size_t(splits) *
                           std::size_t(p.hdim + 1) * sizeof(float);
  return plan;
}

}  // namespace kdecl::kernels::cuda::decode
