// A small standalone compute "engine" for the capture layer's tests: three pipelines (one
// specialised), descriptor sets with dynamic offsets, push descriptors, push constants, a
// buffer barrier on one range, two buffers aliasing one VkDeviceMemory, a vkCmdFillBuffer,
// debug labels and object names — and, planted on purpose, one redundant barrier and one
// missing barrier (dispatch 3 reads what dispatch 2 wrote with nothing between).
// engine_layout.h states every range. Options:
//   --out FILE    write the output buffer and the arena's bytes to FILE
//   --validate    enable validation with synchronization validation; exit 3 on any error
//   --no-dispatch record the same submissions without a single dispatch
#include <cstring>
#include <fstream>
#include <string>

#include "add.spv.h"
#include "copy.spv.h"
#include "engine_layout.h"
#include "scale.spv.h"
#include "vk_program.h"

using namespace program;
using namespace engine;

namespace {

struct Engine {
    Context c;
    VkDeviceMemory arena, output_memory;
    VkBuffer input, params, scratch_a, scratch_b, output;
    VkDescriptorSetLayout scale_io, scale_params, add_io, copy_io;
    VkPipelineLayout scale_layout, add_layout, copy_layout;
    VkPipeline scale, add, copy;
    VkDescriptorPool pool;
    VkDescriptorSet scale_d0, scale_d3, params_set, copy_d2, copy_d5;
    VkCommandPool cmd_pool;
    VkCommandBuffer cbs[3];
    VkFence fence;
    VkSemaphore frame_done;
    std::vector<VkShaderModule> modules;
    bool dispatch = true;
};

void create_buffers(Engine& e) {
    Context& c = e.c;
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    e.arena = allocate_memory(c, kArenaSize, "arena");
    e.output_memory = allocate_memory(c, kOutputSize, nullptr);  // named by its buffer
    e.input = create_buffer(c, kInputSize, storage, "input");
    e.params = create_buffer(c, kParamsSize, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, "params");
    e.scratch_a = create_buffer(c, kScratchASize, storage, "scratch_a");
    e.scratch_b = create_buffer(c, kScratchBSize, storage, "scratch_b");
    e.output = create_buffer(c, kOutputSize, storage, "output");
    VK_CHECK(vkBindBufferMemory(c.device, e.input, e.arena, kInputOffset));
    VK_CHECK(vkBindBufferMemory(c.device, e.params, e.arena, kParamsOffset));
    VK_CHECK(vkBindBufferMemory(c.device, e.scratch_a, e.arena, kScratchAOffset));
    VK_CHECK(vkBindBufferMemory(c.device, e.scratch_b, e.arena, kScratchBOffset));
    VkBindBufferMemoryInfo bind{VK_STRUCTURE_TYPE_BIND_BUFFER_MEMORY_INFO};
    bind.buffer = e.output;
    bind.memory = e.output_memory;
    VK_CHECK(vkBindBufferMemory2(c.device, 1, &bind));
    void* mapped = nullptr;
    VK_CHECK(vkMapMemory(c.device, e.arena, 0, kArenaSize, 0, &mapped));
    auto* f = static_cast<float*>(mapped);
    for (uint64_t i = 0; i < kArenaSize / 4; ++i) f[i] = float(i % 97) * 0.25f;
    f[(kParamsOffset + kParamsDynamic0) / 4] = 2.0f;
    f[(kParamsOffset + kParamsDynamic1) / 4] = -1.5f;
    vkUnmapMemory(c.device, e.arena);
}

VkDescriptorSetLayout set_layout(Context& c, std::initializer_list<VkDescriptorType> types,
                                 VkDescriptorSetLayoutCreateFlags flags) {
    std::vector<VkDescriptorSetLayoutBinding> bindings;
    for (VkDescriptorType t : types)
        bindings.push_back({uint32_t(bindings.size()), t, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
    VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    info.flags = flags;
    info.bindingCount = uint32_t(bindings.size());
    info.pBindings = bindings.data();
    VkDescriptorSetLayout l;
    VK_CHECK(vkCreateDescriptorSetLayout(c.device, &info, nullptr, &l));
    return l;
}

VkPipelineLayout pipeline_layout(Context& c, std::vector<VkDescriptorSetLayout> sets,
                                 uint32_t push_bytes) {
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
    VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    info.setLayoutCount = uint32_t(sets.size());
    info.pSetLayouts = sets.data();
    info.pushConstantRangeCount = 1;
    info.pPushConstantRanges = &range;
    VkPipelineLayout l;
    VK_CHECK(vkCreatePipelineLayout(c.device, &info, nullptr, &l));
    return l;
}

void create_pipelines(Engine& e) {
    Context& c = e.c;
    const auto sb = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    e.scale_io = set_layout(c, {sb, sb}, 0);
    e.scale_params = set_layout(c, {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC}, 0);
    e.add_io = set_layout(c, {sb, sb, sb}, VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR);
    e.copy_io = set_layout(c, {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, sb}, 0);
    e.scale_layout = pipeline_layout(c, {e.scale_io, e.scale_params}, 8);
    e.add_layout = pipeline_layout(c, {e.add_io}, 4);
    e.copy_layout = pipeline_layout(c, {e.copy_io}, 4);
    const VkSpecializationMapEntry entry{0, 0, 4};
    const VkSpecializationInfo spec{1, &entry, 4, &kLocalSize};
    e.modules = {create_module(c, scale_spv, sizeof scale_spv, "scale.comp"),
                 create_module(c, add_spv, sizeof add_spv, "add.comp"),
                 create_module(c, copy_spv, sizeof copy_spv, "copy.comp")};
    e.scale = create_pipeline(c, e.modules[0], e.scale_layout, &spec, "scale");
    e.add = create_pipeline(c, e.modules[1], e.add_layout, nullptr, "add");
    // Not named: its kernel takes the name of its module.
    e.copy = create_pipeline(c, e.modules[2], e.copy_layout, nullptr, nullptr);
}

VkWriteDescriptorSet buffer_write(VkDescriptorSet set, uint32_t binding, VkDescriptorType type,
                                  const VkDescriptorBufferInfo* info) {
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstSet = set;
    w.dstBinding = binding;
    w.descriptorCount = 1;
    w.descriptorType = type;
    w.pBufferInfo = info;
    return w;
}

void create_descriptors(Engine& e) {
    VkDevice d = e.c.device;
    VkDescriptorPoolSize sizes[] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 8},
                                    {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 1},
                                    {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 2}};
    VkDescriptorPoolCreateInfo pool{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pool.maxSets = 5;
    pool.poolSizeCount = 3;
    pool.pPoolSizes = sizes;
    VK_CHECK(vkCreateDescriptorPool(d, &pool, nullptr, &e.pool));
    VkDescriptorSetLayout layouts[] = {e.scale_io, e.scale_io, e.scale_params, e.copy_io,
                                       e.copy_io};
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = e.pool;
    alloc.descriptorSetCount = 5;
    alloc.pSetLayouts = layouts;
    VkDescriptorSet sets[5];
    VK_CHECK(vkAllocateDescriptorSets(d, &alloc, sets));
    e.scale_d0 = sets[0], e.scale_d3 = sets[1], e.params_set = sets[2];
    e.copy_d2 = sets[3], e.copy_d5 = sets[4];
    const auto sb = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    const VkDescriptorBufferInfo infos[] = {
        {e.input, 0, VK_WHOLE_SIZE}, {e.scratch_a, 0, 4096},      {e.output, 0, 1024},
        {e.output, 2048, 1024},      {e.params, 0, kParamsRange}, {e.input, 0, 1024},
        {e.output, 0, 1024},         {e.scratch_b, 4096, 1024},   {e.output, 3072, 1024}};
    const VkWriteDescriptorSet writes[] = {
        buffer_write(e.scale_d0, 0, sb, &infos[0]),
        buffer_write(e.scale_d0, 1, sb, &infos[1]),
        buffer_write(e.scale_d3, 0, sb, &infos[2]),
        buffer_write(e.scale_d3, 1, sb, &infos[3]),
        buffer_write(e.params_set, 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, &infos[4]),
        buffer_write(e.copy_d2, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, &infos[5]),
        buffer_write(e.copy_d2, 1, sb, &infos[6]),
        buffer_write(e.copy_d5, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, &infos[7]),
        buffer_write(e.copy_d5, 1, sb, &infos[8])};
    vkUpdateDescriptorSets(d, 9, writes, 0, nullptr);
}

struct ScaleConstants {
    uint32_t count;
    float bias;
};

void dispatch_scale(Engine& e, VkCommandBuffer cb, VkDescriptorSet io, uint32_t params_offset,
                    uint32_t count) {
    VkDescriptorSet sets[] = {io, e.params_set};
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, e.scale_layout, 0, 2, sets, 1,
                            &params_offset);
    const ScaleConstants pc{count, 0.5f};
    vkCmdPushConstants(cb, e.scale_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
    if (e.dispatch) vkCmdDispatch(cb, count / kLocalSize, 1, 1);
}

void dispatch_add(Engine& e, VkCommandBuffer cb, VkDescriptorBufferInfo a, VkDescriptorBufferInfo b,
                  VkDescriptorBufferInfo c, uint32_t count) {
    const auto sb = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    const VkWriteDescriptorSet writes[] = {buffer_write(VK_NULL_HANDLE, 0, sb, &a),
                                           buffer_write(VK_NULL_HANDLE, 1, sb, &b),
                                           buffer_write(VK_NULL_HANDLE, 2, sb, &c)};
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, e.add);
    e.c.push_descriptor_set(cb, VK_PIPELINE_BIND_POINT_COMPUTE, e.add_layout, 0, 3, writes);
    vkCmdPushConstants(cb, e.add_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &count);
    if (e.dispatch) vkCmdDispatch(cb, count / 64, 1, 1);
}

void dispatch_copy(Engine& e, VkCommandBuffer cb, VkDescriptorSet set, uint32_t src_offset,
                   uint32_t count) {
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, e.copy);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, e.copy_layout, 0, 1, &set, 1,
                            &src_offset);
    vkCmdPushConstants(cb, e.copy_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &count);
    if (e.dispatch) vkCmdDispatch(cb, count / 64, 1, 1);
}

