#pragma once
// The fusion pass: a table of op-chain patterns, each with a fused kernel.
//
// A chain is a run of consecutive dispatches (barriers between them allowed) whose ops match
// the recipe. It fuses only when:
//   - each member writes exactly one range and the next member reads that range as one of its
//     bindings, byte for byte (the intermediate; "ranges line up");
//   - every member's output has the chain's shape and dtype, and is read with it;
//   - no member reads an earlier member's output through any other binding (the fused kernel
//     reads its inputs before that output exists); in-place writes over a member's own
//     inputs are allowed, as the fused kernels are elementwise;
//   - no dispatch other than the next member reads an intermediate before it is overwritten,
//     and no intermediate lies in an allocation with usage output / input / kv_cache (it
//     would be needed after the graph ends);
//   - no member is a fence;
//   - the recipe has a builder and the builder accepts the chain.
// Every candidate that fails one of these is a FusionDiagnostic with the reason, naming the
// nodes by label and index. A recipe without a builder is reported "matched, fused kernel not
// available" and not applied. Barriers between the members of an applied chain are dropped;
// the fused node takes the chain's place, a new id, and origin = union of the chain's origins.
// A dropped barrier also separated other dispatches (interleaved chains), so each run between
// kept barriers that lost one is re-planned from its ranges; other barriers stay as captured.
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "graphlens/compute_graph.h"
#include "graphlens/hazard_index.h"
#include "graphlens/kernel_info.h"
#include "graphlens/op_kind.h"
#include "graphlens/snapshot.h"

namespace graphlens {

/// What a builder makes of a matched chain: the fused dispatch (bindings, push constants,
/// workgroups, op; ranges, id and origin are filled by the pass) and its kernel.
struct FusedDispatch {
    Node node;
    KernelInfo kernel;
};

struct FusionBuildResult {
    std::optional<FusedDispatch> fused;
    std::string reason;  ///< why not, when fused is empty
};

/// Builds the fused dispatch from the chain (node indices into graph, in order).
using FusionBuilder =
    std::function<FusionBuildResult(const ComputeGraph& graph, std::span<const size_t> chain)>;

struct FusionRecipe {
    std::string pattern;        ///< e.g. "rms_norm→mul"
    std::vector<OpKind> chain;  ///< ops of the chain, in order
    OpKind fused_op = OpKind::other;
    std::string fused_kernel;  ///< kernel name the builder produces
    FusionBuilder build;       ///< empty: fused kernel not available
};

/// rms_norm→mul→add, rms_norm→mul, add chains of 8 down to 2 adds (→ multi_add), gelu→mul,
/// silu→mul; longest patterns first. No builders (the kernel library provides those).
std::vector<FusionRecipe> default_fusion_recipes();

struct FusionResult {
    ComputeGraph graph;
    std::vector<FusionDiagnostic> diagnostics;  ///< applied fusions and near misses
    size_t applied = 0;
};

/// Matches recipes in table order at each position (first match wins) and never mutates
/// `graph`.
FusionResult fuse(const ComputeGraph& graph, std::span<const FusionRecipe> recipes);
/// The same with the graph's HazardIndex already built.
FusionResult fuse(const ComputeGraph& graph, const HazardIndex& hazards,
                  std::span<const FusionRecipe> recipes);

}  // namespace graphlens
