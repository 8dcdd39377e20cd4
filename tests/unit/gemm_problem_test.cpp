#include <gtest/gtest.h>

#include "kdecl/gemm/gemm_problem.hpp"

namespace kdecl {
namespace {

std::string error_of(const gemm_problem& p) { return p.validate().value_or(""); }

TEST(GemmProblem, PackedDefaultsFollowLayouts) {
  auto p = gemm_problem{}.sizes(100, 200, 300).dtype(dtype::fp16).layout(crr).normalized();
  EXPECT_EQ(p.lda, 100);  // A col-major: m rows contiguous
  EXPECT_EQ(p.ldb, 200);  // B row-major
  EXPECT_EQ(p.ldc, 200);
  EXPECT_EQ(p.stride_a, 100 * 300);
  EXPECT_FALSE(p.validate());
}

TEST(GemmProblem, ErrorsNameValueAndRule) {
  auto base = gemm_problem{}.sizes(64, 64, 64).dtype(dtype::fp16).layout(rcr);
  EXPECT_EQ(error_of(gemm_problem(base).sizes(-3, 64, 64)), "M = -3 must be positive");
  EXPECT_EQ(error_of(gemm_problem(base).sizes(64, 0, 64)), "N = 0 must be positive");
  EXPECT_EQ(error_of(gemm_problem(base).batched(0)), "batch = 0 must be positive");
  EXPECT_EQ(error_of(gemm_problem(base).leading_dims(32, 0, 0)),
            "lda = 32 is smaller than the stored row length 64 (row-major)");
  EXPECT_EQ(error_of(gemm_problem(base).leading_dims(0, -1, 0)), "ldb = -1 must not be negative (0 means packed)");
  EXPECT_EQ(error_of(gemm_problem(base).dtypes(dtype::fp16, dtype::bf16, dtype::fp16)),
            "dtype of A (fp16) and B (bf16) differ; only fp8/bf8 may be mixed");
  EXPECT_EQ(error_of(gemm_problem(base).compute(dtype::tf32)), "compute tf32 requires fp32 A and B, got fp16");
  EXPECT_EQ(error_of(gemm_problem(base).batched(2).batch_strides(100, 0, 0)),
            "batch stride of A = 100 is smaller than one matrix (4096 elements): batches would overlap");
  EXPECT_EQ(error_of(gemm_problem(base).multi_d(elementwise::gelu, 5)), "multi_d needs 1 to 4 D tensors, got 5");
  auto ew = base;
  ew.sig.ew = elementwise::relu;
  EXPECT_EQ(error_of(ew), "elementwise op relu needs the multi_d variant");
  auto acc = gemm_problem{}.sizes(8, 8, 8).dtype(dtype::int8).accumulator(dtype::fp32);
  EXPECT_NE(error_of(acc).find("accumulator fp32 does not suit int8"), std::string::npos);
}

TEST(GemmProblem, SpansBeyond64BitsAreRefusedWithoutOverflow) {
  auto base = gemm_problem{}.sizes(64, 64, 64).dtype(dtype::fp32).layout(rcr);
  constexpr std::int64_t big = std::int64_t{1} << 62;
  EXPECT_EQ(error_of(gemm_problem(base).sizes(big, 64, 64)),
            "A spans 295147905179352825856 elements (1180591620717411303424 bytes): beyond 64-bit offsets "
            "(2^63 - 1 elements or bytes at most)");
  EXPECT_NE(error_of(gemm_problem(base).sizes(big, big, big)).find("A spans over "), std::string::npos);
  EXPECT_NE(error_of(gemm_problem(base).batched(big).batch_strides(0, 0, big)).find("A spans"), std::string::npos);
  EXPECT_NE(error_of(gemm_problem(base).leading_dims(0, big, 0)).find("B spans"), std::string::npos);
  EXPECT_NE(error_of(gemm_problem(base).batched(3).batch_strides(64 * 64, 64 * 64, big)).find("C spans"),
            std::string::npos);
  EXPECT_NE(error_of(gemm_problem(base).batched(big).preshuffled_b()).find("spans"), std::string::npos);
  auto d = gemm_problem(base).multi_d(elementwise::gelu, 1, big);
  EXPECT_NE(error_of(d).find("D spans"), std::string::npos);
  // Packed 4-bit operands: the elements must fit 64-bit offsets too, not only the bytes.
  auto int4 = gemm_problem{}.sizes(std::int64_t{1} << 62, 8, 3).dtype(dtype::int4).layout(rcr);
  EXPECT_EQ(error_of(int4), "A spans 13835058055282163712 elements (6917529027641081856 bytes): beyond 64-bit "
                            "offsets (2^63 - 1 elements or bytes at most)");
  // The largest spans that can be addressed are valid.
  EXPECT_FALSE(gemm_problem{}.sizes(std::int64_t{1} << 40, 1, 1).dtype(dtype::fp32).layout(rcr).validate());
}

TEST(GemmProblem, PreshuffleWithoutADtypeIsRefusedBeforeItsSizeIsComputed) {
  gemm_problem p;
  p.sizes(64, 64, 64).preshuffled_b();
  p.sig.a = p.sig.b = dtype::any;  // the preshuffled size would divide by B's 0 bits
  EXPECT_EQ(error_of(p), "dtype of A is not set");
}

TEST(GemmProblem, MixedFp8IsAllowed) {
  auto p = gemm_problem{}.sizes(64, 64, 64).dtype(dtype::fp8).dtypes(dtype::fp8, dtype::bf8, dtype::bf16);
  EXPECT_FALSE(p.validate()) << *p.validate();
}

}  // namespace
}  // namespace kdecl
