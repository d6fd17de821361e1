// GraphLens's Vulkan objects carry GraphLens's names (VK_EXT_debug_utils), so RenderDoc, Nsight
// and the validation layer show an allocation's name on its buffer, a kernel's name on its
// pipeline (and shader module), and the execution on its command buffers. Checked through the
// validation layer's own messages, which name every object they concern: each test makes the
// layer report on an object with a deliberately invalid command, which the layer then skips
// (no invalid command reaches the driver, nothing is submitted). Pipelines and shader modules
// have no such command in this layer version (its errors about a bound pipeline list only the
// command buffer, and a pipeline of a missing entry point reaches the driver and crashes it),
// so their names are not checked here.
#include <gtest/gtest.h>

#include "gpu_fixture.h"

namespace graphlens::test {
namespace {

class ObjectNamesTest : public GpuTest {
  protected:
    void SetUp() override {
        GpuTest::SetUp();
        if (!device().validation_enabled() || !device().names_objects())
            GTEST_SKIP() << "needs the validation layer and VK_EXT_debug_utils";
    }
    // The deliberate errors are this test's subject, not a failure of the code under test.
    void TearDown() override {
        device().clear_validation_messages();
        GpuTest::TearDown();
    }
    static std::string all_messages() {
        std::string s;
        for (const auto& m : device().validation_messages()) s += m.text + "\n";
        return s;
    }
};

TEST_F(ObjectNamesTest, ABufferCarriesItsAllocationsName) {
    const AllocationId weights = memory->allocate("attn_q_weights", 256);
    auto rec = executor->acquire();
    rec->begin(false);
    // An offset past the end of the buffer: the layer reports the buffer (and skips the call).
    vkCmdFillBuffer(rec->handle(), memory->buffer(weights).buffer, 1024, 4, 0);
    rec->end();
    const std::string messages = all_messages();
    ASSERT_NE(device().validation_errors(), 0u) << "the layer reported nothing";
    EXPECT_NE(messages.find("attn_q_weights"), std::string::npos) << messages;
}

TEST_F(ObjectNamesTest, ACommandBufferCarriesItsExecutionsName) {
    auto rec = executor->acquire("levels_split: buffer 1 of 2");
    rec->begin(false);
    // More workgroups than the device allows: the layer reports the command buffer.
    vkCmdDispatch(rec->handle(), device().facts().max_workgroup_count[0] + 1, 1, 1);
    rec->end();
    const std::string messages = all_messages();
    ASSERT_NE(device().validation_errors(), 0u) << "the layer reported nothing";
    EXPECT_NE(messages.find("levels_split: buffer 1 of 2"), std::string::npos) << messages;
}

}  // namespace
}  // namespace graphlens::test
