#include "layer/src/capture_source.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace graphlens::layer {
namespace {

std::string version_text(uint32_t v) {
    return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) +
           "." + std::to_string(VK_API_VERSION_PATCH(v));
}

std::string device_type_name(VkPhysicalDeviceType t) {
    switch (t) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
            return "discrete";
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
            return "integrated";
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
            return "virtual";
        case VK_PHYSICAL_DEVICE_TYPE_CPU:
            return "cpu";
        default:
            return "other";
    }
}

}  // namespace

CaptureSource describe_program() {
    CaptureSource s;
    std::error_code ec;
    s.program = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    std::ifstream cmdline("/proc/self/cmdline", std::ios::binary);
    const std::string all((std::istreambuf_iterator<char>(cmdline)), {});
    std::vector<std::string> args;
    for (size_t begin = 0; begin < all.size();) {
        const size_t end = all.find('\0', begin);
        args.push_back(all.substr(begin, end - begin));
        if (end == std::string::npos) break;
        begin = end + 1;
    }
    if (s.program.empty() && !args.empty()) s.program = args.front();
    if (!args.empty()) s.arguments.assign(args.begin() + 1, args.end());
    s.working_directory = std::filesystem::current_path(ec).string();
    s.layer_version = GRAPHLENS_LAYER_VERSION;
    return s;
}

void describe_device(const DeviceState& device, CaptureDevice& facts, CaptureSource& source) {
    const InstanceDispatch& vk = device.instance->dispatch;
    source.instance_extensions = device.instance->extensions;
    source.device_extensions = device.extensions;
    source.features = device.features;
    facts.extensions = device.extensions;
    VkPhysicalDeviceProperties p{};
    vk.GetPhysicalDeviceProperties(device.physical, &p);
    facts.name = p.deviceName;
    facts.api_version = version_text(p.apiVersion);
    facts.type = device_type_name(p.deviceType);
    facts.vendor_id = p.vendorID;
    facts.device_id = p.deviceID;
    facts.timestamp_period_ns = p.limits.timestampPeriod;
    facts.driver = std::to_string(p.driverVersion);
    if (vk.GetPhysicalDeviceProperties2 && p.apiVersion >= VK_API_VERSION_1_2 &&
        device.instance->api_version >= VK_API_VERSION_1_1) {
        VkPhysicalDeviceSubgroupProperties subgroup{};
        subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
        VkPhysicalDeviceDriverProperties driver{};
        driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
        driver.pNext = &subgroup;
        VkPhysicalDeviceProperties2 p2{};
        p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
        p2.pNext = &driver;
        vk.GetPhysicalDeviceProperties2(device.physical, &p2);
        facts.driver = std::string(driver.driverName) + " " + driver.driverInfo;
        facts.subgroup_size = subgroup.subgroupSize;
    }
}

}  // namespace graphlens::layer
