#include "fmha_paged_command.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "kdecl/arch/arch.hpp"
#include "kdecl/arch/fmha_specs.hpp"
#include "kdecl/fmha/fmha_paged_dispatcher.hpp"
#include "kdecl/kernels/fmha/cuda/decode/decode_plan.hpp"
#include "kdecl/kernels/fmha/host/fmha_paged_host.hpp"
#include "kdecl/numeric/host_storage.hpp"
#include "kdecl/runtime/fmha_paged_case.hpp"
#include "parse_and_run.hpp"

namespace kdecl::cli {
namespace {

struct paged_options {
  std::string batch = "1", kv = "4096", kv_lengths, splits = "auto", dtype = "bf16", cache, table = "block", mask = "none";
  std::string window, device = "auto", arch;
  std::int64_t sq = 1, hq = 32, hkv = 8, d = 128, page_size = 16;
  std::int64_t prefill = 0;  // > 0: batch_prefill, this many query tokens per sequence (its last keys)
  float softcap = 0.0f;
  bool sinks = false, paged = false, scale_per_head = false, explain = false;
  std::uint64_t seed = 1;
  int reps = 20, cudnn = 1, sms = 0;  // sms 0: the arch table's
};

std::vector<std::int64_t> int_list(const std::string& flag, const std::string& text) {
  std::vector<std::int64_t> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i)
    if (i == text.size() || text[i] == ',') {
      const std::string item = text.substr(start, i - start);
      start = i + 1;
      std::size_t used = 0;
      long long v = 0;
      try {
        v = std::stoll(item, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != item.size() || item.empty() || v < 0)
        throw std::invalid_argument(fmt::format("{} '{}': '{}' is not a non-negative integer", flag, text, item));
      out.push_back(v);
    }
  return out;
}

// Every problem the options name (one per --b x --skv pair, or one with --kv-lengths).
std::vector<fmha_paged_problem> problems_of(const paged_options& o) {
  fmha_paged_problem base;
  base.family = o.prefill > 0     ? fmha_family::batch_prefill
                : o.splits == "1" ? fmha_family::fwd_pagedkv
                                  : fmha_family::fwd_splitkv;
  base.splits = o.splits == "auto" ? 0 : int(int_list("--splits", o.splits).at(0));
  base.seqlen_q = o.sq;
  base.heads_q = o.hq;
  base.heads_kv = o.hkv;
  base.hdim = o.d;
  auto dt = parse<dtype>(o.dtype);
  if (!dt) throw std::invalid_argument(fmt::format("--dtype '{}': fp16 or bf16", o.dtype));
  base.qkv = *dt;
  if (!o.cache.empty()) {
    auto c = parse<dtype>(o.cache);
    if (!c) throw std::invalid_argument(fmt::format("--cache '{}': fp16, bf16 or fp8", o.cache));
    base.cache = *c;
    base.kv_scale_per_head = o.scale_per_head;
  }
  base.page_size = o.page_size;
  if (o.table != "block" && o.table != "list")
    throw std::invalid_argument(fmt::format("--table '{}': block (vLLM block table) or list (SGLang page list)", o.table));
  base.table = o.table == "block" ? page_table_kind::block_table : page_table_kind::page_list;
  if (o.mask == "none") base.mask = fmha_mask::none;
  else if (o.mask == "causal" || o.mask == "bottom_right") base.mask = fmha_mask::bottom_right;
  else if (o.mask == "top_left") base.mask = fmha_mask::top_left;
  else if (o.mask == "window") {
    const auto w = int_list("--window", o.window);
    if (w.size() != 2) throw std::invalid_argument("--mask window needs --window LEFT,RIGHT");
    base.mask = fmha_mask::generic;
    base.window_left = w[0];
    base.window_right = w[1];
  } else {
    throw std::invalid_argument(fmt::format("--mask '{}': none, causal, top_left or window", o.mask));
  }
  base.soft_cap = o.softcap;
  base.sinks = o.sinks;
  base.lse = true;
  std::vector<std::vector<std::int32_t>> length_sets;
  if (!o.kv_lengths.empty()) {
    std::vector<std::int32_t> l;
    for (auto v : int_list("--kv-lengths", o.kv_lengths)) l.push_back(std::int32_t(std::min<std::int64_t>(v, (std::int64_t(1) << 30) + 1)));
    length_sets.push_back(l);
  } else {
    for (auto b : int_list("--b", o.batch))
      for (auto kv : int_list("--skv", o.kv)) {
        if (b > 65535) throw std::invalid_argument(fmt::format("--b {}: at most 65535 sequences (the decode grid)", b));
        length_sets.emplace_back(std::size_t(b), std::int32_t(std::min<std::int64_t>(kv, (std::int64_t(1) << 30) + 1)));
      }
  }
  std::vector<fmha_paged_problem> out;
  for (auto& lengths : length_sets) {
    fmha_paged_problem p = base;
    p.batch = std::int64_t(lengths.size());
    p.seqlens_kv = lengths;
    if (p.prefill()) {  // chunked prefill: each sequence's last min(--prefill, its keys) keys are its queries
      p.splits = 0;
      p.cu_seqlens_q = {0};
      for (auto l : lengths) p.cu_seqlens_q.push_back(p.cu_seqlens_q.back() + std::int32_t(std::min<std::int64_t>(o.prefill, l)));
      p = p.normalized();
    }
    std::int64_t widest = 0, total = 0;
    for (auto l : lengths) {
      const std::int64_t pages = (l + p.page_size - 1) / std::max<std::int64_t>(p.page_size, 1);
      widest = std::max(widest, pages);
      total += pages;
    }
    p.num_pages = total;
    if (p.table == page_table_kind::block_table) {
      p.max_pages_per_seq = widest;
    } else {
      p.page_offsets.push_back(0);
      for (auto l : lengths)
        p.page_offsets.push_back(std::int32_t(p.page_offsets.back() + (l + p.page_size - 1) / std::max<std::int64_t>(p.page_size, 1)));
    }
    if (auto e = p.validate()) throw std::invalid_argument(*e);
    out.push_back(p);
  }
  return out;
}

std::string describe(const fmha_paged_problem& p) {
  std::string s = p.prefill()
                      ? fmt::format("batch_prefill: {} sequences ({} keys, longest {}), {} query tokens (the last keys of "
                                    "each), heads {}/{}, d {}, {}",
                                    p.batch, p.total_kv(), p.max_seqlen_kv(), p.total_q(), p.heads_q, p.heads_kv, p.hdim,
                                    to_string(p.qkv))
                      : fmt::format("{} sequences ({} keys, longest {}), {} query token{}, heads {}/{}, d {}, {}", p.batch,
                                    p.total_kv(), p.max_seqlen_kv(), p.seqlen_q, p.seqlen_q == 1 ? "" : "s", p.heads_q,
                                    p.heads_kv, p.hdim, to_string(p.qkv));
  if (p.fp8_cache()) s += p.kv_scale_per_head ? ", fp8 cache (per-head scales)" : ", fp8 cache (per-tensor scales)";
  s += fmt::format(", pages of {} ({})", p.page_size, p.table == page_table_kind::block_table ? "block table" : "page list");
  if (p.mask != fmha_mask::none) s += fmt::format(", mask {}", to_string(p.mask));
  if (p.mask == fmha_mask::generic) s += fmt::format(" ({}, {})", p.window_left, p.window_right);
  if (p.soft_cap > 0) s += fmt::format(", soft-cap {}", p.soft_cap);
  if (p.sinks) s += ", sinks";
  return s;
}

bool want_gpu(const paged_options& o) {
  if (o.device == "host") return false;
  if (o.device != "auto" && o.device != "cuda")
    throw std::invalid_argument(fmt::format("--device '{}': host, cuda or auto", o.device));
#if KDECL_WITH_CUDA
  return true;
#else
  if (o.device == "cuda") throw std::invalid_argument("--device cuda: this kdecl was built without CUDA");
  return false;
#endif
}

// The plan without a device: `sms` SMs of `arch`, blocks per SM from the kernel's shared
// memory and the arch table's (decode_blocks_per_sm_offline, as the kernel's own offline plan).
kernels::cuda::decode::decode_plan offline_plan(const fmha_paged_problem& p, arch_id arch, int sms) {
  const int smem = kernels::cuda::decode::decode_smem_bytes(kernels::cuda::decode::decode_padded_hdim(p.hdim), p.fp8_cache());
  const auto* offer = arch::fmha::find_pipeline(arch::fmha::spec_of(arch), fmha_pipeline::paged_decode);
  const int per_sm = kernels::cuda::decode::decode_blocks_per_sm_offline(smem, offer ? offer->smem_capacity : 0);
  return kernels::cuda::decode::plan_paged_decode(p.normalized(), sms, per_sm);
}

// The device select() asks the dispatcher about: --arch (offline), else the GPU, else the host.
device selection_device(const paged_options& o, bool gpu) {
  if (!o.arch.empty()) {
    const auto a = parse<arch_id>(o.arch);
    if (!a) throw std::invalid_argument(fmt::format("--arch '{}': not an arch kdecl knows (kdecl arch)", o.arch));
    device d;
    d.arch = *a;
    d.description = fmt::format("{} (offline)", o.arch);
    return d;
  }
  return gpu ? default_device() : device::host();
}

int select(const paged_options& o) {
  const bool gpu = want_gpu(o) && o.arch.empty();
  const device dev = selection_device(o, gpu);
  const fmha_paged_dispatcher dispatcher(dev);
  for (const auto& p : problems_of(o)) {
    fmt::print("problem: {}\n", describe(p));
    const auto sel = dispatcher.select(p, nullptr, o.explain);
    fmt::print("{}: {}\n", dev.description, sel.explain(o.explain ? 1000 : 5));
    if (o.explain && sel)
      for (const auto& r : sel.rejected) fmt::print("  not {}: {}\n", r.kernel, r.reason);
    if (p.prefill()) {
      // One launch of the forward kernel over the pages: no split plan.
    } else if (gpu) {
#if KDECL_WITH_CUDA
      fmt::print("plan: {}\n", paged_plan_on_gpu(p));
#endif
    } else if (const arch_id a = o.arch.empty() ? arch_id::sm_90 : dev.arch;
               a != arch_id::host && arch::fmha::find_pipeline(arch::fmha::spec_of(a), fmha_pipeline::paged_decode)) {
      // The CUDA kernels' plan for an NVIDIA arch (the host kernel plans its own split-KV).
      const int sms = o.sms > 0 ? o.sms : std::max(1, arch::spec_of(a).sm_count);
      const auto plan = offline_plan(p, a, sms);
      fmt::print("plan (no GPU here: {} SMs of {} assumed, --sms): {}, {} blocks, kernel head dim {}, "
                 "workspace {} bytes\n",
                 sms, to_string(a), plan.splits > 1 ? fmt::format("split-KV in {} splits + combine", plan.splits) : "one stage",
                 plan.blocks, plan.padded_hdim, plan.workspace_bytes);
    }
  }
  return 0;
}

// The host run: the dispatcher's host kernel (instances/fmha_paged.cpp; split-KV in the CUDA
// kernel's 64-key tiles with a lent workspace) against the exact one-piece reference.
template <class T>
bool run_host(const fmha_paged_problem& p, const paged_options& o) {
  auto c = test::make_paged_case<T>(test::paged_config_of(p, o.seed), p.qkv);
  const std::size_t rows = std::size_t(c.p.total_q() * c.p.heads_q);
  std::vector<T> got(c.q.size(), T(std::numeric_limits<float>::quiet_NaN())), want(c.q.size());
  std::vector<float> got_lse(rows, std::numeric_limits<float>::quiet_NaN()), want_lse(rows);
  auto a = c.host_args();
  a.o = want.data();
  a.lse = want_lse.data();
  kernels::host::paged_decode<T>(c.p, a);  // exact, one piece
  a.o = got.data();
  a.lse = got_lse.data();
  const fmha_paged_dispatcher dispatcher(device::host());
  const auto sel = dispatcher.select(c.p, &a);
  if (!sel) throw std::runtime_error(sel.explain());
  if (const status st = dispatcher.run(c.p, a); !st) throw std::runtime_error(st.message());
  double err = 0, lse_err = 0;
  bool ok = true;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double e = std::abs(double(float(got[i])) - double(float(want[i])));
    ok = ok && e <= 1e-2;
    if (!std::isnan(e)) err = std::max(err, e);
  }
  for (std::size_t i = 0; i < rows; ++i) {
    const bool same_inf = std::isinf(want_lse[i]) && got_lse[i] == want_lse[i];
    const double e = same_inf ? 0.0 : std::abs(double(got_lse[i]) - double(want_lse[i]));
    ok = ok && e <= 1e-3 * std::max(1.0, std::abs(double(want_lse[i])));
    if (!std::isnan(e)) lse_err = std::max(lse_err, e);
  }
  fmt::print("run: host, {} ({})\n", sel.kernel->name(),
             sel.splits > 1 ? fmt::format("{} splits + combine", sel.splits) : std::string("one stage"));
  fmt::print("check: {}: max |O error| {:.2e}, LSE error {:.2e} against the exact one-piece reference\n",
             ok ? "PASS" : "FAIL", err, lse_err);
  return ok;
}

int run(const paged_options& o, bool dry_run) {
  const auto problems = problems_of(o);
  const bool gpu = want_gpu(o);
  if (dry_run) return 0;
  bool all = true;
  for (const auto& p : problems) {
    fmt::print("problem: {}\n", describe(p));
    if (gpu) {
#if KDECL_WITH_CUDA
      const auto r = paged_check_on_gpu(p, o.seed);
      if (!r.error.empty()) throw std::runtime_error(r.error);
      fmt::print("run: CUDA, {} ({})\n", r.kernel, r.splits > 1 ? fmt::format("{} splits + combine", r.splits) : "one stage");
      fmt::print("check: {}: max |O error| {:.2e}, LSE error {:.2e} against the exact host reference\n",
                 r.pass ? "PASS" : "FAIL", r.max_o_error, r.max_lse_error);
      all = all && r.pass;
#endif
    } else {
      all = (p.qkv == dtype::bf16 ? run_host<host_storage_t<dtype::bf16>>(p, o) : run_host<host_storage_t<dtype::fp16>>(p, o)) && all;
    }
  }
  return all ? 0 : 1;
}

int bench(const paged_options& o, bool dry_run) {
  if (o.prefill > 0)
    throw std::invalid_argument("kdecl bench fmha --paged times decode; batch_prefill (--prefill) is timed by "
                                "kdecl_bench_decode --prefill, against the forward kernel on contiguous K/V");
  const auto problems = problems_of(o);
  if (!want_gpu(o)) throw std::invalid_argument("kdecl bench fmha --paged times the CUDA decode kernels: it needs --device cuda (a CUDA build)");
  if (dry_run) return 0;
#if KDECL_WITH_CUDA
  return paged_bench_on_gpu(problems, o.reps, o.cudnn != 0);
#else
  return 2;
#endif
}

}  // namespace

