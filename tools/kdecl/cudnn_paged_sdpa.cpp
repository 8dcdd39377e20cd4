#include "cudnn_paged_sdpa.hpp"

#include <algorithm>
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
enum uid : std::int64_t { q_uid = 1, k_uid, v_uid, o_uid, stats_uid, sink_uid, seq_q_uid, seq_kv_uid, table_k_uid, table_v_uid };

}  // namespace

struct cudnn_paged_sdpa::impl {
  fmha_paged_problem p;
  cudnnHandle_t handle = nullptr;
  std::shared_ptr<fe::graph::Graph> graph;
  std::string plan;
  buffer workspace;
  buffer seq_q;  // [batch] copies of seqlen_q (cuDNN's paged route wants the query lengths too)
};

std::optional<std::string> cudnn_paged_sdpa::unsupported(const fmha_paged_problem& p) {
  if (p.qkv != dtype::fp16 && p.qkv != dtype::bf16)
    return fmt::format("cuDNN's fused attention takes fp16 or bf16, not {}", to_string(p.qkv));
  if (p.fp8_cache()) return "an fp8 cache (cuDNN's paged attention reads K and V in Q's dtype here)";
  if (p.family != fmha_family::fwd_splitkv && p.family != fmha_family::fwd_pagedkv)
    return "decode problems only (fwd_splitkv, fwd_pagedkv)";
  if (p.table != page_table_kind::block_table) return "block tables only (the page-list form is not wired to cuDNN's packed tables)";
  if (p.soft_cap > 0) return "cuDNN's SDPA has no logit soft-cap (tanh) attribute";
  if (p.sinks && p.seqlen_q == 1) return "cuDNN's decode mode (one query token) takes no sink";
  return std::nullopt;
}

