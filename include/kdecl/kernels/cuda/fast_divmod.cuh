// Division of non-negative 32-bit integers by a divisor fixed at launch, as a multiply-high and
// a shift (Granlund and Montgomery's method, with a multiplier chosen on the host). A kernel's
// integer division by a run-time value compiles to a chain of about 25 dependent instructions
// (float reciprocal, conversions, corrections); a block that works out its first tile with a
// dozen of them spends over a microsecond before its first copy (sm90 GEMM, measured with
// sm90_probe timeline). This one is two instructions.
//
// For a divisor d >= 1 and l = ceil(log2 d), p = 31 + l and m = ceil(2^p / d) (< 2^32 for every
// d < 2^31), n / d == (n * m) >> p for every 0 <= n < 2^31: m = 2^p / d + e with 0 <= e < 1, so
// n * m / 2^p = n / d + n * e / 2^p, and n * e / 2^p < 2^-l <= 1 / d where d is not a power of
// two (e = 0 where it is), too little to carry n / d past the next integer. d = 1 (p = 31,
// m = 2^31, a right shift by -1) is kept apart.
#pragma once

#include <cstdint>

namespace kdecl::kernels::cuda {

class fast_divmod {
 public:
  fast_divmod() = default;
  // d >= 1 (the callers' divisors: tile counts, split counts, grid sizes).
  __host__ __device__ explicit fast_divmod(int d) : divisor_(d < 1 ? 1 : d) {
    if (divisor_ == 1) return;
    int l = 0;
    while ((1ll << l) < divisor_) ++l;
    const int p = 31 + l;
    multiplier_ = static_cast<std::uint32_t>(((1ull << p) + std::uint64_t(divisor_) - 1) / std::uint64_t(divisor_));
    shift_ = static_cast<std::uint32_t>(p - 32);
  }

  __host__ __device__ int divisor() const { return divisor_; }

  // n / d for 0 <= n < 2^31.
  __host__ __device__ int div(int n) const {
    if (divisor_ == 1) return n;
#ifdef __CUDA_ARCH__
    return static_cast<int>(__umulhi(static_cast<std::uint32_t>(n), multiplier_) >> shift_);
#else
    return static_cast<int>(((std::uint64_t(std::uint32_t(n)) * multiplier_) >> 32) >> shift_);
#endif
  }
  // n % d for 0 <= n < 2^31.
  __host__ __device__ int mod(int n) const { return n - div(n) * divisor_; }

 private:
  int divisor_ = 1;
  std::uint32_t multiplier_ = 0;
  std::uint32_t shift_ = 0;
};

}  // namespace kdecl::kernels::cuda
