#include "cudnn_conv.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <stdexcept>
#include <vector>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "bench_timing.hpp"
#include "cudnn_handle.hpp"
#include "kdecl/runtime/buffer.hpp"
#if KDECL_WITH_CUDNN_FRONTEND
#include "cudnn_conv_graph.hpp"
#endif

namespace kdecl::cli {

std::vector<int> cudnn_spatial_slots(const grouped_conv_problem& p) {
  return p.ndim() == 3 ? std::vector<int>{0, 1, 2} : std::vector<int>{1, 2};
}

cudnn_tensor_shape cudnn_activation_shape(const grouped_conv_problem& p, conv_tensor t) {
  const auto& s = p.strides_of(t);
  const bool in = t == conv_tensor::input;
  cudnn_tensor_shape a{{p.n, in ? p.c : p.k}, {s.n, s.c}};
  for (int slot : cudnn_spatial_slots(p)) {
    a.dims.push_back(in ? p.input_dims[slot] : p.output_dim(slot));
    a.strides.push_back(s.spatial[std::size_t(slot)]);
  }
  return a;
}

namespace {

std::optional<cudnnDataType_t> cudnn_type(dtype d) {
  switch (d) {
    case dtype::fp16: return CUDNN_DATA_HALF;
    case dtype::bf16: return CUDNN_DATA_BFLOAT16;
    case dtype::fp32: return CUDNN_DATA_FLOAT;
    default: return std::nullopt;
  }
}

// An activation tensor as a legacy descriptor (int dimensions: unsupported() keeps every tensor
// under 2^31 elements).
void set_activation(cudnnTensorDescriptor_t desc, const grouped_conv_problem& p, conv_tensor t) {
  const bool in = t == conv_tensor::input;
  const cudnn_tensor_shape shape = cudnn_activation_shape(p, t);
  const std::vector<int> dims(shape.dims.begin(), shape.dims.end()), strides(shape.strides.begin(), shape.strides.end());
  cudnn_check(cudnnSetTensorNdDescriptor(desc, *cudnn_type(p.dtype_of(t)), int(dims.size()), dims.data(),
                                         strides.data()),
              in ? "input tensor descriptor" : "output tensor descriptor");
}

template <class Perf>
std::string describe_find(const Perf* perf, int returned) {
  std::string s;
  for (int i = 0; i < returned; ++i)
    s += fmt::format("{}{}: {}", i ? "; " : "", int(perf[i].algo), cudnnGetErrorString(perf[i].status));
  return s;
}

constexpr std::array<const char*, 8> fwd_names{"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT",
                                               "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
constexpr std::array<const char*, 6> bwd_data_names{"ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD",
                                                    "WINOGRAD_NONFUSED"};
constexpr std::array<const char*, 7> bwd_filter_names{"ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD_NONFUSED",
                                                      "FFT_TILING", "WINOGRAD"};

// The median of 7 timed launches after 2 untimed ones (bench_timing.hpp: CUDA events, default
// stream): how the legacy algorithm and the graph plan are compared before the bench times the faster.
double median_ms_of(const std::function<void()>& launch) {
  return median_ms(/*cuda=*/true, [&](int) { launch(); }, 2, 7);
}

template <std::size_t N>
std::string name_of(const std::array<const char*, N>& names, int algo) {
  return algo >= 0 && std::size_t(algo) < N ? names[std::size_t(algo)] : fmt::format("algo {}", algo);
}

}  // namespace

struct cudnn_conv::impl {
  grouped_conv_problem p;
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnConvolutionFwdAlgo_t fwd_algo{};
  cudnnConvolutionBwdDataAlgo_t bwd_data_algo{};
  cudnnConvolutionBwdFilterAlgo_t bwd_filter_algo{};
  std::string algorithm;
  double find_ms = 0;
  buffer workspace;
  cudnn_conv_choice choice;
#if KDECL_WITH_CUDNN_FRONTEND
  std::unique_ptr<cudnn_conv_graph> graph;  // set when its plan is the faster
#endif

  void find_legacy(const device& dev, const grouped_conv_args& args);
  void run_legacy(const grouped_conv_args& a);

