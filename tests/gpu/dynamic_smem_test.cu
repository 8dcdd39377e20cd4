// kernels/cuda/dynamic_smem.cuh: a kernel template instantiated in two translation units gets
// its dynamic shared-memory limit raised in each (an earlier once-per-class flag raised it for
// one unit's stub only, and the other's launch failed with "invalid argument"); a kernel whose
// shared memory differs by launch (the direct convolutions) is raised as far as the largest.
#include <gtest/gtest.h>

#include "dynamic_smem_kernel.cuh"
#include "kdecl/kernels/cuda/dynamic_smem.cuh"

const void* other_units_stub();
cudaError_t launch_from_other_unit(int* out, int bytes);

namespace {

TEST(DynamicSmem, EveryTranslationUnitsKernelGetsItsLimit) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) GTEST_SKIP() << "no CUDA device";
  int optin = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0), cudaSuccess);
  if (optin < 100 * 1024) GTEST_SKIP() << "the device allows " << optin << " bytes of shared memory per block";
  constexpr int bytes = 100 * 1024;  // over the 48 KB a kernel gets without the attribute
  int* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, sizeof(int)), cudaSuccess);

  // Without the attribute the launch is refused: the test below would notice a skipped unit.
  fill_dynamic_smem<0><<<1, 128, bytes>>>(out, bytes / 4);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);

  ASSERT_EQ(kdecl::kernels::cuda::allow_dynamic_smem(fill_dynamic_smem<0>, bytes), cudaSuccess);
  fill_dynamic_smem<0><<<1, 128, bytes>>>(out, bytes / 4);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  int last = 0;
  ASSERT_EQ(cudaMemcpy(&last, out, sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(last, bytes / 4 - 1);

  // The same kernel of the other unit: a stub of its own where nvcc gives it one, raised by its own call.
  RecordProperty("distinct_stubs", other_units_stub() != reinterpret_cast<const void*>(fill_dynamic_smem<0>));
  EXPECT_EQ(launch_from_other_unit(out, bytes), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(&last, out, sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(last, bytes / 4 - 1);
  cudaFree(out);
}

// The direct convolutions' kernels take as much shared memory as the problem's tile needs:
// the limit follows the largest launch so far, and a smaller one never lowers it.
TEST(DynamicSmem, AKernelOfProblemSizedSharedMemoryIsRaisedToTheLargestLaunch) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) GTEST_SKIP() << "no CUDA device";
  int optin = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0), cudaSuccess);
  if (optin < 100 * 1024) GTEST_SKIP() << "the device allows " << optin << " bytes of shared memory per block";
  using kdecl::kernels::cuda::allow_dynamic_smem;
  constexpr int small = 60 * 1024, large = 100 * 1024;
  int* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, 2 * sizeof(int)), cudaSuccess);
  const auto launch = [&](int bytes) {
    fill_dynamic_smem<1><<<1, 128, bytes>>>(out, bytes / 4);
    return cudaGetLastError();
  };
  ASSERT_EQ(allow_dynamic_smem(fill_dynamic_smem<1>, small, 0), cudaSuccess);
  EXPECT_EQ(launch(small), cudaSuccess);
  EXPECT_EQ(launch(large), cudaErrorInvalidValue);  // not raised that far yet
  ASSERT_EQ(allow_dynamic_smem(fill_dynamic_smem<1>, large, 0), cudaSuccess);
  EXPECT_EQ(launch(large), cudaSuccess);
  ASSERT_EQ(allow_dynamic_smem(fill_dynamic_smem<1>, small, 0), cudaSuccess);  // no lower
  EXPECT_EQ(launch(large), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  int last = 0;
  ASSERT_EQ(cudaMemcpy(&last, out + 1, sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(last, large / 4 - 1);
  cudaFree(out);
}

}  // namespace
