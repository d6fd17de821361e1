#include "fusion_emit.h"

#include <iterator>

#include "graphlens/graph/barrier_planner.h"

namespace graphlens::detail {

namespace {

constexpr size_t kKeep = SIZE_MAX, kDrop = SIZE_MAX - 1;

/// What happens at each dispatch position (kKeep, kDrop or the index of the applied fusion
/// whose node stands there), and how many chains are open before each position: a barrier
/// met while one is open lies between a chain's members.
struct EmitPlan {
    std::vector<size_t> action;
    std::vector<int> open_chains;
};

EmitPlan plan_emit(size_t dispatch_count, const std::vector<AppliedFusion>& applied) {
    EmitPlan plan{std::vector<size_t>(dispatch_count, kKeep),
                  std::vector<int>(dispatch_count + 1, 0)};
    for (size_t a = 0; a < applied.size(); ++a) {
        const auto& pos = applied[a].positions;
        for (size_t q : pos) plan.action[q] = kDrop;
        plan.action[applied[a].gaps ? pos.back() : pos.front()] = a;
        ++plan.open_chains[pos.front() + 1];
        --plan.open_chains[pos.back() + 1];
    }
    for (size_t p = 1; p < plan.open_chains.size(); ++p)
        plan.open_chains[p] += plan.open_chains[p - 1];
    return plan;
}

/// Re-plans the barriers of the nodes out[run_begin..] from their ranges.
void replan_run(std::vector<Node>& out, size_t run_begin) {
    std::vector<Node> run(std::make_move_iterator(out.begin() + static_cast<ptrdiff_t>(run_begin)),
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
}

}  // namespace

void emit_fused(const ComputeGraph& graph, const DispatchIndex& index,
                std::vector<AppliedFusion>& applied, std::vector<Node>& out) {
    const EmitPlan plan = plan_emit(index.dispatches.size(), applied);
    out.reserve(graph.nodes.size());
    size_t run_begin = 0;   // index in out of the first dispatch after the last kept barrier
    bool run_lost = false;  // a barrier inside the current run was dropped
    size_t p = 0;           // position of the next dispatch
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        // Copying a node counts a reference in each of its shared blocks, cold at 100k nodes.
        if (i + kPrefetchAheadShortWork < graph.nodes.size())
            prefetch_fields(graph.nodes[i + kPrefetchAheadShortWork]);
        const Node& node = graph.nodes[i];
        if (node.is_barrier()) {
            if (p < index.dispatches.size() && plan.open_chains[p] > 0) {
                run_lost = true;
                continue;
            }
            // A run that lost all its dispatches (gap chain members moved on) leaves this
            // barrier with nothing before it since the last one: it separates nothing.
            const bool emptied =
                run_lost && out.size() == run_begin && (out.empty() || out.back().is_barrier());
            if (run_lost) replan_run(out, run_begin);
            run_lost = false;
            if (!emptied) out.push_back(node);
            run_begin = out.size();
            continue;
        }
        if (plan.action[p] == kKeep)
            out.push_back(node);
        else if (plan.action[p] != kDrop)
            out.push_back(std::move(applied[plan.action[p]].node));
        ++p;
    }
    if (run_lost) replan_run(out, run_begin);
}

void copy_nodes(const ComputeGraph& graph, std::vector<Node>& out) {
    out.reserve(graph.nodes.size());
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        // Copying a node counts a reference in each of its shared blocks, cold at 100k nodes.
        if (i + kPrefetchAheadShortWork < graph.nodes.size())
            prefetch_fields(graph.nodes[i + kPrefetchAheadShortWork]);
        out.push_back(graph.nodes[i]);
    }
}

}  // namespace graphlens::detail
