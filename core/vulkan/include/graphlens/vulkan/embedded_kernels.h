#pragma once
// The kernel set a program runs: SPIR-V compiled at build time and linked into the binary, so a
// GraphLens executable needs no shader files at run time. The vulkan layer declares
// embedded_kernels() and KernelCatalog::embedded() reflects what it returns; the kernel
// library the program links defines it (the LLM workload's graphlens_shaders, generated from
// workloads/llm/shaders). The core links no kernel set of its own.
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
