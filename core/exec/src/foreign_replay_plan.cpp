// The modes of a recorded program's replay: names, the device they need, and each mode's plan.
#include "exec/src/foreign_replay_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "graphlens/graph/pass_pipeline.h"
#include "graphlens/graph/pipeline_stage.h"
#include "graphlens/vulkan/command_encoder.h"

namespace graphlens {
namespace {

constexpr std::pair<ForeignMode, std::string_view> kForeignModeNames[] = {
    {ForeignMode::as_recorded, "as-recorded"},
    {ForeignMode::one_submission, "one-submission"},
    {ForeignMode::per_op_submit, "per-op-submit"},
    {ForeignMode::serial, "serial"},
    {ForeignMode::elided, "elided"},
    {ForeignMode::greedy, "greedy"},
    {ForeignMode::levels, "levels"},
    {ForeignMode::levels_split, "levels+split"},
    {ForeignMode::levels_stream, "levels+stream"},
    {ForeignMode::levels_parallel, "levels+parallel"},
    {ForeignMode::levels_ahead, "levels+ahead"},
};

std::string valid_names() {
    std::string out;
    for (const auto& [m, name] : kForeignModeNames)
        out += (out.empty() ? "" : ", ") + std::string(name);
    return out;
}

// One segment per recorded submission (their first nodes are the cuts); the whole graph when
// the capture states none.
std::vector<ForeignSegment> submission_segments(const ComputeGraph& g,
                                                const std::vector<CaptureSubmission>& subs) {
    std::vector<size_t> cuts{0};
    for (const auto& s : subs)
        if (s.first_node > cuts.back() && s.first_node < g.nodes.size())
            cuts.push_back(s.first_node);
    cuts.push_back(g.nodes.size());
    std::vector<ForeignSegment> out;
    for (size_t i = 0; i + 1 < cuts.size(); ++i) out.push_back({cuts[i], cuts[i + 1], true});
    return out;
}

ComputeGraph planned_graph(const ComputeGraph& captured, ReorderMode reorder,
                           const ForeignRunOptions& o, size_t* split_first) {
    PassOptions po;
    po.fuse = false;  // no fusion recipes apply to another program's kernels
    po.recipes.clear();
    po.reorder = reorder;
    po.window = o.greedy_window;
    po.split.min_first = o.split_min_first;
    po.split.first_fraction = o.split_fraction;
    const auto snaps = PassPipeline::run(captured, po);
    const Snapshot* planned = find_stage(snaps, PipelineStage::barriers_planned);
    if (!planned) throw std::logic_error("pass pipeline produced no 'barriers planned' stage");
    if (split_first) {
        const Snapshot* split = find_stage(snaps, PipelineStage::split);
        *split_first = split ? split->split_first_dispatches : 0;
    }
    return planned->graph;
}

}  // namespace

std::string_view foreign_mode_name(ForeignMode m) {
    for (const auto& [mode, name] : kForeignModeNames)
        if (mode == m) return name;
    return "?";
}

std::vector<ForeignMode> all_foreign_modes() {
    std::vector<ForeignMode> out;
    for (const auto& [m, name] : kForeignModeNames) out.push_back(m);
    return out;
}

std::vector<ForeignMode> parse_foreign_modes(std::string_view list) {
    if (list == "all") return all_foreign_modes();
    std::vector<ForeignMode> out;
    size_t start = 0;
    while (start <= list.size()) {
        const size_t end = std::min(list.find(',', start), list.size());
        const std::string_view item = list.substr(start, end - start);
        start = end + 1;
        if (item.empty()) continue;
        const auto it = std::find_if(std::begin(kForeignModeNames), std::end(kForeignModeNames),
                                     [&](const auto& p) { return p.second == item; });
        if (it != std::end(kForeignModeNames)) {
            if (std::find(out.begin(), out.end(), it->first) == out.end()) out.push_back(it->first);
            continue;
        }
        if (item == "fused")
            throw std::invalid_argument(
                "--modes: 'fused' does not apply to a recorded program: GraphLens has no fusion "
                "recipes for its kernels (greedy and levels run with fusion off); modes: " +
                valid_names());
        throw std::invalid_argument(fmt::format(
            "--modes: unknown mode '{}' for a recorded program; modes: {}", item, valid_names()));
    }
    return out;
}

DeviceRequirements foreign_requirements(const ComputeGraph& graph, const CaptureSource* source) {
    DeviceRequirements r;
    if (source) {
        r.extensions = source->device_extensions;
        r.features = source->features;
    }
    const bool subgroup = std::any_of(graph.kernels.begin(), graph.kernels.end(),
                                      [](const KernelInfo& k) { return k.required_subgroup_size; });
    auto require = [&](const char* feature) {
        if (std::find(r.features.begin(), r.features.end(), feature) == r.features.end())
            r.features.push_back(feature);
    };
    if (subgroup) require("subgroupSizeControl");
    // Buffers the program gave device addresses get them in the replay too (DeviceMemory).
    if (std::any_of(graph.allocations.begin(), graph.allocations.end(),
                    [](const AllocationInfo& a) { return a.device_address; }))
        require("bufferDeviceAddress");
    return r;
}

ForeignPlan plan_foreign_mode(const ComputeGraph& captured, ForeignMode mode,
                              const ForeignRunOptions& o) {
    ForeignPlan p;
    p.mode = mode;
    const size_t n = captured.nodes.size();
    switch (mode) {
        case ForeignMode::as_recorded:
            p.graph = captured;
            p.barriers = ForeignBarriers::recorded_no_submit;
            p.segments = submission_segments(captured, o.submissions);
            p.wait_between = true;
            return p;
        case ForeignMode::one_submission:
        case ForeignMode::serial:
        case ForeignMode::elided:
            p.graph = captured;
            p.barriers = mode == ForeignMode::one_submission ? ForeignBarriers::recorded
                         : mode == ForeignMode::serial       ? ForeignBarriers::every_command
                                                             : ForeignBarriers::recompute;
            p.segments = {{0, n, true}};
            return p;
        case ForeignMode::per_op_submit:
            p.graph = captured;
            p.barriers = ForeignBarriers::none;
            for (size_t i = 0; i < n; ++i)
                if (captured.nodes[i].is_dispatch()) p.segments.push_back({i, i + 1, true});
            p.wait_between = true;
            return p;
        default:
            break;
    }
    size_t split_first = 0;
    p.graph = planned_graph(captured,
                            mode == ForeignMode::greedy ? ReorderMode::greedy : ReorderMode::levels,
                            o, &split_first);
    p.barriers = ForeignBarriers::planned;
    const size_t m = p.graph.nodes.size();
    if (mode == ForeignMode::levels_split) {
        const size_t cut = node_index_after_dispatches(
            p.graph, split_first ? split_first : dual_buffer_split(p.graph.dispatch_count()));
        p.segments = {{0, cut, true}, {cut, m, true}};
    } else if (mode == ForeignMode::levels_stream) {
        const auto chunks = align_stream_chunks(
            p.graph,
            stream_chunk_dispatches(p.graph.dispatch_count(), o.stream_first, o.stream_growth));
        size_t begin = 0, done = 0;
        for (size_t c = 0; c < chunks.size(); ++c) {
            done += chunks[c];
            const bool last = c + 1 == chunks.size();
            const size_t end = last ? m : node_index_after_dispatches(p.graph, done);
            p.segments.push_back({begin, end, c == 0 || last});
            begin = end;
        }
    } else if (mode == ForeignMode::levels_parallel) {
        p.submission = ForeignSubmission::parallel;
        p.threads = o.parallel_threads
                        ? o.parallel_threads
                        : std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
        const std::vector<size_t> bounds = parallel_slice_bounds(p.graph, p.threads);
        for (size_t i = 0; i + 1 < bounds.size(); ++i)
            p.segments.push_back({bounds[i], bounds[i + 1], false});
    } else {
        p.submission = mode == ForeignMode::levels_ahead ? ForeignSubmission::ahead
                                                         : ForeignSubmission::buffers;
        p.segments = {{0, m, true}};
    }
    p.segments.erase(std::remove_if(p.segments.begin(), p.segments.end(),
                                    [](const ForeignSegment& s) { return s.first >= s.last; }),
                     p.segments.end());
    if (p.segments.empty()) p.segments = {{0, m, true}};
    return p;
}

}  // namespace graphlens
