// Compile-time benchmark: one wildcard GEMM declaration expanded for every
// target (validation and expansion only, no kernels). Tile m/n, warps, warp
// tile, pipeline, epilogue and scheduler are wildcards, so the expansion
// considers every tile of each pipeline's sweep with every warp configuration,
// warp tile and trait the target's tables offer. expand_legal: the targets
// without kdecl kernels (gfx908, gfx950, RDNA) are validated too.
// main() prints the counts.
#include <cstdio>

#include "kdecl/dsl/dsl.hpp"

namespace sweep {
using namespace kdecl::dsl;
using kdecl::dsl::any;

inline constexpr auto all_targets = targets(host, sm_80, sm_86, sm_89, sm_90, gfx908, gfx90a, gfx942, gfx950,
                                            gfx1100, gfx1200, gfx1201);
inline constexpr auto set = kernel_set(all_targets, gemm().dtype(fp16).tile(any, any, 64).warps(any).warp_tile(any)
                                                        .pipeline(any).epilogue(any).scheduler(any)
                                                        .pad(true, true, true));
}  // namespace sweep

constexpr auto keys = kdecl::dsl::expand_legal<sweep::set>();
constexpr long considered = kdecl::dsl::candidates_considered<sweep::set>();

int main() {
  std::printf("{\"candidates_considered\": %ld, \"valid_keys\": %zu}\n", considered, keys.size());
  return keys.empty() ? 1 : 0;
}
