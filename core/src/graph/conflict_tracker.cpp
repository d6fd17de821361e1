#include "graphlens/conflict_tracker.h"

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
    auto push = [&](std::unordered_map<AllocationId, RangeList>& set, const ByteRange& r) {
        RangeList& list = set[r.allocation];
        if (list.empty()) touched_.push_back(&list);
        list.push_back(r);
    };
    for (const auto& r : reads)
        if (!r.empty()) push(reads_, r);
    for (const auto& w : writes)
        if (!w.empty()) push(writes_, w);
}

void ConflictTracker::reset() {
    // Keep the lists' capacity: groups are small and reset often.
    for (RangeList* list : touched_) list->clear();
    touched_.clear();
}

}  // namespace graphlens
