#include "graphlens/graph/conflict_tracker.h"

namespace graphlens {

bool ConflictTracker::overlaps_any(const std::unordered_map<AllocationId, RangeList>& set,
                                   const ByteRange& r) {
    if (r.empty()) return false;
    const auto it = set.find(r.allocation);
    if (it == set.end()) return false;
    for (const auto& existing : it->second)
        if (existing.overlaps(r)) return true;
    return false;
}

bool ConflictTracker::conflicts(std::span<const ByteRange> reads,
                                std::span<const ByteRange> writes) const {
    for (const auto& r : reads)
        if (overlaps_any(writes_, r)) return true;  // RAW
    for (const auto& w : writes)
        if (overlaps_any(writes_, w) || overlaps_any(reads_, w)) return true;  // WAW, WAR
    return false;
}

void ConflictTracker::add(std::span<const ByteRange> reads, std::span<const ByteRange> writes) {
    auto push = [](std::unordered_map<AllocationId, RangeList>& set,
                   std::vector<AllocationId>& touched, const ByteRange& r) {
        RangeList& list = set[r.allocation];
        if (list.empty()) touched.push_back(r.allocation);
        list.push_back(r);
    };
    for (const auto& r : reads)
        if (!r.empty()) push(reads_, touched_reads_, r);
    for (const auto& w : writes)
        if (!w.empty()) push(writes_, touched_writes_, w);
}

void ConflictTracker::reset() {
    // Keep the lists' capacity: groups are small and reset often.
    for (AllocationId a : touched_reads_) reads_[a].clear();
    for (AllocationId a : touched_writes_) writes_[a].clear();
    touched_reads_.clear();
    touched_writes_.clear();
}

}  // namespace graphlens
