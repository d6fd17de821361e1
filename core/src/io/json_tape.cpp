#include "io/json_tape.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace graphlens::capture_detail {

/// A recursive-descent JSON parser (RFC 8259) that appends straight to the tape: values as
/// they arrive, strings into the one pool without a temporary, a container's children
/// collected on a shared stack and copied into children_ when it closes (so every
/// container's children are contiguous). Written for the capture loader's volume (a 100k
/// node capture is ~36 MB): the whole load of such a capture takes ~0.35-0.5 s instead of
/// ~0.6 s with nlohmann's SAX lexer, which builds each token in a std::string first. Strings must
/// be valid UTF-8; integers that do not fit 64 bits become doubles (as nlohmann does).
class TapeParser {
  public:
    TapeParser(JsonTape& tape, std::string_view text)
        : values_(tape.values_),
          children_(tape.children_),
          strings_(tape.strings_),
          begin_(text.data()),
          p_(text.data()),
          end_(text.data() + text.size()) {}

    bool parse(std::string& error, uint64_t& byte) {
        skip_space();
        bool ok = value(0);
        if (ok) {
            skip_space();
            if (p_ != end_) ok = fail("unexpected content after the JSON document");
        }
        if (!ok) {
            error = error_;
            byte = static_cast<uint64_t>(error_at_ - begin_);
        }
        return ok;
    }

  private:
    static constexpr int kMaxDepth =
        512;  // captures nest a few levels; this stops a stack overflow

    bool fail(const char* what) {
        error_ = std::string("syntax error: ") + what;
        error_at_ = p_;
        return false;
    }
    void skip_space() {
        while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
    }
    uint32_t add(JsonTape::Type type, uint64_t payload, uint32_t size = 0) {
        const auto id = static_cast<uint32_t>(values_.size());
        values_.push_back({type, size, payload});
        pending_.push_back(id);
        return id;
    }

    bool value(int depth) {
        if (p_ == end_) return fail("unexpected end of input; expected a value");
        switch (*p_) {
            case '{':
            case '[':
                return container(depth);
            case '"':
                return string();
            case 't':
                return literal("true", JsonTape::Type::boolean, 1);
            case 'f':
                return literal("false", JsonTape::Type::boolean, 0);
            case 'n':
                return literal("null", JsonTape::Type::null, 0);
            default:
                if (*p_ == '-' || (*p_ >= '0' && *p_ <= '9')) return number();
                return fail("unexpected character; expected a value");
        }
    }

    bool literal(std::string_view word, JsonTape::Type type, uint64_t payload) {
        if (static_cast<size_t>(end_ - p_) < word.size() ||
            std::string_view(p_, word.size()) != word)
            return fail("invalid literal; expected true, false or null");
        p_ += word.size();
        add(type, payload);
        return true;
    }

    bool container(int depth) {
        if (depth >= kMaxDepth) return fail("nesting deeper than 512 levels");
        const bool object = *p_ == '{';
        const char close = object ? '}' : ']';
        const uint32_t id = add(object ? JsonTape::Type::object : JsonTape::Type::array, 0);
        const size_t start = pending_.size();
        ++p_;
        skip_space();
        if (p_ != end_ && *p_ == close) {
            ++p_;
        } else {
            for (;;) {
                if (object) {
                    if (p_ == end_ || *p_ != '"') return fail("expected a member name (a string)");
                    if (!string()) return false;
                    skip_space();
                    if (p_ == end_ || *p_ != ':') return fail("expected ':' after a member name");
                    ++p_;
                    skip_space();
                }
                if (!value(depth + 1)) return false;
                skip_space();
                if (p_ == end_) return fail("unexpected end of input inside a container");
                if (*p_ == ',') {
                    ++p_;
                    skip_space();
                    continue;
                }
                if (*p_ == close) {
                    ++p_;
                    break;
                }
                return fail(object ? "expected ',' or '}' after an object member"
                                   : "expected ',' or ']' after an array element");
            }
        }
        JsonTape::Value& v = values_[id];
        v.payload = children_.size();
        const size_t n = pending_.size() - start;
        v.size = static_cast<uint32_t>(object ? n / 2 : n);
        children_.insert(children_.end(), pending_.begin() + static_cast<ptrdiff_t>(start),
                         pending_.end());
        pending_.resize(start);
        return true;
    }

