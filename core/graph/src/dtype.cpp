#include "graphlens/graph/dtype.h"

#include <array>
#include <stdexcept>

namespace graphlens {
namespace {
struct DTypeFacts {
    DType type;
    std::string_view name;
    uint32_t block_elements;
    uint32_t block_bytes;
};
// Block layouts follow ggml: Q4_0 = f16 d + 16 bytes of nibbles; Q8_0 = f16 d + 32 int8;
// Q4_K = 2×f16 + 12 bytes of scales + 128 bytes of nibbles; Q6_K = 128 + 64 + 16 + f16.
// q8x (activations) = 32 int8 + f32 d + a spare word.
constexpr std::array<DTypeFacts, kDTypeCount> kFacts{{
    {DType::f32, "f32", 1, 4},
    {DType::f16, "f16", 1, 2},
    {DType::bf16, "bf16", 1, 2},
    {DType::i32, "i32", 1, 4},
    {DType::u32, "u32", 1, 4},
    {DType::u8, "u8", 1, 1},
    {DType::q4_0, "q4_0", 32, 18},
    {DType::q8_0, "q8_0", 32, 34},
    {DType::q4_k, "q4_k", 256, 144},
    {DType::q6_k, "q6_k", 256, 210},
    {DType::q8x, "q8x", 32, 40},
}};
const DTypeFacts& facts(DType t) {
    return kFacts.at(static_cast<size_t>(t));
}
}  // namespace

uint32_t dtype_block_elements(DType t) {
    return facts(t).block_elements;
}
uint32_t dtype_block_bytes(DType t) {
    return facts(t).block_bytes;
}
bool dtype_is_quantized(DType t) {
    return facts(t).block_elements > 1;
}
std::string_view dtype_name(DType t) {
    return facts(t).name;
}

uint64_t dtype_bytes_for(DType t, uint64_t n_elements) {
    const auto& f = facts(t);
    if (n_elements % f.block_elements != 0)
        throw std::invalid_argument("element count " + std::to_string(n_elements) +
                                    " is not a multiple of the " + std::string(f.name) +
                                    " block size " + std::to_string(f.block_elements));
    return n_elements / f.block_elements * f.block_bytes;
}

std::optional<DType> dtype_from_name(std::string_view name) {
    for (const auto& f : kFacts)
        if (f.name == name) return f.type;
    return std::nullopt;
}

}  // namespace graphlens
