// The AMD arch tables against kdecl's HIP kernels (compile-only here): every key
// the gfx90a / gfx942 tables accept must be one the kernel builds, i.e.
// kernels::hip::hip_gemm_unsupported(key) == nullptr, and the tables' LDS formula
// must give the kernel's byte count (geometry_of(key).lds_bytes) exactly; every
// convolution key they accept one the HIP convolution builds (conv_hip_unsupported_reason).
// Plain C++ (gemm_hip_geometry.hpp has no HIP header), built with the host compiler.
//
// Compile time: a static_assert over a wildcard set expanded with dsl::expand.
// Run time (GTest): every pipeline / dtype / C / layout / tile / warps / warp tile /
// epilogue / width wildcard, walked with dsl::for_each_key; the converse on an
// exhaustive grid (keys the kernel builds that the tables reject: allowed, reported).
// The CK seed tables stay as data; targets without a kdecl kernel (gfx908, gfx950,
// RDNA) are checked to report kernels_available == false.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <map>
#include <string>

#include "kdecl/dsl/dsl.hpp"
#include "kdecl/conv/grouped_conv_name.hpp"
#include "kdecl/kernels/conv/hip/conv_hip_rules.hpp"
#include "kdecl/kernels/gemm/hip/gemm_hip_geometry.hpp"

namespace agreement {

using namespace kdecl;

constexpr const char* kernel_reason(const gemm_key& k) {
  if (const char* why = kernels::hip::hip_gemm_unsupported(k)) return why;
  const arch::pipeline_caps* caps = spec_of(k.algo.arch).find(k.algo.pipe);
  if (caps == nullptr) return "the target's table has no such pipeline";
  if (kernels::hip::geometry_of(k).lds_bytes != dsl::gemm_rules::smem_use(k, *caps))
    return "the table's LDS formula differs from hip geometry_of(key).lds_bytes";
  return nullptr;
}

namespace sets {
using namespace kdecl::dsl;
using kdecl::dsl::any;

constexpr auto all(gemm_layout l) {
  return gemm().dtypes(any, any, any).layout(l).tile(any, 128, 32).warps(any).warp_tile(any).pipeline(any)
      .stages(any).epilogue(cshuffle).scheduler(any).vector_bytes(16);
}
inline constexpr auto compile_set = kernel_set(targets(gfx90a, gfx942), all(rcr), all(crr).multi_d(sigmoid, 2));

constexpr auto wide(gemm_layout l) {
  return gemm().dtypes(any, any, any).layout(l).tile(any).warps(any).warp_tile(any).pipeline(any).stages(any)
      .epilogue(any).scheduler(any).vector_bytes(any).cluster(any, any).pad(any, true, false);
}
inline constexpr auto wide_set = kernel_set(targets(gfx90a, gfx942), wide(rcr), wide(rrr), wide(crr), wide(ccr),
                                            wide(rcr).multi_d(gelu, 4));
// Convolutions: every tile, warp layout, warp tile, pipeline, stage count and epilogue of each
// direction, dtype, rank and layout, narrow vectors, fused epilogues.
constexpr auto conv_sweep(kdecl::conv_direction d, kdecl::dtype t) {
  return grouped_conv().direction(d).dtype(t).tile(any).warps(any).warp_tile(any).pipeline(any).stages(any)
      .epilogue(any);
}
constexpr auto conv_fwd = kdecl::conv_direction::fwd;
inline constexpr auto conv_set = kernel_set(
    targets(gfx90a, gfx942), conv_sweep(conv_fwd, fp16), conv_sweep(conv_fwd, bf16).ndim(3).layout(gndhwc),
    conv_sweep(conv_fwd, fp32).ndim(1).layout(nwgc), conv_sweep(conv_fwd, bf16).vector_sizes(2, 2, 2),
    conv_sweep(conv_fwd, bf16).bias().residual().activation(relu), conv_sweep(conv_fwd, fp16).bias().activation(gelu),
    conv_sweep(bwd_data, bf16), conv_sweep(bwd_data, fp32).ndim(3).layout(ndhwgc),
    conv_sweep(bwd_data, fp16).vector_sizes(4, 2, 2), conv_sweep(bwd_weight, fp16),
    conv_sweep(bwd_weight, bf16).ndim(1).layout(gnwc), conv_sweep(bwd_weight, fp32).vector_sizes(1, 2, 4));
}  // namespace sets

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
                "kdecl: the arch tables accept a key the HIP kernel does not build: the key and the kernel's reason "
                "are the template arguments of table_wider_than_kernel above");
  static constexpr bool raised = true;
};

consteval std::size_t check_compile_set() {
  constexpr auto keys = dsl::expand<sets::compile_set>();
  constexpr verdict v = check_all(keys);
  if constexpr (!v.ok) static_assert(table_wider_than_kernel<v.key, v.reason>::raised);
  return keys.size();
}
inline constexpr std::size_t compile_keys = check_compile_set();

}  // namespace agreement

