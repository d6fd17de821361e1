// The whole pass pipeline on the CPU (hazards + fuse + reorder + plan + split + verify) on
// transformer-shaped and random graphs of 1k, 10k and 100k dispatches.
// Counters: CPU time per dispatch, heap growth while the snapshots are alive (MB, mallinfo2),
// max RSS of the process, and the barrier counts of the capture order, greedy, levels and the
// lower bound side by side.
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>

#include "graphlens/graph/barrier_planner.h"
#include "graphlens/graph/dependency_dag.h"
#include "graphlens/graph/pass_pipeline.h"
#include "graphlens/graph/reorder_greedy.h"
#include "graphlens/graph/reorder_levels.h"
#include "graphlens/synthetic/synthetic_graphs.h"
#include "graphlens/graph/verifier.h"
#include "graphlens/ops/fusion_recipes.h"

namespace {
using namespace graphlens;

ComputeGraph transformer_of(size_t dispatches) {
    TransformerGraphOptions o;
    o.layers = (dispatches - kTransformerExtraDispatches) / kTransformerDispatchesPerLayer;
    return transformer_graph(o);
}

ComputeGraph random_of(size_t dispatches) {
    RandomGraphOptions o;
    o.seed = 2024;
    o.dispatches = dispatches;
    // A fixed density of conflicts per dispatch: allocations grow with the graph.
    o.allocations = dispatches / 16;
    o.allocation_size = 4096;
    o.barrier_probability = 0.0;
    return plan_barriers(random_graph(o));  // captured with encode-time barriers
}

/// Bytes currently allocated by malloc (heap in use).
size_t heap_in_use() {
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

void run_pipeline(benchmark::State& state, const std::shared_ptr<const ComputeGraph>& shared,
                  ReorderMode mode) {
    const ComputeGraph& g = *shared;
    PassOptions o;
    o.recipes = ops::fusion_recipes();
    o.reorder = mode;
    o.verify = true;
    size_t peak_growth = 0;
    size_t barriers = 0;
    for (auto _ : state) {
        const size_t before = heap_in_use();
        // The capture shared with the pipeline, as a caller that owns it passes it (no copy).
        auto snapshots = PassPipeline::run(shared, o);
        // Everything the pipeline keeps is alive here: the snapshots of every stage.
        peak_growth = std::max(peak_growth, heap_in_use() - before);
        barriers = snapshots.back().stats.barriers;
        benchmark::DoNotOptimize(snapshots);
    }
    const double n = static_cast<double>(g.dispatch_count());
    state.counters["dispatches"] = n;
    state.counters["ns_per_dispatch"] = benchmark::Counter(
        static_cast<double>(state.iterations()) * n,
        benchmark::Counter::kIsRate | benchmark::Counter::kInvert, benchmark::Counter::kIs1000);
    state.counters["heap_MB"] = static_cast<double>(peak_growth) / 1e6;
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    state.counters["maxrss_MB"] = static_cast<double>(ru.ru_maxrss) / 1e3;
    state.counters["barriers"] = static_cast<double>(barriers);
    state.counters["captured_barriers"] = static_cast<double>(g.barrier_count());
    // Both reorders side by side in every row (measured once per graph, outside the timing).
    static std::map<const ComputeGraph*, std::pair<size_t, size_t>> reorder_barriers;
    auto rb = reorder_barriers.find(&g);
    if (rb == reorder_barriers.end()) {
        const DependencyDag dag(g);
        rb = reorder_barriers
                 .emplace(&g, std::pair{reorder_greedy(g, dag).graph.barrier_count(),
                                        reorder_levels(g, dag).graph.barrier_count()})
                 .first;
    }
    state.counters["greedy_barriers"] = static_cast<double>(rb->second.first);
    state.counters["levels_barriers"] = static_cast<double>(rb->second.second);
    state.counters["lower_bound"] = static_cast<double>(DependencyDag(g).barrier_lower_bound());
}

void BM_Pipeline(benchmark::State& state) {
    const bool transformer = state.range(0) == 0;
    const auto mode = static_cast<ReorderMode>(state.range(1));
    const auto n = static_cast<size_t>(state.range(2));
    static std::map<std::pair<bool, size_t>, std::shared_ptr<const ComputeGraph>> cache;
    auto it = cache.find({transformer, n});
    if (it == cache.end())
        it = cache
                 .emplace(std::pair{transformer, n},
                          std::make_shared<const ComputeGraph>(transformer ? transformer_of(n)
                                                                           : random_of(n)))
                 .first;
    state.SetLabel(std::string(transformer ? "transformer" : "random") + "/" +
                   std::string(reorder_mode_name(mode)));
    run_pipeline(state, it->second, mode);
}

BENCHMARK(BM_Pipeline)
    ->ArgNames({"graph", "reorder", "n"})
    ->ArgsProduct({{0, 1},
                   {static_cast<int64_t>(ReorderMode::greedy),
                    static_cast<int64_t>(ReorderMode::levels)},
                   {1000, 10000, 100000}})
    ->Unit(benchmark::kMillisecond)
    // Per dispatch in process CPU time: the machines this runs on are often shared, and wall
    // time then measures the neighbours (the Time column still shows it).
    ->MeasureProcessCPUTime();

}  // namespace

namespace {
/// The pieces of the pipeline one by one on the 100k transformer graph, to see where time goes.
void BM_Piece(benchmark::State& state) {
    static const ComputeGraph g = transformer_of(100000);
    static const HazardIndex hazards(g);
    static const ComputeGraph planned = plan_barriers(g);
    const auto piece = state.range(0);
    const char* names[] = {"copy graph", "hazard index", "dag",  "fuse",
                           "greedy",     "levels",       "plan", "verify"};
    state.SetLabel(names[piece]);
    for (auto _ : state) {
        switch (piece) {
            case 0:
                benchmark::DoNotOptimize(ComputeGraph(g));
                break;
            case 1:
                benchmark::DoNotOptimize(HazardIndex(g));
                break;
            case 2:
                benchmark::DoNotOptimize(DependencyDag(g, hazards));
                break;
            case 3:
                benchmark::DoNotOptimize(fuse(g, ops::fusion_recipes()));
                break;
            case 4:
                benchmark::DoNotOptimize(reorder_greedy(g));
                break;
            case 5:
                benchmark::DoNotOptimize(reorder_levels(g));
                break;
            case 6:
                benchmark::DoNotOptimize(plan_barriers(g));
                break;
            case 7:
                benchmark::DoNotOptimize(verify_transformation(g, hazards, planned));
                break;
        }
    }
    state.counters["ns_per_dispatch"] =
        benchmark::Counter(static_cast<double>(state.iterations() * g.dispatch_count()),
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Piece)->DenseRange(0, 7)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
}  // namespace

BENCHMARK_MAIN();
