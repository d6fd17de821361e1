#pragma once
// What event_program does, for the tests that check its capture: one submission of three
// `c = a + b` dispatches around a vkCmdSetEvent and a vkCmdWaitEvents, in two cases.
//   racy:    "before_set" writes x; set (vkCmdSetEvent); "between" writes y; wait
//            (vkCmdWaitEvents, compute writes -> compute reads); "after" reads x and y.
//            The wait orders x (written before the set) but not y: y is a read-after-write
//            race, which synchronization validation reports too.
//   ordered: the same with vkCmdSetEvent2 / vkCmdWaitEvents2, and "between" writes z, which
//            "after" does not read: nothing races.
#include <cstdint>

namespace event_program {

inline constexpr uint32_t kCount = 256;
inline constexpr uint64_t kBytes = kCount * 4;
/// Buffers, each kBytes, in this order in one memory: inputs a and b, then x, y, z, c.
enum BufferIndex : uint32_t { kA, kB, kX, kY, kZ, kC, kBuffers };
inline constexpr const char* kBeforeSet = "before_set";
inline constexpr const char* kBetween = "between";
inline constexpr const char* kAfter = "after";

}  // namespace event_program
