// Must not compile: paged_decode has one tile, 16 query rows x 64 keys.
// expect-error: rule::fmha_tile_not_offered_for_pipeline, kdecl::arch_id::sm_90, 32
#include "kdecl/dsl/dsl.hpp"

namespace case_fmha_paged_decode_tile {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), fmha().family(fwd_splitkv).dtype(bf16).hdim(128)
                                                           .pipeline(paged_decode).tile(32, 64));
}  // namespace case_fmha_paged_decode_tile

constexpr auto keys = kdecl::dsl::expand<case_fmha_paged_decode_tile::set>();
