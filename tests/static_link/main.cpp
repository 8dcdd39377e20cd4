// Links static_library_set from a static library that main never references by
// symbol. Expects <expected> of its kernels in the registry: 2 when the library
// is linked as a whole archive, 0 when it is linked plainly (the linker drops
// the unreferenced object — the pitfall docs/registration.md describes).
#include <cstdio>
#include <cstdlib>

#include "kdecl/registry/registry.hpp"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const long expected = std::strtol(argv[1], nullptr, 10);
  const auto found = kdecl::registry::global()
                         .filter([](const kdecl::registered_kernel& k) { return k.set == "static_library_set"; })
                         .size();
  std::printf("static_library_set: %zu kernels registered, %ld expected\n", found, expected);
  return long(found) == expected ? 0 : 1;
}
