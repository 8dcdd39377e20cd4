// The NVIDIA arch tables against the CUDA kernels: every key the tables accept
// must be one the kernel builds (tables may be narrower, never wider).
//
// The kernels' own constexpr checks are the authority:
//   tma_wgmma: kernels::cuda::sm90::key_unsupported_reason(key), smem_bytes_for(key)
//   cp_async:  kernels::cuda::sm80::key_unsupported_reason(key), sm80_smem_bytes(key)
//   gemv:      kernels::cuda::gemv::key_unsupported_reason(key) (no shared-memory ring)
// and the tables' shared-memory formula must give the kernel's byte count exactly.
//
// Compile time: static_asserts over wildcard sets expanded with dsl::expand (the
// error names the first offending key and the kernel's reason). Run time (GTest):
// much broader wildcard sets walked with dsl::for_each_key, plus the converse on a
// sample: keys a kernel builds that the tables reject (allowed: narrower) are
// counted and reported.
//
// nvcc -std=c++20 --expt-relaxed-constexpr -Xcudafe --max_cost_constexpr_call=400000000
//      -Xcompiler -fconstexpr-ops-limit=1073741824   (see docs/perf/compile_time.md)
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include "kdecl/dsl/dsl.hpp"
#include "kdecl/kernels/gemm/cuda/gemv/gemv_config.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/config.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90_config.cuh"

