#pragma once
// Where a capture comes from: the program (executable, arguments, working directory) and the
// device it ran on, with what the program enabled.
#include "graphlens/capture/capture_file.h"
#include "layer/src/layer_state.h"

namespace graphlens::layer {

/// The program from /proc/self (executable, arguments without argv[0], working directory)
/// and the layer's version.
CaptureSource describe_program();

/// The device's facts (name, driver, API version, ...) and the instance and device
/// extensions and features the program enabled.
void describe_device(const DeviceState& device, CaptureDevice& facts, CaptureSource& source);

}  // namespace graphlens::layer
