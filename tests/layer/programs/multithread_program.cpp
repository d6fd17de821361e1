// Records command buffers on several threads at once (each its own command pool) and submits
// them in one vkQueueSubmit, for the capture layer's test that nothing is lost or mixed up.
#include <string>
#include <thread>

#include "add.spv.h"
#include "multithread_layout.h"
#include "vk_program.h"

using namespace program;
using namespace multithread;

namespace {

struct Shared {
    Context c;
    VkDeviceMemory memory;
    VkBuffer in, out;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkShaderModule module;
    VkPipeline pipeline;
};

void create_shared(Shared& s) {
    Context& c = s.c;
    const auto usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    s.memory = allocate_memory(c, kInSize + kOutSize, "memory");
    s.in = create_buffer(c, kInSize, usage, "in");
    s.out = create_buffer(c, kOutSize, usage, "out");
    VK_CHECK(vkBindBufferMemory(c.device, s.in, s.memory, 0));
    VK_CHECK(vkBindBufferMemory(c.device, s.out, s.memory, kInSize));
    VkDescriptorSetLayoutBinding bindings[3];
    for (uint32_t b = 0; b < 3; ++b)
        bindings[b] = {b, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT,
                       nullptr};
    VkDescriptorSetLayoutCreateInfo set{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    set.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
    set.bindingCount = 3;
    set.pBindings = bindings;
    VK_CHECK(vkCreateDescriptorSetLayout(c.device, &set, nullptr, &s.set_layout));
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, 4};
    VkPipelineLayoutCreateInfo layout{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layout.setLayoutCount = 1;
    layout.pSetLayouts = &s.set_layout;
    layout.pushConstantRangeCount = 1;
    layout.pPushConstantRanges = &range;
    VK_CHECK(vkCreatePipelineLayout(c.device, &layout, nullptr, &s.layout));
    s.module = create_module(c, add_spv, sizeof add_spv, "add.comp");
    s.pipeline = create_pipeline(c, s.module, s.layout, nullptr, "add");
}

void record(Shared& s, uint32_t thread, VkCommandBuffer cb) {
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_CHECK(vkBeginCommandBuffer(cb, &begin));
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, s.pipeline);
    for (uint32_t i = 0; i < kDispatchesPerThread; ++i) {
        const std::string label = "t" + std::to_string(thread) + ".d" + std::to_string(i);
        begin_label(s.c, cb, label.c_str());
        const VkDescriptorBufferInfo in{s.in, 0, kInSize};
        const VkDescriptorBufferInfo out{s.out, (thread * kDispatchesPerThread + i) * kSlice,
                                         kSlice};
        VkWriteDescriptorSet writes[3];
        for (uint32_t b = 0; b < 3; ++b) {
            writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            writes[b].dstBinding = b;
            writes[b].descriptorCount = 1;
            writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            writes[b].pBufferInfo = b == 2 ? &out : &in;
        }
        s.c.push_descriptor_set(cb, VK_PIPELINE_BIND_POINT_COMPUTE, s.layout, 0, 3, writes);
        const uint32_t count = kSlice / 4;
        vkCmdPushConstants(cb, s.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &count);
        vkCmdDispatch(cb, 1, 1, 1);
        end_label(s.c, cb);
    }
    VK_CHECK(vkEndCommandBuffer(cb));
}

}  // namespace

int main() {
    Shared s;
    s.c = create_context(false);
    create_shared(s);
    VkCommandPool pools[kThreads];
    VkCommandBuffer cbs[kThreads];
    for (uint32_t t = 0; t < kThreads; ++t) {
        VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pool.queueFamilyIndex = s.c.family;
        VK_CHECK(vkCreateCommandPool(s.c.device, &pool, nullptr, &pools[t]));
        VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        alloc.commandPool = pools[t];
        alloc.commandBufferCount = 1;
        VK_CHECK(vkAllocateCommandBuffers(s.c.device, &alloc, &cbs[t]));
    }
    std::vector<std::thread> threads;
    for (uint32_t t = 0; t < kThreads; ++t) threads.emplace_back(record, std::ref(s), t, cbs[t]);
    for (auto& th : threads) th.join();
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = kThreads;
    submit.pCommandBuffers = cbs;
    VK_CHECK(vkQueueSubmit(s.c.queue, 1, &submit, VK_NULL_HANDLE));
    VK_CHECK(vkQueueWaitIdle(s.c.queue));
    for (VkCommandPool p : pools) vkDestroyCommandPool(s.c.device, p, nullptr);
    vkDestroyPipeline(s.c.device, s.pipeline, nullptr);
    vkDestroyShaderModule(s.c.device, s.module, nullptr);
    vkDestroyPipelineLayout(s.c.device, s.layout, nullptr);
    vkDestroyDescriptorSetLayout(s.c.device, s.set_layout, nullptr);
    vkDestroyBuffer(s.c.device, s.in, nullptr);
    vkDestroyBuffer(s.c.device, s.out, nullptr);
    vkFreeMemory(s.c.device, s.memory, nullptr);
    destroy_context(s.c);
    return 0;
}
