// Properties of every kernel the library ships (the instances/ sets), on any machine.
#include <gtest/gtest.h>

#include <set>

#include "kdecl/dsl/dsl.hpp"
#include "kdecl/gemm/gemm_dispatcher.hpp"
#include "kdecl/io/key_json.hpp"
#include "kdecl/runtime/gemm_check.hpp"

namespace kdecl {
namespace {

TEST(ShippedInstances, AreRegisteredWithoutDuplicates) {
  auto& reg = registry::global();
  EXPECT_GT(reg.size(), 100u);
  EXPECT_TRUE(reg.check().is_ok()) << reg.check().message();
  auto sets = reg.set_names();
  std::set<std::string> names(sets.begin(), sets.end());
  for (const char* s : {"gemm_host_fp16", "gemm_host_bf16", "gemm_host_fp32", "gemm_host_tf32", "gemm_host_fp64",
                        "gemm_host_int8", "gemm_host_fp8", "gemm_host_bf8"})
    EXPECT_TRUE(names.count(s)) << s;
#if KDECL_WITH_CUDA
  for (const char* s : {"gemm_sm90_tma_fp16", "gemm_sm90_tma_bf16", "gemm_sm90_tma_multi_d", "gemm_sm90_tma_fp8",
                        "gemm_sm90_tma_int8", "gemm_sm90_tma_tf32", "gemm_cp_async_16bit",
                        "gemm_cp_async_32bit"})
    EXPECT_TRUE(names.count(s)) << s;
#endif
}

TEST(ShippedInstances, NamesAreUniqueAndParseBackToTheirKeys) {
  std::set<std::string> seen;
  for (const auto& k : registry::global().gemm_kernels()) {
    EXPECT_TRUE(seen.insert(k->name()).second) << k->name();
    EXPECT_EQ(parse_gemm_name(k->name()), k->key()) << k->name();
    EXPECT_EQ(kernel_name(k->key()), k->name());
  }
}

TEST(ShippedInstances, EveryKeyIsValidForItsArch) {
  for (const auto& k : registry::global().gemm_kernels()) {
    auto d = dsl::validate(k->key(), k->arch());
    EXPECT_TRUE(d.ok()) << k->name() << ": " << dsl::describe(d).view();
  }
}

TEST(ShippedInstances, RegistryJsonRoundTrips) {
  auto imported = import_registry(nlohmann::json::parse(export_registry(registry::global()).dump()));
  auto kernels = registry::global().gemm_kernels();
  ASSERT_EQ(imported.size(), kernels.size());
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    EXPECT_EQ(imported[i].name, kernels[i]->name());
    EXPECT_EQ(imported[i].key, kernels[i]->key());
  }
}

// Every host instance against the double reference on an odd-sized problem (random data,
// output poisoned first): M, N, K are not multiples of any tile.
TEST(ShippedInstances, EveryHostInstanceMatchesTheReference) {
  gemm_dispatcher dispatcher(device::host());
  int checked = 0;
  for (const auto& k : registry::global().gemm_kernels()) {
    if (k->arch() != arch_id::host) continue;
    gemm_problem p;
    p.sizes(67, 45, 131).batched(2);
    p.sig = k->key().sig;
    auto r = run_and_check(dispatcher, p, 1.5f, k->key().sig.acc == dtype::int32 ? 0.0f : 0.5f, k->name(), 7 + checked);
    EXPECT_TRUE(r.passed) << k->name() << ": error " << r.error << " > " << r.tolerance;
    ++checked;
  }
  EXPECT_GT(checked, 100);
}

}  // namespace
}  // namespace kdecl
