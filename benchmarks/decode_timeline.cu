// Where a split-KV decode's time goes: the decode kernels built with their %globaltimer stamps
// (KDECL_DECODE_TIMELINE, kernels/fmha/cuda/decode/decode_timeline.cuh), one launch per problem
// after the L2 is evicted (a 256 MiB write, as kdecl_bench_decode; `--flush read` reads it), and
// per phase the spread over the blocks: when each split block started, when its first copies
// were issued (its first page-table read back), when its first tile landed, when its loop and its
// merge ended; when the combine's blocks started, passed griddepcontrol.wait, had their partial
// rows and finished. Links no shipped instances (they hold the same kernels without stamps).
//   kdecl_decode_timeline [--batch 1,8] [--kv 4096,32768] [--flush write|read]
// Hq 32, Hkv 8, head dim 128, bf16, pages of 16 rows in random order, splits as planned.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "check_cuda.hpp"
#include "int_list.hpp"
#include "kdecl/kernels/fmha/cuda/decode/paged_direct.cuh"
#include "kdecl/numeric/host_storage.hpp"
#include "kdecl/runtime/buffer.hpp"
#include "kdecl/runtime/device.hpp"
#include "kdecl/runtime/fmha_paged_case.hpp"
#include "l2_evict.cuh"

#ifndef KDECL_DECODE_TIMELINE
#error "build with KDECL_DECODE_TIMELINE (the kdecl_decode_timeline target)"
#endif

