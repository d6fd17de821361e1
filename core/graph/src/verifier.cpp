#include "graphlens/graph/verifier.h"

#include <fmt/core.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>

#include "graphlens/graph/conflict_tracker.h"
#include "graphlens/graph/hazard_index.h"
#include "stage_order.h"
#include "verifier_detail.h"

namespace graphlens {
namespace {

constexpr size_t kNone = SIZE_MAX;
constexpr uint32_t kNone32 = UINT32_MAX;

std::string describe(const Node& n, size_t index) {
    return fmt::format("node {} '{}' (id {})", index, n.label, n.id);
}

std::string describe(const ComputeGraph& g, size_t index) {
    return describe(g.nodes[index], index);
}

std::string describe(const detail::Schedule& s, size_t index) {
    return describe(s.node(index), index);
}

std::string describe_range(const ComputeGraph& g, const ByteRange& r) {
    const std::string name =
        r.allocation < g.allocations.size() ? g.allocations[r.allocation].name : "?";
    return fmt::format("allocation {} '{}' bytes [{}, {})", r.allocation, name, r.begin, r.end);
}

bool touches(const std::vector<ByteRange>& ranges, const ByteRange& bytes) {
    return std::any_of(ranges.begin(), ranges.end(),
                       [&](const ByteRange& r) { return r.overlaps(bytes); });
}

/// Whether the transformed ends still conflict on the hazard's bytes.
bool still_conflicts(const Node& e, const Node& l, const Hazard& h) {
    switch (h.kind) {
        case HazardKind::raw:
            return touches(e.writes, h.overlap()) && touches(l.reads, h.overlap());
        case HazardKind::war:
            return touches(e.reads, h.overlap()) && touches(l.writes, h.overlap());
        case HazardKind::waw:
            return touches(e.writes, h.overlap()) && touches(l.writes, h.overlap());
    }
    return true;
}

class Checker {
  public:
    Checker(const ComputeGraph& original, const detail::Schedule& transformed,
            const VerifyOptions& options, VerificationReport& report)
        : o_(original), t_(transformed), options_(options), report_(report) {}

    bool full() const { return report_.violations.size() >= options_.max_violations; }

    void add(ViolationKind kind, std::string message) {
        if (!full()) report_.violations.push_back({kind, std::move(message)});
    }

    /// 1. Conservation: maps every original dispatch to the transformed node holding it.
    void map_nodes(const detail::OriginalTables& tables) {
        const std::vector<uint32_t>& original_index = tables.index_of_id;
        holder_.assign(o_.nodes.size(), kNone32);
        group_.assign(t_.size(), 0);
        fused_.assign(t_.size(), 0);
        uint32_t barriers = 0;
        for (size_t t = 0; t < t_.size(); ++t) {
            const Node& n = t_.node(t);
            group_[t] = barriers;
            if (n.is_barrier()) {
                has_fused_ = has_fused_ || n.origin.size() > 1;
                ++barriers;
                continue;
            }
            const NodeId self = n.id;
            const uint32_t own = self < original_index.size() ? original_index[self] : kNone32;
            std::span<const NodeId> ids;
            if (own != kNone32 && tables.plain_origin[own] &&
                n.origin.payload_id() == tables.plain_origin[own]) {
                // A copy of the original dispatch whose origin is {id}: its origin is that
                // very list, so it is {self} without reading it.
                ids = std::span<const NodeId>(&self, 1);
            } else {
                fused_[t] = n.origin.size() > 1;
                has_fused_ = has_fused_ || fused_[t];
                ids = n.origin.empty() ? std::span<const NodeId>(&self, 1) : std::span(n.origin);
            }
            for (NodeId id : ids) {
                const uint32_t oi = id < original_index.size() ? original_index[id] : kNone32;
                if (oi == kNone32) {
                    add(ViolationKind::unknown,
                        fmt::format("{} of the transformed graph names original id {}, which the "
                                    "original graph does not have",
                                    describe(t_, t), id));
                } else if (holder_[oi] != kNone32) {
                    add(ViolationKind::duplicated,
                        fmt::format("{} survives twice: in transformed {} and {}", describe(o_, oi),
                                    describe(t_, holder_[oi]), describe(t_, t)));
                } else {
                    holder_[oi] = static_cast<uint32_t>(t);
                }
            }
        }
        // Every original dispatch held once (the common case) means none is lost.
        const size_t held = static_cast<size_t>(
            std::count_if(holder_.begin(), holder_.end(), [](uint32_t h) { return h != kNone32; }));
        if (held == tables.dispatches) return;
        for (size_t i = 0; i < o_.nodes.size(); ++i)
            if (holder_[i] == kNone32 && o_.nodes[i].is_dispatch())
                add(ViolationKind::lost,
                    fmt::format("{} is missing from the transformed graph", describe(o_, i)));
    }

