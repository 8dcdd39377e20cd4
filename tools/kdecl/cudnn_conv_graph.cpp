#include "cudnn_conv_graph.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include <cudnn_frontend.h>
#include <fmt/format.h>

#include "cudnn_conv.hpp"
#include "cudnn_frontend_plans.hpp"
#include "cudnn_handle.hpp"
#include "kdecl/runtime/buffer.hpp"

namespace kdecl::cli {
namespace {

namespace fe = cudnn_frontend;

enum uid : std::int64_t { x_uid = 1, w_uid, y_uid, bias_uid, residual_uid };

void fe_check(fe::error_t e, const char* what) { cudnn_graph::check(e, "graph convolution", what); }

// The tensors of one call by uid: x (input), w (weights), y (output); the direction's result is written.
// A fused forward epilogue's bias and residual where the problem has them.
std::unordered_map<std::int64_t, void*> variant_pack(const grouped_conv_problem& p, const grouped_conv_args& a) {
  std::unordered_map<std::int64_t, void*> pack{
      {x_uid, const_cast<void*>(a.in)}, {w_uid, const_cast<void*>(a.wei)}, {y_uid, a.out}};
  if (p.fusion.bias) pack[bias_uid] = const_cast<void*>(a.bias);
  if (p.fusion.residual) pack[residual_uid] = const_cast<void*>(a.residual);
  return pack;
}

using shape = cudnn_tensor_shape;

// The filter, K x C/G x [Z] Y X, packed K [Z] Y X C/G (kdecl's G K [Z] Y X C with K = G K/G).
shape filter(const grouped_conv_problem& p) {
  shape f{{p.k, p.c_per_group()}, {}};
  for (int slot : cudnn_spatial_slots(p)) f.dims.push_back(p.filter_dims[slot]);
  f.strides.resize(f.dims.size());
  std::int64_t inner = p.c_per_group();  // the stride of the innermost spatial dimension
  f.strides[1] = 1;
  for (std::size_t i = f.dims.size(); i-- > 2;) {
    f.strides[i] = inner;
    inner *= f.dims[i];
  }
  f.strides[0] = inner;
  return f;
}

std::shared_ptr<fe::graph::Tensor_attributes> tensor(fe::graph::Graph& g, const shape& s, std::int64_t id,
                                                    const char* name) {
  return g.tensor(fe::graph::Tensor_attributes().set_name(name).set_uid(id).set_dim(s.dims).set_stride(s.strides));
}

// The bias as cuDNN broadcasts it: 1 x K x 1 [x 1] x 1, channels contiguous.
shape bias_shape(const grouped_conv_problem& p) {
  shape b{{1, p.k}, {p.k, 1}};
  for (std::size_t i = 0; i < cudnn_spatial_slots(p).size(); ++i) {
    b.dims.push_back(1);
    b.strides.push_back(p.k);
  }
  return b;
}

fe::PointwiseMode_t activation_mode(elementwise act) {
  switch (act) {
    case elementwise::relu: return fe::PointwiseMode_t::RELU_FWD;
    case elementwise::gelu: return fe::PointwiseMode_t::GELU_FWD;  // the exact (erf) GELU, as kdecl's
    case elementwise::sigmoid: return fe::PointwiseMode_t::SIGMOID_FWD;
    case elementwise::tanh: return fe::PointwiseMode_t::TANH_FWD;
    default: return fe::PointwiseMode_t::IDENTITY;
  }
}

// y = act(conv + bias + residual): pointwise nodes after the convolution, fp32 in between.
std::shared_ptr<fe::graph::Tensor_attributes> fused_epilogue(fe::graph::Graph& g, const grouped_conv_problem& p,
                                                             std::shared_ptr<fe::graph::Tensor_attributes> y,
                                                             const shape& out) {
  const conv_fusion& f = p.fusion;
  auto add = [&](std::shared_ptr<fe::graph::Tensor_attributes> a, std::shared_ptr<fe::graph::Tensor_attributes> b,
                 const char* name) {
    return g.pointwise(a, b, fe::graph::Pointwise_attributes().set_mode(fe::PointwiseMode_t::ADD).set_name(name));
  };
  if (f.bias) y = add(y, tensor(g, bias_shape(p), bias_uid, "bias"), "add_bias");
  if (f.residual) y = add(y, tensor(g, out, residual_uid, "residual"), "add_residual");
  if (f.act != elementwise::pass_through)
    y = g.pointwise(y, fe::graph::Pointwise_attributes().set_mode(activation_mode(f.act)).set_name("activation"));
  return y;
}

template <class Attributes>
Attributes geometry(const grouped_conv_problem& p) {
  std::vector<std::int64_t> pre, post, stride, dilation;
  for (int slot : cudnn_spatial_slots(p)) {
    pre.push_back(p.pad_left_dims[slot]);
    post.push_back(p.pad_right_dims[slot]);
    stride.push_back(p.stride_dims[slot]);
    dilation.push_back(p.dilation_dims[slot]);
  }
  Attributes a;
  a.set_pre_padding(pre).set_post_padding(post).set_stride(stride).set_dilation(dilation);
  return a;
}

}  // namespace

struct cudnn_conv_graph::impl {
  cudnnHandle_t handle = nullptr;
  std::shared_ptr<fe::graph::Graph> graph;
  std::string plan;
  int plans = 0;
  buffer workspace;
  grouped_conv_problem problem;
};

std::optional<std::string> cudnn_conv_graph::unsupported(const grouped_conv_problem& p) {
  if (p.in_type != dtype::fp16 && p.in_type != dtype::bf16)
    return fmt::format("the graph path takes fp16 and bf16 ({} stays on the legacy API)", to_string(p.in_type));
  return std::nullopt;
}

cudnn_conv_graph::cudnn_conv_graph(const device& dev, const grouped_conv_problem& p, const grouped_conv_args& args)
    : impl_(std::make_unique<impl>()) {
  if (auto why = unsupported(p)) throw std::runtime_error(*why);
  auto& m = *impl_;
  m.handle = cudnn_handle();
  m.graph = cudnn_graph::new_16bit_graph(p.in_type);
  auto& g = *m.graph;
  const shape in = cudnn_activation_shape(p, conv_tensor::input), out = cudnn_activation_shape(p, conv_tensor::output), wei = filter(p);
  std::shared_ptr<fe::graph::Tensor_attributes> result;
  const shape* result_shape = nullptr;
  switch (p.dir) {
    case conv_direction::fwd:
      result = g.conv_fprop(tensor(g, in, x_uid, "x"), tensor(g, wei, w_uid, "w"),
                            geometry<fe::graph::Conv_fprop_attributes>(p).set_name("fprop"));
      if (p.fusion.fused()) result = fused_epilogue(g, p, result, out);
      result->set_uid(y_uid);
      result_shape = &out;
      break;
    case conv_direction::bwd_data:
      result = g.conv_dgrad(tensor(g, out, y_uid, "dy"), tensor(g, wei, w_uid, "w"),
                            geometry<fe::graph::Conv_dgrad_attributes>(p).set_name("dgrad"));
      result->set_uid(x_uid);
      result_shape = &in;
      break;
    case conv_direction::bwd_weight:
      result = g.conv_wgrad(tensor(g, out, y_uid, "dy"), tensor(g, in, x_uid, "x"),
                            geometry<fe::graph::Conv_wgrad_attributes>(p).set_name("wgrad"));
      result->set_uid(w_uid);
      result_shape = &wei;
      break;
  }
  result->set_output(true).set_dim(result_shape->dims).set_stride(result_shape->strides);
  m.plans = cudnn_graph::build_plans(g, m.handle, fe::BuildPlanPolicy_t::ALL, "graph convolution");

  m.problem = p;
  auto pack = variant_pack(p, args);
  buffer tune_ws(dev, std::size_t(std::max<std::int64_t>(g.get_autotune_workspace_size(), 1)));
  fe_check(g.autotune(m.handle, pack, tune_ws.data()), "autotune");
  m.workspace = cudnn_graph::workspace_of(g, dev, "graph convolution");
  m.plan = cudnn_graph::plan_name(g);
}

cudnn_conv_graph::~cudnn_conv_graph() = default;

void cudnn_conv_graph::run(const grouped_conv_args& a) {
  auto& m = *impl_;
  auto pack = variant_pack(m.problem, a);
  fe_check(m.graph->execute(m.handle, pack, m.workspace.data()), "execute");
}

const std::string& cudnn_conv_graph::plan() const { return impl_->plan; }
std::size_t cudnn_conv_graph::workspace_bytes() const { return impl_->workspace.size(); }
int cudnn_conv_graph::plans_timed() const { return impl_->plans; }

}  // namespace kdecl::cli
