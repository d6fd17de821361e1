#pragma once
// What sync_program does, for the tests that check its capture: six submissions of one
// `c = a + b` dispatch each, labelled kLabels[i], and how the program orders each after the
// one before (kSync[i], the capture's submission `sync`).
#include <cstdint>

namespace sync_program {

inline constexpr uint32_t kCount = 256;
inline constexpr uint64_t kBytes = kCount * 4;
inline constexpr uint32_t kSubmissions = 6;
inline constexpr const char* kLabels[kSubmissions] = {"s0", "s1", "s2", "s3", "s4", "s5"};
inline constexpr const char* kSync[kSubmissions] = {
    "none",       // the first: no submission before it
    "host wait",  // vkGetFenceStatus returned VK_SUCCESS for submission 0's fence
    "semaphore",  // waits for the timeline value submission 1 signals
    "none",       // waits for a value submission 0 signalled, not the one before it
    "none",       // waits for a value the host signalled
    "host wait",  // vkWaitSemaphores for the value submission 4 signals
};

/// Submission 6, after a vkQueueWaitIdle: two vkCmdDispatchIndirect. The first reads its
/// arguments from a buffer the host wrote before (kIndirectGroups), the second from a buffer
/// a vkCmdUpdateBuffer of the same submission writes first.
inline constexpr uint32_t kIndirectSubmission = 6;
inline constexpr const char* kIndirectFromHost = "indirect_from_host";
inline constexpr const char* kIndirectWrittenFirst = "indirect_written_first";
inline constexpr uint32_t kIndirectGroups[3] = {2, 1, 1};

}  // namespace sync_program
