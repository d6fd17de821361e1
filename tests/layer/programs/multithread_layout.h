#pragma once
// multithread_program: kThreads threads each record kDispatchesPerThread dispatches of add.comp
// into a command buffer of their own pool, at the same time; one vkQueueSubmit runs the
// buffers in thread order. Dispatch i of thread t writes kSlice bytes of "out" at
// (t * kDispatchesPerThread + i) * kSlice and is labelled "t<t>.d<i>".
#include <cstdint>

namespace multithread {

inline constexpr uint32_t kThreads = 4;
inline constexpr uint32_t kDispatchesPerThread = 64;
inline constexpr uint64_t kSlice = 256;
inline constexpr uint64_t kOutSize = kThreads * kDispatchesPerThread * kSlice;
inline constexpr uint64_t kInSize = kSlice;

}  // namespace multithread
