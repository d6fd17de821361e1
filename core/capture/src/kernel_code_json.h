#pragma once
// A foreign kernel's code in a capture (format version 2): "spirv_base64", the module's
// words as base64 of their little-endian bytes, and "specialization", the constants its
// pipeline was created with as [{"id", "bytes": hex}].
#include "capture/src/capture_json.h"
#include "capture/src/json_fields.h"
#include "graphlens/graph/kernel_info.h"

namespace graphlens::capture_detail {

inline constexpr uint32_t kSpirvMagic = 0x07230203;

std::string spirv_base64(const std::vector<uint32_t>& words);
/// A SPIR-V module: canonical base64 of a positive multiple of 4 bytes, at most
/// CaptureLimits::max_spirv_bytes, starting with the magic number. `total` (the bytes of
/// the SPIR-V read so far) must stay within CaptureLimits::max_spirv_total_bytes.
std::vector<uint32_t> read_spirv_base64(const JsonRef& v, const Path& p, uint64_t& total);

Json specialization_json(const std::vector<SpecializationConstant>& constants);
/// Each constant id once; each value 1, 2, 4 or 8 bytes (the sizes a constant can have).
std::vector<SpecializationConstant> read_specialization(const Fields& kernel);

}  // namespace graphlens::capture_detail
