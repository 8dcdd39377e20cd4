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

// The tensors of one call on the device.
struct fmha_operands {
  std::vector<std::array<buffer, 4>> sets;  // q, k, v, o
  buffer lse, bias, slopes, sinks, cu_q, cu_kv;
  const fmha_problem* p = nullptr;
  fmha_args args(std::size_t i) {
    auto& s = sets[i % sets.size()];
    fmha_args a;
    a.q = s[0].data();
    a.k = s[1].data();
    a.v = s[2].data();
    a.o = s[3].data();
    if (p->lse) a.lse = static_cast<float*>(lse.data());
    if (p->bias == fmha_bias::elementwise) a.bias = bias.data();
    if (p->bias == fmha_bias::alibi) a.alibi_slopes = static_cast<const float*>(slopes.data());
    if (p->sinks) a.sinks = static_cast<const float*>(sinks.data());
    if (p->group_mode()) {
      a.cu_seqlens_q = static_cast<const std::int32_t*>(cu_q.data());
      a.cu_seqlens_kv = static_cast<const std::int32_t*>(cu_kv.data());
    }
    return a;
  }
};

// Elements a BSHD-indexed tensor spans with its strides.
std::size_t span_of(const fmha_problem& p, const fmha_strides& s, std::int64_t rows, std::int64_t heads, std::int64_t dim) {
  if (rows <= 0 || heads <= 0 || dim <= 0) return 1;
  const std::int64_t batches = p.group_mode() ? 1 : p.batch;
  return std::size_t((batches - 1) * s.batch + (rows - 1) * s.seq + (heads - 1) * s.head + dim);
}

struct fmha_spans {
  std::size_t q, k, v, o, lse, bias;
};

fmha_spans spans_of(const fmha_problem& p) {
  const std::int64_t rq = p.group_mode() ? p.total_q() : p.seqlen_q;
  const std::int64_t rkv = p.group_mode() ? p.total_kv() : p.seqlen_kv;
  fmha_spans s{span_of(p, p.q_strides, rq, p.heads_q, p.hdim_q), span_of(p, p.k_strides, rkv, p.heads_kv, p.hdim_q),
               span_of(p, p.v_strides, rkv, p.heads_kv, p.hdim_v), span_of(p, p.o_strides, rq, p.heads_q, p.hdim_v),
               1, 1};
  if (p.lse)
    s.lse = std::size_t(p.group_mode() ? (p.heads_q - 1) * p.lse_head_stride + p.total_q()
                                       : (p.batch - 1) * p.lse_batch_stride + (p.heads_q - 1) * p.lse_head_stride +
                                             p.seqlen_q);
  if (p.bias == fmha_bias::elementwise) {
    const auto& b = p.bias_strides;
    const std::int64_t bb = p.bias_per_batch ? p.batch : 1, bh = p.bias_per_head ? p.heads_q : 1;
    s.bias = std::size_t((bb - 1) * b.batch + (bh - 1) * b.head + (p.seqlen_q - 1) * b.seq + p.seqlen_kv);
  }
  return s;
}

double operand_bytes(const fmha_problem& p) {
  const auto s = spans_of(p);
  return double(s.q + s.k + s.v + s.bias) * double(dtype_size_bytes(p.qkv)) + double(s.o) * double(dtype_size_bytes(p.o));
}

fmha_operands make_operands(const device& dev, const fmha_problem& p, std::size_t l2_bytes) {
  fmha_operands ops;
  ops.p = &p;
  const auto s = spans_of(p);
  const std::size_t count = rotation_count(std::size_t(operand_bytes(p)), l2_bytes);
  for (std::size_t i = 0; i < count; ++i)
    ops.sets.push_back({random_buffer(dev, s.q, p.qkv, 10 * i + 1), random_buffer(dev, s.k, p.qkv, 10 * i + 2),
                        random_buffer(dev, s.v, p.qkv, 10 * i + 3), buffer(dev, s.o * dtype_size_bytes(p.o))});
  ops.lse = buffer(dev, s.lse * sizeof(float));
  ops.bias = random_buffer(dev, s.bias, p.qkv, 7);
  // ALiBi's slopes 2^(-8 (h + 1) / H) (also what cuDNN uses); sinks in [-1, 1].
  std::vector<float> slopes;
  for (std::int64_t i = 0; i < (p.alibi_per_batch ? p.batch : 1) * p.heads_q; ++i)
    slopes.push_back(float(std::exp2(-8.0 * double(i % p.heads_q + 1) / double(p.heads_q))));
  ops.slopes = buffer(dev, std::max<std::size_t>(slopes.size(), 1) * sizeof(float));
  if (!slopes.empty()) ops.slopes.upload(slopes);
  ops.sinks = random_buffer(dev, std::size_t(p.heads_q), dtype::fp32, 8);
  auto upload = [&](buffer& dst, const std::vector<std::int32_t>& v) {
    dst = buffer(dev, std::max<std::size_t>(v.size(), 1) * sizeof(std::int32_t));
    if (!v.empty()) dst.upload(v);
  };
  upload(ops.cu_q, p.cu_seqlens_q);
  upload(ops.cu_kv, p.cu_seqlens_kv);
  return ops;
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
