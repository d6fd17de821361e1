#pragma once
// What descriptor_array_program does, for the tests that check its capture: one submission of
// the same `result = inputs[0] + inputs[1]` kernel (its inputs one binding, a descriptor array
// of two buffers) dispatched twice with the same descriptor set, first directly (kDirect),
// then, after a barrier, indirectly (kIndirect) from arguments the host wrote before.
#include <cstdint>

namespace descriptor_array_program {

inline constexpr uint32_t kCount = 256;
inline constexpr uint64_t kBytes = kCount * 4;
/// Buffers, each kBytes, in this order in one memory: the array's two inputs, the result, and
/// the indirect arguments (VkDispatchIndirectCommand, kIndirectGroups).
enum BufferIndex : uint32_t { kInput0, kInput1, kResult, kArgs, kBuffers };
inline constexpr uint64_t kArgsBytes = 12;
inline constexpr uint32_t kIndirectGroups[3] = {kCount / 64, 1, 1};
inline constexpr const char* kDirect = "direct";
inline constexpr const char* kIndirect = "indirect";

}  // namespace descriptor_array_program
