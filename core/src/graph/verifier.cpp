#include "graphlens/verifier.h"

#include <fmt/core.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>

#include "graphlens/conflict_tracker.h"
#include "graphlens/hazard_index.h"
#include "verifier_detail.h"

namespace graphlens {
namespace {

constexpr size_t kNone = SIZE_MAX;
constexpr uint32_t kNone32 = UINT32_MAX;

std::string describe(const ComputeGraph& g, size_t index) {
    const Node& n = g.nodes[index];
    return fmt::format("node {} '{}' (id {})", index, n.label, n.id);
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
            return touches(e.writes, h.overlap) && touches(l.reads, h.overlap);
        case HazardKind::war:
            return touches(e.reads, h.overlap) && touches(l.writes, h.overlap);
        case HazardKind::waw:
            return touches(e.writes, h.overlap) && touches(l.writes, h.overlap);
    }
    return true;
}

class Checker {
  public:
    Checker(const ComputeGraph& original, const ComputeGraph& transformed,
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
        group_.assign(t_.nodes.size(), 0);
        fused_.assign(t_.nodes.size(), 0);
        uint32_t barriers = 0;
        for (size_t t = 0; t < t_.nodes.size(); ++t) {
            const Node& n = t_.nodes[t];
            group_[t] = barriers;
            if (n.is_barrier()) {
                has_fused_ = has_fused_ || n.origin.size() > 1;
                ++barriers;
                continue;
            }
            const NodeId self = n.id;
            const uint32_t own = self < original_index.size() ? original_index[self] : kNone32;
            std::span<const NodeId> ids;
            if (own != kNone32 && n.origin.shares_with(tables.plain_origin[own])) {
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
        for (const Hazard& h : hazards.hazards()) {
            if (full()) return;
            const uint32_t te = holder_[h.earlier];
            const uint32_t tl = holder_[h.later];
            if (te == kNone32 || tl == kNone32 || te == tl) continue;
            ++report_.hazards_checked;
            if (!fused_[te] && !fused_[tl]) {
                // The common case, without touching the nodes: order and group numbers only.
                if (te < tl && group_[te] < group_[tl]) continue;
            }
            const Node& ne = t_.nodes[te];
            const Node& nl = t_.nodes[tl];
            auto what = [&] {
                return fmt::format("{} hazard from original {} to {} on {}",
                                   hazard_kind_name(h.kind), describe(o_, h.earlier),
                                   describe(o_, h.later), describe_range(o_, h.overlap));
            };
            const bool fused = fused_[te] || fused_[tl];
            if (fused && !still_conflicts(ne, nl, h)) {
                // The fused node no longer touches these bytes (its internal intermediate);
                // harmless unless a reader outside lost the value it read.
                if (h.kind == HazardKind::raw && ne.origin.size() > 1 && nl.origin.size() <= 1 &&
                    touches(nl.reads, h.overlap))
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
            computed.emplace(t_);
            transformed_hazards = &*computed;
        }
        for (const Hazard& h : transformed_hazards->hazards()) {
            if (full()) return;
            if (group_[h.earlier] == group_[h.later])
                add(ViolationKind::missing_barrier,
                    fmt::format("{} hazard inside the transformed schedule between {} and {} on "
                                "{}: both in concurrency group {}",
                                hazard_kind_name(h.kind), describe(t_, h.earlier),
                                describe(t_, h.later), describe_range(t_, h.overlap),
                                group_[h.earlier]));
        }
    }

  private:
    /// Whether two dispatches of one concurrency group of the transformed schedule touch the
    /// same bytes with at least one write (ranges only: fences play no part, as in the index).
    bool conflict_inside_a_group() const {
        ConflictTracker group;
        size_t ranges = 0;
        for (const Node& n : t_.nodes) {
            if (n.is_barrier()) {
                // Keep the buckets of small groups; start afresh after large ones.
                if (ranges > 256)
                    group = ConflictTracker();
                else
                    group.reset();
                ranges = 0;
                continue;
            }
            if (group.conflicts(n.reads, n.writes)) return true;
            group.add(n.reads, n.writes);
            ranges += n.reads.size() + n.writes.size();
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
    const ComputeGraph& t_;
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

OriginalTables::OriginalTables(const ComputeGraph& original) {
    if (original.nodes.size() >= kNone32)
        throw std::length_error("verifier: a graph of 2^32 nodes or more");
    NodeId max_id = 0;
    for (const Node& n : original.nodes)
        if (n.is_dispatch()) max_id = std::max(max_id, n.id);
    index_of_id.assign(size_t{max_id} + 1, kNone32);
    plain_origin.resize(original.nodes.size());
    for (size_t i = 0; i < original.nodes.size(); ++i) {
        const Node& n = original.nodes[i];
        if (!n.is_dispatch()) continue;
        ++dispatches;
        index_of_id[n.id] = static_cast<uint32_t>(i);
        if (n.origin.size() == 1 && n.origin[0] == n.id) plain_origin[i] = n.origin;
        has_fence = has_fence || n.is_fence();
    }
}

VerificationReport verify_transformation(const ComputeGraph& original,
                                         const HazardIndex& original_hazards,
                                         const ComputeGraph& transformed,
                                         const HazardIndex* transformed_hazards,
                                         const VerifyOptions& options,
                                         const OriginalTables* original_tables) {
    if (transformed.nodes.size() >= kNone32)
        throw std::length_error("verifier: a graph of 2^32 nodes or more");
    std::optional<OriginalTables> own_tables;
    if (!original_tables) original_tables = &own_tables.emplace(original);
    VerificationReport report;
    Checker checker(original, transformed, options, report);
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
    return detail::verify_transformation(original, original_hazards, transformed, nullptr, options);
}

VerificationReport verify_transformation(const ComputeGraph& original,
                                         const ComputeGraph& transformed,
                                         const VerifyOptions& options) {
    return verify_transformation(original, HazardIndex(original), transformed, options);
}

}  // namespace graphlens
