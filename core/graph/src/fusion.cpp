#include "graphlens/graph/fusion.h"

#include <fmt/core.h>

#include <stdexcept>

#include "fusion_detail.h"
#include "fusion_emit.h"
#include "fusion_search.h"
#include "graphlens/graph/hazard_index.h"

namespace graphlens {

namespace {

void require_valid_siblings(std::span<const FusionRecipe> recipes) {
    for (const FusionRecipe& recipe : recipes)
        if (recipe.sibling_of &&
            (!recipe.gaps || *recipe.sibling_of == 0 || *recipe.sibling_of >= recipe.chain.size()))
            throw std::invalid_argument(
                fmt::format("fusion recipe {}: a sibling needs gaps and a member after the first",
                            recipe.pattern));
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
    require_valid_siblings(recipes);
    FusionResult result;
    ResultTables tables(graph, result.graph);
    const DispatchIndex index(graph);
    std::vector<AppliedFusion> applied =
        FusionSearch(graph, hazards, recipes, index).decide(tables, result.diagnostics);
    result.applied = applied.size();
    if (applied.empty()) {
        if (!copy_when_unchanged) return result;
        tables.get();
        copy_nodes(graph, result.graph.nodes);
        return result;
    }
    emit_fused(graph, index, applied, result.graph.nodes);
    return result;
}

}  // namespace graphlens
