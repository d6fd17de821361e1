// engine_program recorded with its default range (the first submission with a dispatch: the
// "frame"): the capture states exactly what the program bound, and the analyses find exactly
// what was planted in it.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "engine_layout.h"
#include "graphlens/graph/race_finder.h"
#include "graphlens/graph/schedule_analysis.h"
#include "graphlens/spirv/spirv_hash.h"
#include "layer_test_support.h"

namespace graphlens {
namespace {

using namespace layer_test;

class EngineCapture : public testing::Test {
  protected:
    static void SetUpTestSuite() {
        auto r = record("", ENGINE_PROGRAM);
        output_ = r.result.output;
        exit_code_ = r.result.exit_code;
        if (exit_code_ == 0) doc_ = new CaptureDocument(load_capture(r.capture_path));
    }
    static void TearDownTestSuite() { delete doc_; }
    void SetUp() override {
        ASSERT_EQ(exit_code_, 0) << output_;
        ASSERT_NE(doc_, nullptr);
    }
    const ComputeGraph& graph() const { return doc_->graph; }
    std::vector<size_t> dispatch_nodes() const {
        std::vector<size_t> out;
        for (size_t i = 0; i < graph().nodes.size(); ++i)
            if (graph().nodes[i].is_dispatch()) out.push_back(i);
        return out;
    }
    const Node& dispatch(size_t k) const { return graph().nodes[dispatch_nodes().at(k)]; }
    AllocationId allocation(const std::string& name) const {
        for (const auto& a : graph().allocations)
            if (a.name == name) return a.id;
        ADD_FAILURE() << "no allocation named " << name;
        return 0;
    }
    ByteRange arena(engine::Span s) const { return {allocation("arena"), s.begin, s.end}; }
    ByteRange output(engine::Span s) const { return {allocation("output"), s.begin, s.end}; }
    static std::vector<ByteRange> sorted(std::vector<ByteRange> v) {
        std::sort(v.begin(), v.end(), [](const ByteRange& a, const ByteRange& b) {
            return std::tie(a.allocation, a.begin, a.end) < std::tie(b.allocation, b.begin, b.end);
        });
        return v;
    }
    static std::vector<ByteRange> reads(const Node& n) {
        return sorted({n.reads.begin(), n.reads.end()});
    }
    static std::vector<ByteRange> writes(const Node& n) {
        return sorted({n.writes.begin(), n.writes.end()});
    }

