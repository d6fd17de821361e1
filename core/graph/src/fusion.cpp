#include "graphlens/graph/fusion.h"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <optional>
#include <stdexcept>

#include "fusion_detail.h"
#include "graphlens/graph/barrier_planner.h"
#include "graphlens/graph/hazard_index.h"

namespace graphlens {

namespace {

std::string name_of(const ComputeGraph& g, size_t i) {
    const Node& n = g.nodes[i];
    return n.label.empty() ? fmt::format("node {}", i) : n.label;
}

/// "node 12 (blk.0.attn_q)"
std::string node_ref(const ComputeGraph& g, size_t i) {
    return fmt::format("node {} ({})", i, name_of(g, i));
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

class ChainMatcher {
  public:
    ChainMatcher(const ComputeGraph& g, const HazardIndex& hazards) : g_(g), hazards_(hazards) {}

    /// Empty when the chain qualifies for the recipe, else the reason it does not.
    std::string check(std::span<const size_t> chain, const FusionRecipe& recipe) const {
        auto listed = [](const std::vector<size_t>& members, size_t k) {
            return std::find(members.begin(), members.end(), k) != members.end();
        };
        for (size_t i : chain)
            if (g_.nodes[i].is_fence())
                return fmt::format("{} is a fence (its ranges are unknown or it is marked so)",
                                   node_ref(g_, i));
        const TensorView* chain_out = nullptr;  // the layout every member's output must have
        for (size_t k = 0; k < chain.size(); ++k) {
            const size_t p = chain[k];
            const Node& producer = g_.nodes[p];
            if (producer.writes.size() != 1 || producer.writes[0].empty())
                return fmt::format("{} writes {} ranges, a chain member must write one",
                                   node_ref(g_, p), producer.writes.size());
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
                    return fmt::format(
                        "{} converts to another number of elements than output of {}",
                        node_ref(g_, p), node_ref(g_, chain[k - 1]));
                const ByteRange in = g_.nodes[chain[k - 1]].writes[0];
                for (const ByteRange& r : producer.reads)
                    if (!r.empty() &&
                        !(r.allocation == in.allocation && in.begin <= r.begin && r.end <= in.end))
                        return fmt::format(
                            "{} reads more than the output of {}: not a pure conversion",
                            node_ref(g_, p), node_ref(g_, chain[k - 1]));
                chain_out = &out_view->view;
            }
            if (!same_layout(*chain_out, out_view->view))
                return fmt::format("output of {} has another size or dtype than output of {}",
                                   node_ref(g_, p), node_ref(g_, chain[0]));
            const bool kept = listed(recipe.kept_outputs, k);
            if (k + 1 == chain.size()) break;
            const size_t c = chain[k + 1];
            const Node& consumer = g_.nodes[c];
            const BoundView* in_view = find_view(g_, consumer, out, false);
            if (!in_view) {
                const bool partial =
                    std::any_of(consumer.reads.begin(), consumer.reads.end(),
                                [&](const ByteRange& r) { return r.overlaps(out); });
                return partial ? fmt::format(
                                     "{} reads part of the output of {}: ranges do not "
                                     "line up",
                                     node_ref(g_, c), node_ref(g_, p))
                               : fmt::format("{} does not read the output of {}", node_ref(g_, c),
                                             node_ref(g_, p));
            }
            // Other inputs of the consumer must not overlap an earlier member's output: the
            // fused kernel reads them before that output exists.
            for (size_t m = 0; m <= k; ++m) {
                const ByteRange earlier_out = g_.nodes[chain[m]].writes[0];
                for (const BoundView& b : consumer.bindings) {
                    if (&b == in_view || !b.view.range().overlaps(earlier_out)) continue;
                    const KernelBinding* kb =
                        consumer.kernel < g_.kernels.size()
                            ? g_.kernels[consumer.kernel].find_binding(b.binding)
                            : nullptr;
                    if (!kb || access_reads(kb->access))
                        return fmt::format(
                            "{} reads bytes of the output of {} through another "
                            "binding ({})",
                            node_ref(g_, c), node_ref(g_, chain[m]), b.binding);
                }
            }
            if (!same_layout(in_view->view, out_view->view))
                return fmt::format("{} reads the output of {} with another size or dtype",
                                   node_ref(g_, c), node_ref(g_, p));
            // A kept output is still written by the fused kernel: later readers and the end
            // of the graph see it as before.
            if (kept) continue;
            for (const Hazard& h : hazards_.out_of(p))
                if (h.kind == HazardKind::raw && h.later != c && h.overlap().overlaps(out))
                    return fmt::format("output of {} also read by {}", name_of(g_, p),
                                       node_ref(g_, h.later));
            const bool overwritten_by_chain = std::any_of(
                chain.begin() + static_cast<ptrdiff_t>(k) + 1, chain.end(), [&](size_t m) {
                    return std::any_of(g_.nodes[m].writes.begin(), g_.nodes[m].writes.end(),
                                       [&](const ByteRange& w) {
                                           return w.allocation == out.allocation &&
                                                  w.begin <= out.begin && out.end <= w.end;
                                       });
                });
            if (!overwritten_by_chain) {
                std::string why = needed_after_graph(p);
                if (!why.empty()) return why;
            }
        }
        if (recipe.gaps) {
            // The fused node stands where the last member stood: every earlier member moves
            // past the dispatches in the gaps, so none of those may conflict with it.
            for (size_t i = chain.front() + 1; i < chain.back(); ++i)
                if (g_.nodes[i].is_dispatch() && g_.nodes[i].is_fence())
                    return fmt::format("{} between the chain's members is a fence",
                                       node_ref(g_, i));
            for (size_t k = 0; k + 1 < chain.size(); ++k)
                for (const Hazard& h : hazards_.out_of(chain[k]))
                    if (h.later < chain.back() &&
                        std::find(chain.begin(), chain.end(), h.later) == chain.end())
                        return fmt::format(
                            "{} between the chain's members conflicts with {} ({} hazard): the "
                            "fused dispatch would move {} past it",
                            node_ref(g_, h.later), node_ref(g_, chain[k]), hazard_kind_name(h.kind),
                            name_of(g_, chain[k]));
        }
        // The fused kernel writes a kept output and the later members' outputs at once.
        for (size_t k : recipe.kept_outputs)
            for (size_t m = k + 1; k < chain.size() && m < chain.size(); ++m)
                if (g_.nodes[chain[m]].writes[0].overlaps(g_.nodes[chain[k]].writes[0]))
                    return fmt::format("kept output of {} is overwritten by {} in the chain",
                                       node_ref(g_, chain[k]), node_ref(g_, chain[m]));
        return {};
    }

    /// The dispatch that makes the other operand of member chain[*recipe.sibling_of]: the
    /// latest RAW source of that member of op recipe.sibling_op, outside the chain, writing one
    /// range the member reads through a binding of its own; SIZE_MAX when there is none.
    size_t find_sibling(std::span<const size_t> chain, const FusionRecipe& recipe) const {
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

    /// Empty when `sibling` may join the fused node of `chain` (which already qualifies),
    /// else the reason it may not.
    std::string check_sibling(std::span<const size_t> chain, size_t sibling,
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
                return fmt::format("output of {} also read by {}", name_of(g_, sibling),
                                   node_ref(g_, h.later));
            // The sibling runs where the last member stands: nothing up to there may
            // conflict with it (a chain member included: they run at once).
            if (h.later <= chain.back())
                return fmt::format(
                    "{} conflicts with {} ({} hazard): the fused dispatch would move {} past it",
                    node_ref(g_, h.later), node_ref(g_, sibling), hazard_kind_name(h.kind),
                    name_of(g_, sibling));
        }
        return needed_after_graph(sibling);
    }

  private:
    /// Empty unless the output of node p lies in an allocation the graph's caller reads or
    /// fills (input, output, KV cache): then the reason a fusion may not drop it.
    std::string needed_after_graph(size_t p) const {
        const ByteRange out = g_.nodes[p].writes[0];
        const AllocationUsage usage = out.allocation < g_.allocations.size()
                                          ? g_.allocations[out.allocation].usage
                                          : AllocationUsage::scratch;
        if (usage != AllocationUsage::output && usage != AllocationUsage::kv_cache &&
            usage != AllocationUsage::input)
            return {};
        return fmt::format("output of {} lies in allocation '{}' ({}), needed after the graph",
                           name_of(g_, p), g_.allocations[out.allocation].name,
                           allocation_usage_name(usage));
    }

    const ComputeGraph& g_;
    const HazardIndex& hazards_;
};

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

}  // namespace

FusionResult fuse(const ComputeGraph& graph, std::span<const FusionRecipe> recipes) {
    return fuse(graph, HazardIndex(graph), recipes);
}

FusionResult fuse(const ComputeGraph& graph, const HazardIndex& hazards,
                  std::span<const FusionRecipe> recipes) {
    return detail::fuse(graph, hazards, recipes, true);
}

FusionResult detail::fuse(const ComputeGraph& graph, const HazardIndex& hazards,
                          std::span<const FusionRecipe> recipes, bool copy_when_unchanged) {
    FusionResult result;
    // The graph's tables, copied when the result needs them: at the first applied fusion (its
    // kernel and ranges) or for the emitted graph.
    bool tables_copied = false;
    auto copy_tables = [&] {
        if (tables_copied) return;
        tables_copied = true;
        result.graph.allocations = graph.allocations;
        result.graph.kernels = graph.kernels;
        result.graph.metadata = graph.metadata;
        result.graph.barrier_scopes = graph.barrier_scopes;  // its barriers are kept as they are
    };
    const ChainMatcher matcher(graph, hazards);
    for (const FusionRecipe& recipe : recipes)
        if (recipe.sibling_of &&
            (!recipe.gaps || *recipe.sibling_of == 0 || *recipe.sibling_of >= recipe.chain.size()))
            throw std::invalid_argument(
                fmt::format("fusion recipe {}: a sibling needs gaps and a member after the first",
                            recipe.pattern));

    // The recipes by the op of their first member, in table order: a position tries only the
    // recipes that can start there (the others fail candidate() at once).
    std::array<std::vector<uint32_t>, kOpKindCount> by_first_op;
    for (size_t r = 0; r < recipes.size(); ++r)
        if (!recipes[r].chain.empty())
            by_first_op[static_cast<size_t>(recipes[r].chain[0])].push_back(
                static_cast<uint32_t>(r));

    // One walk over the nodes: the dispatches and their ops (compact: the matcher compares the
    // ops of consecutive dispatches without reading their nodes, 72 bytes each and cold at
    // 100k).
    std::vector<size_t> dispatches;  // node indices of the dispatches
    std::vector<OpKind> ops;         // [position] = the op of that dispatch
    dispatches.reserve(graph.nodes.size());
    ops.reserve(graph.nodes.size());
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node& node = graph.nodes[i];
        if (!node.is_dispatch()) continue;
        dispatches.push_back(i);
        ops.push_back(node.op);
    }
    // The positions where a recipe may match, the only ones the matcher visits (and asks the
    // memory for ahead): a recipe with gaps (or of one member) wherever its first op stands
    // (its later members are found through the hazards), one without wherever the next
    // dispatch has its second op. Elsewhere candidate() fails on the ops and nothing is
    // reported. One table lookup a position: trying the recipes themselves there (eight start
    // with an add) cost more than the matching it saved.
    std::array<bool, kOpKindCount> starts_alone{};
    std::vector<bool> starts_with_next(kOpKindCount * kOpKindCount, false);  // [first][second]
    for (const FusionRecipe& recipe : recipes) {
        if (recipe.chain.empty()) continue;
        const auto first = static_cast<size_t>(recipe.chain[0]);
        if (recipe.gaps || recipe.chain.size() == 1)
            starts_alone[first] = true;
        else
            starts_with_next[first * kOpKindCount + static_cast<size_t>(recipe.chain[1])] = true;
    }
    std::vector<uint32_t> starts;
    for (size_t p = 0; p < ops.size(); ++p) {
        const auto op = static_cast<size_t>(ops[p]);
        if (starts_alone[op] ||
            (p + 1 < ops.size() &&
             starts_with_next[op * kOpKindCount + static_cast<size_t>(ops[p + 1])]))
            starts.push_back(static_cast<uint32_t>(p));
    }

