#include "layer/src/barrier_mapping.h"

#include "graphlens/graph/barrier_scope.h"

namespace graphlens::layer {

uint8_t map_stages(VkPipelineStageFlags2 stages, ScopeSide side) {
    constexpr uint8_t kQueueStages = kStageCompute | kStageTransfer;
    uint8_t out = 0;
    if (stages & VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT) out |= kStageCompute;
    if (stages & (VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT))
        out |= kStageCompute;
    if (stages & (VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT |
                  VK_PIPELINE_STAGE_2_CLEAR_BIT | VK_PIPELINE_STAGE_2_RESOLVE_BIT |
                  VK_PIPELINE_STAGE_2_BLIT_BIT))
        out |= kStageTransfer;
    if (stages & VK_PIPELINE_STAGE_2_HOST_BIT) out |= kStageHost;
    if (stages & VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT) out |= kQueueStages;
    if ((stages & VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT) && side == ScopeSide::second)
        out |= kQueueStages;
    if ((stages & VK_PIPELINE_STAGE_2_BOTTOM_OF_PIPE_BIT) && side == ScopeSide::first)
        out |= kQueueStages;
    return out;
}

uint8_t map_access(VkAccessFlags2 access, uint8_t stages) {
    uint8_t out = 0;
    if (access & (VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
                  VK_ACCESS_2_SHADER_SAMPLED_READ_BIT | VK_ACCESS_2_UNIFORM_READ_BIT |
                  VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT))
        out |= kAccessShaderRead;
    if (access & (VK_ACCESS_2_SHADER_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT))
        out |= kAccessShaderWrite;
    if (access & VK_ACCESS_2_TRANSFER_READ_BIT) out |= kAccessTransferRead;
    if (access & VK_ACCESS_2_TRANSFER_WRITE_BIT) out |= kAccessTransferWrite;
    if (access & VK_ACCESS_2_HOST_READ_BIT) out |= kAccessHostRead;
    if (access & VK_ACCESS_2_HOST_WRITE_BIT) out |= kAccessHostWrite;
    if (access & VK_ACCESS_2_MEMORY_READ_BIT) out |= kAccessAllReads;
    if (access & VK_ACCESS_2_MEMORY_WRITE_BIT) out |= kAccessAllWrites;
    uint8_t performed = 0;
    if (stages & kStageCompute) performed |= kAccessShaderRead | kAccessShaderWrite;
    if (stages & kStageTransfer) performed |= kAccessTransferRead | kAccessTransferWrite;
    if (stages & kStageHost) performed |= kAccessHostRead | kAccessHostWrite;
    return out & performed;
}

}  // namespace graphlens::layer
