#include "fmha_options.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "bias_option.hpp"
#include "gemm_options.hpp"
#include "problem_table.hpp"

namespace kdecl::cli {
namespace {

std::int64_t number(const std::string& flag, const std::string& s) {
  try {
    std::size_t used = 0;
    const long long v = std::stoll(s, &used);
    if (used != s.size()) throw std::invalid_argument(s);
    return v;
  } catch (const std::exception&) {
    throw std::invalid_argument(fmt::format("{} '{}' is not an integer", flag, s));
  }
}


}  // namespace

void fmha_options::add_to(CLI::App& app, mode m) {
  const bool run = m == mode::run;
  app.add_option("--b", b, "batch (sequences)")->capture_default_str();
  auto* q_heads = app.add_option("--hq", hq, "query heads");
  app.add_option("--hkv", hkv, "key/value heads (default: --hq); --hq must be a multiple (GQA/MQA)");
  app.add_option("--sq", sq, "query length");
  app.add_option("--skv", skv, "key/value length (default: --sq)");
  auto* head_dim = app.add_option("--d", d, "head dim of Q and K");
  if (m != mode::bench) {  // bench takes --problems files instead
    q_heads->required();
    head_dim->required();
  }
  app.add_option("--dv", dv, "head dim of V and O (default: --d)");
  app.add_option("--dtype", dtype, m == mode::bench ? "fp16 or bf16, or both: bf16,fp16" : "fp16, bf16 or fp32")
      ->capture_default_str();
  app.add_option("--layout", layout, "bshd or bhsd (packed)")->capture_default_str();
  app.add_option("--mask", mask, "none, causal (= top_left), top_left, bottom_right, window")->capture_default_str();
  app.add_option("--window", window, "sliding window L,R around the bottom-right diagonal (-1: unbounded)");
  app.add_option("--bias", bias, "none, alibi, elementwise [B,H,Sq,Skv], elementwise:b [B,1,Sq,Skv], "
                                 "elementwise:h [1,H,Sq,Skv], elementwise:1 [Sq,Skv]; keys, keys:b, keys:h, keys:1: "
                                 "the same with one row for every query ([B,1,1,Skv]: a padding mask)")
      ->capture_default_str();
  app.add_option("--softcap", softcap, "logit soft-cap (tanh; 0: off)");
  app.add_option("--scale", scale, "softmax scale (0: 1/sqrt(d))");
  app.add_flag("--sinks", sinks, "one learned logit per query head joins the softmax denominator");
  app.add_flag("--lse", lse, "write the log-sum-exp too");
  app.add_option("--varlen", varlen, "group mode: per-sequence lengths Q:KV,... (replaces --b, --sq, --skv)");
  app.add_option("--device", device, "host, cuda (the first GPU), cuda:N, auto (first GPU, else host), or an arch such as sm_90 "
                                     "(select only)")->capture_default_str();
  if (run) {
    app.add_option("--kernel", kernel, "run this registered kernel instead of the dispatcher's choice");
    app.add_option("--seed", seed, "random inputs' seed")->capture_default_str();
  } else if (m == mode::select) {
    app.add_flag("--explain", explain, "also list why every other kernel was refused");
  }
}

fmha_problem fmha_options::problem() const {
  fmha_problem p;
  const auto dt = parse<kdecl::dtype>(dtype);
  if (!dt || (*dt != kdecl::dtype::fp16 && *dt != kdecl::dtype::bf16 && *dt != kdecl::dtype::fp32))
    throw std::invalid_argument(fmt::format("--dtype '{}' is not one of: fp16, bf16, fp32", dtype));
  p.dtype(*dt).heads(hq, hkv > 0 ? hkv : hq).head_dims(d, dv > 0 ? dv : d);
  if (!varlen.empty()) {
    std::vector<std::int32_t> lq, lkv;
    for (const auto& pair : split_on(varlen, ',')) {
      const auto parts = split_on(pair, ':');
      if (parts.size() != 2)
        throw std::invalid_argument(fmt::format("--varlen '{}': '{}' is not Q:KV (e.g. 512:512)", varlen, pair));
      const auto q = number("--varlen", parts[0]), kv = number("--varlen", parts[1]);
      if (q < 0 || kv < 0 || q > INT32_MAX || kv > INT32_MAX)
        throw std::invalid_argument(fmt::format("--varlen '{}': lengths must lie in 0..2^31-1", pair));
      lq.push_back(std::int32_t(q));
      lkv.push_back(std::int32_t(kv));
    }
    p.varlen(lq, lkv);
  } else {
    if (sq <= 0 && skv <= 0) throw std::invalid_argument("give --sq (and --skv), or --varlen");
    p.sizes(b, sq, skv > 0 ? skv : sq);
  }
  if (layout == "bhsd") p.bhsd();
  else if (layout != "bshd") throw std::invalid_argument(fmt::format("--layout '{}' is not bshd or bhsd", layout));

  if (mask == "none") p.causal(fmha_mask::none);
  else if (mask == "causal" || mask == "top_left") p.causal(fmha_mask::top_left);
  else if (mask == "bottom_right") p.causal(fmha_mask::bottom_right);
  else if (mask != "window" && mask != "generic")
    throw std::invalid_argument(fmt::format("--mask '{}' is not none, causal, top_left, bottom_right or window", mask));
  if (!window.empty()) {
    if (mask != "none" && mask != "window" && mask != "generic")
      throw std::invalid_argument(fmt::format("--window is a mask of its own; drop --mask {}", mask));
    const auto lr = split_on(window, ',');
    if (lr.size() != 2) throw std::invalid_argument(fmt::format("--window '{}' is not L,R (e.g. 4096,0)", window));
    p.sliding_window(number("--window", lr[0]), number("--window", lr[1]));
  } else if (mask == "window" || mask == "generic") {
    throw std::invalid_argument("--mask window needs --window L,R");
  }
  if (!apply_bias_option(p, bias))
    throw std::invalid_argument(fmt::format("--bias '{}' is not none, alibi, elementwise (per batch and head), "
                                            "elementwise:b (per batch), elementwise:h (per head), elementwise:1, "
                                            "or keys[:b|:h|:1] (one row of key biases)",
                                            bias));
  p.logits_soft_cap(softcap).softmax_scale(scale).with_sinks(sinks).return_lse(lse);
  if (auto e = p.validate()) throw std::invalid_argument(*e);
  return p;
}

kdecl::device fmha_options::target() const {
  gemm_options g;  // the GEMM command's device resolution, shared
  g.device = device;
  return g.target();
}

}  // namespace kdecl::cli
