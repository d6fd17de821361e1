// Replay of a recorded program's graph: every mode from the same initial bytes, its final
// bytes compared with as-recorded's, then timed (warm-up + repeats) as the Runner times
// GraphLens's own graphs.
#include "graphlens/exec/foreign_replay.h"
#include "exec/src/foreign_replay_plan.h"
#include "exec/src/run_control.h"
#include "exec/src/utc_now.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <set>

#include "graphlens/exec/runner.h"
#include "graphlens/graph/conflict_tracker.h"
#include "graphlens/vulkan/command_encoder.h"
#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/device_memory.h"
#include "graphlens/vulkan/foreign_program.h"
#include "graphlens/vulkan/recording_threads.h"

namespace graphlens {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t ns_between(Clock::time_point a, Clock::time_point b) {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}

uint64_t ns_since(Clock::time_point t) {
    return ns_between(t, Clock::now());
}

// The final bytes of the allocations the graph writes, by allocation id.
using FinalBytes = std::vector<std::pair<AllocationId, std::vector<uint8_t>>>;

struct Difference {
    AllocationId allocation = 0;
    uint64_t byte = 0;
    uint8_t expected = 0, actual = 0;
};

std::optional<Difference> first_difference(const FinalBytes& a, const FinalBytes& b,
                                           const std::set<AllocationId>& skip = {}) {
    for (size_t i = 0; i < a.size(); ++i) {
        if (skip.count(a[i].first)) continue;
        const auto& x = a[i].second;
        const auto& y = b[i].second;
        const auto m = std::mismatch(x.begin(), x.end(), y.begin());
        if (m.first != x.end())
            return Difference{a[i].first, static_cast<uint64_t>(m.first - x.begin()), *m.first,
                              *m.second};
    }
    return std::nullopt;
}

// The last command of the captured graph that writes `byte` of `allocation`.
const Node* last_writer(const ComputeGraph& g, AllocationId allocation, uint64_t byte) {
    const Node* found = nullptr;
    for (const Node& n : g.nodes)
        if (n.is_dispatch())
            for (const ByteRange& w : n.writes)
                if (w.allocation == allocation && w.begin <= byte && byte < w.end) found = &n;
    return found;
}

// Executes plans of one graph in one memory: records each segment's command buffer through
// the ForeignProgram, submits, waits and measures.
class ForeignExecutor {
  public:
    ForeignExecutor(Device& device, DeviceMemory& memory, const ForeignProgram& program,
                    CancelCheck cancelled)
        : device_(device), memory_(memory), program_(program), cancelled_(std::move(cancelled)) {}
    // The primaries first: the secondaries an abandoned one executes are destroyed after it.
    ~ForeignExecutor() {
        recorders_.clear();
        secondaries_.clear();
    }
    ForeignExecutor(const ForeignExecutor&) = delete;
    ForeignExecutor& operator=(const ForeignExecutor&) = delete;

    ExecutionTiming execute(const ForeignPlan& plan) {
        if (plan.submission == ForeignSubmission::parallel) return execute_parallel(plan);
        ExecutionTiming t;
        const size_t buffers = plan.wait_between ? 1 : plan.segments.size();
        while (recorders_.size() < buffers)
            recorders_.push_back(std::make_unique<CommandRecorder>(device_, memory_));
        const auto start = Clock::now();
        for (size_t s = 0; s < plan.segments.size(); ++s) {
            const ForeignSegment& seg = plan.segments[s];
            CommandRecorder& rec = *recorders_[plan.wait_between ? 0 : s];
            const auto encode_start = Clock::now();
            rec.begin(seg.timestamps);
            encode(plan, seg, rec.handle(), t);
            if (!plan.wait_between && s + 1 < plan.segments.size())
                program_.record_full_barrier(rec.handle());  // orders transfers across too
            rec.end();
            t.encode_ns += ns_since(encode_start);
            rec.submit();
            if (plan.wait_between) {
                wait(rec);
                t.gpu_ns += rec.gpu_ns();
            }
        }
        for (size_t s = 0; s < buffers; ++s) wait(*recorders_[s]);
        t.wall_ns = ns_since(start);
        if (!plan.wait_between) {
            const auto& first = *recorders_[0];
            const auto& last = *recorders_[buffers - 1];
            t.gpu_ns = buffers == 1 ? first.gpu_ns()
                                    : last.end_timestamp_ns() - first.begin_timestamp_ns();
        }
        t.command_buffers = plan.segments.size();
        return t;
    }

