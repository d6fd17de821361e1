// ForeignProgram's recording: a dispatch binds its pipeline, its prepared descriptor sets and
// its push constants; a transfer node is its copy / fill / update command again; a barrier is
// the program's own (its scope mapped back onto Vulkan's stages and accesses) or a full one.
#include "graphlens/vulkan/foreign_program.h"
#include "vulkan/src/foreign_program_parts.h"
#include "vulkan/src/vk_struct.h"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/device_memory.h"

namespace graphlens {
namespace {

VkPipelineStageFlags2 vk_stages(uint8_t stages) {
    VkPipelineStageFlags2 out = 0;
    if (stages & kStageCompute) out |= VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
    if (stages & kStageTransfer) out |= VK_PIPELINE_STAGE_2_TRANSFER_BIT;
    if (stages & kStageHost) out |= VK_PIPELINE_STAGE_2_HOST_BIT;
    return out;
}

// The accesses of `access` that `stages` can perform (Vulkan rejects an access mask with
// accesses no stage of the barrier makes). Shader reads include uniform reads: the layer maps
// both onto shader_read.
VkAccessFlags2 vk_access(uint8_t access, uint8_t stages) {
    VkAccessFlags2 out = 0;
    if (stages & kStageCompute) {
        if (access & kAccessShaderRead)
            out |= VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_UNIFORM_READ_BIT;
        if (access & kAccessShaderWrite) out |= VK_ACCESS_2_SHADER_WRITE_BIT;
    }
    if (stages & kStageTransfer) {
        if (access & kAccessTransferRead) out |= VK_ACCESS_2_TRANSFER_READ_BIT;
        if (access & kAccessTransferWrite) out |= VK_ACCESS_2_TRANSFER_WRITE_BIT;
    }
    if (stages & kStageHost) {
        if (access & kAccessHostRead) out |= VK_ACCESS_2_HOST_READ_BIT;
        if (access & kAccessHostWrite) out |= VK_ACCESS_2_HOST_WRITE_BIT;
    }
    return out;
}

// Without synchronization2: one stage mask pair for the whole command, never 0.
void record_barrier_v1(VkCommandBuffer cmd, const std::vector<VkMemoryBarrier2>& global,
                       const std::vector<VkBufferMemoryBarrier2>& buffers) {
    VkPipelineStageFlags src = 0, dst = 0;
    std::vector<VkMemoryBarrier> mbs;
    std::vector<VkBufferMemoryBarrier> bbs;
    for (const auto& g : global) {
        src |= static_cast<VkPipelineStageFlags>(g.srcStageMask);
        dst |= static_cast<VkPipelineStageFlags>(g.dstStageMask);
        VkMemoryBarrier m = vk_struct<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
        m.srcAccessMask = static_cast<VkAccessFlags>(g.srcAccessMask);
        m.dstAccessMask = static_cast<VkAccessFlags>(g.dstAccessMask);
        mbs.push_back(m);
    }
    for (const auto& b : buffers) {
        src |= static_cast<VkPipelineStageFlags>(b.srcStageMask);
        dst |= static_cast<VkPipelineStageFlags>(b.dstStageMask);
        VkBufferMemoryBarrier m =
            vk_struct<VkBufferMemoryBarrier>(VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER);
        m.srcAccessMask = static_cast<VkAccessFlags>(b.srcAccessMask);
        m.dstAccessMask = static_cast<VkAccessFlags>(b.dstAccessMask);
        m.srcQueueFamilyIndex = m.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        m.buffer = b.buffer;
        m.offset = b.offset;
        m.size = b.size;
        bbs.push_back(m);
    }
    if (!src) src = VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT;
    if (!dst) dst = VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
    vkCmdPipelineBarrier(cmd, src, dst, 0, static_cast<uint32_t>(mbs.size()), mbs.data(),
                         static_cast<uint32_t>(bbs.size()), bbs.data(), 0, nullptr);
}

void begin_label(const Device& device, VkCommandBuffer cmd, const std::string& label) {
    if (!device.functions().begin_label) return;
    VkDebugUtilsLabelEXT l =
        vk_struct<VkDebugUtilsLabelEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT);
    l.pLabelName = label.c_str();
    device.functions().begin_label(cmd, &l);
}

}  // namespace

