#include "graphlens/synthetic/synthetic_graphs.h"

#include <array>
#include <random>
#include <string>

#include "graphlens/graph/barrier_planner.h"

namespace graphlens {
namespace {

KernelInfo kernel(std::string name, std::vector<BindingAccess> access) {
    KernelInfo k;
    k.name = std::move(name);
    k.local_size = {64, 1, 1};
    k.push_constant_size = 16;
    for (uint32_t b = 0; b < access.size(); ++b)
        k.bindings.push_back({b, access[b], "b" + std::to_string(b)});
    return k;
}

TensorView view(AllocationId a, uint64_t offset, DType t, std::array<int64_t, 4> shape,
                uint8_t rank) {
    TensorView v;
    v.allocation = a;
    v.offset = offset;
    v.dtype = t;
    v.rank = rank;
    v.shape = shape;
    int64_t n = 1;
    for (uint8_t i = 0; i < rank; ++i) n *= shape[i];
    v.size = dtype_bytes_for(t, static_cast<uint64_t>(n));
    return v;
}

}  // namespace

ComputeGraph random_graph(const RandomGraphOptions& o) {
    std::mt19937_64 rng(o.seed);
    auto uniform = [&](uint64_t lo, uint64_t hi) {  // inclusive
        return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
    };
    auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
    using A = BindingAccess;
    ComputeGraph g;
    g.metadata["synthetic"] = "random";
    g.metadata["seed"] = std::to_string(o.seed);
    const size_t allocations = std::max<size_t>(1, o.allocations);
    for (size_t a = 0; a < allocations; ++a)
        g.add_allocation("buf" + std::to_string(a), o.allocation_size,
                         a == 0 ? AllocationUsage::activations : AllocationUsage::scratch);
    const std::array<KernelId, 6> kernels{
        g.add_kernel(kernel("unary", {A::read, A::write})),
        g.add_kernel(kernel("binary", {A::read, A::read, A::write})),
        g.add_kernel(kernel("in_place", {A::read_write})),
        g.add_kernel(kernel("binary_in_place", {A::read, A::read_write})),
        g.add_kernel(kernel("two_outputs", {A::read, A::write, A::write})),
        g.add_kernel(kernel("reduce", {A::read, A::read, A::read, A::write})),
    };
    const std::array<OpKind, 10> ops{
        OpKind::add,    OpKind::mul,  OpKind::rms_norm, OpKind::silu, OpKind::gelu,
        OpKind::matmul, OpKind::rope, OpKind::softmax,  OpKind::copy, OpKind::other};
    const uint64_t units = std::max<uint64_t>(1, o.allocation_size / 16);
    for (size_t i = 0; i < o.dispatches; ++i) {
        Node n;
        n.kernel = kernels[uniform(0, kernels.size() - 1)];
        n.op = ops[uniform(0, ops.size() - 1)];
        n.label = "n" + std::to_string(i) + "." + std::string(op_kind_name(n.op));
        n.workgroups = {static_cast<uint32_t>(uniform(1, 64)), 1, 1};
        for (const KernelBinding& kb : g.kernels[n.kernel].bindings) {
            const auto a = static_cast<AllocationId>(uniform(0, allocations - 1));
            const uint64_t begin = uniform(0, units - 1);
            const uint64_t len = chance(o.empty_range_probability) ? 0 : uniform(1, units - begin);
            TensorView v;
            v.allocation = a;
            v.offset = begin * 16;
            v.size = len * 16;
            v.shape = {static_cast<int64_t>(v.size / 4), 1, 1, 1};
            n.bindings.push_back({kb.binding, v});
        }
        if (chance(o.fence_probability)) n.ranges_known = false;
        n.id = static_cast<NodeId>(i);
        n.origin = {n.id};
        g.add_dispatch(std::move(n));
        if (chance(o.barrier_probability)) g.add_barrier();
    }
    return g;
}

/// Where each weight tensor of a layer lies in the one weights allocation.
struct LayerWeights {
    uint64_t attn_norm, q, k, v, o, ffn_norm, gate, up, down;
};
struct WeightLayout {
    uint64_t tok_embd = 0, out_norm = 0, lm_head = 0, bytes = 0;
    std::vector<LayerWeights> layers;
};

/// The weights in one allocation, tensors one after another at 256-byte boundaries, Q4_0
/// matrices and f32 norms, as a GGUF lays them out.
WeightLayout lay_out_weights(const TransformerGraphOptions& o, int64_t kv_dim) {
    const int64_t H = o.hidden, F = o.ffn;
    const uint64_t f32 = 4;
    WeightLayout wl;
    auto take = [&](uint64_t bytes) {
        const uint64_t at = wl.bytes;
        wl.bytes += (bytes + 255) / 256 * 256;
        return at;
    };
    wl.tok_embd = take(dtype_bytes_for(DType::q4_0, uint64_t(H * o.vocab)));
    wl.layers.resize(o.layers);
    for (auto& l : wl.layers) {
        l.attn_norm = take(H * f32);
        l.q = take(dtype_bytes_for(DType::q4_0, uint64_t(H * H)));
        l.k = take(dtype_bytes_for(DType::q4_0, uint64_t(H * kv_dim)));
        l.v = take(dtype_bytes_for(DType::q4_0, uint64_t(H * kv_dim)));
        l.o = take(dtype_bytes_for(DType::q4_0, uint64_t(H * H)));
        l.ffn_norm = take(H * f32);
        l.gate = take(dtype_bytes_for(DType::q4_0, uint64_t(H * F)));
        l.up = take(dtype_bytes_for(DType::q4_0, uint64_t(H * F)));
        l.down = take(dtype_bytes_for(DType::q4_0, uint64_t(F * H)));
    }
    wl.out_norm = take(H * f32);
    wl.lm_head = take(dtype_bytes_for(DType::q4_0, uint64_t(H * o.vocab)));
    return wl;
}

// One function after the weights' layout: the allocations, kernels and then the decode step's
// dispatches in the order llama.cpp's graph records them, so the listing reads as the step.
ComputeGraph transformer_graph(const TransformerGraphOptions& o) {
    using A = BindingAccess;
    ComputeGraph g;
    g.metadata["synthetic"] = "transformer";
    g.metadata["layers"] = std::to_string(o.layers);
    g.metadata["phase"] = "decode";
    const int64_t H = o.hidden, F = o.ffn;
    const int64_t head_dim = H / o.heads;
    const int64_t kv_dim = head_dim * o.kv_heads;
    const uint64_t f32 = 4;

    const WeightLayout wl = lay_out_weights(o, kv_dim);
    const std::vector<LayerWeights>& w = wl.layers;
    const uint64_t tok_embd = wl.tok_embd, out_norm = wl.out_norm, lm_head = wl.lm_head;
    const uint64_t weight_bytes = wl.bytes;

    const AllocationId weights =
        g.add_allocation("weights", weight_bytes, AllocationUsage::weights);
    const AllocationId inputs = g.add_allocation("inp_tokens_pos", 16, AllocationUsage::input);
    const AllocationId resid =
        g.add_allocation("residual", 2 * H * f32, AllocationUsage::activations);
    // Activations reused by every layer (as llama.cpp's graph allocator does).
    const uint64_t act_q = 0, act_k = act_q + H * f32, act_v = act_k + kv_dim * f32;
    const uint64_t act_qr = act_v + kv_dim * f32, act_kr = act_qr + H * f32;
    const uint64_t act_o = act_kr + kv_dim * f32, act_gate = act_o + H * f32;
    const uint64_t act_up = act_gate + F * f32, act_gate_act = act_up + F * f32;
    const uint64_t act_ffn = act_gate_act + F * f32, act_down = act_ffn + F * f32;
    const AllocationId act =
        g.add_allocation("activations", act_down + H * f32, AllocationUsage::activations);
    // Scratch arena: norm outputs and attention output, reused by every layer.
    const uint64_t s_norm = 0, s_normed = H * f32, s_attn = 2 * H * f32;
    const uint64_t layer_stride = o.reuse_scratch ? 0 : 3 * H * f32;
    const AllocationId scratch = g.add_allocation(
        "scratch_arena", 3 * H * f32 + layer_stride * o.layers, AllocationUsage::scratch);
    const uint64_t kv_row = dtype_bytes_for(DType::f16, uint64_t(kv_dim));
    const uint64_t kv_layer = kv_row * uint64_t(o.context);
    const AllocationId kv =
        g.add_allocation("kv_cache", 2 * kv_layer * o.layers, AllocationUsage::kv_cache);
    const AllocationId logits = g.add_allocation("logits", o.vocab * f32, AllocationUsage::output);

    const KernelId k_norm = g.add_kernel(kernel("rms_norm_f32", {A::read, A::write}));
    const KernelId k_mul = g.add_kernel(kernel("mul_f32", {A::read, A::read, A::write}));
    const KernelId k_add = g.add_kernel(kernel("add_f32", {A::read, A::read, A::write}));
    const KernelId k_silu = g.add_kernel(kernel("silu_f32", {A::read, A::write}));
    const KernelId k_mv =
        g.add_kernel(kernel("mul_mat_vec_q4_0_f32", {A::read, A::read, A::write}));
    const KernelId k_rope = g.add_kernel(kernel("rope_norm_f32", {A::read, A::read, A::write}));
    const KernelId k_cpy = g.add_kernel(kernel("cpy_f32_f16", {A::read, A::write}));
    const KernelId k_fa =
        g.add_kernel(kernel("flash_attn_vec_f32_f16", {A::read, A::read, A::read, A::write}));
    const KernelId k_rows = g.add_kernel(kernel("get_rows_q4_0_f32", {A::read, A::read, A::write}));

    auto vec = [&](AllocationId a, uint64_t off, int64_t n, DType t = DType::f32) {
        return view(a, off, t, {n, 1, 1, 1}, 1);
    };
    auto mat = [&](uint64_t off, int64_t cols, int64_t rows) {
        return view(weights, off, DType::q4_0, {cols, rows, 1, 1}, 2);
    };
    NodeId next_id = 0;
    auto dispatch = [&](KernelId k, OpKind op, std::string label, std::vector<TensorView> views,
                        uint32_t groups) {
        Node n;
        n.kernel = k;
        n.op = op;
        n.label = std::move(label);
        n.workgroups = {groups, 1, 1};
        n.push_constants.assign(16, 0);
        for (uint32_t b = 0; b < views.size(); ++b) n.bindings.push_back({b, views[b]});
        // Ids assigned here: ComputeGraph::add_dispatch would scan the graph for each one.
        n.id = next_id++;
        n.origin = {n.id};
        g.add_dispatch(std::move(n));
    };
    auto wg = [](int64_t n) { return static_cast<uint32_t>((n + 63) / 64); };
    const uint64_t x = 0, h = H * f32;
    const uint64_t pos_row = uint64_t(o.context - 1);

    dispatch(k_rows, OpKind::get_rows, "inp_embd",
             {view(weights, tok_embd, DType::q4_0, {H, o.vocab, 1, 1}, 2),
              vec(inputs, 0, 1, DType::i32), vec(resid, x, H)},
             wg(H));
    for (size_t l = 0; l < o.layers; ++l) {
        const std::string blk = "blk." + std::to_string(l) + ".";
        const uint64_t s = layer_stride * l;
        const uint64_t kc = 2 * kv_layer * l, vc = kc + kv_layer;
        dispatch(k_norm, OpKind::rms_norm, blk + "attn_norm",
                 {vec(resid, x, H), vec(scratch, s + s_norm, H)}, 1);
        dispatch(k_mul, OpKind::mul, blk + "attn_norm_mul",
                 {vec(scratch, s + s_norm, H), vec(weights, w[l].attn_norm, H),
                  vec(scratch, s + s_normed, H)},
                 wg(H));
        dispatch(k_mv, OpKind::quantized_matmul, blk + "attn_q",
                 {mat(w[l].q, H, H), vec(scratch, s + s_normed, H), vec(act, act_q, H)}, wg(H));
        dispatch(k_rope, OpKind::rope, blk + "attn_q_rope",
                 {vec(act, act_q, H), vec(inputs, 4, 1, DType::i32), vec(act, act_qr, H)}, wg(H));
        dispatch(k_mv, OpKind::quantized_matmul, blk + "attn_k",
                 {mat(w[l].k, H, kv_dim), vec(scratch, s + s_normed, H), vec(act, act_k, kv_dim)},
                 wg(kv_dim));
        dispatch(k_rope, OpKind::rope, blk + "attn_k_rope",
                 {vec(act, act_k, kv_dim), vec(inputs, 4, 1, DType::i32), vec(act, act_kr, kv_dim)},
                 wg(kv_dim));
        dispatch(k_cpy, OpKind::copy, blk + "k_cache_store",
                 {vec(act, act_kr, kv_dim), vec(kv, kc + pos_row * kv_row, kv_dim, DType::f16)},
                 wg(kv_dim));
        dispatch(k_mv, OpKind::quantized_matmul, blk + "attn_v",
                 {mat(w[l].v, H, kv_dim), vec(scratch, s + s_normed, H), vec(act, act_v, kv_dim)},
                 wg(kv_dim));
        dispatch(k_cpy, OpKind::copy, blk + "v_cache_store",
                 {vec(act, act_v, kv_dim), vec(kv, vc + pos_row * kv_row, kv_dim, DType::f16)},
                 wg(kv_dim));
        dispatch(
            k_fa, OpKind::flash_attn_vec, blk + "attn",
            {vec(act, act_qr, H), view(kv, kc, DType::f16, {kv_dim, o.context, 1, 1}, 2),
             view(kv, vc, DType::f16, {kv_dim, o.context, 1, 1}, 2), vec(scratch, s + s_attn, H)},
            static_cast<uint32_t>(o.heads));
        dispatch(k_mv, OpKind::quantized_matmul, blk + "attn_output",
                 {mat(w[l].o, H, H), vec(scratch, s + s_attn, H), vec(act, act_o, H)}, wg(H));
        dispatch(k_add, OpKind::add, blk + "attn_residual",
                 {vec(resid, x, H), vec(act, act_o, H), vec(resid, h, H)}, wg(H));
        dispatch(k_norm, OpKind::rms_norm, blk + "ffn_norm",
                 {vec(resid, h, H), vec(scratch, s + s_norm, H)}, 1);
        dispatch(k_mul, OpKind::mul, blk + "ffn_norm_mul",
                 {vec(scratch, s + s_norm, H), vec(weights, w[l].ffn_norm, H),
                  vec(scratch, s + s_normed, H)},
                 wg(H));
        dispatch(k_mv, OpKind::quantized_matmul, blk + "ffn_up",
                 {mat(w[l].up, H, F), vec(scratch, s + s_normed, H), vec(act, act_up, F)}, wg(F));
        dispatch(k_mv, OpKind::quantized_matmul, blk + "ffn_gate",
                 {mat(w[l].gate, H, F), vec(scratch, s + s_normed, H), vec(act, act_gate, F)},
                 wg(F));
        dispatch(k_silu, OpKind::silu, blk + "ffn_silu",
                 {vec(act, act_gate, F), vec(act, act_gate_act, F)}, wg(F));
        dispatch(k_mul, OpKind::mul, blk + "ffn_silu_mul",
                 {vec(act, act_gate_act, F), vec(act, act_up, F), vec(act, act_ffn, F)}, wg(F));
        dispatch(k_mv, OpKind::quantized_matmul, blk + "ffn_down",
                 {mat(w[l].down, F, H), vec(act, act_ffn, F), vec(act, act_down, H)}, wg(H));
        dispatch(k_add, OpKind::add, blk + "ffn_residual",
                 {vec(resid, h, H), vec(act, act_down, H), vec(resid, x, H)}, wg(H));
    }
    dispatch(k_norm, OpKind::rms_norm, "output_norm", {vec(resid, x, H), vec(scratch, s_norm, H)},
             1);
    dispatch(k_mul, OpKind::mul, "output_norm_mul",
             {vec(scratch, s_norm, H), vec(weights, out_norm, H), vec(scratch, s_normed, H)},
             wg(H));
    dispatch(k_mv, OpKind::quantized_matmul, "output",
             {mat(lm_head, H, o.vocab), vec(scratch, s_normed, H), vec(logits, 0, o.vocab)},
             wg(o.vocab));
    return o.capture_barriers ? plan_barriers(g) : g;
}

}  // namespace graphlens
