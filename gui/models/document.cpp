#include "models/document.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <tuple>

namespace graphlens::gui {

std::optional<size_t> StageAnalysis::find(const ComputeGraph& graph, NodeId id) const {
    if (auto it = index_of_id.find(id); it != index_of_id.end()) return it->second;
    // Absorbed by a fusion: the fused dispatch lists the id among its origins.
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node& n = graph.nodes[i];
        if (n.is_dispatch() && std::find(n.origin.begin(), n.origin.end(), id) != n.origin.end())
            return i;
    }
    return std::nullopt;
}

const BarrierExplanation* StageAnalysis::barrier_at(size_t node_index) const {
    auto it =
        std::lower_bound(barriers.begin(), barriers.end(), node_index,
                         [](const BarrierExplanation& b, size_t i) { return b.node_index < i; });
    return it != barriers.end() && it->node_index == node_index ? &*it : nullptr;
}

size_t StageAnalysis::redundant_barriers() const {
    return static_cast<size_t>(std::count_if(barriers.begin(), barriers.end(),
                                             [](const auto& b) { return b.redundant(); }));
}

namespace {

// Per allocation, the touched bytes as disjoint segments, each with its last writer and the
// readers since that write. A new access only conflicts with these, so hazards come out as
// the direct edges of the dependency DAG (a read depends on the last write of its bytes, not
// on every older one) at O(log n) per segment touched.
struct Segment {
    uint64_t end = 0;
    long writer = -1;
    std::vector<size_t> readers;
};
using SegmentMap = std::map<uint64_t, Segment>;

// Makes sure a segment boundary lies at `at` (splitting the segment that straddles it).
void split_at(SegmentMap& m, uint64_t at) {
    auto it = m.upper_bound(at);
    if (it == m.begin()) return;
    --it;
    if (it->first == at || it->second.end <= at) return;
    Segment right = it->second;
    it->second.end = at;
    m.emplace(at, std::move(right));
}

// Splits at both ends, fills gaps with empty segments; returns the first segment in range.
SegmentMap::iterator cover(SegmentMap& m, uint64_t begin, uint64_t end) {
    split_at(m, begin);
    split_at(m, end);
    uint64_t pos = begin;
    auto it = m.lower_bound(begin);
    while (pos < end) {
        if (it == m.end() || it->first > pos) {
            const uint64_t gap_end = it == m.end() ? end : std::min(end, it->first);
            it = m.emplace_hint(it, pos, Segment{gap_end, -1, {}});
        }
        pos = it->second.end;
        ++it;
    }
    return m.lower_bound(begin);
}

class HazardCollector {
  public:
    explicit HazardCollector(size_t later) : later_(later) {}
    void add(HazardKind kind, size_t earlier, AllocationId a, uint64_t begin, uint64_t end) {
        if (earlier == later_) return;
        for (Hazard& h : found_) {
            if (h.kind == kind && h.earlier == earlier && h.overlap.allocation == a) {
                h.overlap.begin = std::min(h.overlap.begin, begin);
                h.overlap.end = std::max(h.overlap.end, end);
                return;
            }
        }
        found_.push_back({kind, earlier, later_, {a, begin, end}});
    }
    std::vector<Hazard>& found() { return found_; }

  private:
    size_t later_;
    std::vector<Hazard> found_;
};

void collect_hazards(const ComputeGraph& graph, StageAnalysis& a) {
    std::vector<SegmentMap> segments(graph.allocations.size());
    auto map_of = [&](AllocationId id) -> SegmentMap& {
        if (id >= segments.size()) segments.resize(id + 1);
        return segments[id];
    };
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node& n = graph.nodes[i];
        if (!n.is_dispatch() || !n.ranges_known) continue;
        HazardCollector found(i);
        for (const ByteRange& r : n.reads) {
            if (r.empty()) continue;
            SegmentMap& m = map_of(r.allocation);
            for (auto it = cover(m, r.begin, r.end); it != m.end() && it->first < r.end; ++it)
                if (it->second.writer >= 0)
                    found.add(HazardKind::raw, static_cast<size_t>(it->second.writer), r.allocation,
                              it->first, it->second.end);
        }
        for (const ByteRange& w : n.writes) {
            if (w.empty()) continue;
            SegmentMap& m = map_of(w.allocation);
            for (auto it = cover(m, w.begin, w.end); it != m.end() && it->first < w.end; ++it) {
                if (it->second.writer >= 0)
                    found.add(HazardKind::waw, static_cast<size_t>(it->second.writer), w.allocation,
                              it->first, it->second.end);
                for (size_t reader : it->second.readers)
                    found.add(HazardKind::war, reader, w.allocation, it->first, it->second.end);
            }
        }
        // Update after collecting, so a read_write binding does not conflict with itself.
        for (const ByteRange& r : n.reads) {
            if (r.empty()) continue;
            SegmentMap& m = map_of(r.allocation);
            for (auto it = m.lower_bound(r.begin); it != m.end() && it->first < r.end; ++it)
                it->second.readers.push_back(i);
        }
        for (const ByteRange& w : n.writes) {
            if (w.empty()) continue;
            SegmentMap& m = map_of(w.allocation);
            for (auto it = m.lower_bound(w.begin); it != m.end() && it->first < w.end; ++it) {
                it->second.writer = static_cast<long>(i);
                it->second.readers.clear();
            }
        }
        auto& h = found.found();
        std::sort(h.begin(), h.end(), [](const Hazard& x, const Hazard& y) {
            return std::tie(x.earlier, x.kind, x.overlap.allocation) <
                   std::tie(y.earlier, y.kind, y.overlap.allocation);
        });
        std::move(h.begin(), h.end(), std::back_inserter(a.hazards));
    }
}

}  // namespace

