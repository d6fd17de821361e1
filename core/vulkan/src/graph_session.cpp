// GraphSession: barrier policy, concurrency-group statistics, finish variants.
#include "graphlens/vulkan/graph_session.h"

#include <fmt/format.h>

#include <stdexcept>

#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/device_memory.h"
#include "graphlens/vulkan/graph_executor.h"
#include "graphlens/graph/pass_pipeline.h"

namespace graphlens {
namespace {
uint64_t ns_since(std::chrono::steady_clock::time_point t) {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t)
            .count());
}
std::vector<ByteRange> ranges_of(std::span<const TensorView> views) {
    std::vector<ByteRange> out;
    out.reserve(views.size());
    for (const auto& v : views) out.push_back(v.range());
    return out;
}
}  // namespace

// --- PendingWork --------------------------------------------------------------------------

PendingWork::PendingWork(GraphExecutor* exec, std::unique_ptr<CommandRecorder> rec)
    : executor_(exec), recorder_(std::move(rec)) {}
PendingWork::PendingWork(PendingWork&& o) noexcept
    : executor_(o.executor_), recorder_(std::move(o.recorder_)) {}
PendingWork& PendingWork::operator=(PendingWork&& o) noexcept {
    if (this != &o) {
        try {
            wait();
        } catch (...) {
        }
        executor_ = o.executor_;
        recorder_ = std::move(o.recorder_);
    }
    return *this;
}
PendingWork::~PendingWork() {
    try {
        wait();
    } catch (...) {
        // A destructor must not throw; the device is lost anyway if waiting failed.
    }
}
void PendingWork::wait() {
    if (!recorder_) return;
    recorder_->wait();
    executor_->release(std::move(recorder_));
}

// --- GraphSession -------------------------------------------------------------------------

GraphSession::GraphSession(GraphExecutor& executor, bool recording, const SessionOptions& options)
    : executor_(&executor),
      options_(options),
      recording_(recording),
      begun_(std::chrono::steady_clock::now()) {
    if (recording) {
        graph_ = std::make_unique<ComputeGraph>();
        graph_->allocations = executor.memory().allocations();
        graph_->metadata["device"] = executor.device().facts().name;
        encoder_ = std::make_unique<CommandEncoder>(*graph_);
    } else {
        recorder_ = executor.acquire("direct session");
        recorder_->begin(options.timestamps);
        encoder_ = std::make_unique<CommandEncoder>(*recorder_);
    }
}

GraphSession::GraphSession(GraphSession&& o) noexcept
    : executor_(o.executor_),
      options_(o.options_),
      recording_(o.recording_),
      finished_(o.finished_),
      recorder_(std::move(o.recorder_)),
      graph_(std::move(o.graph_)),
      encoder_(std::move(o.encoder_)),
      tracker_(std::move(o.tracker_)),
      open_group_(o.open_group_),
      histogram_(std::move(o.histogram_)),
      tracker_ns_(o.tracker_ns_),
      begun_(o.begun_) {
    o.executor_ = nullptr;
    o.finished_ = true;
}

GraphSession::~GraphSession() {
    // Dropped without finishing: the recorder goes back unsubmitted; begin() resets it.
    if (executor_ && recorder_) executor_->release(std::move(recorder_));
}

Device& GraphSession::device() const {
    return executor_->device();
}
DeviceMemory& GraphSession::memory() const {
    return executor_->memory();
}

void GraphSession::require_open(const char* what) const {
    if (!executor_ || finished_)
        throw std::logic_error(fmt::format("GraphSession::{} after the session finished", what));
}

void GraphSession::close_group() {
    if (open_group_ == 0) return;
    if (histogram_.size() <= open_group_) histogram_.resize(open_group_ + 1, 0);
    ++histogram_[open_group_];
    open_group_ = 0;
}

std::vector<size_t> GraphSession::group_size_histogram() const {
    auto h = histogram_;
    if (open_group_ > 0) {
        if (h.size() <= open_group_) h.resize(open_group_ + 1, 0);
        ++h[open_group_];
    }
    return h;
}

void GraphSession::dispatch(const DispatchDesc& desc) {
    require_open("dispatch");
    if (recording_ && graph_->allocations.size() != executor_->memory().allocation_count())
        graph_->allocations = executor_->memory().allocations();  // allocated after begin
    Node node = encoder_->prepare(desc);
    switch (options_.barriers) {
        case BarrierPolicy::automatic:
            barrier_between(node.reads, node.writes);
            break;
        case BarrierPolicy::every_dispatch:
            if (open_group_ > 0) barrier();
            break;
        case BarrierPolicy::manual:
            break;
    }
    encoder_->record(std::move(node));
    ++open_group_;
}

