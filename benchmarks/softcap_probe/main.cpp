// What the logit soft-cap costs the sm_90 attention kernel (issue 8's bar: at most 5%
// over the plain kernel). Each executable holds the kernels of kernels.cpp built with one
// softmax variant: KDECL_FMHA_SM90_EXP2_POLY_EVERY (the share of the soft-capped softmax's
// exponentials computed on the FMA pipes instead of the special-function unit) and
// KDECL_FMHA_SM90_SOFTMAX_CHAINS (independent partial maxima and sums per row). For Gemma 2's layer
// shapes it checks the soft-capped kernel against the host reference on a small problem,
// then times the plain and the soft-capped kernel in turns on the same data (CUDA events,
// warm-up, median of 15; operands of hundreds of MB, past the L2).
//   kdecl_softcap_probe_pN_cK [out.jsonl]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "../check_cuda.hpp"
#include "kdecl/fmha/fmha_dispatcher.hpp"
#include "kdecl/runtime/buffer.hpp"
#include "kdecl/runtime/fmha_check.hpp"

#if !defined(KDECL_FMHA_SM90_EXP2_POLY_EVERY) || !defined(KDECL_FMHA_SM90_SOFTMAX_CHAINS)
#error "build with -DKDECL_FMHA_SM90_EXP2_POLY_EVERY=N -DKDECL_FMHA_SM90_SOFTMAX_CHAINS=K (benchmarks/CMakeLists.txt)"
#endif

namespace {

using namespace kdecl;

#define CHECK_CUDA(x) kdecl_bench::check_cuda((x), #x)

struct layer {
  const char* name;  // the model the shape comes from
  std::int64_t b, s, hq, hkv, d;
};

// Gemma 2 (arXiv 2408.00118, Table 1): 27B 32 query / 16 KV heads of 128, 9B 16 / 8 of 256;
// logits capped at 50. About 16k tokens per call.
constexpr layer layers[] = {
    {"gemma2-27b s8192", 2, 8192, 32, 16, 128},
    {"gemma2-27b s4096", 4, 4096, 32, 16, 128},
    {"gemma2-27b s2048", 8, 2048, 32, 16, 128},
    {"gemma2-9b s8192", 2, 8192, 16, 8, 256},
    {"gemma2-9b s4096", 4, 4096, 16, 8, 256},
};
constexpr float gemma_cap = 50.0f;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int every = KDECL_FMHA_SM90_EXP2_POLY_EVERY, chains = KDECL_FMHA_SM90_SOFTMAX_CHAINS;
  std::FILE* out = argc > 1 ? std::fopen(argv[1], "a") : nullptr;
  std::optional<device> dev;
  for (const auto& d : available_devices())
    if (d.kind() == backend::cuda && d.arch == arch_id::sm_90) dev = d;
  if (!dev) {
    std::printf("no sm_90 device\n");
    return 0;
  }
  const fmha_dispatcher dispatcher(*dev);
  std::printf("exp2 on the FMA pipes: one column in %d (0: none); %d partial maxima and sums per row\n", every, chains);
  for (const auto& l : layers) {
    fmha_problem plain;
    plain.sizes(l.b, l.s, l.s).heads(l.hq, l.hkv).head_dim(l.d).dtype(dtype::bf16).causal(fmha_mask::bottom_right);
    fmha_problem capped = fmha_problem(plain).logits_soft_cap(gemma_cap);
    // Correctness first, on a small problem of the same kind.
    fmha_problem small = fmha_problem(capped).return_lse();
    small.sizes(1, 777, 901).heads(4, 2);
    fmha_check_options o;
    o.seed = 7;
    const fmha_check c = run_and_check(dispatcher, small, o);
    std::printf("%-18s check %s: O error %.3g (tolerance %.3g), LSE error %.3g\n", l.name, c.passed ? "PASS" : "FAIL",
                c.o_error, c.o_tolerance, c.lse_error);

    // Random Q, K, V in [-1, 1) (the checks' own inputs, make_fmha_inputs), O on the device.
    const fmha_host_inputs in = make_fmha_inputs(plain.normalized(), 1);
    buffer dq(*dev, in.q.size()), dk(*dev, in.k.size()), dv(*dev, in.v.size()), dout(*dev, in.o_elements * 2);
    dq.upload(in.q);
    dk.upload(in.k);
    dv.upload(in.v);
    fmha_args a;
    a.q = dq.data();
    a.k = dk.data();
    a.v = dv.data();
    a.o = dout.data();
    cudaEvent_t e0, e1;
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    std::vector<double> ms[2];
    const fmha_problem* problems[2] = {&plain, &capped};
    for (const fmha_problem* p : problems) {
      const auto sel = dispatcher.select(*p);
      if (!sel) {
        std::printf("%s\n", sel.explain().c_str());
        return 1;
      }
      std::printf("  %s\n", sel.kernel->name().c_str());
    }
    for (int round = 0; round < 18; ++round)
      for (int k = 0; k < 2; ++k) {
        CHECK_CUDA(cudaEventRecord(e0));
        const status st = dispatcher.run(*problems[k], a);
        CHECK_CUDA(cudaEventRecord(e1));
        if (!st) {
          std::printf("run failed: %s\n", st.message().c_str());
          return 1;
        }
        CHECK_CUDA(cudaEventSynchronize(e1));
        float t = 0;
        CHECK_CUDA(cudaEventElapsedTime(&t, e0, e1));
        if (round >= 3) ms[k].push_back(t);  // 3 warm-up rounds
      }
    const double flops = 4.0 * l.b * l.hq * l.d * (double(l.s) * (l.s + 1) / 2);
    const double plain_ms = median(ms[0]), capped_ms = median(ms[1]);
    std::printf("%-18s plain %.3f ms (%.0f TFLOP/s)  soft-cap %.3f ms (%.0f TFLOP/s)  cost %+.1f%%\n", l.name, plain_ms,
                flops / plain_ms * 1e-9, capped_ms, flops / capped_ms * 1e-9, (capped_ms / plain_ms - 1) * 100);
    if (out)
      std::fprintf(out,
                   "{\"poly_every\": %d, \"chains\": %d, \"layer\": \"%s\", \"b\": %lld, \"s\": %lld, \"hq\": %lld, \"hkv\": %lld, "
                   "\"d\": %lld, \"plain_ms\": %.5f, \"softcap_ms\": %.5f, \"check\": %s, \"o_error\": %.4g}\n",
                   every, chains, l.name, (long long)l.b, (long long)l.s, (long long)l.hq, (long long)l.hkv, (long long)l.d,
                   plain_ms, capped_ms, c.passed ? "true" : "false", c.o_error);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
  }
  if (out) std::fclose(out);
  return 0;
}
