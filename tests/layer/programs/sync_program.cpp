// Seven submissions of one dispatch each (c = a + b), ordered in the ways an engine orders
// them besides fence waits, for the capture layer's test of what each boundary means
// (sync_layout.h): the host polling a fence with vkGetFenceStatus, timeline semaphores
// signalled and waited for by value on the device and by the host (vkSignalSemaphore,
// vkWaitSemaphores). The descriptor set is written with a descriptor update template, and
// submission 1 runs its dispatch in a secondary command buffer (vkCmdExecuteCommands).
// Submission 6 dispatches indirectly, from arguments the host wrote and from arguments the
// submission itself writes first.
#include <cstddef>
#include <cstring>
#include <string>

#include "add.spv.h"
#include "sync_layout.h"
#include "vk_program.h"

using namespace program;
using namespace sync_program;

namespace {

struct Objects {
    Context c;
    VkDeviceMemory memory;
    VkBuffer a, b, out;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkDescriptorPool pool;
    VkDescriptorSet set;
    VkShaderModule module;
    VkPipeline pipeline;
    VkCommandPool commands;
    VkSemaphore timeline;
};

// The three buffers as the template reads them from the program's own struct.
struct SetContents {
    VkDescriptorBufferInfo buffers[3];
};

void write_set_with_template(Objects& o) {
    VkDescriptorUpdateTemplateEntry entry{};
    entry.dstBinding = 0;
    entry.descriptorCount = 3;  // bindings 0, 1, 2 are consecutive: one entry fills them all
    entry.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    entry.offset = offsetof(SetContents, buffers);
    entry.stride = sizeof(VkDescriptorBufferInfo);
    VkDescriptorUpdateTemplateCreateInfo info{
        VK_STRUCTURE_TYPE_DESCRIPTOR_UPDATE_TEMPLATE_CREATE_INFO};
    info.descriptorUpdateEntryCount = 1;
    info.pDescriptorUpdateEntries = &entry;
    info.templateType = VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET;
    info.descriptorSetLayout = o.set_layout;
    VkDescriptorUpdateTemplate update;
    VK_CHECK(vkCreateDescriptorUpdateTemplate(o.c.device, &info, nullptr, &update));
    const SetContents contents{{{o.a, 0, kBytes}, {o.b, 0, kBytes}, {o.out, 0, kBytes}}};
    vkUpdateDescriptorSetWithTemplate(o.c.device, o.set, update, &contents);
    vkDestroyDescriptorUpdateTemplate(o.c.device, update, nullptr);
}

void create_objects(Objects& o) {
    Context& c = o.c;
    o.memory = allocate_memory(c, 3 * kBytes, "memory");
    const auto usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    o.a = create_buffer(c, kBytes, usage, "a");
    o.b = create_buffer(c, kBytes, usage, "b");
    o.out = create_buffer(c, kBytes, usage, "out");
    VK_CHECK(vkBindBufferMemory(c.device, o.a, o.memory, 0));
    VK_CHECK(vkBindBufferMemory(c.device, o.b, o.memory, kBytes));
    VK_CHECK(vkBindBufferMemory(c.device, o.out, o.memory, 2 * kBytes));
    // Three bindings of one array-less layout entry each, as add.comp declares them; the
    // template writes them as one run of three descriptors.
    VkDescriptorSetLayoutBinding bindings[3];
    for (uint32_t b = 0; b < 3; ++b)
        bindings[b] = {b, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT,
                       nullptr};
    VkDescriptorSetLayoutCreateInfo set{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    set.bindingCount = 3;
    set.pBindings = bindings;
    VK_CHECK(vkCreateDescriptorSetLayout(c.device, &set, nullptr, &o.set_layout));
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, 4};
    VkPipelineLayoutCreateInfo layout{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layout.setLayoutCount = 1;
    layout.pSetLayouts = &o.set_layout;
    layout.pushConstantRangeCount = 1;
    layout.pPushConstantRanges = &range;
    VK_CHECK(vkCreatePipelineLayout(c.device, &layout, nullptr, &o.layout));
    o.pool = create_descriptor_pool(c, 3);
    o.set = allocate_set(c, o.pool, o.set_layout);
    write_set_with_template(o);
    o.module = create_module(c, add_spv, sizeof add_spv, "add.comp");
    o.pipeline = create_pipeline(c, o.module, o.layout, nullptr, "add");
    VkCommandPoolCreateInfo commands{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    commands.queueFamilyIndex = c.family;
    VK_CHECK(vkCreateCommandPool(c.device, &commands, nullptr, &o.commands));
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo semaphore{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    semaphore.pNext = &type;
    VK_CHECK(vkCreateSemaphore(c.device, &semaphore, nullptr, &o.timeline));
}

// The arguments buffers of submission 6: `from_host` holds kIndirectGroups already,
// `written_first` gets them from a vkCmdUpdateBuffer before its dispatch.
struct IndirectArgs {
    VkDeviceMemory memory;
    VkBuffer from_host, written_first;
};

IndirectArgs create_indirect_args(Context& c) {
    IndirectArgs a;
    const uint64_t size = sizeof kIndirectGroups;
    a.memory = allocate_memory(c, 2 * 256, "indirect args");
    const auto usage = VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    a.from_host = create_buffer(c, size, usage, "from_host");
    a.written_first = create_buffer(c, size, usage, "written_first");
    VK_CHECK(vkBindBufferMemory(c.device, a.from_host, a.memory, 0));
    VK_CHECK(vkBindBufferMemory(c.device, a.written_first, a.memory, 256));
    void* mapped = nullptr;
    VK_CHECK(vkMapMemory(c.device, a.memory, 0, VK_WHOLE_SIZE, 0, &mapped));
    std::memcpy(mapped, kIndirectGroups, size);
    vkUnmapMemory(c.device, a.memory);
    return a;
}

VkCommandBuffer allocate(Objects& o, VkCommandBufferLevel level) {
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = o.commands;
    alloc.level = level;
    alloc.commandBufferCount = 1;
    VkCommandBuffer cb;
    VK_CHECK(vkAllocateCommandBuffers(o.c.device, &alloc, &cb));
    return cb;
}

void record_dispatch(Objects& o, VkCommandBuffer cb, const char* label) {
    begin_label(o.c, cb, label);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, o.pipeline);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, o.layout, 0, 1, &o.set, 0, nullptr);
    vkCmdPushConstants(cb, o.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &kCount);
    vkCmdDispatch(cb, kCount / 64, 1, 1);
    end_label(o.c, cb);
}

// A primary command buffer with the dispatch, or (in_secondary) one that executes a secondary
// holding it.
VkCommandBuffer record(Objects& o, const char* label, bool in_secondary) {
    VkCommandBuffer primary = allocate(o, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    if (in_secondary) {
        VkCommandBuffer secondary = allocate(o, VK_COMMAND_BUFFER_LEVEL_SECONDARY);
        VkCommandBufferInheritanceInfo inheritance{
            VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO};
        VkCommandBufferBeginInfo secondary_begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        secondary_begin.pInheritanceInfo = &inheritance;
        VK_CHECK(vkBeginCommandBuffer(secondary, &secondary_begin));
        record_dispatch(o, secondary, label);
        VK_CHECK(vkEndCommandBuffer(secondary));
        VK_CHECK(vkBeginCommandBuffer(primary, &begin));
        vkCmdExecuteCommands(primary, 1, &secondary);
    } else {
        VK_CHECK(vkBeginCommandBuffer(primary, &begin));
        record_dispatch(o, primary, label);
    }
    VK_CHECK(vkEndCommandBuffer(primary));
    return primary;
}

// One submission: waits for `wait_value` of the timeline (0: no wait) and signals
// `signal_value` (0: no signal), through VkTimelineSemaphoreSubmitInfo.
void submit(Objects& o, VkCommandBuffer cb, uint64_t wait_value, uint64_t signal_value,
            VkFence fence = VK_NULL_HANDLE) {
    VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    values.waitSemaphoreValueCount = wait_value ? 1 : 0;
    values.pWaitSemaphoreValues = &wait_value;
    values.signalSemaphoreValueCount = signal_value ? 1 : 0;
    values.pSignalSemaphoreValues = &signal_value;
    const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    VkSubmitInfo info{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    info.pNext = &values;
    info.commandBufferCount = 1;
    info.pCommandBuffers = &cb;
    info.waitSemaphoreCount = wait_value ? 1 : 0;
    info.pWaitSemaphores = &o.timeline;
    info.pWaitDstStageMask = &stage;
    info.signalSemaphoreCount = signal_value ? 1 : 0;
    info.pSignalSemaphores = &o.timeline;
    VK_CHECK(vkQueueSubmit(o.c.queue, 1, &info, fence));
}

VkCommandBuffer record_indirect(Objects& o, const IndirectArgs& args) {
    VkCommandBuffer cb = allocate(o, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_CHECK(vkBeginCommandBuffer(cb, &begin));
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, o.pipeline);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, o.layout, 0, 1, &o.set, 0, nullptr);
    vkCmdPushConstants(cb, o.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &kCount);
    begin_label(o.c, cb, kIndirectFromHost);
    vkCmdDispatchIndirect(cb, args.from_host, 0);
    end_label(o.c, cb);
    vkCmdUpdateBuffer(cb, args.written_first, 0, sizeof kIndirectGroups, kIndirectGroups);
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         0, 1, &barrier, 0, nullptr, 0, nullptr);
    begin_label(o.c, cb, kIndirectWrittenFirst);
    vkCmdDispatchIndirect(cb, args.written_first, 0);
    end_label(o.c, cb);
    VK_CHECK(vkEndCommandBuffer(cb));
    return cb;
}

void wait_for_value(Objects& o, uint64_t value) {
    VkSemaphoreWaitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    wait.semaphoreCount = 1;
    wait.pSemaphores = &o.timeline;
    wait.pValues = &value;
    VK_CHECK(vkWaitSemaphores(o.c.device, &wait, UINT64_MAX));
}

}  // namespace

int main() {
    Objects o;
    o.c = create_context(false, kTimelineSemaphore);
    create_objects(o);
    VkCommandBuffer cbs[kSubmissions];
    for (uint32_t s = 0; s < kSubmissions; ++s) cbs[s] = record(o, kLabels[s], s == 1);
    VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    VK_CHECK(vkCreateFence(o.c.device, &fence_info, nullptr, &fence));

    submit(o, cbs[0], 0, 1, fence);
    while (vkGetFenceStatus(o.c.device, fence) != VK_SUCCESS) {
    }
    submit(o, cbs[1], 0, 2);  // after the fence poll: host wait
    submit(o, cbs[2], 2, 3);  // waits for what submission 1 signals: semaphore
    submit(o, cbs[3], 1, 0);  // waits for a value submission 0 signalled: nothing new
    VkSemaphoreSignalInfo host_signal{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
    host_signal.semaphore = o.timeline;
    wait_for_value(o, 3);  // the host may only raise the value past the device's signals
    host_signal.value = 10;
    VK_CHECK(vkSignalSemaphore(o.c.device, &host_signal));
    submit(o, cbs[4], 10, 11);  // waits for the host's value: nothing on the device
    wait_for_value(o, 11);
    submit(o, cbs[5], 0, 0);  // after the host waited for submission 4's value: host wait
    VK_CHECK(vkQueueWaitIdle(o.c.queue));
    const IndirectArgs args = create_indirect_args(o.c);
    submit(o, record_indirect(o, args), 0, 0);
    VK_CHECK(vkQueueWaitIdle(o.c.queue));
    for (VkBuffer b : {args.from_host, args.written_first}) vkDestroyBuffer(o.c.device, b, nullptr);
    vkFreeMemory(o.c.device, args.memory, nullptr);

    vkDestroyFence(o.c.device, fence, nullptr);
    vkDestroySemaphore(o.c.device, o.timeline, nullptr);
    vkDestroyCommandPool(o.c.device, o.commands, nullptr);
    vkDestroyPipeline(o.c.device, o.pipeline, nullptr);
    vkDestroyShaderModule(o.c.device, o.module, nullptr);
    vkDestroyDescriptorPool(o.c.device, o.pool, nullptr);
    vkDestroyPipelineLayout(o.c.device, o.layout, nullptr);
    vkDestroyDescriptorSetLayout(o.c.device, o.set_layout, nullptr);
    for (VkBuffer b : {o.a, o.b, o.out}) vkDestroyBuffer(o.c.device, b, nullptr);
    vkFreeMemory(o.c.device, o.memory, nullptr);
    destroy_context(o.c);
    return 0;
}
