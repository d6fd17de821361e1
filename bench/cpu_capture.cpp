// Capture file speed: saving and loading a transformer decode graph of ~1k, 10k and 100k
// dispatches (target: a 100k-dispatch capture loads in under 1 s).
#include <benchmark/benchmark.h>

#include "graphlens/synthetic/synthetic_graphs.h"
#include "graphlens/capture/capture_file.h"

namespace {

graphlens::CaptureDocument transformer_capture(size_t dispatches) {
    graphlens::TransformerGraphOptions options;
    options.layers = (dispatches - graphlens::kTransformerExtraDispatches) /
                     graphlens::kTransformerDispatchesPerLayer;
    graphlens::CaptureDocument doc;
    doc.generator = "bench_capture";
    doc.graph = graphlens::transformer_graph(options);
    return doc;
}

void BM_SaveCapture(benchmark::State& state) {
    const auto doc = transformer_capture(static_cast<size_t>(state.range(0)));
    size_t bytes = 0;
    for (auto _ : state) {
        const std::string text = graphlens::save_capture_to_string(doc);
        bytes = text.size();
        benchmark::DoNotOptimize(text.data());
    }
    state.counters["dispatches"] = static_cast<double>(doc.graph.dispatch_count());
    state.counters["file_MB"] = static_cast<double>(bytes) / 1e6;
}

void BM_LoadCapture(benchmark::State& state) {
    const auto doc = transformer_capture(static_cast<size_t>(state.range(0)));
    const std::string text = graphlens::save_capture_to_string(doc);
    for (auto _ : state) {
        auto loaded = graphlens::load_capture_from_string(text);
        benchmark::DoNotOptimize(loaded.graph.nodes.data());
    }
    state.counters["dispatches"] = static_cast<double>(doc.graph.dispatch_count());
    state.counters["file_MB"] = static_cast<double>(text.size()) / 1e6;
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}

}  // namespace

BENCHMARK(BM_SaveCapture)->Arg(1004)->Arg(10004)->Arg(100004)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoadCapture)->Arg(1004)->Arg(10004)->Arg(100004)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