bool is_paged_fmha_command(int argc, const char* const* argv) {
  if (argc < 3 || std::string_view(argv[2]) != "fmha") return false;
  const std::string_view verb = argv[1];
  if (verb != "select" && verb != "run" && verb != "bench") return false;
  for (int i = 3; i < argc; ++i)
    if (std::string_view(argv[i]) == "--paged") return true;
  return false;
}

int paged_fmha_main(int argc, const char* const* argv, bool dry_run) {
  const std::string verb = argv[1];
  CLI::App app{fmt::format("kdecl {} fmha --paged: {} (docs/fmha_serving.md)", verb,
                           verb == "select" ? "the registered kernel and plan for decode over a paged KV cache"
                           : verb == "run"  ? "decode over a paged KV cache, checked against the exact host reference"
                                            : "time the paged decode against the copy bandwidth and cuDNN")};
  app.name(fmt::format("kdecl {} fmha", verb));
  paged_options o;
  app.add_flag("--paged", o.paged, "the serving families: decode over a paged KV cache")->required();
  app.add_option("--b", o.batch, "sequences; a list (1,8,64) makes one problem each")->capture_default_str();
  app.add_option("--skv", o.kv, "keys per sequence; a list makes one problem each")->capture_default_str();
  app.add_option("--kv-lengths", o.kv_lengths, "per-sequence key lengths L0,L1,... (replaces --b and --skv)");
  app.add_option("--sq", o.sq, "query tokens per sequence (1 to 64)")->capture_default_str();
  app.add_option("--prefill", o.prefill, "batch_prefill (select, run): this many query tokens per sequence, its last "
                                          "keys (chunked prefill after a cached prefix); replaces --sq")
      ->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 30));
  app.add_option("--hq", o.hq, "query heads")->capture_default_str();
  app.add_option("--hkv", o.hkv, "key/value heads")->capture_default_str();
  app.add_option("--d", o.d, "head dim")->capture_default_str();
  app.add_option("--page-size", o.page_size, "tokens per page (a power of two, 1 to 256)")->capture_default_str();
  app.add_option("--table", o.table, "block (vLLM block table) or list (SGLang page list)")->capture_default_str();
  app.add_option("--splits", o.splits, "auto (planned), 1 (one stage: fwd_pagedkv) or N")->capture_default_str();
  app.add_option("--dtype", o.dtype, "fp16 or bf16")->capture_default_str();
  app.add_option("--cache", o.cache, "the cache's dtype when it differs: fp8 (e4m3, scales)");
  app.add_flag("--per-head-scales", o.scale_per_head, "fp8 cache: one K and one V scale per KV head");
  app.add_option("--mask", o.mask, "none, causal, top_left or window")->capture_default_str();
  app.add_option("--window", o.window, "sliding window LEFT,RIGHT (with --mask window)");
  app.add_option("--softcap", o.softcap, "logit soft-cap (tanh; 0: off)");
  app.add_flag("--sinks", o.sinks, "one learned logit per query head joins the softmax denominator");
  app.add_option("--device", o.device, "host, cuda or auto")->capture_default_str();
  app.add_option("--sms", o.sms, "SMs the plan assumes where no GPU is used (default: the arch table's, 132 on sm_90)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--arch", o.arch, "select: the registered kernels of this arch, offline (e.g. sm_90)");
  app.add_flag("--explain", o.explain, "select: every candidate and why it was refused");
  app.add_option("--seed", o.seed, "random inputs' seed (run)")->capture_default_str();
  app.add_option("--reps", o.reps, "launches timed per measurement (bench)")->capture_default_str();
  app.add_option("--cudnn", o.cudnn, "also time cuDNN's SDPA on a contiguous cache and through its paged attention (bench): 1 or 0")->capture_default_str();
  return parse_and_run(app, argc, argv, 2, [&] {
    return verb == "select" ? select(o) : verb == "run" ? run(o, dry_run) : bench(o, dry_run);
  });
}

}  // namespace kdecl::cli
