#pragma once
// The capture loader's vocabulary for reading one JSON value: a JSON Pointer kept as a chain
// of stack frames (turned into a string only when an error is thrown), an object reader that
// refuses unknown and repeated keys, and typed readers that throw CaptureError naming the
// path, what was expected there and what was found. Shared by the files that read the
// sections of a capture (capture_reader.cpp, barrier_scope_json.cpp, ...).
#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "capture/src/json_tape.h"
#include "graphlens/capture/capture_file.h"

namespace graphlens::capture_detail {

/// One step of a JSON Pointer, linked to its parent frame on the stack.
struct Path {
    const Path* parent = nullptr;
    std::string_view key;
    size_t index = 0;
    bool is_index = false;

    Path operator/(std::string_view k) const { return Path{this, k, 0, false}; }
    Path operator[](size_t i) const { return Path{this, {}, i, true}; }
    std::string str() const;  ///< RFC 6901 text, "" for the root
};

[[noreturn]] void fail(const Path& p, std::string expected, std::string got = {});

/// An object being read: looks fields up and rejects keys it did not expect.
class Fields {
  public:
    Fields(JsonRef v, const Path& p, std::string_view what);
    const Path& path() const { return p_; }
    std::optional<JsonRef> find(std::string_view key) const { return v_.find(key); }
    JsonRef need(std::string_view key, std::string_view what) const;
    /// Every key must be one of `allowed` and appear once (typos in hand-written files are
    /// errors, not silently ignored defaults); keys starting with "x-" are extensions and
    /// are skipped.
    void only(std::initializer_list<std::string_view> allowed) const;
    /// Refuses the `keys` present when the file's `version` is older than `since`: a
    /// version-1 file holding a version-2 field was written against another format than it
    /// claims, and reading it either way would be a guess.
    void not_before(uint32_t version, uint32_t since,
                    std::initializer_list<std::string_view> keys) const;

  private:
    JsonRef v_;
    const Path& p_;
};

uint64_t as_u64(const JsonRef& v, const Path& p, uint64_t max, std::string_view what = {});
uint32_t as_u32(const JsonRef& v, const Path& p);
double as_double(const JsonRef& v, const Path& p, bool non_negative);
bool as_bool(const JsonRef& v, const Path& p);
std::string_view as_string(const JsonRef& v, const Path& p);
JsonRef as_array(const JsonRef& v, const Path& p, uint64_t max_items, std::string_view what);
std::array<uint32_t, 3> as_triple(const JsonRef& v, const Path& p, uint64_t min, uint64_t max,
                                  std::string_view what);
/// Bytes of an even-length hex string of at most `max_bytes` bytes.
std::vector<uint8_t> as_hex_bytes(const JsonRef& v, const Path& p, uint64_t max_bytes);

// Optional-field readers: keep `out` (the default) when the field is absent.
void opt_u64(const Fields& f, std::string_view key, uint64_t max, uint64_t& out);
void opt_u32(const Fields& f, std::string_view key, uint32_t& out);
void opt_size(const Fields& f, std::string_view key, size_t& out);
void opt_string(const Fields& f, std::string_view key, std::string& out);
void opt_double(const Fields& f, std::string_view key, bool non_negative, double& out);
void opt_bool(const Fields& f, std::string_view key, bool& out);
void opt_strings(const Fields& f, std::string_view key, uint64_t max, std::string_view what,
                 std::vector<std::string>& out);

template <typename T, typename ReadItem>
void opt_list(const Fields& f, std::string_view key, uint64_t max, std::string_view what,
              std::vector<T>& out, ReadItem read_item) {
    auto j = f.find(key);
    if (!j) return;
    const Path p = f.path() / key;
    const JsonRef a = as_array(*j, p, max, what);
    out.clear();
    out.reserve(a.size());
    for (size_t i = 0; i < a.size(); ++i) out.emplace_back(read_item(a[i], p[i]));
}

template <typename E, typename FromName, typename NameOf>
E as_enum(const JsonRef& v, const Path& p, std::string_view what, size_t count, FromName from_name,
          NameOf name_of) {
    const std::string_view s = as_string(v, p);
    if (auto e = from_name(s)) return *e;
    std::string list;
    for (size_t i = 0; i < count; ++i)
        list += (i ? ", " : "") + std::string(name_of(static_cast<E>(i)));
    fail(p, std::string(what) + ": one of " + list, v.describe());
}

std::string describe_allocation(const AllocationInfo& a);
AllocationId read_allocation_ref(const JsonRef& v, const Path& p,
                                 const std::vector<AllocationInfo>& allocations);
/// A byte range {allocation, begin, end} inside one of `allocs`.
ByteRange read_range(const JsonRef& v, const Path& p, const std::vector<AllocationInfo>& allocs);

}  // namespace graphlens::capture_detail
