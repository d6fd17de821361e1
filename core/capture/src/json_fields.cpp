#include "capture/src/json_fields.h"

#include <cmath>
#include <limits>

namespace graphlens::capture_detail {

using Limits = CaptureLimits;

std::string Path::str() const {
    std::string prefix = parent ? parent->str() : std::string();
    if (!parent && !is_index && key.empty()) return prefix;  // the root
    prefix += '/';
    if (is_index) return prefix + std::to_string(index);
    for (char c : key) {  // RFC 6901 escaping
        if (c == '~')
            prefix += "~0";
        else if (c == '/')
            prefix += "~1";
        else
            prefix += c;
    }
    return prefix;
}

void fail(const Path& p, std::string expected, std::string got) {
    throw CaptureError(p.str(), std::move(expected), std::move(got));
}

Fields::Fields(JsonRef v, const Path& p, std::string_view what) : v_(v), p_(p) {
    if (!v.is_object()) fail(p, "an object (" + std::string(what) + ")", v.describe());
}

JsonRef Fields::need(std::string_view key, std::string_view what) const {
    const auto j = find(key);
    if (!j) fail(p_ / key, std::string(what), "nothing: the field is missing");
    return *j;
}

void Fields::only(std::initializer_list<std::string_view> allowed) const {
    const size_t n = v_.size();
    for (size_t i = 0; i < n; ++i) {
        const std::string_view key = v_.key_at(i);
        for (size_t j = 0; j < i; ++j)
            if (v_.key_at(j) == key) fail(p_ / key, "each field once", "a repeated field");
        if (key.size() >= 2 && key[0] == 'x' && key[1] == '-') continue;
        if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
        std::string list;
        for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        fail(p_ / key, "one of the known fields (" + list + ")",
             "unknown field \"" + std::string(key) + "\"");
    }
}

void Fields::not_before(uint32_t version, uint32_t since,
                        std::initializer_list<std::string_view> keys) const {
    if (version >= since) return;
    for (auto key : keys)
        if (find(key))
            fail(p_ / key,
                 "no \"" + std::string(key) + "\" in a format version " + std::to_string(version) +
                     " file (the field came with format version " + std::to_string(since) + ")",
                 "\"format_version\": " + std::to_string(version));
}

uint64_t as_u64(const JsonRef& v, const Path& p, uint64_t max, std::string_view what) {
    // The message is built only on failure: this runs for every number of a capture.
    const auto expected = [&] {
        return "an unsigned integer <= " + std::to_string(max) +
               (what.empty() ? "" : " (" + std::string(what) + ")");
    };
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get_i64() >= 0))
        fail(p, expected(), v.describe());
    const uint64_t x = v.get_u64();
    if (x > max) fail(p, expected(), std::to_string(x));
    return x;
}

uint32_t as_u32(const JsonRef& v, const Path& p) {
    return static_cast<uint32_t>(as_u64(v, p, std::numeric_limits<uint32_t>::max()));
}

double as_double(const JsonRef& v, const Path& p, bool non_negative) {
    if (!v.is_number()) fail(p, non_negative ? "a number >= 0" : "a number", v.describe());
    const double x = v.get_double();
    if (!std::isfinite(x) || (non_negative && x < 0))
        fail(p, non_negative ? "a finite number >= 0" : "a finite number", v.describe());
    return x;
}

bool as_bool(const JsonRef& v, const Path& p) {
    if (!v.is_boolean()) fail(p, "true or false", v.describe());
    return v.get_bool();
}

std::string_view as_string(const JsonRef& v, const Path& p) {
    if (!v.is_string()) fail(p, "a string", v.describe());
    const std::string_view s = v.str();
    if (s.size() > Limits::max_string_bytes)
        fail(p, "a string of at most " + std::to_string(Limits::max_string_bytes) + " bytes",
             std::to_string(s.size()) + " bytes");
    return s;
}

JsonRef as_array(const JsonRef& v, const Path& p, uint64_t max_items, std::string_view what) {
    if (!v.is_array()) fail(p, "an array (" + std::string(what) + ")", v.describe());
    if (v.size() > max_items)
        fail(p, "at most " + std::to_string(max_items) + " " + std::string(what),
             std::to_string(v.size()));
    return v;
}

