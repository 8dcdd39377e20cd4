// How fast is backward-data's flipped, transposed weight copy (kernels/conv/cuda/flip_transpose_weights.cuh)?
// A probe, not a test: every stride phase of a layer's weights copied in one launch, by the
// element-by-element kernel (32 x 32 tiles, two-byte accesses) and by the vector kernel (64 x 64
// tiles, 16-byte accesses), each timed with CUDA events around 50 launches (after 10), median of 7
// batches; bytes = the weights read once and written once. Beside them, a device-to-device copy of
// the same bytes (the bound). Layers: the deep 3x3 layers of ResNet-50 and the U-Net (batch-size
// independent: the copy moves the weights only), a strided one (four phases) and a 3-D one.
//   kdecl_flip_weights_probe
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "check_cuda.hpp"
#include "kdecl/kernels/conv/bwd_data_phases.hpp"
#include "kdecl/kernels/conv/cuda/flip_transpose_weights.cuh"

namespace {

using namespace kdecl;
using kdecl::kernels::cuda::flipped_weights_batch;
using T = __nv_bfloat16;

#define CHECK_CUDA(x) kdecl_bench::check_cuda((x), #x)

struct layer {
  const char* name;
  grouped_conv_problem p;
};

// Median microseconds per launch of `launch` (10 warm-up launches, 7 batches of 50).
template <class Launch>
double median_us(Launch&& launch) {
  cudaEvent_t a, b;
  CHECK_CUDA(cudaEventCreate(&a));
  CHECK_CUDA(cudaEventCreate(&b));
  for (int i = 0; i < 10; ++i) launch();
  std::vector<double> us;
  for (int batch = 0; batch < 7; ++batch) {
    CHECK_CUDA(cudaEventRecord(a));
    for (int i = 0; i < 50; ++i) launch();
    CHECK_CUDA(cudaEventRecord(b));
    CHECK_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
    us.push_back(1e3 * ms / 50);
  }
  CHECK_CUDA(cudaGetLastError());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

}  // namespace

int main() {
  using P = grouped_conv_problem;
  const auto bwd = [](P p) { return p.direction(conv_direction::bwd_data).normalized(); };
  const std::vector<layer> layers = {
      {"resnet50 layer3 3x3 256", bwd(P{}.batch(1).channels(256, 256).input_size({14, 14}).filter_size({3}).padding({1}))},
      {"resnet50 layer4 3x3 512", bwd(P{}.batch(1).channels(512, 512).input_size({7, 7}).filter_size({3}).padding({1}))},
      {"resnet50 layer4.0 3x3 512 s2",
       bwd(P{}.batch(1).channels(512, 512).input_size({14, 14}).filter_size({3}).stride({2}).padding({1}))},
      {"unet bottleneck 3x3 512->1024", bwd(P{}.batch(1).channels(512, 1024).input_size({32, 32}).filter_size({3}))},
      {"unet bottleneck 3x3 1024", bwd(P{}.batch(1).channels(1024, 1024).input_size({30, 30}).filter_size({3}))},
      {"r3d_18 layer4 3x3x3 512", bwd(P{}.batch(1).channels(512, 512).input_size({2, 7, 7}).filter_size({3}).padding({1}))},
  };
  std::printf("%-32s %8s %9s %9s %9s %8s %8s %8s\n", "layer", "MB", "element", "vector", "copy", "el GB/s",
              "vec GB/s", "copy GB/s");
  for (const layer& l : layers) {
    flipped_weights_batch b;
    std::int64_t elements = 0;
    for (const auto& ph : kernels::bwd_data_phases(l.p)) {
      if (ph.zero) continue;
      b.map[b.count] = ph.weights;
      b.offset[b.count++] = elements;
      elements += (ph.weights.elements() + 63) / 64 * 64;
    }
    const std::size_t bytes = std::size_t(l.p.span(conv_tensor::weight)) * sizeof(T);
    void *w = nullptr, *wt = nullptr;
    CHECK_CUDA(cudaMalloc(&w, bytes));
    CHECK_CUDA(cudaMalloc(&wt, std::size_t(elements) * sizeof(T)));
    CHECK_CUDA(cudaMemset(w, 0x3c, bytes));
    if (!kernels::cuda::flip_transpose_vectorizes<T>(b, w, wt)) {
      std::printf("%-32s the vector kernel does not apply\n", l.name);
      continue;
    }
    using namespace kernels::cuda;
    const double element_us = median_us([&] {
      flip_transpose_weights_kernel<T><<<flip_grid(b, flip_transpose_tile), dim3(flip_transpose_tile, flip_transpose_rows)>>>(
          static_cast<const T*>(w), static_cast<T*>(wt), b);
    });
    const double vector_us = median_us([&] {
      flip_transpose_weights_vector_kernel<T><<<flip_grid(b, flip_vector_tile), flip_vector_threads>>>(
          static_cast<const T*>(w), static_cast<T*>(wt), b);
    });
    const double copy_us = median_us([&] { CHECK_CUDA(cudaMemcpyAsync(wt, w, bytes, cudaMemcpyDeviceToDevice)); });
    const double traffic = 2.0 * double(bytes);
    std::printf("%-32s %8.2f %8.1fus %8.1fus %8.1fus %8.0f %8.0f %8.0f\n", l.name, double(bytes) / 1e6, element_us,
                vector_us, copy_us, traffic / element_us / 1e3, traffic / vector_us / 1e3, traffic / copy_us / 1e3);
    cudaFree(w);
    cudaFree(wt);
  }
  return 0;
}
