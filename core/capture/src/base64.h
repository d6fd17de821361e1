#pragma once
// Base64 (RFC 4648, standard alphabet, '=' padding, no line breaks) for the binary blobs a
// capture stores as JSON strings: a foreign kernel's SPIR-V is a third larger this way than
// its bytes, where hex would double it.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace graphlens::capture_detail {

std::string to_base64(const uint8_t* bytes, size_t n);
/// The bytes of canonical base64 text, or nullopt when `text` is not: a character outside
/// the alphabet, a length that is not a multiple of 4, padding anywhere but at the end, or
/// non-zero bits in the last character's unused low bits (so each byte string has exactly
/// one text and a loaded file saves back to the same bytes).
std::optional<std::vector<uint8_t>> from_base64(std::string_view text);

}  // namespace graphlens::capture_detail