    /// Check 1 for a schedule over the nodes of a graph whose map is known: the order (or
    /// the graph's own node order) and the map, without reading a node. Reports what map_nodes
    /// reports: the map is of a graph that conserves every original dispatch, so a violation
    /// can only come from the order (a node left out or taken twice).
    void map_nodes(const detail::BaseMap& map) {
        const size_t n = t_.size();
        const std::vector<uint32_t>* order = t_.order;
        holder_.assign(o_.nodes.size(), kNone32);
        group_.assign(n, 0);
        fused_.assign(n, 0);
        has_fused_ = false;
        // position_of[base node] = its position in the schedule
        std::vector<uint32_t> position_of;
        if (order) position_of.assign(map.kind.size(), kNone32);
        bool twice = false;
        uint32_t barriers = 0;
        for (size_t t = 0; t < n; ++t) {
            group_[t] = barriers;
            const uint32_t b = order ? (*order)[t] : static_cast<uint32_t>(t);
            if (b == StageGraph::kBarrier || map.kind[b] == detail::BaseMap::barrier) {
                ++barriers;
                continue;
            }
            fused_[t] = map.kind[b] == detail::BaseMap::fused;
            has_fused_ = has_fused_ || fused_[t];
            if (!order) continue;
            if (position_of[b] != kNone32)
                twice = true;
            else
                position_of[b] = static_cast<uint32_t>(t);
        }
        size_t held = 0;
        for (size_t oi = 0; oi < holder_.size(); ++oi) {
            const uint32_t b = map.holder[oi];
            if (b == kNone32) continue;
            holder_[oi] = order ? position_of[b] : b;
            held += holder_[oi] != kNone32;
        }
        if (twice) {
            // A node taken twice: each original dispatch it stands for survives twice.
            for (size_t t = 0; t < n && !full(); ++t) {
                const uint32_t b = (*order)[t];
                if (b == StageGraph::kBarrier || position_of[b] == t) continue;
                for (size_t oi = 0; oi < holder_.size(); ++oi)
                    if (map.holder[oi] == b)
                        add(ViolationKind::duplicated,
                            fmt::format("{} survives twice: in transformed {} and {}",
                                        describe(o_, oi), describe(t_, position_of[b]),
                                        describe(t_, t)));
            }
        }
        // A barrier of the graph that names several ids counts as map_nodes() counts it.
        if (!order) has_fused_ = map.has_fused;
        if (held == map_held(map)) return;
        for (size_t i = 0; i < o_.nodes.size(); ++i)
            if (holder_[i] == kNone32 && map.holder[i] != kNone32)
                add(ViolationKind::lost,
                    fmt::format("{} is missing from the transformed graph", describe(o_, i)));
    }

    /// The tables of map_nodes() as the map of the transformed graph (its own node order).
    detail::BaseMap base_map() const {
        detail::BaseMap map;
        map.holder = holder_;
        map.kind.resize(t_.size());
        for (size_t t = 0; t < t_.size(); ++t)
            map.kind[t] = t_.node(t).is_barrier() ? detail::BaseMap::barrier
                          : fused_[t]             ? detail::BaseMap::fused
                                                  : detail::BaseMap::plain;
        map.has_fused = has_fused_;
        return map;
    }

