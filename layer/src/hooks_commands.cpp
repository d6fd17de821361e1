// Compute commands as a command buffer records them: pipeline and descriptor binds, push
// descriptors and constants, dispatches, buffer transfers and secondary command buffers.
// Each hook passes the call on first and then appends a plain record (recorded_command.h);
// nothing is looked up or resolved into graph nodes until a submission that may touch the
// captured range runs these records.
#include <algorithm>

#include "layer/src/command_recording.h"
#include "layer/src/descriptor_writes.h"
#include "layer/src/diagnostics.h"
#include "layer/src/hook_table.h"

namespace graphlens::layer {
namespace {

VKAPI_ATTR void VKAPI_CALL hook_CmdBindPipeline(VkCommandBuffer cb, VkPipelineBindPoint point,
                                                VkPipeline pipeline) {
    DeviceState* d = device_of(cb);
    if (!d) return;
    d->dispatch.CmdBindPipeline(cb, point, pipeline);
    if (point != VK_PIPELINE_BIND_POINT_COMPUTE) return;
    guarded("vkCmdBindPipeline", [&] {
        record_command(*d, cb,
                       [&](CommandList&) { return CmdBindPipeline{handle_bits(pipeline)}; });
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdBindDescriptorSets(VkCommandBuffer cb, VkPipelineBindPoint point,
                                                      VkPipelineLayout layout, uint32_t first_set,
                                                      uint32_t count, const VkDescriptorSet* sets,
                                                      uint32_t dynamic_count,
                                                      const uint32_t* dynamic_offsets) {
    DeviceState* d = device_of(cb);
    if (!d) return;
    d->dispatch.CmdBindDescriptorSets(cb, point, layout, first_set, count, sets, dynamic_count,
                                      dynamic_offsets);
    if (point != VK_PIPELINE_BIND_POINT_COMPUTE) return;
    guarded("vkCmdBindDescriptorSets", [&] {
        record_command(*d, cb, [&](CommandList& list) {
            CmdBindSets c;
            c.layout = handle_bits(layout);
            c.first_set = first_set;
            c.sets = {static_cast<uint32_t>(list.handles.size()), count};
            for (uint32_t i = 0; i < count; ++i) list.handles.push_back(handle_bits(sets[i]));
            c.dynamic_offsets = list.append(list.words, dynamic_offsets, dynamic_count);
            return c;
        });
    });
}

/// A push's writes as the program gave them; the set's layout (for writes that run past
/// their binding) is applied when the push is resolved.
RecordedWrite recorded_write(CommandList& list, const VkWriteDescriptorSet& w) {
    RecordedWrite r;
    r.binding = w.dstBinding;
    r.array_element = w.dstArrayElement;
    r.count = w.descriptorCount;
    r.type = w.descriptorType;
    if (is_buffer_descriptor(w.descriptorType) && w.pBufferInfo)
        r.buffer_infos = list.append(list.buffer_infos, w.pBufferInfo, w.descriptorCount);
    return r;
}

VKAPI_ATTR void VKAPI_CALL hook_CmdPushDescriptorSetKHR(VkCommandBuffer cb,
                                                        VkPipelineBindPoint point,
                                                        VkPipelineLayout layout, uint32_t set,
                                                        uint32_t count,
                                                        const VkWriteDescriptorSet* writes) {
    DeviceState* d = device_of(cb);
    if (!d) return;
    d->dispatch.CmdPushDescriptorSetKHR(cb, point, layout, set, count, writes);
    if (point != VK_PIPELINE_BIND_POINT_COMPUTE) return;
    guarded("vkCmdPushDescriptorSetKHR", [&] {
        record_command(*d, cb, [&](CommandList& list) {
            CmdPushDescriptors c;
            c.layout = handle_bits(layout);
            c.set = set;
            c.writes.begin = static_cast<uint32_t>(list.writes.size());
            for (uint32_t i = 0; i < count; ++i)
                list.writes.push_back(recorded_write(list, writes[i]));
            c.writes.count = count;
            return c;
        });
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdPushDescriptorSetWithTemplateKHR(VkCommandBuffer cb,
                                                                    VkDescriptorUpdateTemplate tmpl,
                                                                    VkPipelineLayout layout,
                                                                    uint32_t set,
                                                                    const void* data) {
    DeviceState* d = device_of(cb);
    if (!d) return;
    d->dispatch.CmdPushDescriptorSetWithTemplateKHR(cb, tmpl, layout, set, data);
    guarded("vkCmdPushDescriptorSetWithTemplateKHR", [&] {
        if (!recording_list(*d, cb)) return;
        // The data's layout is the template's: it is read now, into writes like a push's.
        auto t = d->update_templates.find(handle_bits(tmpl));
        if (!t) return;
        record_command(*d, cb, [&](CommandList& list) {
            CmdPushDescriptors c;
            c.layout = handle_bits(layout);
            c.set = set;
            c.writes.begin = static_cast<uint32_t>(list.writes.size());
            for (const auto& w : template_writes(*t, data)) {
                VkWriteDescriptorSet write{};
                write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
                write.dstBinding = w.binding;
                write.dstArrayElement = w.array_element;
                write.descriptorCount = static_cast<uint32_t>(w.buffers.size());
                write.descriptorType = w.type;
                write.pBufferInfo = w.buffers.data();
                RecordedWrite r = recorded_write(list, write);
                r.count = w.count;
                list.writes.push_back(r);
                ++c.writes.count;
            }
            return c;
        });
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdPushConstants(VkCommandBuffer cb, VkPipelineLayout layout,
                                                 VkShaderStageFlags stages, uint32_t offset,
                                                 uint32_t size, const void* values) {
    DeviceState* d = device_of(cb);
    if (!d) return;
    d->dispatch.CmdPushConstants(cb, layout, stages, offset, size, values);
    if (!(stages & VK_SHADER_STAGE_COMPUTE_BIT)) return;
    guarded("vkCmdPushConstants", [&] {
        record_command(*d, cb, [&](CommandList& list) {
            return CmdPushConstants{
                offset, list.append(list.bytes, static_cast<const uint8_t*>(values), size)};
        });
    });
}

void record_dispatch(DeviceState& d, VkCommandBuffer cb, const CmdDispatch& c) {
    record_command(d, cb, [&](CommandList& list) {
        ++list.dispatches;
        return c;
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdDispatch(VkCommandBuffer cb, uint32_t x, uint32_t y,
                                            uint32_t z) {
    DeviceState* d = device_of(cb);
    if (!d) return;
    d->dispatch.CmdDispatch(cb, x, y, z);
    guarded("vkCmdDispatch", [&] {
        CmdDispatch c;
        c.groups = {x, y, z};
        record_dispatch(*d, cb, c);
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdDispatchBase(VkCommandBuffer cb, uint32_t bx, uint32_t by,
                                                uint32_t bz, uint32_t x, uint32_t y, uint32_t z) {
    DeviceState* d = device_of(cb);
    if (!d) return;
    auto next =
        d->dispatch.CmdDispatchBase ? d->dispatch.CmdDispatchBase : d->dispatch.CmdDispatchBaseKHR;
    next(cb, bx, by, bz, x, y, z);
    guarded("vkCmdDispatchBase", [&] {
        CmdDispatch c;
        c.groups = {x, y, z};
        c.base = {bx, by, bz};
        record_dispatch(*d, cb, c);
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdDispatchIndirect(VkCommandBuffer cb, VkBuffer buffer,
                                                    VkDeviceSize offset) {
    DeviceState* d = device_of(cb);
    if (!d) return;
    d->dispatch.CmdDispatchIndirect(cb, buffer, offset);
    guarded("vkCmdDispatchIndirect", [&] {
        CmdDispatch c;
        c.groups = {0, 0, 0};
        c.is_indirect = true;
        c.indirect_buffer = handle_bits(buffer);
        c.indirect_offset = offset;
        record_dispatch(*d, cb, c);
    });
}

}  // namespace

void add_command_hooks(HookTable& t) {
    t.device["vkCmdBindPipeline"] = as_void_fn(&hook_CmdBindPipeline);
    t.device["vkCmdBindDescriptorSets"] = as_void_fn(&hook_CmdBindDescriptorSets);
    t.device["vkCmdPushDescriptorSetKHR"] = as_void_fn(&hook_CmdPushDescriptorSetKHR);
    t.device["vkCmdPushDescriptorSetWithTemplateKHR"] =
        as_void_fn(&hook_CmdPushDescriptorSetWithTemplateKHR);
    t.device["vkCmdPushConstants"] = as_void_fn(&hook_CmdPushConstants);
    t.device["vkCmdDispatch"] = as_void_fn(&hook_CmdDispatch);
    t.device["vkCmdDispatchBase"] = as_void_fn(&hook_CmdDispatchBase);
    t.device["vkCmdDispatchBaseKHR"] = as_void_fn(&hook_CmdDispatchBase);
    t.device["vkCmdDispatchIndirect"] = as_void_fn(&hook_CmdDispatchIndirect);
}

}  // namespace graphlens::layer
