// Barriers and event waits, mapped onto GraphLens's barrier scopes (barrier_mapping.h). A
// buffer barrier keeps its bytes; an image barrier keeps only its execution dependency
// (images have no byte ranges in a capture). An event wait is a barrier at the wait: the
// scope of the matching vkCmdSetEvent is not intersected with it, which the note says.
#include "layer/src/barrier_mapping.h"
#include "layer/src/command_recording.h"
#include "layer/src/diagnostics.h"
#include "layer/src/hook_table.h"

namespace graphlens::layer {
namespace {

RecordedDependency dependency(VkPipelineStageFlags2 src_stages, VkPipelineStageFlags2 dst_stages,
                              VkAccessFlags2 src_access, VkAccessFlags2 dst_access) {
    RecordedDependency r;
    r.dependency.src_stages = map_stages(src_stages, ScopeSide::first);
    r.dependency.dst_stages = map_stages(dst_stages, ScopeSide::second);
    r.dependency.src_access = map_access(src_access, r.dependency.src_stages);
    r.dependency.dst_access = map_access(dst_access, r.dependency.dst_stages);
    return r;
}

/// vkCmdPipelineBarrier / vkCmdWaitEvents: one pair of stage masks for every barrier given.
CmdBarrier barrier_v1(DeviceState& d, VkPipelineStageFlags src, VkPipelineStageFlags dst,
                      uint32_t memory_count, const VkMemoryBarrier* memory, uint32_t buffer_count,
                      const VkBufferMemoryBarrier* buffers) {
    CmdBarrier c;
    for (uint32_t i = 0; i < memory_count; ++i)
        c.dependencies.push_back(
            dependency(src, dst, memory[i].srcAccessMask, memory[i].dstAccessMask));
    for (uint32_t i = 0; i < buffer_count; ++i) {
        const auto& b = buffers[i];
        auto r = dependency(src, dst, b.srcAccessMask, b.dstAccessMask);
        r.span = buffer_span(d, b.buffer, b.offset, b.size);
        c.dependencies.push_back(std::move(r));
    }
    // Without a memory or buffer barrier (or with image barriers only) the command still orders
    // execution.
    if (c.dependencies.empty()) c.dependencies.push_back(dependency(src, dst, 0, 0));
    return c;
}

CmdBarrier barrier_v2(DeviceState& d, const VkDependencyInfo& info) {
    CmdBarrier c;
    for (uint32_t i = 0; i < info.memoryBarrierCount; ++i) {
        const auto& m = info.pMemoryBarriers[i];
        c.dependencies.push_back(
            dependency(m.srcStageMask, m.dstStageMask, m.srcAccessMask, m.dstAccessMask));
    }
    for (uint32_t i = 0; i < info.bufferMemoryBarrierCount; ++i) {
        const auto& b = info.pBufferMemoryBarriers[i];
        auto r = dependency(b.srcStageMask, b.dstStageMask, b.srcAccessMask, b.dstAccessMask);
        r.span = buffer_span(d, b.buffer, b.offset, b.size);
        c.dependencies.push_back(std::move(r));
    }
    for (uint32_t i = 0; i < info.imageMemoryBarrierCount; ++i) {
        const auto& m = info.pImageMemoryBarriers[i];
        c.dependencies.push_back(dependency(m.srcStageMask, m.dstStageMask, 0, 0));
    }
    return c;
}

VKAPI_ATTR void VKAPI_CALL hook_CmdPipelineBarrier(
    VkCommandBuffer cb, VkPipelineStageFlags src, VkPipelineStageFlags dst, VkDependencyFlags flags,
    uint32_t memory_count, const VkMemoryBarrier* memory, uint32_t buffer_count,
    const VkBufferMemoryBarrier* buffers, uint32_t image_count,
    const VkImageMemoryBarrier* images) {
    auto d = find_device(cb);
    if (!d) return;
    d->dispatch.CmdPipelineBarrier(cb, src, dst, flags, memory_count, memory, buffer_count, buffers,
                                   image_count, images);
    guarded("vkCmdPipelineBarrier", [&] {
        if (!recording_list(*d, cb)) return;
        record_command(*d, cb,
                       barrier_v1(*d, src, dst, memory_count, memory, buffer_count, buffers));
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdPipelineBarrier2(VkCommandBuffer cb,
                                                    const VkDependencyInfo* info) {
    auto d = find_device(cb);
    if (!d) return;
    auto next = d->dispatch.CmdPipelineBarrier2 ? d->dispatch.CmdPipelineBarrier2
                                                : d->dispatch.CmdPipelineBarrier2KHR;
    next(cb, info);
    guarded("vkCmdPipelineBarrier2", [&] {
        if (!recording_list(*d, cb)) return;
        record_command(*d, cb, barrier_v2(*d, *info));
    });
}

constexpr const char* kWaitNote =
    "vkCmdWaitEvents: treated as a pipeline barrier at the wait with the wait's scopes; the "
    "scope of the matching vkCmdSetEvent is not intersected";

VKAPI_ATTR void VKAPI_CALL hook_CmdWaitEvents(VkCommandBuffer cb, uint32_t event_count,
                                              const VkEvent* events, VkPipelineStageFlags src,
                                              VkPipelineStageFlags dst, uint32_t memory_count,
                                              const VkMemoryBarrier* memory, uint32_t buffer_count,
                                              const VkBufferMemoryBarrier* buffers,
                                              uint32_t image_count,
                                              const VkImageMemoryBarrier* images) {
    auto d = find_device(cb);
    if (!d) return;
    d->dispatch.CmdWaitEvents(cb, event_count, events, src, dst, memory_count, memory, buffer_count,
                              buffers, image_count, images);
    guarded("vkCmdWaitEvents", [&] {
        if (!recording_list(*d, cb)) return;
        CmdBarrier c = barrier_v1(*d, src, dst, memory_count, memory, buffer_count, buffers);
        c.origin = BarrierOrigin::wait_events;
        c.note = kWaitNote;
        record_command(*d, cb, std::move(c));
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdWaitEvents2(VkCommandBuffer cb, uint32_t event_count,
                                               const VkEvent* events,
                                               const VkDependencyInfo* infos) {
    auto d = find_device(cb);
    if (!d) return;
    auto next =
        d->dispatch.CmdWaitEvents2 ? d->dispatch.CmdWaitEvents2 : d->dispatch.CmdWaitEvents2KHR;
    next(cb, event_count, events, infos);
    guarded("vkCmdWaitEvents2", [&] {
        if (!recording_list(*d, cb)) return;
        CmdBarrier c;
        c.origin = BarrierOrigin::wait_events;
        c.note = kWaitNote;
        for (uint32_t i = 0; i < event_count; ++i) {
            CmdBarrier one = barrier_v2(*d, infos[i]);
            for (auto& dep : one.dependencies) c.dependencies.push_back(std::move(dep));
        }
        record_command(*d, cb, std::move(c));
    });
}

}  // namespace

void add_sync_command_hooks(HookTable& t) {
    t.device["vkCmdPipelineBarrier"] = as_void_fn(&hook_CmdPipelineBarrier);
    t.device["vkCmdPipelineBarrier2"] = as_void_fn(&hook_CmdPipelineBarrier2);
    t.device["vkCmdPipelineBarrier2KHR"] = as_void_fn(&hook_CmdPipelineBarrier2);
    t.device["vkCmdWaitEvents"] = as_void_fn(&hook_CmdWaitEvents);
    t.device["vkCmdWaitEvents2"] = as_void_fn(&hook_CmdWaitEvents2);
    t.device["vkCmdWaitEvents2KHR"] = as_void_fn(&hook_CmdWaitEvents2);
}

}  // namespace graphlens::layer
