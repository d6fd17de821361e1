#pragma once
// The byte ranges of the current concurrency group (dispatches since the last barrier).
// A new dispatch conflicts with the group when it reads bytes the group writes (RAW), or
// writes bytes the group reads (WAR) or writes (WAW). Used at encode time
// (GraphSession::barrier_between, encode_with_barriers) and by the barrier planner, so both
// decide identically.
#include <span>
#include <unordered_map>
#include <vector>

#include "graphlens/graph/byte_range.h"

namespace graphlens {

class ConflictTracker {
  public:
    /// True when a dispatch with these ranges may not join the current group.
    bool conflicts(std::span<const ByteRange> reads, std::span<const ByteRange> writes) const;
    /// Adds a dispatch's ranges to the current group.
    void add(std::span<const ByteRange> reads, std::span<const ByteRange> writes);
    /// Starts a new group (a barrier was emitted). Visits only the allocations the group
    /// touched; the lists keep their capacity for the next groups.
    void reset();
    /// True when the current group holds no range.
    bool empty() const { return touched_reads_.empty() && touched_writes_.empty(); }

  private:
    using RangeList = std::vector<ByteRange>;
    static bool overlaps_any(const std::unordered_map<AllocationId, RangeList>& set,
                             const ByteRange& r);
    std::unordered_map<AllocationId, RangeList> reads_;
    std::unordered_map<AllocationId, RangeList> writes_;
    /// The allocations whose lists in reads_ / writes_ hold ranges of the current group.
    std::vector<AllocationId> touched_reads_, touched_writes_;
};

}  // namespace graphlens
