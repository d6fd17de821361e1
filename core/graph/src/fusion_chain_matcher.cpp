#include "fusion_chain_matcher.h"

#include <fmt/core.h>

#include <algorithm>

namespace graphlens::detail {

namespace {

bool listed(const std::vector<size_t>& members, size_t k) {
    return std::find(members.begin(), members.end(), k) != members.end();
}

bool contains(const ByteRange& outer, const ByteRange& inner) {
    return outer.allocation == inner.allocation && outer.begin <= inner.begin &&
           inner.end <= outer.end;
}

/// The binding of `node` whose view covers exactly `range` and whose access matches.
const BoundView* find_view(const ComputeGraph& g, const Node& node, const ByteRange& range,
                           bool writing) {
    if (node.kernel >= g.kernels.size()) return nullptr;
    for (const BoundView& b : node.bindings) {
        const KernelBinding* kb = g.kernels[node.kernel].find_binding(b.binding);
        const BindingAccess access = kb ? kb->access : BindingAccess::read_write;
        if ((writing ? access_writes(access) : access_reads(access)) && b.view.range() == range)
            return &b;
    }
    return nullptr;
}

/// Same dtype and number of elements. Views are contiguous, so two such views of one range are
/// the same values in the same order whatever their shapes (a reshape: rope reads the q-norm's
/// [head_dim, heads * tokens] rows as [head_dim, heads, tokens]); the builders take the row
/// structure from the members' parameters.
bool same_layout(const TensorView& a, const TensorView& b) {
    return a.dtype == b.dtype && a.elements() == b.elements();
}

}  // namespace

std::string node_name(const ComputeGraph& g, size_t i) {
    const Node& n = g.nodes[i];
    return n.label.empty() ? fmt::format("node {}", i) : n.label;
}

std::string node_ref(const ComputeGraph& g, size_t i) {
    return fmt::format("node {} ({})", i, node_name(g, i));
}

std::string ChainMatcher::check(std::span<const size_t> chain, const FusionRecipe& recipe) const {
    if (std::string why = check_no_fence(chain); !why.empty()) return why;
    const TensorView* chain_out = nullptr;
    for (size_t k = 0; k < chain.size(); ++k) {
        if (std::string why = check_member_output(chain, recipe, k, chain_out); !why.empty())
            return why;
        if (k + 1 == chain.size()) break;
        if (std::string why = check_consumer_input(chain, k); !why.empty()) return why;
        // A kept output is still written by the fused kernel: later readers and the end of the
        // graph see it as before.
        if (listed(recipe.kept_outputs, k)) continue;
        if (std::string why = check_output_dropped(chain, k); !why.empty()) return why;
    }
    if (recipe.gaps)
        if (std::string why = check_gaps(chain); !why.empty()) return why;
    return check_kept_outputs(chain, recipe);
}

std::string ChainMatcher::check_no_fence(std::span<const size_t> chain) const {
    for (size_t i : chain)
        if (g_.nodes[i].is_fence())
            return fmt::format("{} is a fence (its ranges are unknown or it is marked so)",
                               node_ref(g_, i));
    return {};
}

std::string ChainMatcher::check_member_output(std::span<const size_t> chain,
                                              const FusionRecipe& recipe, size_t k,
                                              const TensorView*& chain_out) const {
    const size_t p = chain[k];
    const Node& producer = g_.nodes[p];
    if (producer.writes.size() != 1 || producer.writes[0].empty())
        return fmt::format("{} writes {} ranges, a chain member must write one", node_ref(g_, p),
                           producer.writes.size());
    const ByteRange out = producer.writes[0];
    const BoundView* out_view = find_view(g_, producer, out, true);
    if (!out_view)
        return fmt::format("{} has no binding for its output, shapes cannot be checked",
                           node_ref(g_, p));
    if (!chain_out) chain_out = &out_view->view;
    if (k > 0 && listed(recipe.converting, k)) {
        // A conversion: as many elements, another dtype allowed.
        TensorView as_input = out_view->view;
        as_input.dtype = chain_out->dtype;
        if (!same_layout(*chain_out, as_input))
            return fmt::format("{} converts to another number of elements than output of {}",
                               node_ref(g_, p), node_ref(g_, chain[k - 1]));
        const ByteRange in = g_.nodes[chain[k - 1]].writes[0];
        for (const ByteRange& r : producer.reads)
            if (!r.empty() && !contains(in, r))
                return fmt::format("{} reads more than the output of {}: not a pure conversion",
                                   node_ref(g_, p), node_ref(g_, chain[k - 1]));
        chain_out = &out_view->view;
    }
    if (!same_layout(*chain_out, out_view->view))
        return fmt::format("output of {} has another size or dtype than output of {}",
                           node_ref(g_, p), node_ref(g_, chain[0]));
    return {};
}

std::string ChainMatcher::check_consumer_input(std::span<const size_t> chain, size_t k) const {
    const size_t p = chain[k];
    const size_t c = chain[k + 1];
    const ByteRange out = g_.nodes[p].writes[0];
    const Node& consumer = g_.nodes[c];
    const BoundView* in_view = find_view(g_, consumer, out, false);
    if (!in_view) {
        const bool partial = std::any_of(consumer.reads.begin(), consumer.reads.end(),
                                         [&](const ByteRange& r) { return r.overlaps(out); });
        return partial ? fmt::format("{} reads part of the output of {}: ranges do not line up",
                                     node_ref(g_, c), node_ref(g_, p))
                       : fmt::format("{} does not read the output of {}", node_ref(g_, c),
                                     node_ref(g_, p));
    }
    // Other inputs of the consumer must not overlap an earlier member's output: the fused
    // kernel reads them before that output exists.
    for (size_t m = 0; m <= k; ++m) {
        const ByteRange earlier_out = g_.nodes[chain[m]].writes[0];
        for (const BoundView& b : consumer.bindings) {
            if (&b == in_view || !b.view.range().overlaps(earlier_out)) continue;
            const KernelBinding* kb = consumer.kernel < g_.kernels.size()
                                          ? g_.kernels[consumer.kernel].find_binding(b.binding)
                                          : nullptr;
            if (!kb || access_reads(kb->access))
                return fmt::format(
                    "{} reads bytes of the output of {} through another binding ({})",
                    node_ref(g_, c), node_ref(g_, chain[m]), b.binding);
        }
    }
    const BoundView* out_view = find_view(g_, g_.nodes[p], out, true);
    if (!same_layout(in_view->view, out_view->view))
        return fmt::format("{} reads the output of {} with another size or dtype", node_ref(g_, c),
                           node_ref(g_, p));
    return {};
}

std::string ChainMatcher::check_output_dropped(std::span<const size_t> chain, size_t k) const {
    const size_t p = chain[k];
    const size_t c = chain[k + 1];
    const ByteRange out = g_.nodes[p].writes[0];
    for (const Hazard& h : hazards_.out_of(p))
        if (h.kind == HazardKind::raw && h.later != c && h.overlap().overlaps(out))
            return fmt::format("output of {} also read by {}", node_name(g_, p),
                               node_ref(g_, h.later));
    const bool overwritten_by_chain =
        std::any_of(chain.begin() + static_cast<ptrdiff_t>(k) + 1, chain.end(), [&](size_t m) {
            return std::any_of(g_.nodes[m].writes.begin(), g_.nodes[m].writes.end(),
                               [&](const ByteRange& w) { return contains(w, out); });
        });
    return overwritten_by_chain ? std::string{} : needed_after_graph(p);
}

std::string ChainMatcher::check_gaps(std::span<const size_t> chain) const {
    // The fused node stands where the last member stood: every earlier member moves past the
    // dispatches in the gaps, so none of those may conflict with it.
    for (size_t i = chain.front() + 1; i < chain.back(); ++i)
        if (g_.nodes[i].is_dispatch() && g_.nodes[i].is_fence())
            return fmt::format("{} between the chain's members is a fence", node_ref(g_, i));
    for (size_t k = 0; k + 1 < chain.size(); ++k)
        for (const Hazard& h : hazards_.out_of(chain[k]))
            if (h.later < chain.back() &&
                std::find(chain.begin(), chain.end(), h.later) == chain.end())
                return fmt::format(
                    "{} between the chain's members conflicts with {} ({} hazard): the fused "
                    "dispatch would move {} past it",
                    node_ref(g_, h.later), node_ref(g_, chain[k]), hazard_kind_name(h.kind),
                    node_name(g_, chain[k]));
    return {};
}

std::string ChainMatcher::check_kept_outputs(std::span<const size_t> chain,
                                             const FusionRecipe& recipe) const {
    // The fused kernel writes a kept output and the later members' outputs at once.
    for (size_t k : recipe.kept_outputs)
        for (size_t m = k + 1; k < chain.size() && m < chain.size(); ++m)
            if (g_.nodes[chain[m]].writes[0].overlaps(g_.nodes[chain[k]].writes[0]))
                return fmt::format("kept output of {} is overwritten by {} in the chain",
                                   node_ref(g_, chain[k]), node_ref(g_, chain[m]));
    return {};
}

size_t ChainMatcher::find_sibling(std::span<const size_t> chain, const FusionRecipe& recipe) const {
    const size_t k = *recipe.sibling_of;  // checked by fuse(): 0 < k < chain.size()
    const size_t m = chain[k];
    const Node& member = g_.nodes[m];
    const ByteRange intermediate = g_.nodes[chain[k - 1]].writes[0];
    size_t found = SIZE_MAX;
    for (const Hazard& h : hazards_.into(m)) {
        const size_t e = h.earlier;
        if (h.kind != HazardKind::raw || (found != SIZE_MAX && e <= found) ||
            std::find(chain.begin(), chain.end(), e) != chain.end())
            continue;
        const Node& maker = g_.nodes[e];
        if (!maker.is_dispatch() || maker.op != recipe.sibling_op || maker.writes.size() != 1 ||
            maker.writes[0].overlaps(intermediate))
            continue;
        if (find_view(g_, member, maker.writes[0], false)) found = e;
    }
    return found;
}

std::string ChainMatcher::check_sibling(std::span<const size_t> chain, size_t sibling,
                                        const FusionRecipe& recipe) const {
    const Node& s = g_.nodes[sibling];
    if (s.is_fence())
        return fmt::format("{} is a fence (its ranges are unknown or it is marked so)",
                           node_ref(g_, sibling));
    const size_t m = chain[*recipe.sibling_of];
    const ByteRange out = s.writes[0];
    for (const Hazard& h : hazards_.out_of(sibling)) {
        if (h.kind == HazardKind::raw && h.later == m) continue;
        if (h.kind == HazardKind::raw && h.overlap().overlaps(out))
            return fmt::format("output of {} also read by {}", node_name(g_, sibling),
                               node_ref(g_, h.later));
        // The sibling runs where the last member stands: nothing up to there may conflict
        // with it (a chain member included: they run at once).
        if (h.later <= chain.back())
            return fmt::format(
                "{} conflicts with {} ({} hazard): the fused dispatch would move {} past it",
                node_ref(g_, h.later), node_ref(g_, sibling), hazard_kind_name(h.kind),
                node_name(g_, sibling));
    }
    return needed_after_graph(sibling);
}

std::string ChainMatcher::needed_after_graph(size_t p) const {
    const ByteRange out = g_.nodes[p].writes[0];
    const AllocationUsage usage = out.allocation < g_.allocations.size()
                                      ? g_.allocations[out.allocation].usage
                                      : AllocationUsage::scratch;
    if (usage != AllocationUsage::output && usage != AllocationUsage::kv_cache &&
        usage != AllocationUsage::input)
        return {};
    return fmt::format("output of {} lies in allocation '{}' ({}), needed after the graph",
                       node_name(g_, p), g_.allocations[out.allocation].name,
                       allocation_usage_name(usage));
}

}  // namespace graphlens::detail
