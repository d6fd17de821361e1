// The core graph's nodes and barrier scopes from the records kept while the range was open
// (recorded_node.h), built once when the capture is written: the same Nodes the recording
// would have built one by one.
#include "layer/src/graph_builder.h"

namespace graphlens::layer {
namespace {

TensorView byte_view(const ByteRange& r) {
    TensorView v;
    v.allocation = r.allocation;
    v.offset = r.begin;
    v.size = r.size();
    v.dtype = DType::u8;
    v.shape = {static_cast<int64_t>(r.size()), 1, 1, 1};
    return v;
}

}  // namespace

Node GraphBuilder::dispatch_node(const RecordedNode& record, NodeId id, size_t index,
                                 size_t& next_indirect) const {
    Node node;
    node.id = id;
    node.origin = {id};
    node.label = labels_[record.label];
    node.kernel = record.kernel;
    node.workgroups = record.workgroups;
    node.ranges_known = record.ranges_known;
    const RecordedPayload& payload = payloads_[record.payload];
    if (!payload.push_constants.empty())
        node.push_constants =
            std::vector<uint8_t>(payload.push_constants.begin(), payload.push_constants.end());
    if (!payload.bindings.empty()) {
        std::vector<BoundView> views;
        views.reserve(payload.bindings.size());
        for (const RecordedView& v : payload.bindings)
            views.emplace_back(v.binding, byte_view(v.bytes), v.set);
        node.bindings = std::move(views);
    }
    if (!payload.reads.empty())
        node.reads = std::vector<ByteRange>(payload.reads.begin(), payload.reads.end());
    if (!payload.writes.empty())
        node.writes = std::vector<ByteRange>(payload.writes.begin(), payload.writes.end());
    if (record.reads_indirect_args) {
        // The ranges of an indirect dispatch are stated directly: its bindings' and the
        // arguments it reads. A kernel with descriptor arrays has its ranges stated already
        // and no bindings to derive them from.
        while (indirect_[next_indirect].index < index) ++next_indirect;
        if (!node.bindings.empty()) {
            graph_.derive_ranges(node);
            node.bindings.clear();
        }
        node.reads.push_back(*indirect_[next_indirect].args);
    }
    return node;
}

void GraphBuilder::build_nodes() {
    if (nodes_built_) return;
    nodes_built_ = true;
    graph_.nodes.reserve(nodes_.size());
    graph_.barrier_scopes.reserve(barriers_.size());
    NodeId id = 0;
    size_t next_indirect = 0;
    for (size_t i = 0; i < nodes_.size(); ++i) {
        const RecordedNode& record = nodes_[i];
        if (record.kind == NodeKind::dispatch) {
            graph_.add_dispatch(dispatch_node(record, id++, i, next_indirect));
            continue;
        }
        const RecordedBarrier& b = barriers_[record.kernel];
        BarrierScope scope;
        scope.origin = b.origin;
        scope.note = barrier_notes_[b.note];
        scope.dependencies.assign(b.dependencies.begin(), b.dependencies.end());
        graph_.add_barrier(std::move(scope));
    }
}

}  // namespace graphlens::layer
