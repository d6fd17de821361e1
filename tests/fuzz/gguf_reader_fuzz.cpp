// Fuzzes the GGUF reader: any bytes must either parse or throw GgufError, and every
// tensor a parsed file lists must lie inside the bytes (tensor_data never reads out of bounds).
#include <cstddef>
#include <cstdint>
#include <span>

#include "graphlens/model/gguf_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const auto file = graphlens::GgufFile::parse(std::span<const uint8_t>(data, size), "fuzz");
        volatile uint64_t sum = 0;
        for (const auto& t : file.tensors()) {
            const auto bytes = file.tensor_data(t);
            if (!bytes.empty()) {
                if (bytes.data() < data || bytes.data() + bytes.size() > data + size)
                    __builtin_trap();
                sum = sum + bytes.front() + bytes.back();
            }
            sum = sum + t.elements();
        }
        for (const auto& kv : file.metadata()) sum = sum + kv.key.size();
        (void)file.get_u32("general.alignment", 32);
        (void)file.get_string("general.architecture", "");
    } catch (const graphlens::GgufError&) {
    }
    return 0;
}
