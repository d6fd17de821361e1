// graphlens-cli passes: run the pass pipeline on a capture file or a synthetic graph and print
// what every stage did.
#include <fmt/core.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "command.h"
#include "graphlens/capture/capture_file.h"
#include "graphlens/capture/internal_stages_text.h"
#include "graphlens/graph/internal_stages.h"
#include "graphlens/graph/pass_pipeline.h"
#include "graphlens/graph/race_finder.h"
#include "graphlens/graph/verifier.h"
#include "graphlens/ops/fusion_recipes.h"
#include "graphlens/synthetic/synthetic_graphs.h"

namespace graphlens::cli {
namespace {

struct PassesArgs {
    std::string capture;
    std::string synthetic;
    size_t nodes = 1000;
    uint64_t seed = 1;
    std::string reorder = "greedy";
    size_t window = 64;
    bool no_fuse = false;
    bool match_only = false;
    bool refuse_unknown = false;
    size_t show_fusions = 0;
    size_t show_races = 20;
    size_t show_stages = 0;
    bool fail_on_race = false;
    std::string save;
};

ComputeGraph synthetic_graph(const PassesArgs& a) {
    if (a.synthetic == "transformer") {
        TransformerGraphOptions o;
        o.layers = std::max<size_t>(
            1, a.nodes > kTransformerExtraDispatches
                   ? (a.nodes - kTransformerExtraDispatches) / kTransformerDispatchesPerLayer
                   : 1);
        return transformer_graph(o);
    }
    RandomGraphOptions o;
    o.seed = a.seed;
    o.dispatches = a.nodes;
    o.allocations = std::max<size_t>(2, a.nodes / 16);
    o.allocation_size = 4096;
    // As GraphSession would capture it: a barrier wherever the next dispatch conflicts.
    PassOptions plan_only;
    plan_only.fuse = false;
    plan_only.reorder = ReorderMode::none;
    plan_only.verify = false;
    return PassPipeline::run(random_graph(o), plan_only).back().graph;
}

// The table of stages; races per stage come from find_races, the same function the reports
// and the GUI use.
void print_stages(const std::vector<Snapshot>& snapshots, const std::vector<size_t>& races) {
    fmt::print("{:<20} {:>10} {:>9} {:>6} {:>8} {:>6} {:>9} {:>6} {:>11} {:>11} {:>9}\n", "stage",
               "dispatches", "barriers", "races", "groups", "mean", "reordered", "fused",
               "near misses", "lower bound", "ms");
    for (size_t k = 0; k < snapshots.size(); ++k) {
        const Snapshot& s = snapshots[k];
        const size_t applied = static_cast<size_t>(std::count_if(
            s.fusions.begin(), s.fusions.end(), [](const auto& f) { return f.applied; }));
        fmt::print("{:<20} {:>10} {:>9} {:>6} {:>8} {:>6.2f} {:>9} {:>6} {:>11} {:>11} {:>9.2f}\n",
                   s.stage, s.stats.dispatches, s.stats.barriers, races[k], s.stats.groups,
                   s.stats.mean_group_size, s.reordered, applied, s.fusions.size() - applied,
                   s.stats.barrier_lower_bound, s.pass_ms);
    }
}

// What the verifier says of each stage against the capture: every hazard kept, or which not.
void print_verification(const ComputeGraph& captured, const HazardIndex& hazards,
                        const std::vector<Snapshot>& snapshots) {
    for (size_t k = 1; k < snapshots.size(); ++k) {
        const VerificationReport r = verify_transformation(captured, hazards, *snapshots[k].graph);
        fmt::print(
            "verifier [{}]: {}\n", snapshots[k].stage,
            r.ok() ? fmt::format("every hazard of the capture kept ({} checked)", r.hazards_checked)
                   : r.summary());
    }
}

void print_races(const std::vector<Race>& races, size_t shown) {
    fmt::print("races of the captured schedule (hazards no barrier orders): {}\n", races.size());
    for (size_t k = 0; k < races.size() && k < shown; ++k)
        fmt::print("  {}\n", races[k].explanation);
    if (races.size() > shown) fmt::print("  ... {} more (--show-races)\n", races.size() - shown);
}

// The internal stages of the first `shown` nodes of the final stage whose kernels order stages
// inside one dispatch (graphlens/graph/internal_stages.h, as the GUI's node pane shows them).
void print_internal_stages(const Snapshot& last, size_t shown) {
    const ComputeGraph& g = *last.graph;
    std::vector<size_t> nodes;
    for (size_t i = 0; i < g.nodes.size(); ++i)
        if (has_internal_stages(g, i)) nodes.push_back(i);
    fmt::print(
        "nodes with internal stages in stage '{}' (ordered inside the dispatch by "
        "arrival counters, no barrier): {}\n",
        last.stage, nodes.size());
    for (size_t k = 0; k < nodes.size() && k < shown; ++k) {
        const Node& n = g.nodes[nodes[k]];
        fmt::print("  #{} {} ({})\n", nodes[k], std::string_view(n.label),
                   g.kernels[n.kernel].name);
        for (const std::string& line : internal_stages_lines(g, internal_stages(g, nodes[k])))
            fmt::print("    {}\n", line);
    }
    if (nodes.size() > shown) fmt::print("  ... {} more (--show-stages)\n", nodes.size() - shown);
}

int run_passes(const PassesArgs& a) {
    if (a.capture.empty() == a.synthetic.empty())
        throw std::invalid_argument("give either a capture file or --synthetic, not both");
    CaptureDocument doc;
    if (a.capture.empty())
        doc.graph = synthetic_graph(a);
    else
        doc = load_capture(a.capture);
    const ComputeGraph& graph = doc.graph;
    PassOptions o;
    o.fuse = !a.no_fuse;
    o.recipes = ops::fusion_recipes();
    if (a.match_only)  // the same patterns, each reported as matched and none applied
        for (FusionRecipe& r : o.recipes) r.build = nullptr;
    const auto mode = reorder_mode_from_name(a.reorder);
    if (!mode) throw std::invalid_argument("--reorder must be none, greedy or levels");
    o.reorder = *mode;
    o.window = a.window;
    o.unknown_ranges = a.refuse_unknown ? UnknownRanges::refuse : UnknownRanges::as_fence;
    auto snapshots = PassPipeline::run(graph, o);

    fmt::print("{}: {} dispatches, {} allocations, {} kernels\n",
               a.capture.empty() ? "synthetic " + a.synthetic : a.capture, graph.dispatch_count(),
               graph.allocations.size(), graph.kernels.size());
    // The captured graph's index serves its races, its stage's count and every verification.
    const HazardIndex captured_hazards(graph);
    const std::vector<Race> races = find_races(graph, captured_hazards);
    std::vector<size_t> race_counts;
    for (const Snapshot& s : snapshots)
        race_counts.push_back(s.graph.base().get() == &graph && !s.graph.order()
                                  ? races.size()
                                  : find_races(*s.graph).size());
    print_stages(snapshots, race_counts);
    for (const Snapshot& s : snapshots)
        for (const std::string& d : s.diagnostics) fmt::print("[{}] {}\n", s.stage, d);
    print_verification(graph, captured_hazards, snapshots);
    print_races(races, a.show_races);
    const Snapshot& last = snapshots.back();
    fmt::print("fences: {}, hazards: {}, first command buffer: {} dispatches\n", last.stats.fences,
               last.stats.hazards, last.split_first_dispatches);
    size_t shown = 0;
    for (const Snapshot& s : snapshots)
        for (const FusionDiagnostic& f : s.fusions) {
            if (shown++ >= a.show_fusions) break;
            fmt::print("  {} {:<18} {}\n", f.applied ? "fused" : "miss ", f.pattern,
                       f.applied ? fmt::format("-> id {}", f.fused_id) : f.reason);
        }
    if (a.show_stages > 0) print_internal_stages(snapshots.back(), a.show_stages);
    if (!a.save.empty()) {
        doc.snapshots = std::move(snapshots);
        save_capture(doc, a.save);
        fmt::print("saved the capture with every stage's schedule to {}\n", a.save);
    }
    if (a.fail_on_race && !races.empty()) {
        fmt::print(stderr, "error: {} race(s) in the captured schedule (--fail-on-race)\n",
                   races.size());
        return 1;
    }
    return 0;
}

const RegisterCommand passes_registration{
    "passes", [](CLI::App& app) -> std::function<int()> {
        app.description(
            "Run fuse → reorder → plan barriers → split on a capture or a synthetic graph and "
            "print every stage (each stage is verified against the capture)");
        auto args = std::make_shared<PassesArgs>();
        app.add_option("capture", args->capture, "capture file (graphlens-capture JSON)");
        app.add_option("--synthetic", args->synthetic, "generate a graph instead")
            ->check(CLI::IsMember({"transformer", "random"}));
        app.add_option("--nodes", args->nodes, "dispatches of the synthetic graph")
            ->check(CLI::Range(size_t{1}, size_t{10'000'000}));
        app.add_option("--seed", args->seed, "seed of the random graph");
        app.add_option("--reorder", args->reorder, "none, greedy or levels")
            ->check(CLI::IsMember({"none", "greedy", "levels"}));
        app.add_option("--window", args->window, "greedy lookahead")
            ->check(CLI::Range(size_t{1}, size_t{1'000'000}));
        app.add_flag("--no-fuse", args->no_fuse, "skip the fusion pass");
        app.add_flag("--match-only", args->match_only,
                     "report fusion matches without the kernel library's fused kernels");
        app.add_flag("--refuse-unknown-ranges", args->refuse_unknown,
                     "fail instead of treating dispatches with unknown ranges as fences");
        app.add_option("--show-fusions", args->show_fusions,
                       "print this many fusion results and near misses with their reasons");
        app.add_option("--show-races", args->show_races,
                       "print this many races of the captured schedule (default 20)");
        app.add_option("--show-stages", args->show_stages,
                       "print the internal stages (bindings, bytes, hazards their arrival "
                       "counters order) of this many nodes of the final stage");
        app.add_flag("--fail-on-race", args->fail_on_race,
                     "exit 1 when the captured schedule has a race (for a program's own CI)");
        app.add_option("--save", args->save,
                       "write the capture with every stage's schedule (its snapshots) to FILE");
        return [args] { return run_passes(*args); };
    }};

}  // namespace
}  // namespace graphlens::cli