    /// Whether a transformed node stands for several original dispatches (seen by map_nodes).
    bool has_fused() const { return has_fused_; }

    /// Order plus a barrier between two transformed nodes; `what` says why they must be.
    void require_before(size_t te, size_t tl, const std::function<std::string()>& what) {
        if (te > tl) {
            add(ViolationKind::order, fmt::format("{}: order swapped, transformed {} now runs "
                                                  "after {}",
                                                  what(), describe(t_, te), describe(t_, tl)));
        } else if (group_[te] == group_[tl]) {
            add(ViolationKind::missing_barrier,
                fmt::format("{}: no barrier between transformed {} and {} (both in concurrency "
                            "group {})",
                            what(), describe(t_, te), describe(t_, tl), group_[te]));
        }
    }

    /// 2. Every hazard of the original keeps its order with a barrier between.
    void check_hazards(const HazardIndex& hazards) {
        // The ends first (8 bytes a hazard); the whole hazard only where it is needed.
        const std::vector<HazardPair>& pairs = hazards.pairs();
        // The common case in one table: [original node] = the concurrency group of the
        // transformed node holding it, when that node stands for it alone (kNone32 otherwise).
        // Groups grow with the position, so a hazard whose earlier end lies in an earlier
        // group keeps its order and has a barrier between: two reads a hazard, not six.
        std::vector<uint32_t> plain_group(holder_.size(), kNone32);
        for (size_t oi = 0; oi < holder_.size(); ++oi)
            if (holder_[oi] != kNone32 && !fused_[holder_[oi]])
                plain_group[oi] = group_[holder_[oi]];
        for (size_t k = 0; k < pairs.size(); ++k) {
            if (full()) return;
            const uint32_t ge = plain_group[pairs[k].earlier];
            const uint32_t gl = plain_group[pairs[k].later];
            if (ge < gl && gl != kNone32) {  // in different nodes, neither fused: as below
                ++report_.hazards_checked;
                continue;
            }
            const uint32_t te = holder_[pairs[k].earlier];
            const uint32_t tl = holder_[pairs[k].later];
            if (te == kNone32 || tl == kNone32 || te == tl) continue;
            ++report_.hazards_checked;
            if (!fused_[te] && !fused_[tl]) {
                // The common case, without touching the nodes: order and group numbers only.
                if (te < tl && group_[te] < group_[tl]) continue;
            }
            const Hazard& h = hazards.hazards()[k];
            const Node& ne = t_.node(te);
            const Node& nl = t_.node(tl);
            auto what = [&] {
                return fmt::format("{} hazard from original {} to {} on {}",
                                   hazard_kind_name(h.kind), describe(o_, h.earlier),
                                   describe(o_, h.later), describe_range(o_, h.overlap()));
            };
            const bool fused = fused_[te] || fused_[tl];
            if (fused && !still_conflicts(ne, nl, h)) {
                // The fused node no longer touches these bytes (its internal intermediate);
                // harmless unless a reader outside lost the value it read.
                if (h.kind == HazardKind::raw && ne.origin.size() > 1 && nl.origin.size() <= 1 &&
                    touches(nl.reads, h.overlap()))
                    add(ViolationKind::lost_value,
                        fmt::format("{}: fused {} no longer writes these bytes, which {} reads",
                                    what(), describe(t_, te), describe(t_, tl)));
                continue;
            }
            require_before(te, tl, what);
        }
    }

    /// 3. Fences: every dispatch of a fenced segment stays between the same fences.
    void check_fences(const detail::OriginalTables& tables) {
        if (!tables.has_fence) return;  // nothing below would find a fence
        size_t last_fence = kNone;
        std::vector<size_t> segment;
        for (size_t i = 0; i < o_.nodes.size() && !full(); ++i) {
            const Node& n = o_.nodes[i];
            if (!n.is_dispatch()) continue;
            if (last_fence != kNone) check_fence_pair(last_fence, i);
            if (n.is_fence()) {
                for (size_t d : segment) check_fence_pair(d, i);
                segment.clear();
                last_fence = i;
            } else {
                segment.push_back(i);
            }
        }
    }

