#pragma once
// Helpers shared by the graph-pass tests: tiny graphs written by hand, and the quadratic
// reference facts (reachability, brute-force conflicts) the fast analyses must agree with.
#include <initializer_list>
#include <string>
#include <vector>

#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/hazard_index.h"

namespace graphlens::testing {

/// Builds graphs from explicit ranges: dispatch("a", {R(0, 0, 16)}, {R(0, 16, 32)}).
class TinyGraph {
  public:
    explicit TinyGraph(size_t allocations = 2, uint64_t size = 1024) {
        for (size_t a = 0; a < allocations; ++a)
            graph.add_allocation("buf" + std::to_string(a), size, AllocationUsage::scratch);
        KernelInfo k;
        k.name = "k";
        graph.add_kernel(k);
    }
    size_t dispatch(std::string label, std::vector<ByteRange> reads, std::vector<ByteRange> writes,
                    OpKind op = OpKind::other) {
        Node n;
        n.label = std::move(label);
        n.op = op;
        n.reads = std::move(reads);
        n.writes = std::move(writes);
        return graph.add_dispatch(std::move(n));
    }
    size_t fence(std::string label) {
        Node n;
        n.label = std::move(label);
        n.ranges_known = false;
        return graph.add_dispatch(std::move(n));
    }
    size_t barrier() { return graph.add_barrier(); }
    ComputeGraph graph;
};

inline ByteRange R(AllocationId a, uint64_t begin, uint64_t end) {
    return {a, begin, end};
}

/// True when two dispatches must stay ordered with a barrier between (fences conflict with
/// every dispatch).
inline bool must_separate(const Node& a, const Node& b) {
    if (!a.is_dispatch() || !b.is_dispatch()) return false;
    if (a.is_fence() || b.is_fence()) return true;
    auto any = [](const std::vector<ByteRange>& x, const std::vector<ByteRange>& y) {
        for (const auto& r : x)
            for (const auto& s : y)
                if (r.overlaps(s)) return true;
        return false;
    };
    return any(a.writes, b.reads) || any(a.reads, b.writes) || any(a.writes, b.writes);
}

/// reach[i][j]: j is reachable from i along the given edges (i < j), by dynamic programming.
inline std::vector<std::vector<bool>> reachability(
    size_t n, const std::vector<std::pair<size_t, size_t>>& edges) {
    std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
    std::vector<std::vector<size_t>> succ(n);
    for (auto [a, b] : edges) succ[a].push_back(b);
    for (size_t i = n; i-- > 0;)
        for (size_t s : succ[i]) {
            reach[i][s] = true;
            for (size_t j = 0; j < n; ++j)
                if (reach[s][j]) reach[i][j] = true;
        }
    return reach;
}

}  // namespace graphlens::testing

#include <algorithm>
#include <span>

#include "graphlens/graph/fusion.h"

