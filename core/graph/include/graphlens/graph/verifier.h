#pragma once
// The verifier: proves a transformed schedule computes what the original order computes.
//
// Checks, given the original graph (its dispatch order; its barriers are ignored) and the
// transformed one (fused nodes name what they replace in Node::origin):
//   1. conservation: every original dispatch id appears in exactly one transformed dispatch's
//      origin, and no transformed dispatch names an unknown id;
//   2. order: for every hazard of the original's HazardIndex between dispatches that end up in
//      different transformed nodes, those nodes keep the order and have a barrier between;
//      hazards listed by the index imply all others (hazard_index.h), so this covers every
//      conflicting pair. A hazard whose bytes a fused node no longer touches (its internal
//      intermediate) is dropped, unless it is a RAW: a reader outside the chain would lose
//      the value it read;
//   3. fences: every original fence keeps its place among the fences and the dispatches of
//      each fenced segment stay in that segment, with barriers on both sides of each fence;
//   4. the transformed schedule is valid on its own: every hazard of its own order has a
//      barrier between its ends (catches new conflicts a fused kernel introduced).
#include <cstddef>
#include <string>
#include <vector>

#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/hazard_index.h"

namespace graphlens {

enum class ViolationKind : uint8_t {
    lost,             ///< an original dispatch is in no transformed node
    duplicated,       ///< an original dispatch is in several transformed nodes
    unknown,          ///< a transformed dispatch names an id the original does not have
    order,            ///< a hazard's ends are swapped
    missing_barrier,  ///< a hazard's ends are in one concurrency group
    lost_value,       ///< a reader outside a fused chain read an intermediate no longer written
    fence,            ///< a fence moved or a dispatch crossed it
};

struct Violation {
    ViolationKind kind = ViolationKind::lost;
    std::string message;  ///< names labels, ids, node indices, allocation and byte range
};

struct VerifyOptions {
    size_t max_violations = 20;  ///< stop collecting after this many
};

struct VerificationReport {
    std::vector<Violation> violations;  ///< the first ones found (max_violations)
    size_t hazards_checked = 0;
    bool ok() const { return violations.empty(); }
    /// "ok (N hazards checked)" or the violations, one per line.
    std::string summary() const;
};

VerificationReport verify_transformation(const ComputeGraph& original,
                                         const ComputeGraph& transformed,
                                         const VerifyOptions& options = {});

/// The same with the original's HazardIndex already computed (the pipeline verifies every
/// stage against one captured graph).
VerificationReport verify_transformation(const ComputeGraph& original,
                                         const HazardIndex& original_hazards,
                                         const ComputeGraph& transformed,
                                         const VerifyOptions& options = {});

}  // namespace graphlens
