#include "models/document.h"

#include "models/barrier_scope_text.h"

#include "graphlens/graph/dependency_dag.h"
#include "graphlens/graph/hazard_index.h"
#include "graphlens/graph/pipeline_stage.h"
#include "graphlens/graph/schedule_analysis.h"
#include "graphlens/graph/verifier.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string_view>

namespace graphlens::gui {

std::optional<size_t> StageAnalysis::find(const ComputeGraph& graph, NodeId id) const {
    if (auto it = index_of_id.find(id); it != index_of_id.end()) return it->second;
    // Absorbed by a fusion: the fused dispatch lists the id among its origins.
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node& n = graph.nodes[i];
        if (n.is_dispatch() && std::find(n.origin.begin(), n.origin.end(), id) != n.origin.end())
            return i;
    }
    return std::nullopt;
}

std::pair<std::vector<size_t>, std::vector<size_t>> StageAnalysis::group_hazards(size_t g) const {
    std::vector<size_t> in, out;
    for (size_t n : group_nodes[g]) {
        for (size_t h : hazards_in[n])
            if (group[hazards[h].earlier] != int(g)) in.push_back(h);
        for (size_t h : hazards_out[n])
            if (group[hazards[h].later] != int(g)) out.push_back(h);
    }
    std::sort(in.begin(), in.end());
    std::sort(out.begin(), out.end());
    return {std::move(in), std::move(out)};
}

const BarrierExplanation* StageAnalysis::barrier_at(size_t node_index) const {
    auto it =
        std::lower_bound(barriers.begin(), barriers.end(), node_index,
                         [](const BarrierExplanation& b, size_t i) { return b.node_index < i; });
    return it != barriers.end() && it->node_index == node_index ? &*it : nullptr;
}

size_t StageAnalysis::redundant_barriers() const {
    return static_cast<size_t>(std::count_if(barriers.begin(), barriers.end(),
                                             [](const auto& b) { return b.redundant(); }));
}

std::optional<size_t> StageAnalysis::race_of_hazard(size_t h) const {
    auto it = std::lower_bound(races.begin(), races.end(), h,
                               [](const Race& r, size_t p) { return r.hazard_position < p; });
    if (it == races.end() || it->hazard_position != h) return std::nullopt;
    return static_cast<size_t>(it - races.begin());
}

std::vector<size_t> StageAnalysis::races_of_node(size_t node_index) const {
    std::vector<size_t> out;
    if (races_at(node_index) == 0) return out;
    for (size_t r = 0; r < races.size(); ++r)
        if (races[r].hazard.earlier == node_index || races[r].hazard.later == node_index)
            out.push_back(r);
    return out;
}

bool Document::complete() const {
    return ready_count() == stages.size();
}

size_t Document::ready_count() const {
    return static_cast<size_t>(
        std::count_if(stages.begin(), stages.end(), [](const auto& s) { return s.ready(); }));
}

const Snapshot& Document::snapshot(size_t stage) const {
    if (!ready(stage))
        throw std::logic_error("stage " + std::to_string(stage) + " of '" + title +
                               "' is not computed yet");
    return *stages[stage].snapshot;
}

const StageAnalysis& Document::analysis(size_t stage) const {
    if (!ready(stage))
        throw std::logic_error("stage " + std::to_string(stage) + " of '" + title +
                               "' is not computed yet");
    return *stages[stage].analysis;
}

std::vector<Snapshot> Document::ready_snapshots() const {
    std::vector<Snapshot> out;
    for (const DocumentStage& s : stages)
        if (s.ready()) out.push_back(*s.snapshot);
    return out;
}

uint64_t next_document_id() {
    static std::atomic<uint64_t> next{1};
    return next++;
}

namespace {

// Why each barrier is there, as the core explains it to the CLI and the reports; the index
// the hazard positions refer to is the one a.hazards was copied from.
void explain_stage_barriers(const ComputeGraph& graph, const HazardIndex& index, StageAnalysis& a) {
    const std::vector<graphlens::BarrierExplanation> core = explain_barriers(graph, index);
    const size_t n = graph.nodes.size();
    size_t next = 0;
    int last_group = -1;
    bool after_barrier = false;
    for (size_t i = 0; i < n; ++i) {
        if (graph.nodes[i].is_dispatch()) {
            last_group = a.group[i];
            after_barrier = false;
            continue;
        }
        BarrierExplanation b;
        b.node_index = i;
        b.group_before = last_group;
        b.duplicate = after_barrier;
        after_barrier = true;
        for (size_t j = i + 1; j < n; ++j)
            if (graph.nodes[j].is_dispatch()) {
                b.group_after = a.group[j];
                break;
            }
        while (next < core.size() && core[next].barrier < i) ++next;
        if (next >= core.size() || core[next].barrier != i)
            throw std::logic_error("analyse_stage: the core explains no barrier at node " +
                                   std::to_string(i));
        b.forcing = core[next].hazard_positions;
        b.fenced = !core[next].fences.empty();
        b.needed = !core[next].redundant;
        if (const BarrierScope* scope = graph.scope_of(graph.nodes[i])) {
            b.scope = describe_scope(graph, *scope);
            b.partial = scope_is_partial(*scope);
        }
        a.barriers.push_back(std::move(b));
    }
}

// The core's races on the same index, so their hazard positions are positions in a.hazards.
void find_stage_races(const ComputeGraph& graph, const HazardIndex& index, StageAnalysis& a) {
    a.races = find_races(graph, index);
    if (a.races.empty()) return;
    a.race_count.assign(graph.nodes.size(), 0);
    for (const Race& r : a.races) {
        ++a.race_count[r.hazard.earlier];
        ++a.race_count[r.hazard.later];
    }
}

}  // namespace

