// KernelRegistry::statistics: the driver's own account of a pipeline (registers, shared memory,
// spills: VK_KHR_pipeline_executable_properties), asked for with Options::pipeline_statistics.
#include <gtest/gtest.h>

#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/kernel_registry.h"

namespace graphlens::test {
namespace {

TEST(KernelStatistics, AreTheDriversWhereAskedForAndItHasThem) {
    Device::Options o;
    o.pipeline_statistics = true;
    Device device(o);
    const auto stats = device.kernels().statistics("add_f32");
    if (!device.pipeline_statistics()) {
        GTEST_SKIP() << device.facts().name << " has no VK_KHR_pipeline_executable_properties";
    }
    ASSERT_FALSE(stats.empty());
    for (const KernelStatistic& s : stats) {
        EXPECT_FALSE(s.name.empty());
        EXPECT_FALSE(s.value.empty()) << s.name;
        EXPECT_FALSE(s.executable.empty()) << s.name;
    }
    EXPECT_EQ(device.validation_errors(), 0u);
}

// Where the driver lacks the extension (lavapipe), asking is not an error: the device says it
// has none, gives none, still names unknown kernels, and the layer sees nothing wrong.
TEST(KernelStatistics, AskedForWithoutTheExtensionTheDeviceSaysItHasNone) {
    Device::Options o;
    o.pipeline_statistics = true;
    Device device(o);
    if (device.pipeline_statistics())
        GTEST_SKIP() << device.facts().name << " has the extension: the test above covers it";
    EXPECT_TRUE(device.kernels().statistics("add_f32").empty());
    EXPECT_THROW(device.kernels().statistics("no_such_kernel"), std::out_of_range);
    EXPECT_EQ(device.validation_errors(), 0u);
}

TEST(KernelStatistics, AreEmptyUnlessAskedFor) {
    Device::Options o;
    o.pipeline_statistics = false;
    Device device(o);
    EXPECT_FALSE(device.pipeline_statistics());
    EXPECT_TRUE(device.kernels().statistics("add_f32").empty());
    EXPECT_THROW(device.kernels().statistics("no_such_kernel"), std::out_of_range);
}

}  // namespace
}  // namespace graphlens::test
