#pragma once
// The buffers, descriptor ranges and dispatches of engine_program, shared with the test that
// checks its capture: every byte range the test expects is computed from these constants.
#include <cstdint>

namespace engine {

// One VkDeviceMemory "arena" holds input, params and the two aliasing scratch buffers.
inline constexpr uint64_t kArenaSize = 32768;
inline constexpr uint64_t kInputOffset = 0, kInputSize = 4096;
inline constexpr uint64_t kParamsOffset = 4096, kParamsSize = 1024;
inline constexpr uint64_t kScratchAOffset = 8192, kScratchASize = 8192;
/// scratch_b starts inside scratch_a: bytes 12288..16384 of the arena are both.
inline constexpr uint64_t kScratchBOffset = 12288, kScratchBSize = 8192;
// The output buffer has a VkDeviceMemory of its own.
inline constexpr uint64_t kOutputSize = 4096;

inline constexpr uint32_t kLocalSize = 64;  ///< scale.comp's specialization constant 0
inline constexpr uint64_t kParamsRange = 16;
inline constexpr uint32_t kParamsDynamic0 = 256, kParamsDynamic1 = 512;
inline constexpr uint32_t kCopySrcDynamic = 1024;

/// Submission 0 fills the output ("upload"); submission 1 ("frame") runs dispatches 0..4 with
/// a buffer barrier after 0 and a redundant global barrier after 3; dispatch 3 reads what 2
/// wrote with no barrier between (the planted race); submission 2 ("finalize", a queue label)
/// waits on submission 1's semaphore and runs dispatch 5.
inline constexpr int kDispatches = 6;
inline constexpr const char* kLabels[kDispatches] = {"scale.0", "add.0", "copy.0",
                                                     "scale.1", "add.1", "copy.1"};
inline constexpr uint32_t kElements0 = 1024, kElements3 = 256, kElements4 = 256;

struct Span {
    uint64_t begin, end;  ///< bytes of the memory
};
// Dispatch 0: scale input → scratch_a[0, 4096), params at dynamic offset 256.
inline constexpr Span kD0Input{kInputOffset, kInputOffset + kInputSize};  // VK_WHOLE_SIZE
inline constexpr Span kD0Params{kParamsOffset + kParamsDynamic0,
                                kParamsOffset + kParamsDynamic0 + kParamsRange};
inline constexpr Span kD0Out{kScratchAOffset, kScratchAOffset + 4096};
// The buffer barrier after dispatch 0: scratch_a bytes [0, 4096).
inline constexpr Span kBarrierSpan = kD0Out;
// Dispatch 1: add (push descriptors) scratch_a[0,4096) + input → scratch_b from 4096,
// VK_WHOLE_SIZE.
inline constexpr Span kD1A = kD0Out;
inline constexpr Span kD1B{kInputOffset, kInputOffset + kInputSize};
inline constexpr Span kD1C{kScratchBOffset + 4096, kScratchBOffset + kScratchBSize};
// Dispatch 2: copy input at dynamic offset 1024 (1024 bytes) → output[0, 1024).
inline constexpr Span kD2Src{kInputOffset + kCopySrcDynamic, kInputOffset + kCopySrcDynamic + 1024};
inline constexpr Span kD2Dst{0, 1024};
// Dispatch 3: scale output[0,1024) → output[2048, 3072), params at dynamic offset 512: reads
// what dispatch 2 wrote without a barrier (the planted RAW race on output bytes 0..1024).
inline constexpr Span kD3Input{0, 1024};
inline constexpr Span kD3Params{kParamsOffset + kParamsDynamic1,
                                kParamsOffset + kParamsDynamic1 + kParamsRange};
inline constexpr Span kD3Out{2048, 3072};
// Dispatch 4 (after the redundant barrier): add input[2048,3072) + input[3072,4096) →
// scratch_b[0,1024) (arena 12288..13312, where scratch_a's second half is too).
inline constexpr Span kD4A{2048, 3072};
inline constexpr Span kD4B{3072, 4096};
inline constexpr Span kD4C{kScratchBOffset, kScratchBOffset + 1024};
// Dispatch 5: copy scratch_b[4096, 5120) → output[3072, 4096).
inline constexpr Span kD5Src{kScratchBOffset + 4096, kScratchBOffset + 4096 + 1024};
inline constexpr Span kD5Dst{3072, 4096};

}  // namespace engine
