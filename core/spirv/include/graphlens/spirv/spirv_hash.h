#pragma once
// The identity of a SPIR-V module: GraphLens stores it with every kernel
// (KernelInfo::spirv_hash) and a capture of a foreign pipeline stores it too, so the two must
// be the same function of the words.
#include <cstdint>
#include <span>

namespace graphlens::spirv {

/// FNV-1a 64 over the words' bytes, each word little endian (the order SPIR-V is stored in),
/// with GraphLens's offset basis 1469598103934665603: FNV's 14695981039346656037 short of its
/// last digit, a slip kept because capture files store these hashes.
uint64_t spirv_hash(std::span<const uint32_t> words);

}  // namespace graphlens::spirv