void ForeignProgram::record(VkCommandBuffer cmd, const Node& n) const {
    const auto it = commands_.find(n.id);
    if (it == commands_.end())
        throw std::logic_error(
            fmt::format("dispatch id {} is not a command of the recorded graph", n.id));
    const Command& c = *it->second;
    begin_label(device_, cmd, c.label);
    switch (c.kind) {
        case Command::Kind::dispatch: {
            const Pipeline& p = *c.pipeline;
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
            if (!c.sets.empty())
                vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0,
                                        static_cast<uint32_t>(c.sets.size()), c.sets.data(), 0,
                                        nullptr);
            if (!c.push_constants.empty()) {
                // Whole words: the range is rounded up to 4 bytes, the rest pushed as zeros.
                uint8_t bytes[4096] = {};
                std::memcpy(bytes, c.push_constants.data(), c.push_constants.size());
                vkCmdPushConstants(cmd, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                   (static_cast<uint32_t>(c.push_constants.size()) + 3) & ~3u,
                                   bytes);
            }
            vkCmdDispatch(cmd, c.workgroups[0], c.workgroups[1], c.workgroups[2]);
            break;
        }
        case Command::Kind::copy:
            for (const auto& r : c.regions) vkCmdCopyBuffer(cmd, r.src, r.dst, 1, &r.bytes);
            break;
        case Command::Kind::fill:
            vkCmdFillBuffer(cmd, c.regions[0].dst, c.regions[0].bytes.dstOffset,
                            c.regions[0].bytes.size, c.fill_value);
            break;
        case Command::Kind::update:
            vkCmdUpdateBuffer(cmd, c.regions[0].dst, c.regions[0].bytes.dstOffset,
                              c.regions[0].bytes.size, c.update_data.data());
            break;
    }
    if (device_.functions().end_label) device_.functions().end_label(cmd);
}

void ForeignProgram::record_barrier(VkCommandBuffer cmd, const BarrierScope& scope) const {
    std::vector<VkMemoryBarrier2> global;
    std::vector<VkBufferMemoryBarrier2> buffers;
    for (const MemoryDependency& d : scope.dependencies) {
        const VkPipelineStageFlags2 src = vk_stages(d.src_stages), dst = vk_stages(d.dst_stages);
        const VkAccessFlags2 sa = vk_access(d.src_access, d.src_stages);
        const VkAccessFlags2 da = vk_access(d.dst_access, d.dst_stages);
        if (d.range) {
            VkBufferMemoryBarrier2 b =
                vk_struct<VkBufferMemoryBarrier2>(VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2);
            b.srcStageMask = src;
            b.dstStageMask = dst;
            b.srcAccessMask = sa;
            b.dstAccessMask = da;
            b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
            b.buffer = memory_.buffer(d.range->allocation).buffer;
            b.offset = d.range->begin;
            b.size = d.range->size();
            buffers.push_back(b);
        } else {
            VkMemoryBarrier2 m = vk_struct<VkMemoryBarrier2>(VK_STRUCTURE_TYPE_MEMORY_BARRIER_2);
            m.srcStageMask = src;
            m.dstStageMask = dst;
            m.srcAccessMask = sa;
            m.dstAccessMask = da;
            global.push_back(m);
        }
    }
    if (!device_.functions().pipeline_barrier2) {
        record_barrier_v1(cmd, global, buffers);
        return;
    }
    VkDependencyInfo di = vk_struct<VkDependencyInfo>(VK_STRUCTURE_TYPE_DEPENDENCY_INFO);
    di.memoryBarrierCount = static_cast<uint32_t>(global.size());
    di.pMemoryBarriers = global.data();
    di.bufferMemoryBarrierCount = static_cast<uint32_t>(buffers.size());
    di.pBufferMemoryBarriers = buffers.data();
    device_.functions().pipeline_barrier2(cmd, &di);
}

void ForeignProgram::record_full_barrier(VkCommandBuffer cmd) const {
    const uint8_t stages = has_transfers_ ? kStageCompute | kStageTransfer : kStageCompute;
    BarrierScope full;
    full.dependencies.push_back(
        {stages, stages, kAccessShaderWrite | kAccessTransferWrite,
         kAccessShaderRead | kAccessShaderWrite | kAccessTransferRead | kAccessTransferWrite,
         std::nullopt});
    record_barrier(cmd, full);
}

}  // namespace graphlens
