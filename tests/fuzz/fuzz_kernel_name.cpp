// Fuzzes the kernel-name parser, parse_gemm_name(), and what a parsed key meets
// next: its JSON form and the DSL's validation against the arch tables.
//
// Invariants: the parser throws std::invalid_argument (with a message) or
// returns a concrete key whose canonical name is exactly the input (one string
// per key); the key survives a JSON round trip; validating it never crashes.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "kdecl/dsl/dsl.hpp"
#include "kdecl/gemm/gemm_name.hpp"
#include "kdecl/io/key_json.hpp"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_kernel_name: invariant broken: %s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view name(reinterpret_cast<const char*>(data), size);
  kdecl::gemm_key key;
  try {
    key = kdecl::parse_gemm_name(name);
  } catch (const std::invalid_argument& e) {
    if (std::string_view(e.what()).empty()) fail("a refusal without a message");
    return 0;
  }
  if (!key.concrete()) fail("parsed a key with wildcards from '" + std::string(name) + "'");
  if (const auto canonical = kdecl::kernel_name(key); canonical != name)
    fail("'" + std::string(name) + "' parses to a key named '" + canonical + "'");
  if (kdecl::gemm_key_from_json(kdecl::to_json(key)) != key) fail("the JSON round trip changes the key");
  const auto diagnostic = kdecl::dsl::validate(key, key.algo.arch);
  (void)kdecl::dsl::describe(diagnostic);
  return 0;
}
