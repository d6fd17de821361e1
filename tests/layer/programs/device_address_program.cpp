// A program that addresses a buffer through its device address (bufferDeviceAddress, the
// address in a push constant), then reads it through descriptors: the capture layer cannot
// know what the first dispatch writes and must say so, while the second is an ordinary
// dispatch on a buffer made with VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT.
//   --validate  enable validation with synchronization validation; exit 3 on any error
#include <cstring>
#include <string>

#include "add.spv.h"
#include "device_address_layout.h"
#include "store_through_address.spv.h"
#include "vk_program.h"

using namespace program;
using namespace device_address;

namespace {

struct PushAddress {
    VkDeviceAddress target;
    uint32_t count;
};

VkPipelineLayout pipeline_layout(Context& c, VkDescriptorSetLayout set, uint32_t push_bytes) {
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
    VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    info.setLayoutCount = set ? 1 : 0;
    info.pSetLayouts = &set;
    info.pushConstantRangeCount = 1;
    info.pPushConstantRanges = &range;
    VkPipelineLayout layout;
    VK_CHECK(vkCreatePipelineLayout(c.device, &info, nullptr, &layout));
    return layout;
}

VkDescriptorSetLayout push_set_layout(Context& c) {
    VkDescriptorSetLayoutBinding bindings[3];
    for (uint32_t b = 0; b < 3; ++b)
        bindings[b] = {b, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT,
                       nullptr};
    VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
    info.bindingCount = 3;
    info.pBindings = bindings;
    VkDescriptorSetLayout layout;
    VK_CHECK(vkCreateDescriptorSetLayout(c.device, &info, nullptr, &layout));
    return layout;
}

}  // namespace

int main(int argc, char** argv) {
    const bool validate = argc > 1 && std::strcmp(argv[1], "--validate") == 0;
    Context c = create_context(validate, kBufferDeviceAddress);
    VkDeviceMemory addressed =
        allocate_memory(c, kBytes, "addressed", VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT);
    VkDeviceMemory plain = allocate_memory(c, kBytes, "plain");
    VkBuffer data = create_buffer(
        c, kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
        "data");
    VkBuffer out = create_buffer(c, kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, "out");
    VK_CHECK(vkBindBufferMemory(c.device, data, addressed, 0));
    VK_CHECK(vkBindBufferMemory(c.device, out, plain, 0));
    VkBufferDeviceAddressInfo address_info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
    address_info.buffer = data;
    const PushAddress push{vkGetBufferDeviceAddress(c.device, &address_info), kCount};

    VkDescriptorSetLayout set = push_set_layout(c);
    VkPipelineLayout store_layout = pipeline_layout(c, VK_NULL_HANDLE, sizeof push);
    VkPipelineLayout add_layout = pipeline_layout(c, set, 4);
    VkShaderModule store_module =
        create_module(c, store_through_address_spv, sizeof store_through_address_spv, kStoreLabel);
    VkShaderModule add_module = create_module(c, add_spv, sizeof add_spv, kAddLabel);
    VkPipeline store = create_pipeline(c, store_module, store_layout, nullptr, kStoreLabel);
    VkPipeline add = create_pipeline(c, add_module, add_layout, nullptr, kAddLabel);

    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool_info.queueFamilyIndex = c.family;
    VkCommandPool pool;
    VK_CHECK(vkCreateCommandPool(c.device, &pool_info, nullptr, &pool));
    VkCommandBuffer cb = begin_primary(c, pool);
    begin_label(c, cb, kStoreLabel);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, store);
    vkCmdPushConstants(cb, store_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
    vkCmdDispatch(cb, kCount / 64, 1, 1);
    end_label(c, cb);
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0, nullptr, 0,
                         nullptr);
    begin_label(c, cb, kAddLabel);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, add);
    const VkDescriptorBufferInfo in_info{data, 0, kBytes};
    const VkDescriptorBufferInfo out_info{out, 0, kBytes};
    VkWriteDescriptorSet writes[3];
    for (uint32_t b = 0; b < 3; ++b) {
        writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[b].dstBinding = b;
        writes[b].descriptorCount = 1;
        writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[b].pBufferInfo = b == 2 ? &out_info : &in_info;
    }
    c.push_descriptor_set(cb, VK_PIPELINE_BIND_POINT_COMPUTE, add_layout, 0, 3, writes);
    vkCmdPushConstants(cb, add_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &kCount);
    vkCmdDispatch(cb, kCount / 64, 1, 1);
    end_label(c, cb);
    submit_and_wait(c, cb);

    vkDestroyCommandPool(c.device, pool, nullptr);
    for (VkPipeline p : {store, add}) vkDestroyPipeline(c.device, p, nullptr);
    for (VkShaderModule m : {store_module, add_module}) vkDestroyShaderModule(c.device, m, nullptr);
    for (VkPipelineLayout l : {store_layout, add_layout})
        vkDestroyPipelineLayout(c.device, l, nullptr);
    vkDestroyDescriptorSetLayout(c.device, set, nullptr);
    for (VkBuffer b : {data, out}) vkDestroyBuffer(c.device, b, nullptr);
    for (VkDeviceMemory m : {addressed, plain}) vkFreeMemory(c.device, m, nullptr);
    destroy_context(c);
    return validate && validation_log().errors ? 3 : 0;
}
