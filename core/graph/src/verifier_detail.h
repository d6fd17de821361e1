#pragma once
// Private to graphlens_graph: verification with analyses the pass pipeline already holds.
#include <cstdint>
#include <optional>
#include <vector>

#include "graphlens/graph/hazard_index.h"
#include "graphlens/graph/snapshot.h"
#include "graphlens/graph/verifier.h"

namespace graphlens::detail {

/// How the nodes of one graph stand for the original's dispatches: the conservation check
/// (verifier check 1) of that graph, kept in compact tables. The pass pipeline's reordered,
/// planned and split stages are orders over the nodes of one such graph (the capture, or the
/// fused stage's graph when something fused), so each of them is mapped from these tables and
/// its order instead of from its nodes' ids and origins.
struct BaseMap {
    enum Kind : uint8_t { plain = 0, fused = 1, barrier = 2 };
    std::vector<uint32_t> holder;  ///< original node index -> base node index, or UINT32_MAX
    std::vector<uint8_t> kind;     ///< base node index -> Kind
    bool has_fused = false;        ///< some base node stands for several original dispatches
};

/// What the verifier needs from the original's nodes, computed once when one original is
/// checked against several transformed graphs (the pipeline's stages).
struct OriginalTables {
    explicit OriginalTables(const ComputeGraph& original);
    std::vector<uint32_t> index_of_id;  ///< NodeId -> node index of that dispatch, or UINT32_MAX
    /// [node index] = SharedVector::payload_id() of the dispatch's origin list when it is
    /// exactly {its id}, else nullptr. A transformed node sharing that list is a copy standing
    /// for that dispatch alone. Kept here, 8 bytes a node, so the check reads no original node.
    std::vector<const void*> plain_origin;
    size_t dispatches = 0;   ///< dispatch nodes of the original
    bool has_fence = false;  ///< some dispatch is a fence
    /// The map of the original's own nodes (of a copy of the original: same indices) when
    /// every dispatch has a unique id and the origin {its id}; else none.
    std::optional<BaseMap> identity;
};

/// The map of `base` against the original, from its nodes; none when base itself does not
/// conserve the original's dispatches (a lost, duplicated or unknown one), so that checks
/// of orders over it read their nodes and report what is wrong.
std::optional<BaseMap> map_base(const ComputeGraph& original, const ComputeGraph& base,
                                const OriginalTables& tables);

/// A transformed schedule: a graph's nodes in their order, or the order of a pipeline stage
/// over them (StageGraph::order(): node indices of `graph`, StageGraph::kBarrier a barrier).
struct Schedule {
    const ComputeGraph& graph;
    const std::vector<uint32_t>* order = nullptr;  ///< nullptr: graph.nodes as they stand

    size_t size() const { return order ? order->size() : graph.nodes.size(); }
    /// The node at position t of the schedule.
    const Node& node(size_t t) const;
};

/// verify_transformation, given the hazard analysis of `transformed` itself when the caller
/// has one (nullptr: the verifier computes it only if its schedule could hold a hazard inside a
/// concurrency group; by positions of the schedule), and the map of transformed.graph when
/// the caller has one (check 1 then reads the order and the map, not the nodes). Same report
/// as the public function.
VerificationReport verify_transformation(
    const ComputeGraph& original, const HazardIndex& original_hazards, const Schedule& transformed,
    const HazardIndex* transformed_hazards, const VerifyOptions& options = {},
    const OriginalTables* original_tables = nullptr, const BaseMap* base_map = nullptr);

}  // namespace graphlens::detail