namespace agreement {

using namespace kdecl;

// nullptr when the CUDA kernel of the key's pipeline builds it, else why not.
constexpr const char* kernel_reason(const gemm_key& k) {
  const arch::arch_spec& spec = spec_of(k.algo.arch);
  const arch::pipeline_caps* caps = spec.find(k.algo.pipe);
  if (caps == nullptr) return "the target's table has no such pipeline";
  if (k.algo.pipe == pipeline::tma_wgmma) {
    if (k.algo.arch != arch_id::sm_90) return "tma_wgmma is built for sm_90 only";
    if (const char* why = kernels::cuda::sm90::key_unsupported_reason(k)) return why;
    if (kernels::cuda::sm90::smem_bytes_for(k) != dsl::gemm_rules::smem_use(k, *caps))
      return "the table's shared-memory formula differs from sm90::smem_bytes_for";
    return nullptr;
  }
  if (k.algo.pipe == pipeline::cp_async) {
    if (const char* why = kernels::cuda::sm80::key_unsupported_reason(k)) return why;
    const int bytes = kernels::cuda::sm80::sm80_smem_bytes(k);
    if (bytes != dsl::gemm_rules::smem_use(k, *caps))
      return "the table's shared-memory formula differs from sm80_smem_bytes";
    if (bytes > spec.smem_per_block) return "sm80_smem_bytes exceeds the target's opt-in shared memory";
    const bool fp8 = dsl::gemm_rules::is_fp8_family(k.sig.a) || dsl::gemm_rules::is_fp8_family(k.sig.b);
    if (fp8 && k.algo.arch != arch_id::sm_89 && k.algo.arch != arch_id::sm_90)
      return "fp8/bf8 mma.sync needs an sm_89 or sm_90 build";
    return nullptr;
  }
  if (k.algo.pipe == pipeline::gemv) {
    if (const char* why = kernels::cuda::gemv::key_unsupported_reason(k)) return why;
    if (dsl::gemm_rules::smem_use(k, *caps) != 0) return "gemv uses no dynamic shared memory";
    return nullptr;
  }
  return "no CUDA kernel implements this pipeline";
}

// ---- the sets ---------------------------------------------------------------------------
namespace sets {
using namespace kdecl::dsl;
using kdecl::dsl::any;

// tma_wgmma, every field a wildcard (the layout per declaration), plus multi_d.
constexpr auto tma(gemm_layout l) {
  return gemm().dtypes(any, any, any).layout(l).tile(any).warps(any).warp_tile(any).pipeline(tma_wgmma)
      .stages(any).epilogue(any).scheduler(any).vector_bytes(any).cluster(any, any).pad(true, false, true);
}
inline constexpr auto tma_all = kernel_set(targets(sm_90), tma(rcr), tma(rrr), tma(crr), tma(ccr),
                                           tma(rcr).multi_d(gelu, 4), tma(ccr).multi_d(multi_d_add, 1),
                                           tma(rcc), tma(crc).multi_d(gelu, 1),  // column-major C
                                           tma(rcr).variant(block_scaled));

// cp_async on every NVIDIA target: signatures x tiles x stages, both C majors, preshuffle.
constexpr auto cp(gemm_layout l) {
  return gemm().dtypes(any, any, any).layout(l).tile(any, any, 32).warps(2, 2, 1).warp_tile(32, 32, any)
      .pipeline(cp_async).stages(any).epilogue(cshuffle).vector_bytes(16);
}
inline constexpr auto cp_async_compile = kernel_set(targets(sm_80, sm_86, sm_89, sm_90), cp(rcr), cp(ccc),
                                                    cp(rcc).variant(preshuffle));

// Run time: everything a wildcard, per layout and variant.
constexpr auto cp_wide(gemm_layout l) {
  return gemm().dtypes(any, any, any).layout(l).tile(any).warps(any).warp_tile(any).pipeline(cp_async)
      .stages(any).epilogue(any).scheduler(any).vector_bytes(any).cluster(any, any).pad(true, false, true);
}
inline constexpr auto cp_async_wide = kernel_set(
    targets(sm_80, sm_86, sm_89, sm_90), cp_wide(rcr), cp_wide(rrr), cp_wide(crr), cp_wide(ccr), cp_wide(rcc),
    cp_wide(rrc), cp_wide(crc), cp_wide(ccc), cp_wide(rcr).variant(preshuffle), cp_wide(rrr).multi_d(relu, 3));
// Block-scaled fp8 (sm_89 and sm_90 have fp8 mma.sync): k tiles inside a scale block, tile_n inside one B block.
inline constexpr auto cp_async_block_scaled = kernel_set(targets(sm_89, sm_90), cp_wide(rcr).variant(block_scaled));

// gemv: every wildcard, both C majors (the only layouts it offers).
constexpr auto gemv_wide(gemm_layout l) {
  return gemm().dtypes(any, any, any).layout(l).tile(any).warps(any).warp_tile(any).pipeline(gemv).stages(any)
      .epilogue(any).scheduler(any).vector_bytes(any).cluster(any, any);
}
inline constexpr auto gemv_all = kernel_set(targets(sm_80, sm_86, sm_89, sm_90), gemv_wide(rcr), gemv_wide(rcc));
}  // namespace sets

// ---- compile time -------------------------------------------------------------------------
// The first key of `keys` the kernel rejects, described, with the kernel's reason.
struct verdict {
  bool ok = true;
  dsl::message key{};
  dsl::message reason{};
};

template <std::size_t N>
constexpr verdict check_all(const std::array<gemm_key, N>& keys) {
  for (const auto& k : keys)
    if (const char* why = kernel_reason(k)) return {false, dsl::describe_key(k), dsl::message{} << why};
  return {};
}

template <dsl::message Key, dsl::message Reason>
struct table_wider_than_kernel {
  static_assert(Key.text[0] == 0,
                "kdecl: the arch tables accept a key the kernel does not build: the key and the kernel's reason "
                "are the template arguments of table_wider_than_kernel above");
  static constexpr bool raised = true;
};

template <const auto& Set>
consteval std::size_t check_set() {
  constexpr auto keys = dsl::expand<Set>();
  constexpr verdict v = check_all(keys);
  if constexpr (!v.ok) static_assert(table_wider_than_kernel<v.key, v.reason>::raised);
  return keys.size();
}

inline constexpr std::size_t tma_compile_keys = check_set<sets::tma_all>();
inline constexpr std::size_t cp_async_compile_keys = check_set<sets::cp_async_compile>();
inline constexpr std::size_t gemv_compile_keys = check_set<sets::gemv_all>();
static_assert(tma_compile_keys > 0 && cp_async_compile_keys > 0 && gemv_compile_keys > 0);

}  // namespace agreement

