#pragma once
// The clocks the layer measures its own recording cost with. A recording hook does tens of
// nanoseconds of work, less than a steady_clock read costs on a virtual machine (about 90 ns
// here), so hooks read the processor's timestamp counter (x86-64; steady_clock elsewhere),
// converted to nanoseconds against steady_clock over the whole capture. Work done once per
// submission is measured in the thread's CPU time, which a busy machine's other programs do
// not inflate.
#include <chrono>
#include <cstdint>
#include <ctime>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace graphlens::layer {

inline uint64_t hook_ticks() {
#if defined(__x86_64__)
    return __rdtsc();
#else
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
#endif
}

inline uint64_t steady_ns() {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
}

inline uint64_t thread_cpu_ns() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<uint64_t>(t.tv_sec) * 1000000000u + static_cast<uint64_t>(t.tv_nsec);
}

}  // namespace graphlens::layer
