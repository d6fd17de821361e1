#pragma once
// Vulkan's two-call enumeration: ask for the count, then fill that many items.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "graphlens/vulkan/device.h"

namespace graphlens {

/// The items `call(&count, items)` lists: called once with null items for the count, then
/// with `count` copies of `init` (the sType of an extensible struct) to fill. A call that
/// returns a VkResult is checked (vk_check naming `what`); VK_INCOMPLETE, when the list grew
/// between the two calls, keeps the items the second call wrote.
template <class T, class Call>
std::vector<T> vk_enumerate(Call&& call, const char* what, const T& init = T{}) {
    uint32_t n = 0;
    if constexpr (std::is_same_v<std::invoke_result_t<Call&, uint32_t*, T*>, VkResult>) {
        vk_check(call(&n, static_cast<T*>(nullptr)), what);
        std::vector<T> items(n, init);
        const VkResult r = call(&n, items.data());
        if (r != VK_INCOMPLETE) vk_check(r, what);
        items.resize(n);
        return items;
    } else {
        call(&n, static_cast<T*>(nullptr));
        std::vector<T> items(n, init);
        call(&n, items.data());
        items.resize(n);
        return items;
    }
}

}  // namespace graphlens