namespace {

// Per group, which barriers stand in the gap before it, for the schedule's lines and hits.
void index_barrier_gaps(StageAnalysis& a) {
    a.gap_barriers.assign(a.group_nodes.size(), {0, 0});
    a.barrier_before_group.assign(a.group_nodes.size(), -1);
    for (size_t k = 0; k < a.barriers.size(); ++k) {
        const BarrierExplanation& b = a.barriers[k];
        a.partial_barriers += b.partial;
        if (b.group_after < 0) continue;
        const auto g = static_cast<size_t>(b.group_after);
        if (a.gap_barriers[g].second == 0) a.gap_barriers[g].first = k;
        a.gap_barriers[g].second = k + 1;
        if (!b.duplicate && a.barrier_before_group[g] < 0)
            a.barrier_before_group[g] = static_cast<long>(b.node_index);
    }
}

}  // namespace

StageAnalysis analyse_stage(const ComputeGraph& graph, const HazardAnalysisUse& also) {
    StageAnalysis a;
    const size_t n = graph.nodes.size();
    a.group.assign(n, -1);
    a.level.assign(n, -1);
    a.slot_in_group.assign(n, 0);
    a.hazards_in.resize(n);
    a.hazards_out.resize(n);

    bool open = false;
    for (size_t i = 0; i < n; ++i) {
        const Node& node = graph.nodes[i];
        if (node.is_barrier()) {
            ++a.barrier_count;
            open = false;
            continue;
        }
        ++a.dispatch_count;
        if (!open) a.group_nodes.emplace_back();
        open = true;
        a.group[i] = static_cast<int>(a.group_nodes.size()) - 1;
        a.slot_in_group[i] = a.group_nodes.back().size();
        a.group_nodes.back().push_back(i);
        a.index_of_id.emplace(node.id, i);
    }

    // The core's analysis, so the GUI counts hazards, redundant barriers and races exactly as
    // the CLI and the reports do.
    const HazardIndex index(graph);
    a.hazards = index.hazards();
    for (size_t h = 0; h < a.hazards.size(); ++h) {
        a.hazards_in[a.hazards[h].later].push_back(h);
        a.hazards_out[a.hazards[h].earlier].push_back(h);
    }
    const DependencyDag dag(graph, index);
    for (size_t i = 0; i < n; ++i)
        if (graph.nodes[i].is_dispatch()) a.level[i] = static_cast<int>(dag.levels()[i]);
    a.level_count = static_cast<int>(dag.depth());
    a.barrier_lower_bound = dag.barrier_lower_bound();
    if (also) also(index, dag);

    explain_stage_barriers(graph, index, a);
    index_barrier_gaps(a);
    find_stage_races(graph, index, a);
    for (size_t h = 0; h < a.hazards.size(); ++h)
        if (a.group[a.hazards[h].earlier] == a.group[a.hazards[h].later])
            a.unsynchronised.push_back(h);
    return a;
}

namespace {

DocumentStage ready_stage(Snapshot snapshot, StageAnalysis analysis) {
    DocumentStage s;
    s.name = snapshot.stage;
    s.snapshot = std::make_shared<const Snapshot>(std::move(snapshot));
    s.analysis = std::make_shared<const StageAnalysis>(std::move(analysis));
    return s;
}

const char* const kLevelsNote =
    "an alternative to the greedy order: diff against the stage before the reorder; "
    "the planned and split stages follow the greedy order";

}  // namespace

