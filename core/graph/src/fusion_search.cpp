#include "fusion_search.h"

#include <fmt/core.h>

#include <algorithm>

#include "graphlens/graph/prefetch.h"

namespace graphlens::detail {

namespace {

// A fused kernel's own zeroed memory (FusionScratch): a new allocation each, bound whole.
void bind_scratch(ComputeGraph& g, const std::vector<FusionScratch>& scratch, Node& node) {
    for (const FusionScratch& sc : scratch) {
        AllocationInfo a;
        a.id = static_cast<AllocationId>(g.allocations.size());
        a.size = sc.bytes;
        a.name = sc.name;
        a.usage = AllocationUsage::scratch;
        g.allocations.push_back(a);
        TensorView v;
        v.allocation = a.id;
        v.size = sc.bytes;
        v.dtype = DType::u32;
        v.shape = {int64_t(sc.bytes / 4), 1, 1, 1};
        node.bindings.push_back({sc.binding, v});
    }
    std::sort(node.bindings.begin(), node.bindings.end(),
              [](const BoundView& a, const BoundView& b) { return a.binding < b.binding; });
}

/// The fused node stands for its members: their origins, and their labels joined by '+'
/// unless the builder named it.
void inherit_members(const ComputeGraph& graph, std::span<const size_t> chain, Node& node) {
    node.origin.clear();
    for (size_t i : chain)
        node.origin.insert(node.origin.end(), graph.nodes[i].origin.begin(),
                           graph.nodes[i].origin.end());
    if (!node.label.empty()) return;
    for (size_t i : chain) node.label += (node.label.empty() ? "" : "+") + graph.nodes[i].label;
}

/// A builder that forgets a kept output would silently drop bytes later readers need.
void require_kept_outputs_written(const ComputeGraph& graph, const FusionRecipe& recipe,
                                  std::span<const size_t> chain, const Node& node,
                                  const std::string& kernel) {
    for (size_t k : recipe.kept_outputs) {
        const ByteRange kept = graph.nodes[chain[k]].writes[0];
        const bool written =
            std::any_of(node.writes.begin(), node.writes.end(), [&](const ByteRange& w) {
                return w.allocation == kept.allocation && w.begin <= kept.begin &&
                       kept.end <= w.end;
            });
        if (!written)
            throw std::logic_error(
                fmt::format("fusion {}: the builder's {} does not write the kept output of {}",
                            recipe.pattern, kernel, node_name(graph, chain[k])));
    }
}

}  // namespace

DispatchIndex::DispatchIndex(const ComputeGraph& graph)
    : position_of(graph.nodes.size(), UINT32_MAX) {
    dispatches.reserve(graph.nodes.size());
    ops.reserve(graph.nodes.size());
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node& node = graph.nodes[i];
        if (!node.is_dispatch()) continue;
        position_of[i] = static_cast<uint32_t>(dispatches.size());
        dispatches.push_back(i);
        ops.push_back(node.op);
    }
}

ComputeGraph& ResultTables::get() {
    if (!copied_) {
        copied_ = true;
        out_.allocations = in_.allocations;
        out_.kernels = in_.kernels;
        out_.metadata = in_.metadata;
        out_.barrier_scopes = in_.barrier_scopes;  // its barriers are kept as they are
        out_.unknown_workgroups = in_.unknown_workgroups;
    }
    return out_;
}

FusionSearch::FusionSearch(const ComputeGraph& graph, const HazardIndex& hazards,
                           std::span<const FusionRecipe> recipes, const DispatchIndex& index)
    : graph_(graph),
      hazards_(hazards),
      recipes_(recipes),
      index_(index),
      matcher_(graph, hazards),
      consumed_(index.dispatches.size(), 0) {
    // A position tries only the recipes that can start there (the others fail candidate() at
    // once), in table order.
    for (size_t r = 0; r < recipes.size(); ++r)
        if (!recipes[r].chain.empty())
            by_first_op_[static_cast<size_t>(recipes[r].chain[0])].push_back(
                static_cast<uint32_t>(r));
}

