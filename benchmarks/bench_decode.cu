// Paged decode attention against the memory bound and cuDNN, in one process on one GPU:
//   kdecl_bench_decode [--batch 1,8,64] [--kv 4096,32768] [--hq 32] [--hkv 8] [--d 128]
//                      [--page-size 16] [--splits auto|N] [--dtype bf16|fp16] [--reps 20] [--cudnn 0|1]
//                      [--cache fp8] [--prefill Q [--kernel NAME_PART]] [--stages N [--plan-per-sm B]] [--pages ordered]
//                      [--softcap CAP] [--sinks 1] [--flush write|read] [--cache-layout nhd|hnd]
// For every (batch, KV length): the kdecl split-KV decode over a paged cache whose
// pages are shuffled (random block table), a cudaMemcpy (device to device) of the
// same K+V bytes, and, when built with cuDNN, cuDNN's fused attention (SDPA) twice: on a
// contiguous cache of the same lengths (the same bytes read as [B, L, Hkv, D]) and through its
// paged attention over the same pages and block table (columns paged_us, vs_paged; since
// 2026-12-07, cudnn_paged_sdpa.hpp).
// Each launch is timed alone with events after a 256 MiB write that evicts L2 (the
// caches would otherwise fit in H100's 50 MB L2 at small sizes); ours, the copy and cuDNN's two
// are timed in turns (evicting_turns.cuh) (one launch of each per round, the order rotating; until 2026-12-07
// one after another; --prefill: the paged, forward and mma_sync kernels likewise), and the
// median of --reps launches of each is reported. --flush read evicts it with a 256 MiB read
// instead: the write leaves the L2 full of dirty lines, which the timed launch (ours, cuDNN's
// and the copy alike) writes back to DRAM while it brings its own bytes in. Bandwidths: decode =
// K+V+Q+O bytes / time; copy = 2 x K+V bytes / time (read and write); "% copy" = decode
// bandwidth / copy bandwidth.
// --prefill Q: batch_prefill instead (Q query tokens per sequence, causal, after a cached
// prefix): the paged dispatcher's choice (or the paged kernel whose name holds --kernel's
// value) against the forward dispatcher's on the same attention with contiguous K/V.
// A/B knobs for the decode kernel: --stages N (2 to 4, bf16 head dims 64 and 128) runs the
// decode kernel with an N-stage ring instead of the shipped one (planned for that kernel's
// occupancy; with --plan-per-sm B as if an SM held at most B of its blocks); --pages ordered keeps
// each sequence's pages in order (the default shuffles them). --cache-layout hnd stores a page's rows
// head by head ([page][Hkv][page rows][D], cuDNN's paged containers packed) instead of vLLM's
// [page][page rows][Hkv][D]: the same bytes for every kernel timed.
// --softcap CAP, --sinks 1: the logit soft-cap and sinks (random logits in [-1, 1]) on every kernel
// timed (prefill: the forward dispatcher's problem gets them too; the mma_sync direct entry point
// runs plain kernels only and is left out).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "check_cuda.hpp"
#include "int_list.hpp"
#include "kdecl/kernels/fmha/cuda/decode/paged_decode.cuh"
#include "kdecl/fmha/fmha_dispatcher.hpp"
#include "kdecl/fmha/fmha_paged_dispatcher.hpp"
#include "kdecl/kernels/fmha/cuda/decode/paged_direct.cuh"
#include "kdecl/kernels/fmha/cuda/decode/paged_prefill.cuh"
#include "evicting_turns.cuh"
#ifdef KDECL_WITH_CUDNN
#include "cudnn_paged_sdpa.hpp"
#include "cudnn_sdpa.hpp"
#include "kdecl/runtime/device.hpp"
#endif

namespace {

using namespace kdecl;
namespace dec = kdecl::kernels::cuda::decode;

#define CK(x) kdecl_bench::check_cuda((x), #x)

using kdecl_bench::parse_list;

// Random values in [-1, 1): 16-bit (bf16 or fp16) or, with fp8, e4m3 bytes.
__global__ void fill_random(void* out, std::size_t n, std::uint32_t seed, bool bf16, bool fp8 = false) {
  auto* x = static_cast<std::uint16_t*>(out);
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint32_t h = std::uint32_t(i) * 2654435761u ^ seed;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    const float f = float(h & 0xFFFF) / 32768.0f - 1.0f;
    if (fp8) {
      static_cast<__nv_fp8_e4m3*>(out)[i] = __nv_fp8_e4m3(f);
    } else if (bf16) {
      const __nv_bfloat16 b = __float2bfloat16(f);
      x[i] = *reinterpret_cast<const std::uint16_t*>(&b);
    } else {
      const __half b = __float2half(f);
      x[i] = *reinterpret_cast<const std::uint16_t*>(&b);
    }
  }
}

