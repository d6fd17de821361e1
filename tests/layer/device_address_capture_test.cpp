// Buffer device addresses: a dispatch whose kernel takes a buffer's address from its push
// constants (GL_EXT_buffer_reference) may touch any memory, so its ranges are unknown and the
// capture says why; a buffer made with VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT marks its
// allocation, and the replay gives its buffer a device address too, under validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "device_address_layout.h"
#include "layer_test_support.h"

namespace graphlens {
namespace {

using namespace layer_test;

const Node& dispatch_labelled(const ComputeGraph& g, const std::string& label) {
    for (const Node& n : g.nodes)
        if (n.is_dispatch() && n.label == label) return n;
    throw std::runtime_error("no dispatch labelled " + label);
}

std::string notes_of(const CaptureDocument& doc, NodeId node) {
    std::string out;
    for (const auto& n : doc.source->notes)
        if (n.node == node) out += n.text + "\n";
    return out;
}

const AllocationInfo& allocation_named(const ComputeGraph& g, const std::string& name) {
    for (const auto& a : g.allocations)
        if (a.name == name) return a;
    throw std::runtime_error("no allocation named " + name);
}

TEST(DeviceAddressCapture, AnAddressFromPushConstantsMakesTheRangesUnknownAndSaysWhy) {
    const Recording r = record("", DEVICE_ADDRESS_PROGRAM);
    ASSERT_EQ(r.result.exit_code, 0) << r.result.output;
    EXPECT_NE(r.result.output.find("graphlens-layer:"), std::string::npos) << r.result.output;
    const CaptureDocument doc = load_capture(r.capture_path);
    ASSERT_TRUE(doc.source);
    const Node& store = dispatch_labelled(doc.graph, device_address::kStoreLabel);
    EXPECT_FALSE(store.ranges_known);
    const std::string why = notes_of(doc, store.id);
    EXPECT_NE(why.find("buffer device addresses"), std::string::npos) << why;
    EXPECT_NE(why.find("PushConstant variable"), std::string::npos) << why;

    const Node& add = dispatch_labelled(doc.graph, device_address::kAddLabel);
    EXPECT_TRUE(add.ranges_known) << notes_of(doc, add.id);
    EXPECT_TRUE(allocation_named(doc.graph, "addressed").device_address);
    EXPECT_FALSE(allocation_named(doc.graph, "plain").device_address);
    // The feature the program enabled in VkPhysicalDeviceVulkan12Features, behind the 1.3
    // struct in its chain.
    const auto& features = doc.source->features;
    EXPECT_NE(std::find(features.begin(), features.end(), "bufferDeviceAddress"), features.end());
    EXPECT_NE(std::find(features.begin(), features.end(), "synchronization2"), features.end());
}

TEST(DeviceAddressCapture, TheReplayGivesAnAddressedAllocationItsDeviceAddressUnderValidation) {
    // The dispatch after the one with unknown ranges reads the addressed buffer through
    // descriptors; replaying it allocates that buffer with a device address, which the
    // validation layer checks against the feature and the memory's allocation flag.
    const Recording r = record("--after-dispatches 1", DEVICE_ADDRESS_PROGRAM);
    ASSERT_EQ(r.result.exit_code, 0) << r.result.output;
    const CaptureDocument doc = load_capture(r.capture_path);
    ASSERT_TRUE(allocation_named(doc.graph, "addressed").device_address);
    const CommandResult run = layer_test::run(
        "GRAPHLENS_DEVICE=llvmpipe GRAPHLENS_VALIDATION=1 " + std::string(GRAPHLENS_CLI) + " run " +
        r.capture_path + " --modes as-recorded,serial --repeat 1 --warmup 1 --warmup-ms 0");
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("bitwise"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace graphlens