std::vector<AppliedFusion> FusionSearch::decide(ResultTables& tables,
                                                std::vector<FusionDiagnostic>& diagnostics) {
    std::vector<AppliedFusion> applied;
    const std::vector<uint32_t> starts = start_positions();
    std::vector<size_t> chain;
    // A position before `next` was passed over by an applied consecutive chain (or is the one
    // just matched).
    size_t next = 0;
    for (size_t j = 0; j < starts.size(); ++j) {
        prefetch_ahead(starts, j);
        const size_t p = starts[j];
        if (p < next || consumed_[p]) continue;     // passed over, or already inside a fused node
        std::optional<FusionDiagnostic> near_miss;  // the first recipe's, unless one applies
        size_t advance = 1;
        for (const uint32_t r : by_first_op_[static_cast<size_t>(index_.ops[p])]) {
            const FusionRecipe& recipe = recipes_[r];
            if (!candidate(recipe, p, chain)) continue;
            FusionDiagnostic d;
            d.pattern = recipe.pattern;
            for (size_t i : chain) d.nodes.push_back(graph_.nodes[i].id);
            d.reason = reject_reason(recipe, chain);
            std::optional<Node> node;
            if (d.reason.empty()) node = build(recipe, chain, tables, d.reason);
            if (node) {
                d.applied = true;
                d.fused_id = node->id;
                if (!recipe.gaps) advance = chain.size();
                applied.push_back(mark_applied(recipe, chain, std::move(*node)));
                diagnostics.push_back(std::move(d));
                near_miss.reset();
                break;
            }
            if (!near_miss) near_miss = std::move(d);
        }
        if (near_miss) diagnostics.push_back(std::move(*near_miss));
        next = p + advance;
    }
    return applied;
}

std::vector<uint32_t> FusionSearch::start_positions() const {
    // A recipe with gaps (or of one member) may start wherever its first op stands (its later
    // members are found through the hazards), one without wherever the next dispatch has its
    // second op. One table lookup a position: trying the recipes themselves there (eight start
    // with an add) costs more than the matching it saves.
    std::array<bool, kOpKindCount> starts_alone{};
    std::vector<bool> starts_with_next(kOpKindCount * kOpKindCount, false);  // [first][second]
    for (const FusionRecipe& recipe : recipes_) {
        if (recipe.chain.empty()) continue;
        const auto first = static_cast<size_t>(recipe.chain[0]);
        if (recipe.gaps || recipe.chain.size() == 1)
            starts_alone[first] = true;
        else
            starts_with_next[first * kOpKindCount + static_cast<size_t>(recipe.chain[1])] = true;
    }
    const std::vector<OpKind>& ops = index_.ops;
    std::vector<uint32_t> starts;
    for (size_t p = 0; p < ops.size(); ++p) {
        const auto op = static_cast<size_t>(ops[p]);
        if (starts_alone[op] ||
            (p + 1 < ops.size() &&
             starts_with_next[op * kOpKindCount + static_cast<size_t>(ops[p + 1])]))
            starts.push_back(static_cast<uint32_t>(p));
    }
    return starts;
}

bool FusionSearch::candidate(const FusionRecipe& recipe, size_t p,
                             std::vector<size_t>& chain) const {
    const std::vector<OpKind>& ops = index_.ops;
    chain.clear();
    const size_t len = recipe.chain.size();
    if (len == 0 || ops[p] != recipe.chain[0]) return false;
    chain.push_back(index_.dispatches[p]);
    for (size_t k = 1; k < len; ++k) {
        size_t next = SIZE_MAX;
        if (!recipe.gaps) {
            if (p + k >= ops.size() || ops[p + k] != recipe.chain[k]) return false;
            next = index_.dispatches[p + k];
        } else if (graph_.nodes[chain.back()].writes.size() == 1) {
            const ByteRange out = graph_.nodes[chain.back()].writes[0];
            // out_of() is sorted by later: the first reader found is the first reader.
            for (const Hazard& h : hazards_.out_of(chain.back()))
                if (h.kind == HazardKind::raw && h.overlap().overlaps(out)) {
                    next = h.later;
                    break;
                }
        }
        if (next == SIZE_MAX || ops[index_.position_of[next]] != recipe.chain[k] ||
            consumed_[index_.position_of[next]])
            return false;
        chain.push_back(next);
    }
    if (recipe.sibling_of) {  // the sibling goes after the members
        const size_t s = matcher_.find_sibling(chain, recipe);
        if (s == SIZE_MAX || consumed_[index_.position_of[s]]) return false;
        chain.push_back(s);
    }
    return true;
}

