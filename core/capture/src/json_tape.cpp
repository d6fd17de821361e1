#include "capture/src/json_tape.h"

#include <bit>
#include <nlohmann/json.hpp>

namespace graphlens::capture_detail {

/// nlohmann SAX handler: values are appended as they arrive; a container's children are
/// collected on a shared stack and copied into children_ when it closes, so every
/// container's children are contiguous.
struct TapeBuilder {
    using number_integer_t = int64_t;
    using number_unsigned_t = uint64_t;
    using number_float_t = double;
    using string_t = std::string;
    using binary_t = nlohmann::json::binary_t;

    JsonTape& tape;
    std::vector<uint32_t> pending;  ///< children of the open containers, innermost last
    std::vector<std::pair<uint32_t, size_t>> open;  ///< (value id, start in pending)
    std::string error;
    uint64_t byte = 0;

    uint32_t add(JsonTape::Type type, uint64_t payload, uint32_t size = 0) {
        const auto id = static_cast<uint32_t>(tape.values_.size());
        tape.values_.push_back({type, size, payload});
        if (!open.empty()) pending.push_back(id);
        return id;
    }
    uint32_t add_string(const std::string& s, bool as_child) {
        const auto id = static_cast<uint32_t>(tape.values_.size());
        tape.values_.push_back(
            {JsonTape::Type::string, static_cast<uint32_t>(s.size()), tape.strings_.size()});
        tape.strings_ += s;
        if (as_child && !open.empty()) pending.push_back(id);
        return id;
    }
    bool null() { return add(JsonTape::Type::null, 0), true; }
    bool boolean(bool v) { return add(JsonTape::Type::boolean, v ? 1 : 0), true; }
    bool number_integer(int64_t v) {
        return add(v < 0 ? JsonTape::Type::negative : JsonTape::Type::unsigned_,
                   static_cast<uint64_t>(v)),
               true;
    }
    bool number_unsigned(uint64_t v) { return add(JsonTape::Type::unsigned_, v), true; }
    bool number_float(double v, const std::string&) {
        return add(JsonTape::Type::floating, std::bit_cast<uint64_t>(v)), true;
    }
    bool string(std::string& s) { return add_string(s, true), true; }
    bool binary(binary_t&) { return false; }  // never produced by the text parser
    bool start_object(size_t) { return open_container(JsonTape::Type::object); }
    bool key(std::string& k) { return add_string(k, true), true; }
    bool end_object() { return close_container(); }
    bool start_array(size_t) { return open_container(JsonTape::Type::array); }
    bool end_array() { return close_container(); }
    bool parse_error(size_t position, const std::string&, const nlohmann::detail::exception& e) {
        error = e.what();
        byte = position;
        return false;
    }

    bool open_container(JsonTape::Type type) {
        const uint32_t id = add(type, 0);
        open.emplace_back(id, pending.size());
        return true;
    }
    bool close_container() {
        const auto [id, start] = open.back();
        open.pop_back();
        JsonTape::Value& v = tape.values_[id];
        v.payload = tape.children_.size();
        const size_t n = pending.size() - start;
        v.size = static_cast<uint32_t>(v.type == JsonTape::Type::object ? n / 2 : n);
        tape.children_.insert(tape.children_.end(), pending.begin() + static_cast<ptrdiff_t>(start),
                              pending.end());
        pending.resize(start);
        return true;
    }
};

namespace {

// Every value but the root follows a '[', '{', ',' or ':', and those characters inside strings
// only raise the bound; every value but the root is some container's child.
size_t value_count_bound(std::string_view text) {
    size_t n = 1;
    for (const char c : text) n += c == ',' || c == ':' || c == '[' || c == '{';
    return n;
}

}  // namespace

bool JsonTape::parse(std::string_view text, std::string& error, uint64_t& byte) {
    values_.clear();
    children_.clear();
    strings_.clear();
    // Reserving the upper bounds means no regrowth: a regrowth copies the tape and touches
    // fresh pages, the dearest part of loading a 100k-node capture. Reserved pages that stay
    // unused are never touched, so the generous string bound costs address space only.
    const size_t values = value_count_bound(text);
    values_.reserve(values);
    children_.reserve(values);
    strings_.reserve(text.size());
    TapeBuilder builder{*this, {}, {}, {}, 0};
    const bool ok = nlohmann::json::sax_parse(text.begin(), text.end(), &builder);
    if (!ok) {
        error = builder.error.empty() ? "incomplete JSON" : builder.error;
        byte = builder.byte;
    }
    return ok;
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