    static inline CaptureDocument* doc_ = nullptr;
    static inline std::string output_;
    static inline int exit_code_ = -1;
};

TEST_F(EngineCapture, HoldsTheFrameDispatchesInOrderWithTheirLabels) {
    ASSERT_EQ(graph().dispatch_count(), 5u);
    for (size_t k = 0; k < 5; ++k) EXPECT_EQ(std::string(dispatch(k).label), engine::kLabels[k]);
    EXPECT_EQ(graph().kernels[dispatch(0).kernel].name, "scale");
    EXPECT_EQ(graph().kernels[dispatch(1).kernel].name, "add");
    EXPECT_EQ(graph().kernels[dispatch(2).kernel].name, "copy.comp");  // its module's name
    EXPECT_EQ(dispatch(3).kernel, dispatch(0).kernel);
    EXPECT_EQ(dispatch(0).workgroups, (std::array<uint32_t, 3>{16, 1, 1}));
    EXPECT_EQ(dispatch(4).workgroups, (std::array<uint32_t, 3>{4, 1, 1}));
}

TEST_F(EngineCapture, KernelsCarryTheirSpirvAndReflectedBindingsWithSets) {
    const KernelInfo& scale = graph().kernels[dispatch(0).kernel];
    ASSERT_FALSE(scale.spirv.empty());
    EXPECT_EQ(scale.spirv_hash, spirv::spirv_hash(scale.spirv));
    EXPECT_EQ(scale.local_size, (std::array<uint32_t, 3>{engine::kLocalSize, 1, 1}));
    ASSERT_EQ(scale.specialization.size(), 1u);
    EXPECT_EQ(scale.push_constant_size, 8u);
    ASSERT_EQ(scale.bindings.size(), 3u);
    EXPECT_EQ(scale.find_binding(0, 0)->access, BindingAccess::read);
    EXPECT_EQ(scale.find_binding(0, 1)->access, BindingAccess::write);
    EXPECT_EQ(scale.find_binding(1, 0)->descriptor, DescriptorKind::uniform_buffer);
}

TEST_F(EngineCapture, RangesAreExactlyWhatTheProgramBound) {
    using namespace engine;
    // Dynamic offsets, VK_WHOLE_SIZE and the buffers' memory offsets resolved.
    EXPECT_EQ(reads(dispatch(0)), sorted({arena(kD0Input), arena(kD0Params)}));
    EXPECT_EQ(writes(dispatch(0)), std::vector<ByteRange>{arena(kD0Out)});
    EXPECT_EQ(reads(dispatch(1)), sorted({arena(kD1A), arena(kD1B)}));
    EXPECT_EQ(writes(dispatch(1)), std::vector<ByteRange>{arena(kD1C)});
    EXPECT_EQ(reads(dispatch(2)), std::vector<ByteRange>{arena(kD2Src)});
    EXPECT_EQ(writes(dispatch(2)), std::vector<ByteRange>{output(kD2Dst)});
    EXPECT_EQ(reads(dispatch(3)), sorted({output(kD3Input), arena(kD3Params)}));
    EXPECT_EQ(writes(dispatch(3)), std::vector<ByteRange>{output(kD3Out)});
    EXPECT_EQ(reads(dispatch(4)), sorted({arena(kD4A), arena(kD4B)}));
    EXPECT_EQ(writes(dispatch(4)), std::vector<ByteRange>{arena(kD4C)});
    for (size_t k = 0; k < 5; ++k) EXPECT_TRUE(dispatch(k).ranges_known) << k;
}

TEST_F(EngineCapture, BuffersAliasingOneMemoryAreOneAllocation) {
    // scratch_a and scratch_b (and input, params) live in the memory named "arena".
    ASSERT_EQ(graph().allocations.size(), 2u);
    EXPECT_EQ(graph().allocations[allocation("arena")].size, engine::kArenaSize);
    EXPECT_EQ(graph().allocations[allocation("output")].size, engine::kOutputSize);
}

TEST_F(EngineCapture, BarriersKeepTheirScopeAndTheBufferBarrierItsBytes) {
    ASSERT_EQ(graph().barrier_count(), 2u);
    std::vector<const Node*> barriers;
    for (const auto& n : graph().nodes)
        if (n.is_barrier()) barriers.push_back(&n);
    const BarrierScope* buffer_barrier = graph().scope_of(*barriers[0]);
    ASSERT_NE(buffer_barrier, nullptr);
    ASSERT_EQ(buffer_barrier->dependencies.size(), 1u);
    const MemoryDependency& dep = buffer_barrier->dependencies[0];
    EXPECT_EQ(dep.range, arena(engine::kBarrierSpan));
    EXPECT_EQ(dep.src_stages, kStageCompute);
    EXPECT_EQ(dep.src_access, kAccessShaderWrite);
    EXPECT_EQ(dep.dst_access, kAccessShaderRead);
    const BarrierScope* global = graph().scope_of(*barriers[1]);
    ASSERT_NE(global, nullptr);
    EXPECT_FALSE(global->dependencies.at(0).range.has_value());
}

TEST_F(EngineCapture, FindsExactlyThePlantedRace) {
    const auto races = find_races(graph());
    ASSERT_EQ(races.size(), 1u) << (races.empty() ? "" : races[0].explanation);
    const Hazard& h = races[0].hazard;
    EXPECT_EQ(h.kind, HazardKind::raw);
    EXPECT_EQ(h.earlier, dispatch_nodes()[2]);
    EXPECT_EQ(h.later, dispatch_nodes()[3]);
    EXPECT_EQ(h.overlap(), output(engine::kD2Dst));
    EXPECT_TRUE(races[0].barriers.empty());
}

TEST_F(EngineCapture, CallsExactlyThePlantedBarrierRedundant) {
    const auto explanations = explain_barriers(graph());
    ASSERT_EQ(explanations.size(), 2u);
    EXPECT_FALSE(explanations[0].redundant);  // the buffer barrier orders dispatch 0 → 1
    EXPECT_TRUE(explanations[1].redundant);
}

TEST_F(EngineCapture, StatesItsSourceAndDevice) {
    ASSERT_TRUE(doc_->source.has_value());
    const CaptureSource& s = *doc_->source;
    EXPECT_NE(s.program.find("engine_program"), std::string::npos);
    EXPECT_EQ(s.range, "first submission with a dispatch");
    ASSERT_EQ(s.submissions.size(), 1u);
    EXPECT_EQ(s.submissions[0].index, 1u);
    EXPECT_EQ(s.submissions[0].sync, "host wait");
    EXPECT_TRUE(std::count(s.device_extensions.begin(), s.device_extensions.end(),
                           "VK_KHR_push_descriptor"));
    EXPECT_TRUE(std::count(s.instance_extensions.begin(), s.instance_extensions.end(),
                           "VK_EXT_debug_utils"));
    EXPECT_TRUE(std::count(s.features.begin(), s.features.end(), "synchronization2"));
    EXPECT_NE(doc_->device.name.find("llvmpipe"), std::string::npos);
}

TEST(EngineUnderTheLayer, ComputesWhatItComputesWithoutIt) {
    const std::string alone = scratch_path(".alone.bin"), recorded = scratch_path(".recorded.bin");
    ASSERT_EQ(run(std::string(ENGINE_PROGRAM) + " --out " + alone).exit_code, 0);
    ASSERT_EQ(record("", std::string(ENGINE_PROGRAM) + " --out " + recorded).result.exit_code, 0);
    auto bytes = [](const std::string& p) {
        std::ifstream in(p, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    };
    EXPECT_FALSE(bytes(alone).empty());
    EXPECT_EQ(bytes(alone), bytes(recorded));
}

TEST(EngineUnderValidation, SyncValidationReportsOnlyThePlantedMissingBarrier) {
    const auto r = run(std::string(ENGINE_PROGRAM) + " --validate");
    EXPECT_EQ(r.exit_code, 3) << r.output;
    size_t hazards = 0, errors = 0;
    for (size_t at = r.output.find("validation error"); at != std::string::npos;
         at = r.output.find("validation error", at + 1))
        ++errors;
    for (size_t at = r.output.find("SYNC-HAZARD"); at != std::string::npos;
         at = r.output.find("SYNC-HAZARD", at + 1))
        ++hazards;
    EXPECT_EQ(errors, 1u) << r.output;
    EXPECT_NE(r.output.find("[SYNC-HAZARD-READ-AFTER-WRITE]"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("SYNC-HAZARD-WRITE"), std::string::npos) << r.output;
    // The hazard is dispatch 3 (pipeline "scale") reading the "output" buffer, which dispatch 2
    // wrote.
    EXPECT_NE(r.output.find("[output]"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("[scale]"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace graphlens

namespace graphlens {
namespace {

TEST(EngineUnderValidation, TheLayerAddsNoValidationMessageAndRecordKeepsTheCapture) {
    // The program's own validation layer (found although record sets VK_LAYER_PATH) sees the
    // planted hazard and nothing else; record reports the program's exit status 3 and keeps
    // the capture.
    const auto r = layer_test::record("", std::string(ENGINE_PROGRAM) + " --validate");
    EXPECT_EQ(r.result.exit_code, 3) << r.result.output;
    size_t errors = 0;
    for (size_t at = r.result.output.find("validation error"); at != std::string::npos;
         at = r.result.output.find("validation error", at + 1))
        ++errors;
    EXPECT_EQ(errors, 1u) << r.result.output;
    EXPECT_NE(r.result.output.find("the capture is kept"), std::string::npos);
    EXPECT_EQ(load_capture(r.capture_path).graph.dispatch_count(), 5u);
}

}  // namespace
}  // namespace graphlens
