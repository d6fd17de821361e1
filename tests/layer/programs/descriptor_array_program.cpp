// A kernel whose inputs are a descriptor array (descriptor_array_layout.h), dispatched directly
// and then indirectly with the same descriptor set, in one submission: what an engine that
// sizes its work on the device records. `--validate` enables synchronization validation and
// exits 3 on any validation error.
#include <cstring>
#include <string>

#include "descriptor_array_layout.h"
#include "sum_array.spv.h"
#include "vk_program.h"

using namespace program;
using namespace descriptor_array_program;

namespace {

struct Objects {
    Context c;
    VkDeviceMemory memory;
    VkBuffer buffers[kBuffers];
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkDescriptorPool pool;
    VkDescriptorSet set;
    VkShaderModule module;
    VkPipeline pipeline;
    VkCommandPool commands;
};

// The inputs and the indirect arguments as the host writes them before the submission.
void fill(Objects& o) {
    void* mapped = nullptr;
    VK_CHECK(vkMapMemory(o.c.device, o.memory, 0, VK_WHOLE_SIZE, 0, &mapped));
    auto* floats = static_cast<float*>(mapped);
    for (uint32_t i = 0; i < 2 * kCount; ++i) floats[i] = float(i);
    std::memcpy(static_cast<char*>(mapped) + kArgs * kBytes, kIndirectGroups,
                sizeof kIndirectGroups);
    vkUnmapMemory(o.c.device, o.memory);
}

void create_buffers(Objects& o) {
    Context& c = o.c;
    o.memory = allocate_memory(c, kBuffers * kBytes, "memory");
    const char* names[kBuffers] = {"input0", "input1", "result", "args"};
    for (uint32_t i = 0; i < kBuffers; ++i) {
        const VkBufferUsageFlags usage =
            i == kArgs ? VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT : VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
        o.buffers[i] = create_buffer(c, i == kArgs ? kArgsBytes : kBytes, usage, names[i]);
        VK_CHECK(vkBindBufferMemory(c.device, o.buffers[i], o.memory, i * kBytes));
    }
    fill(o);
}

// Binding 0 is the array of the two inputs, written by one VkWriteDescriptorSet of two
// descriptors; binding 1 is the result.
void create_set(Objects& o) {
    Context& c = o.c;
    const VkDescriptorSetLayoutBinding bindings[2] = {
        {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
        {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
    VkDescriptorSetLayoutCreateInfo set{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    set.bindingCount = 2;
    set.pBindings = bindings;
    VK_CHECK(vkCreateDescriptorSetLayout(c.device, &set, nullptr, &o.set_layout));
    o.pool = create_descriptor_pool(c, 3);
    o.set = allocate_set(c, o.pool, o.set_layout);
    const VkDescriptorBufferInfo inputs[2] = {{o.buffers[kInput0], 0, VK_WHOLE_SIZE},
                                              {o.buffers[kInput1], 0, VK_WHOLE_SIZE}};
    const VkDescriptorBufferInfo result{o.buffers[kResult], 0, VK_WHOLE_SIZE};
    VkWriteDescriptorSet writes[2];
    for (uint32_t b = 0; b < 2; ++b) {
        writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[b].dstSet = o.set;
        writes[b].dstBinding = b;
        writes[b].descriptorCount = b == 0 ? 2 : 1;
        writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[b].pBufferInfo = b == 0 ? inputs : &result;
    }
    vkUpdateDescriptorSets(c.device, 2, writes, 0, nullptr);
}

void create_objects(Objects& o) {
    Context& c = o.c;
    create_buffers(o);
    create_set(o);
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, 4};
    VkPipelineLayoutCreateInfo layout{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layout.setLayoutCount = 1;
    layout.pSetLayouts = &o.set_layout;
    layout.pushConstantRangeCount = 1;
    layout.pPushConstantRanges = &range;
    VK_CHECK(vkCreatePipelineLayout(c.device, &layout, nullptr, &o.layout));
    o.module = create_module(c, sum_array_spv, sizeof sum_array_spv, "sum_array.comp");
    o.pipeline = create_pipeline(c, o.module, o.layout, nullptr, "sum_array");
    VkCommandPoolCreateInfo commands{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    commands.queueFamilyIndex = c.family;
    VK_CHECK(vkCreateCommandPool(c.device, &commands, nullptr, &o.commands));
}

// Both dispatches write the result: the barrier orders the second's write after the first's.
void record(Objects& o, VkCommandBuffer cb) {
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, o.pipeline);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, o.layout, 0, 1, &o.set, 0, nullptr);
    vkCmdPushConstants(cb, o.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &kCount);
    begin_label(o.c, cb, kDirect);
    vkCmdDispatch(cb, kIndirectGroups[0], kIndirectGroups[1], kIndirectGroups[2]);
    end_label(o.c, cb);
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0, nullptr, 0,
                         nullptr);
    begin_label(o.c, cb, kIndirect);
    vkCmdDispatchIndirect(cb, o.buffers[kArgs], 0);
    end_label(o.c, cb);
}

}  // namespace

int main(int argc, char** argv) {
    bool validate = false;
    for (int i = 1; i < argc; ++i) {
        if (std::string(argv[i]) != "--validate") {
            std::fprintf(stderr, "usage: descriptor_array_program [--validate]\n");
            return 2;
        }
        validate = true;
    }
    Objects o;
    o.c = create_context(validate);
    create_objects(o);
    VkCommandBuffer cb = begin_primary(o.c, o.commands);
    record(o, cb);
    submit_and_wait(o.c, cb);

    vkDestroyCommandPool(o.c.device, o.commands, nullptr);
    vkDestroyPipeline(o.c.device, o.pipeline, nullptr);
    vkDestroyShaderModule(o.c.device, o.module, nullptr);
    vkDestroyDescriptorPool(o.c.device, o.pool, nullptr);
    vkDestroyPipelineLayout(o.c.device, o.layout, nullptr);
    vkDestroyDescriptorSetLayout(o.c.device, o.set_layout, nullptr);
    for (VkBuffer b : o.buffers) vkDestroyBuffer(o.c.device, b, nullptr);
    vkFreeMemory(o.c.device, o.memory, nullptr);
    destroy_context(o.c);
    return validation_log().errors ? 3 : 0;
}