namespace {

using namespace kdecl;
using agreement::kernel_reason;

// Walks a set at run time; every key must pass the kernel's check.
template <class Set>
void expect_kernel_builds_every_key(const Set& set, const char* name) {
  std::map<arch_id, long> per_arch;
  long failures = 0;
  const auto err = dsl::for_each_key(set, [&](const gemm_key& k) {
    ++per_arch[k.algo.arch];
    if (const char* why = kernel_reason(k)) {
      if (++failures <= 20)
        ADD_FAILURE() << "table accepts a key the kernel rejects: " << dsl::describe_key(k).view() << "\n  kernel: "
                      << why;
    }
  });
  ASSERT_TRUE(err.ok()) << dsl::describe(err).view();
  long total = 0;
  for (const auto& [a, n] : per_arch) {
    std::printf("[%s] %s: %ld keys checked\n", name, std::string(to_string(a)).c_str(), n);
    total += n;
  }
  EXPECT_GT(total, 0);
  EXPECT_EQ(failures, 0);
}

TEST(TableKernelAgreement, CompileTimeSetsHaveKeys) {
  std::printf("compile-time checked: tma_wgmma %zu keys, cp_async %zu keys\n", agreement::tma_compile_keys,
              agreement::cp_async_compile_keys);
  EXPECT_GT(agreement::tma_compile_keys, 1000u);
  EXPECT_GT(agreement::cp_async_compile_keys, 1000u);
}

TEST(TableKernelAgreement, TmaWgmmaEveryWildcard) {
  expect_kernel_builds_every_key(agreement::sets::tma_all, "tma_wgmma");
}

TEST(TableKernelAgreement, GemvEveryWildcard) {
  std::printf("compile-time checked: gemv %zu keys\n", agreement::gemv_compile_keys);
  expect_kernel_builds_every_key(agreement::sets::gemv_all, "gemv");
}

TEST(TableKernelAgreement, CpAsyncEveryWildcard) {
  expect_kernel_builds_every_key(agreement::sets::cp_async_wide, "cp_async");
  expect_kernel_builds_every_key(agreement::sets::cp_async_block_scaled, "cp_async block_scaled");
}

// ---- the converse, on a sample: keys a kernel builds that the tables reject ----------
// A deterministic grid walked with a stride; allowed (tables may be narrower), reported.
struct converse_report {
  long sampled = 0, kernel_builds = 0, tables_reject = 0;
  std::map<std::string, long> by_rule;
  std::string example;
};

converse_report sample_converse(arch_id target, pipeline pipe) {
  constexpr dtype float_c[] = {dtype::fp16, dtype::bf16, dtype::fp32};
  struct sig_choice { dtype a, b, acc, compute; };
  constexpr sig_choice sigs[] = {
      {dtype::fp16, dtype::fp16, dtype::fp32, dtype::fp16}, {dtype::bf16, dtype::bf16, dtype::fp32, dtype::bf16},
      {dtype::fp32, dtype::fp32, dtype::fp32, dtype::tf32}, {dtype::fp32, dtype::fp32, dtype::fp32, dtype::fp32},
      {dtype::int8, dtype::int8, dtype::int32, dtype::int8}, {dtype::fp8, dtype::bf8, dtype::fp32, dtype::fp8}};
  constexpr int warps[][2] = {{1, 1}, {1, 2}, {2, 1}, {2, 2}, {2, 4}, {4, 2}, {4, 4}, {1, 8}, {8, 1}, {4, 1}};
  constexpr int wt_mn[] = {16, 32, 48, 64, 128, 192, 256};
  constexpr int tile_mn[] = {16, 32, 48, 64, 96, 128, 192, 256, 320};
  constexpr int tile_k[] = {8, 16, 32, 48, 64, 128};
  constexpr int wt_k_mult[] = {1, 2};
  converse_report r;
  // Mixed-radix counter over the grid; a stride coprime with the grid size visits a spread sample.
  const long dims[] = {6, 3, 8, 10, 7, 7, 2, 9, 9, 6, 14, 2, 3, 3};
  long total = 1;
  for (long d : dims) total *= d;
  const long samples = 400000, stride = 7919 * 104729L + 1;
  for (long s = 0, x = 0; s < samples; ++s, x = (x + stride) % total) {
    long v[14];
    long rest = x;
    for (int i = 0; i < 14; ++i) {
      v[i] = rest % dims[i];
      rest /= dims[i];
    }
    gemm_key k{};
    const auto& sc = sigs[v[0]];
    k.sig.a = sc.a; k.sig.b = sc.b; k.sig.acc = sc.acc; k.sig.compute = sc.compute;
    k.sig.c = sc.acc == dtype::int32 ? (v[1] == 0 ? dtype::int32 : dtype::int8) : float_c[v[1]];
    k.sig.lay = arch::layout_of_index(static_cast<unsigned>(v[2]));
    k.algo.arch = target;
    k.algo.pipe = pipe;
    k.algo.warps = {warps[v[3]][0], warps[v[3]][1], 1};
    const int mma_k = pipe == pipeline::tma_wgmma ? 16 : kernels::cuda::sm80::mma_k_elems(sc.compute);
    k.algo.warp_tile = {wt_mn[v[4]], wt_mn[v[5]], mma_k * wt_k_mult[v[6]]};
    k.algo.tile = {tile_mn[v[7]], tile_mn[v[8]], tile_k[v[9]]};
    k.algo.stages = 2 + static_cast<int>(v[10]);
    k.algo.epi = v[11] == 0 ? epilogue::direct : epilogue::cshuffle;
    k.algo.sched = scheduler::intrawave;
    k.algo.vector_bytes = 4 << v[12];
    k.algo.pad_m = k.algo.pad_n = k.algo.pad_k = tristate::yes;
    if (v[13] == 1) k.sig.variant = gemm_variant::preshuffle;
    if (v[13] == 2) {
      k.sig.variant = gemm_variant::multi_d;
      k.sig.ew = elementwise::relu;
      k.sig.num_d = 2;
    }
    ++r.sampled;
    if (kernel_reason(k) != nullptr) continue;
    ++r.kernel_builds;
    const dsl::diagnostic d = dsl::validate(k, target);
    if (d.ok()) continue;
    ++r.tables_reject;
    ++r.by_rule[std::string(dsl::describe(d).view()).substr(0, 60)];
    if (r.example.empty())
      r.example = std::string(dsl::describe_key(k).view()) + "\n    tables: " + std::string(dsl::describe(d).view());
  }
  return r;
}

// tma_wgmma's space is small: walk it whole (every dtype, layout, warps, warp tile,
// tile m, stages, epilogue, variant; tile_n = warp_tile_n, tile_k 64, vector 16).
converse_report exhaustive_tma() {
  converse_report r;
  const dtype ins[] = {dtype::fp16, dtype::bf16};
  const dtype outs[] = {dtype::fp16, dtype::bf16, dtype::fp32};
  for (dtype a : ins)
    for (dtype c : outs)
      for (unsigned lay = 0; lay < 8; ++lay)
        for (int wm : {4, 8})
          for (int n : {64, 128, 192, 256})
            for (int m = 64; m <= 320; m += 64)
              for (int st = 2; st <= 16; ++st)
                for (epilogue e : {epilogue::direct, epilogue::cshuffle})
                  for (int var = 0; var < 3; ++var) {
                    gemm_key k{};
                    k.sig = {a, a, c, dtype::fp32, a, arch::layout_of_index(lay)};
                    if (var == 1) k.sig.variant = gemm_variant::preshuffle;
                    if (var == 2) k.sig = {a, a, c, dtype::fp32, a, arch::layout_of_index(lay), gemm_variant::multi_d,
                                           elementwise::gelu, 3};
                    k.algo.arch = arch_id::sm_90;
                    k.algo.pipe = pipeline::tma_wgmma;
                    k.algo.warps = {wm, 1, 1};
                    k.algo.warp_tile = {16, n, 16};
                    k.algo.tile = {m, n, 64};
                    k.algo.stages = st;
                    k.algo.epi = e;
                    k.algo.sched = scheduler::intrawave;
                    k.algo.vector_bytes = 16;
                    k.algo.pad_m = k.algo.pad_n = k.algo.pad_k = tristate::yes;
                    ++r.sampled;
                    if (kernel_reason(k) != nullptr) continue;
                    ++r.kernel_builds;
                    const dsl::diagnostic d = dsl::validate(k, arch_id::sm_90);
                    if (d.ok()) continue;
                    ++r.tables_reject;
                    ++r.by_rule[std::string(dsl::describe(d).view()).substr(0, 60)];
                    if (r.example.empty())
                      r.example = std::string(dsl::describe_key(k).view()) + "\n    tables: " +
                                  std::string(dsl::describe(d).view());
                  }
  return r;
}

void print(const char* what, const converse_report& r) {
  std::printf("[converse %s] sampled %ld, kernel builds %ld, tables reject %ld of those (narrower: allowed)\n", what,
              r.sampled, r.kernel_builds, r.tables_reject);
  int shown = 0;
  for (const auto& [rule, n] : r.by_rule)
    if (shown++ < 8) std::printf("    %6ld x %s\n", n, rule.c_str());
  if (!r.example.empty()) std::printf("  e.g. %s\n", r.example.c_str());
}

TEST(TableKernelAgreement, ConverseSampleIsReported) {
  const converse_report tma = exhaustive_tma();
  print("sm_90 tma_wgmma (exhaustive)", tma);
  EXPECT_GT(tma.kernel_builds, 0);
  EXPECT_LT(tma.tables_reject, tma.kernel_builds);
  const std::pair<arch_id, const char*> cases[] = {
      {arch_id::sm_80, "sm_80 cp_async (sample)"}, {arch_id::sm_86, "sm_86 cp_async (sample)"},
      {arch_id::sm_89, "sm_89 cp_async (sample)"}, {arch_id::sm_90, "sm_90 cp_async (sample)"}};
  long builds = 0;
  for (const auto& [target, what] : cases) {
    const converse_report r = sample_converse(target, pipeline::cp_async);
    builds += r.kernel_builds;
    print(what, r);
  }
  EXPECT_GT(builds, 0) << "the sample never hit a key the kernels build: widen the grid";
}

}  // namespace
