// graphlens-cli dot: Graphviz DOT of a capture's dependency graph (graphlens/capture/dot_export.h),
// or with --svg the graph laid out by Graphviz's library and drawn as SVG
// (graphlens/capture/dependency_svg.h, the dependency view's layout code).
#include <fmt/core.h>

#include <fstream>
#include <memory>

#include "command.h"
#include "graphlens/capture/capture_file.h"
#include "graphlens/capture/dependency_svg.h"
#include "graphlens/capture/dot_export.h"
#include "graphlens/graph/pass_pipeline.h"
#include "graphlens/graph/pipeline_stage.h"
#include "graphlens/ops/fusion_recipes.h"

namespace graphlens::cli {
namespace {

struct DotArgs {
    std::string capture;
    std::string stage;
    std::string nodes;
    std::optional<size_t> layer;
    std::string output = "-";
    bool no_clusters = false;
    bool svg = false;
};

std::pair<size_t, size_t> parse_node_range(const std::string& text) {
    const auto dots = text.find("..");
    size_t first = 0, last = 0;
    try {
        if (dots == std::string::npos) throw std::invalid_argument("no ..");
        size_t used = 0;
        first = std::stoull(text.substr(0, dots), &used);
        if (used != dots) throw std::invalid_argument("junk");
        const std::string tail = text.substr(dots + 2);
        last = std::stoull(tail, &used);
        if (used != tail.size()) throw std::invalid_argument("junk");
    } catch (const std::exception&) {
        throw std::invalid_argument("--nodes expects A..B (node indices, inclusive), got '" + text +
                                    "'");
    }
    if (last < first) throw std::invalid_argument("--nodes A..B needs A <= B, got '" + text + "'");
    return {first, last};
}

/// The graph of the named stage: from the capture's snapshots, else from running the pipeline.
ComputeGraph stage_graph(const CaptureDocument& doc, const std::string& stage) {
    if (stage.empty() || stage == pipeline_stage_name(PipelineStage::captured)) return doc.graph;
    std::vector<Snapshot> computed;
    if (doc.snapshots.empty()) {
        PassOptions o;
        o.recipes = ops::fusion_recipes();
        computed = PassPipeline::run(doc.graph, o);
    }
    const auto& snaps = doc.snapshots.empty() ? computed : doc.snapshots;
    std::string names;
    for (const Snapshot& s : snaps) {
        if (s.stage == stage || s.stage.rfind(stage, 0) == 0) return s.graph;
        names += (names.empty() ? "" : ", ") + s.stage;
    }
    throw std::invalid_argument("no stage '" + stage + "' (stages: " + names + ")");
}

int run_dot(const DotArgs& a) {
    const CaptureDocument doc = load_capture(a.capture);
    DotOptions o;
    o.title =
        a.capture + ": " +
        (a.stage.empty() ? std::string(pipeline_stage_name(PipelineStage::captured)) : a.stage);
    if (!a.nodes.empty()) o.node_range = parse_node_range(a.nodes);
    o.layer = a.layer;
    o.cluster_groups = !a.no_clusters;
    const ComputeGraph graph = stage_graph(doc, a.stage);
    const std::string dot = a.svg ? dependency_svg(graph, o) : dependency_dot(graph, o);
    if (a.output == "-") {
        fmt::print("{}", dot);
        return 0;
    }
    std::ofstream f(a.output, std::ios::binary | std::ios::trunc);
    if (!f || !f.write(dot.data(), static_cast<std::streamsize>(dot.size())))
        throw std::runtime_error("cannot write " + a.output);
    return 0;
}

const RegisterCommand dot_registration{
    "dot", [](CLI::App& app) -> std::function<int()> {
        app.description(
            "Graphviz DOT of the dependency graph: edges coloured by hazard (RAW blue, WAR "
            "orange, WAW vermilion) and labelled with byte ranges; render with dot -Tsvg");
        auto args = std::make_shared<DotArgs>();
        app.add_option("capture", args->capture, "capture file (graphlens-capture JSON)")
            ->required();
        app.add_option("--stage", args->stage,
                       "pass stage (captured, fused, reordered, barriers planned, split; a "
                       "prefix is enough)");
        auto* nodes = app.add_option("--nodes", args->nodes, "node index range A..B (inclusive)");
        app.add_option("--layer", args->layer, "only dispatches of layer blk.N")->excludes(nodes);
        app.add_option("-o,--output", args->output, "output file ('-' = stdout)");
        app.add_flag("--no-clusters", args->no_clusters, "do not box concurrency groups");
        app.add_flag("--svg", args->svg,
                     "write SVG laid out by Graphviz's dot library (no dot program needed; "
                     "groups are not boxed)");
        return [args] { return run_dot(*args); };
    }};

}  // namespace
}  // namespace graphlens::cli
