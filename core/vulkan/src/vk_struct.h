#pragma once
// Zero-initialised Vulkan structs with their sType set (designated-free, -Wextra clean).
#include <vulkan/vulkan.h>

namespace graphlens {
template <class T>
T vk_struct(VkStructureType type) {
    T t{};
    t.sType = type;
    return t;
}
}  // namespace graphlens
