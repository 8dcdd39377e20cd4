// What one GEMM launch costs the host, piece by piece (not a test): the CUDA calls the sm_90
// TMA + wgmma kernels' run() makes (cudaGetDevice, cuTensorMapEncodeTiled, a plain and a
// cluster launch) and the whole paths, instance run() and dispatcher run(), on small
// problems whose GPU time is below the host's. Host nanoseconds per call, the median of 9
// batches of 200 calls; the device drained between batches (outside the timing), so that a
// full launch queue never blocks a call.
//   kdecl_launch_cost_probe [M N K ...]   (default: 16 768 768, 32 1000 768, 128 1024 1024)
//   kdecl_launch_cost_probe offline       select() alone on an offline sm_90 device, for a
//                                         profiler on a machine without a GPU
//   kdecl_launch_cost_probe conv          the same pieces for backward-data convolutions (batch-1
//                                         layers whose launch the host can hold up: stride 1 and 2,
//                                         2-D and 3-D, a stem); `conv offline`: select() and why_not()
//                                         on an offline sm_90 device
//   kdecl_launch_cost_probe params        what a kernel's parameter size costs a launch: host time
//                                         and event-timed time per launch (the device idle before
//                                         each, as `kdecl bench` times) of empty kernels taking
//                                         64 B to 9 KB, with and without a cluster attribute
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "kdecl/conv/conv_dispatcher.hpp"
#include "kdecl/gemm/gemm_dispatcher.hpp"
#include "kdecl/gemm/gemm_heuristic.hpp"
#include "kdecl/kernels/conv/cuda/sm90/conv_fwd_sm90.cuh"
#include "kdecl/kernels/cuda/device_info.cuh"
#include "kdecl/kernels/cuda/sm90/tensor_map.cuh"
#include "kdecl/registry/registry.hpp"
#include "kdecl/runtime/buffer.hpp"

namespace {

__global__ void empty_kernel(int) {}

double host_ns(const std::function<void()>& call, bool drain = true) {
  constexpr int batches = 9, calls = 200;
  std::vector<double> per_call;
  for (int b = 0; b < batches; ++b) {
    if (drain) cudaDeviceSynchronize();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) call();
    per_call.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / calls);
  }
  if (drain) cudaDeviceSynchronize();
  std::sort(per_call.begin(), per_call.end());
  return per_call[batches / 2];
}

void report(const char* what, double ns) { std::printf("%-58s %9.0f ns\n", what, ns); }

// 132 blocks of 384 threads launched with a cluster attribute of `cluster` blocks (1 included).
struct cluster_launch {
  cudaLaunchAttribute attr{};
  cudaLaunchConfig_t cfg{};
  explicit cluster_launch(unsigned cluster) {
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster;
    attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
    cfg.gridDim = dim3(132);
    cfg.blockDim = dim3(384);
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
  }
  cluster_launch(const cluster_launch&) = delete;  // cfg points at attr
};

template <int Bytes>
struct param_blob {
  unsigned char b[Bytes];
};
template <int Bytes>
__global__ void blob_kernel(const __grid_constant__ param_blob<Bytes> p) {
  if (threadIdx.x == 0 && p.b[Bytes - 1] == 0xAB && p.b[0] == 0xCD) asm volatile("trap;");
}

// Nanoseconds between two events around one call, the device idle before each (the median of 9
// batches of 50): what a per-launch benchmark sees of the call's host time and its GPU time.
double event_ns(const std::function<void()>& call) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<double> t;
  for (int i = 0; i < 450; ++i) {
    cudaDeviceSynchronize();
    cudaEventRecord(e0);
    call();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    t.push_back(ms * 1e6);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <int Bytes>
void blob_costs() {
  param_blob<Bytes> p{};
  for (unsigned cluster : {1u, 2u}) {
    const cluster_launch l(cluster);
    const auto launch = [&] { cudaLaunchKernelEx(&l.cfg, blob_kernel<Bytes>, p); };
    char what[96];
    std::snprintf(what, sizeof what, "%5d B of parameters, cluster %u: host", Bytes, cluster);
    report(what, host_ns(launch));
    std::snprintf(what, sizeof what, "%5d B of parameters, cluster %u: events around it", Bytes, cluster);
    report(what, event_ns(launch));
  }
}

int param_costs() {
  using kdecl::kernels::cuda::sm90::conv_fwd_sm90_params;
  using kdecl::kernels::cuda::sm90::phase_set_params;
  std::printf("an sm_90 convolution's parameters: %zu B; phase sets of 2 / 4 / 8: %zu / %zu / %zu B\n",
              sizeof(conv_fwd_sm90_params), sizeof(phase_set_params<conv_fwd_sm90_params, 2>),
              sizeof(phase_set_params<conv_fwd_sm90_params, 4>), sizeof(phase_set_params<conv_fwd_sm90_params, 8>));
  blob_costs<64>();
  blob_costs<1024>();
  blob_costs<2048>();
  blob_costs<4096>();
  blob_costs<9216>();
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("device: %s\n", e == cudaSuccess ? "ok" : cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}

}  // namespace

// select() of a cached problem, 2 million times, on an offline sm_90 device (no GPU needed).
int offline_select() {
  using namespace kdecl;
  const device dev{arch_id::sm_90, 0, "offline sm_90"};
  gemm_dispatcher dispatcher(dev);
  const auto p = gemm_problem{}.sizes(16, 768, 768).dtype(dtype::bf16).layout(rcr).normalized();
  alignas(256) static char bytes[3][256];
  const gemm_args args{bytes[0], bytes[1], bytes[2]};
  const auto sel = dispatcher.select(p, &args);
  std::printf("%s\n", sel.explain().c_str());
  constexpr int calls = 2'000'000;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) (void)dispatcher.select(p, &args);
  report("dispatcher.select (cached), offline sm_90",
         std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / calls);
  return 0;
}

