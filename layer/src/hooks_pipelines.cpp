// Compute pipelines with their code, specialization and layout, and the layouts themselves.
// The kernel is reflected (graphlens_spirv) when the pipeline is made, so each dispatch's
// reads and writes follow what the kernel really does with each binding.
#include "graphlens/spirv/spirv_hash.h"
#include "layer/src/capture_session.h"
#include "layer/src/diagnostics.h"
#include "layer/src/hook_table.h"
#include "layer/src/layer_state.h"

namespace graphlens::layer {
namespace {

template <class T>
const T* find_in_chain(const void* next, VkStructureType type) {
    for (auto* s = static_cast<const VkBaseInStructure*>(next); s; s = s->pNext)
        if (s->sType == type) return reinterpret_cast<const T*>(s);
    return nullptr;
}

std::vector<SpecializationConstant> specialization_of(const VkSpecializationInfo* info) {
    std::vector<SpecializationConstant> out;
    if (!info) return out;
    const auto* data = static_cast<const uint8_t*>(info->pData);
    for (uint32_t i = 0; i < info->mapEntryCount; ++i) {
        const auto& e = info->pMapEntries[i];
        out.push_back(
            {e.constantID, std::vector<uint8_t>(data + e.offset, data + e.offset + e.size)});
    }
    return out;
}

KernelBinding kernel_binding(const spirv::ReflectedBinding& r) {
    KernelBinding b;
    b.binding = r.binding;
    b.set = r.set;
    b.access = r.access;
    b.name = r.name;
    b.evidence = r.evidence == spirv::AccessEvidence::code ? AccessEvidence::code
                                                           : AccessEvidence::decoration;
    b.descriptor =
        r.descriptor == spirv::DescriptorClass::storage_buffer   ? DescriptorKind::storage_buffer
        : r.descriptor == spirv::DescriptorClass::uniform_buffer ? DescriptorKind::uniform_buffer
                                                                 : DescriptorKind::other;
    return b;
}

void reflect(PipelineState& p) {
    std::vector<spirv::SpecializationValue> spec;
    for (const auto& c : p.kernel.specialization) spec.push_back({c.id, c.bytes});
    try {
        const auto r = spirv::reflect_compute_kernel(p.kernel.spirv, p.kernel.entry_point, spec);
        p.kernel.local_size = r.local_size;
        p.kernel.push_constant_size = r.push_constant_size;
        p.reflected = r.bindings;
        p.device_addresses = r.device_addresses;
        p.device_address_reason = r.device_address_reason;
        for (const auto& b : r.bindings) p.kernel.bindings.push_back(kernel_binding(b));
    } catch (const std::exception& e) {
        p.reflection_error = e.what();
    }
}

std::shared_ptr<PipelineState> pipeline_state(DeviceState& d,
                                              const VkComputePipelineCreateInfo& ci) {
    auto p = std::make_shared<PipelineState>();
    p->serial = d.next_pipeline_serial();
    const auto& stage = ci.stage;
    if (auto m = d.modules.find(handle_bits(stage.module))) {
        p->kernel.spirv = m->words;
        p->module_handle = handle_bits(stage.module);
    } else if (auto* inline_module = find_in_chain<VkShaderModuleCreateInfo>(
                   stage.pNext, VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO)) {
        p->kernel.spirv.assign(inline_module->pCode,
                               inline_module->pCode + inline_module->codeSize / 4);
    }
    p->kernel.entry_point = stage.pName ? stage.pName : "main";
    p->kernel.specialization = specialization_of(stage.pSpecializationInfo);
    if (auto* sg = find_in_chain<VkPipelineShaderStageRequiredSubgroupSizeCreateInfo>(
            stage.pNext,
            VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO))
        p->kernel.required_subgroup_size = sg->requiredSubgroupSize;
    p->kernel.pipeline_flags = ci.flags;
    p->layout = d.pipeline_layouts.find(handle_bits(ci.layout));
    if (p->kernel.spirv.empty()) {
        p->reflection_error = "the pipeline's shader module is unknown to the layer";
        return p;
    }
    p->kernel.spirv_hash = spirv::spirv_hash(p->kernel.spirv);
    reflect(*p);
    if (p->kernel.push_constant_size == 0 && p->layout)
        p->kernel.push_constant_size = p->layout->push_constant_bytes;
    return p;
}

VKAPI_ATTR VkResult VKAPI_CALL hook_CreateComputePipelines(VkDevice device, VkPipelineCache cache,
                                                           uint32_t count,
                                                           const VkComputePipelineCreateInfo* infos,
                                                           const VkAllocationCallbacks* allocator,
                                                           VkPipeline* pipelines) {
    auto d = find_device(device);
    if (!d) return VK_ERROR_DEVICE_LOST;
    const VkResult r =
        d->dispatch.CreateComputePipelines(device, cache, count, infos, allocator, pipelines);
    if (r >= 0 && CaptureSession::get().recording())
        guarded("vkCreateComputePipelines", [&] {
            for (uint32_t i = 0; i < count; ++i) {
                if (!pipelines[i]) continue;
                auto p = pipeline_state(*d, infos[i]);
                p->handle = handle_bits(pipelines[i]);
                if (!p->reflection_error.empty())
                    warn_once("reflect:" + p->reflection_error,
                              "a compute pipeline could not be reflected (its dispatches' "
                              "ranges are unknown): " +
                                  p->reflection_error);
                const uint64_t handle = p->handle;
                d->pipelines.put(handle, std::move(p));
            }
        });
    return r;
}

VKAPI_ATTR void VKAPI_CALL hook_DestroyPipeline(VkDevice device, VkPipeline pipeline,
                                                const VkAllocationCallbacks* allocator) {
    auto d = find_device(device);
    if (!d) return;
    d->pipelines.take(handle_bits(pipeline));
    d->dispatch.DestroyPipeline(device, pipeline, allocator);
}

VKAPI_ATTR VkResult VKAPI_CALL hook_CreateDescriptorSetLayout(
    VkDevice device, const VkDescriptorSetLayoutCreateInfo* info,
    const VkAllocationCallbacks* allocator, VkDescriptorSetLayout* layout) {
    auto d = find_device(device);
    if (!d) return VK_ERROR_DEVICE_LOST;
    const VkResult r = d->dispatch.CreateDescriptorSetLayout(device, info, allocator, layout);
    if (r == VK_SUCCESS && CaptureSession::get().recording())
        guarded("vkCreateDescriptorSetLayout", [&] {
            auto s = std::make_shared<SetLayoutState>();
            for (uint32_t i = 0; i < info->bindingCount; ++i) {
                const auto& b = info->pBindings[i];
                s->bindings.push_back({b.binding, b.descriptorType, b.descriptorCount});
            }
            std::sort(s->bindings.begin(), s->bindings.end(),
                      [](const auto& a, const auto& b) { return a.binding < b.binding; });
            s->push_descriptor =
                info->flags & VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
            d->set_layouts.put(handle_bits(*layout), std::move(s));
        });
    return r;
}

VKAPI_ATTR void VKAPI_CALL hook_DestroyDescriptorSetLayout(VkDevice device,
                                                           VkDescriptorSetLayout layout,
                                                           const VkAllocationCallbacks* allocator) {
    auto d = find_device(device);
    if (!d) return;
    d->set_layouts.take(handle_bits(layout));
    d->dispatch.DestroyDescriptorSetLayout(device, layout, allocator);
}

VKAPI_ATTR VkResult VKAPI_CALL hook_CreatePipelineLayout(VkDevice device,
                                                         const VkPipelineLayoutCreateInfo* info,
                                                         const VkAllocationCallbacks* allocator,
                                                         VkPipelineLayout* layout) {
    auto d = find_device(device);
    if (!d) return VK_ERROR_DEVICE_LOST;
    const VkResult r = d->dispatch.CreatePipelineLayout(device, info, allocator, layout);
    if (r == VK_SUCCESS && CaptureSession::get().recording())
        guarded("vkCreatePipelineLayout", [&] {
            auto s = std::make_shared<PipelineLayoutState>();
            for (uint32_t i = 0; i < info->setLayoutCount; ++i)
                s->sets.push_back(d->set_layouts.find(handle_bits(info->pSetLayouts[i])));
            for (uint32_t i = 0; i < info->pushConstantRangeCount; ++i) {
                const auto& pc = info->pPushConstantRanges[i];
                s->push_constant_bytes = std::max(s->push_constant_bytes, pc.offset + pc.size);
            }
            d->pipeline_layouts.put(handle_bits(*layout), std::move(s));
        });
    return r;
}

VKAPI_ATTR void VKAPI_CALL hook_DestroyPipelineLayout(VkDevice device, VkPipelineLayout layout,
                                                      const VkAllocationCallbacks* allocator) {
    auto d = find_device(device);
    if (!d) return;
    d->pipeline_layouts.take(handle_bits(layout));
    d->dispatch.DestroyPipelineLayout(device, layout, allocator);
}

}  // namespace

void add_pipeline_hooks(HookTable& t) {
    t.device["vkCreateComputePipelines"] = as_void_fn(&hook_CreateComputePipelines);
    t.device["vkDestroyPipeline"] = as_void_fn(&hook_DestroyPipeline);
    t.device["vkCreateDescriptorSetLayout"] = as_void_fn(&hook_CreateDescriptorSetLayout);
    t.device["vkDestroyDescriptorSetLayout"] = as_void_fn(&hook_DestroyDescriptorSetLayout);
    t.device["vkCreatePipelineLayout"] = as_void_fn(&hook_CreatePipelineLayout);
    t.device["vkDestroyPipelineLayout"] = as_void_fn(&hook_DestroyPipelineLayout);
}

}  // namespace graphlens::layer
