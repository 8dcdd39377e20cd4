#include "bench_conv.hpp"

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "bench_tables.hpp"
#include "bench_timing.hpp"
#include "conv_options.hpp"
#include "kdecl/conv/conv_dispatcher.hpp"
#include "kdecl/numeric/host_storage.hpp"
#include "kernel_filter.hpp"
#include "parse_and_run.hpp"
#include "vendor_bench.hpp"

#if KDECL_WITH_CUDNN
#include "cudnn_conv.hpp"
#endif

namespace kdecl::cli {
namespace {

using nlohmann::json;

struct bench_conv_options : bench_run_options {
  conv_options shape;
  std::string directions;  // comma-separated, or "all"; empty: --direction
  std::string filter;
  std::size_t limit = 0;
};

constexpr conv_tensor all_tensors[3] = {conv_tensor::input, conv_tensor::weight, conv_tensor::output};

std::vector<conv_direction> directions_of(const bench_conv_options& o) {
  return parse_directions(o.directions.empty() ? o.shape.direction : o.directions);
}

// One problem and the layers it stands for.
struct conv_item {
  grouped_conv_problem problem;  // normalized
  std::vector<const conv_layer*> layers;
};

std::string label_of(const conv_item& it) {
  if (it.layers.empty() || it.layers.front()->network.empty()) return "";
  const auto& l = *it.layers.front();
  return fmt::format("{} {}{}", l.network, l.layer,
                     it.layers.size() > 1 ? fmt::format(" +{} rows", it.layers.size() - 1) : "");
}

json fields_of(const conv_item& it) {
  const auto& p = it.problem;
  json uses = json::array();
  for (const auto* l : it.layers)
    if (!l->network.empty()) uses.push_back({{"network", l->network}, {"layer", l->layer}, {"count", l->count}});
  return json{{"direction", to_string(p.dir)}, {"class", conv_class(p)}, {"n", p.n}, {"c", p.c}, {"k", p.k},
              {"g", p.g}, {"dtype", to_string(p.in_type)}, {"compute", to_string(p.compute_type)},
              {"layout", to_string(p.layout_or_default())}, {"fusion", describe(p.fusion)},
              {"flops", p.flops()}, {"bytes", p.bytes()}, {"describe", p.describe()}, {"uses", uses}};
}

// Elements of a fused epilogue's bias (K) and residual (the output's span); 0 where the problem has none.
std::int64_t bias_elements(const grouped_conv_problem& p) { return p.fusion.bias ? p.k : 0; }
std::int64_t residual_elements(const grouped_conv_problem& p) {
  return p.fusion.residual ? p.span(conv_tensor::output) : 0;
}

double operand_bytes(const grouped_conv_problem& p) {
  double b = 0;
  for (auto t : all_tensors) b += double(p.span(t)) * double(dtype_size_bytes(p.dtype_of(t)));
  return b + double(bias_elements(p) + residual_elements(p)) * double(dtype_size_bytes(p.out_type));
}

// Random operand sets on the device, enough that a pass over all exceeds twice the L2: input,
// weight, output, and a fused epilogue's bias and residual (empty buffers where it has none).
struct conv_operands {
  std::vector<std::array<buffer, 5>> sets;
  grouped_conv_args args(std::size_t i) {
    auto& s = sets[i % sets.size()];
    grouped_conv_args a{s[0].data(), s[1].data(), s[2].data()};
    a.bias = s[3].size() ? s[3].data() : nullptr;
    a.residual = s[4].size() ? s[4].data() : nullptr;
    return a;
  }
};

conv_operands make_operands(const device& dev, const grouped_conv_problem& p, std::size_t l2_bytes) {
  conv_operands ops;
  const std::size_t count = rotation_count(std::size_t(operand_bytes(p)), l2_bytes);
  for (std::size_t i = 0; i < count; ++i) {
    std::array<buffer, 5> set;
    for (int t = 0; t < 3; ++t)
      set[std::size_t(t)] = random_buffer(dev, std::size_t(p.span(all_tensors[t])), p.dtype_of(all_tensors[t]),
                                          10 * i + std::size_t(t) + 1);
    if (bias_elements(p)) set[3] = random_buffer(dev, std::size_t(bias_elements(p)), p.out_type, 10 * i + 4);
    if (residual_elements(p))
      set[4] = random_buffer(dev, std::size_t(residual_elements(p)), p.out_type, 10 * i + 5);
    ops.sets.push_back(std::move(set));
  }
  return ops;
}

json bench_one(const conv_dispatcher& disp, const grouped_conv_problem& p, const bench_run_options& o,
               const bench_device& bd) {
  return bench_problem(
      disp, p, o, bd, [&] { return make_operands(bd.dev, p, bd.l2_bytes); },
      [&](conv_operands& ops, json& r) -> vendor_call {
#if KDECL_WITH_CUDNN
        if (auto why = cudnn_conv::unsupported(p)) throw std::runtime_error(*why);
        auto dnn = std::make_shared<cudnn_conv>(bd.dev, p, ops.args(0));
        r["cudnn_version"] = cudnn_conv::version();
        const auto result = p.result();
        const auto& c = dnn->choice();
        json how{{"algorithm", dnn->algorithm()}, {"workspace_bytes", dnn->workspace_bytes()},
                 {"find_ms", dnn->find_ms()}, {"legacy_algorithm", c.legacy_algorithm}, {"legacy_ms", c.legacy_ms}};
        if (!c.graph_plan.empty())
          how.update({{"graph_plan", c.graph_plan}, {"graph_plans", c.graph_plans}, {"graph_ms", c.graph_ms}});
        if (!c.graph_error.empty()) how["graph_error"] = c.graph_error;
        return {[dnn, &ops](int i) { dnn->run(ops.args(std::size_t(i))); }, std::move(how),
                &ops.sets.front()[std::size_t(result)], p.dtype_of(result), std::size_t(p.span(result))};
#else
        (void)ops;
        (void)r;
        throw std::runtime_error("this kdecl was built without cuDNN");
#endif
      });
}

int bench_conv(const bench_conv_options& o) {
  const auto layers = o.shape.layers();
  const auto dirs = directions_of(o);
  table_filter keep(o.filter, {"network", "layer", "direction", "class", "g", "dtype"});

  // Problems in order (direction-major), identical ones merged.
  std::vector<conv_item> items;
  std::map<std::string, std::size_t> index;
  for (auto d : dirs)
    for (const auto& l : layers) {
      grouped_conv_problem p = l.problem;
      p.direction(d);
      if (d != conv_direction::fwd) p.fuse({});  // --bias/--residual/--activation fuse forward epilogues only
      p = p.normalized();
      const std::map<std::string, std::string> fields{{"network", l.network}, {"layer", l.layer},
                                                      {"direction", std::string(to_string(d))},
                                                      {"class", conv_class(p)}, {"g", std::to_string(p.g)},
                                                      {"dtype", std::string(to_string(p.in_type))}};
      if (!keep.matches(fields)) continue;
      auto [it, fresh] = index.emplace(conv_key(p), items.size());
      if (fresh) items.push_back({p, {}});
      items[it->second].layers.push_back(&l);
    }
  if (items.empty()) throw std::invalid_argument(fmt::format("--where '{}' keeps no problem", o.filter));
  if (o.limit > 0 && items.size() > o.limit) items.resize(o.limit);

  const device dev = o.shape.target();
  auto candidates = registry_matching(o.kernels);
  conv_dispatcher disp(dev, *candidates);
  std::vector<vendor_problem> problems;
  for (const auto& it : items) {
    vendor_problem vp;
    vp.key = conv_key(it.problem);
    vp.group = fmt::format("{} {}", to_string(it.problem.dir), conv_class(it.problem));
    vp.label = label_of(it);
    vp.fields = fields_of(it);
    vp.operand_bytes = operand_bytes(it.problem);
    note_selection(vp, disp, it.problem);
#if KDECL_WITH_CUDNN
    if (auto why = cudnn_conv::unsupported(it.problem)) vp.vendor_missing = *why;
#else
    vp.vendor_missing = "this kdecl was built without cuDNN";
#endif
    problems.push_back(std::move(vp));
  }

  vendor_bench_spec spec;
  spec.op = "conv";
  const auto& p0 = items.front().problem;
  spec.default_stem = fmt::format("conv_{}_{}{}", to_string(p0.in_type), to_string(p0.layout_or_default()),
                                  dirs.size() == 1 ? "_" + std::string(to_string(dirs.front())) : "");
  spec.inputs = "random inputs in [-1, 1] (tensors over 16 Mi elements repeat a random block of that size); "
                "rotating operand sets > 2x L2; cuDNN: the faster of the legacy API's algorithm from "
                "cudnnFind*AlgorithmEx and the graph API's best plan (cudnn-frontend, every plan of heuristics A and "
                "FALLBACK autotuned), both found on the same buffers (not timed), its workspace allocated";
  spec.target = dev;
  spec.device_flag = o.shape.device;
#if KDECL_WITH_CUDNN
  spec.vendor_built = true;
#endif
  return run_vendor_bench(spec, problems, o, [&](std::size_t i, const bench_device& bd) {
    return bench_one(disp, items[i].problem, o, bd);
  });
}

}  // namespace

int bench_conv_main(int argc, const char* const* argv) {
  CLI::App app{"time the convolution dispatcher's choice and the best instance against cuDNN, in the same process "
               "(JSON lines as measured, JSON, markdown and a plot)",
               "kdecl bench conv"};
  bench_conv_options o;
  o.shape.add_to(app);
  auto* dirs = app.add_option("--directions", o.directions,
                              "directions to time, comma-separated, or all (fwd,bwd_data,bwd_weight); instead of "
                              "--direction");
  dirs->excludes(app.get_option("--direction"));
  app.add_option("--where", o.filter,
                 "choose problems (bench gemm's --filter; --filter is the filter size): FIELD=VALUE (a|b), FIELD!=VALUE or "
                 "FIELD~TEXT terms, comma-separated; fields: "
                 "network layer direction class (dense pointwise grouped depthwise) g dtype");
  app.add_option("--limit", o.limit, "at most this many problems (after --where; identical layers count once)");
  o.add_to(app, "conv_<dtype>_<layout>[_<direction>]");
  return parse_and_run(app, argc, argv, 2, [&] { return bench_conv(o); });  // argv[2] ("conv") stands for the program name
}

}  // namespace kdecl::cli
