#pragma once
// Private to graphlens_graph: verification with analyses the pass pipeline already holds.
#include <cstdint>
#include <vector>

#include "graphlens/hazard_index.h"
#include "graphlens/verifier.h"

namespace graphlens::detail {

/// What the verifier needs from the original's nodes, computed once when one original is
/// checked against several transformed graphs (the pipeline's stages).
struct OriginalTables {
    explicit OriginalTables(const ComputeGraph& original);
    std::vector<uint32_t> index_of_id;  ///< NodeId -> node index of that dispatch, or UINT32_MAX
    /// [node index] = the dispatch's origin list when it is exactly {its id}, else empty. A
    /// transformed node sharing that list (SharedVector::shares_with) is a copy standing for
    /// that dispatch alone. Kept here, 8 bytes a node, so the check reads no original node.
    std::vector<SharedVector<NodeId>> plain_origin;
    size_t dispatches = 0;   ///< dispatch nodes of the original
    bool has_fence = false;  ///< some dispatch is a fence
};

/// verify_transformation, given the hazard analysis of `transformed` itself when the caller
/// has one (nullptr: the verifier computes it only if its schedule could hold a hazard inside a
/// concurrency group). Same report as the public function.
VerificationReport verify_transformation(const ComputeGraph& original,
                                         const HazardIndex& original_hazards,
                                         const ComputeGraph& transformed,
                                         const HazardIndex* transformed_hazards,
                                         const VerifyOptions& options = {},
                                         const OriginalTables* original_tables = nullptr);

}  // namespace graphlens::detail
