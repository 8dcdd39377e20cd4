// The arch tables' reference parts: every target kdecl builds kernels for carries the figures
// the cost models divide by (processors, bandwidth, dense peaks), and the estimates on the AMD
// targets come out physical (they used 104 CUs and 1.6 TB/s for every part, and the paged
// prefill estimate a peak of 0.02 TFLOP/s, before the CDNA tables had parts).
#include <gtest/gtest.h>

#include <string>

#include "kdecl/arch/arch.hpp"
#include "kdecl/arch/fmha_specs.hpp"
#include "kdecl/arch/reference_memory_clock.hpp"
#include "kdecl/gemm/gemm_heuristic.hpp"
#include "kdecl/gemm/gemm_problem.hpp"
#include "test_keys.hpp"

namespace {

using namespace kdecl;
using kdecl::testing::make_key;
constexpr gemm_layout rcr{layout::row, layout::col, layout::row};

TEST(ArchReferencePart, EveryTargetWithKernelsHasItsFigures) {
  int checked = 0;
  for (const arch::arch_spec* s : arch::all_specs) {
    const bool kernels = s->kernels_available || s->conv_kernels_available() || arch::fmha::kernels_available(s->id);
    if (!kernels || s->id == arch_id::host) continue;
    ++checked;
    const std::string name(to_string(s->id));
    EXPECT_FALSE(s->reference_part.empty()) << name;
    EXPECT_GT(s->sm_count, 0) << name;
    EXPECT_GT(s->mem_bandwidth_gbs, 0.0) << name;
    EXPECT_GT(s->peak_tflops(dtype::fp16), 0.0) << name;
    EXPECT_GT(s->peak_tflops(dtype::bf16), 0.0) << name;
    if (s->has_fp8) EXPECT_GT(s->peak_tflops(dtype::fp8), 0.0) << name;
    // What the learned ranking models take a device that does not say its memory clock to be.
    if (s->be == backend::cuda) EXPECT_GT(arch::reference_memory_clock_mhz(s->id), 0) << name;
  }
  EXPECT_GE(checked, 6);  // sm_80, sm_86, sm_89, sm_90, gfx90a, gfx942
  // The H100 SXM5's HBM3: 2619 MHz x 2 transfers x 5120 bits = the table's 3350 GB/s (within 0.1%).
  EXPECT_NEAR(arch::reference_memory_clock_mhz(arch_id::sm_90) * 2.0 * 5120 / 8 / 1000,
              arch::spec_of(arch_id::sm_90).mem_bandwidth_gbs, 3.5);
}

// An MI300X has 2.9x an MI210's CUs, 7.2x its fp16 peak and 3.2x its bandwidth.
TEST(ArchReferencePart, CdnaTablesNameTheirParts) {
  EXPECT_EQ(arch::spec_of(arch_id::gfx90a).reference_part, "MI210");
  EXPECT_EQ(arch::spec_of(arch_id::gfx90a).sm_count, 104);
  EXPECT_EQ(arch::spec_of(arch_id::gfx942).reference_part, "MI300X");
  EXPECT_EQ(arch::spec_of(arch_id::gfx942).sm_count, 304);
  EXPECT_DOUBLE_EQ(arch::spec_of(arch_id::gfx942).peak_tflops(dtype::fp16), 1307.4);
  EXPECT_DOUBLE_EQ(arch::spec_of(arch_id::gfx90a).peak_tflops(dtype::fp8), 0.0);  // CDNA2 has no fp8 MFMA
}

// A large GEMM is compute-bound: its estimate lies between the datasheet time and a few times it,
// and an MI300X's is shorter than an MI210's.
TEST(ArchReferencePart, GemmEstimatesOnCdnaFollowThePeaks) {
  const gemm_problem p = gemm_problem{}.sizes(8192, 8192, 8192).dtype(dtype::fp16).layout(rcr).normalized();
  const double flops = 2.0 * 8192.0 * 8192.0 * 8192.0;
  double previous = 0.0;
  for (arch_id a : {arch_id::gfx90a, arch_id::gfx942}) {
    const gemm_key k = make_key(dtype::fp16, rcr, 256, 128, 32, a, pipeline::compv3);
    const double us = estimate_microseconds(k, p);
    const double datasheet_us = flops / (arch::spec_of(a).peak_tflops(dtype::fp16) * 1e12) * 1e6;
    EXPECT_GT(us, datasheet_us) << to_string(a);
    EXPECT_LT(us, 4.0 * datasheet_us) << to_string(a);
    if (previous > 0.0) EXPECT_LT(us, previous / 3.0);
    previous = us;
  }
}

}  // namespace