std::vector<Snapshot> run_passes_with_both_reorders(const ComputeGraph& captured,
                                                    PassOptions options) {
    options.reorder = ReorderMode::greedy;
    std::vector<Snapshot> stages = PassPipeline::run(captured, options);
    // Only the levels stage is kept from the second run; the passes before it are the same
    // deterministic ones, so its diff is against the stage the greedy one follows too.
    PassOptions levels = options;
    levels.reorder = ReorderMode::levels;
    std::vector<Snapshot> second = PassPipeline::run(captured, levels);
    const auto named = [](const std::vector<Snapshot>& v, PipelineStage stage) {
        return std::find_if(v.begin(), v.end(), [&](const Snapshot& s) {
            return s.stage == pipeline_stage_name(stage);
        });
    };
    const auto levels_stage = named(second, PipelineStage::reordered_levels);
    const auto greedy_stage = named(stages, PipelineStage::reordered_greedy);
    if (levels_stage == second.end() || greedy_stage == stages.end())
        throw std::logic_error("pass pipeline: a run with a reorder produced no reordered stage");
    Snapshot s = std::move(*levels_stage);
    s.diagnostics.push_back(kLevelsNote);
    stages.insert(greedy_stage + 1, std::move(s));
    return stages;
}

Document make_document(std::vector<Snapshot> stages, std::string source, std::string title) {
    Document d;
    d.id = next_document_id();
    d.source = std::move(source);
    d.title = std::move(title);
    d.stages.reserve(stages.size());
    for (Snapshot& s : stages) {
        StageAnalysis a = analyse_stage(s.graph);
        d.stages.push_back(ready_stage(std::move(s), std::move(a)));
    }
    return d;
}

void build_document(ComputeGraph captured, const PassOptions& options, std::string source,
                    std::string title, std::optional<RunResult> run,
                    const std::function<bool(DocumentPtr)>& publish) {
    using Clock = std::chrono::steady_clock;
    Document doc;
    doc.id = next_document_id();
    doc.source = std::move(source);
    doc.title = std::move(title);
    doc.run = std::move(run);
    // The names run_passes_with_both_reorders gives its stages, known before any pass ran.
    std::vector<PipelineStage> names = {PipelineStage::captured};
    if (options.fuse) names.push_back(PipelineStage::fused);
    names.insert(names.end(), {PipelineStage::reordered_greedy, PipelineStage::reordered_levels,
                               PipelineStage::barriers_planned, PipelineStage::split});
    for (PipelineStage n : names)
        doc.stages.push_back({std::string(pipeline_stage_name(n)), nullptr, nullptr});
    auto place = [&](Snapshot s, StageAnalysis a) {
        for (DocumentStage& slot : doc.stages)
            if (slot.name == s.stage && !slot.ready()) {
                slot = ready_stage(std::move(s), std::move(a));
                return publish(std::make_shared<const Document>(doc));
            }
        throw std::logic_error("pass pipeline: unexpected stage '" + s.stage + "'");
    };

    // The captured stage as the pipeline describes it (stats, validation notes), from the one
    // hazard analysis the views need anyway: the window can show it before any pass ran.
    const auto t0 = Clock::now();
    Snapshot first;
    first.stage = pipeline_stage_name(PipelineStage::captured);
    first.graph = std::move(captured);
    first.diagnostics = first.graph->validate();
    StageAnalysis first_analysis =
        analyse_stage(first.graph, [&](const HazardIndex& index, const DependencyDag& dag) {
            first.stats = schedule_stats(first.graph, index, dag);
            if (!schedule_is_valid(first.graph, index))
                first.diagnostics.push_back(
                    "the captured schedule is not barrier-complete: " +
                    verify_transformation(first.graph, index, first.graph).summary());
        });
    first.pass_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (!place(std::move(first), std::move(first_analysis))) return;
    const ComputeGraph& graph = doc.stages.front().snapshot->graph;

    PassOptions greedy = options;
    greedy.reorder = ReorderMode::greedy;
    std::vector<Snapshot> stages = PassPipeline::run(graph, greedy);
    stages.erase(stages.begin());  // its own copy of the captured stage
    for (Snapshot& s : stages) {
        StageAnalysis a = analyse_stage(s.graph);
        if (!place(std::move(s), std::move(a))) return;
    }
    stages.clear();

    // The levels reorder from a second pipeline run; only its reordered stage is kept (the
    // passes before it are the same deterministic ones, so its diff is against the fused
    // stage shown above it).
    PassOptions levels = options;
    levels.reorder = ReorderMode::levels;
    std::vector<Snapshot> second = PassPipeline::run(graph, levels);
    auto it = std::find_if(second.begin(), second.end(), [](const Snapshot& s) {
        return s.stage == pipeline_stage_name(PipelineStage::reordered_levels);
    });
    if (it == second.end())
        throw std::logic_error("pass pipeline: a run with a reorder produced no reordered stage");
    Snapshot s = std::move(*it);
    second.clear();
    s.diagnostics.push_back(kLevelsNote);
    StageAnalysis a = analyse_stage(s.graph);
    place(std::move(s), std::move(a));
}

}  // namespace graphlens::gui
