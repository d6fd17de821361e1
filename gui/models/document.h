#pragma once
// The open document as every view sees it: the pass pipeline's stages, an analysis of each
// stage (groups, hazards, DAG levels, why each barrier is there) and the timings of up to two
// runs. Plain data built in the worker thread and handed to the UI as a shared pointer to
// const, so no view ever copies or mutates it.
#include <QMetaType>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "graphlens/hazard.h"
#include "graphlens/pass_pipeline.h"
#include "graphlens/run_result.h"
#include "graphlens/snapshot.h"

namespace graphlens::gui {

/// Why one barrier exists: the hazards between the group just before it and the group just
/// after it. Hazards that reach further back are already separated by an earlier barrier, so
/// a barrier with no such hazard could be removed without breaking anything ("redundant").
struct BarrierExplanation {
    size_t node_index = 0;
    int group_before = -1;        ///< -1 when the barrier opens the graph
    int group_after = -1;         ///< -1 when the barrier closes the graph
    std::vector<size_t> forcing;  ///< indices into StageAnalysis::hazards
    bool fenced = false;     ///< next to a fence (a dispatch with unknown ranges): always needed
    bool duplicate = false;  ///< directly follows another barrier
    bool redundant() const { return forcing.empty() && !fenced; }
};

struct StageAnalysis {
    std::vector<int> group;  ///< per node index: concurrency group, -1 for barriers
    std::vector<std::vector<size_t>> group_nodes;  ///< per group: node indices in order
    std::vector<Hazard> hazards;  ///< every hazard between dispatches, sorted by (later, earlier)
    std::vector<std::vector<size_t>> hazards_in;   ///< per node index: hazards where it is later
    std::vector<std::vector<size_t>> hazards_out;  ///< per node index: hazards where it is earlier
    std::vector<int> level;  ///< per node index: ASAP level in the hazard DAG, -1 for barriers
    int level_count = 0;
    size_t barrier_lower_bound = 0;            ///< fewest barriers any valid order needs
    std::vector<BarrierExplanation> barriers;  ///< one per barrier node, in order
    /// Hazards whose two dispatches share a group: no barrier orders them (a broken schedule,
    /// or a stage before barriers were planned).
    std::vector<size_t> unsynchronised;
    std::unordered_map<NodeId, size_t> index_of_id;  ///< dispatch id -> node index

    /// Node index of the dispatch with this id, or of the fused dispatch that absorbed it.
    std::optional<size_t> find(const ComputeGraph& graph, NodeId id) const;
    const BarrierExplanation* barrier_at(size_t node_index) const;
    size_t redundant_barriers() const;
};

struct Document {
    std::string source;  ///< file path, or a description of the built-in sample
    std::string title;   ///< e.g. "llama-3.2-1b decode kv=512"
    std::vector<Snapshot> stages;
    std::vector<StageAnalysis> analyses;  ///< one per stage
    std::optional<RunResult> run;         ///< timings of the document itself
    std::optional<RunResult> second_run;  ///< a run loaded for comparison
};
using DocumentPtr = std::shared_ptr<const Document>;

/// Analyses one stage. Costs about O(n log n + hazards) per allocation: run it in the worker
/// for large graphs.
StageAnalysis analyse_stage(const ComputeGraph& graph);
/// The pass pipeline with both reorders, so a user can compare them: the stages of a greedy
/// run (captured, fused, reordered (greedy), barriers planned, split) with the levels run's
/// "reordered (levels)" stage inserted after "reordered (greedy)". The planned and split stages
/// follow the greedy order (the default the CLI and the runner use). `options.reorder` is
/// ignored; both pipelines use the rest of `options`.
std::vector<Snapshot> run_passes_with_both_reorders(const ComputeGraph& captured,
                                                    PassOptions options);
/// Builds a document from stages, analysing each.
Document make_document(std::vector<Snapshot> stages, std::string source, std::string title);

}  // namespace graphlens::gui

Q_DECLARE_METATYPE(graphlens::gui::DocumentPtr)
