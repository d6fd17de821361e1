#pragma once
// Reader of GGUF, llama.cpp's model file (versions 2 and 3, little-endian): header, typed
// metadata (arrays included), tensor infos, alignment and the tensor data section.
//
// Every offset and size is checked against the bytes actually present before it is used:
// a corrupt, truncated or unsupported file throws GgufError naming the field and the byte
// offset where parsing stopped; nothing is read out of bounds. parse() works on any byte
// span (the fuzz harness feeds it arbitrary bytes); open() memory-maps a file.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "graphlens/graph/dtype.h"

namespace graphlens {

/// A malformed or unsupported GGUF. `field` names what was being read ("header.version",
/// "metadata[3].value", "tensor 'blk.0.attn_q.weight'.offset"), `offset` the byte where it
/// starts in the file.
class GgufError : public std::runtime_error {
  public:
    /// For problems that have no place in the file (a required key that is absent).
    static constexpr uint64_t kNoOffset = ~uint64_t{0};
    GgufError(std::string source, std::string field, uint64_t offset, const std::string& what);
    const std::string& source() const { return source_; }
    const std::string& field() const { return field_; }
    uint64_t offset() const { return offset_; }

  private:
    std::string source_;
    std::string field_;
    uint64_t offset_;
};

/// Metadata value types, numbered as in the GGUF specification.
enum class GgufType : uint32_t {
    u8 = 0,
    i8 = 1,
    u16 = 2,
    i16 = 3,
    u32 = 4,
    i32 = 5,
    f32 = 6,
    boolean = 7,
    string = 8,
    array = 9,
    u64 = 10,
    i64 = 11,
    f64 = 12,
};
std::string_view gguf_type_name(GgufType t);

/// One metadata value. The declared GGUF type is kept exactly (a round trip writes the same
/// bytes); the payload is widened: unsigned integers to uint64_t, signed to int64_t, floats
/// to double.
class GgufValue {
  public:
    struct Array {
        GgufType element_type = GgufType::u8;
        std::vector<GgufValue> elements;
        friend bool operator==(const Array&, const Array&) = default;
    };

    GgufValue() = default;
    static GgufValue u8(uint8_t v) { return {GgufType::u8, uint64_t{v}}; }
    static GgufValue i8(int8_t v) { return {GgufType::i8, int64_t{v}}; }
    static GgufValue u16(uint16_t v) { return {GgufType::u16, uint64_t{v}}; }
    static GgufValue i16(int16_t v) { return {GgufType::i16, int64_t{v}}; }
    static GgufValue u32(uint32_t v) { return {GgufType::u32, uint64_t{v}}; }
    static GgufValue i32(int32_t v) { return {GgufType::i32, int64_t{v}}; }
    static GgufValue f32(float v) { return {GgufType::f32, double{v}}; }
    static GgufValue boolean(bool v) { return {GgufType::boolean, v}; }
    static GgufValue string(std::string v) { return {GgufType::string, std::move(v)}; }
    static GgufValue u64(uint64_t v) { return {GgufType::u64, v}; }
    static GgufValue i64(int64_t v) { return {GgufType::i64, v}; }
    static GgufValue f64(double v) { return {GgufType::f64, v}; }
    /// Every element must have type `element_type` (checked; throws std::invalid_argument).
    static GgufValue array(GgufType element_type, std::vector<GgufValue> elements);

    GgufType type() const { return type_; }
    bool is_integer() const;
    bool is_float() const { return type_ == GgufType::f32 || type_ == GgufType::f64; }

    /// Typed access; each throws std::invalid_argument naming the actual type on mismatch
    /// (or when an integer does not fit the requested type).
    uint64_t as_u64() const;
    int64_t as_i64() const;
    uint32_t as_u32() const;
    double as_f64() const;  ///< floats, or integers converted
    bool as_bool() const;
    const std::string& as_string() const;
    const Array& as_array() const;

    friend bool operator==(const GgufValue&, const GgufValue&) = default;