void begin(VkCommandBuffer cb) {
    VkCommandBufferBeginInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(vkBeginCommandBuffer(cb, &info));
}

/// The buffer barrier that orders dispatch 0's write of scratch_a[0, 4096) before dispatch 1.
void scratch_barrier(Engine& e, VkCommandBuffer cb) {
    VkBufferMemoryBarrier b{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
    b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.buffer = e.scratch_a;
    b.offset = 0;
    b.size = 4096;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0, nullptr, 1, &b, 0, nullptr);
}

/// The planted redundant barrier: nothing after it touches what came before.
void redundant_barrier(VkCommandBuffer cb) {
    VkMemoryBarrier2 m{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
    m.srcStageMask = m.dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
    m.srcAccessMask = VK_ACCESS_2_SHADER_WRITE_BIT;
    m.dstAccessMask = VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_WRITE_BIT;
    VkDependencyInfo info{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    info.memoryBarrierCount = 1;
    info.pMemoryBarriers = &m;
    vkCmdPipelineBarrier2(cb, &info);
}

void record_frame(Engine& e, VkCommandBuffer cb) {
    Context& c = e.c;
    begin(cb);
    begin_label(c, cb, "frame");
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, e.scale);
    begin_label(c, cb, kLabels[0]);
    dispatch_scale(e, cb, e.scale_d0, kParamsDynamic0, kElements0);
    end_label(c, cb);
    scratch_barrier(e, cb);
    begin_label(c, cb, kLabels[1]);
    dispatch_add(e, cb, {e.scratch_a, 0, 4096}, {e.input, 0, 4096},
                 {e.scratch_b, 4096, VK_WHOLE_SIZE}, 1024);
    end_label(c, cb);
    begin_label(c, cb, kLabels[2]);
    dispatch_copy(e, cb, e.copy_d2, kCopySrcDynamic, 256);
    end_label(c, cb);
    // Missing barrier (planted): dispatch 3 reads output[0, 1024), which dispatch 2 wrote.
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, e.scale);
    begin_label(c, cb, kLabels[3]);
    dispatch_scale(e, cb, e.scale_d3, kParamsDynamic1, kElements3);
    end_label(c, cb);
    redundant_barrier(cb);
    begin_label(c, cb, kLabels[4]);
    dispatch_add(e, cb, {e.input, 2048, 1024}, {e.input, 3072, 1024}, {e.scratch_b, 0, 1024},
                 kElements4);
    end_label(c, cb);
    end_label(c, cb);
    VK_CHECK(vkEndCommandBuffer(cb));
}

