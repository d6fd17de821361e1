#pragma once
// Private to graphlens_graph: the fusion pass for a caller that keeps the input graph itself
// when nothing fuses (the pass pipeline over a shared capture), so that the pass does not copy
// it.
#include <span>

#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/fusion.h"
#include "graphlens/graph/hazard_index.h"

namespace graphlens::detail {

/// fuse(graph, hazards, recipes); when nothing applied and !copy_when_unchanged, the result's
/// graph is left empty instead of being a copy of `graph` (the diagnostics are the same).
FusionResult fuse(const ComputeGraph& graph, const HazardIndex& hazards,
                  std::span<const FusionRecipe> recipes, bool copy_when_unchanged);

}  // namespace graphlens::detail
