// Fuzzes the registry's JSON import (import_registry) and the key reader
// (gemm_key_from_json) with any JSON document.
//
// Invariants: both throw std::invalid_argument naming what they cannot read
// (never another exception, never a crash, never a silently truncated value);
// every kernel imported has the name of its key, and its key round-trips.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "kdecl/gemm/gemm_name.hpp"
#include "kdecl/io/key_json.hpp"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_registry_json: invariant broken: %s\n", what.c_str());
  std::abort();
}

template <class F>
void refuses_cleanly(F&& read) {
  try {
    read();
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).empty()) fail("a refusal without a message");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto doc = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return 0;  // not JSON: the parser's business, not ours
  refuses_cleanly([&] {
    for (const auto& k : kdecl::import_registry(doc)) {
      if (kdecl::kernel_name(k.key) != k.name) fail("imported '" + k.name + "' under another key's name");
      if (kdecl::gemm_key_from_json(kdecl::to_json(k.key)) != k.key) fail("the JSON round trip changes a key");
    }
  });
  refuses_cleanly([&] { (void)kdecl::gemm_key_from_json(doc); });
  if (doc.is_object() && doc.contains("kernels") && doc["kernels"].is_array())
    for (const auto& item : doc["kernels"])
      if (item.is_object() && item.contains("key")) refuses_cleanly([&] { (void)kdecl::gemm_key_from_json(item["key"]); });
  return 0;
}
