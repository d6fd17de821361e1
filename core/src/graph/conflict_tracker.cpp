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
    for (const auto& r : reads)
        if (!r.empty()) reads_[r.allocation].push_back(r);
    for (const auto& w : writes)
        if (!w.empty()) writes_[w.allocation].push_back(w);
}

void ConflictTracker::reset() {
    // Keep the buckets' capacity: groups are small and reset often.
    for (auto& [id, list] : reads_) list.clear();
    for (auto& [id, list] : writes_) list.clear();
}

}  // namespace graphlens
