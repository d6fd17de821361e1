#include "graphlens/spirv/spirv_hash.h"

namespace graphlens::spirv {

uint64_t spirv_hash(std::span<const uint32_t> words) {
    uint64_t h = 1469598103934665603ull;  // see the header: not FNV's basis, GraphLens's
    for (uint32_t w : words)
        for (int i = 0; i < 4; ++i) {
            h ^= (w >> (8 * i)) & 0xffu;
            h *= 1099511628211ull;  // FNV-1a 64 prime
        }
    return h;
}

}  // namespace graphlens::spirv
