// Runner on lavapipe: every execution mode runs the same graph, agrees with serial and is
// timed; comparisons catch changed results; modes parse with clear errors.
#include "graphlens/exec/runner.h"
#include "graphlens/ops/fusion_recipes.h"
#include "graphlens/ops/ops.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "exec/src/output_comparison.h"
#include "graphlens/exec/replay.h"
#include "graphlens/vulkan/graph_session.h"
#include "vulkan/gpu_fixture.h"
#include "vulkan/long_chain.h"

namespace graphlens::test {
namespace {

// Two layers of: h = x * g; a = h + b1; c = a + b2 (an add chain the fusion pass can take);
// q = h * w1; k = h * w2 (concurrent); s = q + k; y = c + s (into the other residual row).
ComputeGraph record_block(GraphExecutor& exec, int layers = 2, int64_t n = 512) {
    DeviceMemory& mem = exec.memory();
    const uint64_t bytes = static_cast<uint64_t>(n) * 4;
    const AllocationId resid = mem.allocate("residual", 2 * bytes, AllocationUsage::activations);
    const AllocationId weights = mem.allocate("weights", 5 * bytes, AllocationUsage::weights);
    const AllocationId scratch = mem.allocate("scratch", 6 * bytes, AllocationUsage::scratch);
    auto w = [&](int i) { return mem.view(weights, DType::f32, {n}, bytes * i); };
    auto t = [&](int i) { return mem.view(scratch, DType::f32, {n}, bytes * i); };
    auto x = [&](int i) { return mem.view(resid, DType::f32, {n}, bytes * (i % 2)); };
    auto s = exec.begin_recorded();
    for (int l = 0; l < layers; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        ops::mul(s, x(l), w(0), t(0), p + "norm_mul");
        ops::add(s, t(0), w(1), t(1), p + "bias1");
        ops::add(s, t(1), w(2), t(2), p + "bias2");
        ops::mul(s, t(0), w(3), t(3), p + "q");
        ops::mul(s, t(0), w(4), t(4), p + "k");
        ops::add(s, t(3), t(4), t(5), p + "qk");
        ops::add(s, t(2), t(5), x(l + 1), p + "residual");
    }
    ComputeGraph g = s.finish_recording();
    g.metadata["workload"] = "test block";
    return g;
}

/// The fused modes fuse with the LLM workload's table, as the CLI's do.
RunnerOptions with_fusion_recipes() {
    RunnerOptions o;
    o.fusion_recipes = ops::fusion_recipes();
    return o;
}

class RunnerTest : public GpuTest {
  protected:
    void SetUp() override {
        GpuTest::SetUp();
        runner = std::make_unique<Runner>(device(), *memory);
        graph = record_block(runner->executor());
        options.warmup = 1;
        options.repeats = 3;
    }
    const ModeResult& mode(const RunResult& r, std::string_view name) {
        for (const auto& m : r.modes)
            if (m.mode == name) return m;
        throw std::runtime_error("mode missing: " + std::string(name));
    }
    std::unique_ptr<Runner> runner;
    ComputeGraph graph;
    RunnerOptions options = with_fusion_recipes();
};

TEST_F(RunnerTest, EveryModeAgreesWithSerialAndIsTimed) {
    const RunResult r = runner->run(graph, options);
    ASSERT_EQ(r.modes.size(), all_execution_modes().size());
    EXPECT_EQ(r.workload, "test block");
    const size_t n = graph.dispatch_count();
    for (const auto& m : r.modes) {
        SCOPED_TRACE(m.mode);
        EXPECT_TRUE(m.error.empty()) << m.error;
        EXPECT_TRUE(m.outputs_match) << m.comparison;
        EXPECT_EQ(m.gpu_ns.samples.size(), options.repeats);
        EXPECT_EQ(m.wall_ns.samples.size(), options.repeats);
        EXPECT_GT(m.wall_ns.median, 0);
        EXPECT_LE(m.wall_ns.min, m.wall_ns.median);
        EXPECT_LE(m.wall_ns.median, m.wall_ns.max);
        if (!execution_mode_fuses(*execution_mode_from_name(m.mode))) {
            EXPECT_EQ(m.dispatches, n);
        }
    }
    EXPECT_EQ(mode(r, "per-op-submit").command_buffers, n);
    EXPECT_EQ(mode(r, "serial").barriers, n - 1);
    EXPECT_EQ(mode(r, "serial").comparison, "bitwise");
    EXPECT_EQ(mode(r, "elided").comparison, "bitwise");
    EXPECT_LT(mode(r, "elided").barriers, mode(r, "serial").barriers);
    EXPECT_LE(mode(r, "levels").barriers, mode(r, "elided").barriers);
    EXPECT_EQ(mode(r, "levels+split").command_buffers, 2u);
    // Buffers end at group ends, so there are at most as many as shares.
    EXPECT_GE(mode(r, "levels+stream").command_buffers, 1u);
    EXPECT_LE(mode(r, "levels+stream").command_buffers,
              stream_chunk_dispatches(mode(r, "levels").dispatches).size());
    // The loop of steps: levels' plan, one command buffer a step.
    EXPECT_EQ(mode(r, "levels+ahead").command_buffers, 1u);
    EXPECT_EQ(mode(r, "levels+ahead").barriers, mode(r, "levels").barriers);
}

TEST_F(RunnerTest, ACancelStopsTheRunBeforeTheNextExecution) {
    // Cancelled once the first mode's warm-up begins: the run ends there, not after its 1000
    // repeats or a mode later.
    options.modes = parse_execution_modes("serial,elided");
    options.repeats = 1000;
    bool cancel = false;
    std::vector<std::string> lines;
    options.progress = [&](std::string_view line) {
        lines.emplace_back(line);
        if (line == "serial: warm-up") cancel = true;
    };
    options.cancelled = [&] { return cancel; };
    EXPECT_THROW(runner->run(graph, options), RunCancelled);
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines.back(), "serial: warm-up");
}

TEST_F(RunnerTest, ACancelFromAnotherThreadEndsAnExecutionInFlightWithinASecond) {
    // The GUI's Cancel: a flag set on another thread while the GPU runs one long submission
    // (the serial reference of about three seconds of adds on lavapipe). The run ends within a
    // second of the cancel with no results, leaving the submission to the GPU; the next run on
    // the same device is right, and the validation layer reports nothing of either.
    using Clock = std::chrono::steady_clock;
    LongChain chain;
    chain.setup(*memory, 5);
    const ComputeGraph long_graph =
        chain.record(runner->executor(), chain.dispatches_for(runner->executor(), 3.0));
    std::atomic<bool> cancel{false}, reference_started{false};
    options.modes = parse_execution_modes("serial");
    options.progress = [&](std::string_view line) {
        if (line == "serial: reference run") reference_started = true;
    };
    options.cancelled = [&] { return cancel.load(); };
    Clock::time_point cancelled_at;
    std::thread canceller([&] {
        const auto give_up = Clock::now() + std::chrono::seconds(60);
        while (!reference_started && Clock::now() < give_up)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        cancelled_at = Clock::now();
        cancel = true;
    });
    EXPECT_THROW(replay_capture(device(), long_graph, options), RunCancelled);
    const auto returned = Clock::now();
    canceller.join();
    EXPECT_LT(returned - cancelled_at, std::chrono::seconds(1))
        << std::chrono::duration<double>(returned - cancelled_at).count() << " s after the cancel";
    EXPECT_GT(device().retired_work().pending(), 0u) << "no submission was in flight to abandon";

    options.progress = {};
    options.cancelled = {};
    options.modes = parse_execution_modes("serial,elided,levels");
    const RunResult next = replay_capture(device(), graph, options);
    ASSERT_EQ(next.modes.size(), 3u);
    for (const auto& m : next.modes) {
        SCOPED_TRACE(m.mode);
        EXPECT_TRUE(m.error.empty()) << m.error;
        EXPECT_TRUE(m.outputs_match) << m.comparison;
    }
    const auto until = Clock::now() + std::chrono::seconds(120);
    while (device().retired_work().pending() > 0 && Clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        device().retired_work().reap();
    }
    EXPECT_EQ(device().retired_work().pending(), 0u);
    expect_no_validation_messages();
}

TEST_F(RunnerTest, ACancelWhileTheInitialDataIsGeneratedStopsBeforeAnyExecution) {
    // A model's random weights take seconds on a CPU device: a cancel then ends the run
    // before the reference execution.
    bool cancel = false;
    std::vector<std::string> lines;
    options.progress = [&](std::string_view line) {
        lines.emplace_back(line);
        if (line.starts_with("filling")) cancel = true;
    };
    options.cancelled = [&] { return cancel; };
    EXPECT_THROW(runner->run(graph, options), RunCancelled);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_TRUE(lines[0].starts_with("filling")) << lines[0];
}

TEST_F(RunnerTest, RequestedModesOnlyInCanonicalOrder) {
    options.modes = parse_execution_modes("elided,per-op-submit");
    const RunResult r = runner->run(graph, options);
    ASSERT_EQ(r.modes.size(), 2u);
    EXPECT_EQ(r.modes[0].mode, "per-op-submit");
    EXPECT_EQ(r.modes[1].mode, "elided");
}

TEST_F(RunnerTest, KeptInitialDataGivesMatchingModes) {
    // Data of our own, unlike any seed's: every mode must start from exactly it.
    for (const auto& a : graph.allocations) memory->fill(a.id, 0x3C);  // 0x3C3C3C3C = 0.0115f
    const auto inputs_before = memory->download(graph.allocations[1].id, 0, 16);
    options.initial = InitialData::keep;
    options.modes = parse_execution_modes("serial,elided,levels");
    const RunResult r = runner->run(graph, options);
    ASSERT_EQ(r.modes.size(), 3u);
    for (const auto& m : r.modes) EXPECT_TRUE(m.outputs_match) << m.mode << ": " << m.comparison;
    // The weights (never written) are still the kept bytes, not random ones.
    EXPECT_EQ(memory->download(graph.allocations[1].id, 0, 16), inputs_before);
    EXPECT_EQ(inputs_before, std::vector<uint8_t>(16, 0x3C));
}

TEST_F(RunnerTest, PerDispatchProfileCoversEveryDispatch) {
    options.modes = {ExecutionMode::serial};
    options.profile_dispatches = true;
    const RunResult r = runner->run(graph, options);
    ASSERT_EQ(r.per_dispatch.size(), graph.dispatch_count());
    EXPECT_EQ(r.per_dispatch.front().label, "blk.0.norm_mul");
    EXPECT_EQ(r.per_dispatch.back().label, "blk.1.residual");
    for (const auto& d : r.per_dispatch) EXPECT_LE(d.start_ns, d.end_ns);
}

TEST_F(RunnerTest, FillRandomIsDeterministicPerSeed) {
    auto contents = [&] {
        std::vector<std::vector<uint8_t>> all;
        for (const auto& a : graph.allocations) all.push_back(memory->download(a.id, 0, a.size));
        return all;
    };
    fill_random(*memory, graph, 11);
    const auto first = contents();
    fill_random(*memory, graph, 11);
    EXPECT_EQ(contents(), first);
    fill_random(*memory, graph, 12);
    EXPECT_NE(contents(), first);
}

TEST_F(RunnerTest, ComparisonReportsTheFirstDifferenceWithAllocationAndByte) {
    fill_random(*memory, graph, 3);
    runner->executor().execute(graph);
    const auto views = comparable_outputs(graph, graph);
    const OutputSnapshot reference = read_outputs(*memory, views);
    OutputSnapshot changed = reference;
    // Nudge one float of the last output by a relative 1e-5, then by a factor of 2.
    auto& bytes = changed.bytes.back();
    float f;
    std::memcpy(&f, bytes.data() + 8, 4);
    const float nudged = f * (1.0f + 1e-5f);
    std::memcpy(bytes.data() + 8, &nudged, 4);
    const Comparison exact = compare_outputs(graph, reference, changed, true, 1e-3, 1e-5);
    EXPECT_FALSE(exact.match);
    EXPECT_NE(exact.text.find("allocation 'residual'"), std::string::npos) << exact.text;
    const Comparison tolerant = compare_outputs(graph, reference, changed, false, 1e-3, 1e-5);
    EXPECT_TRUE(tolerant.match) << tolerant.text;
    EXPECT_NE(tolerant.text.find("within tolerance"), std::string::npos);
    const float doubled = f * 2.0f + 1.0f;
    std::memcpy(bytes.data() + 8, &doubled, 4);
    const Comparison wrong = compare_outputs(graph, reference, changed, false, 1e-3, 1e-5);
    EXPECT_FALSE(wrong.match);
    EXPECT_NE(wrong.text.find("beyond tolerance"), std::string::npos);
}

TEST(OutputComparisonTest, NearZeroElementIsJudgedAtThePiecesScale) {
    ComputeGraph g;
    g.add_allocation("out", 16, AllocationUsage::output);
    auto snapshot = [](std::vector<float> values) {
        OutputSnapshot s;
        s.views.push_back({{0, 0, values.size() * 4}, DType::f32});
        s.bytes.emplace_back(values.size() * 4);
        std::memcpy(s.bytes.back().data(), values.data(), values.size() * 4);
        return s;
    };
    const OutputSnapshot reference = snapshot({2.4e-4f, 1.0f, -1.0f, 1.0f});
    // 2e-5 off: 8 % of the element, but 2e-5 of the piece's RMS (about 0.87).
    const Comparison rounding =
        compare_outputs(g, reference, snapshot({2.2e-4f, 1.0f, -1.0f, 1.0f}), false, 1e-3, 1e-5);
    EXPECT_TRUE(rounding.match) << rounding.text;
    // Off by the piece's scale: wrong, whatever the element's own size.
    const Comparison wrong =
        compare_outputs(g, reference, snapshot({0.5f, 1.0f, -1.0f, 1.0f}), false, 1e-3, 1e-5);
    EXPECT_FALSE(wrong.match);
    EXPECT_NE(wrong.text.find("allocation 'out' byte 0"), std::string::npos) << wrong.text;
}

TEST_F(RunnerTest, FusionDropsIntermediatesFromTheComparison) {
    const ModePlan fused = Runner::plan(graph, ExecutionMode::fused, options);
    const auto compared = comparable_outputs(graph, fused.graph);
    const auto all = comparable_outputs(graph, graph);
    EXPECT_LE(compared.size(), all.size());
    EXPECT_GT(fused.fusions_applied, 0u);  // bias1→bias2 and the adds into the residual
    if (fused.fusions_applied > 0) {
        EXPECT_LT(fused.graph.dispatch_count(), graph.dispatch_count());
        EXPECT_LT(compared.size(), all.size());
    }
}

// A dead intermediate must not be compared even when another dispatch's earlier write covers
// its bytes: serial leaves the intermediate there, the fused schedule leaves the older value.
TEST(OutputComparison, DeadIntermediateIsSkippedButEveryLiveByteIsCompared) {
    ComputeGraph g;
    const AllocationId scratch = g.add_allocation("scratch", 48, AllocationUsage::scratch);
    KernelInfo k;
    k.name = "one_in_one_out";
    k.bindings = {{0, BindingAccess::read, "in"}, {1, BindingAccess::write, "out"}};
    const KernelId kid = g.add_kernel(k);
    auto view = [&](uint64_t offset, uint64_t size) {
        TensorView v;
        v.allocation = scratch;
        v.offset = offset;
        v.size = size;
        v.shape = {static_cast<int64_t>(size / 4), 1, 1, 1};
        return v;
    };
    auto dispatch = [&](uint64_t in, uint64_t out, uint64_t out_size, std::string label) {
        Node n;
        n.kernel = kid;
        n.label = std::move(label);
        n.bindings = {{0, view(in, 16)}, {1, view(out, out_size)}};
        g.add_dispatch(std::move(n));
    };
    dispatch(32, 0, 32, "attn_tmp");  // id 0 writes [0, 32)
    dispatch(32, 0, 16, "act");       // id 1 writes [0, 16): the intermediate
    dispatch(0, 32, 16, "act_mul");   // id 2 reads it, writes [32, 48)

    ComputeGraph fused = g;
    fused.nodes.erase(fused.nodes.begin() + 1, fused.nodes.end());
    Node f = g.nodes[2];
    f.id = 3;
    f.origin = {1, 2};
    fused.nodes.push_back(f);

    const auto pieces = comparable_outputs(g, fused);
    std::vector<ByteRange> ranges;
    for (const auto& p : pieces) ranges.push_back(p.range);
    EXPECT_EQ(ranges, (std::vector<ByteRange>{{scratch, 16, 32}, {scratch, 32, 48}}));
    // Without fusion every final byte is compared.
    EXPECT_EQ(comparable_outputs(g, g).size(), 3u);
}

TEST(ExecutionModes, ParseNamesAndRejectUnknownOnes) {
    EXPECT_EQ(parse_execution_modes("all"), all_execution_modes());
    EXPECT_EQ(parse_execution_modes("levels+split,serial,serial"),
              (std::vector<ExecutionMode>{ExecutionMode::levels_split, ExecutionMode::serial}));
    for (auto m : all_execution_modes())
        EXPECT_EQ(execution_mode_from_name(execution_mode_name(m)), m);
    try {
        parse_execution_modes("serial,turbo");
        FAIL() << "expected an exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("'turbo'"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("levels+split"), std::string::npos);
    }
}

// Other errors are one mode's result, but a lost device ends the run: the modes after it would
// only fail the same way on a dead device, and the caller must create a new one.
TEST_F(RunnerTest, ALostDeviceEndsTheRunInsteadOfFailingEachMode) {
    options.modes = parse_execution_modes("serial,elided,fused");
    size_t adjusted = 0;
    options.adjust_plan = [&](ModePlan&) {
        ++adjusted;
        throw DeviceLost("Vulkan: vkQueueSubmit failed (VK_ERROR_DEVICE_LOST, VkResult -4)");
    };
    EXPECT_THROW(runner->run(graph, options), DeviceLost);
    EXPECT_EQ(adjusted, 1u);  // elided lost the device; fused never started
}

}  // namespace
}  // namespace graphlens::test