StageAnalysis analyse_stage(const ComputeGraph& graph) {
    StageAnalysis a;
    const size_t n = graph.nodes.size();
    a.group.assign(n, -1);
    a.level.assign(n, -1);
    a.hazards_in.resize(n);
    a.hazards_out.resize(n);

    bool open = false;
    for (size_t i = 0; i < n; ++i) {
        const Node& node = graph.nodes[i];
        if (node.is_barrier()) {
            open = false;
            continue;
        }
        if (!open) a.group_nodes.emplace_back();
        open = true;
        a.group[i] = static_cast<int>(a.group_nodes.size()) - 1;
        a.group_nodes.back().push_back(i);
        a.index_of_id.emplace(node.id, i);
    }

    collect_hazards(graph, a);
    for (size_t h = 0; h < a.hazards.size(); ++h) {
        a.hazards_in[a.hazards[h].later].push_back(h);
        a.hazards_out[a.hazards[h].earlier].push_back(h);
    }

    // ASAP levels; a fence sits alone above everything before it and below everything after.
    int floor = 0, top = -1;
    for (size_t i = 0; i < n; ++i) {
        const Node& node = graph.nodes[i];
        if (!node.is_dispatch()) continue;
        int lv = floor;
        if (node.is_fence()) lv = top + 1;
        for (size_t h : a.hazards_in[i]) lv = std::max(lv, a.level[a.hazards[h].earlier] + 1);
        a.level[i] = lv;
        top = std::max(top, lv);
        if (node.is_fence()) floor = lv + 1;
    }
    a.level_count = top + 1;

    // Barriers: the first barrier after group g answers for the hazards from g into g + 1.
    int last_group = -1;
    bool after_barrier = false;
    std::vector<long> barrier_after_group(a.group_nodes.size(), -1);
    for (size_t i = 0; i < n; ++i) {
        if (graph.nodes[i].is_dispatch()) {
            last_group = a.group[i];
            after_barrier = false;
            continue;
        }
        BarrierExplanation b;
        b.node_index = i;
        b.group_before = last_group;
        b.duplicate = after_barrier;
        after_barrier = true;
        for (size_t j = i + 1; j < n; ++j)
            if (graph.nodes[j].is_dispatch()) {
                b.group_after = a.group[j];
                break;
            }
        if (b.group_before >= 0 && b.group_after >= 0 && !b.duplicate) {
            barrier_after_group[static_cast<size_t>(b.group_before)] =
                static_cast<long>(a.barriers.size());
            auto touches_fence = [&](int g) {
                const auto& members = a.group_nodes[static_cast<size_t>(g)];
                return std::any_of(members.begin(), members.end(),
                                   [&](size_t k) { return graph.nodes[k].is_fence(); });
            };
            b.fenced = touches_fence(b.group_before) || touches_fence(b.group_after);
        }
        a.barriers.push_back(std::move(b));
    }
    for (size_t h = 0; h < a.hazards.size(); ++h) {
        const int ge = a.group[a.hazards[h].earlier], gl = a.group[a.hazards[h].later];
        if (ge == gl) {
            a.unsynchronised.push_back(h);
        } else if (gl == ge + 1) {
            const long b = barrier_after_group[static_cast<size_t>(ge)];
            if (b >= 0) a.barriers[static_cast<size_t>(b)].forcing.push_back(h);
        }
    }
    return a;
}

Document make_document(std::vector<Snapshot> stages, std::string source, std::string title) {
    Document d;
    d.source = std::move(source);
    d.title = std::move(title);
    d.stages = std::move(stages);
    d.analyses.reserve(d.stages.size());
    for (const Snapshot& s : d.stages) d.analyses.push_back(analyse_stage(s.graph));
    return d;
}

}  // namespace graphlens::gui
