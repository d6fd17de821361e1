#include "graphlens/exec/capture_device.h"

#include <algorithm>

namespace graphlens {

CaptureDevice capture_device_from(const DeviceFacts& f) {
    CaptureDevice d;
    d.name = f.name;
    d.driver = f.driver_name;
    if (!f.driver_info.empty()) d.driver += (d.driver.empty() ? "" : " ") + f.driver_info;
    d.api_version = f.api_version_string();
    d.type = std::string(device_type_name(f.type));
    d.vendor_id = f.vendor_id;
    d.device_id = f.device_id;
    d.timestamp_period_ns = f.timestamp_period_ns;
    d.timestamp_valid_bits = f.timestamp_valid_bits;
    d.subgroup_size = f.subgroup_size;
    d.extensions = f.extensions;
    std::sort(d.extensions.begin(), d.extensions.end());
    return d;
}

}  // namespace graphlens
