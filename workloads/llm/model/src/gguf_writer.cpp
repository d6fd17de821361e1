#include "graphlens/model/gguf_writer.h"

#include <fmt/core.h>

#include <cstring>
#include <fstream>
#include <stdexcept>

#include "graphlens/ops/ggml_blocks.h"

namespace graphlens {
namespace {

class ByteSink {
  public:
    template <typename T>
    void put(T v) {
        const auto* p = reinterpret_cast<const uint8_t*>(&v);
        out_.insert(out_.end(), p, p + sizeof(T));
    }
    void put_string(const std::string& s) {
        put<uint64_t>(s.size());
        out_.insert(out_.end(), s.begin(), s.end());
    }
    void put_bytes(const std::vector<uint8_t>& b) { out_.insert(out_.end(), b.begin(), b.end()); }
    void pad_to(uint64_t alignment) {
        while (out_.size() % alignment != 0) out_.push_back(0);
    }
    size_t size() const { return out_.size(); }
    std::vector<uint8_t> take() { return std::move(out_); }

  private:
    std::vector<uint8_t> out_;
};

void put_value(ByteSink& out, const GgufValue& v) {
    switch (v.type()) {
        case GgufType::u8:
            out.put<uint8_t>(static_cast<uint8_t>(v.as_u64()));
            break;
        case GgufType::i8:
            out.put<int8_t>(static_cast<int8_t>(v.as_i64()));
            break;
        case GgufType::u16:
            out.put<uint16_t>(static_cast<uint16_t>(v.as_u64()));
            break;
        case GgufType::i16:
            out.put<int16_t>(static_cast<int16_t>(v.as_i64()));
            break;
        case GgufType::u32:
            out.put<uint32_t>(static_cast<uint32_t>(v.as_u64()));
            break;
        case GgufType::i32:
            out.put<int32_t>(static_cast<int32_t>(v.as_i64()));
            break;
        case GgufType::f32:
            out.put<float>(static_cast<float>(v.as_f64()));
            break;
        case GgufType::boolean:
            out.put<uint8_t>(v.as_bool() ? 1 : 0);
            break;
        case GgufType::string:
            out.put_string(v.as_string());
            break;
        case GgufType::u64:
            out.put<uint64_t>(v.as_u64());
            break;
        case GgufType::i64:
            out.put<int64_t>(v.as_i64());
            break;
        case GgufType::f64:
            out.put<double>(v.as_f64());
            break;
        case GgufType::array: {
            const auto& a = v.as_array();
            out.put<uint32_t>(static_cast<uint32_t>(a.element_type));
            out.put<uint64_t>(a.elements.size());
            for (const auto& e : a.elements) put_value(out, e);
            break;
        }
    }
}

uint64_t align_up(uint64_t v, uint64_t a) {
    return (v + a - 1) / a * a;
}

}  // namespace

GgufWriter::GgufWriter(uint32_t version) : version_(version) {
    if (version != 2 && version != 3)
        throw std::invalid_argument(fmt::format("GGUF version {} cannot be written", version));
}

void GgufWriter::set(const std::string& key, GgufValue value) {
    if (key == "general.alignment") {
        const uint64_t a = value.as_u64();
        if (value.type() != GgufType::u32 || a == 0 || (a & (a - 1)) != 0)
            throw std::invalid_argument("general.alignment must be a u32 power of two");
        alignment_ = static_cast<uint32_t>(a);
    }
    for (auto& kv : metadata_)
        if (kv.key == key) {
            kv.value = std::move(value);
            return;
        }
    metadata_.push_back({key, std::move(value)});
}

void GgufWriter::add_pending(const std::string& name, std::vector<uint64_t> dims, GgmlType type,
                             uint64_t size, std::vector<uint8_t> bytes) {
    for (const auto& t : tensors_)
        if (t.name == name) throw std::invalid_argument("duplicate tensor '" + name + "'");
    if (dims.empty() || dims.size() > 4)
        throw std::invalid_argument(fmt::format("tensor '{}' has {} dims", name, dims.size()));
    tensors_.push_back({name, std::move(dims), type, size, std::move(bytes)});
}

namespace {
uint64_t element_count(const std::vector<uint64_t>& dims) {
    uint64_t n = 1;
    for (uint64_t d : dims) n *= d;
    return n;
}
}  // namespace

void GgufWriter::add_tensor(const std::string& name, std::vector<uint64_t> dims, GgmlType type,
                            std::vector<uint8_t> bytes) {
    if (const auto dt = ggml_type_to_dtype(type)) {
        const uint64_t expected = dtype_bytes_for(*dt, element_count(dims));
        if (bytes.size() != expected)
            throw std::invalid_argument(fmt::format("tensor '{}': {} bytes given, {} expected",
                                                    name, bytes.size(), expected));
    }
    const uint64_t size = bytes.size();
    add_pending(name, std::move(dims), type, size, std::move(bytes));
}

void GgufWriter::add_tensor_shape(const std::string& name, std::vector<uint64_t> dims,
                                  GgmlType type) {
    const auto dt = ggml_type_to_dtype(type);
    if (!dt)
        throw std::invalid_argument(
            fmt::format("tensor '{}': type {} cannot be sized", name, static_cast<uint32_t>(type)));
    const uint64_t size = dtype_bytes_for(*dt, element_count(dims));
    add_pending(name, std::move(dims), type, size, {});
}

void GgufWriter::add_tensor_from_floats(const std::string& name, std::vector<uint64_t> dims,
                                        DType type, std::span<const float> values) {
    uint64_t elements = 1;
    for (uint64_t d : dims) elements *= d;
    if (values.size() != elements)
        throw std::invalid_argument(
            fmt::format("tensor '{}': {} values for {} elements", name, values.size(), elements));
    std::vector<uint8_t> bytes = ggml::quantize(type, values);
    add_tensor(name, std::move(dims), ggml_type_from_dtype(type), std::move(bytes));
}

std::vector<uint8_t> GgufWriter::bytes() const {
    ByteSink out;
    out.put<uint32_t>(0x46554747u);  // "GGUF" little-endian
    out.put<uint32_t>(version_);
    out.put<uint64_t>(tensors_.size());
    out.put<uint64_t>(metadata_.size());
    for (const auto& kv : metadata_) {
        out.put_string(kv.key);
        out.put<uint32_t>(static_cast<uint32_t>(kv.value.type()));
        put_value(out, kv.value);
    }
    uint64_t offset = 0;
    for (const auto& t : tensors_) {
        out.put_string(t.name);
        out.put<uint32_t>(static_cast<uint32_t>(t.dims.size()));
        for (uint64_t d : t.dims) out.put<uint64_t>(d);
        out.put<uint32_t>(static_cast<uint32_t>(t.type));
        out.put<uint64_t>(offset);
        offset = align_up(offset + t.size, alignment_);
    }
    if (omit_data_ || tensors_.empty()) return out.take();
    out.pad_to(alignment_);
    for (const auto& t : tensors_) {
        if (t.bytes.size() != t.size)
            throw std::logic_error("tensor '" + t.name +
                                   "' has no data: only a metadata-only file can hold it");
        out.put_bytes(t.bytes);
        out.pad_to(alignment_);
    }
    return out.take();
}

void GgufWriter::write(const std::filesystem::path& path) const {
    const std::vector<uint8_t> data = bytes();
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot create " + path.string());
    f.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
    if (!f) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace graphlens