namespace graphlens::testing {

/// A stand-in for the kernel library's builders: the fused kernel binds every input of the
/// chain except the intermediates, the last member's output and the kept outputs (members
/// listed in `kept`).
inline FusionBuildResult concatenating_builder(const ComputeGraph& g, std::span<const size_t> chain,
                                               std::span<const size_t> kept = {}) {
    FusedDispatch f;
    const Node& first = g.nodes[chain.front()];
    f.node.op = OpKind::other;
    f.node.workgroups = first.workgroups;
    f.kernel.name = "fused";
    for (size_t k = 0; k < chain.size(); ++k) {
        const Node& m = g.nodes[chain[k]];
        f.kernel.name += "_" + std::string(op_kind_name(m.op));
        const KernelInfo& mk = g.kernels[m.kernel];
        for (const BoundView& b : m.bindings) {
            const KernelBinding* kb = mk.find_binding(b.binding);
            const BindingAccess access = kb ? kb->access : BindingAccess::read_write;
            const bool intermediate_in = k > 0 && access == BindingAccess::read &&
                                         b.view.range() == g.nodes[chain[k - 1]].writes[0];
            const bool is_kept = std::find(kept.begin(), kept.end(), k) != kept.end();
            const bool intermediate_out = k + 1 < chain.size() && access_writes(access) && !is_kept;
            if (intermediate_in || intermediate_out) continue;
            const auto slot = static_cast<uint32_t>(f.node.bindings.size());
            f.node.bindings.push_back({slot, b.view});
            f.kernel.bindings.push_back({slot, access, ""});
        }
    }
    return {std::move(f), {}};
}

/// The chains the default recipe table finds in synthetic_graphs.h's transformer_graph of
/// `layers` layers: per layer rope→copy (the k-cache store), silu→mul and twice
/// add→rms_norm→mul (each residual add with the norm after it: ffn_norm, the next layer's
/// attn_norm or output_norm), plus layer 0's attn_norm→mul.
struct TransformerFusions {
    size_t chains;    ///< chains that fuse (with builders)
    size_t members;   ///< dispatches inside them
    size_t reported;  ///< diagnostics without builders: every match, also the rms_norm→mul
                      ///< inside each add→rms_norm→mul, as nothing applies
};
inline TransformerFusions transformer_fusions(size_t layers) {
    return {4 * layers + 1, (2 + 2 + 3 + 3) * layers + 2, 6 * layers + 1};
}

/// The patterns the graph layer's tests fuse: rms_norm→mul→add→rms_norm→mul (the sum kept),
/// rms_norm→mul→add, add→rms_norm→mul (the sum kept), rms_norm→mul→rope[→copy] (gaps),
/// rms_norm→mul, add chains of 8 down to 2 adds, gelu→mul, silu→mul, rope→copy (converting);
/// longest first, without builders. A test table: the pass is specified on it without the
/// kernels of a workload (the LLM workload's table is tested in tests/workloads/llm/ops).
inline std::vector<FusionRecipe> pattern_recipes() {
    std::vector<FusionRecipe> r;
    auto add = [&r](std::string pattern, std::vector<OpKind> chain, OpKind op,
                    std::string kernel) -> FusionRecipe& {
        FusionRecipe recipe;
        recipe.pattern = std::move(pattern);
        recipe.chain = std::move(chain);
        recipe.fused_op = op;
        recipe.fused_kernel = std::move(kernel);
        return r.emplace_back(std::move(recipe));
    };
    // The residual sum stays live (the next residual add reads it): a kept output.
    add("rms_norm→mul→add→rms_norm→mul",
        {OpKind::rms_norm, OpKind::mul, OpKind::add, OpKind::rms_norm, OpKind::mul},
        OpKind::add_rms_norm_mul, "rms_norm_mul_add_rms_norm_mul_f32")
        .kept_outputs = {2};
    add("rms_norm→mul→add", {OpKind::rms_norm, OpKind::mul, OpKind::add}, OpKind::rms_norm_mul_add,
        "rms_norm_mul_add_f32");
    add("add→rms_norm→mul", {OpKind::add, OpKind::rms_norm, OpKind::mul}, OpKind::add_rms_norm_mul,
        "add_rms_norm_mul_f32")
        .kept_outputs = {0};
    // q/k norms (qwen3, gemma3): each head normalised, weighted and rotated in one dispatch,
    // k also written straight into the cache. The q and k chains interleave: gaps allowed.
    for (OpKind rope : {OpKind::rope, OpKind::rope_neox}) {
        const std::string name(op_kind_name(rope));
        FusionRecipe& with_copy = add("rms_norm→mul→" + name + "→copy",
                                      {OpKind::rms_norm, OpKind::mul, rope, OpKind::copy},
                                      OpKind::rms_norm_mul_rope, "rms_norm_mul_rope_f32_f16");
        with_copy.converting = {3};
        with_copy.gaps = true;
        add("rms_norm→mul→" + name, {OpKind::rms_norm, OpKind::mul, rope},
            OpKind::rms_norm_mul_rope, "rms_norm_mul_rope_f32")
            .gaps = true;
    }
    add("rms_norm→mul", {OpKind::rms_norm, OpKind::mul}, OpKind::rms_norm_mul, "rms_norm_mul_f32");
    for (size_t n = 8; n >= 2; --n) {
        std::string pattern = "add";
        for (size_t i = 1; i < n; ++i) pattern += "→add";
        add(pattern, std::vector<OpKind>(n, OpKind::add), OpKind::multi_add, "multi_add_f32");
    }
    add("gelu→mul", {OpKind::gelu, OpKind::mul}, OpKind::gelu_mul, "gelu_mul_f32");
    add("silu→mul", {OpKind::silu, OpKind::mul}, OpKind::silu_mul, "silu_mul_f32");
    // The KV-cache append: rope writes its rotated keys straight into the cache slot.
    for (OpKind rope : {OpKind::rope, OpKind::rope_neox})
        add(std::string(op_kind_name(rope)) + "→copy", {rope, OpKind::copy}, OpKind::rope_copy,
            "rope_f32_f16")
            .converting = {1};
    return r;
}

/// pattern_recipes() with the stand-in builder.
inline std::vector<FusionRecipe> recipes_with_test_builders() {
    auto recipes = pattern_recipes();
    for (auto& r : recipes)
        r.build = [kept = r.kept_outputs](const ComputeGraph& g, std::span<const size_t> chain) {
            return concatenating_builder(g, chain, kept);
        };
    return recipes;
}

}  // namespace graphlens::testing