    /// 4. The transformed schedule is valid in its own order (new ranges of fused nodes).
    void check_self_hazards(const HazardIndex* transformed_hazards) {
        std::optional<HazardIndex> computed;
        if (!transformed_hazards) {
            // Every hazard of the index is a conflicting pair; with no conflict inside any
            // group there is nothing to report, and one sweep is far cheaper than the index.
            if (!conflict_inside_a_group()) return;
            if (t_.order)
                computed.emplace(detail::graph_of_order(t_.graph, *t_.order));
            else
                computed.emplace(t_.graph);
            transformed_hazards = &*computed;
        }
        const std::vector<HazardPair>& pairs = transformed_hazards->pairs();
        for (size_t k = 0; k < pairs.size(); ++k) {
            if (full()) return;
            if (group_[pairs[k].earlier] == group_[pairs[k].later]) {
                const Hazard& h = transformed_hazards->hazards()[k];
                add(ViolationKind::missing_barrier,
                    fmt::format("{} hazard inside the transformed schedule between {} and {} on "
                                "{}: both in concurrency group {}",
                                hazard_kind_name(h.kind), describe(t_, h.earlier),
                                describe(t_, h.later), describe_range(t_.graph, h.overlap()),
                                group_[h.earlier]));
            }
        }
    }

  private:
    static size_t map_held(const detail::BaseMap& map) {
        return static_cast<size_t>(std::count_if(map.holder.begin(), map.holder.end(),
                                                 [](uint32_t h) { return h != kNone32; }));
    }

    /// Whether two dispatches of one concurrency group of the transformed schedule touch the
    /// same bytes with at least one write (ranges only: fences play no part, as in the index).
    bool conflict_inside_a_group() const {
        ConflictTracker group;
        for (size_t t = 0; t < t_.size(); ++t) {
            const Node& n = t_.node(t);
            if (n.is_barrier()) {
                group.reset();
                continue;
            }
            if (group.conflicts(n.reads, n.writes)) return true;
            group.add(n.reads, n.writes);
        }
        return false;
    }

    void check_fence_pair(size_t oe, size_t ol) {
        const uint32_t te = holder_[oe];
        const uint32_t tl = holder_[ol];
        if (te == kNone32 || tl == kNone32 || te == tl) return;
        const size_t before = report_.violations.size();
        require_before(te, tl, [&] {
            return fmt::format("fence order between original {} and {}", describe(o_, oe),
                               describe(o_, ol));
        });
        for (size_t k = before; k < report_.violations.size(); ++k)
            report_.violations[k].kind = ViolationKind::fence;
    }

