#include "graphlens/graph/compute_graph.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_set>

#include "graph_validator.h"

namespace graphlens {

size_t ComputeGraph::dispatch_count() const {
    return static_cast<size_t>(
        std::count_if(nodes.begin(), nodes.end(), [](const Node& n) { return n.is_dispatch(); }));
}

size_t ComputeGraph::barrier_count() const {
    return nodes.size() - dispatch_count();
}

NodeId ComputeGraph::next_node_id() const {
    NodeId next = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
        if (i + kPrefetchAheadShortWork < nodes.size())
            nodes[i + kPrefetchAheadShortWork].origin.prefetch();
        if (i + kPrefetchAheadShortWork / 2 < nodes.size())
            nodes[i + kPrefetchAheadShortWork / 2].origin.prefetch_items();
        const Node& n = nodes[i];
        if (!n.is_dispatch()) continue;
        next = std::max(next, n.id + 1);
        for (NodeId o : n.origin) next = std::max(next, o + 1);
    }
    return next;
}

AllocationId ComputeGraph::add_allocation(std::string name, uint64_t size, AllocationUsage usage) {
    const auto id = static_cast<AllocationId>(allocations.size());
    allocations.push_back({id, size, std::move(name), usage});
    return id;
}

KernelId ComputeGraph::add_kernel(const KernelInfo& kernel) {
    for (size_t i = 0; i < kernels.size(); ++i)
        if (kernels[i].name == kernel.name) return static_cast<KernelId>(i);
    kernels.push_back(kernel);
    return static_cast<KernelId>(kernels.size() - 1);
}

void ComputeGraph::derive_ranges(Node& node) const {
    if (node.kernel >= kernels.size())
        throw std::out_of_range("dispatch '" + node.label + "' names kernel " +
                                std::to_string(node.kernel) + " but the graph has " +
                                std::to_string(kernels.size()));
    const KernelInfo& k = kernels[node.kernel];
    node.reads.clear();
    node.writes.clear();
    for (const auto& b : node.bindings) {
        const KernelBinding* kb = k.find_binding(b.set, b.binding);
        // An unreflected binding is treated as read-write: conservative, never unsafe.
        const BindingAccess access = kb ? kb->access : BindingAccess::read_write;
        if (access_reads(access)) node.reads.push_back(b.view.range());
        if (access_writes(access)) node.writes.push_back(b.view.range());
    }
}

size_t ComputeGraph::add_dispatch(Node node) {
    node.kind = NodeKind::dispatch;
    if (node.origin.empty()) {
        node.id = next_node_id();
        node.origin = {node.id};
    }
    if (!node.bindings.empty() && node.ranges_known) derive_ranges(node);
    nodes.push_back(std::move(node));
    return nodes.size() - 1;
}

size_t ComputeGraph::add_barrier() {
    nodes.push_back(Node::barrier());
    return nodes.size() - 1;
}

size_t ComputeGraph::add_barrier(BarrierScope scope) {
    barrier_scopes.push_back(std::move(scope));
    nodes.push_back(Node::barrier(static_cast<uint32_t>(barrier_scopes.size())));
    return nodes.size() - 1;
}

