#include "graphlens/model/gguf_file.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <limits>
#include <system_error>

namespace graphlens {

GgufError::GgufError(std::string source, std::string field, uint64_t offset,
                     const std::string& what)
    : std::runtime_error(offset == kNoOffset
                             ? fmt::format("{}: {}: {}", source, field, what)
                             : fmt::format("{}: {} at byte {}: {}", source, field, offset, what)),
      source_(std::move(source)),
      field_(std::move(field)),
      offset_(offset) {}

std::string_view gguf_type_name(GgufType t) {
    switch (t) {
        case GgufType::u8:
            return "u8";
        case GgufType::i8:
            return "i8";
        case GgufType::u16:
            return "u16";
        case GgufType::i16:
            return "i16";
        case GgufType::u32:
            return "u32";
        case GgufType::i32:
            return "i32";
        case GgufType::f32:
            return "f32";
        case GgufType::boolean:
            return "bool";
        case GgufType::string:
            return "string";
        case GgufType::array:
            return "array";
        case GgufType::u64:
            return "u64";
        case GgufType::i64:
            return "i64";
        case GgufType::f64:
            return "f64";
    }
    return "unknown";
}

// ---------------------------------------------------------------------------------------
// GgufValue

GgufValue GgufValue::array(GgufType element_type, std::vector<GgufValue> elements) {
    for (size_t i = 0; i < elements.size(); ++i)
        if (elements[i].type() != element_type)
            throw std::invalid_argument(fmt::format("GGUF array of {} has element {} of type {}",
                                                    gguf_type_name(element_type), i,
                                                    gguf_type_name(elements[i].type())));
    return {GgufType::array, Array{element_type, std::move(elements)}};
}

bool GgufValue::is_integer() const {
    return std::holds_alternative<uint64_t>(payload_) || std::holds_alternative<int64_t>(payload_);
}

namespace {
[[noreturn]] void wrong_type(GgufType actual, std::string_view wanted) {
    throw std::invalid_argument(
        fmt::format("GGUF value is {}, not {}", gguf_type_name(actual), wanted));
}
}  // namespace

uint64_t GgufValue::as_u64() const {
    if (const auto* u = std::get_if<uint64_t>(&payload_)) return *u;
    if (const auto* i = std::get_if<int64_t>(&payload_)) {
        if (*i < 0) throw std::invalid_argument(fmt::format("GGUF value {} is negative", *i));
        return static_cast<uint64_t>(*i);
    }
    wrong_type(type_, "an integer");
}

int64_t GgufValue::as_i64() const {
    if (const auto* i = std::get_if<int64_t>(&payload_)) return *i;
    if (const auto* u = std::get_if<uint64_t>(&payload_)) {
        if (*u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            throw std::invalid_argument(fmt::format("GGUF value {} does not fit i64", *u));
        return static_cast<int64_t>(*u);
    }
    wrong_type(type_, "an integer");
}

uint32_t GgufValue::as_u32() const {
    const uint64_t v = as_u64();
    if (v > std::numeric_limits<uint32_t>::max())
        throw std::invalid_argument(fmt::format("GGUF value {} does not fit u32", v));
    return static_cast<uint32_t>(v);
}

double GgufValue::as_f64() const {
    if (const auto* d = std::get_if<double>(&payload_)) return *d;
    if (const auto* u = std::get_if<uint64_t>(&payload_)) return static_cast<double>(*u);
    if (const auto* i = std::get_if<int64_t>(&payload_)) return static_cast<double>(*i);
    wrong_type(type_, "a number");
}

bool GgufValue::as_bool() const {
    if (const auto* b = std::get_if<bool>(&payload_)) return *b;
    wrong_type(type_, "bool");
}

const std::string& GgufValue::as_string() const {
    if (const auto* s = std::get_if<std::string>(&payload_)) return *s;
    wrong_type(type_, "string");
}

const GgufValue::Array& GgufValue::as_array() const {
    if (const auto* a = std::get_if<Array>(&payload_)) return *a;
    wrong_type(type_, "array");
}

// ---------------------------------------------------------------------------------------
// ggml types

namespace {
struct GgmlTypeFacts {
    GgmlType type;
    std::string_view name;
    uint32_t block_elements;
    uint32_t block_bytes;
};
// Block layouts of ggml (ggml-common.h): needed to size and bounds-check every tensor even
// when GraphLens cannot compute with its type.
constexpr std::array<GgmlTypeFacts, 20> kGgmlTypes{{
    {GgmlType::f32, "f32", 1, 4},       {GgmlType::f16, "f16", 1, 2},
    {GgmlType::q4_0, "q4_0", 32, 18},   {GgmlType::q4_1, "q4_1", 32, 20},
    {GgmlType::q5_0, "q5_0", 32, 22},   {GgmlType::q5_1, "q5_1", 32, 24},
    {GgmlType::q8_0, "q8_0", 32, 34},   {GgmlType::q8_1, "q8_1", 32, 36},
    {GgmlType::q2_k, "q2_k", 256, 84},  {GgmlType::q3_k, "q3_k", 256, 110},
    {GgmlType::q4_k, "q4_k", 256, 144}, {GgmlType::q5_k, "q5_k", 256, 176},
    {GgmlType::q6_k, "q6_k", 256, 210}, {GgmlType::q8_k, "q8_k", 256, 292},
    {GgmlType::i8, "i8", 1, 1},         {GgmlType::i16, "i16", 1, 2},
    {GgmlType::i32, "i32", 1, 4},       {GgmlType::i64, "i64", 1, 8},
    {GgmlType::f64, "f64", 1, 8},       {GgmlType::bf16, "bf16", 1, 2},
}};

const GgmlTypeFacts* ggml_facts(uint32_t raw) {
    for (const auto& f : kGgmlTypes)
        if (static_cast<uint32_t>(f.type) == raw) return &f;
    return nullptr;
}
}  // namespace

std::optional<std::string_view> ggml_type_name(uint32_t raw) {
    if (const auto* f = ggml_facts(raw)) return f->name;
    return std::nullopt;
}

std::optional<DType> ggml_type_to_dtype(GgmlType t) {
    switch (t) {
        case GgmlType::f32:
            return DType::f32;
        case GgmlType::f16:
            return DType::f16;
        case GgmlType::bf16:
            return DType::bf16;
        case GgmlType::i32:
            return DType::i32;
        case GgmlType::q4_0:
            return DType::q4_0;
        case GgmlType::q8_0:
            return DType::q8_0;
        case GgmlType::q4_k:
            return DType::q4_k;
        case GgmlType::q6_k:
            return DType::q6_k;
        default:
            return std::nullopt;
    }
}

GgmlType ggml_type_from_dtype(DType t) {
    switch (t) {
        case DType::f32:
            return GgmlType::f32;
        case DType::f16:
            return GgmlType::f16;
        case DType::bf16:
            return GgmlType::bf16;
        case DType::i32:
            return GgmlType::i32;
        case DType::q4_0:
            return GgmlType::q4_0;
        case DType::q8_0:
            return GgmlType::q8_0;
        case DType::q4_k:
            return GgmlType::q4_k;
        case DType::q6_k:
            return GgmlType::q6_k;
        case DType::u32:
        case DType::u8:
        case DType::q8x:
            break;
    }
    throw std::invalid_argument(fmt::format("{} has no ggml tensor type", dtype_name(t)));
}

uint64_t GgufTensorInfo::elements() const {
    uint64_t n = 1;
    for (uint64_t d : dims) n *= d;
    return n;
}

// ---------------------------------------------------------------------------------------
// Memory mapping

struct GgufFile::Mapping {
    void* address = nullptr;
    size_t length = 0;
    ~Mapping() {
        if (address) munmap(address, length);
    }
};

GgufFile::GgufFile(GgufFile&&) noexcept = default;
GgufFile& GgufFile::operator=(GgufFile&&) noexcept = default;
GgufFile::~GgufFile() = default;

GgufFile GgufFile::open(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw std::system_error(errno, std::generic_category(),
                                "cannot open GGUF file " + path.string());
    struct stat st {};
    if (fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        throw std::system_error(err, std::generic_category(), "cannot stat " + path.string());
    }
    GgufFile file;
    file.source_ = path.string();
    file.mapping_ = std::make_unique<Mapping>();
    const auto length = static_cast<size_t>(st.st_size);
    if (length > 0) {
        void* address = mmap(nullptr, length, PROT_READ, MAP_PRIVATE, fd, 0);
        if (address == MAP_FAILED) {
            const int err = errno;
            ::close(fd);
            throw std::system_error(err, std::generic_category(), "cannot map " + path.string());
        }
        file.mapping_->address = address;
        file.mapping_->length = length;
        file.bytes_ = {static_cast<const uint8_t*>(address), length};
    }
    ::close(fd);
    file.parse_all();
    return file;
}

GgufFile GgufFile::parse(std::span<const uint8_t> bytes, std::string source) {
    GgufFile file;
    file.source_ = std::move(source);
    file.bytes_ = bytes;
    file.parse_all();
    return file;
}

// ---------------------------------------------------------------------------------------
// Parsing

namespace {

constexpr uint32_t kMaxDims = 4;     // GGML_MAX_DIMS
constexpr int kMaxArrayNesting = 8;  // arrays of arrays: deep enough for any real file

/// A bounds-checked little-endian reader over the file's bytes.
class Cursor {
  public:
    Cursor(std::span<const uint8_t> bytes, const std::string& source)
        : bytes_(bytes), source_(source) {}

    uint64_t position() const { return pos_; }
    uint64_t remaining() const { return bytes_.size() - pos_; }

    [[noreturn]] void fail(const std::string& field, uint64_t at, const std::string& what) const {
        throw GgufError(source_, field, at, what);
    }

    void need(uint64_t n, const std::string& field) const {
        if (n > remaining())
            fail(field, pos_,
                 fmt::format("truncated: needs {} bytes, file has {} left (size {})", n,
                             remaining(), bytes_.size()));
    }

    template <typename T>
    T read(const std::string& field) {
        need(sizeof(T), field);
        T v;
        std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
        pos_ += sizeof(T);
        return v;
    }

    std::string read_string(const std::string& field) {
        const uint64_t at = pos_;
        const auto len = read<uint64_t>(field + ".length");
        if (len > remaining())
            fail(field, at,
                 fmt::format("truncated or corrupt: string length {} exceeds the {} bytes left",
                             len, remaining()));
        std::string s(reinterpret_cast<const char*>(bytes_.data() + pos_), len);
        pos_ += len;
        return s;
    }

  private:
    std::span<const uint8_t> bytes_;
    const std::string& source_;
    uint64_t pos_ = 0;
};

/// Smallest encoded size of one value of a type: bounds the element count of an array
/// before anything is allocated for it.
uint64_t min_encoded_size(GgufType t) {
    switch (t) {
        case GgufType::u8:
        case GgufType::i8:
        case GgufType::boolean:
            return 1;
        case GgufType::u16:
        case GgufType::i16:
            return 2;
        case GgufType::u32:
        case GgufType::i32:
        case GgufType::f32:
            return 4;
        case GgufType::u64:
        case GgufType::i64:
        case GgufType::f64:
        case GgufType::string:
            return 8;
        case GgufType::array:
            return 12;
    }
    return 1;
}

bool known_value_type(uint32_t raw) {
    return raw <= static_cast<uint32_t>(GgufType::f64);
}

GgufValue read_value(Cursor& c, GgufType type, const std::string& field, int depth) {
    const uint64_t at = c.position();
    switch (type) {
        case GgufType::u8:
            return GgufValue::u8(c.read<uint8_t>(field));
        case GgufType::i8:
            return GgufValue::i8(c.read<int8_t>(field));
        case GgufType::u16:
            return GgufValue::u16(c.read<uint16_t>(field));
        case GgufType::i16:
            return GgufValue::i16(c.read<int16_t>(field));
        case GgufType::u32:
            return GgufValue::u32(c.read<uint32_t>(field));
        case GgufType::i32:
            return GgufValue::i32(c.read<int32_t>(field));
        case GgufType::f32:
            return GgufValue::f32(c.read<float>(field));
        case GgufType::u64:
            return GgufValue::u64(c.read<uint64_t>(field));
        case GgufType::i64:
            return GgufValue::i64(c.read<int64_t>(field));
        case GgufType::f64:
            return GgufValue::f64(c.read<double>(field));
        case GgufType::boolean: {
            const auto b = c.read<uint8_t>(field);
            if (b > 1) c.fail(field, at, fmt::format("bool byte is {}, not 0 or 1", b));
            return GgufValue::boolean(b == 1);
        }
        case GgufType::string:
            return GgufValue::string(c.read_string(field));
        case GgufType::array: {
            if (depth >= kMaxArrayNesting)
                c.fail(field, at,
                       fmt::format("arrays nested deeper than {} levels", kMaxArrayNesting));
            const auto raw_type = c.read<uint32_t>(field + ".element_type");
            if (!known_value_type(raw_type))
                c.fail(field + ".element_type", at,
                       fmt::format("unknown metadata value type {}", raw_type));
            const auto element_type = static_cast<GgufType>(raw_type);
            const uint64_t count_at = c.position();
            const auto count = c.read<uint64_t>(field + ".count");
            if (count > c.remaining() / min_encoded_size(element_type))
                c.fail(field + ".count", count_at,
                       fmt::format("truncated or corrupt: {} elements of {} cannot fit in the {} "
                                   "bytes left",
                                   count, gguf_type_name(element_type), c.remaining()));
            std::vector<GgufValue> elements;
            elements.reserve(count);
            for (uint64_t i = 0; i < count; ++i)
                elements.push_back(
                    read_value(c, element_type, fmt::format("{}[{}]", field, i), depth + 1));
            return GgufValue::array(element_type, std::move(elements));
        }
    }
    c.fail(field, at, "unknown metadata value type");
}

uint64_t align_up(uint64_t v, uint64_t alignment) {
    const uint64_t rem = v % alignment;
    return rem == 0 ? v : v + (alignment - rem);
}

}  // namespace

namespace {

struct GgufHeader {
    uint32_t version = 0;
    uint64_t tensor_count = 0;
    uint64_t kv_count = 0;
};

/// Magic, version and counts; counts that cannot fit in the file are refused before anything
/// is reserved for them.
GgufHeader read_header(Cursor& c, size_t file_bytes, std::span<const uint8_t> bytes) {
    if (file_bytes < 4)
        c.fail("header.magic", 0,
               fmt::format("truncated: file is {} bytes, too short for the magic \"GGUF\"",
                           file_bytes));
    if (std::memcmp(bytes.data(), "GGUF", 4) != 0)
        c.fail("header.magic", 0, "not a GGUF file (magic is not \"GGUF\")");
    c.read<uint32_t>("header.magic");
    GgufHeader h;
    const uint64_t version_at = c.position();
    h.version = c.read<uint32_t>("header.version");
    if (h.version != 2 && h.version != 3) {
        if (__builtin_bswap32(h.version) == 2 || __builtin_bswap32(h.version) == 3)
            c.fail("header.version", version_at, "big-endian GGUF files are not supported");
        c.fail("header.version", version_at,
               fmt::format("version {} is not supported (only 2 and 3)", h.version));
    }
    const uint64_t tensor_count_at = c.position();
    h.tensor_count = c.read<uint64_t>("header.tensor_count");
    const uint64_t kv_count_at = c.position();
    h.kv_count = c.read<uint64_t>("header.metadata_kv_count");
    // A key/value pair takes at least 8 (key length) + 4 (type) + 1 bytes; a tensor info at
    // least 8 + 4 + 8 + 4 + 8. Counts beyond that are corrupt, and rejecting them here keeps a
    // hostile count from reserving memory.
    if (h.kv_count > c.remaining() / 13)
        c.fail("header.metadata_kv_count", kv_count_at,
               fmt::format("truncated or corrupt: {} key/value pairs cannot fit in a {}-byte file",
                           h.kv_count, file_bytes));
    if (h.tensor_count > c.remaining() / 32)
        c.fail("header.tensor_count", tensor_count_at,
               fmt::format("truncated or corrupt: {} tensor infos cannot fit in a {}-byte file",
                           h.tensor_count, file_bytes));
    return h;
}

/// general.alignment by the spec's rule: a u32 power of two.
uint32_t checked_alignment(const Cursor& c, const GgufValue& value, const std::string& vfield,
                           uint64_t type_at, uint64_t value_at) {
    if (value.type() != GgufType::u32)
        c.fail(vfield + ".type", type_at,
               fmt::format("must be u32, is {}", gguf_type_name(value.type())));
    const uint64_t a = value.as_u64();
    if (a == 0 || (a & (a - 1)) != 0)
        c.fail(vfield + ".value", value_at, fmt::format("{} is not a power of two", a));
    return static_cast<uint32_t>(a);
}

/// A metadata key/value pair as read, with where its type and value lie.
struct MetadataEntry {
    GgufKeyValue kv;
    std::string field;  ///< "metadata 'key'", for messages
    uint64_t type_at = 0;
    uint64_t value_at = 0;
};

/// Metadata pair i: a key not seen before (`index`), a known type, its value.
MetadataEntry read_metadata_entry(Cursor& c, uint64_t i,
                                  const std::unordered_map<std::string, size_t>& index) {
    const std::string field = fmt::format("metadata[{}]", i);
    const uint64_t key_at = c.position();
    MetadataEntry e;
    e.kv.key = c.read_string(field + ".key");
    if (index.count(e.kv.key))
        c.fail(field + ".key", key_at, fmt::format("duplicate key '{}'", e.kv.key));
    e.field = fmt::format("metadata '{}'", e.kv.key);
    e.type_at = c.position();
    const auto raw_type = c.read<uint32_t>(e.field + ".type");
    if (!known_value_type(raw_type))
        c.fail(e.field + ".type", e.type_at,
               fmt::format("unknown metadata value type {}", raw_type));
    e.value_at = c.position();
    e.kv.value = read_value(c, static_cast<GgufType>(raw_type), e.field + ".value", 0);
    return e;
}

/// Tensor info i: a name not seen before (`index`), dimensions (each in range, their product
/// too), ggml type (rows whole blocks), size and aligned offset.
GgufTensorInfo read_tensor_info(Cursor& c, uint64_t i, uint32_t alignment,
                                const std::unordered_map<std::string, size_t>& index) {
    GgufTensorInfo t;
    t.info_offset = c.position();
    const std::string field = fmt::format("tensor[{}]", i);
    t.name = c.read_string(field + ".name");
    if (index.count(t.name))
        c.fail(field + ".name", t.info_offset, fmt::format("duplicate tensor '{}'", t.name));
    const std::string tfield = fmt::format("tensor '{}'", t.name);
    const uint64_t ndims_at = c.position();
    const auto n_dims = c.read<uint32_t>(tfield + ".n_dims");
    if (n_dims == 0 || n_dims > kMaxDims)
        c.fail(tfield + ".n_dims", ndims_at,
               fmt::format("{} dimensions (must be 1..{})", n_dims, kMaxDims));
    uint64_t elements = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
        const uint64_t dim_at = c.position();
        const std::string dfield = fmt::format("{}.dims[{}]", tfield, d);
        const auto dim = c.read<uint64_t>(dfield);
        if (dim == 0 || dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            c.fail(dfield, dim_at, fmt::format("dimension {} is out of range", dim));
        if (elements > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / dim)
            c.fail(dfield, dim_at, "element count overflows");
        elements *= dim;
        t.dims.push_back(dim);
    }
    const uint64_t type_at = c.position();
    const auto raw_type = c.read<uint32_t>(tfield + ".type");
    const GgmlTypeFacts* facts = ggml_facts(raw_type);
    if (!facts) c.fail(tfield + ".type", type_at, fmt::format("unknown ggml type {}", raw_type));
    t.type = facts->type;
    if (t.dims[0] % facts->block_elements != 0)
        c.fail(tfield + ".dims[0]", ndims_at + 4,
               fmt::format("row length {} is not a multiple of the {} block size {}", t.dims[0],
                           facts->name, facts->block_elements));
    t.size = elements / facts->block_elements * facts->block_bytes;
    const uint64_t offset_at = c.position();
    t.offset = c.read<uint64_t>(tfield + ".offset");
    if (t.offset % alignment != 0)
        c.fail(tfield + ".offset", offset_at,
               fmt::format("data offset {} is not a multiple of the alignment {}", t.offset,
                           alignment));
    if (t.offset > std::numeric_limits<uint64_t>::max() - t.size)
        c.fail(tfield + ".offset", offset_at, "offset + size overflows");
    return t;
}

/// Every tensor's data lies within the file's data section.
void check_tensor_data(const std::vector<GgufTensorInfo>& tensors, const std::string& source,
                       uint64_t data_offset, uint64_t file_bytes) {
    const uint64_t data_size = file_bytes - data_offset;
    for (const auto& t : tensors) {
        if (t.offset >= data_size) {
            // Report where the offending offset field lies, not the impossible data position.
            const uint64_t offset_field =
                t.info_offset + 8 + t.name.size() + 4 + 8 * t.dims.size() + 4;
            throw GgufError(source, fmt::format("tensor '{}'.offset", t.name), offset_field,
                            fmt::format("truncated or corrupt: data at {} + {} lies beyond the "
                                        "end of the {}-byte file",
                                        data_offset, t.offset, file_bytes));
        }
        if (t.size > data_size - t.offset)
            throw GgufError(source, fmt::format("tensor '{}'.data", t.name), data_offset + t.offset,
                            fmt::format("truncated: {} bytes of data needed, the file ends {} "
                                        "bytes into them",
                                        t.size, data_size - t.offset));
    }
}

}  // namespace

void GgufFile::parse_all() {
    Cursor c(bytes_, source_);
    const GgufHeader header = read_header(c, bytes_.size(), bytes_);
    version_ = header.version;
    metadata_.reserve(header.kv_count);
    for (uint64_t i = 0; i < header.kv_count; ++i) {
        MetadataEntry e = read_metadata_entry(c, i, metadata_index_);
        if (e.kv.key == "general.alignment")
            alignment_ = checked_alignment(c, e.kv.value, e.field, e.type_at, e.value_at);
        value_offsets_.push_back(e.value_at);
        metadata_index_.emplace(e.kv.key, metadata_.size());
        metadata_.push_back(std::move(e.kv));
    }
    tensors_.reserve(header.tensor_count);
    for (uint64_t i = 0; i < header.tensor_count; ++i) {
        GgufTensorInfo t = read_tensor_info(c, i, alignment_, tensor_index_);
        tensor_index_.emplace(t.name, tensors_.size());
        tensors_.push_back(std::move(t));
    }
    data_offset_ = align_up(c.position(), alignment_);
    has_data_ = !tensors_.empty() && bytes_.size() > data_offset_;
    if (has_data_) check_tensor_data(tensors_, source_, data_offset_, bytes_.size());
}

// ---------------------------------------------------------------------------------------
// Look-ups

const GgufValue* GgufFile::find(std::string_view key) const {
    const auto it = metadata_index_.find(std::string(key));
    return it == metadata_index_.end() ? nullptr : &metadata_[it->second].value;
}

const GgufValue& GgufFile::at(std::string_view key) const {
    if (const GgufValue* v = find(key)) return *v;
    throw GgufError(source_, fmt::format("metadata '{}'", key), GgufError::kNoOffset,
                    "required key is missing");
}

namespace {
template <typename F>
auto typed(const GgufFile& file, std::string_view key, F&& get) {
    try {
        return get(file.at(key));
    } catch (const std::invalid_argument& e) {
        throw GgufError(file.source(), fmt::format("metadata '{}'.value", key),
                        file.value_offset(key), e.what());
    }
}
}  // namespace

uint32_t GgufFile::get_u32(std::string_view key, uint32_t fallback) const {
    if (!find(key)) return fallback;
    return typed(*this, key, [](const GgufValue& v) { return v.as_u32(); });
}

float GgufFile::get_f32(std::string_view key, float fallback) const {
    if (!find(key)) return fallback;
    return typed(*this, key, [](const GgufValue& v) { return static_cast<float>(v.as_f64()); });
}

bool GgufFile::get_bool(std::string_view key, bool fallback) const {
    if (!find(key)) return fallback;
    return typed(*this, key, [](const GgufValue& v) { return v.as_bool(); });
}

std::string GgufFile::get_string(std::string_view key, std::string fallback) const {
    if (!find(key)) return fallback;
    return typed(*this, key, [](const GgufValue& v) { return v.as_string(); });
}

uint64_t GgufFile::value_offset(std::string_view key) const {
    const auto it = metadata_index_.find(std::string(key));
    return it == metadata_index_.end() ? GgufError::kNoOffset : value_offsets_[it->second];
}

const GgufTensorInfo* GgufFile::find_tensor(std::string_view name) const {
    const auto it = tensor_index_.find(std::string(name));
    return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

std::span<const uint8_t> GgufFile::tensor_data(const GgufTensorInfo& t) const {
    if (!has_data_) return {};
    return bytes_.subspan(data_offset_ + t.offset, t.size);
}

}  // namespace graphlens
