#include "op_common.h"

#include <fmt/format.h>
#include <vulkan/vulkan.h>

#include <limits>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include "graphlens/vulkan/device.h"

namespace graphlens::ops_detail {

void fail(std::string_view op, std::string_view label, const std::string& message) {
    throw std::invalid_argument(fmt::format("{} '{}': {}", op, label, message));
}

uint32_t checked_u32(std::string_view op, std::string_view label, std::string_view what,
                     int64_t v) {
    if (v < 0 || v > int64_t(std::numeric_limits<uint32_t>::max()))
        fail(op, label, fmt::format("{} = {} does not fit 32 bits", what, v));
    return static_cast<uint32_t>(v);
}

void require_elements(std::string_view op, std::string_view label, std::string_view operand,
                      const TensorView& v, int64_t n) {
    if (v.elements() != n)
        fail(op, label, fmt::format("{} has {} elements, expected {}", operand, v.elements(), n));
}

void require_dtype_of(std::string_view op, std::string_view label, std::string_view operand,
                      const TensorView& v, DType a, DType b) {
    if (v.dtype != a && v.dtype != b)
        fail(op, label,
             fmt::format("{} must be {} or {}, is {}", operand, dtype_name(a), dtype_name(b),
                         dtype_name(v.dtype)));
}

void require_subgroups(Device& device, std::string_view op) {
    static std::mutex mutex;
    static std::unordered_map<VkPhysicalDevice, std::string> verdicts;  // "" = fine
    std::lock_guard lock(mutex);
    auto it = verdicts.find(device.physical_device());
    if (it == verdicts.end()) {
        VkPhysicalDeviceSubgroupProperties sub{};
        sub.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
        VkPhysicalDeviceProperties2 props{};
        props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
        props.pNext = &sub;
        vkGetPhysicalDeviceProperties2(device.physical_device(), &props);
        std::string why;
        if (!(sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT))
            why = "subgroup operations are not supported in compute shaders";
        else if (!(sub.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT))
            why = "subgroup arithmetic is not supported";
        else if (!(sub.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT))
            why = "subgroup shuffles are not supported";
        else if (sub.subgroupSize < 4 || sub.subgroupSize > 32)
            why = fmt::format("subgroup size {} is outside 4..32", sub.subgroupSize);
        it = verdicts.emplace(device.physical_device(), why).first;
    }
    if (!it->second.empty())
        throw std::runtime_error(fmt::format("{}: device '{}' cannot run this kernel: {}", op,
                                             device.facts().name, it->second));
}

uint64_t row_bytes(DType t, uint64_t k) {
    return dtype_bytes_for(t, k);
}

std::string_view words_suffix(const TensorView& weight) {
    return (weight.size % 4 != 0 || weight.offset % 4 != 0) ? "_u16" : "";
}

std::string_view weight_suffix(std::string_view op, std::string_view label, DType t) {
    switch (t) {
        case DType::f32:
            return "f32";
        case DType::f16:
            return "f16";
        case DType::q4_0:
            return "q4_0";
        case DType::q8_0:
            return "q8_0";
        case DType::q4_k:
            return "q4_k";
        case DType::q6_k:
            return "q6_k";
        default:
            fail(op, label, fmt::format("unsupported weight type {}", dtype_name(t)));
    }
}

}  // namespace graphlens::ops_detail