namespace graphlens::test {
namespace {

TEST_F(RunnerTest, PerGroupProfileCoversEveryGroupOfTheMode) {
    options.modes = {ExecutionMode::elided};
    options.profile_groups = true;
    options.group_profile_mode = ExecutionMode::elided;
    const RunResult r = runner->run(graph, options);
    EXPECT_EQ(r.per_group_mode, "elided");
    ASSERT_EQ(r.per_group.size(), r.modes[0].barriers + 1);
    size_t dispatches = 0;
    for (size_t i = 0; i < r.per_group.size(); ++i) {
        const GroupTiming& g = r.per_group[i];
        EXPECT_EQ(g.first_dispatch, dispatches);
        EXPECT_GT(g.dispatches, 0u);
        EXPECT_LE(g.start_ns, g.end_ns);
        if (i > 0) {
            EXPECT_EQ(g.start_ns, r.per_group[i - 1].end_ns);
        }
        dispatches += g.dispatches;
    }
    EXPECT_EQ(dispatches, graph.dispatch_count());
    EXPECT_EQ(r.per_group.front().first_label, "blk.0.norm_mul");
}

}  // namespace
}  // namespace graphlens::test

namespace graphlens::test {
namespace {

// A schedule that breaks a dependency (a reader moved before its writer) must come out as an
// error of that mode, with the place of the first difference, and without timings.
TEST_F(RunnerTest, AModeThatChangesResultsIsReportedAsAnErrorNotATiming) {
    options.modes = parse_execution_modes("serial,elided");
    options.adjust_plan = [](ModePlan& p) {
        // nodes: norm_mul, bias1 (reads norm_mul's output), ...: run bias1 first.
        auto& nodes = p.graph.nodes;
        ASSERT_EQ(nodes[0].label, "blk.0.norm_mul");
        auto bias1 = std::find_if(nodes.begin(), nodes.end(),
                                  [](const Node& n) { return n.label == "blk.0.bias1"; });
        ASSERT_NE(bias1, nodes.end());
        std::rotate(nodes.begin(), bias1, bias1 + 1);
    };
    const RunResult r = runner->run(graph, options);
    const ModeResult& serial = mode(r, "serial");
    EXPECT_TRUE(serial.outputs_match);
    const ModeResult& broken = mode(r, "elided");
    EXPECT_FALSE(broken.outputs_match);
    EXPECT_NE(broken.error.find("differs from serial"), std::string::npos) << broken.error;
    // Scratch is overwritten by layer 1; the first final bytes layer 0 got wrong are its
    // residual row.
    EXPECT_NE(broken.comparison.find("allocation 'residual' byte 2048"), std::string::npos)
        << broken.comparison;
    EXPECT_TRUE(broken.gpu_ns.samples.empty());
    // The same place as data, with both values and the dispatch that writes the byte last in
    // serial order (blk.0.residual writes row 1 of the residual).
    ASSERT_TRUE(broken.mismatch.has_value());
    EXPECT_EQ(broken.mismatch->allocation, "residual");
    EXPECT_EQ(broken.mismatch->byte, 2048u);
    EXPECT_NE(broken.mismatch->expected, broken.mismatch->actual);
    EXPECT_FALSE(broken.mismatch->expected.empty());
    EXPECT_EQ(broken.mismatch->last_writer_label, "blk.0.residual");
    ASSERT_TRUE(broken.mismatch->last_writer.has_value());
    EXPECT_FALSE(serial.mismatch.has_value());
}

}  // namespace
}  // namespace graphlens::test
