#pragma once
// ForeignProgram's private parts, shared by its construction (foreign_program.cpp) and its
// recording (foreign_commands.cpp).
#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>
#include <vector>

#include "graphlens/vulkan/foreign_program.h"

namespace graphlens {

struct ForeignProgram::Pipeline {
    VkShaderModule module = VK_NULL_HANDLE;
    std::vector<VkDescriptorSetLayout> set_layouts;  ///< sets 0 .. highest declared
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
    uint32_t push_constant_size = 0;
};

struct ForeignProgram::Command {
    enum class Kind : uint8_t { dispatch, copy, fill, update };
    Kind kind = Kind::dispatch;
    const Pipeline* pipeline = nullptr;
    std::vector<VkDescriptorSet> sets;  ///< dispatch: sets 0 .. highest, bound at once
    std::vector<uint8_t> push_constants;
    std::array<uint32_t, 3> workgroups{1, 1, 1};
    /// copy: per region its buffers and bytes; fill / update: the one destination.
    struct Region {
        VkBuffer src = VK_NULL_HANDLE, dst = VK_NULL_HANDLE;
        VkBufferCopy bytes{};
    };
    std::vector<Region> regions;
    uint32_t fill_value = 0;
    std::vector<uint8_t> update_data;
    std::string label;  ///< NUL-terminated for debug-utils labels
};

}  // namespace graphlens