    const ComputeGraph& o_;
    const detail::Schedule& t_;
    const VerifyOptions& options_;
    VerificationReport& report_;
    // 32-bit tables: node indices and group numbers of a graph fit, and the hazard loop reads
    // them at random.
    std::vector<uint32_t> holder_;  ///< original node index -> transformed node index
    std::vector<uint32_t> group_;   ///< transformed node index -> concurrency group
    std::vector<char> fused_;       ///< transformed node index -> stands for several
    bool has_fused_ = false;
};

}  // namespace

std::string VerificationReport::summary() const {
    if (ok()) return fmt::format("ok ({} hazards checked)", hazards_checked);
    std::string s = fmt::format("{} violation(s):", violations.size());
    for (const auto& v : violations) s += "\n  " + v.message;
    return s;
}

namespace detail {

const Node& Schedule::node(size_t t) const {
    if (!order) return graph.nodes[t];
    static const Node barrier = Node::barrier();
    const uint32_t i = (*order)[t];
    return i == StageGraph::kBarrier ? barrier : graph.nodes[i];
}

OriginalTables::OriginalTables(const ComputeGraph& original) {
    if (original.nodes.size() >= kNone32)
        throw std::length_error("verifier: a graph of 2^32 nodes or more");
    // index_of_id grows with the ids met (one walk over the nodes, not two).
    index_of_id.assign(original.nodes.size(), kNone32);
    plain_origin.assign(original.nodes.size(), nullptr);
    BaseMap own;
    own.holder.assign(original.nodes.size(), kNone32);
    own.kind.assign(original.nodes.size(), BaseMap::plain);
    bool all_plain = true;
    for (size_t i = 0; i < original.nodes.size(); ++i) {
        if (i + kPrefetchAheadShortWork < original.nodes.size())
            original.nodes[i + kPrefetchAheadShortWork].origin.prefetch();
        if (i + kPrefetchAheadShortWork / 2 < original.nodes.size())
            original.nodes[i + kPrefetchAheadShortWork / 2].origin.prefetch_items();
        const Node& n = original.nodes[i];
        if (!n.is_dispatch()) {
            own.kind[i] = BaseMap::barrier;
            own.has_fused = own.has_fused || n.origin.size() > 1;  // as map_nodes() counts it
            continue;
        }
        ++dispatches;
        if (n.id >= index_of_id.size())
            index_of_id.resize(std::max<size_t>(size_t{n.id} + 1, 2 * index_of_id.size()), kNone32);
        all_plain = all_plain && index_of_id[n.id] == kNone32;  // ids unique so far
        index_of_id[n.id] = static_cast<uint32_t>(i);
        own.holder[i] = static_cast<uint32_t>(i);
        if (n.origin.size() == 1 && n.origin[0] == n.id)
            plain_origin[i] = n.origin.payload_id();
        else
            all_plain = false;
        has_fence = has_fence || n.is_fence();
    }
    // Each dispatch stands for itself alone exactly when its id is unique and its origin is
    // {its id}: then map_nodes() maps every node to itself (and so would a copy's nodes).
    if (all_plain) identity = std::move(own);
}

std::optional<BaseMap> map_base(const ComputeGraph& original, const ComputeGraph& base,
                                const OriginalTables& tables) {
    if (base.nodes.size() >= kNone32)
        throw std::length_error("verifier: a graph of 2^32 nodes or more");
    VerificationReport report;
    const VerifyOptions options{.max_violations = 1};
    const Schedule schedule{base};
    Checker checker(original, schedule, options, report);
    checker.map_nodes(tables);
    if (!report.ok()) return std::nullopt;
    return checker.base_map();
}

VerificationReport verify_transformation(
    const ComputeGraph& original, const HazardIndex& original_hazards, const Schedule& transformed,
    const HazardIndex* transformed_hazards, const VerifyOptions& options,
    const OriginalTables* original_tables, const BaseMap* base_map) {
    if (transformed.size() >= kNone32)
        throw std::length_error("verifier: a graph of 2^32 nodes or more");
    std::optional<OriginalTables> own_tables;
    if (!original_tables) original_tables = &own_tables.emplace(original);
    VerificationReport report;
    Checker checker(original, transformed, options, report);
    if (base_map)
        checker.map_nodes(*base_map);
    else
        checker.map_nodes(*original_tables);
    checker.check_hazards(original_hazards);
    checker.check_fences(*original_tables);
    // Without fused nodes the transformed dispatches have the original ranges, and every
    // conflicting pair of its order is one of the original's: check 2 already covers it.
    if (checker.has_fused()) checker.check_self_hazards(transformed_hazards);
    return report;
}

}  // namespace detail

VerificationReport verify_transformation(const ComputeGraph& original,
                                         const HazardIndex& original_hazards,
                                         const ComputeGraph& transformed,
                                         const VerifyOptions& options) {
    return detail::verify_transformation(original, original_hazards, detail::Schedule{transformed},
                                         nullptr, options);
}

VerificationReport verify_transformation(const ComputeGraph& original,
                                         const ComputeGraph& transformed,
                                         const VerifyOptions& options) {
    return verify_transformation(original, HazardIndex(original), transformed, options);
}

}  // namespace graphlens
