// Runner: plans each execution mode through the pass pipeline, checks its outputs against
// serial from one initial memory state, then times warm-up + repeats.
#include "graphlens/exec/runner.h"
#include "graphlens/graph/pipeline_stage.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <set>
#include <stdexcept>

#include "exec/src/output_comparison.h"
#include "exec/src/run_control.h"
#include "exec/src/utc_now.h"
#include "graphlens/graph/half_float.h"
#include "graphlens/graph/pass_pipeline.h"
#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/device_memory.h"

namespace graphlens {
namespace {

// --- seeded initial data -----------------------------------------------------------------

void put_half(uint8_t* p, float f) {
    const uint16_t h = float_to_half(f);
    std::memcpy(p, &h, 2);
}

// Writes plausible values of `dtype` into [p, p + n): finite floats, small integers (valid
// as token ids and positions), quantized blocks with small positive scales.
void generate(uint8_t* p, uint64_t n, DType dtype, std::mt19937_64& rng) {
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    std::uniform_real_distribution<float> scale(0.001f, 0.02f);
    // Eight random bytes per generator call: weights of a large model are gigabytes.
    uint64_t pool = 0;
    int left = 0;
    auto byte = [&] {
        if (left == 0) {
            pool = rng();
            left = 8;
        }
        --left;
        const auto b = static_cast<uint8_t>(pool);
        pool >>= 8;
        return b;
    };
    const uint64_t block = dtype_block_bytes(dtype);
    switch (dtype) {
        case DType::f32:
            for (uint64_t i = 0; i + 4 <= n; i += 4) {
                const float f = unit(rng);
                std::memcpy(p + i, &f, 4);
            }
            return;
        case DType::f16:
            for (uint64_t i = 0; i + 2 <= n; i += 2) put_half(p + i, unit(rng));
            return;
        case DType::bf16:
            for (uint64_t i = 0; i + 2 <= n; i += 2) {
                const float f = unit(rng);
                uint32_t bits;
                std::memcpy(&bits, &f, 4);
                const uint16_t top = static_cast<uint16_t>(bits >> 16);
                std::memcpy(p + i, &top, 2);
            }
            return;
        case DType::i32:
        case DType::u32:
            for (uint64_t i = 0; i + 4 <= n; i += 4) {
                const uint32_t v = static_cast<uint32_t>(rng() % 8);
                std::memcpy(p + i, &v, 4);
            }
            return;
        case DType::u8:
            for (uint64_t i = 0; i < n; ++i) p[i] = byte();
            return;
        case DType::q4_0:
        case DType::q8_0:
            for (uint64_t b = 0; b + block <= n; b += block) {
                put_half(p + b, scale(rng));
                for (uint64_t i = 2; i < block; ++i) p[b + i] = byte();
            }
            return;
        case DType::q4_k:  // d, dmin, 12 bytes of 6-bit scales/mins, 128 bytes of nibbles
            for (uint64_t b = 0; b + block <= n; b += block) {
                put_half(p + b, scale(rng));
                put_half(p + b + 2, scale(rng));
                for (uint64_t i = 4; i < block; ++i) p[b + i] = byte();
            }
            return;
        case DType::q8x:  // 32 int8, f32 d, a spare word
            for (uint64_t b = 0; b + block <= n; b += block) {
                for (uint64_t i = 0; i < 32; ++i) p[b + i] = byte();
                const float d = unit(rng) * 0.01f;
                std::memcpy(p + b + 32, &d, 4);
                std::memset(p + b + 36, 0, 4);
            }
            return;
        case DType::q6_k:  // ql[128], qh[64], int8 scales[16], d
            for (uint64_t b = 0; b + block <= n; b += block) {
                for (uint64_t i = 0; i < 192; ++i) p[b + i] = byte();
                for (uint64_t i = 192; i < 208; ++i) p[b + i] = static_cast<uint8_t>(rng() % 64);
                put_half(p + b + 208, scale(rng));
            }
            return;
    }
}

}  // namespace

void fill_random(DeviceMemory& memory, const ComputeGraph& graph, uint64_t seed,
                 const std::function<bool()>& cancelled) {
    // The dtype of each distinct bound view decides its values; bytes no view covers stay 0,
    // and so do views bound read-write: a kernel's state across runs (flash_attn_vec's
    // arrival counters, which must start at zero), zeroed after the random views.
    std::map<AllocationId, std::vector<std::pair<ByteRange, DType>>> views;
    std::map<AllocationId, std::vector<ByteRange>> state;
    std::set<std::tuple<AllocationId, uint64_t, uint64_t>> seen;
    for (const Node& n : graph.nodes) {
        if (!n.is_dispatch()) continue;
        const KernelInfo* k = n.kernel < graph.kernels.size() ? &graph.kernels[n.kernel] : nullptr;
        for (const auto& b : n.bindings) {
            const ByteRange r = b.view.range();
            const KernelBinding* kb = k ? k->find_binding(b.binding) : nullptr;
            if (kb && kb->access == BindingAccess::read_write) state[r.allocation].push_back(r);
            if (seen.insert({r.allocation, r.begin, r.end}).second)
                views[r.allocation].push_back({r, b.view.dtype});
        }
    }
    for (const auto& a : graph.allocations) {
        if (cancelled && cancelled()) throw RunCancelled();
        std::vector<uint8_t> bytes(a.size, 0);
        for (const auto& [r, dtype] : views[a.id]) {
            if (r.end > a.size) continue;  // validate_for_replay reports it
            std::mt19937_64 rng(seed ^ (uint64_t{a.id} << 40) ^ r.begin);
            generate(bytes.data() + r.begin, r.size(), dtype, rng);
        }
        for (const ByteRange& r : state[a.id])
            if (r.end <= a.size)
                std::fill(bytes.begin() + int64_t(r.begin), bytes.begin() + int64_t(r.end), 0);
        memory.upload(a.id, bytes);
    }
}

Runner::Runner(Device& device, DeviceMemory& memory)
    : device_(device), memory_(memory), executor_(device, memory) {}

ModePlan Runner::plan(const ComputeGraph& captured, ExecutionMode mode,
                      const RunnerOptions& options) {
    ModePlan p;
    p.mode = mode;
    p.execute.name = std::string(execution_mode_name(mode));
    p.execute.cancelled = options.cancelled;
    switch (mode) {
        case ExecutionMode::per_op_submit:
            p.graph = captured;
            p.execute.submit = SubmitMode::per_dispatch;
            return p;
        case ExecutionMode::serial:
            p.graph = captured;
            p.execute.barriers = BarrierSource::every_dispatch;
            return p;
        case ExecutionMode::elided:
            p.graph = captured;
            p.execute.barriers = BarrierSource::recompute;
            return p;
        default:
            break;
    }
    PassOptions po;
    po.fuse = true;
    po.recipes = options.fusion_recipes;
    po.reorder = mode == ExecutionMode::fused    ? ReorderMode::none
                 : mode == ExecutionMode::greedy ? ReorderMode::greedy
                                                 : ReorderMode::levels;
    po.window = options.greedy_window;
    po.split.min_first = options.split_min_first;
    po.split.first_fraction = options.split_fraction;
    const std::vector<Snapshot> snaps = PassPipeline::run(captured, po);
    const Snapshot* planned = find_stage(snaps, PipelineStage::barriers_planned);
    if (!planned) throw std::logic_error("pass pipeline produced no 'barriers planned' stage");
    p.graph = planned->graph;
    p.execute.barriers = BarrierSource::recorded;
    if (const Snapshot* fused = find_stage(snaps, PipelineStage::fused))
        for (const auto& d : fused->fusions) p.fusions_applied += d.applied;
    if (const Snapshot* re = find_reordered_stage(snaps)) p.reordered = re->reordered;
    if (mode == ExecutionMode::levels_split) {
        const Snapshot* split = find_stage(snaps, PipelineStage::split);
        p.execute.submit = SubmitMode::dual_buffer;
        p.execute.first_dispatches = split ? split->split_first_dispatches : 0;
    }
    if (mode == ExecutionMode::levels_stream) {
        p.execute.submit = SubmitMode::stream;
        p.execute.stream_first = options.stream_first;
        p.execute.stream_growth = options.stream_growth;
    }
    if (mode == ExecutionMode::levels_parallel) {
        p.execute.submit = SubmitMode::parallel;
        p.execute.parallel_threads = options.parallel_threads;
        p.execute.parallel_first = options.parallel_first;
    }
    if (mode == ExecutionMode::levels_ahead) p.execute.submit = SubmitMode::ahead;
    return p;
}

namespace {

// The options' workload name, else the graph's workload/model/phase metadata, else its size.
std::string workload_name(const ComputeGraph& captured, const RunnerOptions& options) {
    std::string workload = options.workload;
    if (workload.empty()) {
        for (const char* key : {"workload", "model", "phase"})
            if (auto it = captured.metadata.find(key); it != captured.metadata.end())
                workload += (workload.empty() ? "" : " ") + it->second;
        if (workload.empty()) workload = fmt::format("{} dispatches", captured.dispatch_count());
    }
    return workload;
}

// The initial state every comparison run starts from: only the allocations the graph writes
// are saved and restored (weights stay put).
class WrittenAllocations {
  public:
    WrittenAllocations(DeviceMemory& memory, const ComputeGraph& graph) : memory_(memory) {
        std::set<AllocationId> written;
        for (const Node& n : graph.nodes)
            for (const auto& w : n.writes) written.insert(w.allocation);
        for (AllocationId id : written)
            saved_.emplace_back(id, memory_.download(id, 0, memory_.info(id).size));
    }
    void restore() const {
        for (const auto& [id, bytes] : saved_) memory_.upload(id, bytes);
    }

