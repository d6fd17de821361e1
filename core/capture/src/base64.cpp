#include "capture/src/base64.h"

namespace graphlens::capture_detail {

namespace {
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int sextet(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}
}  // namespace

std::string to_base64(const uint8_t* bytes, size_t n) {
    std::string s;
    s.reserve((n + 2) / 3 * 4);
    for (size_t i = 0; i < n; i += 3) {
        const size_t left = n - i;
        const uint32_t v = uint32_t{bytes[i]} << 16 | (left > 1 ? uint32_t{bytes[i + 1]} << 8 : 0) |
                           (left > 2 ? uint32_t{bytes[i + 2]} : 0);
        s += kAlphabet[v >> 18 & 63];
        s += kAlphabet[v >> 12 & 63];
        s += left > 1 ? kAlphabet[v >> 6 & 63] : '=';
        s += left > 2 ? kAlphabet[v & 63] : '=';
    }
    return s;
}

std::optional<std::vector<uint8_t>> from_base64(std::string_view text) {
    if (text.size() % 4 != 0) return std::nullopt;
    size_t pad = 0;
    if (!text.empty() && text.back() == '=') ++pad;
    if (text.size() >= 2 && text[text.size() - 2] == '=') ++pad;
    std::vector<uint8_t> out;
    out.reserve(text.size() / 4 * 3);
    for (size_t i = 0; i < text.size(); i += 4) {
        const bool last = i + 4 == text.size();
        const size_t digits = last ? 4 - pad : 4;
        uint32_t v = 0;
        for (size_t d = 0; d < 4; ++d) {
            const int x = d < digits ? sextet(text[i + d]) : 0;
            if (x < 0) return std::nullopt;
            v = v << 6 | static_cast<uint32_t>(x);
        }
        // Unused low bits must be zero: otherwise two texts would decode to the same bytes.
        if ((digits == 2 && (v & 0xFFFF) != 0) || (digits == 3 && (v & 0xFF) != 0))
            return std::nullopt;
        out.push_back(static_cast<uint8_t>(v >> 16));
        if (digits > 2) out.push_back(static_cast<uint8_t>(v >> 8));
        if (digits > 3) out.push_back(static_cast<uint8_t>(v));
    }
    return out;
}

}  // namespace graphlens::capture_detail
