#include "graphlens/vulkan/kernel_registry.h"
#include "vulkan/src/vk_enumerate.h"
#include "vulkan/src/vk_struct.h"

#include <fmt/format.h>

#include <span>
#include <stdexcept>
#include <vector>

#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/kernel_catalog.h"

namespace graphlens {
namespace {

// Shader module, push-descriptor (or pool) set layout, pipeline layout and pipeline of one
// kernel, named for debuggers; what a failure leaves is in `p` for destroy_kernel_objects.
void create_kernel_objects(const Device& device, const KernelInfo& info,
                           std::span<const uint32_t> spirv, std::string_view name,
                           KernelPipeline& p) {
    VkDevice dev = device.handle();
    VkShaderModuleCreateInfo mi =
        vk_struct<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
    mi.codeSize = spirv.size() * sizeof(uint32_t);
    mi.pCode = spirv.data();
    vk_check(vkCreateShaderModule(dev, &mi, nullptr, &p.module), "vkCreateShaderModule");
    device.name_object(VK_OBJECT_TYPE_SHADER_MODULE, p.module, p.module_name);

    std::vector<VkDescriptorSetLayoutBinding> bindings;
    for (const auto& b : info.bindings) {
        VkDescriptorSetLayoutBinding lb{};
        lb.binding = b.binding;
        lb.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        lb.descriptorCount = 1;
        lb.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
        bindings.push_back(lb);
    }
    VkDescriptorSetLayoutCreateInfo li = vk_struct<VkDescriptorSetLayoutCreateInfo>(
        VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
    if (device.uses_push_descriptor())
        li.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
    li.bindingCount = static_cast<uint32_t>(bindings.size());
    li.pBindings = bindings.data();
    vk_check(vkCreateDescriptorSetLayout(dev, &li, nullptr, &p.set_layout),
             "vkCreateDescriptorSetLayout");

    VkPushConstantRange pc{VK_SHADER_STAGE_COMPUTE_BIT, 0, info.push_constant_size};
    VkPipelineLayoutCreateInfo pli =
        vk_struct<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
    pli.setLayoutCount = 1;
    pli.pSetLayouts = &p.set_layout;
    pli.pushConstantRangeCount = info.push_constant_size > 0 ? 1 : 0;
    pli.pPushConstantRanges = &pc;
    vk_check(vkCreatePipelineLayout(dev, &pli, nullptr, &p.layout), "vkCreatePipelineLayout");

    VkComputePipelineCreateInfo ci =
        vk_struct<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
    ci.stage = vk_struct<VkPipelineShaderStageCreateInfo>(
        VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
    ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    ci.stage.module = p.module;
    ci.stage.pName = info.entry_point.c_str();
    ci.layout = p.layout;
    if (device.pipeline_statistics()) ci.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    vk_check(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &ci, nullptr, &p.pipeline),
             "vkCreateComputePipelines");
    device.name_object(VK_OBJECT_TYPE_PIPELINE, p.pipeline, std::string(name));
}

void destroy_kernel_objects(VkDevice dev, const KernelPipeline& p) {
    vkDestroyPipeline(dev, p.pipeline, nullptr);
    vkDestroyPipelineLayout(dev, p.layout, nullptr);
    vkDestroyDescriptorSetLayout(dev, p.set_layout, nullptr);
    vkDestroyShaderModule(dev, p.module, nullptr);
}

}  // namespace

KernelRegistry::KernelRegistry(Device& device) : device_(device) {}

KernelRegistry::~KernelRegistry() {
    VkDevice dev = device_.handle();
    for (auto& [name, p] : pipelines_) {
        vkDestroyPipeline(dev, p->pipeline, nullptr);
        vkDestroyPipelineLayout(dev, p->layout, nullptr);
        vkDestroyDescriptorSetLayout(dev, p->set_layout, nullptr);
        vkDestroyShaderModule(dev, p->module, nullptr);
    }
}

size_t KernelRegistry::size() const {
    std::lock_guard lock(mutex_);
    return pipelines_.size();
}

const KernelPipeline& KernelRegistry::get(std::string_view name) {
    std::lock_guard lock(mutex_);
    if (auto it = pipelines_.find(std::string(name)); it != pipelines_.end()) return *it->second;

    const KernelCatalog& catalog = KernelCatalog::embedded();
    const KernelInfo& info = catalog.get(name);
    const TensorCoreTwin* tc = device_.uses_tensor_cores()
                                   ? catalog.tensor_core_twin(name, device_.tensor_core_variant())
                                   : nullptr;
    const auto spirv = tc ? tc->spirv : catalog.spirv(name);
    // A capture made on a device with integer dot products may name _xq8 kernels: say so
    // instead of handing the driver a module it cannot run.
    if (!device_.facts().integer_dot_product && spirv_uses_integer_dot_product(spirv))
        throw std::runtime_error(fmt::format(
            "kernel '{}' uses 8-bit integer dot products (SPV_KHR_integer_dot_product), which {} "
            "does not enable (Vulkan 1.3 shaderIntegerDotProduct); recapture with "
            "`graphlens-cli capture --f32-x`",
            name, device_.facts().name));
    VkDevice dev = device_.handle();
    auto p = std::make_unique<KernelPipeline>();
    p->info = &info;
    p->tensor_cores = tc != nullptr;
    p->module_name = tc ? tc->info.name : info.name;
    try {
        create_kernel_objects(device_, info, spirv, name, *p);
    } catch (const std::exception& e) {
        destroy_kernel_objects(dev, *p);
        throw std::runtime_error(fmt::format(
            "kernel '{}'{}: pipeline creation failed: {}", name,
            p->tensor_cores ? " (tensor-core twin " + p->module_name + ")" : "", e.what()));
    }
    auto& ref = *p;
    pipelines_.emplace(std::string(name), std::move(p));
    return ref;
}

std::vector<KernelStatistic> KernelRegistry::statistics(std::string_view name) {
    std::vector<KernelStatistic> out;
    const KernelPipeline& p = get(name);
    const DeviceFunctions& fn = device_.functions();
    if (!fn.executable_properties || !fn.executable_statistics) return out;
    VkPipelineInfoKHR pi = vk_struct<VkPipelineInfoKHR>(VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR);
    pi.pipeline = p.pipeline;
    const auto executables = vk_enumerate(
        [&](uint32_t* n, VkPipelineExecutablePropertiesKHR* items) {
            return fn.executable_properties(device_.handle(), &pi, n, items);
        },
        "vkGetPipelineExecutablePropertiesKHR",
        vk_struct<VkPipelineExecutablePropertiesKHR>(
            VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR));
    for (uint32_t e = 0; e < executables.size(); ++e) {
        VkPipelineExecutableInfoKHR ei =
            vk_struct<VkPipelineExecutableInfoKHR>(VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR);
        ei.pipeline = p.pipeline;
        ei.executableIndex = e;
        const auto stats = vk_enumerate(
            [&](uint32_t* n, VkPipelineExecutableStatisticKHR* items) {
                return fn.executable_statistics(device_.handle(), &ei, n, items);
            },
            "vkGetPipelineExecutableStatisticsKHR",
            vk_struct<VkPipelineExecutableStatisticKHR>(
                VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR));
        for (const auto& st : stats) {
            std::string value;
            switch (st.format) {
                case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
                    value = st.value.b32 ? "true" : "false";
                    break;
                case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
                    value = fmt::format("{}", st.value.i64);
                    break;
                case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
                    value = fmt::format("{}", st.value.u64);
                    break;
                default:
                    value = fmt::format("{}", st.value.f64);
                    break;
            }
            out.push_back({executables[e].name, st.name, std::move(value), st.description});
        }
    }
    return out;
}

}  // namespace graphlens
