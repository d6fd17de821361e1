#pragma once
// Private to graphlens_graph: the first half of the fusion pass, deciding which chains fuse.
// It walks the dispatches once, tries at each position the recipes that can start there, and
// builds the fused node of each chain that qualifies; fusion_emit.h then writes the graph.
#include <array>
#include <optional>
#include <span>
#include <vector>

#include "fusion_chain_matcher.h"
#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/fusion.h"
#include "graphlens/graph/hazard_index.h"
#include "graphlens/graph/op_kind.h"

namespace graphlens::detail {

/// The dispatches of a graph in order, compact: the matcher compares the ops of consecutive
/// dispatches without reading their nodes (72 bytes each and cold at 100k).
struct DispatchIndex {
    explicit DispatchIndex(const ComputeGraph& graph);
    std::vector<size_t> dispatches;  ///< [position] = node index
    std::vector<OpKind> ops;         ///< [position] = the op of that dispatch
    /// [node index] = its dispatch position, UINT32_MAX for barriers (32 bits: half the table
    /// to fill at 100k nodes).
    std::vector<uint32_t> position_of;
};

/// A chain that fuses: its members' dispatch positions (sorted) and the node replacing them.
struct AppliedFusion {
    std::vector<size_t> positions;
    bool gaps = false;
    Node node;
};

/// Copies the input graph's tables into the result at the first need: at the first applied
/// fusion (its kernel and ranges) or for the emitted graph.
class ResultTables {
  public:
    ResultTables(const ComputeGraph& input, ComputeGraph& result) : in_(input), out_(result) {}
    ComputeGraph& get();

  private:
    const ComputeGraph& in_;
    ComputeGraph& out_;
    bool copied_ = false;
};

class FusionSearch {
  public:
    FusionSearch(const ComputeGraph& graph, const HazardIndex& hazards,
                 std::span<const FusionRecipe> recipes, const DispatchIndex& index);

    /// The chains that fuse, in order of their first position; every applied fusion and the
    /// longest near miss of each other position go to `diagnostics`.
    std::vector<AppliedFusion> decide(ResultTables& tables,
                                      std::vector<FusionDiagnostic>& diagnostics);

  private:
    /// The positions where some recipe may match, the only ones visited (and asked of the
    /// memory ahead).
    std::vector<uint32_t> start_positions() const;
    /// The members of `recipe` starting at position p: consecutive dispatches, or with gaps
    /// each member's first reader; false when the ops do not match.
    bool candidate(const FusionRecipe& recipe, size_t p, std::vector<size_t>& chain) const;
    /// The reason the candidate chain does not fuse, empty when it qualifies.
    std::string reject_reason(const FusionRecipe& recipe, std::span<const size_t> chain) const;
    /// The fused node of a qualifying chain, from the recipe's builder; std::nullopt with
    /// `reason` set when the builder declines.
    std::optional<Node> build(const FusionRecipe& recipe, std::span<const size_t> chain,
                              ResultTables& tables, std::string& reason);
    /// Marks the chain's positions consumed and returns its record.
    AppliedFusion mark_applied(const FusionRecipe& recipe, std::span<const size_t> chain,
                               Node node);
    /// Asks the memory for what the matcher reads at the starts ahead of start j.
    void prefetch_ahead(std::span<const uint32_t> starts, size_t j) const;

    const ComputeGraph& graph_;
    const HazardIndex& hazards_;
    std::span<const FusionRecipe> recipes_;
    const DispatchIndex& index_;
    ChainMatcher matcher_;
    /// The recipes by the op of their first member, in table order.
    std::array<std::vector<uint32_t>, kOpKindCount> by_first_op_;
    std::vector<char> consumed_;     ///< [position] = a member of an applied chain
    std::optional<NodeId> next_id_;  ///< next_node_id() walks every node: asked once needed
};

}  // namespace graphlens::detail
