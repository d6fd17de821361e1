#pragma once
// Element types of tensors, including ggml's block-quantized formats.
#include <cstdint>
#include <optional>
#include <string_view>

namespace graphlens {

enum class DType : uint8_t { f32, f16, bf16, i32, u32, u8, q4_0, q8_0, q4_k, q6_k };

/// Elements per block: 1 for plain types, 32 for Q4_0/Q8_0, 256 for Q4_K/Q6_K.
uint32_t dtype_block_elements(DType t);
/// Bytes per block: 4 for f32, 18 for Q4_0 (f16 scale + 16 bytes of nibbles), 34 for Q8_0,
/// 144 for Q4_K, 210 for Q6_K.
uint32_t dtype_block_bytes(DType t);
/// Bytes needed for n elements; n must be a multiple of the block size for quantized types.
uint64_t dtype_bytes_for(DType t, uint64_t n_elements);
bool dtype_is_quantized(DType t);
std::string_view dtype_name(DType t);
std::optional<DType> dtype_from_name(std::string_view name);

}  // namespace graphlens