namespace {

using namespace kdecl;
using agreement::kernel_reason;

TEST(TableHipAgreement, CompileTimeSetHasKeys) {
  std::printf("compile-time checked: %zu keys\n", agreement::compile_keys);
  EXPECT_GT(agreement::compile_keys, 500u);
}

TEST(TableHipAgreement, EveryWildcardKeyIsBuilt) {
  std::map<std::string, long> per_target;
  long failures = 0;
  const auto err = dsl::for_each_key(agreement::sets::wide_set, [&](const gemm_key& k) {
    ++per_target[std::string(to_string(k.algo.arch)) + " " + std::string(to_string(k.algo.pipe))];
    if (const char* why = kernel_reason(k))
      if (++failures <= 20)
        ADD_FAILURE() << "table accepts a key the HIP kernel rejects: " << dsl::describe_key(k).view()
                      << "\n  kernel: " << why;
  });
  ASSERT_TRUE(err.ok()) << dsl::describe(err).view();
  for (const auto& [what, n] : per_target) std::printf("[hip] %s: %ld keys checked\n", what.c_str(), n);
  EXPECT_EQ(per_target.size(), 6u);  // mem, compv3, compv4 on gfx90a and gfx942
  EXPECT_EQ(failures, 0);
}

TEST(TableHipAgreement, EveryConvolutionKeyIsBuilt) {
  std::map<std::string, long> per_direction;
  long failures = 0;
  const auto err = dsl::for_each_key(agreement::sets::conv_set, [&](const grouped_conv_key& k) {
    ++per_direction[std::string(to_string(k.algo.arch)) + " " + std::string(to_string(k.sig.dir))];
    if (const char* why = kernels::hip::conv_hip_unsupported_reason(k))
      if (++failures <= 20)
        ADD_FAILURE() << "table accepts a convolution the HIP kernel rejects: " << kernel_name(k)
                      << "\n  kernel: " << why;
  });
  ASSERT_TRUE(err.ok()) << dsl::describe(err).view();
  for (const auto& [what, n] : per_direction) std::printf("[hip conv] %s: %ld keys checked\n", what.c_str(), n);
  EXPECT_EQ(per_direction.size(), 6u);  // three directions on gfx90a and gfx942
  EXPECT_EQ(failures, 0);
}

TEST(TableHipAgreement, OnlyKernelTargetsClaimKernels) {
  for (arch_id a : {arch_id::gfx90a, arch_id::gfx942}) {
    EXPECT_TRUE(spec_of(a).kernels_available);
    EXPECT_TRUE(spec_of(a).conv_kernels_available());
  }
  for (arch_id a : {arch_id::gfx908, arch_id::gfx950, arch_id::gfx1100, arch_id::gfx1200, arch_id::gfx1201})
    EXPECT_FALSE(spec_of(a).kernels_available) << to_string(a);
}

// The converse on a grid: keys hip_gemm_unsupported accepts that the tables reject.
TEST(TableHipAgreement, ConverseIsReported) {
  const dtype types[] = {dtype::fp16, dtype::bf16, dtype::fp32, dtype::int8, dtype::fp8, dtype::bf8};
  const int warps[][2] = {{1, 4}, {2, 2}, {4, 1}, {1, 1}, {2, 1}, {4, 4}};
  const int tiles_mn[] = {32, 64, 96, 128, 192, 256};
  const int tiles_k[] = {16, 32, 64, 128};
  const int wts[][2] = {{16, 4}, {16, 8}, {16, 16}, {16, 32}, {16, 64}, {32, 8}, {32, 16}, {32, 32}};
  for (arch_id target : {arch_id::gfx90a, arch_id::gfx942}) {
    long sampled = 0, builds = 0, rejects = 0;
    std::map<std::string, long> by_rule;
    std::string example;
    for (dtype a : types)
      for (dtype c : {dtype::fp16, dtype::fp32, dtype::int32})
        for (unsigned lay : {0u, 2u, 4u, 6u, 3u})
          for (pipeline p : {pipeline::mem, pipeline::compv3, pipeline::compv4})
            for (const auto& w : warps)
              for (const auto& wt : wts)
                for (int m : tiles_mn)
                  for (int n : tiles_mn)
                    for (int kk : tiles_k)
                      for (epilogue e : {epilogue::direct, epilogue::cshuffle}) {
                        gemm_key k{};
                        k.sig = {a, a, c, default_accumulator(a), a, arch::layout_of_index(lay)};
                        k.algo.arch = target;
                        k.algo.pipe = p;
                        k.algo.stages = p == pipeline::compv4 ? 2 : 1;
                        k.algo.warps = {w[0], w[1], 1};
                        k.algo.warp_tile = {wt[0], wt[0], wt[1]};
                        k.algo.tile = {m, n, kk};
                        k.algo.epi = e;
                        k.algo.sched = scheduler::intrawave;
                        k.algo.vector_bytes = 16;
                        k.algo.pad_m = k.algo.pad_n = k.algo.pad_k = tristate::yes;
                        ++sampled;
                        if (kernel_reason(k) != nullptr) continue;
                        ++builds;
                        const dsl::diagnostic d = dsl::validate(k, target);
                        if (d.ok()) continue;
                        ++rejects;
                        ++by_rule[std::string(dsl::describe(d).view()).substr(0, 50)];
                        if (example.empty())
                          example = std::string(dsl::describe_key(k).view()) + "\n    tables: " +
                                    std::string(dsl::describe(d).view());
                      }
    std::printf("[converse %s] grid %ld, kernel builds %ld, tables reject %ld of those (narrower: allowed)\n",
                std::string(to_string(target)).c_str(), sampled, builds, rejects);
    std::multimap<long, std::string, std::greater<>> top;
    for (const auto& [r, n] : by_rule) top.emplace(n, r);
    int shown = 0;
    for (const auto& [n, r] : top)
      if (shown++ < 8) std::printf("    %6ld x %s\n", n, r.c_str());
    if (!example.empty()) std::printf("  e.g. %s\n", example.c_str());
    EXPECT_GT(builds, 0);
  }
}

}  // namespace
