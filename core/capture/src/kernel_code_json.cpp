#include "capture/src/kernel_code_json.h"

#include <unordered_set>

#include "capture/src/base64.h"

namespace graphlens::capture_detail {

using Limits = CaptureLimits;

std::string spirv_base64(const std::vector<uint32_t>& words) {
    std::vector<uint8_t> bytes(words.size() * 4);
    for (size_t i = 0; i < words.size(); ++i)
        for (size_t b = 0; b < 4; ++b) bytes[4 * i + b] = static_cast<uint8_t>(words[i] >> 8 * b);
    return to_base64(bytes.data(), bytes.size());
}

std::vector<uint32_t> read_spirv_base64(const JsonRef& v, const Path& p, uint64_t& total) {
    if (!v.is_string()) fail(p, "a string (base64 of the SPIR-V words)", v.describe());
    const std::string_view text = v.str();
    // Checked before decoding, so a hostile length costs nothing.
    if (text.size() / 4 * 3 > Limits::max_spirv_bytes + 2)
        fail(p, "SPIR-V of at most " + std::to_string(Limits::max_spirv_bytes) + " bytes",
             std::to_string(text.size()) + " base64 characters");
    const auto bytes = from_base64(text);
    if (!bytes) fail(p, "canonical base64 (RFC 4648, with padding)", "not base64");
    if (bytes->empty() || bytes->size() % 4 != 0 || bytes->size() > Limits::max_spirv_bytes)
        fail(p,
             "SPIR-V: a positive multiple of 4 bytes, at most " +
                 std::to_string(Limits::max_spirv_bytes),
             std::to_string(bytes->size()) + " bytes");
    total += bytes->size();
    if (total > Limits::max_spirv_total_bytes)
        fail(p,
             "at most " + std::to_string(Limits::max_spirv_total_bytes) +
                 " bytes of SPIR-V in the whole capture",
             std::to_string(total) + " bytes so far");
    std::vector<uint32_t> words(bytes->size() / 4);
    for (size_t i = 0; i < words.size(); ++i)
        for (size_t b = 0; b < 4; ++b) words[i] |= uint32_t{(*bytes)[4 * i + b]} << 8 * b;
    if (words[0] != kSpirvMagic)
        fail(p, "SPIR-V starting with the magic number 0x07230203 (little-endian words)",
             "first word " + u64_to_hex16(words[0]).substr(8));
    return words;
}

Json specialization_json(const std::vector<SpecializationConstant>& constants) {
    Json a = Json::array();
    for (const auto& c : constants) {
        Json j = Json::object();
        j["id"] = c.id;
        j["bytes"] = to_hex(c.bytes.data(), c.bytes.size());
        a.push_back(std::move(j));
    }
    return a;
}

std::vector<SpecializationConstant> read_specialization(const Fields& kernel) {
    std::vector<SpecializationConstant> out;
    opt_list(kernel, "specialization", Limits::max_specialization_constants,
             "specialization constants", out, [](const JsonRef& j, const Path& p) {
                 Fields f(j, p, "a specialization constant {id, bytes}");
                 f.only({"id", "bytes"});
                 SpecializationConstant c;
                 c.id = as_u32(f.need("id", "the constant_id"), p / "id");
                 c.bytes =
                     as_hex_bytes(f.need("bytes", "the value's bytes in hex"), p / "bytes", 8);
                 const size_t n = c.bytes.size();
                 if (n != 1 && n != 2 && n != 4 && n != 8)
                     fail(p / "bytes", "1, 2, 4 or 8 bytes (the size of the constant's type)",
                          std::to_string(n) + " bytes");
                 return c;
             });
    const Path ps = kernel.path() / "specialization";
    std::unordered_set<uint32_t> ids;
    for (size_t i = 0; i < out.size(); ++i)
        if (!ids.insert(out[i].id).second)
            fail(ps[i] / "id", "each constant_id once", std::to_string(out[i].id) + " again");
    return out;
}

}  // namespace graphlens::capture_detail