  private:
    using Payload = std::variant<uint64_t, int64_t, double, bool, std::string, Array>;
    GgufValue(GgufType t, Payload p) : type_(t), payload_(std::move(p)) {}
    GgufType type_ = GgufType::u8;
    Payload payload_ = uint64_t{0};
};

struct GgufKeyValue {
    std::string key;
    GgufValue value;
};

/// ggml tensor types (GGUF's tensor "type" field). The reader knows the block layout of
/// these; only those with a DType (f32, f16, bf16, i32, q4_0, q8_0, q4_k, q6_k) can be
/// loaded by GraphLens, the others are reported as unsupported when loading.
enum class GgmlType : uint32_t {
    f32 = 0,
    f16 = 1,
    q4_0 = 2,
    q4_1 = 3,
    q5_0 = 6,
    q5_1 = 7,
    q8_0 = 8,
    q8_1 = 9,
    q2_k = 10,
    q3_k = 11,
    q4_k = 12,
    q5_k = 13,
    q6_k = 14,
    q8_k = 15,
    i8 = 24,
    i16 = 25,
    i32 = 26,
    i64 = 27,
    f64 = 28,
    bf16 = 30,
};
/// Name of a ggml type ("q4_0"), or nullopt when the value is not one GraphLens knows.
std::optional<std::string_view> ggml_type_name(uint32_t raw);
/// The GraphLens element type of a ggml type, when GraphLens can compute with it.
std::optional<DType> ggml_type_to_dtype(GgmlType t);
GgmlType ggml_type_from_dtype(DType t);  ///< throws for DTypes ggml has no type for (u32, u8)

struct GgufTensorInfo {
    std::string name;
    std::vector<uint64_t> dims;  ///< innermost first (ne0 = row length), 1..4 entries
    GgmlType type = GgmlType::f32;
    uint64_t offset = 0;       ///< bytes from the start of the data section
    uint64_t size = 0;         ///< bytes of data, from the dims and the block layout
    uint64_t info_offset = 0;  ///< where this tensor info starts in the file (for messages)

    uint64_t elements() const;
};

/// Default of general.alignment.
inline constexpr uint32_t kGgufDefaultAlignment = 32;

class GgufFile {
  public:
    /// Memory-maps and parses a file. Throws GgufError (or std::system_error if the file
    /// cannot be opened).
    static GgufFile open(const std::filesystem::path& path);
    /// Parses bytes in memory without copying them: `bytes` must outlive the GgufFile.
    /// `source` names the bytes in error messages.
    static GgufFile parse(std::span<const uint8_t> bytes, std::string source = "<memory>");

    GgufFile(GgufFile&&) noexcept;
    GgufFile& operator=(GgufFile&&) noexcept;
    ~GgufFile();

    const std::string& source() const { return source_; }
    uint32_t version() const { return version_; }
    uint32_t alignment() const { return alignment_; }
    /// Byte offset of the tensor data section (aligned end of the tensor infos).
    uint64_t data_offset() const { return data_offset_; }
    uint64_t file_size() const { return bytes_.size(); }
    /// False for a "metadata-only" file: the file ends at or before the data section, so the
    /// tensor infos give shapes and types but no values. Any data section that is present
    /// must hold every tensor completely (otherwise parsing fails as truncated).
    bool has_tensor_data() const { return has_data_; }

    const std::vector<GgufKeyValue>& metadata() const { return metadata_; }
    const GgufValue* find(std::string_view key) const;
    /// The value of `key`; throws GgufError (field = key) when missing.
    const GgufValue& at(std::string_view key) const;
    /// Typed look-ups with a default when the key is absent; a present key of the wrong type
    /// throws GgufError naming the key and its type.
    uint32_t get_u32(std::string_view key, uint32_t fallback) const;
    float get_f32(std::string_view key, float fallback) const;
    bool get_bool(std::string_view key, bool fallback) const;
    std::string get_string(std::string_view key, std::string fallback) const;
    /// Where the value of `key` starts in the file (GgufError::kNoOffset when absent).
    uint64_t value_offset(std::string_view key) const;

    const std::vector<GgufTensorInfo>& tensors() const { return tensors_; }
    const GgufTensorInfo* find_tensor(std::string_view name) const;
    /// The bytes of one tensor (empty span for a metadata-only file).
    std::span<const uint8_t> tensor_data(const GgufTensorInfo& t) const;

  private:
    struct Mapping;
    GgufFile() = default;
    void parse_all();

    std::string source_;
    std::unique_ptr<Mapping> mapping_;
    std::span<const uint8_t> bytes_;
    uint32_t version_ = 0;
    uint32_t alignment_ = kGgufDefaultAlignment;
    uint64_t data_offset_ = 0;
    bool has_data_ = false;
    std::vector<GgufKeyValue> metadata_;
    std::unordered_map<std::string, size_t> metadata_index_;
    std::vector<uint64_t> value_offsets_;  ///< parallel to metadata_
    std::vector<GgufTensorInfo> tensors_;
    std::unordered_map<std::string, size_t> tensor_index_;
};

}  // namespace graphlens
