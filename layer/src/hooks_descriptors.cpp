// Descriptor sets and their updates (writes, copies, templates). A set's contents are
// replaced by a new version on every update, so a command buffer that bound the set earlier
// keeps the version it bound.
#include "layer/src/capture_session.h"
#include "layer/src/descriptor_writes.h"
#include "layer/src/diagnostics.h"
#include "layer/src/hook_table.h"
#include "layer/src/layer_state.h"

namespace graphlens::layer {
namespace {

VKAPI_ATTR VkResult VKAPI_CALL hook_AllocateDescriptorSets(VkDevice device,
                                                           const VkDescriptorSetAllocateInfo* info,
                                                           VkDescriptorSet* sets) {
    auto d = find_device(device);
    if (!d) return VK_ERROR_DEVICE_LOST;
    const VkResult r = d->dispatch.AllocateDescriptorSets(device, info, sets);
    if (r == VK_SUCCESS && CaptureSession::get().recording())
        guarded("vkAllocateDescriptorSets", [&] {
            for (uint32_t i = 0; i < info->descriptorSetCount; ++i) {
                auto s = std::make_shared<DescriptorSetState>();
                s->layout = d->set_layouts.find(handle_bits(info->pSetLayouts[i]));
                s->pool = handle_bits(info->descriptorPool);
                d->descriptor_sets.put(handle_bits(sets[i]), std::move(s));
            }
        });
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL hook_FreeDescriptorSets(VkDevice device, VkDescriptorPool pool,
                                                       uint32_t count,
                                                       const VkDescriptorSet* sets) {
    auto d = find_device(device);
    if (!d) return VK_ERROR_DEVICE_LOST;
    for (uint32_t i = 0; i < count; ++i) d->descriptor_sets.take(handle_bits(sets[i]));
    return d->dispatch.FreeDescriptorSets(device, pool, count, sets);
}

void forget_pool(DeviceState& d, VkDescriptorPool pool) {
    const uint64_t p = handle_bits(pool);
    d.descriptor_sets.erase_if([p](const DescriptorSetState& s) { return s.pool == p; });
}

VKAPI_ATTR VkResult VKAPI_CALL hook_ResetDescriptorPool(VkDevice device, VkDescriptorPool pool,
                                                        VkDescriptorPoolResetFlags flags) {
    auto d = find_device(device);
    if (!d) return VK_ERROR_DEVICE_LOST;
    forget_pool(*d, pool);
    return d->dispatch.ResetDescriptorPool(device, pool, flags);
}

VKAPI_ATTR void VKAPI_CALL hook_DestroyDescriptorPool(VkDevice device, VkDescriptorPool pool,
                                                      const VkAllocationCallbacks* allocator) {
    auto d = find_device(device);
    if (!d) return;
    forget_pool(*d, pool);
    d->dispatch.DestroyDescriptorPool(device, pool, allocator);
}

void record_updates(DeviceState& d, uint32_t write_count, const VkWriteDescriptorSet* writes,
                    uint32_t copy_count, const VkCopyDescriptorSet* copies) {
    for (uint32_t i = 0; i < write_count; ++i) {
        auto set = d.descriptor_sets.find(handle_bits(writes[i].dstSet));
        if (!set) continue;
        auto next = std::make_shared<SetContents>(*set->contents);
        apply_write(d, set->layout.get(), writes[i], *next);
        set->contents = std::move(next);
    }
    for (uint32_t i = 0; i < copy_count; ++i) {
        auto from = d.descriptor_sets.find(handle_bits(copies[i].srcSet));
        auto to = d.descriptor_sets.find(handle_bits(copies[i].dstSet));
        if (!from || !to) continue;
        auto next = std::make_shared<SetContents>(*to->contents);
        apply_copy(*from->contents, copies[i], *next);
        to->contents = std::move(next);
    }
}

VKAPI_ATTR void VKAPI_CALL hook_UpdateDescriptorSets(VkDevice device, uint32_t write_count,
                                                     const VkWriteDescriptorSet* writes,
                                                     uint32_t copy_count,
                                                     const VkCopyDescriptorSet* copies) {
    auto d = find_device(device);
    if (!d) return;
    d->dispatch.UpdateDescriptorSets(device, write_count, writes, copy_count, copies);
    if (CaptureSession::get().recording())
        guarded("vkUpdateDescriptorSets",
                [&] { record_updates(*d, write_count, writes, copy_count, copies); });
}

VKAPI_ATTR VkResult VKAPI_CALL hook_CreateDescriptorUpdateTemplate(
    VkDevice device, const VkDescriptorUpdateTemplateCreateInfo* info,
    const VkAllocationCallbacks* allocator, VkDescriptorUpdateTemplate* tmpl) {
    auto d = find_device(device);
    if (!d) return VK_ERROR_DEVICE_LOST;
    auto next = d->dispatch.CreateDescriptorUpdateTemplate
                    ? d->dispatch.CreateDescriptorUpdateTemplate
                    : d->dispatch.CreateDescriptorUpdateTemplateKHR;
    const VkResult r = next(device, info, allocator, tmpl);
    if (r == VK_SUCCESS && CaptureSession::get().recording())
        guarded("vkCreateDescriptorUpdateTemplate", [&] {
            auto s = std::make_shared<UpdateTemplateState>();
            for (uint32_t i = 0; i < info->descriptorUpdateEntryCount; ++i) {
                const auto& e = info->pDescriptorUpdateEntries[i];
                s->entries.push_back({e.dstBinding, e.dstArrayElement, e.descriptorCount,
                                      e.descriptorType, e.offset, e.stride});
            }
            d->update_templates.put(handle_bits(*tmpl), std::move(s));
        });
    return r;
}

VKAPI_ATTR void VKAPI_CALL hook_DestroyDescriptorUpdateTemplate(
    VkDevice device, VkDescriptorUpdateTemplate tmpl, const VkAllocationCallbacks* allocator) {
    auto d = find_device(device);
    if (!d) return;
    d->update_templates.take(handle_bits(tmpl));
    auto next = d->dispatch.DestroyDescriptorUpdateTemplate
                    ? d->dispatch.DestroyDescriptorUpdateTemplate
                    : d->dispatch.DestroyDescriptorUpdateTemplateKHR;
    next(device, tmpl, allocator);
}

VKAPI_ATTR void VKAPI_CALL hook_UpdateDescriptorSetWithTemplate(VkDevice device,
                                                                VkDescriptorSet set,
                                                                VkDescriptorUpdateTemplate tmpl,
                                                                const void* data) {
    auto d = find_device(device);
    if (!d) return;
    auto next = d->dispatch.UpdateDescriptorSetWithTemplate
                    ? d->dispatch.UpdateDescriptorSetWithTemplate
                    : d->dispatch.UpdateDescriptorSetWithTemplateKHR;
    next(device, set, tmpl, data);
    if (!CaptureSession::get().recording()) return;
    guarded("vkUpdateDescriptorSetWithTemplate", [&] {
        auto s = d->descriptor_sets.find(handle_bits(set));
        auto t = d->update_templates.find(handle_bits(tmpl));
        if (!s || !t) return;
        auto contents = std::make_shared<SetContents>(*s->contents);
        apply_template(*d, s->layout.get(), *t, data, *contents);
        s->contents = std::move(contents);
    });
}

}  // namespace

void add_descriptor_hooks(HookTable& t) {
    t.device["vkAllocateDescriptorSets"] = as_void_fn(&hook_AllocateDescriptorSets);
    t.device["vkFreeDescriptorSets"] = as_void_fn(&hook_FreeDescriptorSets);
    t.device["vkResetDescriptorPool"] = as_void_fn(&hook_ResetDescriptorPool);
    t.device["vkDestroyDescriptorPool"] = as_void_fn(&hook_DestroyDescriptorPool);
    t.device["vkUpdateDescriptorSets"] = as_void_fn(&hook_UpdateDescriptorSets);
    for (const char* suffix : {"", "KHR"}) {
        const std::string s = suffix;
        t.device["vkCreateDescriptorUpdateTemplate" + s] =
            as_void_fn(&hook_CreateDescriptorUpdateTemplate);
        t.device["vkDestroyDescriptorUpdateTemplate" + s] =
            as_void_fn(&hook_DestroyDescriptorUpdateTemplate);
        t.device["vkUpdateDescriptorSetWithTemplate" + s] =
            as_void_fn(&hook_UpdateDescriptorSetWithTemplate);
    }
}

}  // namespace graphlens::layer
