#include "bench_fmha.hpp"

#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "bench_tables.hpp"
#include "bench_timing.hpp"
#include "fmha_operands.hpp"
#include "fmha_options.hpp"
#include "kdecl/fmha/fmha_dispatcher.hpp"
#include "kdecl/numeric/host_storage.hpp"
#include "kernel_filter.hpp"
#include "parse_and_run.hpp"
#include "vendor_bench.hpp"

#if KDECL_WITH_CUDNN_FRONTEND
#include "cudnn_sdpa.hpp"
#endif

namespace kdecl::cli {
namespace {

using nlohmann::json;

struct bench_fmha_options : bench_run_options {
  fmha_options shape;
  std::vector<std::string> csv;
  std::string filter;
  std::size_t limit = 0;
};

std::vector<dtype> dtypes_of(const std::string& list) {
  std::vector<dtype> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= list.size(); ++i)
    if (i == list.size() || list[i] == ',') {
      const std::string name = list.substr(start, i - start);
      start = i + 1;
      auto d = parse<dtype>(name);
      if (!d || (*d != dtype::fp16 && *d != dtype::bf16 && *d != dtype::fp32))
        throw std::invalid_argument(fmt::format("--dtype '{}': '{}' is not fp16, bf16 or fp32", list, name));
      out.push_back(*d);
    }
  return out;
}

std::string mask_name(const fmha_problem& p) {
  if (p.mask == fmha_mask::generic) return "window";
  if (p.mask == fmha_mask::none) return "none";
  return "causal";
}

// The class the bars name: head dim, mask, GQA, features, variable lengths.
std::string group_of(const fmha_problem& p) {
  std::string g = fmt::format("{} d{} {}", to_string(p.qkv), p.hdim_q, mask_name(p));
  if (p.heads_q != p.heads_kv) g += " gqa";
  if (p.soft_cap > 0) g += " softcap";
  if (p.sinks) g += " sinks";
  if (p.bias != fmha_bias::none) g += p.bias == fmha_bias::alibi ? " alibi" : " bias";
  if (p.group_mode()) g += " varlen";
  return g;
}

// One problem and the rows it stands for.
struct fmha_item {
  fmha_problem problem;  // normalized
  std::vector<std::string> rows;  // "file:name"
};

json fields_of(const fmha_item& it) {
  const auto& p = it.problem;
  return json{{"dtype", to_string(p.qkv)}, {"b", p.batch}, {"hq", p.heads_q}, {"hkv", p.heads_kv},
              {"sq", p.seqlen_q}, {"skv", p.seqlen_kv}, {"d", p.hdim_q}, {"dv", p.hdim_v},
              {"mask", to_string(p.mask)}, {"varlen", p.group_mode()}, {"tokens_q", p.total_q()},
              {"flops", p.flops()}, {"bytes", p.bytes()}, {"rows", it.rows}};
}

json bench_one(const fmha_dispatcher& disp, const fmha_problem& p, const bench_run_options& o, const bench_device& bd) {
  return bench_problem(
      disp, p, o, bd, [&] { return make_operands(bd.dev, p, bd.l2_bytes); },
      [&](fmha_operands& ops, json&) -> vendor_call {
#if KDECL_WITH_CUDNN_FRONTEND
        if (auto why = cudnn_sdpa::unsupported(p)) throw std::runtime_error(*why);
        auto dnn = std::make_shared<cudnn_sdpa>(bd.dev, p);
        return {[dnn, &ops](int i) { dnn->run(ops.args(std::size_t(i))); },
                json{{"plan", dnn->plan()}, {"workspace_bytes", dnn->workspace_bytes()}}, &ops.sets.front()[3], p.o,
                spans_of(p).o};
#else
        (void)ops;
        throw std::runtime_error("this kdecl was built without cuDNN or the cudnn-frontend headers");
#endif
      });
}

int bench_fmha(const bench_fmha_options& o) {
  std::vector<fmha_item> items;
  std::map<std::string, std::size_t> index;
  table_filter keep(o.filter, {"file", "name", "mask", "d", "dtype", "varlen", "group"});
  auto add = [&](const fmha_problem& p, const std::string& row, const std::map<std::string, std::string>& fields) {
    if (!keep.matches(fields)) return;
    auto [it, fresh] = index.emplace(fmha_key(p), items.size());
    if (fresh) items.push_back({p, {}});
    if (!row.empty()) items[it->second].rows.push_back(row);
  };
  auto fields_for = [](const fmha_problem& p, const std::string& file, const std::string& name) {
    return std::map<std::string, std::string>{{"file", file}, {"name", name}, {"mask", mask_name(p)},
                                              {"d", std::to_string(p.hdim_q)}, {"dtype", std::string(to_string(p.qkv))},
                                              {"varlen", p.group_mode() ? "1" : "0"}, {"group", group_of(p)}};
  };
  const auto dtypes = dtypes_of(o.shape.dtype);
  if (!o.csv.empty()) {
    if (o.shape.hq != 0 || o.shape.d != 0 || !o.shape.varlen.empty() || o.shape.sq != 0)
      throw std::invalid_argument("--problems and the size flags (--hq --d --sq --varlen ...) exclude each other");
    for (auto d : dtypes)
      for (const auto& path : o.csv)
        for (const auto& r : read_fmha_rows(path, d)) add(r.problem, r.file + ":" + r.name, fields_for(r.problem, r.file, r.name));
  } else {
    if (o.shape.hq == 0 || o.shape.d == 0)
      throw std::invalid_argument("give --problems FILE..., or one problem's --hq, --d and --sq (or --varlen)");
    for (auto d : dtypes) {
      fmha_options one = o.shape;
      one.dtype = std::string(to_string(d));
      const auto p = one.problem().normalized();
      add(p, "", fields_for(p, "", ""));
    }
  }
  if (items.empty()) throw std::invalid_argument(fmt::format("--where '{}' keeps no problem", o.filter));
  if (o.limit > 0 && items.size() > o.limit) items.resize(o.limit);

  const device dev = o.shape.target();
  auto candidates = registry_matching(o.kernels);
  fmha_dispatcher disp(dev, *candidates);
  std::vector<vendor_problem> problems;
  for (const auto& it : items) {
    vendor_problem vp;
    vp.key = fmha_key(it.problem);
    vp.group = group_of(it.problem);
    vp.label = it.rows.empty() ? "" : it.rows.front() + (it.rows.size() > 1 ? fmt::format(" +{} rows", it.rows.size() - 1) : "");
    vp.fields = fields_of(it);
    vp.operand_bytes = operand_bytes(it.problem);
    note_selection(vp, disp, it.problem);
#if KDECL_WITH_CUDNN_FRONTEND
    if (auto why = cudnn_sdpa::unsupported(it.problem)) vp.vendor_missing = *why;
#else
    vp.vendor_missing = "this kdecl was built without cuDNN or the cudnn-frontend headers";
#endif
    problems.push_back(std::move(vp));
  }

  vendor_bench_spec spec;
  spec.op = "fmha";
  std::string dt;
  for (auto d : dtypes) dt += (dt.empty() ? "" : "_") + std::string(to_string(d));
  spec.default_stem = fmt::format("fmha_{}", dt);
  spec.inputs = "random Q, K, V (and bias) in [-1, 1] (tensors over 16 Mi elements repeat a random block of that "
                "size); rotating operand sets > 2x L2; cuDNN's plan from its heuristics (mode A, then fallback), "
                "graph built before timing; TFLOP/s over attended (query, key) pairs only (causal: about half)";
  spec.target = dev;
  spec.device_flag = o.shape.device;
#if KDECL_WITH_CUDNN_FRONTEND
  spec.vendor_built = true;
#endif
  return run_vendor_bench(spec, problems, o, [&](std::size_t i, const bench_device& bd) {
    return bench_one(disp, items[i].problem, o, bd);
  });
}

}  // namespace

int bench_fmha_main(int argc, const char* const* argv) {
  CLI::App app{"time the attention dispatcher's choice and the best instance against cuDNN's fused attention, in "
               "the same process (JSON lines as measured, JSON, markdown and a plot)",
               "kdecl bench fmha"};
  bench_fmha_options o;
  o.shape.add_to(app, fmha_options::mode::bench);
  app.add_option("--problems", o.csv, "attention shape lists (benchmarks/shapes/fmha_*.csv) instead of the size flags");
  app.add_option("--where", o.filter,
                 "choose problems (bench gemm's --filter): FIELD=VALUE (a|b), FIELD!=VALUE or "
                 "FIELD~TEXT terms, comma-separated; fields: "
                 "file name mask (none causal window) d dtype varlen (0 1) group");
  app.add_option("--limit", o.limit, "at most this many problems (after --where; identical rows count once)");
  o.add_to(app, "fmha_<dtypes>");
  return parse_and_run(app, argc, argv, 2, [&] { return bench_fmha(o); });  // argv[2] ("fmha") stands for the program name
}

}  // namespace kdecl::cli
