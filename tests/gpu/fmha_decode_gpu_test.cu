// The paged decode (fwd_pagedkv, fwd_splitkv + combine) and append-KV CUDA kernels
// against the exact host references (kernels/fmha/host/fmha_paged_host.hpp): random
// block tables and page lists with pages out of order and unused entries pointing
// outside the pool, lengths 0 to 64k, batch 1 to 256, odd head dims, GQA/MQA,
// speculative query tokens with causal and sliding-window masks, soft-cap, sinks.
// Outputs and LSEs are poisoned with NaN first; a NaN never passes (the comparison
// is !(error <= tolerance)). Label gpu: skipped without a CUDA device.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "kdecl/fmha/fmha_paged_dispatcher.hpp"
#include "kdecl/runtime/device.hpp"
#include "kdecl/runtime/fmha_paged_case.hpp"
#include "kdecl/kernels/cuda/fast_exp2_poly.cuh"
#include "kdecl/kernels/fmha/cuda/decode/paged_append.cuh"
#include "kdecl/kernels/fmha/cuda/decode/paged_decode.cuh"
#include "kdecl/kernels/fmha/cuda/decode/paged_direct.cuh"
#include "kdecl/kernels/fmha/cuda/decode/paged_prefill.cuh"
#include "kdecl/kernels/fmha/host/fmha_paged_host.hpp"
#include "kdecl/numeric/host_storage.hpp"

