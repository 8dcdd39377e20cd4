// The CUDA side of kdecl select|run|bench fmha --paged (fmha_paged_command.hpp): the
// decoder's plan on the current device, a checked run, and the timing against a
// cudaMemcpy of the same K+V bytes and cuDNN's SDPA on a contiguous cache and through its
// paged attention over the same pages (as benchmarks/bench_decode.cu, which also times the
// fp8 cache and batch_prefill), all in turns, each launch after an L2 eviction.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <cstdarg>

#include "fmha_paged_command.hpp"
#include "kdecl/fmha/fmha_paged_dispatcher.hpp"
#include "kdecl/kernels/fmha/cuda/decode/paged_decode.cuh"
#include "kdecl/runtime/device.hpp"
#include "kdecl/kernels/fmha/host/fmha_paged_host.hpp"
#include "kdecl/numeric/host_storage.hpp"
#include "kdecl/runtime/fmha_paged_case.hpp"
#include "evicting_turns.cuh"
#if KDECL_WITH_CUDNN_FRONTEND
#include "cudnn_paged_sdpa.hpp"
#include "cudnn_sdpa.hpp"
#endif

namespace kdecl::cli {
namespace {

namespace dec = kernels::cuda::decode;

// printf-style formatting (this file avoids {fmt}: nvcc's host pass rejects its compile-time checks).
std::string strf(const char* format, ...) {
  char buf[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(strf("%s: %s", what, cudaGetErrorString(e)));
}

struct device_memory {
  void* ptr = nullptr;
  explicit device_memory(std::size_t bytes) { check_cuda(cudaMalloc(&ptr, std::max<std::size_t>(bytes, 16)), "cudaMalloc"); }
  template <class T>
  explicit device_memory(const std::vector<T>& v) : device_memory(v.size() * sizeof(T)) {
    if (!v.empty()) check_cuda(cudaMemcpy(ptr, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~device_memory() { cudaFree(ptr); }
  device_memory(const device_memory&) = delete;
  device_memory& operator=(const device_memory&) = delete;
};

template <class T>
paged_gpu_check check_typed(const fmha_paged_problem& p, std::uint64_t seed) {
  auto c = test::make_paged_case<T>(test::paged_config_of(p, seed), p.qkv);
  const std::size_t rows = std::size_t(c.p.total_q() * c.p.heads_q);  // LSE values (batch_prefill: [Hq, total_q])
  device_memory q(c.q), k(c.p.fp8_cache() ? std::vector<std::uint8_t>(reinterpret_cast<const std::uint8_t*>(c.k8.data()),
                                                                          reinterpret_cast<const std::uint8_t*>(c.k8.data()) + c.k8.size())
                                          : std::vector<std::uint8_t>(reinterpret_cast<const std::uint8_t*>(c.k_cache.data()),
                                                                      reinterpret_cast<const std::uint8_t*>(c.k_cache.data() + c.k_cache.size()))),
      v(c.p.fp8_cache() ? std::vector<std::uint8_t>(reinterpret_cast<const std::uint8_t*>(c.v8.data()),
                                                    reinterpret_cast<const std::uint8_t*>(c.v8.data()) + c.v8.size())
                        : std::vector<std::uint8_t>(reinterpret_cast<const std::uint8_t*>(c.v_cache.data()),
                                                    reinterpret_cast<const std::uint8_t*>(c.v_cache.data() + c.v_cache.size()))),
      table(c.table), offsets(c.p.page_offsets), lens(c.p.seqlens_kv), sinks(c.sinks), ks(c.k_scale), vs(c.v_scale),
      o(c.q.size() * sizeof(T)), lse(rows * sizeof(float)), cu_q(c.p.cu_seqlens_q);
  check_cuda(cudaMemset(o.ptr, 0xFF, c.q.size() * sizeof(T)), "cudaMemset");  // NaN
  check_cuda(cudaMemset(lse.ptr, 0xFF, rows * sizeof(float)), "cudaMemset");
  fmha_paged_args a;
  a.q = q.ptr;
  a.o = o.ptr;
  a.lse = static_cast<float*>(lse.ptr);
  a.k_cache = k.ptr;
  a.v_cache = v.ptr;
  if (c.p.table == page_table_kind::block_table) a.block_table = static_cast<const std::int32_t*>(table.ptr);
  else a.page_list = static_cast<const std::int32_t*>(table.ptr);
  a.page_offsets = static_cast<const std::int32_t*>(offsets.ptr);
  a.seqlens_kv = static_cast<const std::int32_t*>(lens.ptr);
  a.sinks = c.sinks.empty() ? nullptr : static_cast<const float*>(sinks.ptr);
  a.k_scale = c.k_scale.empty() ? nullptr : static_cast<const float*>(ks.ptr);
  a.v_scale = c.v_scale.empty() ? nullptr : static_cast<const float*>(vs.ptr);
  a.cu_seqlens_q = c.p.prefill() ? static_cast<const std::int32_t*>(cu_q.ptr) : nullptr;
  // The registered kernel the dispatcher picks (instances/fmha_paged.cpp), its workspace lent.
  const fmha_paged_dispatcher dispatcher(default_device());
  paged_gpu_check r;
  const auto sel = dispatcher.select(c.p, &a);
  if (!sel) {
    r.error = sel.explain();
    return r;
  }
  r.kernel = sel.kernel->name();
  r.splits = sel.splits;
  const status st = dispatcher.run(c.p, a);
  if (!st.is_ok()) {
    r.error = st.message();
    return r;
  }
  check_cuda(cudaDeviceSynchronize(), "paged decode");
  std::vector<T> got(c.q.size()), want(c.q.size());
  std::vector<float> got_lse(rows), want_lse(rows);
  check_cuda(cudaMemcpy(got.data(), o.ptr, got.size() * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
  check_cuda(cudaMemcpy(got_lse.data(), lse.ptr, rows * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  auto ha = c.host_args();
  ha.o = want.data();
  ha.lse = want_lse.data();
  kernels::host::paged_decode<T>(c.p, ha);
  r.pass = true;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double e = std::abs(double(float(got[i])) - double(float(want[i])));
    r.pass = r.pass && e <= 1e-2;
    if (!std::isnan(e)) r.max_o_error = std::max(r.max_o_error, e);
  }
  for (std::size_t i = 0; i < rows; ++i) {
    const bool same_inf = std::isinf(want_lse[i]) && got_lse[i] == want_lse[i];
    const double e = same_inf ? 0.0 : std::abs(double(got_lse[i]) - double(want_lse[i]));
    r.pass = r.pass && e <= 1e-3 * std::max(1.0, std::abs(double(want_lse[i])));
    if (!std::isnan(e)) r.max_lse_error = std::max(r.max_lse_error, e);
  }
  return r;
}

__global__ void fill_values(void* out, std::size_t n, std::uint32_t seed, int kind) {  // 0 bf16, 1 fp16, 2 e4m3
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint32_t h = std::uint32_t(i) * 2654435761u ^ seed;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    const float f = float(h & 0xFFFF) / 32768.0f - 1.0f;
    if (kind == 0) static_cast<__nv_bfloat16*>(out)[i] = __float2bfloat16(f);
    else if (kind == 1) static_cast<__half*>(out)[i] = __float2half(f);
    else static_cast<__nv_fp8_e4m3*>(out)[i] = __nv_fp8_e4m3(f);
  }
}

}  // namespace

std::string paged_plan_on_gpu(const fmha_paged_problem& p) {
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  const auto sel = fmha_paged_dispatcher(default_device()).select(p);
  return strf("%s (%d SMs)", sel.explain().c_str(), sms);
}

paged_gpu_check paged_check_on_gpu(const fmha_paged_problem& p, std::uint64_t seed) {
  return p.qkv == dtype::bf16 ? check_typed<host_storage_t<dtype::bf16>>(p, seed)
                              : check_typed<host_storage_t<dtype::fp16>>(p, seed);
}

int paged_bench_on_gpu(const std::vector<fmha_paged_problem>& problems, int reps, bool cudnn) {
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("device: %s, %d SMs; K/V pages shuffled; ours, the copy and cuDNN timed in turns, each launch after "
              "evicting L2, median of %d\n",
              prop.name, prop.multiProcessorCount, reps);
  std::printf("%6s %8s %7s %10s %9s %10s %9s %7s %10s %8s %10s %8s\n", "batch", "keys", "splits", "kdecl_us", "kdecl_GBs",
              "copy_us", "copy_GBs", "%copy", "cudnn_us", "vs_cudnn", "paged_us", "vs_paged");
  bench::evicting_turns turns_timer;
  const fmha_paged_dispatcher dispatcher(default_device());
  std::vector<std::string> notes;  // why a cuDNN column is empty, once per distinct reason, after the table
  for (const auto& problem : problems) {
    const auto p = problem.normalized();
    const std::size_t esz = p.fp8_cache() ? 1 : 2;
    const std::size_t cache_elems = std::size_t(std::max<std::int64_t>(p.num_pages, 1)) * std::size_t(p.k_strides.page);
    std::vector<std::int32_t> table(std::size_t(std::max<std::int64_t>(p.num_pages, 1)));
    std::iota(table.begin(), table.end(), 0);
    std::shuffle(table.begin(), table.end(), std::mt19937_64(7));
    // Block table rows (width max_pages_per_seq) or the flat list: both take the shuffled pool in order.
    std::vector<std::int32_t> tbl = table;
    if (p.table == page_table_kind::block_table) tbl.resize(std::size_t(std::max<std::int64_t>(p.batch * p.table_stride, 1)));
    device_memory k(cache_elems * esz), v(cache_elems * esz), copy_dst(2 * cache_elems * esz),
        q(std::size_t(p.total_q() * p.heads_q * p.hdim) * 2), o(std::size_t(p.total_q() * p.heads_q * p.hdim) * 2),
        dtbl(tbl), doffs(p.page_offsets), lens(p.seqlens_kv), scales(std::vector<float>{1.0f, 1.0f}),
        lse(std::size_t(p.total_q() * p.heads_q) * 4);
    const int kind = p.fp8_cache() ? 2 : p.qkv == dtype::bf16 ? 0 : 1;
    fill_values<<<1024, 256>>>(k.ptr, cache_elems, 1, kind);
    fill_values<<<1024, 256>>>(v.ptr, cache_elems, 2, kind);
    fill_values<<<1024, 256>>>(q.ptr, std::size_t(p.total_q() * p.heads_q * p.hdim), 3, p.qkv == dtype::bf16 ? 0 : 1);
    check_cuda(cudaDeviceSynchronize(), "fill");
    fmha_paged_args a;
    a.q = q.ptr;
    a.o = o.ptr;
    a.lse = static_cast<float*>(lse.ptr);
    a.k_cache = k.ptr;
    a.v_cache = v.ptr;
    if (p.table == page_table_kind::block_table) a.block_table = static_cast<const std::int32_t*>(dtbl.ptr);
    else a.page_list = static_cast<const std::int32_t*>(dtbl.ptr);
    a.page_offsets = static_cast<const std::int32_t*>(doffs.ptr);
    a.seqlens_kv = static_cast<const std::int32_t*>(lens.ptr);
    a.k_scale = static_cast<const float*>(scales.ptr);
    a.v_scale = static_cast<const float*>(scales.ptr) + 1;
    std::vector<float> sink_logits(std::size_t(p.heads_q), 0.5f);
    device_memory sinks(sink_logits);
    a.sinks = static_cast<const float*>(sinks.ptr);
    const auto plan = dispatcher.select(p, &a);
    if (!plan) throw std::runtime_error(plan.explain());
    std::string failure;
    const std::size_t kv_bytes = std::size_t(p.total_kv()) * std::size_t(p.heads_kv * p.hdim) * esz;  // K (V the same)
    std::vector<std::function<void()>> turns = {
        [&] {
          const status st = dispatcher.run(p, a);
          if (!st.is_ok() && failure.empty()) failure = st.message();
        },
        [&] {
          check_cuda(cudaMemcpyAsync(copy_dst.ptr, k.ptr, kv_bytes, cudaMemcpyDeviceToDevice), "cudaMemcpyAsync");
          check_cuda(cudaMemcpyAsync(static_cast<char*>(copy_dst.ptr) + kv_bytes, v.ptr, kv_bytes, cudaMemcpyDeviceToDevice),
                     "cudaMemcpyAsync");
        }};
    // cuDNN on a contiguous cache of the same (uniform) lengths (the pool read as [B, L, Hkv, D]) and
    // through its paged attention over the same pages: "-" and a note where one is not timed.
    std::string contiguous_note, paged_note;
    int contiguous_turn = -1, paged_turn = -1;
#if KDECL_WITH_CUDNN_FRONTEND
    std::unique_ptr<cudnn_sdpa> contiguous;
    std::unique_ptr<cudnn_paged_sdpa> paged;
    fmha_args ca;
    const bool uniform = std::all_of(p.seqlens_kv.begin(), p.seqlens_kv.end(), [&](std::int32_t l) { return l == p.seqlens_kv[0]; });
    if (!cudnn) contiguous_note = paged_note = "not asked (--cudnn 0)";
    else {
      if (p.fp8_cache() || !uniform || p.seqlen_q != 1 || p.soft_cap > 0 || p.mask != fmha_mask::none ||
          p.batch * p.seqlens_kv[0] > p.num_pages * p.page_size)
        contiguous_note = "contiguous: one query token, uniform lengths, no fp8 cache, soft-cap or mask";
      else
        try {
          fmha_problem cp;
          cp.sizes(p.batch, 1, p.seqlens_kv[0]).heads(p.heads_q, p.heads_kv).head_dim(p.hdim).dtype(p.qkv);
          cp.sinks = p.sinks;
          contiguous = std::make_unique<cudnn_sdpa>(default_device(), cp.normalized());
          ca.q = q.ptr;
          ca.k = k.ptr;
          ca.v = v.ptr;
          ca.o = o.ptr;
          ca.sinks = a.sinks;
          contiguous_turn = int(turns.size());
          turns.push_back(bench::noted_turn(contiguous_note, [&] { contiguous->run(ca); }, "contiguous failed: "));
        } catch (const std::exception& e) {
          contiguous_note = std::string("contiguous refused: ") + e.what();
        }
      if (auto why = cudnn_paged_sdpa::unsupported(p)) paged_note = "paged: " + *why;
      else
        try {
          paged = std::make_unique<cudnn_paged_sdpa>(default_device(), p);
          paged_turn = int(turns.size());
          turns.push_back(bench::noted_turn(paged_note, [&] { paged->run(a); }, "paged failed: "));
        } catch (const std::exception& e) {
          paged_note = std::string("paged refused: ") + e.what();
        }
    }
#else
    (void)cudnn;
    contiguous_note = paged_note = "not built with cuDNN's frontend";
#endif
    const std::vector<double> medians = turns_timer.medians(reps, turns);
    if (!failure.empty()) throw std::runtime_error(failure);
    const double ours = medians[0], copy = medians[1];
    const double ours_gbs = p.bytes() / (ours * 1e6), copy_gbs = 4.0 * double(kv_bytes) / (copy * 1e6);
    auto column = [&](int turn, const std::string& note, std::string& ms_text, std::string& ratio_text) {
      if (turn < 0 || !note.empty()) {  // not timed, or failed in its turns
        ms_text = ratio_text = "-";
        if (!note.empty() && std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
        return;
      }
      const double ms = medians[std::size_t(turn)];
      ms_text = strf("%.1f", ms * 1e3);
      ratio_text = strf("%.2fx", ms / ours);
    };
    std::string contiguous_us, contiguous_ratio, paged_us, paged_ratio;
    column(contiguous_turn, contiguous_note, contiguous_us, contiguous_ratio);
    column(paged_turn, paged_note, paged_us, paged_ratio);
    std::printf("%6lld %8lld %7d %10.1f %9.0f %10.1f %9.0f %6.1f%% %10s %8s %10s %8s\n", (long long)p.batch,
                (long long)p.total_kv(), plan.splits, ours * 1e3, ours_gbs, copy * 1e3, copy_gbs,
                100.0 * ours_gbs / copy_gbs, contiguous_us.c_str(), contiguous_ratio.c_str(), paged_us.c_str(),
                paged_ratio.c_str());
    std::fflush(stdout);
  }
  for (const auto& note : notes) std::printf("cuDNN %s\n", note.c_str());
  return 0;
}

}  // namespace kdecl::cli
