// The flipped, transposed weight copy of backward-data (kernels/conv/cuda/flip_transpose_weights.cuh)
// on the GPU against its host definition (flip_transpose_weights_host), bit for bit: every stride
// phase of a layer in one launch, the output poisoned first. Layers whose rows and offsets allow
// 16-byte vectors take the vector kernel (checked: flip_transpose_vectorizes), the others, and
// fp32 weights, the element-by-element one; partial tiles on both sides, groups, 3-D filters and
// strided phases (several maps of different tap counts in one batch).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "kdecl/kernels/conv/bwd_data_phases.hpp"
#include "kdecl/kernels/conv/cuda/flip_transpose_weights.cuh"

namespace kdecl {
namespace {

using P = grouped_conv_problem;

bool have_gpu() {
  int devices = 0;
  return cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
}

// The batch of `p`'s non-zero phases, packed one after another, each at a multiple of 64 elements.
kernels::cuda::flipped_weights_batch batch_of(const P& p, std::int64_t& elements) {
  kernels::cuda::flipped_weights_batch b;
  elements = 0;
  for (const auto& ph : kernels::bwd_data_phases(p)) {
    if (ph.zero) continue;
    b.map[b.count] = ph.weights;
    b.offset[b.count++] = elements;
    elements += (ph.weights.elements() + 63) / 64 * 64;
  }
  return b;
}

// Runs the GPU copy of `p`'s weights (random bits, elements of T) and compares it with the host copy.
template <class T>
void check(const P& raw, bool expect_vector) {
  const P p = raw.normalized();
  std::int64_t elements = 0;
  const auto b = batch_of(p, elements);
  ASSERT_GT(b.count, 0) << p.describe();
  const std::size_t w_bytes = std::size_t(p.span(conv_tensor::weight)) * sizeof(T);
  const std::size_t wt_bytes = std::size_t(elements) * sizeof(T);
  std::vector<unsigned char> w(w_bytes), want(wt_bytes, 0xff), got(wt_bytes);
  std::mt19937 rng(unsigned(p.c * 131 + p.k));
  for (auto& x : w) x = static_cast<unsigned char>(rng());
  for (int j = 0; j < b.count; ++j)
    kernels::flip_transpose_weights_host(b.map[j], w.data(), want.data() + b.offset[j] * sizeof(T), int(sizeof(T)));

  void *dw = nullptr, *dwt = nullptr;
  ASSERT_EQ(cudaMalloc(&dw, w_bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dwt, wt_bytes), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dw, w.data(), w_bytes, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemset(dwt, 0xff, wt_bytes), cudaSuccess);  // poison: the host side's untouched bytes are 0xff too
  EXPECT_EQ(kernels::cuda::flip_transpose_vectorizes<T>(b, dw, dwt), expect_vector) << p.describe();
  const status done = kernels::cuda::flip_transpose_weights<T>(b, dw, dwt, nullptr);
  ASSERT_TRUE(done.is_ok()) << done.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(got.data(), dwt, wt_bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(dw);
  cudaFree(dwt);
  std::size_t first_bad = wt_bytes;
  for (std::size_t i = 0; i < wt_bytes && first_bad == wt_bytes; ++i)
    if (got[i] != want[i]) first_bad = i;
  EXPECT_EQ(first_bad, wt_bytes) << "first differing element " << first_bad / sizeof(T) << " of " << elements
                                 << ": " << p.describe();
}

P bwd(P p) { return p.direction(conv_direction::bwd_data); }

TEST(FlipTransposeWeightsGpu, VectorKernelMatchesTheHostCopy) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  using bf16 = __nv_bfloat16;
  check<bf16>(bwd(P{}.batch(1).channels(64, 64).input_size({9, 9}).filter_size({3}).padding({1})), true);
  // Partial 64 x 64 tiles on both sides; strided: four phases of 4, 2, 2 and 1 taps in one batch.
  check<bf16>(bwd(P{}.batch(1).channels(200, 136).input_size({11, 11}).filter_size({3}).stride({2}).padding({1})), true);
  check<bf16>(bwd(P{}.batch(1).channels(8, 520).input_size({7, 7}).filter_size({3}).padding({1})), true);
  // Groups (C/G = 16, K/G = 24) and a 3-D filter.
  check<bf16>(bwd(P{}.batch(1).channels(64, 96).groups(4).input_size({5, 6, 7}).filter_size({3}).padding({1})), true);
  // A deep layer's weights: 3x3 512 -> 512 (4.7 MB).
  check<bf16>(bwd(P{}.batch(1).channels(512, 512).input_size({7, 7}).filter_size({3}).padding({1})), true);
}

TEST(FlipTransposeWeightsGpu, ElementKernelTakesWhatVectorsCannot) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  using bf16 = __nv_bfloat16;
  check<bf16>(bwd(P{}.batch(1).channels(3, 64).input_size({15, 15}).filter_size({7}).stride({2}).padding({3})), false);
  check<bf16>(bwd(P{}.batch(1).channels(36, 100).groups(4).input_size({9, 8}).filter_size({3}).padding({1})), false);
  check<float>(bwd(P{}.batch(1).channels(64, 72).input_size({9, 9}).filter_size({3}).padding({1})), false);
}

}  // namespace
}  // namespace kdecl