namespace {

namespace dec = kdecl::kernels::cuda::decode;
using bf16 = kdecl::host_storage_t<kdecl::dtype::bf16>;
using stamps = unsigned long long[2][dec::decode_timeline_max_blocks][dec::dm_marks];

#define CK(x) kdecl_bench::check_cuda((x), #x)

// min / median / max of (b - a) over the blocks that stamped both, in microseconds.
void spread(const char* what, const std::vector<std::pair<double, double>>& ab) {
  std::vector<double> d;
  for (auto [a, b] : ab)
    if (a > 0 && b > 0) d.push_back((b - a) * 1e-3);
  if (d.empty()) return;
  std::sort(d.begin(), d.end());
  std::printf("    %-44s min %7.2f  median %7.2f  max %7.2f us  (%zu blocks)\n", what, d.front(), d[d.size() / 2],
              d.back(), d.size());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<long> batches{1, 8}, kvs{4096, 32768};
  bool flush_read = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--batch") batches = kdecl_bench::parse_list(argv[i + 1]);
    else if (k == "--kv") kvs = kdecl_bench::parse_list(argv[i + 1]);
    else if (k == "--flush") flush_read = std::string(argv[i + 1]) == "read";
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  const std::size_t flush_bytes = std::size_t(256) << 20;
  const kdecl::device dev = kdecl::default_device();
  kdecl::buffer flush(dev, flush_bytes);
  flush.fill_bytes(0x3C);
  auto* host = new stamps[1];
  dec::paged_decoder decoder;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (long batch : batches)
    for (long kv : kvs) {
      kdecl::test::paged_config cfg;  // Hq 32, Hkv 8, D 128, page 16
      cfg.family = kdecl::fmha_family::fwd_splitkv;
      cfg.lengths.assign(std::size_t(batch), std::int32_t(kv));
      auto c = kdecl::test::make_paged_case<bf16>(cfg, kdecl::dtype::bf16);
      const auto p = c.p.normalized();
      auto on_device = [&]<class T>(const std::vector<T>& v) {
        kdecl::buffer b(dev, std::max<std::size_t>(16, v.size() * sizeof(T)));
        b.upload(v);
        return b;
      };
      kdecl::buffer q = on_device(c.q), kc = on_device(c.k_cache), vc = on_device(c.v_cache), table = on_device(c.table),
                    seqlens = on_device(c.p.seqlens_kv), o(dev, c.q.size() * sizeof(bf16)),
                    lse(dev, std::size_t(batch * p.heads_q) * sizeof(float));
      kdecl::fmha_paged_args a;
      a.q = q.data();
      a.k_cache = kc.data();
      a.v_cache = vc.data();
      a.block_table = static_cast<const std::int32_t*>(table.data());
      a.seqlens_kv = static_cast<const std::int32_t*>(seqlens.data());
      a.o = o.data();
      a.lse = static_cast<float*>(lse.data());
      auto run = [&] {
        const auto st = decoder.run(p, a);
        if (st.is_ok()) return;
        std::fprintf(stderr, "decode: %s\n", st.message().c_str());
        std::exit(1);
      };
      for (int w = 0; w < 3; ++w) run();
      CK(cudaDeviceSynchronize());
      std::fill(&host[0][0][0][0], &host[0][0][0][0] + sizeof(stamps) / sizeof(unsigned long long), 0ull);
      CK(cudaMemcpyToSymbol(dec::kdecl_decode_timeline, host, sizeof(stamps)));
      CK(kdecl::bench::evict_l2(flush.data(), flush_bytes, flush_read));
      CK(cudaEventRecord(e0));
      run();
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      CK(cudaMemcpyFromSymbol(host, dec::kdecl_decode_timeline, sizeof(stamps)));
      const auto plan = decoder.plan(p);
      const int split_blocks = plan.blocks, combine_blocks = plan.splits > 1 ? int(batch * p.heads_q) : 0;
      auto at = [&](int k, int b, int m) { return double(host[0][k][b][m]); };
      double t0 = 1e300, last_split = 0, last_combine = 0;
      for (int b = 0; b < split_blocks; ++b) {
        if (at(0, b, dec::dm_entry) > 0) t0 = std::min(t0, at(0, b, dec::dm_entry));
        last_split = std::max(last_split, at(0, b, dec::dm_exit));
      }
      for (int b = 0; b < combine_blocks; ++b) last_combine = std::max(last_combine, at(1, b, dec::dm_exit));
      std::printf("batch %ld x %ld keys: %d splits, %d split blocks, %d combine blocks; events %.1f us (L2 %s); "
                  "first split block start to last split exit %.2f us, to last combine exit %.2f us\n",
                  batch, kv, plan.splits, split_blocks, combine_blocks, ms * 1e3, flush_read ? "clean" : "dirty",
                  (last_split - t0) * 1e-3, combine_blocks ? (last_combine - t0) * 1e-3 : 0.0);
      std::vector<std::pair<double, double>> v;
      auto phase = [&](const char* what, int k, int blocks, int from, int to, bool from_t0 = false) {
        v.clear();
        for (int b = 0; b < blocks; ++b) v.push_back({from_t0 ? t0 : at(k, b, from), at(k, b, to)});
        spread(what, v);
      };
      phase("split: start (after the first block's)", 0, split_blocks, 0, dec::dm_entry, true);
      phase("split: start -> first copies issued", 0, split_blocks, dec::dm_entry, dec::dm_copies);
      phase("split: first copies -> first tile landed", 0, split_blocks, dec::dm_copies, dec::dm_first_tile);
      phase("split: first tile -> loop done", 0, split_blocks, dec::dm_first_tile, dec::dm_loop_done);
      phase("split: loop done -> merged, written", 0, split_blocks, dec::dm_loop_done, dec::dm_exit);
      phase("split: exit (after the first block's start)", 0, split_blocks, 0, dec::dm_exit, true);
      if (combine_blocks) {
        phase("combine: start (after the first split block's)", 1, combine_blocks, 0, dec::dm_entry, true);
        v.clear();
        for (int b = 0; b < combine_blocks; ++b) v.push_back({last_split, at(1, b, dec::dm_first_tile)});
        spread("combine: last split exit -> wait passed", v);
        phase("combine: wait passed -> partial rows staged", 1, combine_blocks, dec::dm_first_tile, dec::dm_loop_done);
        phase("combine: staged -> written", 1, combine_blocks, dec::dm_loop_done, dec::dm_exit);
      }
      std::vector<int> per_sm(1024, 0);
      for (int b = 0; b < split_blocks; ++b)
        if (host[0][0][b][dec::dm_smid] > 0) ++per_sm[std::size_t(host[0][0][b][dec::dm_smid] - 1) % per_sm.size()];
      int most = 0, used = 0;
      for (int n : per_sm) {
        most = std::max(most, n);
        used += n > 0;
      }
      std::printf("    split blocks on %d SMs, at most %d on one\n", used, most);
      std::fflush(stdout);
    }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  delete[] host;
  return 0;
}
