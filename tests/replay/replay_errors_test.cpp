// Captures a device cannot replay: `run` names what and where, exits non-zero and runs
// nothing.
#include <gtest/gtest.h>

#include "graphlens/capture/capture_file.h"
#include "replay_test_support.h"

namespace graphlens {
namespace {

using namespace layer_test;
using namespace replay_test;

CaptureDocument foreign_minimal() {
    return load_capture(std::string(CAPTURES_DIR) + "/foreign_minimal.json");
}

std::string saved(const CaptureDocument& doc) {
    const std::string path = scratch_path(".json");
    save_capture(doc, path);
    return path;
}

TEST(ReplayErrors, AFeatureOrExtensionTheDeviceLacksIsNamed) {
    CaptureDocument doc = foreign_minimal();
    // lavapipe has no sparse memory and no NVIDIA checkpoints.
    doc.source->features.push_back("sparseBinding");
    doc.source->device_extensions.push_back("VK_NV_device_diagnostic_checkpoints");
    const auto r = run_capture(saved(doc));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("lacks what the recorded program enabled: extension(s) "
                            "VK_NV_device_diagnostic_checkpoints; feature(s) sparseBinding"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(mode_line(r.output, "as-recorded"), std::nullopt) << r.output;
}

TEST(ReplayErrors, SpirvThatDoesNotValidateIsNamedByKernel) {
    CaptureDocument doc = foreign_minimal();
    // The module without its last instruction (OpFunctionEnd): still SPIR-V words with the
    // magic number, so the capture loads, but no driver may be given it.
    doc.graph.kernels[1].spirv.pop_back();
    const auto r = run_capture(saved(doc));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("kernel 1 'accumulate': its SPIR-V does not validate"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(mode_line(r.output, "as-recorded"), std::nullopt) << r.output;
}

TEST(ReplayErrors, ADispatchWhoseCountsWereNotRecordedIsNamedWithWhy) {
    CaptureDocument doc = foreign_minimal();
    Node& scale = doc.graph.nodes[2];
    ASSERT_EQ(std::string_view(scale.label), "scale");
    scale.workgroups = {0, 0, 0};
    doc.graph.unknown_workgroups[scale.id] =
        "vkCmdDispatchIndirect: node 0 before it may write its arguments";
    const auto r = run_capture(saved(doc));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("node 2 (dispatch id 1, 'scale'), kernel 'scale_rows': its workgroup "
                            "counts are unknown (vkCmdDispatchIndirect: node 0 before it may "
                            "write its arguments), so the capture cannot be replayed"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(mode_line(r.output, "as-recorded"), std::nullopt) << r.output;
}

TEST(ReplayErrors, ADispatchStatedByItsRangesWithoutBindingsIsNamed) {
    // As the layer states an indirect dispatch whose counts it read: ranges, no bindings.
    CaptureDocument doc = foreign_minimal();
    Node& scale = doc.graph.nodes[2];
    const std::vector<ByteRange> reads = scale.reads, writes = scale.writes;
    scale.bindings = std::vector<BoundView>{};
    scale.reads = reads;
    scale.writes = writes;
    const auto r = run_capture(saved(doc));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("node 2 (dispatch id 1, 'scale'): the capture states no buffers bound "
                            "to scale_rows, which declares 2 binding(s)"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(mode_line(r.output, "as-recorded"), std::nullopt) << r.output;
}

TEST(ReplayErrors, ADispatchOfNoWorkgroupsTheProgramAskedForIsReplayed) {
    // vkCmdDispatch(0, 0, 0) is valid and does nothing: without the mark it is not refused.
    CaptureDocument doc = foreign_minimal();
    doc.graph.nodes[2].workgroups = {0, 0, 0};
    const auto r = run_capture(saved(doc));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(mode_line(r.output, "as-recorded"), std::nullopt) << r.output;
}

TEST(ReplayPipelineFlags, FlagsValidWithoutTheProgramsOtherStateAreReplayedTheOthersNamed) {
    CaptureDocument doc = foreign_minimal();
    // DISABLE_OPTIMIZATION | DERIVATIVE (needs a base pipeline) | CAPTURE_STATISTICS.
    doc.graph.kernels[0].pipeline_flags = 0x1 | 0x4 | 0x40;
    const std::string path = saved(doc);
    const std::string derivative =
        "note: kernel 0 'scale_rows': pipeline flag 0x4 (DERIVATIVE) is not replayed: it needs "
        "the program's base pipeline";
    const std::string statistics =
        "note: kernel 0 'scale_rows': pipeline flag 0x40 (CAPTURE_STATISTICS) is not replayed: "
        "it needs the pipelineExecutableInfo feature";

    const auto plain = run_capture(path);
    EXPECT_EQ(plain.exit_code, 0) << plain.output;
    EXPECT_NE(plain.output.find(derivative), std::string::npos) << plain.output;
    EXPECT_NE(plain.output.find(statistics), std::string::npos) << plain.output;
    EXPECT_EQ(plain.output.find("0x1 (DISABLE_OPTIMIZATION)"), std::string::npos) << plain.output;
    // With pipelineExecutableInfo (not on lavapipe) the statistics flag is replayed:
    // ReplayedPipelineFlags in tests/core/vulkan.
}

}  // namespace
}  // namespace graphlens
