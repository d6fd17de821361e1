// Three dispatches around an event set and wait (event_layout.h): `--case racy` records a
// dispatch between vkCmdSetEvent and vkCmdWaitEvents whose write the dispatch after the wait
// reads (a race: the event orders only the commands before its set); `--case ordered` uses
// vkCmdSetEvent2 / vkCmdWaitEvents2 correctly. `--validate` enables synchronization
// validation and exits 3 on any validation error.
#include <cstring>
#include <string>

#include "add.spv.h"
#include "event_layout.h"
#include "vk_program.h"

using namespace program;
using namespace event_program;

namespace {

struct Objects {
    Context c;
    VkDeviceMemory memory;
    VkBuffer buffers[kBuffers];
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkShaderModule module;
    VkPipeline add;
    VkCommandPool commands;
    VkEvent event;
};

void create_objects(Objects& o) {
    Context& c = o.c;
    o.memory = allocate_memory(c, kBuffers * kBytes, "memory");
    const char* names[kBuffers] = {"a", "b", "x", "y", "z", "c"};
    for (uint32_t i = 0; i < kBuffers; ++i) {
        o.buffers[i] = create_buffer(c, kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, names[i]);
        VK_CHECK(vkBindBufferMemory(c.device, o.buffers[i], o.memory, i * kBytes));
    }
    VkDescriptorSetLayoutBinding bindings[3];
    for (uint32_t b = 0; b < 3; ++b)
        bindings[b] = {b, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT,
                       nullptr};
    VkDescriptorSetLayoutCreateInfo set{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    set.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
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
    o.module = create_module(c, add_spv, sizeof add_spv, "add.comp");
    o.add = create_pipeline(c, o.module, o.layout, nullptr, "add");
    VkCommandPoolCreateInfo commands{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    commands.queueFamilyIndex = c.family;
    VK_CHECK(vkCreateCommandPool(c.device, &commands, nullptr, &o.commands));
    VkEventCreateInfo event{VK_STRUCTURE_TYPE_EVENT_CREATE_INFO};
    VK_CHECK(vkCreateEvent(c.device, &event, nullptr, &o.event));
}

// out = in0 + in1, labelled.
void add(Objects& o, VkCommandBuffer cb, const char* label, BufferIndex in0, BufferIndex in1,
         BufferIndex out) {
    begin_label(o.c, cb, label);
    const VkDescriptorBufferInfo infos[3] = {
        {o.buffers[in0], 0, kBytes}, {o.buffers[in1], 0, kBytes}, {o.buffers[out], 0, kBytes}};
    VkWriteDescriptorSet writes[3];
    for (uint32_t b = 0; b < 3; ++b) {
        writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[b].dstBinding = b;
        writes[b].descriptorCount = 1;
        writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[b].pBufferInfo = &infos[b];
    }
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, o.add);
    o.c.push_descriptor_set(cb, VK_PIPELINE_BIND_POINT_COMPUTE, o.layout, 0, 3, writes);
    vkCmdPushConstants(cb, o.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &kCount);
    vkCmdDispatch(cb, kCount / 64, 1, 1);
    end_label(o.c, cb);
}

// Compute shader writes made visible to compute shader reads, for the commands before the set.
void racy(Objects& o, VkCommandBuffer cb) {
    add(o, cb, kBeforeSet, kA, kB, kX);
    vkCmdSetEvent(cb, o.event, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
    add(o, cb, kBetween, kA, kB, kY);
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
    vkCmdWaitEvents(cb, 1, &o.event, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 1, &barrier, 0, nullptr, 0, nullptr);
    add(o, cb, kAfter, kX, kY, kC);
}

void ordered(Objects& o, VkCommandBuffer cb) {
    add(o, cb, kBeforeSet, kA, kB, kX);
    VkMemoryBarrier2 barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
    barrier.srcStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
    barrier.srcAccessMask = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
    barrier.dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
    barrier.dstAccessMask = VK_ACCESS_2_SHADER_STORAGE_READ_BIT;
    VkDependencyInfo dependency{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dependency.memoryBarrierCount = 1;
    dependency.pMemoryBarriers = &barrier;
    vkCmdSetEvent2(cb, o.event, &dependency);
    add(o, cb, kBetween, kA, kB, kZ);
    vkCmdWaitEvents2(cb, 1, &o.event, &dependency);
    add(o, cb, kAfter, kX, kA, kC);
}

}  // namespace

int main(int argc, char** argv) {
    bool validate = false;
    std::string which;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--validate") {
            validate = true;
        } else if (a == "--case" && i + 1 < argc) {
            which = argv[++i];
        } else {
            std::fprintf(stderr, "usage: event_program --case racy|ordered [--validate]\n");
            return 2;
        }
    }
    if (which != "racy" && which != "ordered") {
        std::fprintf(stderr, "event_program: --case racy or --case ordered\n");
        return 2;
    }
    Objects o;
    o.c = create_context(validate);
    create_objects(o);
    VkCommandBuffer cb = begin_primary(o.c, o.commands);
    if (which == "racy")
        racy(o, cb);
    else
        ordered(o, cb);
    submit_and_wait(o.c, cb);

    vkDestroyEvent(o.c.device, o.event, nullptr);
    vkDestroyCommandPool(o.c.device, o.commands, nullptr);
    vkDestroyPipeline(o.c.device, o.add, nullptr);
    vkDestroyShaderModule(o.c.device, o.module, nullptr);
    vkDestroyPipelineLayout(o.c.device, o.layout, nullptr);
    vkDestroyDescriptorSetLayout(o.c.device, o.set_layout, nullptr);
    for (VkBuffer b : o.buffers) vkDestroyBuffer(o.c.device, b, nullptr);
    vkFreeMemory(o.c.device, o.memory, nullptr);
    destroy_context(o.c);
    return validation_log().errors ? 3 : 0;
}
