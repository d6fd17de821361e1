#pragma once
// HazardIndex: the RAW / WAR / WAW hazards between the dispatches of a graph, in graph order.
//
// Which hazards are listed (the same rule as Vulkan synchronization validation): for every
// access of dispatch L to a byte, the hazard with the LATEST conflicting accesses to that byte
// before L:
//   - L reads a byte:  RAW with the last writer of that byte;
//   - L writes a byte: WAR with every reader since the last write of that byte, or, when
//                      nobody read it since, WAW with the last writer.
// Every other conflicting pair (E, L) is implied: there is a chain of listed hazards from E to
// L, so an order that keeps every listed hazard in order with a barrier between its ends also
// keeps every conflicting pair so (tests/core/graph/hazard_index_test.cpp proves it against the
// quadratic brute force). This keeps the list linear in practice: a scratch buffer reused by
// 1000 layers gives hazards with the previous layer only, not with all 1000.
//
// Read-read never conflicts; zero-length ranges never conflict; barrier nodes are ignored.
// Fences (Node::is_fence()) contribute the ranges they state like any dispatch; their
// "conflicts with everything" ordering is not a byte hazard and is added by DependencyDag.
// Adjacent byte pieces of one (earlier, later, kind, allocation) are merged into one Hazard.
//
// Cost: one ordered interval map per allocation (runs of bytes with their last writer and
// readers since); O(a log s + t + h) for a accesses, s segments, t segments visited and h
// listed hazards. Tensor-shaped views visit a few segments each; heavily overlapping random
// sub-ranges visit many (see docs/passes.md, benchmark).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/hazard.h"

namespace graphlens {

namespace detail {
class GraphValidator;  // core/graph/src/graph_validator.h
}

class HazardIndex {
  public:
    HazardIndex() = default;
    /// Builds its lists in the memory an index destroyed earlier on this thread left behind
    /// (see ~HazardIndex), if any.
    explicit HazardIndex(const ComputeGraph& graph);
    /// The same index, and graph.validate()'s checks made in the same walk (for the pipeline,
    /// which needs both of the captured graph): `validator` sees every node in order.
    HazardIndex(const ComputeGraph& graph, detail::GraphValidator* validator);
    HazardIndex(const HazardIndex&) = default;
    HazardIndex(HazardIndex&&) noexcept = default;
    HazardIndex& operator=(const HazardIndex&) = default;
    HazardIndex& operator=(HazardIndex&&) noexcept = default;
    /// Keeps the lists' memory for the next index built on this thread, when it is larger than
    /// what the thread keeps already (one set of lists a thread): at 100k dispatches the
    /// hazard list alone is tens of MB, which fresh memory faults in page by page at every
    /// index.
    ~HazardIndex();

    /// Every listed hazard, sorted by (later, earlier, allocation, kind, begin).
    const std::vector<Hazard>& hazards() const { return hazards_; }
    size_t size() const { return hazards_.size(); }
    /// Number of nodes of the analysed graph (barriers included).
    size_t node_count() const { return into_begin_.empty() ? 0 : into_begin_.size() - 1; }

    /// The ends of every listed hazard: pairs()[k] is {hazards()[k].earlier, .later}.
    const std::vector<HazardPair>& pairs() const { return pairs_; }

    /// Hazards whose later end is `node` (what the node waits for).
    std::span<const Hazard> into(size_t node) const;
    /// The ends of into(node).
    std::span<const HazardPair> pairs_into(size_t node) const;
    /// Some of hazards(), by position, without copying them.
    class Selection {
      public:
        struct Iterator {
            const Hazard* all;
            const uint32_t* at;
            const Hazard& operator*() const { return all[*at]; }
            Iterator& operator++() {
                ++at;
                return *this;
            }
            bool operator!=(const Iterator& o) const { return at != o.at; }
        };
        Selection(const std::vector<Hazard>& all, std::span<const uint32_t> at)
            : all_(all.data()), at_(at) {}
        Iterator begin() const { return {all_, at_.data()}; }
        Iterator end() const { return {all_, at_.data() + at_.size()}; }
        size_t size() const { return at_.size(); }

      private:
        const Hazard* all_;
        std::span<const uint32_t> at_;
    };
    /// Hazards whose earlier end is `node` (who waits for the node), sorted by later; a view
    /// into hazards() (the fusion pass walks it for every candidate chain).
    Selection out_of(size_t node) const { return {hazards_, out_indices(node)}; }
    /// Cache hints for a walk that reads out_of() of the nodes ahead (the fusion pass; at 100k
    /// nodes the hazards are no longer in cache): the list of a node (prefetch_out_list), and
    /// a few steps later its first hazards (prefetch_out_hazards, which reads the list).
    void prefetch_out_list(size_t node) const;
    void prefetch_out_hazards(size_t node) const;
    /// Listed hazards between two nodes, in either order argument.
    std::vector<Hazard> between(size_t a, size_t b) const;
    /// True when the listed hazards contain a hazard between the two nodes.
    bool conflicts(size_t a, size_t b) const { return !between(a, b).empty(); }

  private:
    /// The out-lists (out_order_, out_begin_) from pairs_; `fill` is working memory.
    void build_out_lists(size_t n, std::vector<uint32_t>& fill);
    /// Positions in hazards() of out_of(node).
    std::span<const uint32_t> out_indices(size_t node) const;

    std::vector<Hazard> hazards_;
    std::vector<HazardPair> pairs_;    ///< the ends of hazards_, in the same order
    std::vector<size_t> into_begin_;   ///< [node] = first hazard with later == node; size n+1
    std::vector<uint32_t> out_order_;  ///< hazard indices sorted by (earlier, later)
    std::vector<size_t> out_begin_;    ///< [node] = first entry of out_order_; size n+1
};

/// The quadratic reference: every pair of dispatches (earlier < later) whose ranges conflict,
/// one Hazard per overlapping pair of ranges (not merged). For tests and tiny graphs only.
std::vector<Hazard> brute_force_hazards(const ComputeGraph& graph);

}  // namespace graphlens
