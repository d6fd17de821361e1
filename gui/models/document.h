#pragma once
// The open document as every view sees it: the pass pipeline's stages, an analysis of each
// stage (groups, hazards, DAG levels, why each barrier is there) and the timings of up to two
// runs. Plain data built in the worker thread and handed to the UI as a shared pointer to
// const, so no view ever copies or mutates it. A large capture arrives in versions: first
// the captured stage alone (so the window is usable at once), then one more stage at a time.
#include <QMetaType>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "graphlens/graph/dependency_dag.h"
#include "graphlens/graph/hazard.h"
#include "graphlens/graph/hazard_index.h"
#include "graphlens/graph/pass_pipeline.h"
#include "graphlens/graph/race_finder.h"
#include "graphlens/graph/snapshot.h"
#include "graphlens/results/run_result.h"

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
    bool needed = false;  ///< the core's verdict (graphlens::explain_barriers), never derived here
    /// A recorded program's barrier orders only what its scope covers: the scope in words
    /// (describe_scope), empty for a full barrier (GraphLens's own plans emit only those).
    std::string scope;
    /// The scope orders less than a full barrier would (the schedule draws it dotted).
    bool partial = false;
    bool redundant() const { return !needed; }
};

struct StageAnalysis {
    size_t dispatch_count = 0;  ///< counted once here, so views never walk the graph for it
    size_t barrier_count = 0;
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
    /// Hazards that no barrier between their two commands orders, exactly as the core finds
    /// them (graphlens::find_races on the index `hazards` was copied from), in hazard order:
    /// each race's hazard_position indexes `hazards`, so every list points at the same ones.
    /// With full barriers only, these are the unsynchronised hazards.
    std::vector<Race> races;
    /// Per node index: how many races it is an end of; empty when the stage has no race.
    std::vector<uint32_t> race_count;
    std::unordered_map<NodeId, size_t> index_of_id;  ///< dispatch id -> node index

    // Where the schedule draws things, computed with the rest in the worker: at 100k dispatches
    // these arrays are megabytes of fresh memory, too slow to fill on the UI thread.
    std::vector<size_t> slot_in_group;  ///< per node index: its row in its group, 0 for barriers
    /// Per group: the barriers in the gap before it, as [begin, end) into `barriers` (a
    /// recorded program often has several in a row).
    std::vector<std::pair<size_t, size_t>> gap_barriers;
    /// Per group: node index of the first barrier of its gap that is not a duplicate, -1 if none.
    std::vector<long> barrier_before_group;
    size_t partial_barriers = 0;  ///< barriers whose scope orders less than a full barrier

    /// Node index of the dispatch with this id, or of the fused dispatch that absorbed it.
    std::optional<size_t> find(const ComputeGraph& graph, NodeId id) const;
    const BarrierExplanation* barrier_at(size_t node_index) const;
    /// Hazards with exactly one end in group `g`: into it (from earlier groups) and out of
    /// it (to later groups), each list in hazard order.
    std::pair<std::vector<size_t>, std::vector<size_t>> group_hazards(size_t g) const;
    size_t redundant_barriers() const;
    /// The race whose hazard is hazards[h] (an index into `races`), if that hazard is one.
    std::optional<size_t> race_of_hazard(size_t h) const;
    /// Races with node `node_index` at one end, as indices into `races`.
    std::vector<size_t> races_of_node(size_t node_index) const;
    size_t races_at(size_t node_index) const {
        return node_index < race_count.size() ? race_count[node_index] : 0;
    }
};

/// One stage of a document. Its name is known from the start; the snapshot and its analysis
/// arrive from the worker when that stage has been computed (both null until then). Shared
/// and immutable, so each newer version of a document shares every stage already there.
struct DocumentStage {
    std::string name;
    std::shared_ptr<const Snapshot> snapshot;
    std::shared_ptr<const StageAnalysis> analysis;
    bool ready() const { return snapshot && analysis; }
};

struct Document {
    /// Identifies one opening across the versions the worker publishes while stages arrive.
    uint64_t id = 0;
    std::string source;                   ///< file path, or a description of the built-in sample
    std::string title;                    ///< e.g. "llama-3.2-1b decode kv=512"
    std::vector<DocumentStage> stages;    ///< every stage, in pipeline order
    std::optional<RunResult> run;         ///< timings of the document itself
    std::optional<RunResult> second_run;  ///< a run loaded for comparison

    size_t stage_count() const { return stages.size(); }
    bool ready(size_t stage) const { return stage < stages.size() && stages[stage].ready(); }
    /// Every stage has arrived.
    bool complete() const;
    size_t ready_count() const;
    /// The snapshot and the analysis of a ready stage; throw std::logic_error otherwise.
    const Snapshot& snapshot(size_t stage) const;
    const StageAnalysis& analysis(size_t stage) const;
    /// The ready snapshots in order (for exports of a complete document).
    std::vector<Snapshot> ready_snapshots() const;
};
using DocumentPtr = std::shared_ptr<const Document>;

/// Gets the hazard analysis of a stage while analyse_stage has it, so a caller that needs more
/// from it (the captured stage's statistics) does not build it again.
using HazardAnalysisUse = std::function<void(const HazardIndex&, const DependencyDag&)>;

/// Analyses one stage. Costs about O(n log n + hazards) per allocation: run it in the worker
/// for large graphs.
StageAnalysis analyse_stage(const ComputeGraph& graph, const HazardAnalysisUse& also = {});
/// The pass pipeline with both reorders, so a user can compare them: the stages of a greedy
/// run (captured, fused, reordered (greedy), barriers planned, split) with the levels run's
/// "reordered (levels)" stage inserted after "reordered (greedy)". The planned and split stages
/// follow the greedy order (the default the CLI and the runner use). `options.reorder` is
/// ignored; both pipelines use the rest of `options`.
std::vector<Snapshot> run_passes_with_both_reorders(const ComputeGraph& captured,
                                                    PassOptions options);
/// Builds a complete document from stages, analysing each.
Document make_document(std::vector<Snapshot> stages, std::string source, std::string title);

/// Builds a document stage by stage, as the worker does when it opens a graph: `publish` gets
/// a first version as soon as the captured stage is analysed (every other stage named but not
/// ready), then a newer version each time one more stage is ready, in the order the passes
/// produce them (fused, reordered (greedy), barriers planned, split, then reordered (levels)).
/// The stages are those of run_passes_with_both_reorders. When `publish` returns false the
/// document is no longer wanted (a newer open superseded it) and building stops.
void build_document(ComputeGraph captured, const PassOptions& options, std::string source,
                    std::string title, std::optional<RunResult> run,
                    const std::function<bool(DocumentPtr)>& publish);

/// A new document id (for Document::id).
uint64_t next_document_id();

}  // namespace graphlens::gui

Q_DECLARE_METATYPE(graphlens::gui::DocumentPtr)
