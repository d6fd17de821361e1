// Specification of the conversion from the vulkan layer's DeviceFacts to a capture's device.
#include <gtest/gtest.h>

#include "graphlens/exec/capture_device.h"

namespace graphlens {
namespace {

TEST(CaptureDevice, FromDeviceFactsJoinsDriverAndSortsExtensions) {
    DeviceFacts f;
    f.name = "llvmpipe (LLVM 15.0.6, 256 bits)";
    f.type = DeviceType::cpu;
    f.driver_name = "llvmpipe";
    f.driver_info = "Mesa 22.3.6";
    f.api_version = (1u << 22) | (3u << 12) | 230u;  // VK_MAKE_API_VERSION(0, 1, 3, 230)
    f.vendor_id = 0x10005;
    f.timestamp_period_ns = 1.0;
    f.timestamp_valid_bits = 64;
    f.subgroup_size = 8;
    f.extensions = {"VK_KHR_push_descriptor", "VK_EXT_calibrated_timestamps"};
    const CaptureDevice d = capture_device_from(f);
    EXPECT_EQ(d.name, f.name);
    EXPECT_EQ(d.driver, "llvmpipe Mesa 22.3.6");
    EXPECT_EQ(d.api_version, f.api_version_string());
    EXPECT_EQ(d.type, "cpu");
    EXPECT_EQ(d.vendor_id, 0x10005u);
    EXPECT_EQ(d.timestamp_valid_bits, 64u);
    EXPECT_EQ(d.extensions,
              (std::vector<std::string>{"VK_EXT_calibrated_timestamps", "VK_KHR_push_descriptor"}));
    // What is saved loads back equal.
    CaptureDocument doc;
    doc.device = d;
    EXPECT_EQ(load_capture_from_string(save_capture_to_string(doc)).device, d);
}

}  // namespace
}  // namespace graphlens
