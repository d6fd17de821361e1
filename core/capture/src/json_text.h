#pragma once
// Writing compact JSON text directly, byte for byte as the JSON library prints it, for the
// parts of a capture that have one entry per node (node_text.h, barrier scopes): building a
// JSON value for each of ~100k entries cost more than the rest of writing the file.
#include <charconv>
#include <string>
#include <string_view>

namespace graphlens::capture_detail {

template <class Int>
void append_int(std::string& out, Int v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

/// Appends `text` as a JSON string, escaped as the JSON library escapes it (invalid UTF-8
/// becomes U+FFFD).
void append_json_string(std::string& out, std::string_view text);

/// Members of one JSON object, separated by commas.
class ObjectText {
  public:
    explicit ObjectText(std::string& out) : out_(out) { out_ += '{'; }
    ~ObjectText() { out_ += '}'; }
    ObjectText(const ObjectText&) = delete;
    ObjectText& operator=(const ObjectText&) = delete;
    /// Starts member `key` (a plain identifier); the caller appends its value.
    std::string& key(std::string_view key) {
        if (!first_) out_ += ',';
        first_ = false;
        out_ += '"';
        out_ += key;
        out_ += "\":";
        return out_;
    }
    template <class Int>
    void number(std::string_view k, Int v) {
        append_int(key(k), v);
    }
    void string(std::string_view k, std::string_view v) { append_json_string(key(k), v); }

  private:
    std::string& out_;
    bool first_ = true;
};

template <class Container, class Append>
void append_array(std::string& out, const Container& items, Append&& append) {
    out += '[';
    bool first = true;
    for (const auto& item : items) {
        if (!first) out += ',';
        first = false;
        append(out, item);
    }
    out += ']';
}

}  // namespace graphlens::capture_detail