namespace kdecl {
namespace {

namespace dec = kernels::cuda::decode;
using bf16 = host_storage_t<dtype::bf16>;
using fp16 = host_storage_t<dtype::fp16>;

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}
#define REQUIRE_GPU() \
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device"

// A device copy of a host vector, freed with the object.
struct dbuf {
  void* ptr = nullptr;
  std::size_t bytes = 0;
  dbuf() = default;
  explicit dbuf(std::size_t n) : bytes(n) { EXPECT_EQ(cudaMalloc(&ptr, std::max<std::size_t>(n, 16)), cudaSuccess); }
  template <class T>
  explicit dbuf(const std::vector<T>& v) : dbuf(v.size() * sizeof(T)) {
    if (bytes) EXPECT_EQ(cudaMemcpy(ptr, v.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
  }
  ~dbuf() {
    if (ptr) cudaFree(ptr);
  }
  dbuf(const dbuf&) = delete;
  dbuf& operator=(const dbuf&) = delete;
  dbuf(dbuf&& o) noexcept : ptr(o.ptr), bytes(o.bytes) { o.ptr = nullptr; }
  dbuf& operator=(dbuf&& o) noexcept {
    if (this != &o) {
      if (ptr) cudaFree(ptr);
      ptr = std::exchange(o.ptr, nullptr);
      bytes = o.bytes;
    }
    return *this;
  }
  void poison() { cudaMemset(ptr, 0xFF, bytes); }  // NaN in fp16, bf16 and fp32
  template <class T>
  std::vector<T> get() const {
    std::vector<T> v(bytes / sizeof(T));
    EXPECT_EQ(cudaMemcpy(v.data(), ptr, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    return v;
  }
  template <class T>
  T* as() const { return static_cast<T*>(ptr); }
};

template <class T>
struct device_case {
  test::paged_case<T>& c;
  dbuf q, k, v, table, offsets, seqlens, sinks, o, lse, k_scale, v_scale, cu_q;
  explicit device_case(test::paged_case<T>& hc)
      : c(hc), q(hc.q), k(hc.p.fp8_cache() ? dbuf(hc.k8) : dbuf(hc.k_cache)),
        v(hc.p.fp8_cache() ? dbuf(hc.v8) : dbuf(hc.v_cache)), table(hc.table), offsets(hc.p.page_offsets),
        seqlens(hc.p.seqlens_kv), sinks(hc.sinks), o(hc.q.size() * sizeof(T)),
        lse(std::size_t(hc.p.total_q() * hc.p.heads_q) * sizeof(float)), k_scale(hc.k_scale),
        v_scale(hc.v_scale), cu_q(hc.p.cu_seqlens_q) {}
  fmha_paged_args args() {
    fmha_paged_args a;
    a.q = q.ptr;
    a.o = o.ptr;
    a.lse = lse.as<float>();
    a.k_cache = k.ptr;
    a.v_cache = v.ptr;
    if (c.p.table == page_table_kind::block_table) a.block_table = table.as<std::int32_t>();
    else a.page_list = table.as<std::int32_t>();
    a.page_offsets = c.p.page_offsets.empty() ? nullptr : offsets.as<std::int32_t>();
    a.seqlens_kv = seqlens.as<std::int32_t>();
    a.sinks = c.sinks.empty() ? nullptr : sinks.as<float>();
    a.k_scale = c.k_scale.empty() ? nullptr : k_scale.as<float>();
    a.v_scale = c.v_scale.empty() ? nullptr : v_scale.as<float>();
    a.cu_seqlens_q = c.p.cu_seqlens_q.empty() ? nullptr : cu_q.as<std::int32_t>();
    return a;
  }
};

struct errors {
  double o = 0, lse = 0;
  std::size_t bad = 0;
  std::string first;
};

// Runs the case on the registered kernel the dispatcher picks (instances/fmha_paged.cpp; its
// split-KV workspace lent), or on `kernel` when given, and compares with the host reference.
template <class T>
errors run_and_compare(test::paged_case<T>& c, double tol, int* splits_used = nullptr,
                       const fmha_paged_instance* kernel = nullptr) {
  device_case<T> d(c);
  d.o.poison();
  d.lse.poison();
  const fmha_paged_dispatcher dispatcher(default_device());
  auto a = d.args();
  dbuf workspace;
  const status st = [&] {
    if (!kernel) {
      const auto sel = dispatcher.select(c.p, &a);
      EXPECT_TRUE(sel) << sel.explain();
      if (splits_used) *splits_used = c.p.prefill() ? 0 : sel.splits;
      return dispatcher.run(c.p, a);
    }
    const auto why = kernel->why_not_paged(c.p, a);
    EXPECT_FALSE(why.has_value()) << kernel->name() << ": " << *why;
    const auto plan = kernel->plan_paged(c.p);
    workspace = dbuf(plan.workspace_bytes);
    a.workspace = workspace.ptr;
    a.workspace_bytes = workspace.bytes;
    if (splits_used) *splits_used = plan.splits;
    return kernel->run_paged(c.p, a, nullptr);
  }();
  EXPECT_TRUE(st.is_ok()) << st.message();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto o = d.o.template get<T>();
  const auto lse = d.lse.template get<float>();

  std::vector<T> ro(c.q.size());
  std::vector<float> rlse(lse.size());
  auto ha = c.host_args();
  ha.o = ro.data();
  ha.lse = rlse.data();
  kernels::host::paged_decode<T>(c.p, ha);

  errors e;
  for (std::size_t i = 0; i < o.size(); ++i) {
    const double err = std::abs(double(float(o[i])) - double(float(ro[i])));
    if (!(err <= tol)) {
      if (e.bad++ == 0) e.first = "O[" + std::to_string(i) + "] = " + std::to_string(float(o[i])) + ", want " + std::to_string(float(ro[i]));
      e.o = std::isnan(err) ? err : std::max(e.o, err);
    } else {
      e.o = std::max(e.o, err);
    }
  }
  for (std::size_t i = 0; i < lse.size(); ++i) {
    const bool same_inf = std::isinf(rlse[i]) && lse[i] == rlse[i];
    const double err = same_inf ? 0.0 : std::abs(double(lse[i]) - double(rlse[i]));
    if (!(err <= 1e-3 * std::max(1.0, std::abs(double(rlse[i]))))) {
      if (e.bad++ == 0) e.first = "LSE[" + std::to_string(i) + "] = " + std::to_string(lse[i]) + ", want " + std::to_string(rlse[i]);
    }
    if (!std::isnan(err)) e.lse = std::max(e.lse, err);
  }
  return e;
}

template <class T>
void check(const test::paged_config& cfg, dtype dt, const char* what) {
  auto c = test::make_paged_case<T>(cfg, dt);
  ASSERT_FALSE(c.p.validate().has_value()) << *c.p.validate();
  int splits = 0;
  const double tol = dt == dtype::bf16 ? 1e-2 : 5e-3;
  const errors e = run_and_compare(c, tol, &splits);
  EXPECT_EQ(e.bad, 0u) << what << " (" << splits << " splits): " << e.bad << " bad values, first " << e.first;
  std::printf("  %-52s splits %3d  max O error %.2e  LSE error %.2e\n", what, splits, e.o, e.lse);
}

std::vector<std::int32_t> random_lengths(std::size_t n, std::int32_t lo, std::int32_t hi, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int32_t> u(lo, hi);
  std::vector<std::int32_t> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

TEST(FmhaDecodeGpu, LlamaHeadsSplitAndOneStage) {
  REQUIRE_GPU();
  test::paged_config cfg;  // Hq 32, Hkv 8, D 128, page 16
  cfg.lengths = {4096};
  for (auto fam : {fmha_family::fwd_splitkv, fmha_family::fwd_pagedkv}) {
    cfg.family = fam;
    check<bf16>(cfg, dtype::bf16, fam == fmha_family::fwd_splitkv ? "batch 1, 4k, split auto" : "batch 1, 4k, one stage");
  }
  cfg.family = fmha_family::fwd_splitkv;
  for (int s : {3, 17, 256}) {
    cfg.splits = s;
    check<bf16>(cfg, dtype::bf16, ("batch 1, 4k, splits " + std::to_string(s)).c_str());
  }
  cfg.splits = 0;
  cfg.lengths = random_lengths(8, 1, 9000, 3);
  cfg.lengths[2] = 0;
  cfg.lengths[5] = 1;
  check<bf16>(cfg, dtype::bf16, "batch 8, lengths 0..9000, split auto");
  check<fp16>(cfg, dtype::fp16, "batch 8 fp16, split auto");
}

TEST(FmhaDecodeGpu, LongAndMany) {
  REQUIRE_GPU();
  test::paged_config cfg;
  cfg.family = fmha_family::fwd_splitkv;
  cfg.lengths = {65536};
  cfg.heads_q = 8;
  cfg.heads_kv = 2;
  check<bf16>(cfg, dtype::bf16, "batch 1, 64k keys, Hq 8 Hkv 2");
  cfg.lengths = random_lengths(256, 0, 300, 5);
  cfg.heads_q = 32;
  cfg.heads_kv = 8;
  check<bf16>(cfg, dtype::bf16, "batch 256, lengths 0..300");
  cfg.table = page_table_kind::page_list;
  cfg.page_size = 1;
  check<bf16>(cfg, dtype::bf16, "batch 256, page list, page size 1");
}

TEST(FmhaDecodeGpu, PageSizesTablesAndHeadDims) {
  REQUIRE_GPU();
  test::paged_config cfg;
  cfg.family = fmha_family::fwd_splitkv;
  cfg.lengths = {1, 33, 700, 129, 2048, 5};
  cfg.heads_q = 16;
  cfg.heads_kv = 4;
  for (std::int64_t ps : {1, 2, 16, 64, 256}) {
    for (auto tk : {page_table_kind::block_table, page_table_kind::page_list}) {
      cfg.page_size = ps;
      cfg.table = tk;
      cfg.seed += 1;
      check<bf16>(cfg, dtype::bf16, ("page size " + std::to_string(ps) + (tk == page_table_kind::page_list ? ", page list" : ", block table")).c_str());
    }
  }
  cfg.page_size = 16;
  cfg.table = page_table_kind::block_table;
  for (std::int64_t d : {64, 80, 256, 8, 200}) {
    cfg.hdim = d;
    check<fp16>(cfg, dtype::fp16, ("head dim " + std::to_string(d) + " fp16").c_str());
    check<bf16>(cfg, dtype::bf16, ("head dim " + std::to_string(d) + " bf16").c_str());
  }
}

TEST(FmhaDecodeGpu, GqaMqaSpeculativeMasksSoftCapSinks) {
  REQUIRE_GPU();
  test::paged_config cfg;
  cfg.family = fmha_family::fwd_splitkv;
  cfg.lengths = {3, 1000, 77, 4500};
  cfg.heads_q = 64;
  cfg.heads_kv = 1;  // MQA: 64 rows, 4 row groups
  check<bf16>(cfg, dtype::bf16, "MQA Hq 64 Hkv 1");
  cfg.heads_q = 12;
  cfg.heads_kv = 12;  // MHA
  check<bf16>(cfg, dtype::bf16, "MHA Hq 12");
  cfg.heads_q = 28;
  cfg.heads_kv = 4;  // 7 query heads per KV head
  cfg.seqlen_q = 5;  // 35 rows: 3 row groups
  for (auto mask : {fmha_mask::bottom_right, fmha_mask::top_left, fmha_mask::generic, fmha_mask::none}) {
    cfg.mask = mask;
    cfg.window_left = mask == fmha_mask::generic ? 300 : -1;
    cfg.window_right = mask == fmha_mask::generic ? 0 : -1;
    cfg.soft_cap = mask == fmha_mask::generic || mask == fmha_mask::none ? 30.0f : 0.0f;
    cfg.sinks = mask != fmha_mask::bottom_right;
    for (auto fam : {fmha_family::fwd_splitkv, fmha_family::fwd_pagedkv}) {
      cfg.family = fam;
      cfg.seed += 1;
      check<bf16>(cfg, dtype::bf16, (std::string("Sq 5, mask ") + std::string(to_string(mask)) +
                                     (cfg.sinks ? ", sinks" : "") + (cfg.soft_cap > 0 ? ", soft-cap" : "") +
                                     (fam == fmha_family::fwd_pagedkv ? ", one stage" : ", split")).c_str());
    }
  }
}

TEST(FmhaDecodeGpu, Fp8CachePerTensorAndPerHeadScales) {
  REQUIRE_GPU();
  test::paged_config cfg;  // Hq 32, Hkv 8, D 128, page 16
  cfg.family = fmha_family::fwd_splitkv;
  cfg.lengths = {4096, 1, 0, 777};
  cfg.fp8_cache = true;
  check<bf16>(cfg, dtype::bf16, "fp8 cache, per-tensor scales, split auto");
  cfg.scale_per_head = true;
  cfg.sinks = true;
  check<bf16>(cfg, dtype::bf16, "fp8 cache, per-head scales, sinks");
  cfg.family = fmha_family::fwd_pagedkv;
  cfg.mask = fmha_mask::generic;
  cfg.window_left = 500;
  cfg.window_right = 0;
  cfg.seqlen_q = 3;
  check<bf16>(cfg, dtype::bf16, "fp8 cache, one stage, window, Sq 3");
  cfg.family = fmha_family::fwd_splitkv;
  cfg.mask = fmha_mask::none;
  cfg.seqlen_q = 1;
  cfg.table = page_table_kind::page_list;
  cfg.page_size = 1;
  for (std::int64_t d : {64, 256, 80}) {
    cfg.hdim = d;
    check<fp16>(cfg, dtype::fp16, ("fp8 cache, fp16, page list of 1, head dim " + std::to_string(d)).c_str());
  }
}

TEST(FmhaAppendKvGpu, QuantizesIntoAnFp8Cache) {
  REQUIRE_GPU();
  test::paged_config cfg;
  cfg.family = fmha_family::fwd_appendkv;
  cfg.lengths = {5, 0, 40};
  cfg.seqlen_q = 3;
  cfg.heads_q = 8;
  cfg.heads_kv = 2;
  cfg.hdim = 64;
  cfg.fp8_cache = true;
  cfg.scale_per_head = true;
  auto c = test::make_paged_case<bf16>(cfg, dtype::bf16);
  c.p.rope = rope_kind::half;
  c.p.rope_max_position = 64;
  std::vector<float> cosv(std::size_t(64 * 32)), sinv(cosv.size());
  for (std::size_t i = 0; i < cosv.size(); ++i) {
    cosv[i] = float(std::cos(0.01 * double(i)));
    sinv[i] = float(std::sin(0.01 * double(i)));
  }
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<bf16> kn(std::size_t(3 * 3 * 2 * 64)), vn(kn.size());
  for (auto& x : kn) x = bf16(u(rng));
  for (auto& x : vn) x = bf16(u(rng));
  device_case<bf16> d(c);
  dbuf dkn(kn), dvn(vn), dcos(cosv), dsin(sinv);
  auto a = d.args();
  a.k_new = dkn.ptr;
  a.v_new = dvn.ptr;
  a.rope_cos = dcos.as<float>();
  a.rope_sin = dsin.as<float>();
  const status st = dec::run_paged_append(c.p, a, nullptr);
  ASSERT_TRUE(st.is_ok()) << st.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto k8 = d.k.get<float8_e4m3>(), v8 = d.v.get<float8_e4m3>();
  auto ha = c.host_args();
  ha.k_new = kn.data();
  ha.v_new = vn.data();
  ha.rope_cos = cosv.data();
  ha.rope_sin = sinv.data();
  kernels::host::paged_append<bf16>(c.p, ha);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < k8.size(); ++i) {
    const float gk = float(k8[i]), hk = float(c.k8[i]), gv = float(v8[i]), hv = float(c.v8[i]);
    // The same e4m3 value, or its neighbour where fp32 and double round x / scale apart.
    if (!(std::abs(gk - hk) <= std::abs(hk) / 8 + 1e-3f)) ++bad;
    if (!(std::abs(gv - hv) <= std::abs(hv) / 8 + 1e-3f)) ++bad;
  }
  EXPECT_EQ(bad, 0u);
}

TEST(FmhaPrefillGpu, ChunkedPrefillOverPages) {
  REQUIRE_GPU();
  test::paged_config cfg;  // Hq 32, Hkv 8, D 128, page 16
  cfg.family = fmha_family::batch_prefill;
  cfg.lengths = {1, 700, 0, 513, 1000, 64};  // keys: a cached prefix, then the queries
  cfg.q_lengths = {1, 200, 0, 513, 64, 64};
  cfg.mask = fmha_mask::bottom_right;
  check<bf16>(cfg, dtype::bf16, "prefill, causal, block table");
  cfg.mask = fmha_mask::none;
  cfg.table = page_table_kind::page_list;
  cfg.page_size = 1;
  check<bf16>(cfg, dtype::bf16, "prefill, no mask, page list of 1");
  cfg.mask = fmha_mask::generic;
  cfg.window_left = 100;
  cfg.window_right = 0;
  cfg.page_size = 64;
  cfg.heads_q = 16;
  cfg.heads_kv = 2;
  for (std::int64_t d : {64, 256, 96}) {
    cfg.hdim = d;
    check<fp16>(cfg, dtype::fp16, ("prefill, window, fp16, head dim " + std::to_string(d)).c_str());
  }
  // The forward kernel's own contiguous varlen path (kv_pages null), on the same keys gathered.
  {
    cfg.hdim = 128;
    auto c = test::make_paged_case<bf16>(cfg, dtype::bf16);
    auto g = c.gathered();
    device_case<bf16> dc(c);
    dbuf k(g.k), v(g.v), cu_kv(g.p.cu_seqlens_kv);
    auto a = dc.args();
    a.k_cache = k.ptr;
    a.v_cache = v.ptr;
    dc.o.poison();
    const status st = dec::run_paged_prefill(c.p, a, nullptr, cu_kv.as<std::int32_t>());
    ASSERT_TRUE(st.is_ok()) << st.message();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const auto o = dc.o.get<bf16>();
    std::vector<bf16> ro(c.q.size());
    std::vector<float> rl(std::size_t(c.p.total_q() * c.p.heads_q));
    auto ha = c.host_args();
    ha.o = ro.data();
    ha.lse = rl.data();
    kernels::host::paged_decode<bf16>(c.p, ha);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < o.size(); ++i) bad += !(std::abs(float(o[i]) - float(ro[i])) <= 1e-2f);
    EXPECT_EQ(bad, 0u) << "contiguous varlen K/V through the same kernel";
  }
  // The direct entry point runs the plain kernels: a soft-cap is refused with the rule, not ignored.
  cfg.soft_cap = 10.0f;
  auto c = test::make_paged_case<fp16>(cfg, dtype::fp16);
  device_case<fp16> dc(c);
  const status st = dec::run_paged_prefill(c.p, dc.args(), nullptr);
  EXPECT_NE(st.message().find("soft_cap = 10: this prefill kernel is built without a logit soft-cap"), std::string::npos)
      << st.message();
}

// batch_prefill with the logit soft-cap (Gemma 2: head dims 128 and 256) and sinks (gpt-oss: 64,
// with a sliding window) through the dispatcher: on sm_90 the tma_wgmma_ws keys for pages of 8
// rows or more and mma_sync for pages of 4; on sm_80 mma_sync. NaN in every free slot, sequences
// without queries or keys, a window of six keys (the sink weighs as much as they do), padded head dims.
TEST(FmhaPrefillGpu, SoftCapAndSinksOverPages) {
  REQUIRE_GPU();
  const fmha_paged_dispatcher dispatcher(default_device());
  const bool sm90 = default_device().arch == arch_id::sm_90;
  auto run = [&](test::paged_config cfg, dtype dt, const std::string& what) {
    cfg.family = fmha_family::batch_prefill;
    cfg.nan_in_free_slots = true;
    auto one = [&](auto tag) {
      using T = decltype(tag);
      auto c = test::make_paged_case<T>(cfg, dt);
      ASSERT_FALSE(c.p.validate().has_value()) << *c.p.validate();
      device_case<T> d(c);
      auto a = d.args();
      const auto sel = dispatcher.select(c.p, &a);
      ASSERT_TRUE(sel) << what << ": " << sel.explain();
      const std::string name = sel.kernel->name();
      EXPECT_NE(name.find(cfg.soft_cap > 0.0f ? "_softcap" : "_sink"), std::string::npos) << what << ": " << name;
      const bool tma = name.find("tma_wgmma_ws") != std::string::npos;
      EXPECT_EQ(tma, sm90 && cfg.page_size >= 8) << what << ": " << name;
      const errors e = run_and_compare(c, dt == dtype::bf16 ? 1e-2 : 5e-3);
      EXPECT_EQ(e.bad, 0u) << what << ": " << e.bad << " bad values, first " << e.first;
      std::printf("  %-60s %s  max O error %.2e  LSE error %.2e\n", what.c_str(), tma ? "tma" : "mma_sync", e.o, e.lse);
    };
    if (dt == dtype::bf16) one(bf16{});
    else one(fp16{});
  };
  test::paged_config cfg;  // Hq 32, Hkv 8
  cfg.lengths = {1, 700, 0, 513, 1000, 64, 129};
  cfg.q_lengths = {1, 200, 0, 513, 64, 64, 129};
  cfg.mask = fmha_mask::bottom_right;
  cfg.soft_cap = 30.0f;
  for (std::int64_t page : {16, 4}) {
    cfg.page_size = page;
    run(cfg, dtype::bf16, "soft-cap 30, causal, d128, page " + std::to_string(page));
  }
  cfg.hdim = 256;
  cfg.heads_q = 16;
  cfg.heads_kv = 8;
  cfg.table = page_table_kind::page_list;
  cfg.page_size = 64;
  cfg.mask = fmha_mask::generic;
  cfg.window_left = 300;
  cfg.window_right = 0;
  run(cfg, dtype::fp16, "soft-cap 30, window 300, d256, page list of 64, fp16");
  cfg.hdim = 96;  // padded to the 128 key
  cfg.soft_cap = 50.0f;
  cfg.mask = fmha_mask::none;
  run(cfg, dtype::bf16, "soft-cap 50, no mask, d96, page list of 64");
  cfg.soft_cap = 0.0f;
  cfg.sinks = true;
  cfg.hdim = 64;
  cfg.heads_q = 64;
  cfg.heads_kv = 8;
  cfg.table = page_table_kind::block_table;
  cfg.mask = fmha_mask::generic;
  cfg.window_left = 127;  // gpt-oss: a 128-token window
  cfg.window_right = 0;
  for (std::int64_t page : {16, 256, 4}) {
    cfg.page_size = page;
    run(cfg, dtype::bf16, "sinks, window 128, d64, page " + std::to_string(page));
  }
  cfg.window_left = 5;  // six keys a row: the sink weighs as much as they do
  cfg.page_size = 32;
  run(cfg, dtype::fp16, "sinks, window 6, page 32, fp16");
  cfg.mask = fmha_mask::bottom_right;
  cfg.window_left = cfg.window_right = -1;
  cfg.hdim = 40;
  run(cfg, dtype::bf16, "sinks, causal, d40");
}

// batch_prefill on sm_90: the dispatcher's choice is the tma_wgmma_ws kernel loading K/V tiles page
// by page through TMA (pages of 8 rows or more; 80-key tiles at head dim 256 come in 16-row boxes),
// with NaN in every slot no sequence owns (P V must not read a stale V row after a sequence's last
// key); pages of 4 rows go to mma_sync.
TEST(FmhaPrefillGpu, TmaWgmmaLoadsPagesThroughTma) {
  REQUIRE_GPU();
  if (default_device().arch != arch_id::sm_90) GTEST_SKIP() << "the tma_wgmma_ws prefill is sm_90a code";
  const fmha_paged_dispatcher dispatcher(default_device());
  auto run = [&](test::paged_config cfg, dtype dt, bool want_tma, const std::string& what) {
    cfg.family = fmha_family::batch_prefill;
    cfg.nan_in_free_slots = true;
    auto one = [&](auto tag) {
      using T = decltype(tag);
      auto c = test::make_paged_case<T>(cfg, dt);
      ASSERT_FALSE(c.p.validate().has_value()) << *c.p.validate();
      device_case<T> d(c);
      auto a = d.args();
      const auto sel = dispatcher.select(c.p, &a);
      ASSERT_TRUE(sel) << sel.explain();
      const bool tma = sel.kernel->name().find("tma_wgmma_ws") != std::string::npos;
      EXPECT_EQ(tma, want_tma) << what << ": " << sel.explain();
      const errors e = run_and_compare(c, dt == dtype::bf16 ? 1e-2 : 5e-3);
      EXPECT_EQ(e.bad, 0u) << what << ": " << e.bad << " bad values, first " << e.first;
      std::printf("  %-60s %s  max O error %.2e  LSE error %.2e\n", what.c_str(), tma ? "tma" : "mma_sync", e.o, e.lse);
    };
    if (dt == dtype::bf16) one(bf16{});
    else one(fp16{});
  };
  test::paged_config cfg;  // Hq 32, Hkv 8, D 128
  cfg.lengths = {1, 700, 0, 513, 1000, 64, 129};
  cfg.q_lengths = {1, 200, 0, 513, 64, 64, 129};
  cfg.mask = fmha_mask::bottom_right;
  for (std::int64_t page : {8, 16, 64, 256}) {
    cfg.page_size = page;
    run(cfg, dtype::bf16, true, "causal, d128, block table, page " + std::to_string(page));
  }
  cfg.table = page_table_kind::page_list;
  cfg.page_size = 32;
  cfg.mask = fmha_mask::none;
  cfg.heads_kv = 1;  // MQA
  run(cfg, dtype::fp16, true, "no mask, MQA, page list of 32, fp16");
  cfg.table = page_table_kind::block_table;
  cfg.mask = fmha_mask::generic;
  cfg.window_left = 100;
  cfg.window_right = 0;
  cfg.heads_q = 16;
  cfg.heads_kv = 2;
  for (std::int64_t d : {64, 96, 256, 200}) {
    for (std::int64_t page : {8, 16, 128}) {
      cfg.hdim = d;
      cfg.page_size = page;
      run(cfg, dtype::fp16, true,
          "window 100, fp16, head dim " + std::to_string(d) + ", page " + std::to_string(page));
    }
  }
  cfg.hdim = 128;
  cfg.page_size = 4;
  run(cfg, dtype::bf16, false, "page 4: mma_sync");
  // Long sequences: many tiles per block, the ring running over sequences and Q buffers.
  cfg.lengths = {4099, 2048, 17};
  cfg.q_lengths = {3000, 2048, 17};
  cfg.heads_q = 8;
  cfg.mask = fmha_mask::bottom_right;
  cfg.page_size = 16;
  run(cfg, dtype::bf16, true, "causal, long, page 16");
}

__global__ void eval_exp2_poly(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = kernels::cuda::exp2_poly(x[i]);
}

// The soft-capped sm_90 softmax's exponential on the FMA pipes (fast_exp2_poly.cuh): the device's
// rounded-add floor and exponent bits against exp2 in double over the softmax's range, exact zeros
// for masked (-inf) and underflowing arguments, NaN kept. (The host test checks the polynomial.)
TEST(FmhaSoftmaxGpu, Exp2PolyOnDevice) {
  REQUIRE_GPU();
  constexpr int n = 1 << 22;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = -130.0f * float(i) / float(n - 8);
  x[n - 3] = -std::numeric_limits<float>::infinity();
  x[n - 2] = std::numeric_limits<float>::quiet_NaN();
  x[n - 1] = -0.0f;
  dbuf dx(x), dy(n * sizeof(float));
  eval_exp2_poly<<<n / 256, 256>>>(dx.as<float>(), dy.as<float>(), n);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto y = dy.get<float>();
  double worst = 0;
  for (int i = 0; i < n - 3; ++i) {
    if (x[i] < -126.0f) {  // below the normal range: +0
      ASSERT_EQ(y[i], 0.0f) << x[i];
      continue;
    }
    const double e = std::fabs(double(y[i]) / std::exp2(double(x[i])) - 1.0);
    ASSERT_TRUE(e <= 8.7e-5) << "exp2_poly(" << x[i] << ") = " << y[i];
    worst = std::max(worst, e);
  }
  EXPECT_EQ(y[n - 3], 0.0f);
  EXPECT_TRUE(std::isnan(y[n - 2]));
  EXPECT_EQ(y[n - 1], 1.0f);
  std::printf("device exp2_poly: max relative error over [-126, 0] %.3g\n", worst);
}

TEST(FmhaDecodeGpu, ErrorsNameTheRule) {
  REQUIRE_GPU();
  test::paged_config cfg;
  cfg.family = fmha_family::fwd_splitkv;
  cfg.lengths = {1000};
  cfg.splits = 4;
  auto c = test::make_paged_case<bf16>(cfg, dtype::bf16);
  device_case<bf16> d(c);
  const auto plan = dec::plan_paged_decode(c.p, 132, 2);
  auto a = d.args();
  a.workspace = d.o.ptr;
  a.workspace_bytes = 16;
  const status st = dec::run_paged_decode(c.p, a, plan, nullptr);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("needs " + std::to_string(plan.workspace_bytes) + " bytes of workspace, 16 given"),
            std::string::npos)
      << st.message();
  c.p.page_size = 12;
  EXPECT_NE(dec::run_paged_decode(c.p, a, plan, nullptr).message().find("page_size = 12 must be a power of two"),
            std::string::npos);
}

// The launch checks read only the pointers: host buffers stand in, no device is needed.
TEST(FmhaDecodeGpu, SplitWorkspaceMustBe16ByteAligned) {
  test::paged_config cfg;
  cfg.family = fmha_family::fwd_splitkv;
  cfg.lengths = {1000};
  cfg.splits = 4;
  auto c = test::make_paged_case<bf16>(cfg, dtype::bf16);
  const auto plan = dec::plan_paged_decode(c.p, 132, 2);
  ASSERT_GT(plan.workspace_bytes, 0u);
  auto a = c.host_args();
  std::vector<bf16> o(c.q.size());
  std::vector<float> lse(std::size_t(c.p.batch * c.p.heads_q * c.p.seqlen_q));
  a.o = o.data();
  a.lse = lse.data();
  std::vector<std::uint64_t> workspace(plan.workspace_bytes / 8 + 4);
  a.workspace = reinterpret_cast<unsigned char*>(workspace.data()) + 8;  // 8-byte aligned, not 16
  a.workspace_bytes = plan.workspace_bytes;
  if (reinterpret_cast<std::uintptr_t>(a.workspace) % 16 == 0) a.workspace = workspace.data() + 2;
  const auto why = dec::paged_decode_args_reason(c.p, a, plan);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, "the split-KV workspace must be 16-byte aligned (the combine's 16-byte loads)");
  a.workspace = reinterpret_cast<unsigned char*>(a.workspace) + 8;
  EXPECT_FALSE(dec::paged_decode_args_reason(c.p, a, plan).has_value());
}

TEST(FmhaDecodeGpu, SplitPlanFillsTheDevice) {
  REQUIRE_GPU();
  fmha_paged_problem p;
  p.family = fmha_family::fwd_splitkv;
  p.heads_q = 32;
  p.heads_kv = 8;
  p.hdim = 128;
  p.batch = 1;
  p.seqlens_kv = {32768};
  p.num_pages = 2048;
  p.max_pages_per_seq = 2048;
  dec::paged_decoder decoder;
  const auto one = decoder.plan(p);
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  EXPECT_GT(one.splits, 1);
  EXPECT_GE(one.blocks * 10, sms * 8) << "batch 1 must fill the SMs: " << one.splits << " splits";
  p.batch = 256;
  p.seqlens_kv.assign(256, 4096);
  EXPECT_EQ(decoder.plan(p).splits, 1) << "batch 256 x 8 KV heads fills the device in one stage";
}

template <class T>
void check_append(rope_kind rope, page_table_kind tk, dtype dt) {
  test::paged_config cfg;
  cfg.family = fmha_family::fwd_appendkv;
  cfg.lengths = {5, 0, 31, 1000};
  cfg.seqlen_q = 3;
  cfg.heads_q = 8;
  cfg.heads_kv = 2;
  cfg.hdim = 128;
  cfg.page_size = 16;
  cfg.table = tk;
  auto c = test::make_paged_case<T>(cfg, dt);
  c.p.rope = rope;
  c.p.rotary_dim = 64;
  c.p.rope_max_position = 2048;
  ASSERT_FALSE(c.p.validate().has_value()) << *c.p.validate();
  const std::int64_t half = 32;
  std::vector<float> cosv(std::size_t(2048 * half)), sinv(cosv.size());
  for (std::int64_t pos = 0; pos < 2048; ++pos)
    for (std::int64_t i = 0; i < half; ++i) {
      const double th = double(pos) * std::pow(10000.0, -double(i) / double(half));
      cosv[std::size_t(pos * half + i)] = float(std::cos(th));
      sinv[std::size_t(pos * half + i)] = float(std::sin(th));
    }
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<T> kn(std::size_t(4 * 3 * 2 * 128)), vn(kn.size());
  for (auto& x : kn) x = T(u(rng));
  for (auto& x : vn) x = T(u(rng));

  device_case<T> d(c);
  dbuf dkn(kn), dvn(vn), dcos(cosv), dsin(sinv), dq_out(c.q.size() * sizeof(T));
  dq_out.poison();
  auto a = d.args();
  a.k_new = dkn.ptr;
  a.v_new = dvn.ptr;
  a.q_out = dq_out.ptr;
  a.rope_cos = dcos.as<float>();
  a.rope_sin = dsin.as<float>();
  const status st = dec::run_paged_append(c.p, a, nullptr);
  ASSERT_TRUE(st.is_ok()) << st.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto k = d.k.template get<T>(), v = d.v.template get<T>(), q_out = dq_out.template get<T>();

  std::vector<T> rq(c.q.size());
  auto ha = c.host_args();
  ha.k_new = kn.data();
  ha.v_new = vn.data();
  ha.q_out = rq.data();
  ha.rope_cos = cosv.data();
  ha.rope_sin = sinv.data();
  kernels::host::paged_append<T>(c.p, ha);  // updates c.k_cache / c.v_cache
  const double tol = dt == dtype::bf16 ? 1.0 / 64 : 1.0 / 512;  // one rounding step of the result
  std::size_t bad = 0;
  for (std::size_t i = 0; i < k.size(); ++i) {
    if (!(std::abs(float(k[i]) - float(c.k_cache[i])) <= tol)) ++bad;
    if (!(float(v[i]) == float(c.v_cache[i]))) ++bad;
  }
  for (std::size_t i = 0; i < rq.size(); ++i)
    if (!(std::abs(float(q_out[i]) - float(rq[i])) <= tol)) ++bad;
  EXPECT_EQ(bad, 0u) << "rope " << int(rope);
}

TEST(FmhaAppendKvGpu, RotaryInterleavedHalfAndNone) {
  REQUIRE_GPU();
  for (auto rope : {rope_kind::none, rope_kind::interleaved, rope_kind::half}) {
    check_append<bf16>(rope, page_table_kind::block_table, dtype::bf16);
    check_append<fp16>(rope, page_table_kind::page_list, dtype::fp16);
  }
}

// Append then decode: the new tokens are attended to (bottom-right causal over them).
TEST(FmhaAppendKvGpu, AppendThenDecode) {
  REQUIRE_GPU();
  test::paged_config cfg;
  cfg.family = fmha_family::fwd_appendkv;
  cfg.lengths = {100, 7, 0};
  cfg.seqlen_q = 2;
  auto c = test::make_paged_case<bf16>(cfg, dtype::bf16);
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<bf16> kn(std::size_t(3 * 2 * 8 * 128)), vn(kn.size());
  for (auto& x : kn) x = bf16(u(rng));
  for (auto& x : vn) x = bf16(u(rng));
  device_case<bf16> d(c);
  dbuf dkn(kn), dvn(vn);
  auto a = d.args();
  a.k_new = dkn.ptr;
  a.v_new = dvn.ptr;
  ASSERT_TRUE(dec::run_paged_append(c.p, a, nullptr).is_ok());
  // Decode over the grown sequences.
  fmha_paged_problem p = c.p;
  p.family = fmha_family::fwd_splitkv;
  p.mask = fmha_mask::bottom_right;
  for (auto& l : p.seqlens_kv) l += 2;
  dbuf lens(p.seqlens_kv);
  a.seqlens_kv = lens.as<std::int32_t>();
  d.o.poison();
  dec::paged_decoder decoder;
  ASSERT_TRUE(decoder.run(p, a).is_ok());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto o = d.o.get<bf16>();
  // Host: append, then decode.
  auto ha = c.host_args();
  ha.k_new = kn.data();
  ha.v_new = vn.data();
  kernels::host::paged_append<bf16>(c.p, ha);
  std::vector<bf16> ro(c.q.size());
  std::vector<float> rl(std::size_t(3 * 32 * 2));
  ha.o = ro.data();
  ha.lse = rl.data();
  ha.seqlens_kv = p.seqlens_kv.data();
  kernels::host::paged_decode<bf16>(p.normalized(), ha);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < o.size(); ++i) bad += !(std::abs(float(o[i]) - float(ro[i])) <= 1e-2f);
  EXPECT_EQ(bad, 0u);
}

// Every registered serving kernel of this device's arch (decode of both families, every
// dtype, cache and head dim, padded head dims too; prefill), run directly on a case of its
// own signature, against the host reference.
TEST(FmhaPagedRegisteredGpu, EveryDecodeAndPrefillKernelMatchesTheReference) {
  REQUIRE_GPU();
  const device dev = default_device();
  int checked = 0;
  for (const auto& e : registry::global().filter([&](const registered_kernel& k) {
         return k.instance->op() == op_kind::fmha && k.instance->arch() == dev.arch;
       })) {
    const auto* k = dynamic_cast<const fmha_paged_instance*>(e.instance.get());
    if (k == nullptr || k->key().sig.family == fmha_family::fwd_appendkv) continue;
    SCOPED_TRACE(k->name());
    const auto& key = k->key();
    // Padded head dims: 8 below for 16-bit caches, 16 below for fp8 ones (16-byte rows).
    const bool fp8 = key.sig.cache == dtype::fp8;
    for (int hdim : {key.sig.hdim_q, key.sig.hdim_q - (fp8 ? 16 : 8)}) {
      test::paged_config cfg;
      cfg.family = key.sig.family;
      cfg.hdim = hdim;
      cfg.heads_q = 8;
      cfg.heads_kv = 2;
      cfg.fp8_cache = key.sig.cache == dtype::fp8;
      cfg.seed = 11 + checked;
      if (cfg.family == fmha_family::batch_prefill) {
        cfg.lengths = {300, 17, 0};
        cfg.q_lengths = {129, 17, 0};
        cfg.mask = fmha_mask::bottom_right;
        // A prefill key runs exactly its own soft-cap and sinks (paged_prefill_features_reason).
        cfg.soft_cap = key.sig.logits_soft_cap ? 20.0f : 0.0f;
        cfg.sinks = key.sig.sink;
      } else {
        cfg.lengths = {1, 700, 0, 129};
        cfg.seqlen_q = 2;
        cfg.mask = fmha_mask::bottom_right;
        cfg.sinks = true;
        cfg.soft_cap = 20.0f;
        cfg.splits = cfg.family == fmha_family::fwd_splitkv ? 3 : 0;
      }
      const double tol = key.sig.qkv == dtype::bf16 ? 1e-2 : 5e-3;
      errors err;
      if (key.sig.qkv == dtype::bf16) {
        auto c = test::make_paged_case<bf16>(cfg, dtype::bf16);
        err = run_and_compare(c, tol, nullptr, k);
      } else {
        auto c = test::make_paged_case<fp16>(cfg, dtype::fp16);
        err = run_and_compare(c, tol, nullptr, k);
      }
      EXPECT_EQ(err.bad, 0u) << "hdim " << hdim << ": " << err.first << " (max O error " << err.o << ")";
      ++checked;
    }
  }
  EXPECT_GE(checked, 2 * 30) << "decode (24) and prefill (6) kernels for this arch";
}

// A kernel called directly (not through the dispatcher) with an invalid problem returns the
// problem's rule as an error and launches nothing: an fp8 cache with 120-byte rows once
// reached the kernel's 16-byte copies (misaligned address, a sticky CUDA error).
TEST(FmhaPagedRegisteredGpu, DirectCallsWithInvalidProblemsAreRefused) {
  REQUIRE_GPU();
  const device dev = default_device();
  int refused = 0;
  for (const auto& e : registry::global().filter([&](const registered_kernel& k) {
         return k.instance->op() == op_kind::fmha && k.instance->arch() == dev.arch;
       })) {
    const auto* k = dynamic_cast<const fmha_paged_instance*>(e.instance.get());
    if (k == nullptr || k->key().sig.cache != dtype::fp8 || k->key().sig.family == fmha_family::fwd_appendkv) continue;
    SCOPED_TRACE(k->name());
    test::paged_config cfg;
    cfg.family = k->key().sig.family;
    cfg.hdim = k->key().sig.hdim_q - 8;
    cfg.heads_q = 8;
    cfg.heads_kv = 2;
    cfg.fp8_cache = true;
    cfg.lengths = {1, 70};
    auto c = test::make_paged_case<bf16>(cfg, dtype::bf16);
    device_case<bf16> d(c);
    const auto a = d.args();
    const auto why = k->why_not_paged(c.p, a);
    ASSERT_TRUE(why.has_value());
    EXPECT_NE(why->find("multiples of 16"), std::string::npos) << *why;
    const status st = k->run_paged(c.p, a, nullptr);
    EXPECT_FALSE(st.is_ok());
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ++refused;
  }
  EXPECT_GE(refused, 6) << "fp8-cache decode kernels for this arch";
}

}  // namespace
}  // namespace kdecl
