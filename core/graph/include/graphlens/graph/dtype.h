#pragma once
// Element types of tensors, including ggml's block-quantized formats.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace graphlens {

/// q8x is GraphLens's 8-bit activation format (not a GGUF type): blocks of 32 values as 32
/// signed bytes q, the f32 scale d and a spare word (40 bytes, 4-byte aligned), x ~ q d with
/// ggml's q8 rule d = max|x| / 127 (see docs/kernels.md). Mat-vecs read it with integer dot
/// products; it is never a weight.
enum class DType : uint8_t { f32, f16, bf16, i32, u32, u8, q4_0, q8_0, q4_k, q6_k, q8x };
/// Number of enumerators, for tables indexed by DType.
inline constexpr size_t kDTypeCount = static_cast<size_t>(DType::q8x) + 1;

/// Elements per block: 1 for plain types, 32 for Q4_0/Q8_0, 256 for Q4_K/Q6_K.
uint32_t dtype_block_elements(DType t);
/// Bytes per block: 4 for f32, 18 for Q4_0 (f16 scale + 16 bytes of nibbles), 34 for Q8_0,
/// 144 for Q4_K, 210 for Q6_K, 40 for q8x.
uint32_t dtype_block_bytes(DType t);
/// Bytes needed for n elements; n must be a multiple of the block size for quantized types.
uint64_t dtype_bytes_for(DType t, uint64_t n_elements);
bool dtype_is_quantized(DType t);
std::string_view dtype_name(DType t);
std::optional<DType> dtype_from_name(std::string_view name);

}  // namespace graphlens
