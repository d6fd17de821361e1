#pragma once
// Private to graphlens_graph: whether a chain of dispatches qualifies for a fusion recipe (the
// rules listed in graphlens/graph/fusion.h), and the reason when it does not.
#include <span>
#include <string>

#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/fusion.h"
#include "graphlens/graph/hazard_index.h"

namespace graphlens::detail {

/// "node 12 (blk.0.attn_q)"
std::string node_ref(const ComputeGraph& g, size_t i);
/// The node's label, or "node 12" when it has none.
std::string node_name(const ComputeGraph& g, size_t i);

class ChainMatcher {
  public:
    ChainMatcher(const ComputeGraph& g, const HazardIndex& hazards) : g_(g), hazards_(hazards) {}

    /// Empty when the chain qualifies for the recipe, else the reason it does not.
    std::string check(std::span<const size_t> chain, const FusionRecipe& recipe) const;

    /// The dispatch that makes the other operand of member chain[*recipe.sibling_of]: the
    /// latest RAW source of that member of op recipe.sibling_op, outside the chain, writing one
    /// range the member reads through a binding of its own; SIZE_MAX when there is none.
    size_t find_sibling(std::span<const size_t> chain, const FusionRecipe& recipe) const;

    /// Empty when `sibling` may join the fused node of `chain` (which already qualifies),
    /// else the reason it may not.
    std::string check_sibling(std::span<const size_t> chain, size_t sibling,
                              const FusionRecipe& recipe) const;

  private:
    std::string check_no_fence(std::span<const size_t> chain) const;
    /// Member k writes one range of the chain's layout (or converts it, where the recipe says
    /// so); `chain_out` is the layout the members' outputs must have, updated by conversions.
    std::string check_member_output(std::span<const size_t> chain, const FusionRecipe& recipe,
                                    size_t k, const TensorView*& chain_out) const;
    /// Member k+1 reads member k's output whole, with its layout, and nothing of an earlier
    /// member's output through another binding.
    std::string check_consumer_input(std::span<const size_t> chain, size_t k) const;
    /// Member k's output, not kept, may disappear: nothing else reads it and it is not needed
    /// after the graph.
    std::string check_output_dropped(std::span<const size_t> chain, size_t k) const;
    /// With gaps, every member but the last moves past the dispatches in between.
    std::string check_gaps(std::span<const size_t> chain) const;
    /// A kept output is not overwritten by a later member.
    std::string check_kept_outputs(std::span<const size_t> chain, const FusionRecipe& recipe) const;
    /// Empty unless the output of node p lies in an allocation the graph's caller reads or
    /// fills (input, output, KV cache): then the reason a fusion may not drop it.
    std::string needed_after_graph(size_t p) const;

    const ComputeGraph& g_;
    const HazardIndex& hazards_;
};

}  // namespace graphlens::detail
