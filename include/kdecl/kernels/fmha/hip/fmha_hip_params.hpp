// The HIP attention kernel's argument struct: the problem's pointers, strides
// (elements) and run-time parameters (mask kind and window, batch or group mode,
// GQA group, LSE, score modifiers). Filled by hip::fmha<K>::run().
#pragma once

#include <cstdint>

namespace kdecl::kernels::hip {

struct fmha_hip_params {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  float* lse;                   // null: not written
  const void* bias;             // elementwise bias, Q's dtype
  const float* alibi_slopes;
  const float* sinks;
  const std::int32_t* cu_q;     // group mode offsets; null in batch mode
  const std::int32_t* cu_kv;
  std::int64_t q_batch, q_seq, q_head, k_batch, k_seq, k_head, v_batch, v_seq, v_head, o_batch, o_seq, o_head;
  std::int64_t lse_batch, lse_head;
  std::int64_t bias_batch, bias_head, bias_seq;
  int alibi_batch_stride;       // 0 (slopes per head) or heads_q
  int seqlen_q, seqlen_kv;      // batch mode
  int hdim_q, hdim_v;           // the problem's (at most the kernel's padded ones)
  int group;                    // heads_q / heads_kv
  int window_left, window_right;  // masked kernels; negative: unbounded
  bool top_left;                // diagonal through (0, 0) rather than the bottom-right corner
  float scale, scale_log2, soft_cap, inv_soft_cap;
};

}  // namespace kdecl::kernels::hip
