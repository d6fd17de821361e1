// An allocation a recorded program gave a device address (AllocationInfo::device_address) is
// replayed with one: its buffer has VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT and its memory
// VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT. The validation layer checks both when the address is
// asked for, and that the feature was enabled.
#include <gtest/gtest.h>

#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/device_memory.h"

namespace graphlens {
namespace {

TEST(DeviceAddressMemory, AnAllocationMarkedDeviceAddressHasOneAndTheOthersShareNoArenaWithIt) {
    Device::Options options;
    options.required.features = {"bufferDeviceAddress"};
    Device device(options);
    ComputeGraph graph;
    graph.add_allocation("plain", 4096, AllocationUsage::scratch);
    graph.add_allocation("addressed", 4096, AllocationUsage::scratch);
    graph.allocations[1].device_address = true;
    DeviceMemory memory(device);
    memory.recreate(graph);
    EXPECT_FALSE(memory.info(0).device_address);
    EXPECT_TRUE(memory.info(1).device_address);
    EXPECT_EQ(memory.arena_bytes(), 2 * DeviceMemory::kDefaultArenaBytes)
        << "memory with the device-address flag is an arena of its own";

    VkBufferDeviceAddressInfo info{};
    info.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO;
    info.buffer = memory.buffer(1).buffer;
    EXPECT_NE(vkGetBufferDeviceAddress(device.handle(), &info), 0u);
    memory.upload(1, std::vector<uint8_t>(4096, 7));
    EXPECT_EQ(memory.download(1, 4095, 1), std::vector<uint8_t>{7});
    EXPECT_EQ(device.validation_errors(), 0u);
}

}  // namespace
}  // namespace graphlens
