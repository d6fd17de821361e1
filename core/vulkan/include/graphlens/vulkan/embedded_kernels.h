#pragma once
// SPIR-V of every kernel in workloads/llm/shaders/, compiled by glslang at build time and linked into
// the binary, so a GraphLens executable needs no shader files at run time.
#include <cstddef>
#include <cstdint>
#include <span>

namespace graphlens {

struct EmbeddedKernel {
    const char* name;       ///< kernel name = shader file stem or variant name
    const uint32_t* words;  ///< SPIR-V words
    size_t word_count;
};

/// All embedded kernels, in build order.
std::span<const EmbeddedKernel> embedded_kernels();

}  // namespace graphlens