// --stages: the decode kernel with an N-stage ring (bf16, head dims 64 and 128), planned for
// its own occupancy, with a workspace of its own.
template <int N>
status run_decode_with_stages(const fmha_paged_problem& problem, const fmha_paged_args& args, void** workspace,
                              std::size_t* capacity, int* splits, int plan_per_sm) {
  const fmha_paged_problem p = problem.normalized();
  const int d = dec::decode_padded_hdim(p.hdim);
  if (p.qkv != dtype::bf16 || d > 128) return status::error("--stages: bf16 with head dims up to 128 only");
  int dev = 0, sms = 1;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  auto go = [&]<class Cache, int D>() {
    const int per_sm = dec::decode_blocks_per_sm<__nv_bfloat16, Cache, D, N>();
    const dec::decode_plan plan = dec::plan_paged_decode(p, sms, plan_per_sm > 0 ? std::min(plan_per_sm, per_sm) : per_sm);
    *splits = plan.splits;
    fmha_paged_args a = args;
    if (plan.workspace_bytes > *capacity) {
      if (*workspace) cudaFree(*workspace);
      CK(cudaMalloc(workspace, plan.workspace_bytes));
      *capacity = plan.workspace_bytes;
    }
    a.workspace = *workspace;
    a.workspace_bytes = *capacity;
    return dec::launch_paged_decode<__nv_bfloat16, Cache, D, N>(p, a, plan, nullptr);
  };
  if (p.fp8_cache()) return d == 64 ? go.template operator()<__nv_fp8_e4m3, 64>() : go.template operator()<__nv_fp8_e4m3, 128>();
  return d == 64 ? go.template operator()<__nv_bfloat16, 64>() : go.template operator()<__nv_bfloat16, 128>();
}

