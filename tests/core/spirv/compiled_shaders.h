#pragma once
// The test shaders (tests/core/spirv/shaders), as glslang compiled them at build time.
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace graphlens::spirv::test {

/// `env` is glslang's --target-env: "vulkan1.0" (SPIR-V 1.0), "vulkan1.2" (1.5), "vulkan1.3" (1.6).
inline std::vector<uint32_t> compiled_shader(std::string_view stem,
                                             std::string_view env = "vulkan1.2") {
    const std::string path = std::string(GRAPHLENS_SPIRV_TEST_SHADERS) + "/" + std::string(stem) +
                             "." + std::string(env) + ".spv";
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<uint32_t> words(bytes.size() / 4);
    for (size_t i = 0; i < words.size(); ++i)
        for (size_t b = 0; b < 4; ++b)
            words[i] |= uint32_t{static_cast<uint8_t>(bytes[4 * i + b])} << (8 * b);
    return words;
}

}  // namespace graphlens::spirv::test