    /// ForeignSubmission::ahead's loop, as GraphExecutor::execute_steps runs a decode loop:
    /// while step i executes, step i + 1 is recorded into the other of two buffers, then
    /// submitted once step i's fence has signalled. Per step: encode_ns its recording, gpu_ns
    /// its timestamps, wall_ns from the previous step's completion (step 0: from its own
    /// recording's start) to its own.
    std::vector<ExecutionTiming> execute_steps(const ForeignPlan& plan, size_t steps) {
        while (recorders_.size() < 2)
            recorders_.push_back(std::make_unique<CommandRecorder>(device_, memory_));
        std::vector<ExecutionTiming> out(steps);
        const auto origin = Clock::now();
        auto record = [&](size_t i) {
            CommandRecorder& rec = *recorders_[i % 2];
            ExecutionTiming& t = out[i];
            const auto start = Clock::now();
            rec.begin(true);
            for (const ForeignSegment& seg : plan.segments) encode(plan, seg, rec.handle(), t);
            rec.end();
            t.record_begin_ns = ns_between(origin, start);
            t.encode_ns = ns_since(start);
            t.command_buffers = 1;
        };
        if (steps > 0) record(0);
        for (size_t i = 0; i < steps; ++i) {
            CommandRecorder& rec = *recorders_[i % 2];
            rec.submit();
            if (i + 1 < steps) record(i + 1);  // on the CPU while the GPU runs step i
            wait(rec);
            ExecutionTiming& t = out[i];
            t.complete_ns = ns_since(origin);
            t.wall_ns = t.complete_ns - (i == 0 ? t.record_begin_ns : out[i - 1].complete_ns);
            t.gpu_ns = rec.gpu_ns();
        }
        return out;
    }

  private:
    // Waits for one of the execution's buffers. A cancel abandons all of them: the GPU runs
    // every submitted one on, so none may be waited for, reused or destroyed (RetiredWork).
    void wait(CommandRecorder& rec) {
        try {
            rec.wait(cancelled_);
        } catch (const RunCancelled&) {
            for (auto& r : recorders_) r->abandon();
            throw;
        }
    }

    // ForeignSubmission::parallel, as GraphExecutor records SubmitMode::parallel: the slices
    // recorded at once into secondary buffers, executed by one primary in order, with a full
    // barrier between two where the plan has a barrier at the cut.
    ExecutionTiming execute_parallel(const ForeignPlan& plan) {
        const size_t slices = plan.segments.size();
        if (!threads_ || threads_->size() != plan.threads)
            threads_ = std::make_unique<RecordingThreads>(plan.threads - 1);
        while (secondaries_.size() < slices)
            secondaries_.push_back(
                std::make_unique<CommandRecorder>(device_, memory_, CommandLevel::secondary));
        if (recorders_.empty())
            recorders_.push_back(std::make_unique<CommandRecorder>(device_, memory_));
        CommandRecorder& primary = *recorders_[0];
        ExecutionTiming t;
        std::vector<ExecutionTiming> counts(slices);
        const auto start = Clock::now();
        primary.begin(true);
        threads_->run(slices, [&](size_t i) {
            CommandRecorder& rec = *secondaries_[i];
            rec.begin(false);
            encode(plan, plan.segments[i], rec.handle(), counts[i]);
            rec.end();
        });
        std::vector<VkCommandBuffer> run;
        for (size_t i = 0; i < slices; ++i) {
            if (i > 0 && plan.graph.nodes[plan.segments[i].first].is_barrier() &&
                counts[i].dispatches > 0) {
                primary.execute(run);
                run.clear();
                program_.record_full_barrier(primary.handle());
                ++t.barriers;
            }
            run.push_back(secondaries_[i]->handle());
            t.dispatches += counts[i].dispatches;
            t.barriers += counts[i].barriers;
        }
        primary.execute(run);
        primary.end();
        t.encode_ns = ns_since(start);
        primary.submit();
        wait(primary);
        t.wall_ns = ns_since(start);
        t.gpu_ns = primary.gpu_ns();
        t.command_buffers = 1 + slices;
        return t;
    }