status run_decode_with_stages(int stages, const fmha_paged_problem& p, const fmha_paged_args& a, void** ws,
                              std::size_t* capacity, int* splits, int plan_per_sm) {
  switch (stages) {
    case 2: return run_decode_with_stages<2>(p, a, ws, capacity, splits, plan_per_sm);
    case 3: return run_decode_with_stages<3>(p, a, ws, capacity, splits, plan_per_sm);
    case 4: return run_decode_with_stages<4>(p, a, ws, capacity, splits, plan_per_sm);
    default: return status::error("--stages takes 2 to 4");
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<long> batches{1, 8, 64}, kvs{4096, 32768};
  long hq = 32, hkv = 8, d = 128, page = 16, splits = 0, reps = 20, with_cudnn = 1;
  dtype dt = dtype::bf16;
  bool fp8 = false;
  long prefill = 0;  // > 0: batch_prefill with this many query tokens per sequence (the last keys)
  std::string kernel_filter;  // --prefill: time the paged kernel whose name holds this (default: the dispatcher's)
  int stages = 0;              // --stages N: the decode kernel with an N-stage ring (A/B), 0: the shipped kernel
  bool ordered_pages = false;  // --pages ordered: each sequence's pages in order
  bool heads_outer = false;    // --cache-layout hnd: a page holds each KV head's rows together
  float soft_cap = 0.0f;       // --softcap CAP
  bool sinks = false;          // --sinks 1
  bool flush_read = false;     // --flush read: L2 evicted by a read sweep (clean lines) before each launch
  int plan_per_sm = 0;         // --stages N --plan-per-sm B: plan the splits as if an SM held at most B blocks
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const char* v = argv[i + 1];
    if (k == "--batch") batches = parse_list(v);
    else if (k == "--kv") kvs = parse_list(v);
    else if (k == "--hq") hq = std::atol(v);
    else if (k == "--hkv") hkv = std::atol(v);
    else if (k == "--d") d = std::atol(v);
    else if (k == "--page-size") page = std::atol(v);
    else if (k == "--splits") splits = std::string(v) == "auto" ? 0 : std::atol(v);
    else if (k == "--reps") reps = std::atol(v);
    else if (k == "--cudnn") with_cudnn = std::atol(v);
    else if (k == "--cache") fp8 = std::string(v) == "fp8";
    else if (k == "--prefill") prefill = std::atol(v);
    else if (k == "--kernel") kernel_filter = v;
    else if (k == "--stages") stages = std::atoi(v);
    else if (k == "--pages") ordered_pages = std::string(v) == "ordered";
    else if (k == "--cache-layout") heads_outer = std::string(v) == "hnd";
    else if (k == "--dtype") dt = std::string(v) == "fp16" ? dtype::fp16 : dtype::bf16;
    else if (k == "--softcap") soft_cap = float(std::atof(v));
    else if (k == "--sinks") sinks = std::atol(v) != 0;
    else if (k == "--flush") flush_read = std::string(v) == "read";
    else if (k == "--plan-per-sm") plan_per_sm = std::atoi(v);
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  if (reps < 1) {
    std::fprintf(stderr, "--reps %ld: at least one timed launch per candidate is needed\n", reps);
    return 2;
  }
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs; Hq %ld, Hkv %ld, D %ld, page %ld, %s%s, splits %s%s%s\n", prop.name,
              prop.multiProcessorCount, hq, hkv, d, page, dt == dtype::bf16 ? "bf16" : "fp16",
              fp8 ? " with an fp8 (e4m3) cache" : "",
              splits ? std::to_string(splits).c_str() : "auto",
              soft_cap > 0.0f ? (", soft-cap " + std::to_string(soft_cap)).c_str() : "", sinks ? ", sinks" : "");
  std::printf("each launch after a 256 MiB %s (L2 left %s)\n", flush_read ? "read" : "write", flush_read ? "clean" : "dirty");
  if (prefill > 0)
    std::printf("batch_prefill, %ld query tokens per sequence, causal: the paged dispatcher's choice over shuffled "
                "pages vs the forward dispatcher's on the same attention with contiguous varlen K/V (ratio: forward "
                "time / paged time), and the mma_sync prefill over the same pages\n%6s %7s %7s %11s %13s %9s %9s %11s  %s\n",
                prefill, "batch", "kv", "q", "paged_us", "forward_us", "ratio", "TFLOP/s", "mma_sync_us",
                "paged kernel | forward kernel");
  else
    std::printf("%6s %7s %7s %10s %9s %10s %9s %7s %10s %9s %8s %10s %8s\n", "batch", "kv", "splits", "kdecl_us",
                "kdecl_GBs", "copy_us", "copy_GBs", "%copy", "cudnn_us", "cudnn_GBs", "vs_cudnn", "paged_us", "vs_paged");
  kdecl::bench::evicting_turns tm(flush_read);
  // A CUDA error while timing: say so and stop (exit status 1, as CK does).
  auto medians_in_turns = [&](int n, const std::vector<std::function<void()>>& fns) {
    try {
      return tm.medians(n, fns);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "timing: %s\n", e.what());
      std::exit(1);
    }
  };
  dec::paged_decoder decoder;
  for (long batch : batches)
    for (long kv : kvs) {
      const long pages_per_seq = (kv + page - 1) / page;
      fmha_paged_problem p;
      p.family = fmha_family::fwd_splitkv;
      p.batch = batch;
      p.heads_q = hq;
      p.heads_kv = hkv;
      p.hdim = d;
      p.qkv = dt;
      p.page_size = page;
      p.num_pages = batch * pages_per_seq;
      p.max_pages_per_seq = pages_per_seq;
      p.seqlens_kv.assign(std::size_t(batch), std::int32_t(kv));
      p.splits = int(splits);
      p.soft_cap = soft_cap;
      p.sinks = sinks;
      if (heads_outer)  // [page][head][row][d] (the default, packed: [page][row][head][d])
        p.k_strides = p.v_strides = paged_cache_strides{page * hkv * d, d, page * d};
      if (fp8) p.cache = dtype::fp8;
      if (prefill > 0) {
        p.family = fmha_family::batch_prefill;
        p.mask = fmha_mask::bottom_right;
        for (long b = 0; b <= batch; ++b) p.cu_seqlens_q.push_back(std::int32_t(b * std::min(prefill, kv)));
      }
      if (auto e = p.validate()) {
        std::printf("invalid: %s\n", e->c_str());
        continue;
      }
      const std::size_t cache_elems = std::size_t(p.num_pages) * page * hkv * d;
      const std::size_t cache_bytes = cache_elems * (fp8 ? 1 : 2);
      std::size_t free_b = 0, total_b = 0;
      CK(cudaMemGetInfo(&free_b, &total_b));
      if (4 * cache_bytes + (std::size_t(1) << 30) > free_b) {
        std::printf("%6ld %7ld  skipped: %.1f GB of cache does not fit three times\n", batch, kv, 2.0 * cache_bytes / 1e9);
        continue;
      }
      std::vector<std::int32_t> table(std::size_t(p.num_pages));
      std::iota(table.begin(), table.end(), 0);
      if (!ordered_pages) std::shuffle(table.begin(), table.end(), std::mt19937_64(7));
      void *k, *v, *q, *o, *tbl, *lens, *copy_dst;
      CK(cudaMalloc(&k, cache_bytes));
      CK(cudaMalloc(&v, cache_bytes));
      CK(cudaMalloc(&copy_dst, 2 * cache_bytes));
      const std::size_t q_elems = std::size_t(p.total_q()) * hq * d;
      CK(cudaMalloc(&q, q_elems * 2));
      CK(cudaMalloc(&o, q_elems * 2));
      CK(cudaMalloc(&tbl, table.size() * 4));
      CK(cudaMalloc(&lens, std::size_t(batch) * 4));
      CK(cudaMemcpy(tbl, table.data(), table.size() * 4, cudaMemcpyHostToDevice));
      CK(cudaMemcpy(lens, p.seqlens_kv.data(), std::size_t(batch) * 4, cudaMemcpyHostToDevice));
      fill_random<<<1024, 256>>>(k, cache_elems, 1, dt == dtype::bf16, fp8);
      fill_random<<<1024, 256>>>(v, cache_elems, 2, dt == dtype::bf16, fp8);
      fill_random<<<1024, 256>>>(q, q_elems, 3, dt == dtype::bf16);
      float* scales = nullptr;  // k_scale, v_scale (per tensor)
      const float one[2] = {1.0f, 1.0f};
      CK(cudaMalloc(&scales, sizeof one));
      CK(cudaMemcpy(scales, one, sizeof one, cudaMemcpyHostToDevice));
      CK(cudaDeviceSynchronize());

      fmha_paged_args a;
      a.q = q;
      a.o = o;
      a.k_cache = k;
      a.v_cache = v;
      a.block_table = static_cast<const std::int32_t*>(tbl);
      a.seqlens_kv = static_cast<const std::int32_t*>(lens);
      a.k_scale = scales;
      a.v_scale = scales + 1;
      float* sink_logits = nullptr;
      if (sinks) {
        std::vector<float> logits(static_cast<std::size_t>(hq));
        std::mt19937_64 rng(11);
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        for (auto& x : logits) x = u(rng);
        CK(cudaMalloc(&sink_logits, logits.size() * sizeof(float)));
        CK(cudaMemcpy(sink_logits, logits.data(), logits.size() * sizeof(float), cudaMemcpyHostToDevice));
        a.sinks = sink_logits;
      }
      if (prefill > 0) {
        std::vector<std::int32_t> cu_kv;
        for (long b = 0; b <= batch; ++b) cu_kv.push_back(std::int32_t(b * kv));
        void *dcu_q, *dcu_kv;
        CK(cudaMalloc(&dcu_q, cu_kv.size() * 4));
        CK(cudaMalloc(&dcu_kv, cu_kv.size() * 4));
        CK(cudaMemcpy(dcu_q, p.cu_seqlens_q.data(), cu_kv.size() * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dcu_kv, cu_kv.data(), cu_kv.size() * 4, cudaMemcpyHostToDevice));
        a.cu_seqlens_q = static_cast<const std::int32_t*>(dcu_q);
        // The paged dispatcher's choice (on sm_90 the tma_wgmma_ws kernel loading pages through TMA),
        // the mma_sync prefill over the same pages, and the forward dispatcher's choice on the same
        // attention with K/V contiguous (the pool read as [batch x kv, Hkv, D] varlen K/V): the issue's
        // "prefill into a paged cache against the forward kernel on the same non-paged problem".
        const fmha_paged_dispatcher paged_dispatcher(kdecl::default_device());
        const fmha_dispatcher forward_dispatcher(kdecl::default_device());
        const long qn = std::min(prefill, kv);
        fmha_problem fp;
        fp.heads(hq, hkv).head_dim(d).dtype(dt).causal(fmha_mask::bottom_right).logits_soft_cap(soft_cap).with_sinks(sinks);
        fp.varlen(std::vector<std::int32_t>(std::size_t(batch), std::int32_t(qn)),
                  std::vector<std::int32_t>(std::size_t(batch), std::int32_t(kv)));
        fmha_args fa;
        fa.q = q;
        fa.k = k;
        fa.v = v;
        fa.o = o;
        fa.cu_seqlens_q = static_cast<const std::int32_t*>(dcu_q);
        fa.cu_seqlens_kv = static_cast<const std::int32_t*>(dcu_kv);
        fa.sinks = sink_logits;
        const auto paged_sel = paged_dispatcher.select(p, &a);
        const auto forward_sel = forward_dispatcher.select(fp, &fa);
        auto report = [](const status& st, const char* who) {
          if (!st.is_ok()) std::printf("%s failed: %s\n", who, st.message().c_str());
        };
        // --kernel SUBSTRING: the first kernel the paged dispatcher ranks whose name holds it (A/B runs).
        std::shared_ptr<const fmha_paged_instance> forced;
        if (!kernel_filter.empty())
          for (const auto& [k, us] : paged_dispatcher.ranked(p, &a))
            if (!forced && k->name().find(kernel_filter) != std::string::npos) forced = k;
        if (!kernel_filter.empty() && !forced) std::printf("no paged kernel named *%s* runs this problem\n", kernel_filter.c_str());
        const auto& paged_name = forced ? forced->name() : paged_sel ? paged_sel.kernel->name() : std::string("-");
        const bool plain = soft_cap <= 0.0f && !sinks;  // the direct entry point runs the plain kernels
        std::vector<std::function<void()>> turns = {
            [&] { report(forced ? forced->run_paged(p, a, nullptr) : paged_dispatcher.run(p, a), "paged prefill"); },
            [&] { report(forward_dispatcher.run(fp, fa), "forward"); }};
        if (plain) turns.push_back([&] { report(dec::run_paged_prefill(p, a, nullptr), "mma_sync prefill"); });
        const std::vector<double> medians = medians_in_turns(int(reps), turns);
        const double paged = medians[0], forward = medians[1], mma = plain ? medians[2] : 0.0;
        // Causal pairs per sequence: qn queries over kv keys, bottom-right.
        const double pairs = double(qn) * double(kv - qn) + double(qn) * double(qn + 1) / 2.0;
        const double flops = 4.0 * double(batch) * double(hq) * double(d) * pairs;
        std::printf("%6ld %7ld %7ld %11.1f %13.1f %8.2fx %9.1f %11.1f  %s | %s\n", batch, kv, qn, paged * 1e3,
                    forward * 1e3, forward / paged, flops / (paged * 1e9), mma * 1e3,
                    paged_name.c_str(),
                    forward_sel ? forward_sel.kernel->name().c_str() : "-");
        std::fflush(stdout);
        cudaFree(dcu_q);
        cudaFree(dcu_kv);
        cudaFree(k);
        cudaFree(v);
        cudaFree(copy_dst);
        cudaFree(q);
        cudaFree(o);
        cudaFree(tbl);
        cudaFree(lens);
        cudaFree(scales);
        cudaFree(sink_logits);
        continue;
      }
      auto plan = decoder.plan(p);
      bool failed = false;
      void* stages_workspace = nullptr;
      std::size_t stages_capacity = 0;
      std::vector<std::function<void()>> turns;
      turns.push_back([&] {  // ours
        const status st = stages > 0 ? run_decode_with_stages(stages, p, a, &stages_workspace, &stages_capacity, &plan.splits,
                                                              plan_per_sm)
                                     : decoder.run(p, a);
        if (!st.is_ok() && !failed) {
          std::printf("kdecl failed: %s\n", st.message().c_str());
          failed = true;
        }
      });
      turns.push_back([&] {  // the copy of the same K+V bytes
        CK(cudaMemcpyAsync(copy_dst, k, cache_bytes, cudaMemcpyDeviceToDevice));
        CK(cudaMemcpyAsync(static_cast<char*>(copy_dst) + cache_bytes, v, cache_bytes, cudaMemcpyDeviceToDevice));
      });
      // cuDNN twice, in the same turns: on a contiguous cache of the same lengths (the pool's bytes read
      // as [B, L, Hkv, D]; the issue's bar) and through its paged attention over the same pages and
      // block table (like for like). A note says why one is not timed (or how it failed).
      std::string cudnn_note, paged_note;
      int cudnn_turn = -1, paged_turn = -1;
#ifdef KDECL_WITH_CUDNN
      std::optional<kdecl::device> cudnn_device;  // outlives the graphs, which were built on it
      std::unique_ptr<kdecl::cli::cudnn_sdpa> sdpa;
      std::unique_ptr<kdecl::cli::cudnn_paged_sdpa> paged_sdpa;
      fmha_args ca;
      if (!with_cudnn || fp8 || soft_cap > 0.0f || sinks)
        cudnn_note = fp8 ? "not timed for an fp8 cache" : with_cudnn ? "not timed with a soft-cap or sinks" : "not asked (--cudnn 0)";
      else try {
        fmha_problem cp;
        cp.sizes(batch, 1, kv).heads(hq, hkv).head_dim(d).dtype(dt);
        cp = cp.normalized();
        cudnn_device.emplace(kdecl::default_device());
        sdpa = std::make_unique<kdecl::cli::cudnn_sdpa>(*cudnn_device, cp);
        ca.q = q;
        ca.k = k;  // the same bytes, read as a contiguous [B, L, Hkv, D] cache
        ca.v = v;
        ca.o = o;
        cudnn_turn = int(turns.size());
        turns.push_back(kdecl::bench::noted_turn(cudnn_note, [&] { sdpa->run(ca); }));
      } catch (const std::exception& e) {
        cudnn_note = e.what();
      }
      const fmha_paged_problem np = p.normalized();
      if (!with_cudnn) paged_note = "not asked (--cudnn 0)";
      else if (auto why = kdecl::cli::cudnn_paged_sdpa::unsupported(np)) paged_note = *why;
      else try {
        if (!cudnn_device) cudnn_device.emplace(kdecl::default_device());
        paged_sdpa = std::make_unique<kdecl::cli::cudnn_paged_sdpa>(*cudnn_device, np);
        paged_turn = int(turns.size());
        turns.push_back(kdecl::bench::noted_turn(paged_note, [&] { paged_sdpa->run(a); }));
      } catch (const std::exception& e) {
        paged_note = e.what();
      }
#else
      cudnn_note = paged_note = "built without cuDNN";
#endif
      const std::vector<double> medians = medians_in_turns(int(reps), turns);
      const double ours = medians[0], copy = medians[1];
      // A turn whose graph failed while timed has a note: not timed.
      const double cudnn_ms = cudnn_turn >= 0 && cudnn_note.empty() ? medians[std::size_t(cudnn_turn)] : 0.0;
      const double paged_ms = paged_turn >= 0 && paged_note.empty() ? medians[std::size_t(paged_turn)] : 0.0;
      const double bytes = p.bytes();
      const double ours_gbs = bytes / (ours * 1e6), copy_gbs = 2.0 * 2.0 * cache_bytes / (copy * 1e6);
      std::printf("%6ld %7ld %7d %10.1f %9.0f %10.1f %9.0f %6.1f%%", batch, kv, plan.splits, ours * 1e3, ours_gbs,
                  copy * 1e3, copy_gbs, 100.0 * ours_gbs / copy_gbs);
      if (cudnn_ms > 0)
        std::printf(" %10.1f %9.0f %7.2fx", cudnn_ms * 1e3, bytes / (cudnn_ms * 1e6), cudnn_ms / ours);
      else
        std::printf(" %10s %9s %8s", "-", "-", "-");
      if (paged_ms > 0) std::printf(" %10.1f %7.2fx", paged_ms * 1e3, paged_ms / ours);
      else std::printf(" %10s %8s", "-", "-");
      if (!cudnn_note.empty()) std::printf("  cuDNN: %s", cudnn_note.c_str());
      if (!paged_note.empty()) std::printf("  cuDNN paged: %s", paged_note.c_str());
      std::printf("\n");
      std::fflush(stdout);
      if (stages_workspace) cudaFree(stages_workspace);
      cudaFree(k);
      cudaFree(v);
      cudaFree(copy_dst);
      cudaFree(q);
      cudaFree(o);
      cudaFree(tbl);
      cudaFree(lens);
      cudaFree(scales);
      cudaFree(sink_logits);
    }
  return 0;
}