std::string FusionSearch::reject_reason(const FusionRecipe& recipe,
                                        std::span<const size_t> chain) const {
    const std::span<const size_t> members = chain.first(recipe.chain.size());
    std::string why = matcher_.check(members, recipe);
    if (why.empty() && recipe.sibling_of)
        why = matcher_.check_sibling(members, chain.back(), recipe);
    if (why.empty() && !recipe.build)
        why = fmt::format("matched, fused kernel {} not available", recipe.fused_kernel);
    return why;
}

std::optional<Node> FusionSearch::build(const FusionRecipe& recipe, std::span<const size_t> chain,
                                        ResultTables& tables, std::string& reason) {
    FusionBuildResult built = recipe.build(graph_, chain);
    if (!built.fused) {
        reason = built.reason.empty() ? "the fused kernel's builder declined" : built.reason;
        return std::nullopt;
    }
    ComputeGraph& out = tables.get();
    Node node = std::move(built.fused->node);
    bind_scratch(out, built.fused->scratch, node);
    node.kind = NodeKind::dispatch;
    node.kernel = out.add_kernel(built.fused->kernel);
    if (node.op == OpKind::other) node.op = recipe.fused_op;
    if (!next_id_) next_id_ = graph_.next_node_id();
    node.id = (*next_id_)++;
    inherit_members(graph_, chain, node);
    node.ranges_known = true;
    node.fence = false;
    out.derive_ranges(node);
    require_kept_outputs_written(graph_, recipe, chain, node, built.fused->kernel.name);
    return node;
}

AppliedFusion FusionSearch::mark_applied(const FusionRecipe& recipe, std::span<const size_t> chain,
                                         Node node) {
    AppliedFusion a{{}, recipe.gaps, std::move(node)};
    for (size_t i : chain) a.positions.push_back(index_.position_of[i]);
    std::sort(a.positions.begin(), a.positions.end());  // a sibling may stand before the first
    for (size_t q : a.positions) consumed_[q] = 1;
    return a;
}

void FusionSearch::prefetch_ahead(std::span<const uint32_t> starts, size_t j) const {
    // The matcher reads the members' outputs and bindings and the hazards out of them, cold at
    // 100k dispatches: ask for them at the positions ahead where it will look
    // (compute_graph.h).
    const std::vector<size_t>& dispatches = index_.dispatches;
    if (j + 2 * kPrefetchAhead < starts.size()) {
        const size_t i = dispatches[starts[j + 2 * kPrefetchAhead]];
        hazards_.prefetch_out_list(i);
        // The node itself: the starts lie apart, so the walk does not stream the array.
        const auto* node = reinterpret_cast<const char*>(&graph_.nodes[i]);
        prefetch(node);
        prefetch(node + sizeof(Node) - 1);
    }
    if (j + kPrefetchAhead < starts.size()) {
        const size_t i = dispatches[starts[j + kPrefetchAhead]];
        hazards_.prefetch_out_hazards(i);
        graph_.nodes[i].writes.prefetch();
        graph_.nodes[i].bindings.prefetch();
    }
    if (j + kPrefetchAhead / 2 < starts.size()) {
        const Node& ahead = graph_.nodes[dispatches[starts[j + kPrefetchAhead / 2]]];
        ahead.writes.prefetch_items();
        ahead.bindings.prefetch_items();
    }
}

}  // namespace graphlens::detail
