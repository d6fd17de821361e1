#pragma once
// The device facts a capture stores (CaptureDevice, plain strings and numbers) from the gpu
// layer's DeviceFacts, so every writer of captures fills them the same way.
#include "graphlens/vulkan/device_facts.h"
#include "graphlens/capture/capture_file.h"

namespace graphlens {

/// driver = "<driverName> <driverInfo>", api_version = "major.minor.patch", type =
/// device_type_name, extensions sorted (the writer's output must not depend on enumeration
/// order).
CaptureDevice capture_device_from(const DeviceFacts& facts);

}  // namespace graphlens