void record_upload_and_finalize(Engine& e) {
    begin(e.cbs[0]);
    begin_label(e.c, e.cbs[0], "upload");
    vkCmdFillBuffer(e.cbs[0], e.output, 0, VK_WHOLE_SIZE, 0);
    end_label(e.c, e.cbs[0]);
    VK_CHECK(vkEndCommandBuffer(e.cbs[0]));
    begin(e.cbs[2]);
    begin_label(e.c, e.cbs[2], kLabels[5]);
    dispatch_copy(e, e.cbs[2], e.copy_d5, 0, 256);
    end_label(e.c, e.cbs[2]);
    VK_CHECK(vkEndCommandBuffer(e.cbs[2]));
}

void create_commands(Engine& e) {
    VkDevice d = e.c.device;
    VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool.queueFamilyIndex = e.c.family;
    VK_CHECK(vkCreateCommandPool(d, &pool, nullptr, &e.cmd_pool));
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = e.cmd_pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 3;
    VK_CHECK(vkAllocateCommandBuffers(d, &alloc, e.cbs));
    VkFenceCreateInfo fence{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CHECK(vkCreateFence(d, &fence, nullptr, &e.fence));
    VkSemaphoreCreateInfo sem{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    VK_CHECK(vkCreateSemaphore(d, &sem, nullptr, &e.frame_done));
}

void submit_and_wait(Engine& e, VkSubmitInfo info) {
    VK_CHECK(vkQueueSubmit(e.c.queue, 1, &info, e.fence));
    VK_CHECK(vkWaitForFences(e.c.device, 1, &e.fence, VK_TRUE, UINT64_MAX));
    VK_CHECK(vkResetFences(e.c.device, 1, &e.fence));
}

/// Submission 0 (upload), host wait, 1 (frame, signals a semaphore), 2 (finalize, waits on it
/// inside a queue label), host wait.
void submit_all(Engine& e) {
    VkSubmitInfo upload{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    upload.commandBufferCount = 1;
    upload.pCommandBuffers = &e.cbs[0];
    submit_and_wait(e, upload);
    VkSubmitInfo frame = upload;
    frame.pCommandBuffers = &e.cbs[1];
    frame.signalSemaphoreCount = 1;
    frame.pSignalSemaphores = &e.frame_done;
    VK_CHECK(vkQueueSubmit(e.c.queue, 1, &frame, VK_NULL_HANDLE));
    VkDebugUtilsLabelEXT label{VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
    label.pLabelName = "finalize";
    e.c.queue_begin_label(e.c.queue, &label);
    const VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    VkSubmitInfo finalize = upload;
    finalize.pCommandBuffers = &e.cbs[2];
    finalize.waitSemaphoreCount = 1;
    finalize.pWaitSemaphores = &e.frame_done;
    finalize.pWaitDstStageMask = &wait_stage;
    submit_and_wait(e, finalize);
    e.c.queue_end_label(e.c.queue);
}

void write_outputs(Engine& e, const std::string& path) {
    std::ofstream out(path, std::ios::binary);
    for (auto [memory, size] : {std::pair{e.output_memory, kOutputSize}, {e.arena, kArenaSize}}) {
        void* mapped = nullptr;
        VK_CHECK(vkMapMemory(e.c.device, memory, 0, size, 0, &mapped));
        out.write(static_cast<const char*>(mapped), std::streamsize(size));
        vkUnmapMemory(e.c.device, memory);
    }
}

void destroy_engine(Engine& e) {
    VkDevice d = e.c.device;
    vkDestroySemaphore(d, e.frame_done, nullptr);
    vkDestroyFence(d, e.fence, nullptr);
    vkDestroyCommandPool(d, e.cmd_pool, nullptr);
    vkDestroyDescriptorPool(d, e.pool, nullptr);
    for (VkPipeline p : {e.scale, e.add, e.copy}) vkDestroyPipeline(d, p, nullptr);
    for (VkPipelineLayout l : {e.scale_layout, e.add_layout, e.copy_layout})
        vkDestroyPipelineLayout(d, l, nullptr);
    for (VkDescriptorSetLayout l : {e.scale_io, e.scale_params, e.add_io, e.copy_io})
        vkDestroyDescriptorSetLayout(d, l, nullptr);
    for (VkShaderModule m : e.modules) vkDestroyShaderModule(d, m, nullptr);
    for (VkBuffer b : {e.input, e.params, e.scratch_a, e.scratch_b, e.output})
        vkDestroyBuffer(d, b, nullptr);
    vkFreeMemory(d, e.arena, nullptr);
    vkFreeMemory(d, e.output_memory, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
    std::string out;
    bool validate = false;
    Engine e;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--out" && i + 1 < argc)
            out = argv[++i];
        else if (a == "--validate")
            validate = true;
        else if (a == "--no-dispatch")
            e.dispatch = false;
        else {
            std::fprintf(stderr,
                         "usage: engine_program [--out FILE] [--validate] [--no-dispatch]\n");
            return 1;
        }
    }
    e.c = create_context(validate);
    create_buffers(e);
    create_pipelines(e);
    create_descriptors(e);
    create_commands(e);
    record_upload_and_finalize(e);
    record_frame(e, e.cbs[1]);
    submit_all(e);
    if (!out.empty()) write_outputs(e, out);
    vkDeviceWaitIdle(e.c.device);
    destroy_engine(e);
    destroy_context(e.c);
    return validation_log().errors ? 3 : 0;
}