    static int hex(char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }
    bool hex4(uint32_t& out) {
        if (end_ - p_ < 4) return fail("incomplete \\u escape");
        out = 0;
        for (int i = 0; i < 4; ++i) {
            const int h = hex(p_[i]);
            if (h < 0) return fail("invalid \\u escape; expected four hex digits");
            out = out * 16 + static_cast<uint32_t>(h);
        }
        p_ += 4;
        return true;
    }
    void append_utf8(uint32_t cp) {
        if (cp < 0x80) {
            strings_ += static_cast<char>(cp);
        } else if (cp < 0x800) {
            strings_ += static_cast<char>(0xC0 | (cp >> 6));
            strings_ += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            strings_ += static_cast<char>(0xE0 | (cp >> 12));
            strings_ += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            strings_ += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            strings_ += static_cast<char>(0xF0 | (cp >> 18));
            strings_ += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            strings_ += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            strings_ += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }
    /// One UTF-8 sequence starting at p_ (a byte >= 0x80), checked (no overlongs, no
    /// surrogates, at most U+10FFFF) and copied.
    bool utf8_sequence() {
        const auto b0 = static_cast<unsigned char>(*p_);
        int len = 0;
        uint32_t min = 0, cp = 0;
        if (b0 >= 0xC2 && b0 <= 0xDF)
            len = 2, min = 0x80, cp = b0 & 0x1F;
        else if (b0 >= 0xE0 && b0 <= 0xEF)
            len = 3, min = 0x800, cp = b0 & 0x0F;
        else if (b0 >= 0xF0 && b0 <= 0xF4)
            len = 4, min = 0x10000, cp = b0 & 0x07;
        else
            return fail("invalid UTF-8 in a string");
        if (end_ - p_ < len) return fail("invalid UTF-8 in a string (truncated sequence)");
        for (int i = 1; i < len; ++i) {
            const auto b = static_cast<unsigned char>(p_[i]);
            if ((b & 0xC0) != 0x80) return fail("invalid UTF-8 in a string");
            cp = (cp << 6) | (b & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return fail("invalid UTF-8 in a string");
        strings_.append(p_, static_cast<size_t>(len));
        p_ += len;
        return true;
    }

    bool string() {
        ++p_;  // the opening quote
        const size_t offset = strings_.size();
        for (;;) {
            // The common case: a run of plain ASCII, copied in one go.
            const char* run = p_;
            while (p_ != end_) {
                const auto c = static_cast<unsigned char>(*p_);
                if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
                ++p_;
            }
            strings_.append(run, static_cast<size_t>(p_ - run));
            if (p_ == end_) return fail("unexpected end of input inside a string");
            const auto c = static_cast<unsigned char>(*p_);
            if (c == '"') {
                ++p_;
                break;
            }
            if (c < 0x20) return fail("control character in a string; it must be escaped");
            if (c >= 0x80) {
                if (!utf8_sequence()) return false;
                continue;
            }
            // An escape.
            if (++p_ == end_) return fail("unexpected end of input inside a string");
            const char e = *p_++;
            switch (e) {
                case '"':
                    strings_ += '"';
                    break;
                case '\\':
                    strings_ += '\\';
                    break;
                case '/':
                    strings_ += '/';
                    break;
                case 'b':
                    strings_ += '\b';
                    break;
                case 'f':
                    strings_ += '\f';
                    break;
                case 'n':
                    strings_ += '\n';
                    break;
                case 'r':
                    strings_ += '\r';
                    break;
                case 't':
                    strings_ += '\t';
                    break;
                case 'u': {
                    uint32_t cp = 0;
                    if (!hex4(cp)) return false;
                    if (cp >= 0xD800 && cp <= 0xDBFF) {
                        uint32_t low = 0;
                        if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u')
                            return fail("a high surrogate must be followed by a \\u low surrogate");
                        p_ += 2;
                        if (!hex4(low)) return false;
                        if (low < 0xDC00 || low > 0xDFFF)
                            return fail("a high surrogate must be followed by a low surrogate");
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                        return fail("a low surrogate without a high surrogate");
                    }
                    append_utf8(cp);
                    break;
                }
                default:
                    --p_;
                    return fail("invalid escape in a string");
            }
        }
        add(JsonTape::Type::string, offset, static_cast<uint32_t>(strings_.size() - offset));
        return true;
    }

    bool number() {
        const char* start = p_;
        const bool negative = *p_ == '-';
        if (negative) ++p_;
        if (p_ == end_ || *p_ < '0' || *p_ > '9') return fail("expected a digit");
        if (*p_ == '0') {
            ++p_;
        } else {
            while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
        }
        bool integer = true;
        if (p_ != end_ && *p_ == '.') {
            integer = false;
            ++p_;
            if (p_ == end_ || *p_ < '0' || *p_ > '9') return fail("expected a digit after '.'");
            while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
        }
        if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
            integer = false;
            ++p_;
            if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
            if (p_ == end_ || *p_ < '0' || *p_ > '9')
                return fail("expected a digit in the exponent");
            while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
        }
        if (integer) {
            if (negative) {
                int64_t v = 0;
                const auto r = std::from_chars(start, p_, v);
                if (r.ec == std::errc() && r.ptr == p_) {
                    add(v < 0 ? JsonTape::Type::negative : JsonTape::Type::unsigned_,
                        static_cast<uint64_t>(v));
                    return true;
                }
            } else {
                uint64_t v = 0;
                const auto r = std::from_chars(start, p_, v);
                if (r.ec == std::errc() && r.ptr == p_) {
                    add(JsonTape::Type::unsigned_, v);
                    return true;
                }
            }
            // Out of 64-bit range: a double, as nlohmann reads it.
        }
        double d = 0;
        const auto r = std::from_chars(start, p_, d);
        if (r.ptr != p_ || (r.ec != std::errc() && r.ec != std::errc::result_out_of_range))
            return fail("invalid number");
        if (r.ec == std::errc::result_out_of_range) {
            // from_chars leaves d unchanged: a number too large for a double is an error (as in
            // nlohmann), one too small is zero.
            if (std::abs(std::strtod(std::string(start, p_).c_str(), nullptr)) >= 1) {
                p_ = start;
                return fail("number out of the range of a double");
            }
            d = negative ? -0.0 : 0.0;
        }
        add(JsonTape::Type::floating, std::bit_cast<uint64_t>(d));
        return true;
    }

    std::vector<JsonTape::Value>& values_;
    std::vector<uint32_t>& children_;
    std::string& strings_;
    std::vector<uint32_t> pending_;  ///< children of the open containers, innermost last
    const char* begin_;
    const char* p_;
    const char* end_;
    std::string error_;
    const char* error_at_ = nullptr;
};

bool JsonTape::parse(std::string_view text, std::string& error, uint64_t& byte) {
    values_.clear();
    children_.clear();
    strings_.clear();
    // A capture holds roughly one value per 8 bytes; reserving avoids most regrowth.
    values_.reserve(text.size() / 8 + 16);
    children_.reserve(text.size() / 8 + 16);
    strings_.reserve(text.size() / 3);
    TapeParser parser(*this, text);
    return parser.parse(error, byte);
}

// The value this handle refers to (JsonRef is a friend of JsonTape).
#define GL_TAPE_VALUE (tape_->values_[index_])

bool JsonRef::is_null() const {
    return GL_TAPE_VALUE.type == JsonTape::Type::null;
}
bool JsonRef::is_boolean() const {
    return GL_TAPE_VALUE.type == JsonTape::Type::boolean;
}
bool JsonRef::is_number() const {
    const auto t = GL_TAPE_VALUE.type;
    return t == JsonTape::Type::negative || t == JsonTape::Type::unsigned_ ||
           t == JsonTape::Type::floating;
}
bool JsonRef::is_number_unsigned() const {
    return GL_TAPE_VALUE.type == JsonTape::Type::unsigned_;
}
bool JsonRef::is_number_integer() const {
    return GL_TAPE_VALUE.type == JsonTape::Type::unsigned_ ||
           GL_TAPE_VALUE.type == JsonTape::Type::negative;
}
bool JsonRef::is_string() const {
    return GL_TAPE_VALUE.type == JsonTape::Type::string;
}
bool JsonRef::is_array() const {
    return GL_TAPE_VALUE.type == JsonTape::Type::array;
}
bool JsonRef::is_object() const {
    return GL_TAPE_VALUE.type == JsonTape::Type::object;
}
bool JsonRef::get_bool() const {
    return GL_TAPE_VALUE.payload != 0;
}
uint64_t JsonRef::get_u64() const {
    return GL_TAPE_VALUE.payload;
}
int64_t JsonRef::get_i64() const {
    return static_cast<int64_t>(GL_TAPE_VALUE.payload);
}
double JsonRef::get_double() const {
    const auto& v = GL_TAPE_VALUE;
    switch (v.type) {
        case JsonTape::Type::unsigned_:
            return static_cast<double>(v.payload);
        case JsonTape::Type::negative:
            return static_cast<double>(static_cast<int64_t>(v.payload));
        case JsonTape::Type::floating:
            return std::bit_cast<double>(v.payload);
        default:
            return 0;
    }
}
std::string_view JsonRef::str() const {
    const auto& v = GL_TAPE_VALUE;
    return std::string_view(tape_->strings_).substr(v.payload, v.size);
}
size_t JsonRef::size() const {
    const auto& v = GL_TAPE_VALUE;
    return v.type == JsonTape::Type::array || v.type == JsonTape::Type::object ? v.size : 0;
}
JsonRef JsonRef::operator[](size_t i) const {
    return {tape_, tape_->children_[GL_TAPE_VALUE.payload + i]};
}
std::string_view JsonRef::key_at(size_t i) const {
    return JsonRef(tape_, tape_->children_[GL_TAPE_VALUE.payload + 2 * i]).str();
}
JsonRef JsonRef::value_at(size_t i) const {
    return {tape_, tape_->children_[GL_TAPE_VALUE.payload + 2 * i + 1]};
}
std::optional<JsonRef> JsonRef::find(std::string_view key) const {
    const size_t n = size();
    for (size_t i = 0; i < n; ++i)
        if (key_at(i) == key) return value_at(i);
    return std::nullopt;
}

#undef GL_TAPE_VALUE

std::string JsonRef::describe() const {
    if (is_null()) return "null";
    if (is_boolean()) return get_bool() ? "true" : "false";
    if (is_string()) {
        std::string s(str().substr(0, 40));
        return "the string \"" + s + (str().size() > 40 ? "...\"" : "\"");
    }
    if (is_number_unsigned()) return std::to_string(get_u64());
    if (is_number_integer()) return std::to_string(get_i64());
    if (is_number()) return nlohmann::json(get_double()).dump();
    if (is_object()) return "an object";
    return "an array of " + std::to_string(size());
}

}  // namespace graphlens::capture_detail
