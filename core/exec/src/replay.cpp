#include "graphlens/exec/replay.h"

#include "graphlens/vulkan/device_memory.h"

namespace graphlens {

RunResult replay_capture(Device& device, const ComputeGraph& graph, const RunnerOptions& options) {
    DeviceMemory memory(device);
    memory.recreate(graph);
    Runner runner(device, memory);
    return runner.run(graph, options);
}

}  // namespace graphlens
