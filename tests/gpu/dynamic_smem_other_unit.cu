// The second translation unit of dynamic_smem_test.cu: its own stub of fill_dynamic_smem<0>.
#include "dynamic_smem_kernel.cuh"
#include "kdecl/kernels/cuda/dynamic_smem.cuh"

const void* other_units_stub() { return reinterpret_cast<const void*>(fill_dynamic_smem<0>); }

cudaError_t launch_from_other_unit(int* out, int bytes) {
  if (const cudaError_t err = kdecl::kernels::cuda::allow_dynamic_smem(fill_dynamic_smem<0>, bytes); err != cudaSuccess)
    return err;
  fill_dynamic_smem<0><<<1, 128, bytes>>>(out, bytes / 4);
  if (const cudaError_t err = cudaGetLastError(); err != cudaSuccess) return err;
  return cudaDeviceSynchronize();
}
