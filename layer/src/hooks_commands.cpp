// Compute commands as a command buffer records them: pipeline and descriptor binds, push
// descriptors and constants, dispatches, buffer transfers and secondary command buffers.
// Each hook passes the call on first and then appends a compact record; nothing is resolved
// into graph nodes until a submission inside the captured range runs these records.
#include <algorithm>

#include "layer/src/command_recording.h"
#include "layer/src/descriptor_writes.h"
#include "layer/src/diagnostics.h"
#include "layer/src/hook_table.h"

namespace graphlens::layer {
namespace {

VKAPI_ATTR void VKAPI_CALL hook_CmdBindPipeline(VkCommandBuffer cb, VkPipelineBindPoint point,
                                                VkPipeline pipeline) {
    auto d = find_device(cb);
    if (!d) return;
    d->dispatch.CmdBindPipeline(cb, point, pipeline);
    if (point != VK_PIPELINE_BIND_POINT_COMPUTE) return;
    guarded("vkCmdBindPipeline", [&] {
        if (auto list = recording_list(*d, cb))
            list->commands.emplace_back(CmdBindPipeline{d->pipelines.find(handle_bits(pipeline))});
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdBindDescriptorSets(VkCommandBuffer cb, VkPipelineBindPoint point,
                                                      VkPipelineLayout layout, uint32_t first_set,
                                                      uint32_t count, const VkDescriptorSet* sets,
                                                      uint32_t dynamic_count,
                                                      const uint32_t* dynamic_offsets) {
    auto d = find_device(cb);
    if (!d) return;
    d->dispatch.CmdBindDescriptorSets(cb, point, layout, first_set, count, sets, dynamic_count,
                                      dynamic_offsets);
    if (point != VK_PIPELINE_BIND_POINT_COMPUTE) return;
    guarded("vkCmdBindDescriptorSets", [&] {
        auto list = recording_list(*d, cb);
        if (!list) return;
        CmdBindSets c;
        c.layout = d->pipeline_layouts.find(handle_bits(layout));
        c.first_set = first_set;
        for (uint32_t i = 0; i < count; ++i) {
            auto s = d->descriptor_sets.find(handle_bits(sets[i]));
            c.sets.push_back(s ? s->contents : nullptr);
            c.set_layouts.push_back(s ? s->layout : nullptr);
        }
        c.dynamic_offsets.assign(dynamic_offsets, dynamic_offsets + dynamic_count);
        list->commands.emplace_back(std::move(c));
    });
}

const SetLayoutState* push_set_layout(DeviceState& d, VkPipelineLayout layout, uint32_t set,
                                      std::shared_ptr<const PipelineLayoutState>& keep) {
    keep = d.pipeline_layouts.find(handle_bits(layout));
    return keep && set < keep->sets.size() ? keep->sets[set].get() : nullptr;
}

VKAPI_ATTR void VKAPI_CALL hook_CmdPushDescriptorSetKHR(VkCommandBuffer cb,
                                                        VkPipelineBindPoint point,
                                                        VkPipelineLayout layout, uint32_t set,
                                                        uint32_t count,
                                                        const VkWriteDescriptorSet* writes) {
    auto d = find_device(cb);
    if (!d) return;
    d->dispatch.CmdPushDescriptorSetKHR(cb, point, layout, set, count, writes);
    if (point != VK_PIPELINE_BIND_POINT_COMPUTE) return;
    guarded("vkCmdPushDescriptorSetKHR", [&] {
        auto list = recording_list(*d, cb);
        if (!list) return;
        std::shared_ptr<const PipelineLayoutState> keep;
        const SetLayoutState* set_layout = push_set_layout(*d, layout, set, keep);
        CmdPushDescriptors c;
        c.set = set;
        for (uint32_t i = 0; i < count; ++i) apply_write(*d, set_layout, writes[i], c.writes);
        list->commands.emplace_back(std::move(c));
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdPushDescriptorSetWithTemplateKHR(VkCommandBuffer cb,
                                                                    VkDescriptorUpdateTemplate tmpl,
                                                                    VkPipelineLayout layout,
                                                                    uint32_t set,
                                                                    const void* data) {
    auto d = find_device(cb);
    if (!d) return;
    d->dispatch.CmdPushDescriptorSetWithTemplateKHR(cb, tmpl, layout, set, data);
    guarded("vkCmdPushDescriptorSetWithTemplateKHR", [&] {
        auto list = recording_list(*d, cb);
        auto t = d->update_templates.find(handle_bits(tmpl));
        if (!list || !t) return;
        std::shared_ptr<const PipelineLayoutState> keep;
        CmdPushDescriptors c;
        c.set = set;
        apply_template(*d, push_set_layout(*d, layout, set, keep), *t, data, c.writes);
        list->commands.emplace_back(std::move(c));
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdPushConstants(VkCommandBuffer cb, VkPipelineLayout layout,
                                                 VkShaderStageFlags stages, uint32_t offset,
                                                 uint32_t size, const void* values) {
    auto d = find_device(cb);
    if (!d) return;
    d->dispatch.CmdPushConstants(cb, layout, stages, offset, size, values);
    if (!(stages & VK_SHADER_STAGE_COMPUTE_BIT)) return;
    guarded("vkCmdPushConstants", [&] {
        const auto* bytes = static_cast<const uint8_t*>(values);
        record_command(*d, cb, CmdPushConstants{offset, {bytes, bytes + size}});
    });
}

void record_dispatch(DeviceState& d, VkCommandBuffer cb, CmdDispatch c) {
    if (auto list = recording_list(d, cb)) {
        list->commands.emplace_back(std::move(c));
        ++list->dispatches;
    }
}

VKAPI_ATTR void VKAPI_CALL hook_CmdDispatch(VkCommandBuffer cb, uint32_t x, uint32_t y,
                                            uint32_t z) {
    auto d = find_device(cb);
    if (!d) return;
    d->dispatch.CmdDispatch(cb, x, y, z);
    guarded("vkCmdDispatch", [&] {
        CmdDispatch c;
        c.groups = {x, y, z};
        record_dispatch(*d, cb, std::move(c));
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdDispatchBase(VkCommandBuffer cb, uint32_t bx, uint32_t by,
                                                uint32_t bz, uint32_t x, uint32_t y, uint32_t z) {
    auto d = find_device(cb);
    if (!d) return;
    auto next =
        d->dispatch.CmdDispatchBase ? d->dispatch.CmdDispatchBase : d->dispatch.CmdDispatchBaseKHR;
    next(cb, bx, by, bz, x, y, z);
    guarded("vkCmdDispatchBase", [&] {
        CmdDispatch c;
        c.groups = {x, y, z};
        c.base = {bx, by, bz};
        record_dispatch(*d, cb, std::move(c));
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdDispatchIndirect(VkCommandBuffer cb, VkBuffer buffer,
                                                    VkDeviceSize offset) {
    auto d = find_device(cb);
    if (!d) return;
    d->dispatch.CmdDispatchIndirect(cb, buffer, offset);
    guarded("vkCmdDispatchIndirect", [&] {
        CmdDispatch c;
        c.groups = {0, 0, 0};
        c.is_indirect = true;
        c.indirect = d->buffers.find(handle_bits(buffer));
        c.indirect_offset = offset;
        record_dispatch(*d, cb, std::move(c));
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