namespace detail {

GraphValidator::GraphValidator(const ComputeGraph& graph) : graph_(graph) {
    const auto& allocations = graph.allocations;
    for (size_t i = 0; i < allocations.size(); ++i)
        if (allocations[i].id != i)
            errors_.push_back("allocation " + std::to_string(i) + " has id " +
                              std::to_string(allocations[i].id));
    // Ids are dense in captures and passes: a table by id (grown as ids are met, one walk)
    // replaces a hash set (one heap block per id) for ids up to 4 per node; sparse foreign ids
    // above that go to the set. Each id has one home, so a second use is found either way.
    dense_limit_ = 4 * graph.nodes.size() + 1024;
    id_seen_.assign(graph.nodes.size(), 0);
    // The allocations' sizes in a table of their own, for the walk: 8 bytes an allocation
    // where an AllocationInfo takes 56 (thousands of allocations read in random order at 100k
    // dispatches).
    sizes_.resize(allocations.size());
    for (size_t a = 0; a < allocations.size(); ++a) sizes_[a] = allocations[a].size;
}

bool GraphValidator::first_use(NodeId id) {
    if (id > dense_limit_) return ids_.insert(id).second;
    if (id >= id_seen_.size())
        id_seen_.resize(
            std::min(dense_limit_ + 1, std::max<size_t>(size_t{id} + 1, 2 * id_seen_.size())), 0);
    const bool first = !id_seen_[id];
    id_seen_[id] = 1;
    return first;
}

// Reports a range that is not in_bounds.
void GraphValidator::report_range(size_t i, const ByteRange& r, const char* what) {
    const auto& allocations = graph_.allocations;
    if (r.allocation >= allocations.size()) {
        errors_.push_back("node " + std::to_string(i) + ": " + what + " range names allocation " +
                          std::to_string(r.allocation) + " which does not exist");
    } else if (r.begin > r.end || r.end > allocations[r.allocation].size) {
        errors_.push_back("node " + std::to_string(i) + ": " + what + " range [" +
                          std::to_string(r.begin) + ", " + std::to_string(r.end) +
                          ") lies outside allocation '" + allocations[r.allocation].name + "' of " +
                          std::to_string(allocations[r.allocation].size) + " bytes");
    }
}

void GraphValidator::barrier(size_t i) {
    const Node& n = graph_.nodes[i];
    if (n.barrier_scope() > graph_.barrier_scopes.size()) {
        errors_.push_back("node " + std::to_string(i) + ": barrier scope " +
                          std::to_string(n.barrier_scope() - 1) + " does not exist");
        return;
    }
    if (const BarrierScope* scope = graph_.scope_of(n))
        for (const auto& d : scope->dependencies) {
            if (d.range && !in_bounds(*d.range)) report_range(i, *d.range, "buffer barrier");
            if (d.event_set_at && *d.event_set_at > i)
                errors_.push_back("node " + std::to_string(i) + ": its event was set at node " +
                                  std::to_string(*d.event_set_at) + ", after the wait");
        }
}

void GraphValidator::node(size_t i) {
    const Node& n = graph_.nodes[i];
    if (n.is_barrier()) return barrier(i);
    if (!first_use(n.id))
        errors_.push_back("node " + std::to_string(i) + ": dispatch id " + std::to_string(n.id) +
                          " is used twice");
    if (n.kernel >= graph_.kernels.size())
        errors_.push_back("node " + std::to_string(i) + ": kernel " + std::to_string(n.kernel) +
                          " does not exist");
    for (const auto& r : n.reads)
        if (!in_bounds(r)) report_range(i, r, "read");
    for (const auto& r : n.writes)
        if (!in_bounds(r)) report_range(i, r, "write");
    for (const auto& b : n.bindings)
        if (!in_bounds(b.view.range())) report_range(i, b.view.range(), "binding");
}

}  // namespace detail

std::vector<std::string> ComputeGraph::validate() const {
    detail::GraphValidator validator(*this);
    for (size_t i = 0; i < nodes.size(); ++i) {
        if (i + kPrefetchAheadShortWork < nodes.size()) {
            const Node& ahead = nodes[i + kPrefetchAheadShortWork];
            ahead.reads.prefetch();
            ahead.writes.prefetch();
            detail::GraphValidator::prefetch_far(ahead);
        }
        if (i + kPrefetchAheadShortWork / 2 < nodes.size()) {
            const Node& ahead = nodes[i + kPrefetchAheadShortWork / 2];
            prefetch_ranges(ahead);
            detail::GraphValidator::prefetch_near(ahead);
        }
        validator.node(i);
    }
    return validator.take_errors();
}

ComputeGraph ComputeGraph::without_barriers() const {
    ComputeGraph g;
    g.allocations = allocations;
    g.kernels = kernels;
    g.metadata = metadata;
    g.barrier_scopes = {};
    g.unknown_workgroups = unknown_workgroups;
    g.nodes.reserve(nodes.size());
    for (const auto& n : nodes)
        if (n.is_dispatch()) g.nodes.push_back(n);
    return g;
}

}  // namespace graphlens
