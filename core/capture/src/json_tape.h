#pragma once
// A compact read-only JSON document for the capture loader: nlohmann's SAX parser fills a
// few flat arrays (values, child indices, one string pool) instead of a tree of small heap
// objects. Building and freeing it costs a fraction of nlohmann::json's DOM on 100k-node
// captures; the loader reads it through JsonRef, a small by-value handle.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace graphlens::capture_detail {

class JsonTape;

/// A handle on one value of a JsonTape (cheap to copy; valid while the tape lives).
class JsonRef {
  public:
    JsonRef(const JsonTape* tape, uint32_t index) : tape_(tape), index_(index) {}
    bool is_null() const;
    bool is_boolean() const;
    bool is_number() const;
    bool is_number_unsigned() const;  ///< a non-negative integer
    bool is_number_integer() const;   ///< any integer
    bool is_string() const;
    bool is_array() const;
    bool is_object() const;

    bool get_bool() const;
    uint64_t get_u64() const;   ///< only for is_number_unsigned()
    int64_t get_i64() const;    ///< only for is_number_integer()
    double get_double() const;  ///< any number
    std::string_view str() const;
    /// Elements of an array or members of an object.
    size_t size() const;
    bool empty() const { return size() == 0; }
    JsonRef operator[](size_t i) const;       ///< array element
    std::string_view key_at(size_t i) const;  ///< object member name
    JsonRef value_at(size_t i) const;         ///< object member value
    /// The first member named `key`.
    std::optional<JsonRef> find(std::string_view key) const;
    /// A short text of the value for error messages ("an object", "the string \"x\"", "-4").
    std::string describe() const;

  private:
    const JsonTape* tape_;
    uint32_t index_;
};

class JsonTape {
  public:
    /// Parses `text`; on a syntax error returns false and fills `error` and `byte`.
    bool parse(std::string_view text, std::string& error, uint64_t& byte);
    JsonRef root() const { return {this, 0}; }

  private:
    friend class JsonRef;
    friend struct TapeBuilder;
    enum class Type : uint8_t {
        null,
        boolean,
        negative,
        unsigned_,
        floating,
        string,
        array,
        object
    };
    struct Value {
        Type type = Type::null;
        uint32_t size = 0;     ///< containers: elements / members; strings: bytes
        uint64_t payload = 0;  ///< number bits, bool, string offset, or first child index
    };
    std::vector<Value> values_;
    std::vector<uint32_t> children_;  ///< arrays: value ids; objects: (key id, value id) pairs
    std::string strings_;
};

}  // namespace graphlens::capture_detail
