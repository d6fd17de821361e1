#pragma once
// Which of a recorded compute pipeline's create flags a replay passes on, and why it drops the
// others: a flag is replayed when it is valid without state the replay does not have (a base
// pipeline, a pipeline cache, a feature this device was not created with) and changes nothing
// a kernel computes.
#include <vulkan/vulkan.h>

#include <string>
#include <vector>

namespace graphlens {

struct ReplayedPipelineFlags {
    VkPipelineCreateFlags flags = 0;  ///< what vkCreateComputePipelines gets
    /// One line per recorded flag left out: "0x4 (DERIVATIVE) is not replayed: it needs ..."
    std::vector<std::string> dropped;
};

/// `executable_info`: the device was created with pipelineExecutableInfo
/// (Device::pipeline_statistics()), which the statistics and internal-representation capture
/// flags need.
ReplayedPipelineFlags replayed_pipeline_flags(VkPipelineCreateFlags recorded, bool executable_info);

}  // namespace graphlens
