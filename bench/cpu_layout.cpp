// Graphviz's dot layout (core/layout) of a dependency graph of N boxes: the GUI's dependency
// view lays out with it up to the size at which it stays under 2 s (docs/benchmarks.md §10).
#include <benchmark/benchmark.h>

#include <random>

#include "graphlens/layout/graph_layout.h"

namespace {

using graphlens::layout::LayoutRequest;

// A decode-like DAG: each box reads from one to three of the 24 boxes before it (a residual
// stream with short branches), sized as the dependency view draws an item.
LayoutRequest dag_of(size_t boxes) {
    LayoutRequest r;
    std::mt19937 rng(7);
    r.boxes.assign(boxes, {150, 26});
    for (size_t i = 1; i < boxes; ++i) {
        const size_t inputs = 1 + rng() % 3;
        for (size_t k = 0; k < inputs; ++k) {
            const size_t back = 1 + rng() % std::min<size_t>(i, 24);
            r.edges.push_back({i - back, i});
        }
    }
    return r;
}

void BM_GraphvizDotLayout(benchmark::State& state) {
    const LayoutRequest r = dag_of(static_cast<size_t>(state.range(0)));
    for (auto _ : state) benchmark::DoNotOptimize(graphlens::layout::layout_with_graphviz(r));
    state.counters["edges"] = static_cast<double>(r.edges.size());
}
BENCHMARK(BM_GraphvizDotLayout)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(2000)
    ->Arg(3000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
