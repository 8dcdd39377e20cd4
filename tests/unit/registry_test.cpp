#include <gtest/gtest.h>

#include <thread>

#include "kdecl/io/key_json.hpp"
#include "kdecl/registry/registry.hpp"
#include "test_keys.hpp"

namespace kdecl {
namespace {

using testing::make_key;
using testing::recording_gemm;

TEST(Registry, KeepsNameOrderAndFindsByName) {
  registry reg;
  EXPECT_TRUE(reg.add(std::make_shared<recording_gemm>(make_key(dtype::fp16, rcr, 256, 128, 64)), "a"));
  EXPECT_TRUE(reg.add(std::make_shared<recording_gemm>(make_key(dtype::bf16, rcr, 128, 128, 64)), "b"));
  EXPECT_TRUE(reg.add(std::make_shared<recording_gemm>(make_key(dtype::fp16, rcr, 128, 128, 64)), "a"));
  auto all = reg.all();
  ASSERT_EQ(all.size(), 3u);
  for (std::size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1].instance->name(), all[i].instance->name());
  auto name = kernel_name(make_key(dtype::bf16, rcr, 128, 128, 64));
  ASSERT_NE(reg.find(name), nullptr);
  EXPECT_EQ(reg.find(name)->name(), name);
  EXPECT_EQ(reg.find("gemm_nothing"), nullptr);
  EXPECT_EQ(reg.set_names(), (std::vector<std::string>{"a", "b"}));
}

TEST(Registry, ReportsDuplicatesAndKeepsTheFirst) {
  registry reg;
  auto k = make_key(dtype::fp16, rcr, 256, 128, 64);
  auto first = std::make_shared<recording_gemm>(k);
  EXPECT_TRUE(reg.add(first, "my_set"));
  EXPECT_FALSE(reg.add(std::make_shared<recording_gemm>(k), "my_set"));  // the set linked twice
  EXPECT_EQ(reg.size(), 1u);
  EXPECT_EQ(reg.find(kernel_name(k)), first);
  ASSERT_EQ(reg.duplicates().size(), 1u);
  EXPECT_EQ(reg.duplicates()[0].first_set, "my_set");
  auto st = reg.check();
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find(kernel_name(k)), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("my_set"), std::string::npos);
}

TEST(Registry, OverlappingSetsAreReportedNotErrors) {
  registry reg;
  auto k = make_key(dtype::fp16, rcr, 256, 128, 64);
  EXPECT_TRUE(reg.add(std::make_shared<recording_gemm>(k), "essential"));
  EXPECT_FALSE(reg.add(std::make_shared<recording_gemm>(k), "full"));  // same kernel, another set
  EXPECT_EQ(reg.size(), 1u);
  EXPECT_TRUE(reg.duplicates().empty());
  ASSERT_EQ(reg.overlaps().size(), 1u);
  EXPECT_EQ(reg.overlaps()[0].first_set, "essential");
  EXPECT_EQ(reg.overlaps()[0].second_set, "full");
  EXPECT_TRUE(reg.check().is_ok());
}

TEST(Registry, FiltersByAnyKeyField) {
  registry reg;
  reg.add(std::make_shared<recording_gemm>(make_key(dtype::fp16, rcr, 256, 128, 64)), "s");
  reg.add(std::make_shared<recording_gemm>(make_key(dtype::fp16, rrr, 128, 128, 64)), "s");
  reg.add(std::make_shared<recording_gemm>(make_key(dtype::bf16, rcr, 128, 128, 64, arch_id::sm_80)), "s");
  auto fp16_rcr = reg.filter([](const registered_kernel& e) {
    const auto& k = static_cast<const gemm_instance&>(*e.instance).key();
    return k.sig.a == dtype::fp16 && k.sig.lay == rcr;
  });
  ASSERT_EQ(fp16_rcr.size(), 1u);
  auto sm80 = reg.filter([](const registered_kernel& e) { return e.instance->arch() == arch_id::sm_80; });
  ASSERT_EQ(sm80.size(), 1u);
}

TEST(Registry, ConcurrentLookupsDuringRegistration) {
  registry reg;
  std::atomic<bool> stop{false};
  std::vector<std::thread> readers;
  std::atomic<std::size_t> reads{0};
  for (int t = 0; t < 4; ++t)
    readers.emplace_back([&] {
      while (!stop) {
        auto all = reg.all();
        for (std::size_t i = 1; i < all.size(); ++i)
          ASSERT_LT(all[i - 1].instance->name(), all[i].instance->name());
        ++reads;
      }
    });
  for (int tm : {16, 32, 64, 128, 256})
    for (int tn : {16, 32, 64, 128, 256})
      for (int tk : {16, 32, 64, 128})
        reg.add(std::make_shared<recording_gemm>(make_key(dtype::fp16, rcr, tm, tn, tk)), "s");
  while (reads.load() < 8) std::this_thread::yield();  // every reader has seen the registry
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(reg.size(), 100u);
  EXPECT_GT(reads.load(), 0u);
}