  ~impl() {
    if (x) cudnnDestroyTensorDescriptor(x);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
  }
};

std::optional<std::string> cudnn_conv::unsupported(const grouped_conv_problem& p) {
  for (dtype d : {p.in_type, p.wei_type, p.out_type})
    if (!cudnn_type(d)) return fmt::format("cuDNN's convolution has no {} tensors here", to_string(d));
  if (p.in_type != p.wei_type || p.in_type != p.out_type) return "mixed input, weight and output dtypes";
  if (p.pad_left_dims != p.pad_right_dims) return "cuDNN pads both sides alike; this problem's padding is asymmetric";
  for (conv_tensor t : {conv_tensor::input, conv_tensor::output}) {
    const auto& s = p.strides_of(t);
    const std::int64_t per_group = t == conv_tensor::input ? p.c_per_group() : p.k_per_group();
    if (s.c != 1 || (p.g > 1 && s.g != per_group))
      return fmt::format("the {} does not hold its groups inside one contiguous channel dimension (layout {}): "
                         "cuDNN's NHWC tensors need channel g*C/G + c at stride 1",
                         t == conv_tensor::input ? "input" : "output", to_string(p.layout_or_default()));
  }
  // Filters must be packed K [Z] Y X C.
  grouped_conv_problem packed = p;
  packed.weight_strides({});
  if (packed.normalized().wei_strides != p.wei_strides) return "cuDNN's filters are packed; this weight is strided";
  for (conv_tensor t : {conv_tensor::input, conv_tensor::weight, conv_tensor::output})
    if (p.span(t) > std::int64_t(INT32_MAX)) return "a tensor of more than 2^31 elements (cuDNN's descriptors hold int)";
  return std::nullopt;
}

cudnn_conv::cudnn_conv(const device& dev, const grouped_conv_problem& p, const grouped_conv_args& args)
    : impl_(std::make_unique<impl>()) {
  if (auto why = unsupported(p)) throw std::runtime_error("cuDNN cannot express the problem: " + *why);
  auto& m = *impl_;
  m.p = p;
  m.handle = cudnn_handle();
  cudnn_check(cudnnCreateTensorDescriptor(&m.x), "tensor descriptor");
  cudnn_check(cudnnCreateTensorDescriptor(&m.y), "tensor descriptor");
  cudnn_check(cudnnCreateFilterDescriptor(&m.w), "filter descriptor");
  cudnn_check(cudnnCreateConvolutionDescriptor(&m.conv), "convolution descriptor");
  set_activation(m.x, p, conv_tensor::input);
  set_activation(m.y, p, conv_tensor::output);
  std::vector<int> fdims{int(p.k), int(p.c_per_group())}, pads, strides, dilations;
  for (int slot : cudnn_spatial_slots(p)) {
    fdims.push_back(int(p.filter_dims[slot]));
    pads.push_back(int(p.pad_left_dims[slot]));
    strides.push_back(int(p.stride_dims[slot]));
    dilations.push_back(int(p.dilation_dims[slot]));
  }
  const cudnnDataType_t type = *cudnn_type(p.in_type);
  cudnn_check(cudnnSetFilterNdDescriptor(m.w, type, CUDNN_TENSOR_NHWC, int(fdims.size()), fdims.data()),
              "filter descriptor");
  // fp32 accumulation for every dtype (as kdecl's kernels); fp32 problems exact (FMA math only) unless
  // they multiply in tf32 (default math: cuDNN may pick TF32 tensor-core engines, as PyTorch lets it).
  cudnn_check(cudnnSetConvolutionNdDescriptor(m.conv, int(pads.size()), pads.data(), strides.data(), dilations.data(),
                                              CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
              "convolution descriptor");
  cudnn_check(cudnnSetConvolutionGroupCount(m.conv, int(p.g)), "group count");
  const cudnnMathType_t math = type != CUDNN_DATA_FLOAT ? CUDNN_TENSOR_OP_MATH
                               : p.compute_type == dtype::tf32 ? CUDNN_DEFAULT_MATH
                                                                : CUDNN_FMA_MATH;
  cudnn_check(cudnnSetConvolutionMathType(m.conv, math), "math type");

  // cuDNN's output size must be kdecl's.
  std::vector<int> out(fdims.size());
  cudnn_check(cudnnGetConvolutionNdForwardOutputDim(m.conv, m.x, m.w, int(out.size()), out.data()), "output size");
  const auto slots = cudnn_spatial_slots(p);
  for (std::size_t i = 0; i < slots.size(); ++i)
    if (out[i + 2] != p.output_dim(slots[i]))
      throw std::runtime_error(fmt::format("cuDNN computes output size {} in spatial dimension {}, kdecl {}",
                                           out[i + 2], i, p.output_dim(slots[i])));

  // A fused epilogue is timed on the graph API alone (the legacy conv-bias-activation call has no
  // residual add of the output's own, nor gelu, sigmoid or tanh).
  if (!p.fusion.fused()) m.find_legacy(dev, args);
  else m.choice.legacy_algorithm = "none (a fused epilogue: the graph API's plan only)";

#if KDECL_WITH_CUDNN_FRONTEND
  // The graph API's engines, autotuned on the same buffers; the faster of the two is what gets timed.
  if (auto why = cudnn_conv_graph::unsupported(p)) {
    m.choice.graph_error = *why;
  } else {
    try {
      auto graph = std::make_unique<cudnn_conv_graph>(dev, p, args);
      m.choice.graph_plan = graph->plan();
      m.choice.graph_plans = graph->plans_timed();
      m.choice.graph_ms = median_ms_of([&] { graph->run(args); });
      if (m.choice.legacy_ms < 0 || m.choice.graph_ms < m.choice.legacy_ms) {
        m.graph = std::move(graph);
        m.choice.graph_chosen = true;
        m.algorithm = "graph " + m.choice.graph_plan;
      }
    } catch (const std::exception& e) {
      m.choice.graph_error = e.what();
    }
  }
#else
  m.choice.graph_error = "this kdecl was built without cudnn-frontend";
#endif
  if (m.choice.legacy_ms < 0 && !m.choice.graph_chosen)
    throw std::runtime_error("cuDNN has no plan for the fused convolution: " + m.choice.graph_error);
  if (m.choice.graph_chosen && m.choice.legacy_ms < 0) m.find_ms = m.choice.graph_ms;
}

cudnn_conv::~cudnn_conv() = default;

void cudnn_conv::run(const grouped_conv_args& a) {
#if KDECL_WITH_CUDNN_FRONTEND
  if (impl_->graph) return impl_->graph->run(a);
#endif
  impl_->run_legacy(a);
}

// The legacy API's fastest algorithm for the problem on these buffers, its workspace, and its time.
void cudnn_conv::impl::find_legacy(const device& dev, const grouped_conv_args& args) {
  auto& m = *this;
  const grouped_conv_problem& p = m.p;
  // The find: every algorithm cuDNN offers, on a workspace of up to 1 GiB (or a quarter of free memory);
  // those needing more are left out. The fastest that succeeded wins.
  std::size_t free_bytes = 0, total = 0;
  if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) free_bytes = std::size_t(4) << 30;
  const std::size_t find_bytes = std::min<std::size_t>(std::size_t(1) << 30, free_bytes / 4);
  buffer find_ws(dev, std::max<std::size_t>(find_bytes, 256));
  int returned = 0;
  switch (p.dir) {
    case conv_direction::fwd: {
      std::array<cudnnConvolutionFwdAlgoPerf_t, CUDNN_CONVOLUTION_FWD_ALGO_COUNT> perf{};
      cudnn_check(cudnnFindConvolutionForwardAlgorithmEx(m.handle, m.x, args.in, m.w, args.wei, m.conv, m.y, args.out,
                                                         int(perf.size()), &returned, perf.data(), find_ws.data(),
                                                         find_ws.size()),
                  "find forward algorithm");
      if (returned == 0 || perf[0].status != CUDNN_STATUS_SUCCESS)
        throw std::runtime_error("cuDNN has no forward algorithm for the problem (" + describe_find(perf.data(), returned) + ")");
      m.fwd_algo = perf[0].algo;
      m.algorithm = name_of(fwd_names, int(perf[0].algo));
      m.find_ms = perf[0].time;
      std::size_t need = 0;  // some engines ask run() for more than their find record says
      cudnn_check(cudnnGetConvolutionForwardWorkspaceSize(m.handle, m.x, m.w, m.conv, m.y, m.fwd_algo, &need),
                  "forward workspace size");
      m.workspace = buffer(dev, std::max<std::size_t>({perf[0].memory, need, 1}));
      break;
    }
    case conv_direction::bwd_data: {
      std::array<cudnnConvolutionBwdDataAlgoPerf_t, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT> perf{};
      cudnn_check(cudnnFindConvolutionBackwardDataAlgorithmEx(m.handle, m.w, args.wei, m.y, args.out, m.conv, m.x,
                                                              args.in, int(perf.size()), &returned, perf.data(),
                                                              find_ws.data(), find_ws.size()),
                  "find backward-data algorithm");
      if (returned == 0 || perf[0].status != CUDNN_STATUS_SUCCESS)
        throw std::runtime_error("cuDNN has no backward-data algorithm for the problem (" +
                                 describe_find(perf.data(), returned) + ")");
      m.bwd_data_algo = perf[0].algo;
      m.algorithm = name_of(bwd_data_names, int(perf[0].algo));
      m.find_ms = perf[0].time;
      std::size_t need = 0;
      cudnn_check(cudnnGetConvolutionBackwardDataWorkspaceSize(m.handle, m.w, m.y, m.conv, m.x, m.bwd_data_algo, &need),
                  "backward-data workspace size");
      m.workspace = buffer(dev, std::max<std::size_t>({perf[0].memory, need, 1}));
      break;
    }
    case conv_direction::bwd_weight: {
      std::array<cudnnConvolutionBwdFilterAlgoPerf_t, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT> perf{};
      cudnn_check(cudnnFindConvolutionBackwardFilterAlgorithmEx(m.handle, m.x, args.in, m.y, args.out, m.conv, m.w,
                                                                args.wei, int(perf.size()), &returned, perf.data(),
                                                                find_ws.data(), find_ws.size()),
                  "find backward-filter algorithm");
      if (returned == 0 || perf[0].status != CUDNN_STATUS_SUCCESS)
        throw std::runtime_error("cuDNN has no backward-filter algorithm for the problem (" +
                                 describe_find(perf.data(), returned) + ")");
      m.bwd_filter_algo = perf[0].algo;
      m.algorithm = name_of(bwd_filter_names, int(perf[0].algo));
      m.find_ms = perf[0].time;
      std::size_t need = 0;
      cudnn_check(cudnnGetConvolutionBackwardFilterWorkspaceSize(m.handle, m.x, m.y, m.conv, m.w, m.bwd_filter_algo,
                                                                 &need),
                  "backward-filter workspace size");
      m.workspace = buffer(dev, std::max<std::size_t>({perf[0].memory, need, 1}));
      break;
    }
  }
  m.choice.legacy_algorithm = m.algorithm;
  m.choice.legacy_ms = median_ms_of([&] { m.run_legacy(args); });
}

void cudnn_conv::impl::run_legacy(const grouped_conv_args& a) {
  auto& m = *this;
  const float one = 1.0f, zero = 0.0f;
  switch (m.p.dir) {
    case conv_direction::fwd:
      cudnn_check(cudnnConvolutionForward(m.handle, &one, m.x, a.in, m.w, a.wei, m.conv, m.fwd_algo,
                                          m.workspace.data(), m.workspace.size(), &zero, m.y, a.out),
                  "convolution forward");
      break;
    case conv_direction::bwd_data:
      cudnn_check(cudnnConvolutionBackwardData(m.handle, &one, m.w, a.wei, m.y, a.out, m.conv, m.bwd_data_algo,
                                               m.workspace.data(), m.workspace.size(), &zero, m.x, a.in),
                  "convolution backward data");
      break;
    case conv_direction::bwd_weight:
      cudnn_check(cudnnConvolutionBackwardFilter(m.handle, &one, m.x, a.in, m.y, a.out, m.conv, m.bwd_filter_algo,
                                                 m.workspace.data(), m.workspace.size(), &zero, m.w, a.wei),
                  "convolution backward filter");
      break;
  }
}

const std::string& cudnn_conv::algorithm() const { return impl_->algorithm; }
std::size_t cudnn_conv::workspace_bytes() const {
#if KDECL_WITH_CUDNN_FRONTEND
  if (impl_->graph) return impl_->graph->workspace_bytes();
#endif
  return impl_->workspace.size();
}
const cudnn_conv_choice& cudnn_conv::choice() const { return impl_->choice; }
double cudnn_conv::find_ms() const { return impl_->find_ms; }
std::string cudnn_conv::version() { return cudnn_version_string(); }

}  // namespace kdecl::cli
