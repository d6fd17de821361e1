// GraphExecutor: sessions and the execution of ComputeGraphs with timing.
#include "graphlens/vulkan/graph_executor.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/device_memory.h"
#include "graphlens/vulkan/recording_threads.h"

namespace graphlens {
namespace {
using Clock = std::chrono::steady_clock;
uint64_t ns_between(Clock::time_point a, Clock::time_point b) {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}

ReplayCounts encode_graph(const ComputeGraph& graph, BarrierSource barriers, CommandRecorder& rec,
                          ConflictTracker& tracker) {
    switch (barriers) {
        case BarrierSource::recorded:
            return encode_sequential(graph, rec);
        case BarrierSource::recompute:
            return encode_with_barriers(graph, rec, tracker);
        case BarrierSource::every_dispatch:
            return encode_serial(graph, rec);
        case BarrierSource::none:
            return encode_without_barriers(graph, rec);
    }
    return {};
}
// The debug-utils name of one of an execution's command buffers: the execution's name and,
// where it has several, which buffer this is.
std::string buffer_name(const ExecuteOptions& o, size_t index = 0, size_t count = 1,
                        const char* kind = "buffer") {
    const std::string base = o.name.empty() ? "graphlens" : o.name;
    return count == 1 ? base : fmt::format("{}: {} {} of {}", base, kind, index + 1, count);
}

// Waits for an execution's command buffers in order. A cancel abandons all of them: the GPU
// runs every submitted one on, so none may be waited for, reused or destroyed.
template <typename Recorders>
void wait_all(const Recorders& recorders, const CancelCheck& cancelled) {
    try {
        for (CommandRecorder* r : recorders)
            if (r) r->wait(cancelled);
    } catch (const RunCancelled&) {
        for (CommandRecorder* r : recorders)
            if (r) r->abandon();
        throw;
    }
}

// Host times: encoding alone (t0 to t1) and encoding through completion (t0 to t2).
void set_host_times(ExecutionTiming& t, Clock::time_point t0, Clock::time_point t1,
                    Clock::time_point t2) {
    t.encode_ns = ns_between(t0, t1);
    t.wall_ns = ns_between(t0, t2);
}

// One device clock: the first buffer's start to the last one's end.
uint64_t gpu_span_ns(const CommandRecorder& first, const CommandRecorder& last) {
    const uint64_t b = first.begin_timestamp_ns(), e = last.end_timestamp_ns();
    return e > b ? e - b : 0;
}

void set_counts(ExecutionTiming& t, const ReplayCounts& c, size_t command_buffers) {
    t.dispatches = c.dispatches;
    t.barriers = c.barriers;
    t.command_buffers = command_buffers;
}

std::vector<DispatchTiming> dispatch_timings(const ComputeGraph& graph,
                                             const CommandRecorder& rec) {
    std::vector<DispatchTiming> timings;
    std::unordered_map<NodeId, const Node*> by_id;
    for (const auto& n : graph.nodes)
        if (n.is_dispatch()) by_id[n.id] = &n;
    for (const auto& iv : rec.dispatch_intervals()) {
        DispatchTiming d;
        d.node = iv.node;
        d.label = iv.label;
        if (auto it = by_id.find(iv.node); it != by_id.end()) d.op = it->second->op;
        d.start_ns = static_cast<double>(iv.start_ns);
        d.end_ns = static_cast<double>(iv.end_ns);
        timings.push_back(std::move(d));
    }
    return timings;
}

std::vector<GroupTiming> group_timings(const CommandRecorder& rec) {
    std::vector<GroupTiming> timings;
    for (const auto& g : rec.group_intervals()) {
        GroupTiming gt;
        gt.first_dispatch = g.first_dispatch;
        gt.dispatches = g.dispatches;
        gt.first_label = g.first_label;
        gt.start_ns = static_cast<double>(g.start_ns);
        gt.end_ns = static_cast<double>(g.end_ns);
        timings.push_back(std::move(gt));
    }
    return timings;
}

// Nodes of SubmitMode::parallel's early buffer: it ends where a concurrency group ends (its
// submission barrier stands for the plan's barrier there), at or after parallel_first
// dispatches; 0 when there is none.
size_t parallel_head_nodes(const ComputeGraph& graph, size_t parallel_first) {
    const size_t total = graph.dispatch_count();
    if (parallel_first == 0) return 0;
    const size_t first = std::min(parallel_first, total);
    const std::vector<size_t> sizes = {first, total - first};
    const std::vector<size_t> aligned = align_stream_chunks(graph, sizes);
    return node_index_after_dispatches(graph, aligned.empty() ? 0 : aligned[0]);
}

// Recorded and submitted first: the GPU starts while the threads record the rest.
void record_and_submit_head(CommandRecorder& head, const ComputeGraph& graph, size_t head_nodes,
                            bool timestamps, ExecutionTiming& t) {
    head.begin(timestamps);
    const ReplayCounts c = encode_sequential(graph, head, 0, head_nodes);
    head.end();
    head.submit();
    t.dispatches += c.dispatches;
    t.barriers += c.barriers;
}

// The slices [bounds[i], bounds[i + 1]) recorded into the secondaries on the threads, then
// executed from the primary in order; a barrier of the plan at a cut goes between two.
void record_primary(CommandRecorder& primary,
                    const std::vector<std::unique_ptr<CommandRecorder>>& secondaries,
                    RecordingThreads& threads, const ComputeGraph& graph,
                    const std::vector<size_t>& bounds, bool timestamps, ExecutionTiming& t) {
    const size_t slices = bounds.size() - 1;
    std::vector<ReplayCounts> counts(slices);
    primary.begin(timestamps);
    threads.run(slices, [&](size_t i) {
        CommandRecorder& rec = *secondaries[i];
        rec.begin(false);
        counts[i] = encode_sequential(graph, rec, bounds[i], bounds[i + 1]);
        rec.end();
    });
    std::vector<VkCommandBuffer> run;
    for (size_t i = 0; i < slices; ++i) {
        if (i > 0 && graph.nodes[bounds[i]].is_barrier() && counts[i].dispatches > 0) {
            primary.execute(run);
            run.clear();
            primary.barrier();
            ++t.barriers;
        }
        run.push_back(secondaries[i]->handle());
        t.dispatches += counts[i].dispatches;
        t.barriers += counts[i].barriers;
    }
    primary.execute(run);
    primary.end();
}

// SubmitMode::single: one command buffer, the only mode with per-dispatch and per-group
// profiles.
ExecutionTiming execute_single(GraphExecutor& executor, const ComputeGraph& graph,
                               const ExecuteOptions& options) {
    ExecutionTiming t;
    auto rec = executor.acquire(buffer_name(options));
    ConflictTracker tracker;
    const auto t0 = Clock::now();
    rec->begin(options.timestamps, options.profile_dispatches, graph.dispatch_count(),
               options.profile_groups);
    const ReplayCounts c = encode_graph(graph, options.barriers, *rec, tracker);
    rec->end();
    const auto t1 = Clock::now();
    rec->submit();
    rec->wait(options.cancelled);
    const auto t2 = Clock::now();
    set_host_times(t, t0, t1, t2);
    t.gpu_ns = rec->gpu_ns();
    set_counts(t, c, 1);
    if (options.profile_dispatches) t.per_dispatch = dispatch_timings(graph, *rec);
    t.per_group = group_timings(*rec);
    executor.release(std::move(rec));
    return t;
}

// SubmitMode::dual_buffer: the first dispatches submitted early, the rest in a second buffer.
ExecutionTiming execute_dual_buffer(GraphExecutor& executor, const ComputeGraph& graph,
                                    const ExecuteOptions& options) {
    if (options.barriers == BarrierSource::every_dispatch ||
        options.barriers == BarrierSource::none)
        throw std::invalid_argument("dual buffer encodes recorded or recomputed barriers only");
    ExecutionTiming t;
    auto first = executor.acquire(buffer_name(options, 0, 2));
    auto second = executor.acquire(buffer_name(options, 1, 2));
    DualBufferOptions d;
    d.first_dispatches = options.first_dispatches;
    d.recompute_barriers = options.barriers == BarrierSource::recompute;
    d.timestamps = options.timestamps;
    const auto t0 = Clock::now();
    const ReplayCounts c = encode_dual_buffer(graph, *first, *second, d);
    const auto t1 = Clock::now();
    wait_all(std::array{first.get(), second.get()}, options.cancelled);
    const auto t2 = Clock::now();
    set_host_times(t, t0, t1, t2);
    t.gpu_ns = gpu_span_ns(*first, *second);
    set_counts(t, c, 2);
    executor.release(std::move(first));
    executor.release(std::move(second));
    return t;
}

// SubmitMode::stream: growing chunks, each submitted as soon as it is recorded.
ExecutionTiming execute_stream(GraphExecutor& executor, const ComputeGraph& graph,
                               const ExecuteOptions& options) {
    if (options.barriers == BarrierSource::every_dispatch ||
        options.barriers == BarrierSource::none)
        throw std::invalid_argument("stream encodes recorded or recomputed barriers only");
    ExecutionTiming t;
    StreamOptions so;
    so.chunk_dispatches = stream_chunk_dispatches(graph.dispatch_count(), options.stream_first,
                                                  options.stream_growth);
    // The plan's groups are known only from recorded barriers.
    if (options.barriers == BarrierSource::recorded)
        so.chunk_dispatches = align_stream_chunks(graph, so.chunk_dispatches);
    so.recompute_barriers = options.barriers == BarrierSource::recompute;
    so.timestamps = options.timestamps;
    std::vector<std::unique_ptr<CommandRecorder>> owned;
    std::vector<CommandRecorder*> recs;
    for (size_t i = 0; i < so.chunk_dispatches.size(); ++i) {
        owned.push_back(executor.acquire(buffer_name(options, i, so.chunk_dispatches.size())));
        recs.push_back(owned.back().get());
    }
    const auto t0 = Clock::now();
    const ReplayCounts c = encode_stream(graph, recs, so);
    const auto t1 = Clock::now();
    wait_all(recs, options.cancelled);
    const auto t2 = Clock::now();
    set_host_times(t, t0, t1, t2);
    if (!recs.empty()) t.gpu_ns = gpu_span_ns(*recs.front(), *recs.back());
    set_counts(t, c, recs.size());
    for (auto& r : owned) executor.release(std::move(r));
    return t;
}

// SubmitMode::per_dispatch: one command buffer, submit and wait per dispatch; the submission
// boundary orders everything, so no barriers are recorded.
ExecutionTiming execute_per_dispatch(GraphExecutor& executor, const ComputeGraph& graph,
                                     const ExecuteOptions& options) {
    ExecutionTiming t;
    auto rec = executor.acquire(buffer_name(options));
    const auto t0 = Clock::now();
    for (const Node& n : graph.nodes) {
        if (!n.is_dispatch()) continue;
        const auto e0 = Clock::now();
        rec->begin(options.timestamps);
        rec->dispatch(graph.kernels[n.kernel].name, n.bindings, n.push_constants, n.workgroups,
                      n.label, n.id);
        rec->end();
        t.encode_ns += ns_between(e0, Clock::now());
        rec->submit();
        rec->wait(options.cancelled);
        t.gpu_ns += rec->gpu_ns();
        ++t.dispatches;
        ++t.command_buffers;
    }
    t.wall_ns = ns_between(t0, Clock::now());
    executor.release(std::move(rec));
    return t;
}
}  // namespace

GraphExecutor::GraphExecutor(Device& device, DeviceMemory& memory)
    : device_(device), memory_(memory) {}
GraphExecutor::~GraphExecutor() = default;

GraphSession GraphExecutor::begin(const SessionOptions& options) {
    return GraphSession(*this, false, options);
}
GraphSession GraphExecutor::begin_recorded(const SessionOptions& options) {
    return GraphSession(*this, true, options);
}

std::unique_ptr<CommandRecorder> GraphExecutor::acquire(const std::string& name) {
    std::unique_ptr<CommandRecorder> r;
    {
        std::lock_guard lock(mutex_);
        if (!free_.empty()) {
            r = std::move(free_.back());
            free_.pop_back();
        }
    }
    if (!r) r = std::make_unique<CommandRecorder>(device_, memory_);
    if (!name.empty()) r->set_name(name);
    return r;
}

void GraphExecutor::release(std::unique_ptr<CommandRecorder> recorder) {
    if (!recorder || recorder->abandoned()) return;
    recorder->wait();
    std::lock_guard lock(mutex_);
    free_.push_back(std::move(recorder));
}

ExecutionTiming GraphExecutor::execute(const ComputeGraph& graph, const ExecuteOptions& options) {
    if (options.submit == SubmitMode::ahead) return std::move(execute_steps(graph, options, 1)[0]);
    device_.retired_work().reap();       // what earlier cancelled executions left, where it is done
    memory_.add_missing_scratch(graph);  // fused kernels' own zeroed memory (FusionScratch)
    validate_for_replay(graph, memory_);
    if (options.submit == SubmitMode::single) return execute_single(*this, graph, options);
    if (options.profile_dispatches || options.profile_groups)
        throw std::invalid_argument("per-dispatch and per-group profiles need SubmitMode::single");
    if (options.submit == SubmitMode::dual_buffer)
        return execute_dual_buffer(*this, graph, options);
    if (options.submit == SubmitMode::parallel) return execute_parallel(graph, options);
    if (options.submit == SubmitMode::stream) return execute_stream(*this, graph, options);
    return execute_per_dispatch(*this, graph, options);
}

ExecutionTiming GraphExecutor::execute_parallel(const ComputeGraph& graph,
                                                const ExecuteOptions& options) {
    if (options.barriers != BarrierSource::recorded)
        throw std::invalid_argument("parallel recording encodes recorded barriers only");
    size_t threads = options.parallel_threads;
    if (threads == 0) threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
    if (!threads_ || threads_->size() != threads)
        threads_ = std::make_unique<RecordingThreads>(threads - 1);
    const size_t head_nodes = parallel_head_nodes(graph, options.parallel_first);
    const std::vector<size_t> bounds = parallel_slice_bounds(graph, threads, head_nodes);
    const size_t slices = bounds.size() - 1;

    auto head = head_nodes > 0 ? acquire(buffer_name(options, 0, 2, "primary")) : nullptr;
    auto primary =
        slices > 0 ? acquire(buffer_name(options, head ? 1 : 0, head ? 2 : 1, "primary")) : nullptr;
    std::vector<std::unique_ptr<CommandRecorder>> secondaries;
    {
        std::lock_guard lock(mutex_);
        while (secondaries.size() < slices && !free_secondaries_.empty()) {
            secondaries.push_back(std::move(free_secondaries_.back()));
            free_secondaries_.pop_back();
        }
    }
    while (secondaries.size() < slices)
        secondaries.push_back(
            std::make_unique<CommandRecorder>(device_, memory_, CommandLevel::secondary));
    for (size_t i = 0; i < slices; ++i)
        secondaries[i]->set_name(buffer_name(options, i, slices, "secondary"));
    // Waits for both primaries before their secondaries go back to the free list.
    auto give_back = [&] {
        for (auto* r : {head.get(), primary.get()})
            if (r) r->wait();
        {
            std::lock_guard lock(mutex_);
            for (auto& r : secondaries) free_secondaries_.push_back(std::move(r));
        }
        if (head) release(std::move(head));
        if (primary) release(std::move(primary));
    };

    ExecutionTiming t;
    try {
        const auto t0 = Clock::now();
        if (head) record_and_submit_head(*head, graph, head_nodes, options.timestamps, t);
        if (primary)
            record_primary(*primary, secondaries, *threads_, graph, bounds, options.timestamps, t);
        const auto t1 = Clock::now();
        if (primary) primary->submit();
        wait_all(std::array{head.get(), primary.get()}, options.cancelled);
        const auto t2 = Clock::now();
        set_host_times(t, t0, t1, t2);
        CommandRecorder* first = head ? head.get() : primary.get();
        CommandRecorder* last = primary ? primary.get() : head.get();
        if (first) t.gpu_ns = gpu_span_ns(*first, *last);
        t.command_buffers = (head ? 1 : 0) + (primary ? 1 : 0) + slices;
    } catch (const RunCancelled&) {
        // The abandoned primaries go to the retired work first, so the secondaries they
        // execute are destroyed after them, and never reused.
        head.reset();
        primary.reset();
        secondaries.clear();
        throw;
    } catch (...) {
        give_back();
        throw;
    }
    give_back();
    return t;
}

std::vector<ExecutionTiming> GraphExecutor::execute_steps(const ComputeGraph& graph,
                                                          const ExecuteOptions& options,
                                                          size_t steps) {
    return run_steps([&graph](size_t) -> const ComputeGraph& { return graph; }, options, steps,
                     false);
}

std::vector<ExecutionTiming> GraphExecutor::execute_steps(const StepGraph& step_graph,
                                                          const ExecuteOptions& options,
                                                          size_t steps) {
    return run_steps(step_graph, options, steps, true);
}

std::vector<ExecutionTiming> GraphExecutor::run_steps(const StepGraph& step_graph,
                                                      const ExecuteOptions& options, size_t steps,
                                                      bool validate_each) {
    if (options.profile_dispatches || options.profile_groups)
        throw std::invalid_argument("per-dispatch and per-group profiles need SubmitMode::single");
    std::vector<ExecutionTiming> out(steps);
    if (steps == 0) return out;
    device_.retired_work().reap();
    // Two buffers: one executing, the other being recorded for the next step. A buffer is
    // recorded again only after its fence has signalled (the step before the last one).
    std::unique_ptr<CommandRecorder> recs[2] = {acquire(buffer_name(options, 0, 2)),
                                                acquire(buffer_name(options, 1, 2))};
    auto give_back = [&] {
        for (auto& r : recs) release(std::move(r));
    };
    try {
        const auto origin = Clock::now();
        auto record = [&](size_t i) {
            CommandRecorder& rec = *recs[i % 2];
            ConflictTracker tracker;
            const ComputeGraph& graph = step_graph(i);
            if (i == 0 || validate_each) {
                memory_.add_missing_scratch(graph);
                validate_for_replay(graph, memory_);
            }
            const auto t0 = Clock::now();
            rec.begin(options.timestamps);
            const ReplayCounts c = encode_graph(graph, options.barriers, rec, tracker);
            rec.end();
            ExecutionTiming& t = out[i];
            t.record_begin_ns = ns_between(origin, t0);
            t.encode_ns = ns_between(t0, Clock::now());
            t.dispatches = c.dispatches;
            t.barriers = c.barriers;
            t.command_buffers = 1;
        };
        record(0);
        recs[0]->submit();
        for (size_t i = 0; i < steps; ++i) {
            CommandRecorder& rec = *recs[i % 2];
            if (i > 0 && !options.queue_steps) rec.submit();  // step i - 1 has completed
            if (i + 1 < steps) {
                record(i + 1);  // on the CPU while the GPU runs step i
                if (options.queue_steps) recs[(i + 1) % 2]->submit();
            }
            rec.wait(options.cancelled);
            ExecutionTiming& t = out[i];
            t.complete_ns = ns_between(origin, Clock::now());
            t.wall_ns = t.complete_ns - (i == 0 ? t.record_begin_ns : out[i - 1].complete_ns);
            t.gpu_ns = rec.gpu_ns();
        }
    } catch (const RunCancelled&) {
        // Queued steps: the step after the cancelled one is in flight too; it is given up on
        // as well rather than waited for.
        for (auto& r : recs)
            if (r->in_flight()) r->abandon();
        give_back();
        throw;
    } catch (...) {
        give_back();
        throw;
    }
    give_back();
    return out;
}

}  // namespace graphlens
