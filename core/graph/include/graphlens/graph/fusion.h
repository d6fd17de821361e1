#pragma once
// The fusion pass: a table of op-chain patterns, each with a fused kernel.
//
// A chain is a run of consecutive dispatches (barriers between them allowed) whose ops match
// the recipe. It fuses only when:
//   - each member writes exactly one range and the next member reads that range as one of its
//     bindings, byte for byte (the intermediate; "ranges line up");
//   - every member's output has the chain's dtype and number of elements, and is read with
//     them (views are contiguous: a reshape is the same values in the same order), except
//     that a member the recipe marks converting (a copy f32→f16) may change the dtype: it
//     must read nothing but the intermediate and write as many elements;
//   - no member reads an earlier member's output through any other binding (the fused kernel
//     reads its inputs before that output exists); in-place writes over a member's own
//     inputs are allowed, as the fused kernels are elementwise;
//   - no dispatch other than the next member reads an intermediate before it is overwritten,
//     and no intermediate lies in an allocation with usage output / input / kv_cache (it
//     would be needed after the graph ends) -- unless the recipe marks it a kept output: the
//     fused kernel still writes it, to the same bytes with the same values, so later readers
//     and the end of the graph see it as before (the residual sum of add→rms_norm→mul);
//     a kept output must not be overwritten by a later member of the chain;
//   - no member is a fence;
//   - the recipe has a builder and the builder accepts the chain.
// A recipe marked `gaps` matches members that are not consecutive (each the first reader of
// the previous member's output); its fused node takes the last member's place, which is valid
// when no dispatch in a gap conflicts with an earlier member.
// A recipe with a sibling also takes in the dispatch that makes a binary member's other
// operand (the up projection beside gate→silu→mul): it joins the fusion when it writes only
// that operand, nothing else reads it, it is no fence, it has no hazard with a chain member
// but that read, and nothing between it and the fused node's place conflicts with it.
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

#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/hazard_index.h"
#include "graphlens/graph/kernel_info.h"
#include "graphlens/graph/op_kind.h"
#include "graphlens/graph/snapshot.h"

namespace graphlens {

/// Zeroed memory a fused kernel needs for itself beside its members' buffers, e.g. the arrival
/// counters with which its last workgroup finds out that all the others are done. fuse() adds
/// an allocation of `bytes` (usage scratch, named `name`) to the fused graph and binds all of
/// it at `binding` as u32. The executor creates such allocations zeroed
/// (DeviceMemory::add_missing_scratch), and the kernel must leave them zeroed, so that the
/// graph runs again as it is.
struct FusionScratch {
    uint32_t binding = 0;
    uint64_t bytes = 0;
    std::string name;
};

/// What a builder makes of a matched chain: the fused dispatch (bindings, push constants,
/// workgroups, op; ranges, id and origin are filled by the pass) and its kernel.
struct FusedDispatch {
    Node node;
    KernelInfo kernel;
    std::vector<FusionScratch> scratch = {};
};

struct FusionBuildResult {
    std::optional<FusedDispatch> fused;
    std::string reason;  ///< why not, when fused is empty
};

/// Builds the fused dispatch from the chain (node indices into graph, in order).
using FusionBuilder =
    std::function<FusionBuildResult(const ComputeGraph& graph, std::span<const size_t> chain)>;

/// One row of a fusion table. The graph layer holds no table: the kernels that fused chains run
/// are a workload's, so is the table (the LLM workload's: ops::fusion_recipes(),
/// graphlens/ops/fusion_recipes.h).
struct FusionRecipe {
    std::string pattern;        ///< e.g. "rms_norm→mul"
    std::vector<OpKind> chain;  ///< ops of the chain, in order
    OpKind fused_op = OpKind::other;
    std::string fused_kernel;  ///< kernel name the builder produces
    FusionBuilder build;       ///< empty: fused kernel not available
    /// Members (indices into chain, not the last) whose output the fused kernel still writes,
    /// byte for byte the same values: other dispatches may read it later and it may lie in an
    /// allocation needed after the graph. The builder must bind it as an output.
    std::vector<size_t> kept_outputs = {};
    /// Members (indices into chain, not the first) that only convert the dtype of the
    /// intermediate they read (copy f32→f16): they may change the dtype, nothing else.
    std::vector<size_t> converting = {};
    /// Members need not be consecutive: the next member is the first dispatch after a member
    /// that reads its output (interleaved q and k chains). Dispatches in the gaps must not
    /// conflict with any earlier member (the fused node takes the last member's place) and
    /// must not be fences.
    bool gaps = false;
    /// The member (index into chain, a binary op) whose other operand is made by a sibling
    /// dispatch of op `sibling_op` that joins the fusion; the builder gets the sibling after
    /// the chain's members. Needs `gaps` (the fused node takes the last member's place, the
    /// sibling moves there too) and a member after the first: fuse() throws
    /// std::invalid_argument for a recipe without. A chain whose operand has no such maker does
    /// not match.
    std::optional<size_t> sibling_of = std::nullopt;
    OpKind sibling_op = OpKind::other;
};

struct FusionResult {
    /// When nothing applied (applied == 0): a copy of the input graph, the same nodes sharing
    /// their payloads, and the same allocations, kernels and metadata.
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
