// A kernel template both translation units of the dynamic shared-memory test instantiate:
// nvcc gives each unit its own host stub and module for it (dynamic_smem.cuh says why that matters).
#pragma once

template <int Tag>
__global__ void fill_dynamic_smem(int* out, int words) {
  extern __shared__ int words_in_smem[];
  for (int i = threadIdx.x; i < words; i += blockDim.x) words_in_smem[i] = i;
  __syncthreads();
  if (threadIdx.x == 0) out[Tag] = words_in_smem[words - 1];
}