std::array<uint32_t, 3> as_triple(const JsonRef& v, const Path& p, uint64_t min, uint64_t max,
                                  std::string_view what) {
    if (!v.is_array() || v.size() != 3)
        fail(p, "an array of 3 unsigned integers (" + std::string(what) + ")", v.describe());
    std::array<uint32_t, 3> t{};
    for (size_t i = 0; i < 3; ++i) {
        const uint64_t x = as_u64(v[i], p[i], max, what);
        if (x < min) fail(p[i], "an integer >= " + std::to_string(min), std::to_string(x));
        t[i] = static_cast<uint32_t>(x);
    }
    return t;
}

std::vector<uint8_t> as_hex_bytes(const JsonRef& v, const Path& p, uint64_t max_bytes) {
    const std::string_view s = as_string(v, p);
    const std::string expected =
        "an even-length hex string of at most " + std::to_string(max_bytes) + " bytes";
    if (s.size() % 2 != 0 || s.size() / 2 > max_bytes) fail(p, expected, v.describe());
    auto nibble = [&](char c) -> uint8_t {
        if (c >= '0' && c <= '9') return static_cast<uint8_t>(c - '0');
        if (c >= 'a' && c <= 'f') return static_cast<uint8_t>(c - 'a' + 10);
        if (c >= 'A' && c <= 'F') return static_cast<uint8_t>(c - 'A' + 10);
        fail(p, expected, v.describe());
    };
    std::vector<uint8_t> bytes(s.size() / 2);
    for (size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = static_cast<uint8_t>(nibble(s[2 * i]) << 4 | nibble(s[2 * i + 1]));
    return bytes;
}

void opt_u64(const Fields& f, std::string_view key, uint64_t max, uint64_t& out) {
    if (auto j = f.find(key)) out = as_u64(*j, f.path() / key, max);
}
void opt_u32(const Fields& f, std::string_view key, uint32_t& out) {
    if (auto j = f.find(key)) out = as_u32(*j, f.path() / key);
}
void opt_size(const Fields& f, std::string_view key, size_t& out) {
    if (auto j = f.find(key)) out = as_u64(*j, f.path() / key, Limits::max_list_items);
}
void opt_string(const Fields& f, std::string_view key, std::string& out) {
    if (auto j = f.find(key)) out = as_string(*j, f.path() / key);
}
void opt_double(const Fields& f, std::string_view key, bool non_negative, double& out) {
    if (auto j = f.find(key)) out = as_double(*j, f.path() / key, non_negative);
}
void opt_bool(const Fields& f, std::string_view key, bool& out) {
    if (auto j = f.find(key)) out = as_bool(*j, f.path() / key);
}
void opt_strings(const Fields& f, std::string_view key, uint64_t max, std::string_view what,
                 std::vector<std::string>& out) {
    opt_list(f, key, max, what, out,
             [](const JsonRef& j, const Path& p) { return std::string(as_string(j, p)); });
}

std::string describe_allocation(const AllocationInfo& a) {
    return "allocation " + std::to_string(a.id) + " '" + a.name + "' of " + std::to_string(a.size) +
           " bytes";
}

AllocationId read_allocation_ref(const JsonRef& v, const Path& p,
                                 const std::vector<AllocationInfo>& allocations) {
    const uint64_t id = as_u64(v, p, Limits::max_allocations);
    if (id >= allocations.size())
        fail(p,
             "the id of an existing allocation (the capture has " +
                 std::to_string(allocations.size()) + ")",
             std::to_string(id));
    return static_cast<AllocationId>(id);
}

ByteRange read_range(const JsonRef& v, const Path& p, const std::vector<AllocationInfo>& allocs) {
    Fields f(v, p, "a byte range {allocation, begin, end}");
    f.only({"allocation", "begin", "end"});
    ByteRange r;
    r.allocation =
        read_allocation_ref(f.need("allocation", "an allocation id"), p / "allocation", allocs);
    const AllocationInfo& a = allocs[r.allocation];
    r.end = as_u64(f.need("end", "the range's end"), p / "end", a.size,
                   "the end must lie inside " + describe_allocation(a));
    r.begin = as_u64(f.need("begin", "the range's begin"), p / "begin", r.end,
                     "the begin must not exceed the end");
    return r;
}

}  // namespace graphlens::capture_detail
