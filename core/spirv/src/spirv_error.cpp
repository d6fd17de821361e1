#include "graphlens/spirv/spirv_error.h"

#include <string>

namespace graphlens::spirv {
namespace {

std::string located(std::string_view message, size_t word_offset) {
    std::string out = "SPIR-V";
    if (word_offset != SpirvError::no_offset) out += " word " + std::to_string(word_offset);
    out += ": ";
    out += message;
    return out;
}

}  // namespace

SpirvError::SpirvError(std::string_view message, size_t word_offset)
    : std::runtime_error(located(message, word_offset)), word_offset_(word_offset) {}

}  // namespace graphlens::spirv