    void encode(const ForeignPlan& plan, const ForeignSegment& seg, VkCommandBuffer cmd,
                ExecutionTiming& t) const {
        const ComputeGraph& g = plan.graph;
        ConflictTracker tracker;
        bool any = false;      // a command recorded in this buffer
        bool pending = false;  // a barrier node seen since the last command
        const BarrierScope* pending_scope = nullptr;
        for (size_t i = seg.first; i < seg.last; ++i) {
            const Node& n = g.nodes[i];
            if (n.is_barrier()) {
                const BarrierScope* scope = g.scope_of(n);
                const bool skip = plan.barriers == ForeignBarriers::recorded_no_submit && scope &&
                                  scope->origin == BarrierOrigin::submission;
                if (plan.barriers == ForeignBarriers::recorded ||
                    (plan.barriers == ForeignBarriers::recorded_no_submit && !skip)) {
                    // The program's barriers as they were, each one (their scopes differ).
                    if (scope)
                        program_.record_barrier(cmd, *scope);
                    else
                        program_.record_full_barrier(cmd);
                    ++t.barriers;
                } else if (plan.barriers == ForeignBarriers::planned) {
                    pending = any;
                    pending_scope = scope;
                }
                continue;
            }
            const bool barrier = (plan.barriers == ForeignBarriers::planned && pending) ||
                                 (plan.barriers == ForeignBarriers::every_command && any) ||
                                 (plan.barriers == ForeignBarriers::recompute && any &&
                                  (!n.ranges_known || tracker.conflicts(n.reads, n.writes)));
            if (barrier) {
                if (pending_scope)
                    program_.record_barrier(cmd, *pending_scope);
                else
                    program_.record_full_barrier(cmd);
                ++t.barriers;
                tracker.reset();
            }
            pending = false;
            pending_scope = nullptr;
            program_.record(cmd, n);
            tracker.add(n.reads, n.writes);
            any = true;
            ++t.dispatches;
        }
    }

    Device& device_;
    DeviceMemory& memory_;
    const ForeignProgram& program_;
    CancelCheck cancelled_;  ///< asked while the host waits for the GPU
    std::vector<std::unique_ptr<CommandRecorder>> recorders_;
    std::vector<std::unique_ptr<CommandRecorder>> secondaries_;  ///< parallel's slices
    std::unique_ptr<RecordingThreads> threads_;                  ///< parallel, made on first use
};

DeviceMemory& recreated(DeviceMemory& memory, const ComputeGraph& graph) {
    memory.recreate(graph);
    return memory;
}

// Memory, program, initial bytes and the executor of one replay.
class ForeignReplay {
  public:
    ForeignReplay(Device& device, const ComputeGraph& graph, const ForeignRunOptions& options)
        : graph_(graph),
          memory_(device),
          program_(device, recreated(memory_, graph), graph),
          executor_(device, memory_, program_, options.cancelled) {
        std::set<AllocationId> written;
        for (const Node& n : graph.nodes)
            for (const ByteRange& w : n.writes) written.insert(w.allocation);
        written_.assign(written.begin(), written.end());
        initial_.resize(graph.allocations.size());
        for (const auto& a : graph.allocations) initial_[a.id].assign(a.size, 0);
        if (options.data)
            for (const auto& e : options.data->entries)
                std::copy(e.bytes.begin(), e.bytes.end(),
                          initial_[e.allocation].begin() + int64_t(e.offset));
        for (const auto& a : graph.allocations) memory_.upload(a.id, initial_[a.id]);
    }

    const ForeignProgram& program() const { return program_; }
    ForeignExecutor& executor() { return executor_; }

    /// Puts the initial bytes back into every allocation the graph writes.
    void restore() {
        for (AllocationId id : written_) memory_.upload(id, initial_[id]);
    }
    FinalBytes final_bytes() {
        FinalBytes out;
        for (AllocationId id : written_)
            out.emplace_back(id, memory_.download(id, 0, graph_.allocations[id].size));
        return out;
    }
    std::string describe(const Difference& d) const {
        const AllocationInfo& a = graph_.allocations[d.allocation];
        const Node* w = last_writer(graph_, d.allocation, d.byte);
        return fmt::format("allocation {} '{}' byte {}: {:02x} instead of {:02x}{}", a.id, a.name,
                           d.byte, d.actual, d.expected,
                           w ? fmt::format(" (last written by dispatch {} '{}')", w->id,
                                           std::string_view(w->label))
                             : "");
    }
    OutputMismatch mismatch(const Difference& d) const {
        OutputMismatch m;
        m.allocation = graph_.allocations[d.allocation].name;
        m.byte = d.byte;
        m.expected = fmt::format("{:02x}", d.expected);
        m.actual = fmt::format("{:02x}", d.actual);
        if (const Node* w = last_writer(graph_, d.allocation, d.byte)) {
            m.last_writer = w->id;
            m.last_writer_label = std::string(w->label);
        }
        return m;
    }