    // Decide the fusions first: each applied chain, by the dispatch positions of its members.
    struct Applied {
        std::vector<size_t> positions;
        bool gaps;
        Node node;
    };
    std::vector<Applied> applied;
    // [node index] = its dispatch position (32 bits: half the table to fill at 100k nodes).
    std::vector<uint32_t> position_of(graph.nodes.size(), UINT32_MAX);
    for (size_t p = 0; p < dispatches.size(); ++p)
        position_of[dispatches[p]] = static_cast<uint32_t>(p);
    std::vector<char> consumed(dispatches.size(), 0);  // a member of an applied chain
    // The members of `recipe` starting at position p: consecutive dispatches, or with gaps
    // each member's first reader; empty when the ops do not match.
    auto candidate = [&](const FusionRecipe& recipe, size_t p, std::vector<size_t>& chain) {
        chain.clear();
        const size_t len = recipe.chain.size();
        if (len == 0 || ops[p] != recipe.chain[0]) return false;
        chain.push_back(dispatches[p]);
        for (size_t k = 1; k < len; ++k) {
            size_t next = SIZE_MAX;
            if (!recipe.gaps) {
                if (p + k >= dispatches.size() || ops[p + k] != recipe.chain[k]) return false;
                next = dispatches[p + k];
            } else if (graph.nodes[chain.back()].writes.size() == 1) {
                const ByteRange out = graph.nodes[chain.back()].writes[0];
                // out_of() is sorted by later: the first reader found is the first reader.
                for (const Hazard& h : hazards.out_of(chain.back()))
                    if (h.kind == HazardKind::raw && h.overlap().overlaps(out)) {
                        next = h.later;
                        break;
                    }
            }
            if (next == SIZE_MAX || ops[position_of[next]] != recipe.chain[k] ||
                consumed[position_of[next]])
                return false;
            chain.push_back(next);
        }
        if (recipe.sibling_of) {  // the sibling goes after the members
            const size_t s = matcher.find_sibling(chain, recipe);
            if (s == SIZE_MAX || consumed[position_of[s]]) return false;
            chain.push_back(s);
        }
        return true;
    };
    // next_node_id() walks every node: asked only when a chain applies.
    std::optional<NodeId> next_id;
    std::vector<size_t> chain;
    // The positions where a recipe may match, in order; a position before `next` was passed
    // over by an applied consecutive chain (or is the one just matched).
    size_t next = 0;
    for (size_t j = 0; j < starts.size(); ++j) {
        // The matcher reads the members' outputs and bindings and the hazards out of them, cold
        // at 100k dispatches: ask for them at the positions ahead where it will look
        // (compute_graph.h).
        if (j + 2 * kPrefetchAhead < starts.size()) {
            const size_t i = dispatches[starts[j + 2 * kPrefetchAhead]];
            hazards.prefetch_out_list(i);
            // The node itself: the starts lie apart, so the walk does not stream the array.
            const auto* node = reinterpret_cast<const char*>(&graph.nodes[i]);
            prefetch(node);
            prefetch(node + sizeof(Node) - 1);
        }
        if (j + kPrefetchAhead < starts.size()) {
            const size_t i = dispatches[starts[j + kPrefetchAhead]];
            hazards.prefetch_out_hazards(i);
            graph.nodes[i].writes.prefetch();
            graph.nodes[i].bindings.prefetch();
        }
        if (j + kPrefetchAhead / 2 < starts.size()) {
            const Node& ahead = graph.nodes[dispatches[starts[j + kPrefetchAhead / 2]]];
            ahead.writes.prefetch_items();
            ahead.bindings.prefetch_items();
        }
        const size_t p = starts[j];
        if (p < next || consumed[p]) continue;  // passed over, or already inside a fused node
        std::optional<FusionDiagnostic> near_miss;
        size_t advance = 1;
        for (const uint32_t r : by_first_op[static_cast<size_t>(ops[p])]) {
            const FusionRecipe& recipe = recipes[r];
            if (!candidate(recipe, p, chain)) continue;
            const size_t len = chain.size();
            const std::span<const size_t> members(chain.data(), recipe.chain.size());
            FusionDiagnostic d;
            d.pattern = recipe.pattern;
            for (size_t i : chain) d.nodes.push_back(graph.nodes[i].id);
            d.reason = matcher.check(members, recipe);
            if (d.reason.empty() && recipe.sibling_of)
                d.reason = matcher.check_sibling(members, chain.back(), recipe);
            if (d.reason.empty() && !recipe.build)
                d.reason =
                    fmt::format("matched, fused kernel {} not available", recipe.fused_kernel);
            if (d.reason.empty()) {
                FusionBuildResult built = recipe.build(graph, chain);
                if (!built.fused) {
                    d.reason =
                        built.reason.empty() ? "the fused kernel's builder declined" : built.reason;
                } else {
                    copy_tables();
                    Node node = std::move(built.fused->node);
                    bind_scratch(result.graph, built.fused->scratch, node);
                    node.kind = NodeKind::dispatch;
                    node.kernel = result.graph.add_kernel(built.fused->kernel);
                    if (node.op == OpKind::other) node.op = recipe.fused_op;
                    if (!next_id) next_id = graph.next_node_id();
                    node.id = (*next_id)++;
                    node.origin.clear();
                    for (size_t i : chain)
                        node.origin.insert(node.origin.end(), graph.nodes[i].origin.begin(),
                                           graph.nodes[i].origin.end());
                    if (node.label.empty()) {
                        for (size_t i : chain)
                            node.label += (node.label.empty() ? "" : "+") + graph.nodes[i].label;
                    }
                    node.ranges_known = true;
                    node.fence = false;
                    result.graph.derive_ranges(node);
                    for (size_t k : recipe.kept_outputs) {
                        const ByteRange kept = graph.nodes[chain.at(k)].writes[0];
                        if (std::none_of(node.writes.begin(), node.writes.end(),
                                         [&](const ByteRange& w) {
                                             return w.allocation == kept.allocation &&
                                                    w.begin <= kept.begin && kept.end <= w.end;
                                         }))
                            throw std::logic_error(fmt::format(
                                "fusion {}: the builder's {} does not write the kept output of "
                                "{}",
                                recipe.pattern, built.fused->kernel.name,
                                name_of(graph, chain[k])));
                    }
                    d.applied = true;
                    d.fused_id = node.id;
                    Applied a{{}, recipe.gaps, std::move(node)};
                    for (size_t i : chain) a.positions.push_back(position_of[i]);
                    // A sibling may stand before the first member.
                    std::sort(a.positions.begin(), a.positions.end());
                    for (size_t q : a.positions) consumed[q] = 1;
                    if (!recipe.gaps) advance = len;
                    applied.push_back(std::move(a));
                    result.diagnostics.push_back(std::move(d));
                    ++result.applied;
                    near_miss.reset();
                    break;
                }
            }
            // Report the longest near miss at this position only, unless something applies.
            if (!near_miss) near_miss = std::move(d);
        }
        if (near_miss) result.diagnostics.push_back(std::move(*near_miss));
        next = p + advance;
    }