void GraphSession::barrier() {
    require_open("barrier");
    encoder_->barrier();
    tracker_.reset();
    close_group();
}

bool GraphSession::barrier_between(std::span<const ByteRange> reads,
                                   std::span<const ByteRange> writes) {
    require_open("barrier_between");
    const auto t0 = std::chrono::steady_clock::now();
    const bool conflict = tracker_.conflicts(reads, writes);
    tracker_ns_ += ns_since(t0);
    if (conflict) barrier();
    tracker_.add(reads, writes);
    return conflict;
}

bool GraphSession::barrier_between(std::span<const TensorView> reads,
                                   std::span<const TensorView> writes) {
    const auto r = ranges_of(reads);
    const auto w = ranges_of(writes);
    return barrier_between(std::span<const ByteRange>(r), std::span<const ByteRange>(w));
}

void GraphSession::track_dispatch(std::span<const TensorView> reads,
                                  std::span<const TensorView> writes) {
    require_open("track_dispatch");
    const auto r = ranges_of(reads);
    const auto w = ranges_of(writes);
    tracker_.add(r, w);
}

const ComputeGraph& GraphSession::graph() const {
    if (!recording_ || !graph_)
        throw std::logic_error("GraphSession::graph: not a recording session");
    return *graph_;
}

ComputeGraph GraphSession::finish_recording() {
    require_open("finish_recording");
    if (!recording_)
        throw std::logic_error("GraphSession::finish_recording: not a recording session");
    finished_ = true;
    graph_->allocations = executor_->memory().allocations();
    return std::move(*graph_);
}

SessionTiming GraphSession::run_recorded_or_submit(bool wait) {
    SessionTiming t;
    t.dispatches = encoder_->dispatch_count();
    t.barriers = encoder_->barrier_count();
    if (recording_) {
        ExecuteOptions opts;
        opts.timestamps = options_.timestamps;
        ComputeGraph g = finish_recording();
        const ExecutionTiming e = executor_->execute(g, opts);
        t.encode_ns = e.encode_ns;
        t.gpu_ns = e.gpu_ns;
        t.wall_ns = e.wall_ns;
        return t;
    }
    finished_ = true;
    t.encode_ns = ns_since(begun_);
    const auto t0 = std::chrono::steady_clock::now();
    recorder_->end();
    recorder_->submit();
    if (wait) {
        recorder_->wait();
        t.wall_ns = t.encode_ns + ns_since(t0);
        t.gpu_ns = recorder_->gpu_ns();
        executor_->release(std::move(recorder_));
    }
    return t;
}

void GraphSession::finish() {
    require_open("finish");
    run_recorded_or_submit(true);
}

SessionTiming GraphSession::finish_with_timing() {
    require_open("finish_with_timing");
    return run_recorded_or_submit(true);
}

PendingWork GraphSession::commit() {
    require_open("commit");
    if (!recording_) {
        run_recorded_or_submit(false);
        return PendingWork(executor_, std::move(recorder_));
    }
    ComputeGraph g = finish_recording();
    validate_for_replay(g, executor_->memory());
    auto rec = executor_->acquire("recorded session");
    rec->begin(options_.timestamps);
    encode_sequential(g, *rec);
    rec->end();
    rec->submit();
    return PendingWork(executor_, std::move(rec));
}

ExecutionTiming GraphSession::finish_transformed(
    const std::function<ComputeGraph(ComputeGraph)>& transform, const ExecuteOptions& options) {
    require_open("finish_transformed");
    if (!recording_)
        throw std::logic_error(
            "GraphSession::finish_transformed needs a recording session (begin_recorded)");
    ComputeGraph g = transform(finish_recording());
    return executor_->execute(g, options);
}

OptimizedFinish GraphSession::finish_optimized(const PassOptions& passes) {
    require_open("finish_optimized");
    if (!recording_)
        throw std::logic_error(
            "GraphSession::finish_optimized needs a recording session (begin_recorded)");
    PassOptions o = passes;
    o.unknown_ranges = UnknownRanges::refuse;  // never reorder what cannot be reasoned about
    OptimizedFinish r;
    r.stages = PassPipeline::run(finish_recording(), o);
    const Snapshot& last = r.stages.back();
    ExecuteOptions e;
    e.barriers = BarrierSource::recorded;
    e.submit = SubmitMode::dual_buffer;
    e.first_dispatches = last.split_first_dispatches;
    e.timestamps = options_.timestamps;
    r.timing = executor_->execute(last.graph, e);
    return r;
}

}  // namespace graphlens