  private:
    DeviceMemory& memory_;
    std::vector<std::pair<AllocationId, std::vector<uint8_t>>> saved_;
};

// Warm-up: at least `warmup` runs and at least `warmup_ms` of back-to-back work, so a discrete
// GPU is back at its boost clock after the restore and planning: a GPU that idled while the
// host planned runs its first steps at a lower clock (docs/history.md).
void warm_up(GraphExecutor& executor, const ModePlan& p, const RunnerOptions& options,
             const RunControl& control) {
    const bool loop = p.execute.submit == SubmitMode::ahead;
    const auto warm_start = std::chrono::steady_clock::now();
    for (uint32_t r = 0;
         r < options.warmup || std::chrono::steady_clock::now() - warm_start <
                                   std::chrono::duration<double, std::milli>(options.warmup_ms);
         ++r) {
        control.stop_if_cancelled();
        if (loop)
            executor.execute_steps(p.graph, p.execute, std::max(options.warmup, 2u));
        else
            executor.execute(p.graph, p.execute);
    }
}

struct TimingSamples {
    std::vector<double> gpu, encode, wall;
    void add(const ExecutionTiming& s) {
        gpu.push_back(static_cast<double>(s.gpu_ns));
        encode.push_back(static_cast<double>(s.encode_ns));
        wall.push_back(static_cast<double>(s.wall_ns));
    }
};

// `repeats` timed executions of a warm plan.
TimingSamples timed_repeats(GraphExecutor& executor, const ModePlan& p, const std::string& name,
                            const RunnerOptions& options, const RunControl& control) {
    TimingSamples samples;
    const bool loop = p.execute.submit == SubmitMode::ahead;
    if (loop) {
        // One loop of repeats + 1 steps; the first step's wall includes its own
        // recording (nothing ran before it to hide it), so it is not a sample.
        control.progress(fmt::format("{}: {} steps", name, options.repeats));
        const auto steps = executor.execute_steps(p.graph, p.execute, size_t{options.repeats} + 1);
        for (size_t i = 1; i < steps.size(); ++i) samples.add(steps[i]);
    }
    for (uint32_t r = 0; !loop && r < options.repeats; ++r) {
        if (r % 5 == 0)
            control.progress(fmt::format("{}: run {}/{}", name, r + 1, options.repeats));
        control.stop_if_cancelled();
        samples.add(executor.execute(p.graph, p.execute));
    }
    return samples;
}

// The serial run every mode's outputs are compared against.
struct SerialReference {
    ModePlan plan;
    OutputSnapshot outputs;
};

// What one mode's run needs besides the mode.
struct ModeRunContext {
    GraphExecutor& executor;
    DeviceMemory& memory;
    const ComputeGraph& captured;
    const SerialReference& serial;
    const WrittenAllocations& initial;
    const RunnerOptions& options;
    const RunControl& control;
};

// One mode: planned, run from the initial state, its outputs checked against serial's, then
// warmed up and timed. The mode's own failure is its result; a lost device or a cancellation
// ends the whole run.
ModeResult run_mode(const ModeRunContext& ctx, ExecutionMode mode) {
    const RunnerOptions& options = ctx.options;
    const std::string name(execution_mode_name(mode));
    ModeResult mr;
    mr.mode = name;
    try {
        ctx.control.progress(fmt::format("{}: planning", name));
        ctx.control.stop_if_cancelled();
        ModePlan p = mode == ExecutionMode::serial ? ctx.serial.plan
                                                   : Runner::plan(ctx.captured, mode, options);
        if (options.adjust_plan && mode != ExecutionMode::serial) options.adjust_plan(p);
        ctx.initial.restore();
        ctx.control.stop_if_cancelled();
        const ExecutionTiming t = ctx.executor.execute(p.graph, p.execute);
        const OutputSnapshot out =
            read_outputs(ctx.memory, comparable_outputs(ctx.serial.plan.graph, p.graph));
        const Comparison c =
            compare_outputs(ctx.captured, ctx.serial.outputs, out, p.fusions_applied == 0,
                            options.rel_tolerance, options.abs_tolerance);
        mr.outputs_match = c.match;
        mr.comparison = c.text;
        mr.mismatch = c.first_difference;
        mr.dispatches = t.dispatches;
        mr.barriers = t.barriers;
        mr.command_buffers = t.command_buffers;
        if (!c.match) {
            mr.error = "outputs differ from serial: " + c.text;
            return mr;
        }
        ctx.control.progress(fmt::format("{}: warm-up", name));
        warm_up(ctx.executor, p, options, ctx.control);
        TimingSamples samples = timed_repeats(ctx.executor, p, name, options, ctx.control);
        mr.gpu_ns = TimingSummary::from_samples(std::move(samples.gpu));
        mr.encode_ns = TimingSummary::from_samples(std::move(samples.encode));
        mr.wall_ns = TimingSummary::from_samples(std::move(samples.wall));
    } catch (const DeviceLost&) {
        throw;  // nothing more can run on this device: no mode after this one either
    } catch (const RunCancelled&) {
        throw;  // the whole run is void, not this mode
    } catch (const std::exception& e) {
        mr.outputs_match = false;
        mr.error = e.what();
    }
    return mr;
}

// The captured graph serialised with per-dispatch timestamps.
void profile_dispatches(const ModeRunContext& ctx, RunResult& result) {
    ctx.control.progress("per-dispatch profile (serialised)");
    ctx.control.stop_if_cancelled();
    ctx.initial.restore();
    ExecuteOptions o;
    o.barriers = BarrierSource::every_dispatch;
    o.profile_dispatches = true;
    o.cancelled = ctx.options.cancelled;
    result.per_dispatch = ctx.executor.execute(ctx.captured, o).per_dispatch;
}

// One mode's plan in a single command buffer with a timestamp per concurrency group.
void profile_groups(const ModeRunContext& ctx, RunResult& result) {
    const RunnerOptions& options = ctx.options;
    const std::string name(execution_mode_name(options.group_profile_mode));
    ctx.control.progress(fmt::format("per-group profile of {}", name));
    ctx.control.stop_if_cancelled();
    ModePlan p = Runner::plan(ctx.captured, options.group_profile_mode, options);
    p.execute.submit = SubmitMode::single;
    if (p.execute.barriers == BarrierSource::none) p.execute.barriers = BarrierSource::recompute;
    p.execute.profile_groups = true;
    ctx.initial.restore();
    result.per_group_mode = name;
    result.per_group = ctx.executor.execute(p.graph, p.execute).per_group;
}

}  // namespace

RunResult Runner::run(const ComputeGraph& captured, const RunnerOptions& options) {
    const RunControl control(options);
    RunResult result;
    const auto& f = device_.facts();
    result.device = fmt::format("{} ({} {})", f.name, f.driver_name, f.driver_info);
    result.workload = workload_name(captured, options);
    result.warmup = options.warmup;
    result.repeats = options.repeats;
    result.date = utc_now();

    validate_for_replay(captured, memory_);

    // The initial state every comparison run starts from: random (or kept) data once, then
    // only the allocations the graph writes are saved and restored.
    if (options.initial == InitialData::random) {
        control.progress("filling allocations with seeded random data");
        fill_random(memory_, captured, options.seed, options.cancelled);
    }
    const WrittenAllocations initial(memory_, captured);

    control.progress("serial: reference run");
    SerialReference serial;
    serial.plan = plan(captured, ExecutionMode::serial, options);
    initial.restore();
    control.stop_if_cancelled();
    executor_.execute(serial.plan.graph, serial.plan.execute);
    const auto all_outputs = comparable_outputs(serial.plan.graph, serial.plan.graph);
    serial.outputs = read_outputs(memory_, all_outputs);

    const ModeRunContext ctx{executor_, memory_, captured, serial, initial, options, control};
    for (ExecutionMode mode : all_execution_modes()) {
        if (std::find(options.modes.begin(), options.modes.end(), mode) == options.modes.end())
            continue;
        result.modes.push_back(run_mode(ctx, mode));
    }
    if (options.profile_dispatches) profile_dispatches(ctx, result);
    if (options.profile_groups) profile_groups(ctx, result);
    return result;
}

}  // namespace graphlens