    // Emit: barriers between chain members are dropped, the others kept in place. A dropped
    // barrier may also have separated other dispatches of its two groups (interleaved chains:
    // q_norm | q_mul k_norm | k_mul rope_q), so every run of dispatches between kept barriers
    // that lost one is re-planned from its ranges; the rest of the schedule is untouched.
    std::vector<Node>& out = result.graph.nodes;
    out.reserve(graph.nodes.size());
    if (applied.empty()) {
        if (!copy_when_unchanged) {
            return result;
        }
        copy_tables();
        // Nothing fused: every node as it is.
        for (size_t i = 0; i < graph.nodes.size(); ++i) {
            // Copying a node counts a reference in each of its shared blocks, cold at 100k
            // nodes.
            if (i + kPrefetchAheadShortWork < graph.nodes.size())
                prefetch_fields(graph.nodes[i + kPrefetchAheadShortWork]);
            out.push_back(graph.nodes[i]);
        }
        return result;
    }
    size_t run_begin = 0;   // index in out of the first dispatch after the last kept barrier
    bool run_lost = false;  // a barrier inside the current run was dropped
    auto close_run = [&] {
        if (!run_lost) return;
        std::vector<Node> run(
            std::make_move_iterator(out.begin() + static_cast<ptrdiff_t>(run_begin)),
            std::make_move_iterator(out.end()));
        out.resize(run_begin);
        GroupTracker group;
        for (Node& node : run) {
            if (group.conflicts(node)) {
                out.push_back(Node::barrier());
                group.reset();
            }
            group.add(node);
            out.push_back(std::move(node));
        }
        run_lost = false;
    };
    // What happens at each dispatch position: the first member of a consecutive chain and
    // the last member of a gap chain become the fused node; the other members disappear.
    // Barriers between a chain's first and last member are dropped (their run re-planned).
    constexpr size_t kKeep = SIZE_MAX, kDrop = SIZE_MAX - 1;
    std::vector<size_t> action(dispatches.size(), kKeep);  // kKeep, kDrop or applied index
    std::vector<int> spans(dispatches.size() + 1, 0);      // chains open before position p
    for (size_t a = 0; a < applied.size(); ++a) {
        const auto& pos = applied[a].positions;
        for (size_t k = 0; k < pos.size(); ++k) action[pos[k]] = kDrop;
        action[applied[a].gaps ? pos.back() : pos.front()] = a;
        ++spans[pos.front() + 1];
        --spans[pos.back() + 1];
    }
    for (size_t p = 1; p < spans.size(); ++p) spans[p] += spans[p - 1];
    size_t p = 0;  // position of the next dispatch
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        // Copying a node counts a reference in each of its shared blocks, cold at 100k nodes.
        if (i + kPrefetchAheadShortWork < graph.nodes.size())
            prefetch_fields(graph.nodes[i + kPrefetchAheadShortWork]);
        const Node& node = graph.nodes[i];
        if (node.is_barrier()) {
            if (p < dispatches.size() && spans[p] > 0) {
                run_lost = true;
            } else {
                // A run that lost all its dispatches (gap chain members moved on) leaves this
                // barrier with nothing before it since the last one: it separates nothing.
                const bool emptied =
                    run_lost && out.size() == run_begin && (out.empty() || out.back().is_barrier());
                close_run();
                if (!emptied) out.push_back(node);
                run_begin = out.size();
            }
            continue;
        }
        if (action[p] == kKeep)
            out.push_back(node);
        else if (action[p] != kDrop)
            out.push_back(std::move(applied[action[p]].node));
        ++p;
    }
    close_run();
    return result;
}

}  // namespace graphlens
