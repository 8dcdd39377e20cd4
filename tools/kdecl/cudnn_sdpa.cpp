#include "cudnn_sdpa.hpp"

#include <stdexcept>
#include <unordered_map>
#include <vector>

#include <cudnn_frontend.h>
#include <fmt/format.h>

#include "cudnn_frontend_plans.hpp"
#include "cudnn_handle.hpp"
#include "kdecl/runtime/buffer.hpp"

namespace kdecl::cli {
namespace {

namespace fe = cudnn_frontend;

// Tensor ids of the variant pack.
enum uid : std::int64_t { q_uid = 1, k_uid, v_uid, o_uid, stats_uid, bias_uid, sink_uid, seq_q_uid, seq_kv_uid,
                          q_off_uid, k_off_uid, v_off_uid, o_off_uid };

// The mask as cuDNN should see it: bottom-right causal is top-left causal when every query row
// has as many keys as queries (batch mode, Sq = Skv), and cuDNN offers more with the latter.
fmha_mask effective_mask(const fmha_problem& p) {
  if (p.mask == fmha_mask::bottom_right && !p.group_mode() && p.seqlen_q == p.seqlen_kv) return fmha_mask::top_left;
  return p.mask;
}

void fe_check(fe::error_t e, const char* what) { cudnn_graph::check(e, "SDPA", what); }

}  // namespace

struct cudnn_sdpa::impl {
  fmha_problem p;
  cudnnHandle_t handle = nullptr;
  std::shared_ptr<fe::graph::Graph> graph;
  std::string plan;
  buffer workspace;
  // Group mode: per-sequence lengths and ragged offsets (elements) on the device.
  buffer seq_q, seq_kv, q_off, k_off, v_off, o_off;
};

std::optional<std::string> cudnn_sdpa::unsupported(const fmha_problem& p) {
  if (p.qkv != dtype::fp16 && p.qkv != dtype::bf16)
    return fmt::format("cuDNN's fused attention takes fp16 or bf16 Q/K/V, not {}", to_string(p.qkv));
  if (p.o != p.qkv) return "cuDNN writes O in the inputs' dtype";
  if (p.soft_cap > 0) return "cuDNN's SDPA has no logit soft-cap (tanh) attribute";
  if (p.bias == fmha_bias::alibi && p.alibi_per_batch) return "cuDNN's ALiBi has one slope per head, not per batch";
  if (p.bias == fmha_bias::alibi && effective_mask(p) != fmha_mask::top_left)
    return "cuDNN's ALiBi goes with its top-left causal mask only";
  if (p.bias != fmha_bias::none && p.group_mode()) return "a bias with variable lengths";
  if (p.lse && p.group_mode()) return "the LSE of ragged (variable-length) batches";
  if (p.mask == fmha_mask::generic && p.window_right < 0)
    return "cuDNN's sliding window needs a right bound (a causal-like band)";
  return std::nullopt;
}

cudnn_sdpa::cudnn_sdpa(const device& dev, const fmha_problem& p) : impl_(std::make_unique<impl>()) {
  if (auto why = unsupported(p)) throw std::runtime_error("cuDNN cannot express the problem: " + *why);
  auto& m = *impl_;
  m.p = p;
  m.handle = cudnn_handle();
  m.graph = cudnn_graph::new_16bit_graph(p.qkv);
  auto& g = *m.graph;

  const bool ragged = p.group_mode();
  const std::int64_t b = p.batch, sq = p.seqlen_q, skv = p.seqlen_kv;
  // Strides as [B, H, S, D]; ragged tensors address each sequence through their offsets.
  auto tensor = [&](const char* name, std::int64_t id, std::int64_t heads, std::int64_t s, std::int64_t d,
                    const fmha_strides& st) {
    const std::int64_t batch_stride = ragged ? s * st.seq : st.batch;
    return g.tensor(fe::graph::Tensor_attributes()
                        .set_name(name)
                        .set_uid(id)
                        .set_dim({b, heads, s, d})
                        .set_stride({batch_stride, st.head, st.seq, 1}));
  };
  auto q = tensor("Q", q_uid, p.heads_q, sq, p.hdim_q, p.q_strides);
  auto k = tensor("K", k_uid, p.heads_kv, skv, p.hdim_q, p.k_strides);
  auto v = tensor("V", v_uid, p.heads_kv, skv, p.hdim_v, p.v_strides);

  auto opts = fe::graph::SDPA_attributes().set_name("sdpa").set_generate_stats(p.lse).set_attn_scale(p.effective_scale());
  switch (effective_mask(p)) {
    case fmha_mask::none: break;
    case fmha_mask::top_left: opts.set_causal_mask(true); break;
    case fmha_mask::bottom_right: opts.set_causal_mask_bottom_right(true); break;
    case fmha_mask::generic:
      // kdecl's window (left, right) keeps keys i + offset - left ..= i + offset + right; cuDNN's
      // left bound counts the diagonal itself.
      opts.set_diagonal_alignment(fe::DiagonalAlignment_t::BOTTOM_RIGHT);
      opts.set_diagonal_band_right_bound(int(p.window_right));
      if (p.window_left >= 0) opts.set_diagonal_band_left_bound(int(p.window_left + 1));
      break;
  }
  if (p.bias == fmha_bias::alibi) opts.set_alibi_mask(true);
  if (p.bias == fmha_bias::elementwise) {
    const auto& s = p.bias_strides;
    auto bias = g.tensor(fe::graph::Tensor_attributes()
                             .set_name("bias")
                             .set_uid(bias_uid)
                             .set_dim({p.bias_per_batch ? b : 1, p.bias_per_head ? p.heads_q : 1,
                                       p.bias_per_row ? sq : 1, skv})
                             .set_stride({p.bias_per_batch ? s.batch : 0, p.bias_per_head ? s.head : 0, s.seq, 1}));
    opts.set_bias(bias);
  }
  if (p.sinks) {
    auto sink = g.tensor(fe::graph::Tensor_attributes()
                             .set_name("sink")
                             .set_uid(sink_uid)
                             .set_dim({1, p.heads_q, 1, 1})
                             .set_stride({p.heads_q, 1, 1, 1})
                             .set_data_type(fe::DataType_t::FLOAT));
    opts.set_sink_token(sink);
  }

  std::shared_ptr<fe::graph::Tensor_attributes> offsets[4];
  if (ragged) {
    // Lengths [B,1,1,1] and offsets [B+1,1,1,1] in elements, from the problem's cumulative offsets.
    auto int_tensor = [&](const char* name, std::int64_t id, std::int64_t n) {
      return g.tensor(fe::graph::Tensor_attributes()
                          .set_name(name)
                          .set_uid(id)
                          .set_dim({n, 1, 1, 1})
                          .set_stride({1, 1, 1, 1})
                          .set_data_type(fe::DataType_t::INT32));
    };
    opts.set_padding_mask(true)
        .set_seq_len_q(int_tensor("seq_q", seq_q_uid, b))
        .set_seq_len_kv(int_tensor("seq_kv", seq_kv_uid, b));
    std::vector<std::int32_t> lq, lkv, oq, ok, ov, oo;
    for (std::int64_t i = 0; i < b; ++i) {
      lq.push_back(std::int32_t(p.seqlen_q_of(i)));
      lkv.push_back(std::int32_t(p.seqlen_kv_of(i)));
    }
    for (std::int64_t i = 0; i <= b; ++i) {
      const auto cq = std::int64_t(p.cu_seqlens_q[std::size_t(i)]), ckv = std::int64_t(p.cu_seqlens_kv[std::size_t(i)]);
      for (auto [out, v] : {std::pair{&oq, cq * p.q_strides.seq}, {&ok, ckv * p.k_strides.seq},
                            {&ov, ckv * p.v_strides.seq}, {&oo, cq * p.o_strides.seq}}) {
        if (v > INT32_MAX) throw std::runtime_error("cuDNN's ragged offsets are 32-bit; this batch spans more");
        out->push_back(std::int32_t(v));
      }
    }
    auto upload = [&](buffer& dst, const std::vector<std::int32_t>& host) {
      dst = buffer(dev, host.size() * sizeof(std::int32_t));
      dst.upload(host);
    };
    upload(m.seq_q, lq);
    upload(m.seq_kv, lkv);
    upload(m.q_off, oq);
    upload(m.k_off, ok);
    upload(m.v_off, ov);
    upload(m.o_off, oo);
    offsets[0] = int_tensor("q_offsets", q_off_uid, b + 1);
    offsets[1] = int_tensor("k_offsets", k_off_uid, b + 1);
    offsets[2] = int_tensor("v_offsets", v_off_uid, b + 1);
    offsets[3] = int_tensor("o_offsets", o_off_uid, b + 1);
    q->set_ragged_offset(offsets[0]);
    k->set_ragged_offset(offsets[1]);
    v->set_ragged_offset(offsets[2]);
  }

  auto [o, stats] = g.sdpa(q, k, v, opts);
  const std::int64_t o_batch = ragged ? sq * p.o_strides.seq : p.o_strides.batch;
  o->set_output(true).set_uid(o_uid).set_dim({b, p.heads_q, sq, p.hdim_v})
      .set_stride({o_batch, p.o_strides.head, p.o_strides.seq, 1});
  if (ragged) o->set_ragged_offset(offsets[3]);
  if (p.lse)
    stats->set_output(true).set_uid(stats_uid).set_data_type(fe::DataType_t::FLOAT).set_dim({b, p.heads_q, sq, 1})
        .set_stride({p.lse_batch_stride, p.lse_head_stride, 1, 1});

  cudnn_graph::build_plans(g, m.handle, fe::BuildPlanPolicy_t::HEURISTICS_CHOICE, "SDPA");
  m.workspace = cudnn_graph::workspace_of(g, dev, "SDPA");
  m.plan = cudnn_graph::plan_name(g);
}

cudnn_sdpa::~cudnn_sdpa() = default;

void cudnn_sdpa::run(const fmha_args& a) {
  auto& m = *impl_;
  std::unordered_map<std::int64_t, void*> pack{{q_uid, const_cast<void*>(a.q)},
                                               {k_uid, const_cast<void*>(a.k)},
                                               {v_uid, const_cast<void*>(a.v)},
                                               {o_uid, a.o}};
  if (m.p.lse) pack[stats_uid] = a.lse;
  if (m.p.bias == fmha_bias::elementwise) pack[bias_uid] = const_cast<void*>(a.bias);
  if (m.p.sinks) pack[sink_uid] = const_cast<float*>(a.sinks);
  if (m.p.group_mode()) {
    pack[seq_q_uid] = m.seq_q.data();
    pack[seq_kv_uid] = m.seq_kv.data();
    pack[q_off_uid] = m.q_off.data();
    pack[k_off_uid] = m.k_off.data();
    pack[v_off_uid] = m.v_off.data();
    pack[o_off_uid] = m.o_off.data();
  }
  fe_check(m.graph->execute(m.handle, pack, m.workspace.data()), "execute");
}

const std::string& cudnn_sdpa::plan() const { return impl_->plan; }
std::size_t cudnn_sdpa::workspace_bytes() const { return impl_->workspace.size(); }

}  // namespace kdecl::cli
