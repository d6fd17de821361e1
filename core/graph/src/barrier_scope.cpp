#include "graphlens/graph/barrier_scope.h"
#include "graphlens/graph/event_set_text.h"

#include <string>

namespace graphlens {

namespace {

std::string stage_names(uint8_t stages) {
    std::string s;
    auto add = [&](uint8_t bit, const char* name) {
        if (!(stages & bit)) return;
        if (!s.empty()) s += '|';
        s += name;
    };
    add(kStageCompute, "compute");
    add(kStageTransfer, "transfer");
    add(kStageHost, "host");
    return s.empty() ? "none" : s;
}

std::string access_name(uint8_t access) {
    switch (access) {
        case kAccessShaderRead:
            return "shader reads";
        case kAccessShaderWrite:
            return "shader writes";
        case kAccessTransferRead:
            return "transfer reads";
        case kAccessTransferWrite:
            return "transfer writes";
        case kAccessHostRead:
            return "host reads";
        case kAccessHostWrite:
            return "host writes";
        default:
            return "accesses";
    }
}

bool orders_execution(const MemoryDependency& d, HazardEnd earlier, HazardEnd later) {
    return (d.src_stages & earlier.stage) && (d.dst_stages & later.stage);
}

bool range_holds(const MemoryDependency& d, const ByteRange& bytes) {
    return !d.range || (d.range->allocation == bytes.allocation && d.range->begin <= bytes.begin &&
                        bytes.end <= d.range->end);
}

bool makes_visible(const MemoryDependency& d, HazardEnd earlier, HazardEnd later) {
    return (d.src_access & access_of(earlier.stage, true)) &&
           (d.dst_access & access_of(later.stage, later.writes));
}

// An event's first synchronization scope is the commands before its vkCmdSetEvent: a command
// recorded between the set and the wait is not in it, whatever its stage.
bool before_event_set(const MemoryDependency& d, HazardEnd earlier) {
    return !d.event_set_at || earlier.node < *d.event_set_at;
}

// Whether `d` covers the hazard, leaving aside where an event was set.
bool covers_wherever_set(const MemoryDependency& d, HazardEnd earlier, HazardEnd later,
                         const ByteRange& bytes) {
    if (!orders_execution(d, earlier, later)) return false;
    // A read before a write needs the read finished, nothing made visible.
    return !earlier.writes || (makes_visible(d, earlier, later) && range_holds(d, bytes));
}

}  // namespace

uint8_t access_of(uint8_t stage, bool writes) {
    switch (stage) {
        case kStageTransfer:
            return writes ? kAccessTransferWrite : kAccessTransferRead;
        case kStageHost:
            return writes ? kAccessHostWrite : kAccessHostRead;
        default:
            return writes ? kAccessShaderWrite : kAccessShaderRead;
    }
}

bool scope_covers(const BarrierScope& scope, HazardEnd earlier, HazardEnd later,
                  const ByteRange& bytes) {
    for (const auto& d : scope.dependencies)
        if (before_event_set(d, earlier) && covers_wherever_set(d, earlier, later, bytes))
            return true;
    return false;
}

// The closest miss is the one reported: a dependency that misses only because the earlier
// command follows the event's set says more than one with the wrong bytes, which says more
// than one with the wrong accesses, which says more than one with the wrong stages.
std::string scope_gap(const BarrierScope& scope, HazardEnd earlier, HazardEnd later,
                      const ByteRange& bytes, const AllocationNamer& allocation_name) {
    if (scope_covers(scope, earlier, later, bytes)) return {};
    if (scope.dependencies.empty()) return "it orders nothing (no dependency in its scope)";
    const auto name = [&](AllocationId a) {
        return allocation_name ? allocation_name(a) : "allocation " + std::to_string(a);
    };
    const auto span = [](uint64_t begin, uint64_t end) {
        return std::to_string(begin) + ".." + std::to_string(end);
    };
    std::string set_gap, stages_gap, access_gap, range_gap;
    for (const auto& d : scope.dependencies) {
        if (covers_wherever_set(d, earlier, later, bytes)) {
            set_gap = "node " + std::to_string(earlier.node) +
                      " is recorded after the vkCmdSetEvent its wait waits for (" +
                      event_set_text(*d.event_set_at) +
                      "): an event orders only the commands before its set";
        } else if (!orders_execution(d, earlier, later)) {
            stages_gap = "its stages order " + stage_names(d.src_stages) + " before " +
                         stage_names(d.dst_stages) + ", not " + stage_names(earlier.stage) +
                         " before " + stage_names(later.stage);
        } else if (!makes_visible(d, earlier, later)) {
            access_gap = "no memory dependency makes " +
                         access_name(access_of(earlier.stage, true)) + " visible to " +
                         access_name(access_of(later.stage, later.writes));
        } else {
            const bool same = d.range->allocation == bytes.allocation;
            range_gap =
                "its buffer barrier covers bytes " + span(d.range->begin, d.range->end) + " of " +
                name(d.range->allocation) + ", not " +
                (same ? span(bytes.begin, bytes.end)
                      : "bytes " + span(bytes.begin, bytes.end) + " of " + name(bytes.allocation));
        }
    }
    if (!set_gap.empty()) return set_gap;
    if (!range_gap.empty()) return range_gap;
    if (!access_gap.empty()) return access_gap;
    return stages_gap;
}

}  // namespace graphlens