// Batch-1 backward-data layers of ResNet-50 and R3D-18 (benchmarks/shapes/conv_*.csv) and R3D-18's stem.
std::vector<kdecl::grouped_conv_problem> conv_layers() {
  using P = kdecl::grouped_conv_problem;
  std::vector<P> out = {
      P{}.batch(1).channels(512, 512).input_size({14, 14}).filter_size({3}).stride({2}).padding({1}),
      P{}.batch(1).channels(256, 256).input_size({14, 14}).filter_size({3}).padding({1}),
      P{}.batch(1).channels(128, 256).input_size({8, 28, 28}).filter_size({3}).stride({2}).padding({1}),
      P{}.batch(1).channels(3, 64).input_size({16, 112, 112}).filter_size({3, 7, 7}).stride({1, 2, 2}).padding({1, 3, 3}),
  };
  for (auto& p : out) p.dtype(kdecl::dtype::bf16).direction(kdecl::conv_direction::bwd_data);
  return out;
}

// The host's pieces of a backward-data launch; offline (no GPU): select() and the kernel's why_not()
// with stand-in pointers, which is what run() repeats before its launches.
int conv_costs(const kdecl::device& dev, bool offline) {
  using namespace kdecl;
  conv_dispatcher dispatcher(dev);
  for (const auto& layer : conv_layers()) {
    const auto p = layer.normalized();
    std::vector<buffer> tensors;
    grouped_conv_args args;
    alignas(256) static char stand_in[3][256];
    if (offline) {
      args = {stand_in[0], stand_in[1], stand_in[2]};
    } else {
      for (auto t : {conv_tensor::input, conv_tensor::weight, conv_tensor::output})
        tensors.emplace_back(dev, std::size_t(p.span(t)) * 2);
      args = {tensors[0].data(), tensors[1].data(), tensors[2].data()};
    }
    const auto sel = dispatcher.select(p, &args);
    std::printf("%s\n  %s\n", p.describe().c_str(), sel ? sel.kernel->name().c_str() : sel.explain().c_str());
    if (!sel) continue;
    report("  dispatcher.select (cached)", host_ns([&] { (void)dispatcher.select(p, &args); }, false));
    report("  problem validate() + normalized()", host_ns([&] { (void)p.validate(); (void)p.normalized(); }, false));
    report("  instance why_not()", host_ns([&] { (void)sel.kernel->why_not(p, args); }, false));
    report("  instance workspace_bytes()", host_ns([&] { (void)sel.kernel->workspace_bytes(p); }, false));
    if (offline) continue;
    const std::size_t ws_bytes = sel.kernel->workspace_bytes(p);
    buffer ws(dev, std::max<std::size_t>(ws_bytes, 1));
    grouped_conv_args with_ws = args;
    with_ws.workspace = ws.data();
    with_ws.workspace_bytes = ws_bytes;
    report("  instance run(), workspace lent", host_ns([&] { (void)sel.kernel->run(p, with_ws, nullptr); }));
    report("  dispatcher.run()", host_ns([&] { (void)dispatcher.run(p, args); }));
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<float> gpu;
    for (int b = 0; b < 9; ++b) {
      cudaDeviceSynchronize();
      cudaEventRecord(e0);
      for (int i = 0; i < 200; ++i) (void)sel.kernel->run(p, with_ws, nullptr);
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float ms = 0;
      cudaEventElapsedTime(&ms, e0, e1);
      gpu.push_back(ms * 1e6f / 200);
    }
    std::sort(gpu.begin(), gpu.end());
    report("  GPU time per launch, 200 queued back to back", gpu[4]);
    report("  events around one instance run(), device idle before", event_ns([&] { (void)sel.kernel->run(p, with_ws, nullptr); }));
  }
  const cudaError_t e = offline ? cudaSuccess : cudaDeviceSynchronize();
  if (!offline) std::printf("device: %s\n", e == cudaSuccess ? "ok" : cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}

int main(int argc, char** argv) {
  using namespace kdecl;
  if (argc > 1 && std::string(argv[1]) == "offline") return offline_select();
  if (argc > 1 && std::string(argv[1]) == "conv") {
    if (argc > 2 && std::string(argv[2]) == "offline")
      return conv_costs(device{arch_id::sm_90, 0, "offline sm_90"}, true);
    const device dev = default_device();
    if (dev.kind() != backend::cuda) {
      std::fprintf(stderr, "launch_cost_probe conv needs a CUDA device (or: conv offline)\n");
      return 2;
    }
    return conv_costs(dev, false);
  }
  const device dev = default_device();
  if (dev.kind() != backend::cuda) {
    std::fprintf(stderr, "launch_cost_probe needs a CUDA device\n");
    return 2;
  }
  if (argc > 1 && std::string(argv[1]) == "params") return param_costs();
  int d = 0;
  report("cudaGetDevice", host_ns([&] { cudaGetDevice(&d); }, false));
  report("cudaGetLastError", host_ns([] { cudaGetLastError(); }, false));
  report("current_device_info", host_ns([] { (void)kernels::cuda::current_device_info(); }, false));
  cudaEvent_t ev;
  cudaEventCreate(&ev);
  report("cudaEventRecord", host_ns([&] { cudaEventRecord(ev); }));
  report("empty kernel <<<132, 384>>>", host_ns([] { empty_kernel<<<132, 384>>>(0); }));
  for (unsigned cluster : {1u, 2u}) {
    const cluster_launch l(cluster);
    const std::string what = "empty kernel, cudaLaunchKernelEx, cluster " + std::to_string(cluster);
    report(what.c_str(), host_ns([&] { cudaLaunchKernelEx(&l.cfg, empty_kernel, 0); }));
  }
  buffer scratch(dev, std::size_t(64) << 20);
  CUtensorMap map;
  const kernels::cuda::sm90::operand_view view{scratch.data(), dtype::bf16, 4096, 4096, 1, 4096, 0, 64, 128};
  report("cuTensorMapEncodeTiled (encode_tensor_map)",
         host_ns([&] { (void)kernels::cuda::sm90::encode_tensor_map(map, view); }, false));

  std::vector<long> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atol(argv[i]));
  if (sizes.size() < 3) sizes = {16, 768, 768, 32, 1000, 768, 128, 1024, 1024};
  gemm_dispatcher dispatcher(dev);
  for (std::size_t s = 0; s + 2 < sizes.size(); s += 3) {
    const auto p = gemm_problem{}.sizes(sizes[s], sizes[s + 1], sizes[s + 2]).dtype(dtype::bf16).layout(rcr).normalized();
    buffer a(dev, p.m * p.lda * 2), b(dev, p.n * p.ldb * 2), c(dev, p.m * p.ldc * 2);
    const gemm_args args{a.data(), b.data(), c.data()};
    const auto sel = dispatcher.select(p, &args);
    if (!sel) {
      std::printf("%ldx%ldx%ld: %s\n", sizes[s], sizes[s + 1], sizes[s + 2], sel.explain().c_str());
      continue;
    }
    std::printf("%ldx%ldx%ld bf16 rcr: %s\n", sizes[s], sizes[s + 1], sizes[s + 2], sel.kernel->name().c_str());
    const std::size_t ws_bytes = sel.kernel->workspace_bytes(p);
    buffer ws(dev, std::max<std::size_t>(ws_bytes, 1));
    gemm_args with_ws = args;
    with_ws.workspace = ws.data();
    with_ws.workspace_bytes = ws_bytes;
    report("  dispatcher.select (cached)", host_ns([&] { (void)dispatcher.select(p, &args); }, false));
    report("  dispatcher.select (cached), no arguments", host_ns([&] { (void)dispatcher.select(p); }, false));
    report("  problem validate() + normalized()", host_ns([&] { (void)p.validate(); (void)p.normalized(); }, false));
    report("  estimate_microseconds(key, problem)",
           host_ns([&] { (void)estimate_microseconds(sel.kernel->key(), p); }, false));
    report("  instance why_not()", host_ns([&] { (void)sel.kernel->why_not(p, args); }, false));
    report("  instance workspace_bytes()", host_ns([&] { (void)sel.kernel->workspace_bytes(p); }, false));
    report("  instance run(), workspace lent", host_ns([&] { (void)sel.kernel->run(p, with_ws, nullptr); }));
    report("  dispatcher.run()", host_ns([&] { (void)dispatcher.run(p, args); }));
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<float> gpu;
    for (int b = 0; b < 9; ++b) {
      cudaDeviceSynchronize();
      cudaEventRecord(e0);
      for (int i = 0; i < 200; ++i) (void)sel.kernel->run(p, with_ws, nullptr);
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float ms = 0;
      cudaEventElapsedTime(&ms, e0, e1);
      gpu.push_back(ms * 1e6f / 200);
    }
    std::sort(gpu.begin(), gpu.end());
    report("  GPU time per launch, 200 queued back to back", gpu[4]);
  }
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("device: %s\n", e == cudaSuccess ? "ok" : cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
