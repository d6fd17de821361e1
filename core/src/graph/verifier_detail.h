#pragma once
// Private to graphlens_graph: verification with analyses the pass pipeline already holds.
#include "graphlens/hazard_index.h"
#include "graphlens/verifier.h"

namespace graphlens::detail {

/// verify_transformation, given the hazard analysis of `transformed` itself when the caller
/// has one (nullptr: the verifier computes it only if its schedule could hold a hazard inside a
/// concurrency group). Same report as the public function.
VerificationReport verify_transformation(const ComputeGraph& original,
                                         const HazardIndex& original_hazards,
                                         const ComputeGraph& transformed,
                                         const HazardIndex* transformed_hazards,
                                         const VerifyOptions& options = {});

}  // namespace graphlens::detail
