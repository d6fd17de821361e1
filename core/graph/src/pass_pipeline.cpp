#include "graphlens/graph/pass_pipeline.h"
#include "graphlens/graph/pipeline_stage.h"

#include <fmt/core.h>

#include <memory>
#include <optional>
#include <stdexcept>

#include "pipeline_run.h"
#include "stage_scan.h"

namespace graphlens {

std::string_view reorder_mode_name(ReorderMode m) {
    switch (m) {
        case ReorderMode::none:
            return "none";
        case ReorderMode::greedy:
            return "greedy";
        case ReorderMode::levels:
            return "levels";
    }
    return "none";
}

std::optional<ReorderMode> reorder_mode_from_name(std::string_view name) {
    for (ReorderMode m : {ReorderMode::none, ReorderMode::greedy, ReorderMode::levels})
        if (reorder_mode_name(m) == name) return m;
    return std::nullopt;
}

StageDiff diff_stages(const ComputeGraph& before, const ComputeGraph& after) {
    return detail::diff_scans(detail::scan_stage(before), detail::scan_stage(after));
}

namespace {

/// Refuses a reorder of dispatches with unknown ranges when the options say so.
void check_unknown_ranges(const ComputeGraph& captured, const PassOptions& options) {
    if (options.reorder != ReorderMode::none && options.unknown_ranges == UnknownRanges::refuse) {
        for (size_t i = 0; i < captured.nodes.size(); ++i) {
            const Node& n = captured.nodes[i];
            if (n.is_dispatch() && !n.ranges_known)
                throw std::invalid_argument(fmt::format(
                    "cannot reorder: node {} '{}' (id {}) has unknown ranges; capture its ranges "
                    "or run with reorder none",
                    i, n.label, n.id));
        }
    }
}

}  // namespace

std::vector<Snapshot> PassPipeline::run(const ComputeGraph& captured, const PassOptions& options) {
    check_unknown_ranges(captured, options);
    // The stages keep a copy of the capture: the one copy the pipeline makes.
    return run(std::make_shared<const ComputeGraph>(captured), options);
}

std::vector<Snapshot> PassPipeline::run(std::shared_ptr<const ComputeGraph> shared_capture,
                                        const PassOptions& options) {
    if (!shared_capture) throw std::invalid_argument("PassPipeline::run: no captured graph");
    check_unknown_ranges(*shared_capture, options);
    detail::PipelineRun run(std::move(shared_capture), options);
    run.captured();
    if (options.fuse)
        run.fused();
    else
        run.capture_as_base();
    if (options.reorder != ReorderMode::none) run.reordered();
    run.barriers_planned();
    run.split();
    return run.take_snapshots();
}

}  // namespace graphlens
