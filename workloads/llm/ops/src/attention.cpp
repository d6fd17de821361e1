// Attention: sdpa (prefill, causal GQA) and flash_attn_vec (decode, split over the KV length,
// the splits combined by the last workgroup of each head in the same dispatch).
#include <fmt/format.h>

#include <cmath>

#include "graphlens/ops/dispatch_helpers.h"
#include "graphlens/ops/kernel_stages.h"
#include "graphlens/ops/ops.h"
#include "graphlens/vulkan/graph_session.h"
#include "op_common.h"

namespace graphlens {

using namespace ops_detail;

namespace {
/// Query heads of one KV head that a flash_attn_vec_gqa workgroup serves together, reading
/// each K and V row once for all of them: HEAD_BATCH in
/// workloads/llm/shaders/templates/flash_attn_vec_gqa.comp.
constexpr uint32_t kFlashAttnHeadBatch = 4;
/// flash_attn_vec_gqa is used when its grid still has this many workgroups (about one per SM
/// of a large GPU): its fewer K/V reads pay once the GPU is full anyway, while a smaller grid
/// runs faster per head (docs/kernels.md, "flash_attn_vec").
constexpr uint32_t kFlashAttnGqaMinWorkgroups = 128;
/// Queries per sdpa workgroup: BQ in workloads/llm/shaders/templates/sdpa.comp.
// Queries per sdpa workgroup (sdpa.comp's BQ): 16, or 32 for the head-dim <= 64 variant.
constexpr uint32_t kSdpaQueryBlock = 16;
constexpr uint32_t kSdpaQueryBlockHd64 = 32;
}  // namespace

void ops::sdpa(GraphSession& s, const TensorView& q, const TensorView& k, const TensorView& v,
               const TensorView& out, const SdpaParams& p, std::string label) {
    constexpr std::string_view op = "sdpa";
    require_dtype(op, label, "q", q, DType::f32);
    require_dtype(op, label, "out", out, DType::f32);
    require_dtype_of(op, label, "k", k, DType::f32, DType::f16);
    if (v.dtype != k.dtype)
        fail(op, label,
             fmt::format("v is {} but k is {}", dtype_name(v.dtype), dtype_name(k.dtype)));
    for (auto [name, t] : {std::pair{"q", &q}, {"k", &k}, {"v", &v}, {"out", &out}})
        require_consistent(op, label, name, *t);
    if (p.head_dim == 0 || p.head_dim > 256 || p.n_kv_heads == 0 || p.n_heads % p.n_kv_heads ||
        p.seq_q == 0 || p.seq_q > p.seq_kv)
        fail(op, label,
             fmt::format("head_dim {} (1..256), heads {} / kv heads {} (must divide), "
                         "seq_q {} <= seq_kv {}",
                         p.head_dim, p.n_heads, p.n_kv_heads, p.seq_q, p.seq_kv));
    require_elements(op, label, "q", q, int64_t(p.head_dim) * p.n_heads * p.seq_q);
    require_elements(op, label, "out", out, int64_t(p.head_dim) * p.n_heads * p.seq_q);
    require_elements(op, label, "k", k, int64_t(p.head_dim) * p.n_kv_heads * p.seq_kv);
    require_elements(op, label, "v", v, int64_t(p.head_dim) * p.n_kv_heads * p.seq_kv);
    if (p.softcap < 0) fail(op, label, fmt::format("softcap {} must be >= 0", p.softcap));
    struct {
        uint32_t head_dim, n_heads, n_kv_heads, seq_q, seq_kv;
        float scale;
        uint32_t causal;
        float softcap;
        uint32_t window;
    } params{p.head_dim,
             p.n_heads,
             p.n_kv_heads,
             p.seq_q,
             p.seq_kv,
             p.scale != 0 ? p.scale : 1.0f / std::sqrt(float(p.head_dim)),
             p.causal ? 1u : 0u,
             p.softcap,
             p.window};
    DispatchDesc d;
    // Head dims up to 64 take the variant that loads K and V tiles together (docs/kernels.md)
    // for more than 8 queries. That variant has a tensor-core twin (f16 inputs), so, as for the
    // mat-mat (matmul.cpp), a step of at most 8 tokens keeps f32 arithmetic on every device.
    const bool hd64 = p.head_dim <= 64 && p.seq_q > kMaxExactColumns;
    d.kernel = fmt::format("sdpa_{}{}", k.dtype == DType::f16 ? "f16" : "f32", hd64 ? "_hd64" : "");
    d.bindings = {{0, q}, {1, k}, {2, v}, {3, out}};
    d.push_constants = push_constant_bytes(params);
    const uint32_t block = hd64 ? kSdpaQueryBlockHd64 : kSdpaQueryBlock;
    d.workgroups = {(p.seq_q + block - 1) / block, p.n_heads, 1};
    d.op = OpKind::sdpa;
    d.label = std::move(label);
    s.dispatch(d);
}

void ops::flash_attn_vec(GraphSession& s, const TensorView& q, const TensorView& k_cache,
                         const TensorView& v_cache, const TensorView& out, const TensorView& tmp,
                         const TensorView& counters, const FlashAttnVecParams& p,
                         std::string label) {
    constexpr std::string_view op = "flash_attn_vec";
    require_subgroups(s.device(), op);
    require_dtype(op, label, "q", q, DType::f32);
    require_dtype(op, label, "out", out, DType::f32);
    require_dtype(op, label, "tmp", tmp, DType::f32);
    require_dtype(op, label, "counters", counters, DType::u32);
    require_dtype_of(op, label, "k_cache", k_cache, DType::f32, DType::f16);
    if (v_cache.dtype != k_cache.dtype)
        fail(op, label,
             fmt::format("v_cache is {} but k_cache is {}", dtype_name(v_cache.dtype),
                         dtype_name(k_cache.dtype)));
    if (p.head_dim == 0 || p.head_dim % 4 || p.head_dim > 256 || p.n_kv_heads == 0 ||
        p.n_heads % p.n_kv_heads || p.kv_len == 0)
        fail(op, label,
             fmt::format("head_dim {} (multiple of 4, <= 256), heads {} / kv heads {} "
                         "(must divide), kv_len {} (> 0)",
                         p.head_dim, p.n_heads, p.n_kv_heads, p.kv_len));
    require_elements(op, label, "q", q, int64_t(p.head_dim) * p.n_heads);
    require_elements(op, label, "out", out, int64_t(p.head_dim) * p.n_heads);
    const int64_t token = int64_t(p.head_dim) * p.n_kv_heads;
    for (auto [name, c] : {std::pair{"k_cache", &k_cache}, {"v_cache", &v_cache}})
        if (c->elements() < token * p.kv_len || c->elements() % token != 0)
            fail(op, label,
                 fmt::format("{} has {} elements: not whole tokens of {} covering "
                             "kv_len {}",
                             name, c->elements(), token, p.kv_len));
    FlashAttnVecParams fp = p;
    fp.split_len = flash_attn_vec_split_len(p);
    const uint32_t splits = flash_attn_vec_splits(fp);
    require_elements(op, label, "tmp", tmp, int64_t(flash_attn_vec_tmp_elements(fp)));
    require_elements(op, label, "counters", counters, int64_t(flash_attn_vec_counter_elements(fp)));
    // The kernel reads tmp and counters back after writing them: out must not alias either.
    for (auto [name, a, b] : {std::tuple{"tmp and out", &tmp, &out},
                              {"counters and out", &counters, &out},
                              {"tmp and counters", &tmp, &counters}})
        if (a->range().overlaps(b->range())) fail(op, label, fmt::format("{} overlap", name));
    const FlashAttnVecPush params{fp.head_dim,
                                  fp.n_heads,
                                  fp.n_kv_heads,
                                  fp.kv_len,
                                  fp.split_len,
                                  splits,
                                  fp.scale != 0 ? fp.scale : 1.0f / std::sqrt(float(fp.head_dim)),
                                  fp.softcap,
                                  fp.window};
    const uint32_t group = fp.n_heads / fp.n_kv_heads;
    const uint32_t batches = (group + kFlashAttnHeadBatch - 1) / kFlashAttnHeadBatch;
    const bool gqa =
        group > 1 && uint64_t(splits) * fp.n_kv_heads * batches >= kFlashAttnGqaMinWorkgroups;
    DispatchDesc d;
    d.kernel = fmt::format("flash_attn_vec_{}{}", gqa ? "gqa_" : "",
                           k_cache.dtype == DType::f16 ? "f16" : "f32");
    d.bindings = {{0, q}, {1, k_cache}, {2, v_cache}, {3, tmp}, {4, out}, {5, counters}};
    d.push_constants = push_constant_bytes(params);
    d.workgroups = {splits, gqa ? fp.n_kv_heads * batches : fp.n_heads, 1};
    d.op = OpKind::flash_attn_vec;
    d.stages = kernel_stages(d.kernel);
    d.label = std::move(label);
    s.dispatch(d);
}

}  // namespace graphlens