TEST(RegistryJson, ExportImportRoundTrips) {
  registry reg;
  std::vector<gemm_key> keys{make_key(dtype::fp16, rcr, 256, 128, 64), make_key(dtype::int8, rcr, 128, 128, 64),
                             make_key(dtype::bf16, ccr, 64, 64, 64, arch_id::host, pipeline::host_blocked)};
  keys[1].sig.c = dtype::int32;
  keys[1].sig.acc = dtype::int32;
  keys[2].sig.variant = gemm_variant::multi_d;
  keys[2].sig.ew = elementwise::gelu;
  keys[2].sig.num_d = 2;
  for (const auto& k : keys) reg.add(std::make_shared<recording_gemm>(k), "round_trip");
  auto text = export_registry(reg).dump(2);
  auto imported = import_registry(nlohmann::json::parse(text));
  ASSERT_EQ(imported.size(), keys.size());
  for (const auto& k : keys) {
    auto it = std::find_if(imported.begin(), imported.end(), [&](const auto& i) { return i.key == k; });
    ASSERT_NE(it, imported.end()) << kernel_name(k);
    EXPECT_EQ(it->name, kernel_name(k));
    EXPECT_EQ(it->set, "round_trip");
  }
}

TEST(RegistryJson, ImportNamesTheBadField) {
  registry reg;
  reg.add(std::make_shared<recording_gemm>(make_key(dtype::fp16, rcr, 256, 128, 64)), "s");
  auto j = export_registry(reg);
  j["kernels"][0]["key"]["algorithm"]["pipeline"] = "warp_speed";
  try {
    import_registry(j);
    FAIL() << "accepted an unknown pipeline";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("warp_speed"), std::string::npos) << e.what();
  }
  auto j2 = export_registry(reg);
  j2["kernels"][0]["name"] = "gemm_fp16_renamed";
  EXPECT_THROW(import_registry(j2), std::invalid_argument);
  EXPECT_THROW(import_registry(nlohmann::json::object()), std::invalid_argument);
}

// What the registry JSON fuzzer found: other exceptions than invalid_argument
// escaped, and numbers were truncated without a word.
TEST(RegistryJson, ImportRefusesEveryMalformedDocumentWithInvalidArgument) {
  registry reg;
  reg.add(std::make_shared<recording_gemm>(make_key(dtype::fp16, rcr, 256, 128, 64)), "s");
  const auto good = export_registry(reg);
  auto refused = [](const nlohmann::json& j, const std::string& fragment) {
    try {
      import_registry(j);
      ADD_FAILURE() << "accepted " << j.dump();
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  auto with = [&](auto edit) {
    auto j = good;
    edit(j);
    return j;
  };
  refused(with([](auto& j) { j.erase("kernels"); }), "'kernels' is not an array");
  refused(with([](auto& j) { j["kernels"] = 3; }), "'kernels' is not an array");
  refused(with([](auto& j) { j["format"] = 7; }), "'format' is not a string");
  refused(with([](auto& j) { j["version"] = "1"; }), "version");
  refused(with([](auto& j) { j["kernels"][0] = "gemm"; }), "not an object");
  refused(with([](auto& j) { j["kernels"][0]["name"] = 12; }), "no string 'name'");
  refused(with([](auto& j) { j["kernels"][0]["set"] = nullptr; }), "'set' is not a string");
  refused(with([](auto& j) { j["kernels"][0].erase("key"); }), "has no 'key'");
  refused(with([](auto& j) { j["kernels"][0]["key"]["signature"] = 1; }), "must be objects");
  refused(with([](auto& j) { j["kernels"][0]["key"]["algorithm"]["tile"][1] = 128.5; }), "'tile[1]' is not an integer");
  refused(with([](auto& j) { j["kernels"][0]["key"]["algorithm"]["tile"][0] = 4294967552; }), "does not fit an int");
  refused(with([](auto& j) { j["kernels"][0]["key"]["algorithm"]["stages"] = -4294967293; }), "does not fit an int");
  refused(with([](auto& j) { j["kernels"][0]["key"]["signature"]["dtype_a"] = 16; }), "'dtype_a' is not a string");
  refused(with([](auto& j) { j["kernels"][0]["key"]["algorithm"]["stages"] = 0; }), "not concrete");
}

}  // namespace
}  // namespace kdecl
