#pragma once
// What a recorded program needs of the device that replays its kernels: the device extensions
// and features it enabled (CaptureSource), by name. A Device created with them enables each
// one, or refuses to be created naming everything this device lacks.
#include <stdexcept>
#include <string>
#include <vector>

namespace graphlens {

struct DeviceRequirements {
    /// Device extensions, e.g. "VK_KHR_16bit_storage".
    std::vector<std::string> extensions;
    /// Members of VkPhysicalDeviceFeatures or of the Vulkan 1.1 / 1.2 / 1.3 feature structs,
    /// e.g. "shaderInt64", "storageBuffer16BitAccess", "subgroupSizeControl".
    std::vector<std::string> features;
    bool empty() const { return extensions.empty() && features.empty(); }
};

/// The device lacks something a DeviceRequirements names; what() lists all of it:
/// "device 'llvmpipe' lacks what the recorded program enabled: extension VK_NV_x; features
/// geometryShader, shaderFloat64".
class MissingDeviceRequirements : public std::runtime_error {
  public:
    MissingDeviceRequirements(std::string device, std::vector<std::string> extensions,
                              std::vector<std::string> features);
    const std::vector<std::string>& missing_extensions() const { return extensions_; }
    const std::vector<std::string>& missing_features() const { return features_; }

  private:
    std::vector<std::string> extensions_, features_;
};

/// Whether `name` is a feature name DeviceRequirements::features understands.
bool is_known_device_feature(const std::string& name);

}  // namespace graphlens
