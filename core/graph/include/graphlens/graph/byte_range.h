#pragma once
// A half-open byte range [begin, end) of one allocation: the unit of every hazard check.
#include <cstdint>

namespace graphlens {

using AllocationId = uint32_t;

struct ByteRange {
    AllocationId allocation = 0;
    uint64_t begin = 0;
    uint64_t end = 0;  ///< exclusive

    uint64_t size() const { return end > begin ? end - begin : 0; }
    bool empty() const { return end <= begin; }
    /// Zero-length ranges never overlap anything.
    bool overlaps(const ByteRange& o) const {
        return allocation == o.allocation && !empty() && !o.empty() && begin < o.end &&
               o.begin < end;
    }
    /// The common bytes of two overlapping ranges (empty if they do not overlap).
    ByteRange intersect(const ByteRange& o) const {
        ByteRange r{allocation, begin > o.begin ? begin : o.begin, end < o.end ? end : o.end};
        if (!overlaps(o)) r.end = r.begin;
        return r;
    }
    friend bool operator==(const ByteRange&, const ByteRange&) = default;
};

}  // namespace graphlens