cudnn_paged_sdpa::cudnn_paged_sdpa(const device& dev, const fmha_paged_problem& p) : impl_(std::make_unique<impl>()) {
  if (auto why = unsupported(p)) throw std::runtime_error("cuDNN cannot express the problem: " + *why);
  auto& m = *impl_;
  m.p = p;
  m.handle = cudnn_handle();
  m.graph = cudnn_graph::new_16bit_graph(p.qkv);
  auto& g = *m.graph;

  const std::int64_t b = p.batch, sq = p.seqlen_q, d = p.hdim;
  const std::int64_t pages_per_seq = p.max_pages_per_seq;
  const std::int64_t table_stride = p.table_stride > 0 ? p.table_stride : pages_per_seq;
  const std::int64_t max_kv = p.seqlens_kv.empty() ? 0 : *std::max_element(p.seqlens_kv.begin(), p.seqlens_kv.end());

  auto q = g.tensor(fe::graph::Tensor_attributes()
                        .set_name("Q")
                        .set_uid(q_uid)
                        .set_dim({b, p.heads_q, sq, d})
                        .set_stride({p.q_strides.batch, p.q_strides.head, p.q_strides.seq, 1}));
  // The pools as cuDNN's containers [pages, Hkv, page rows, D], with the cache's own strides.
  auto container = [&](const char* name, std::int64_t id, const paged_cache_strides& st) {
    return g.tensor(fe::graph::Tensor_attributes()
                        .set_name(name)
                        .set_uid(id)
                        .set_dim({p.num_pages, p.heads_kv, p.page_size, d})
                        .set_stride({st.page, st.head, st.row, 1}));
  };
  auto k = container("K_pages", k_uid, p.k_strides);
  auto v = container("V_pages", v_uid, p.v_strides);
  auto int_tensor = [&](const char* name, std::int64_t id, std::vector<std::int64_t> dim, std::vector<std::int64_t> stride) {
    return g.tensor(fe::graph::Tensor_attributes()
                        .set_name(name)
                        .set_uid(id)
                        .set_dim(std::move(dim))
                        .set_stride(std::move(stride))
                        .set_data_type(fe::DataType_t::INT32));
  };
  // One block table serves K and V (kdecl's pools share it); cuDNN names a table for each.
  auto table_k = int_tensor("table_k", table_k_uid, {b, 1, pages_per_seq, 1}, {table_stride, table_stride, 1, 1});
  auto table_v = int_tensor("table_v", table_v_uid, {b, 1, pages_per_seq, 1}, {table_stride, table_stride, 1, 1});

  auto opts = fe::graph::SDPA_attributes()
                  .set_name("paged_sdpa")
                  .set_generate_stats(p.lse)
                  .set_attn_scale(p.effective_scale())
                  .set_padding_mask(true)
                  .set_seq_len_q(int_tensor("seq_q", seq_q_uid, {b, 1, 1, 1}, {1, 1, 1, 1}))
                  .set_seq_len_kv(int_tensor("seq_kv", seq_kv_uid, {b, 1, 1, 1}, {1, 1, 1, 1}))
                  .set_paged_attention_k_table(table_k)
                  .set_paged_attention_v_table(table_v)
                  .set_paged_attention_max_seq_len_kv(int(std::max<std::int64_t>(max_kv, 1)));
  // Masks as kdecl's paged problem anchors them: top-left, or at the last key (bottom-right).
  switch (p.mask) {
    case fmha_mask::none: break;
    case fmha_mask::top_left: opts.set_causal_mask(true); break;
    case fmha_mask::bottom_right:
      if (sq > 1) opts.set_causal_mask_bottom_right(true);  // one query token sees every key either way
      break;
    case fmha_mask::generic:
      // kdecl's window (left, right) keeps keys i + offset - left ..= i + offset + right; cuDNN's left
      // bound counts the diagonal itself. No right bound: sq - 1 past the diagonal reaches the last key.
      opts.set_diagonal_alignment(fe::DiagonalAlignment_t::BOTTOM_RIGHT);
      opts.set_diagonal_band_right_bound(int(p.window_right >= 0 ? p.window_right : sq - 1));
      if (p.window_left >= 0) opts.set_diagonal_band_left_bound(int(p.window_left + 1));
      break;
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
  auto [o, stats] = g.sdpa(q, k, v, opts);
  o->set_output(true).set_uid(o_uid).set_dim({b, p.heads_q, sq, d})
      .set_stride({p.o_strides.batch, p.o_strides.head, p.o_strides.seq, 1});
  if (p.lse)  // kdecl's LSE is [batch, heads_q, seqlen_q]
    stats->set_output(true).set_uid(stats_uid).set_data_type(fe::DataType_t::FLOAT).set_dim({b, p.heads_q, sq, 1})
        .set_stride({p.heads_q * sq, sq, 1, 1});

  cudnn_graph::build_plans(g, m.handle, fe::BuildPlanPolicy_t::HEURISTICS_CHOICE, "paged SDPA");
  m.workspace = cudnn_graph::workspace_of(g, dev, "paged SDPA");
  m.plan = cudnn_graph::plan_name(g);
  const std::vector<std::int32_t> lengths(static_cast<std::size_t>(b), static_cast<std::int32_t>(sq));
  m.seq_q = buffer(dev, lengths.size() * sizeof(std::int32_t));
  m.seq_q.upload(lengths);
}

cudnn_paged_sdpa::~cudnn_paged_sdpa() = default;

void cudnn_paged_sdpa::run(const fmha_paged_args& a) {
  auto& m = *impl_;
  auto* table = const_cast<std::int32_t*>(a.block_table);
  std::unordered_map<std::int64_t, void*> pack{{q_uid, const_cast<void*>(a.q)},
                                               {k_uid, a.k_cache},
                                               {v_uid, a.v_cache},
                                               {o_uid, a.o},
                                               {table_k_uid, table},
                                               {table_v_uid, table},
                                               {seq_q_uid, m.seq_q.data()},
                                               {seq_kv_uid, const_cast<std::int32_t*>(a.seqlens_kv)}};
  if (m.p.lse) pack[stats_uid] = a.lse;
  if (m.p.sinks) pack[sink_uid] = const_cast<float*>(a.sinks);
  cudnn_graph::check(m.graph->execute(m.handle, pack, m.workspace.data()), "paged SDPA", "execute");
}

const std::string& cudnn_paged_sdpa::plan() const { return impl_->plan; }

}  // namespace kdecl::cli