  private:
    const ComputeGraph& graph_;
    DeviceMemory memory_;
    ForeignProgram program_;
    ForeignExecutor executor_;
    std::vector<AllocationId> written_;
    std::vector<std::vector<uint8_t>> initial_;
};

std::string workload_of(const ComputeGraph& graph, const ForeignRunOptions& o) {
    if (!o.workload.empty()) return o.workload;
    for (const char* key : {"workload", "model"})
        if (auto it = graph.metadata.find(key); it != graph.metadata.end()) return it->second;
    return fmt::format("recorded program, {} commands", graph.dispatch_count());
}

// What the run starts from: the program's own notes, the initial bytes, fusion, atomics.
void add_setup_notes(ForeignRunResult& result, const ForeignReplay& replay,
                     const ForeignRunOptions& options) {
    result.notes = replay.program().notes();
    if (!options.data)
        result.notes.push_back(
            "no buffer contents were recorded (record --data): every buffer starts zeroed, so "
            "the kernels compute on zeros");
    else
        result.notes.push_back(
            fmt::format("buffers start with the recorded contents ({} bytes "
                        "in {} ranges)",
                        options.data->total_bytes(), options.data->entries.size()));
    result.notes.push_back(
        "fusion: off (GraphLens has no fusion recipes for this program's kernels)");
    if (!replay.program().atomic_kernels().empty()) {
        std::string names;
        for (const auto& k : replay.program().atomic_kernels())
            names += (names.empty() ? "" : ", ") + k;
        result.notes.push_back("kernels with atomics (results may depend on execution order): " +
                               names);
    }
}

// As-recorded's final bytes, and the allocations two as-recorded runs disagree on.
struct ForeignReference {
    FinalBytes bytes;
    std::set<AllocationId> unstable;
};

// The reference: as-recorded from the initial bytes, twice, to find what it does not
// compute the same way twice (atomics, races) before judging other modes by it.
ForeignReference run_reference(ForeignReplay& replay, const ComputeGraph& graph,
                               const ForeignRunOptions& options, const RunControl& control,
                               ForeignRunResult& result) {
    control.progress("as-recorded: reference runs");
    const ForeignPlan reference_plan = plan_foreign_mode(graph, ForeignMode::as_recorded, options);
    replay.restore();
    control.stop_if_cancelled();
    replay.executor().execute(reference_plan);
    ForeignReference reference;
    reference.bytes = replay.final_bytes();
    if (options.keep_final_bytes)
        for (const auto& [id, bytes] : reference.bytes)
            result.final_bytes.entries.push_back({id, 0, bytes});
    replay.restore();
    replay.executor().execute(reference_plan);
    for (auto d = first_difference(reference.bytes, replay.final_bytes()); d;
         d = first_difference(reference.bytes, replay.final_bytes(), reference.unstable)) {
        reference.unstable.insert(d->allocation);
        result.nondeterministic.push_back(graph.allocations[d->allocation].name);
        result.notes.push_back("as-recorded is not deterministic: two runs differ at " +
                               replay.describe(*d));
    }
    return reference;
}

std::string bitwise_comparison(const ComputeGraph& graph, const std::set<AllocationId>& unstable) {
    std::string comparison = "bitwise";
    if (!unstable.empty()) {
        comparison += " except";
        for (AllocationId id : unstable)
            comparison += fmt::format(" '{}'", graph.allocations[id].name);
        comparison += " (not deterministic)";
    }
    return comparison;
}

// Warm-up (at least `warmup` runs and `warmup_ms`), then `repeats` timed runs (levels+ahead:
// `repeats` steps of one loop).
void time_plan(ForeignReplay& replay, const ForeignPlan& plan, const std::string& name,
               const ForeignRunOptions& options, const RunControl& control, ModeResult& mr) {
    control.progress(fmt::format("{}: warm-up", name));
    const bool loop = plan.submission == ForeignSubmission::ahead;
    const auto warm_start = Clock::now();
    for (uint32_t r = 0;
         r < options.warmup ||
         Clock::now() - warm_start < std::chrono::duration<double, std::milli>(options.warmup_ms);
         ++r) {
        control.stop_if_cancelled();
        if (loop)
            replay.executor().execute_steps(plan, std::max(options.warmup, 2u));
        else
            replay.executor().execute(plan);
    }
    std::vector<double> gpu, encode, wall;
    auto add = [&](const ExecutionTiming& s) {
        gpu.push_back(double(s.gpu_ns));
        encode.push_back(double(s.encode_ns));
        wall.push_back(double(s.wall_ns));
    };
    if (loop) {
        // One loop of repeats + 1 steps; the first step's wall includes its own recording
        // (nothing ran before it to hide it), so it is not a sample.
        control.progress(fmt::format("{}: {} steps", name, options.repeats));
        const auto steps = replay.executor().execute_steps(plan, size_t{options.repeats} + 1);
        for (size_t i = 1; i < steps.size(); ++i) add(steps[i]);
    }
    for (uint32_t r = 0; !loop && r < options.repeats; ++r) {
        if (r % 5 == 0)
            control.progress(fmt::format("{}: run {}/{}", name, r + 1, options.repeats));
        control.stop_if_cancelled();
        add(replay.executor().execute(plan));
    }
    mr.gpu_ns = TimingSummary::from_samples(std::move(gpu));
    mr.encode_ns = TimingSummary::from_samples(std::move(encode));
    mr.wall_ns = TimingSummary::from_samples(std::move(wall));
}

// One mode: planned, run from the initial bytes, compared bitwise with as-recorded (except
// its unstable allocations), then timed. The mode's own failure is its result; a lost device
// or a cancellation ends the whole run.
ModeResult run_foreign_mode(ForeignReplay& replay, const ComputeGraph& graph, ForeignMode mode,
                            const ForeignReference& reference, const ForeignRunOptions& options,
                            const RunControl& control) {
    const std::string name(foreign_mode_name(mode));
    ModeResult mr;
    mr.mode = name;
    try {
        control.progress(fmt::format("{}: planning", name));
        const ForeignPlan plan = plan_foreign_mode(graph, mode, options);
        replay.restore();
        control.stop_if_cancelled();
        const ExecutionTiming t = replay.executor().execute(plan);
        mr.dispatches = t.dispatches;
        mr.barriers = t.barriers;
        mr.command_buffers = t.command_buffers;
        const FinalBytes out = replay.final_bytes();
        const auto d = first_difference(reference.bytes, out, reference.unstable);
        mr.comparison = bitwise_comparison(graph, reference.unstable);
        if (d) {
            mr.outputs_match = false;
            mr.mismatch = replay.mismatch(*d);
            mr.comparison = "differs from as-recorded at " + replay.describe(*d);
            mr.error = mr.comparison;
        } else {
            time_plan(replay, plan, name, options, control, mr);
        }
    } catch (const DeviceLost&) {
        throw;
    } catch (const RunCancelled&) {
        throw;
    } catch (const std::exception& e) {
        mr.outputs_match = false;
        mr.error = e.what();
    }
    return mr;
}

// The validation layer's verdict on one mode: its error count and its first five errors.
void add_validation_verdict(const Device& device, ForeignRunResult& result) {
    std::vector<std::string> messages;
    for (const auto& m : device.validation_messages())
        if (m.error && messages.size() < 5) messages.push_back(m.id + ": " + m.text);
    result.validation_errors.push_back(device.validation_errors());
    result.validation_messages.push_back(std::move(messages));
}

}  // namespace

ForeignRunResult run_foreign_capture(Device& device, const ComputeGraph& graph,
                                     const ForeignRunOptions& options) {
    const RunControl control(options);
    ForeignRunResult result;
    const auto& f = device.facts();
    result.run.device = fmt::format("{} ({} {})", f.name, f.driver_name, f.driver_info);
    result.run.workload = workload_of(graph, options);
    result.run.warmup = options.warmup;
    result.run.repeats = options.repeats;
    result.run.date = utc_now();

    device.retired_work().reap();  // what earlier cancelled runs left, where it is done
    control.progress("building the recorded program's pipelines");
    ForeignReplay replay(device, graph, options);
    add_setup_notes(result, replay, options);
    const ForeignReference reference = run_reference(replay, graph, options, control, result);

    for (ForeignMode mode : all_foreign_modes()) {
        if (std::find(options.modes.begin(), options.modes.end(), mode) == options.modes.end())
            continue;
        device.clear_validation_messages();
        ModeResult mr = run_foreign_mode(replay, graph, mode, reference, options, control);
        add_validation_verdict(device, result);
        result.run.modes.push_back(std::move(mr));
    }
    return result;
}

}  // namespace graphlens
