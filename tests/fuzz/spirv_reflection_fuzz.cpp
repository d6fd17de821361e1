// Fuzzes the SPIR-V reflection of foreign kernels: any bytes must either reflect or throw
// SpirvError (nothing else, no crash, no sanitizer report).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "graphlens/spirv/spirv_reflection.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<uint32_t> words(size / 4);
    if (!words.empty()) std::memcpy(words.data(), data, words.size() * 4);
    try {
        graphlens::spirv::reflect_compute_kernel(words, "main");
    } catch (const graphlens::spirv::SpirvError&) {
    }
    return 0;
}
