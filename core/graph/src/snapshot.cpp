#include "graphlens/graph/snapshot.h"

#include <mutex>
#include <optional>
#include <utility>

#include "stage_order.h"

namespace graphlens {

struct StageGraph::Ordered {
    std::vector<uint32_t> order;
    std::once_flag made_once;
    std::optional<ComputeGraph> made;
};

namespace {

const std::shared_ptr<const ComputeGraph>& empty_graph() {
    static const std::shared_ptr<const ComputeGraph> none = std::make_shared<const ComputeGraph>();
    return none;
}

}  // namespace

StageGraph::StageGraph() : base_(empty_graph()) {}

StageGraph::StageGraph(ComputeGraph graph)
    : base_(std::make_shared<const ComputeGraph>(std::move(graph))) {}

StageGraph::StageGraph(std::shared_ptr<const ComputeGraph> graph)
    : base_(graph ? std::move(graph) : empty_graph()) {}

StageGraph::StageGraph(std::shared_ptr<const ComputeGraph> base, std::vector<uint32_t> order)
    : StageGraph(std::move(base)) {
    ordered_ = std::make_shared<Ordered>();
    ordered_->order = std::move(order);
}

const std::vector<uint32_t>* StageGraph::order() const {
    return ordered_ ? &ordered_->order : nullptr;
}

const ComputeGraph& StageGraph::get() const {
    if (!ordered_) return *base_;
    std::call_once(ordered_->made_once, [this] {
        ordered_->made.emplace(detail::graph_of_order(*base_, ordered_->order));
    });
    return *ordered_->made;
}

}  // namespace graphlens
