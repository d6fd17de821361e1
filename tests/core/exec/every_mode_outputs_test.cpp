// Every execution mode computes what serial computes, on the graphs users open first: the
// GUI's built-in sample (a capture file shipped in resources/) and a capture of every
// built-in preset's architecture, decode and prefill. A fusion, reorder or barrier plan that
// changes any output byte beyond the fused kernels' tolerance fails here, and so does a
// shipped sample that this build's kernels no longer run as recorded.
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <string>

#include "graphlens/capture/capture_file.h"
#include "graphlens/exec/replay.h"
#include "graphlens/exec/runner.h"
#include "graphlens/model/model_config.h"
#include "graphlens/model/transformer_builder.h"
#include "graphlens/ops/fusion_recipes.h"
#include "graphlens/vulkan/command_encoder.h"
#include "graphlens/vulkan/kernel_catalog.h"
#include "vulkan/gpu_fixture.h"

namespace graphlens::test {
namespace {

const char* const kSample = GRAPHLENS_RESOURCES_DIR "/sample-llama-3.2-1b-decode.json";

// One check run and one timed run per mode: this is about outputs, not speed.
RunnerOptions check_every_mode() {
    RunnerOptions o;
    o.fusion_recipes = ops::fusion_recipes();
    o.warmup = 0;
    o.warmup_ms = 0;
    o.repeats = 1;
    return o;
}

void expect_every_mode_equal(const RunResult& r) {
    ASSERT_EQ(r.modes.size(), all_execution_modes().size());
    for (const ModeResult& m : r.modes) {
        EXPECT_TRUE(m.error.empty()) << m.mode << ": " << m.error;
        EXPECT_TRUE(m.outputs_match) << m.mode << ": " << m.comparison;
    }
}

TEST(ShippedSample, WasRecordedWithThisBuildsKernels) {
    const CaptureDocument doc = load_capture(kSample);
    const KernelCatalog& catalog = KernelCatalog::embedded();
    ASSERT_FALSE(doc.graph.kernels.empty());
    for (const KernelInfo& k : doc.graph.kernels) {
        const KernelInfo* have = catalog.find(k.name);
        ASSERT_NE(have, nullptr) << k.name;
        EXPECT_EQ(k.spirv_hash, have->spirv_hash)
            << k.name << " changed since the sample was recorded: run resources/make-sample.sh";
    }
}

// On the shared device, failing on any validation message (GpuTest).
using ShippedSampleRun = GpuTest;

TEST_F(ShippedSampleRun, EveryModeGivesTheOutputsOfSerial) {
    const CaptureDocument doc = load_capture(kSample);
    expect_every_mode_equal(replay_capture(device(), doc.graph, check_every_mode()));
}

TEST_F(ShippedSampleRun, ReplayRefusesAKernelRecordedWithOtherCode) {
    // A dispatch's grid and push constants belong to the code it was recorded for.
    CaptureDocument doc = load_capture(kSample);
    doc.graph.kernels.front().spirv_hash ^= 1;
    memory->recreate(doc.graph);
    try {
        validate_for_replay(doc.graph, *memory);
        FAIL() << "a kernel with another SPIR-V hash was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find(doc.graph.kernels.front().name), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("record the workload again"), std::string::npos)
            << e.what();
    }
}

struct PresetCase {
    std::string preset;
    Phase phase;
};

void PrintTo(const PresetCase& c, std::ostream* os) {
    *os << c.preset << " " << phase_name(c.phase);
}

std::string case_name(const ::testing::TestParamInfo<PresetCase>& info) {
    std::string name = info.param.preset + "_" + std::string(phase_name(info.param.phase));
    std::replace_if(
        name.begin(), name.end(), [](char c) { return !std::isalnum(c); }, '_');
    return name;
}

std::vector<PresetCase> every_preset_and_phase() {
    std::vector<PresetCase> cases;
    for (const ModelPreset& p : model_presets())
        for (Phase phase : {Phase::decode, Phase::prefill}) cases.push_back({p.name, phase});
    return cases;
}

class EveryPreset : public GpuTest, public ::testing::WithParamInterface<PresetCase> {};

// The preset's architecture, head size, grouping of query heads and kinds of layer, small
// enough for lavapipe (a full 8B model takes minutes there): the fewest layers that hold each
// kind of layer (two, or one sliding-window period), up to a quarter of the heads (and of the
// width, where it is the heads': n_embd = n_head * head_dim), and a vocabulary, FFN and expert
// count that still take every kernel variant and fusion the full sizes take.
ModelConfig small_twin(ModelConfig c) {
    c.n_layer = std::max(2u, c.sliding_window_pattern);
    const uint32_t fewer = c.n_head_kv % 4 == 0 ? 4 : c.n_head_kv % 2 == 0 ? 2 : 1;
    const bool width_of_heads = c.n_embd == c.q_dim();
    c.n_head /= fewer;
    c.n_head_kv /= fewer;
    if (width_of_heads) c.n_embd = c.q_dim();
    c.n_expert_used = std::min(c.n_expert_used, 4u);
    c.n_vocab = std::min(c.n_vocab, 2048u);
    c.n_ff = std::min(c.n_ff, 2048u);
    c.n_expert = std::min(c.n_expert, 16u);
    c.validate();
    return c;
}

TEST_P(EveryPreset, EveryModeGivesTheOutputsOfSerial) {
    CaptureRequest request;
    request.config = small_twin(model_preset(GetParam().preset).config);
    request.phase = GetParam().phase;
    request.tokens = request.phase == Phase::prefill ? 16 : 1;
    request.kv_length = request.phase == Phase::prefill ? 0 : 64;
    const ComputeGraph graph = capture_transformer(*memory, request);
    Runner runner(device(), *memory);
    expect_every_mode_equal(runner.run(graph, check_every_mode()));
}

INSTANTIATE_TEST_SUITE_P(Captures, EveryPreset, ::testing::ValuesIn(every_preset_and_phase()),
                         case_name);

}  // namespace
}  // namespace graphlens::test
