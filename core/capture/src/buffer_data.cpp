// The `<capture>.data` file: a recorded program's buffer contents, entry by entry.
#include "graphlens/capture/buffer_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <tuple>

namespace graphlens {
namespace {

constexpr char kMagic[8] = {'G', 'L', 'D', 'A', 'T', 'A', '0', '1'};

template <class T>
void put(std::vector<uint8_t>& out, T v) {
    for (size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// Reads little-endian integers and byte runs, naming the byte offset of what is missing.
class Reader {
  public:
    Reader(std::span<const uint8_t> bytes, const std::string& name) : bytes_(bytes), name_(name) {}
    template <class T>
    T get(std::string_view what) {
        need(sizeof(T), what);
        T v = 0;
        for (size_t i = 0; i < sizeof(T); ++i) v |= T(bytes_[at_ + i]) << (8 * i);
        at_ += sizeof(T);
        return v;
    }
    std::span<const uint8_t> take(uint64_t n, std::string_view what) {
        need(n, what);
        auto s = bytes_.subspan(at_, n);
        at_ += n;
        return s;
    }
    size_t at() const { return at_; }
    uint64_t left() const { return bytes_.size() - at_; }
    [[noreturn]] void fail(const std::string& why) const {
        throw std::runtime_error(fmt::format("{}: {}", name_, why));
    }

  private:
    void need(uint64_t n, std::string_view what) const {
        if (left() < n)
            fail(fmt::format("truncated at byte {}: {} needs {} bytes, {} remain", at_, what, n,
                             left()));
    }
    std::span<const uint8_t> bytes_;
    const std::string& name_;
    size_t at_ = 0;
};

}  // namespace

uint64_t BufferData::total_bytes() const {
    uint64_t n = 0;
    for (const auto& e : entries) n += e.bytes.size();
    return n;
}

std::filesystem::path buffer_data_path(const std::filesystem::path& capture) {
    return std::filesystem::path(capture.string() + ".data");
}

std::vector<uint8_t> serialize_buffer_data(const BufferData& data) {
    std::vector<uint8_t> out(std::begin(kMagic), std::end(kMagic));
    put<uint32_t>(out, static_cast<uint32_t>(data.entries.size()));
    for (const auto& e : data.entries) {
        put<uint32_t>(out, e.allocation);
        put<uint64_t>(out, e.offset);
        put<uint64_t>(out, e.bytes.size());
        out.insert(out.end(), e.bytes.begin(), e.bytes.end());
    }
    return out;
}

void save_buffer_data(const BufferData& data, const std::filesystem::path& path) {
    const auto bytes = serialize_buffer_data(data);
    const auto tmp = std::filesystem::path(path.string() + ".tmp");
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
        if (!f) throw std::runtime_error(fmt::format("{}: cannot write", tmp.string()));
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec)
        throw std::runtime_error(fmt::format("{}: cannot write ({})", path.string(), ec.message()));
}

BufferData parse_buffer_data(std::span<const uint8_t> bytes, const ComputeGraph& graph,
                             const std::string& name) {
    Reader r(bytes, name);
    const auto magic = r.take(sizeof(kMagic), "the magic \"GLDATA01\"");
    if (!std::equal(magic.begin(), magic.end(), std::begin(kMagic)))
        r.fail("not a buffer data file (its first 8 bytes are not \"GLDATA01\")");
    const uint32_t count = r.get<uint32_t>("the entry count");
    if (count > kMaxBufferDataEntries)
        r.fail(fmt::format("{} entries, at most {}", count, kMaxBufferDataEntries));
    BufferData data;
    for (uint32_t i = 0; i < count; ++i) {
        const std::string entry = fmt::format("entry {}", i);
        BufferDataEntry e;
        e.allocation = r.get<uint32_t>(entry + "'s allocation");
        if (e.allocation >= graph.allocations.size())
            r.fail(fmt::format("byte {}: {} names allocation {}, the capture has {}", r.at() - 4,
                               entry, e.allocation, graph.allocations.size()));
        const AllocationInfo& a = graph.allocations[e.allocation];
        e.offset = r.get<uint64_t>(entry + "'s offset");
        const uint64_t size = r.get<uint64_t>(entry + "'s size");
        if (e.offset > a.size || size > a.size - e.offset)
            r.fail(fmt::format("{}: bytes {}..{} lie outside allocation {} '{}' of {} bytes", entry,
                               e.offset, e.offset + size, a.id, a.name, a.size));
        const auto b = r.take(size, fmt::format("{} (allocation {} '{}')", entry, a.id, a.name));
        e.bytes.assign(b.begin(), b.end());
        data.entries.push_back(std::move(e));
    }
    if (r.left() != 0) r.fail(fmt::format("{} bytes after the last entry", r.left()));
    auto sorted = data.entries;
    std::sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) {
        return std::tie(x.allocation, x.offset) < std::tie(y.allocation, y.offset);
    });
    for (size_t i = 1; i < sorted.size(); ++i)
        if (sorted[i].allocation == sorted[i - 1].allocation &&
            sorted[i].offset < sorted[i - 1].offset + sorted[i - 1].bytes.size())
            r.fail(fmt::format("two entries overlap in allocation {} at byte {}",
                               sorted[i].allocation, sorted[i].offset));
    return data;
}

BufferData load_buffer_data(const std::filesystem::path& path, const ComputeGraph& graph) {
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(path, ec);
    if (ec)
        throw std::runtime_error(fmt::format("{}: cannot read ({})", path.string(), ec.message()));
    if (size > kMaxBufferDataBytes)
        throw std::runtime_error(fmt::format("{}: {} bytes, more than the {} a data file may hold",
                                             path.string(), size, kMaxBufferDataBytes));
    std::ifstream f(path, std::ios::binary);
    std::vector<uint8_t> bytes(size);
    f.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(size));
    if (!f) throw std::runtime_error(fmt::format("{}: cannot read", path.string()));
    return parse_buffer_data(bytes, graph, path.string());
}

}  // namespace graphlens
