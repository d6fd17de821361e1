// Specification of HazardIndex: which hazards are listed, and that they imply every
// conflicting pair the quadratic brute force finds.
#include "graphlens/graph/hazard_index.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <random>
#include <set>
#include <tuple>

#include "graph_test_support.h"
#include "graphlens/synthetic/synthetic_graphs.h"

namespace graphlens {
namespace {
using testing::R;
using testing::TinyGraph;

/// The rule of hazard_index.h applied byte by byte, for small graphs: for every byte a
/// dispatch reads, RAW with the byte's last writer; for every byte it writes, WAR with each
/// reader since the last write but the dispatch itself or, when there is none, WAW with the
/// last writer. Adjacent bytes of one (earlier, later, allocation, kind) make one Hazard, in
/// the order of hazards().
std::vector<Hazard> hazards_byte_by_byte(const ComputeGraph& g) {
    struct Byte {
        std::optional<size_t> writer;
        std::set<size_t> readers;  ///< since the last write
    };
    std::vector<std::vector<Byte>> bytes(g.allocations.size());  // up to the last range's end
    for (const Node& node : g.nodes)
        for (const auto* ranges : {&node.reads, &node.writes})
            for (const ByteRange& r : *ranges)
                if (bytes[r.allocation].size() < r.end) bytes[r.allocation].resize(r.end);
    std::vector<Hazard> out;
    for (size_t later = 0; later < g.nodes.size(); ++later) {
        const Node& node = g.nodes[later];
        if (!node.is_dispatch()) continue;
        std::map<std::tuple<size_t, AllocationId, HazardKind>, std::set<uint64_t>> found;
        for (const ByteRange& r : node.reads)
            for (uint64_t b = r.begin; b < r.end; ++b)
                if (const auto writer = bytes[r.allocation][b].writer)
                    found[{*writer, r.allocation, HazardKind::raw}].insert(b);
        for (const ByteRange& w : node.writes)
            for (uint64_t b = w.begin; b < w.end; ++b) {
                const Byte& byte = bytes[w.allocation][b];
                bool read_since = false;
                for (const size_t reader : byte.readers)
                    if (reader != later) {
                        found[{reader, w.allocation, HazardKind::war}].insert(b);
                        read_since = true;
                    }
                if (!read_since && byte.writer)
                    found[{*byte.writer, w.allocation, HazardKind::waw}].insert(b);
            }
        for (const auto& [key, at] : found) {
            const auto& [earlier, allocation, kind] = key;
            for (auto b = at.begin(); b != at.end();) {
                uint64_t end = *b + 1;
                auto next = std::next(b);
                for (; next != at.end() && *next == end; ++next) ++end;
                out.push_back({kind, earlier, later, R(allocation, *b, end)});
                b = next;
            }
        }
        for (const ByteRange& r : node.reads)
            for (uint64_t b = r.begin; b < r.end; ++b) bytes[r.allocation][b].readers.insert(later);
        for (const ByteRange& w : node.writes)
            for (uint64_t b = w.begin; b < w.end; ++b) bytes[w.allocation][b] = {later, {}};
    }
    return out;
}

/// One allocation of 16 KiB cut into more segments than the index keeps in a flat array: first
/// filled front to back (appends), then written and read at random places in the middle, which
/// makes the index move to its tree in the middle of a node's accesses.
ComputeGraph many_small_ranges_of_one_allocation(uint64_t seed) {
    TinyGraph t(2, 1 << 14);
    std::mt19937_64 rng(seed);
    auto unit = [&](uint64_t units) { return rng() % units * 16; };
    for (uint64_t at = 0; at < (1 << 14); at += (seed % 2 ? 32 : 16))
        t.dispatch("fill", {}, {R(0, at, at + 16)});
    for (size_t i = 0; i < 300; ++i) {
        const uint64_t r = unit(1000), w = unit(1000), w2 = unit(1000);
        std::vector<ByteRange> writes{R(0, w, w + 16 * (1 + seed % 3))};
        if (i % 3 == 0) writes.push_back(R(0, w2, w2 + 48));
        t.dispatch("mix", {R(0, r, r + 16 * (1 + i % 40)), R(1, 0, 16)}, writes);
        if (i % 50 == 0) t.barrier();
    }
    return t.graph;
}

TEST(HazardIndexTest, ListsRawWarWawWithTheOverlappingBytes) {
    TinyGraph t;
    const size_t w = t.dispatch("w", {}, {R(0, 0, 64)});
    const size_t r = t.dispatch("r", {R(0, 32, 96)}, {R(1, 0, 16)});
    const size_t w2 = t.dispatch("w2", {}, {R(0, 48, 56)});
    const HazardIndex h(t.graph);
    ASSERT_EQ(h.size(), 2u);
    EXPECT_EQ(h.hazards()[0], (Hazard{HazardKind::raw, w, r, R(0, 32, 64)}));
    // w2 overwrites bytes r read since w wrote them: WAR with the reader; the WAW with w is
    // implied through w -> r -> w2 and not listed.
    EXPECT_EQ(h.hazards()[1], (Hazard{HazardKind::war, r, w2, R(0, 48, 56)}));
    EXPECT_TRUE(h.between(w, w2).empty());
    EXPECT_EQ(h.between(w2, r).size(), 1u);
}

TEST(HazardIndexTest, WawWhenNobodyReadSinceTheLastWrite) {
    TinyGraph t;
    t.dispatch("a", {}, {R(0, 0, 16)});
    t.dispatch("b", {}, {R(0, 8, 24)});
    const HazardIndex h(t.graph);
    ASSERT_EQ(h.size(), 1u);
    EXPECT_EQ(h.hazards()[0], (Hazard{HazardKind::waw, 0, 1, R(0, 8, 16)}));
}

TEST(HazardIndexTest, ReadReadZeroLengthOffsetsAndOtherAllocationsNeverConflict) {
    TinyGraph t;
    t.dispatch("r1", {R(0, 0, 64)}, {});
    t.dispatch("r2", {R(0, 0, 64)}, {});
    t.dispatch("empty", {R(0, 10, 10)}, {R(0, 20, 20)});
    t.dispatch("disjoint", {}, {R(0, 64, 128)});
    t.dispatch("other_allocation", {}, {R(1, 0, 64)});
    EXPECT_EQ(HazardIndex(t.graph).size(), 0u);
}

TEST(HazardIndexTest, OnlyTheLatestWriterOfEachByteIsListed) {
    TinyGraph t;
    t.dispatch("w_all", {}, {R(0, 0, 32)});
    t.dispatch("w_half", {R(1, 0, 4)}, {R(0, 16, 32)});
    const size_t r = t.dispatch("r", {R(0, 0, 32)}, {});
    const HazardIndex h(t.graph);
    const auto in = h.into(r);
    ASSERT_EQ(in.size(), 2u);
    EXPECT_EQ(in[0], (Hazard{HazardKind::raw, 0, r, R(0, 0, 16)}));
    EXPECT_EQ(in[1], (Hazard{HazardKind::raw, 1, r, R(0, 16, 32)}));
}

TEST(HazardIndexTest, ReadWriteBindingLeavesTheBytesWrittenByItself) {
    TinyGraph t;
    t.dispatch("w", {}, {R(0, 0, 16)});
    t.dispatch("in_place", {R(0, 0, 16)}, {R(0, 0, 16)});
    t.dispatch("r", {R(0, 0, 16)}, {});
    const HazardIndex h(t.graph);
    // The in-place node reads and overwrites w's bytes: RAW and WAW with w; the reader after
    // it depends on it alone.
    const auto pair = h.between(0, 1);
    ASSERT_EQ(pair.size(), 2u);
    EXPECT_EQ(pair[0].kind, HazardKind::raw);
    EXPECT_EQ(pair[1].kind, HazardKind::waw);
    ASSERT_EQ(h.into(2).size(), 1u);
    EXPECT_EQ(h.into(2)[0], (Hazard{HazardKind::raw, 1, 2, R(0, 0, 16)}));
}

TEST(HazardIndexTest, HazardsKeepOffsetsBeyondFourGiB) {
    constexpr uint64_t GiB = uint64_t{1} << 30;
    TinyGraph t;
    const size_t w = t.dispatch("w", {}, {R(0, 5 * GiB, 6 * GiB)});
    const size_t r = t.dispatch("r", {R(0, 5 * GiB + 16, 7 * GiB)}, {});
    const HazardIndex h(t.graph);
    ASSERT_EQ(h.size(), 1u);
    EXPECT_EQ(h.hazards()[0], (Hazard{HazardKind::raw, w, r, R(0, 5 * GiB + 16, 6 * GiB)}));
    EXPECT_EQ(h.hazards()[0].overlap(), R(0, 5 * GiB + 16, 6 * GiB));
    EXPECT_EQ(h.hazards()[0].overlap().size(), GiB - 16);
}

TEST(HazardIndexTest, ReusedScratchGivesHazardsWithThePreviousLayerOnly) {
    TinyGraph t;
    const size_t layers = 1000;
    for (size_t l = 0; l < layers; ++l) {
        t.dispatch("produce", {R(1, 0, 16)}, {R(0, 0, 64)});
        t.dispatch("consume", {R(0, 0, 64)}, {R(1, 0, 16)});
    }
    const HazardIndex h(t.graph);
    // Per layer: RAW produce->consume, WAR consume->next produce, WAR produce->consume on
    // buf1, RAW consume->next produce on buf1: linear, not quadratic.
    EXPECT_LE(h.size(), 4 * layers);
    EXPECT_EQ(h.out_of(0).size(), 2u);
}

TEST(HazardIndexTest, QueriesIntoOutOfAndBetweenAgree) {
    const ComputeGraph g = random_graph({.seed = 7, .dispatches = 60, .allocations = 2});
    const HazardIndex h(g);
    size_t total_in = 0, total_out = 0;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        for (const Hazard& x : h.into(i)) EXPECT_EQ(x.later, i);
        for (const Hazard& x : h.out_of(i)) EXPECT_EQ(x.earlier, i);
        total_in += h.into(i).size();
        total_out += h.out_of(i).size();
    }
    EXPECT_EQ(total_in, h.size());
    EXPECT_EQ(total_out, h.size());
    for (const Hazard& x : h.hazards()) EXPECT_FALSE(h.between(x.later, x.earlier).empty());
}

// An index built in the lists an earlier index left behind on this thread (larger, or
// smaller, than it needs) is the same as one built before.
TEST(HazardIndexTest, AnIndexInTheListsOfAnEarlierOneIsTheSame) {
    const ComputeGraph g = random_graph({.seed = 11, .dispatches = 80, .allocations = 3});
    const HazardIndex first(g);
    const std::vector<Hazard> hazards = first.hazards();
    const std::vector<HazardPair> pairs = first.pairs();
    std::vector<std::vector<Hazard>> out(g.nodes.size());
    for (size_t i = 0; i < g.nodes.size(); ++i)
        for (const Hazard& x : first.out_of(i)) out[i].push_back(x);
    for (const size_t other : {2000u, 5u}) {
        {
            const HazardIndex earlier(
                random_graph({.seed = 3, .dispatches = other, .allocations = 4}));
        }
        const HazardIndex again(g);
        EXPECT_EQ(again.hazards(), hazards) << other;
        EXPECT_EQ(again.pairs(), pairs) << other;
        EXPECT_EQ(again.node_count(), g.nodes.size()) << other;
        for (size_t i = 0; i < g.nodes.size(); ++i) {
            std::vector<Hazard> o;
            for (const Hazard& x : again.out_of(i)) o.push_back(x);
            EXPECT_EQ(o, out[i]) << other << " node " << i;
            EXPECT_EQ(again.into(i).size(), first.into(i).size()) << other << " node " << i;
        }
    }
}

// The listed hazards are a subset of the brute-force conflicts, and their transitive closure
// contains every brute-force conflicting pair: the order/barrier constraints are equivalent.
TEST(HazardIndexProperty, ListedHazardsImplyExactlyTheBruteForcePairs) {
    for (uint64_t seed = 1; seed <= 2000; ++seed) {
        RandomGraphOptions o;
        o.seed = seed;
        o.dispatches = 4 + seed % 20;
        o.allocations = 1 + seed % 3;
        o.allocation_size = 128;
        o.barrier_probability = 0.1;
        const ComputeGraph g = random_graph(o);
        const HazardIndex h(g);
        const size_t n = g.nodes.size();
        std::vector<std::pair<size_t, size_t>> edges;
        for (const Hazard& x : h.hazards()) {
            ASSERT_LT(x.earlier, x.later);
            ASSERT_TRUE(testing::must_separate(g.nodes[x.earlier], g.nodes[x.later]))
                << "seed " << seed << ": listed hazard " << x.earlier << "->" << x.later
                << " is not a conflict";
            edges.emplace_back(x.earlier, x.later);
        }
        const auto reach = testing::reachability(n, edges);
        for (const Hazard& b : brute_force_hazards(g))
            ASSERT_TRUE(reach[b.earlier][b.later])
                << "seed " << seed << ": conflict " << b.earlier << "->" << b.later
                << " not implied by the listed hazards";
    }
}

// Same property as above, where the index moves an allocation to its tree.
TEST(HazardIndexProperty, ManySmallRangesOfOneAllocationImplyTheBruteForcePairs) {
    for (uint64_t seed = 1; seed <= 12; ++seed) {
        const ComputeGraph g = many_small_ranges_of_one_allocation(seed);
        const HazardIndex h(g);
        std::vector<std::pair<size_t, size_t>> edges;
        for (const Hazard& x : h.hazards()) {
            ASSERT_TRUE(testing::must_separate(g.nodes[x.earlier], g.nodes[x.later]))
                << "seed " << seed << ": listed hazard " << x.earlier << "->" << x.later
                << " is not a conflict";
            edges.emplace_back(x.earlier, x.later);
        }
        const auto reach = testing::reachability(g.nodes.size(), edges);
        for (const Hazard& b : brute_force_hazards(g))
            ASSERT_TRUE(reach[b.earlier][b.later])
                << "seed " << seed << ": conflict " << b.earlier << "->" << b.later
                << " not implied by the listed hazards";
    }
}

// Exactly the hazards of the rule, byte by byte: on random graphs (whose allocations the index
// keeps flat, with bytes never accessed before, between and after the accessed ones) and where
// it moves an allocation to its tree.
TEST(HazardIndexProperty, ListsExactlyTheRuleAppliedByteByByte) {
    for (uint64_t seed = 1; seed <= 2000; ++seed) {
        RandomGraphOptions o;
        o.seed = seed;
        o.dispatches = 4 + seed % 40;
        o.allocations = 1 + seed % 3;
        o.allocation_size = seed % 2 ? 128 : 512;
        o.barrier_probability = 0.1;
        o.fence_probability = seed % 5 == 0 ? 0.1 : 0.0;
        const ComputeGraph g = random_graph(o);
        ASSERT_EQ(HazardIndex(g).hazards(), hazards_byte_by_byte(g)) << "seed " << seed;
    }
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        const ComputeGraph g = many_small_ranges_of_one_allocation(seed);
        ASSERT_EQ(HazardIndex(g).hazards(), hazards_byte_by_byte(g)) << "seed " << seed;
    }
}

/// Dispatches over many small allocations, half of their ranges on the first four: many nodes
/// whose hazards on several allocations share an earlier node.
ComputeGraph many_allocations(uint64_t seed, size_t dispatches, size_t allocations) {
    TinyGraph t(allocations, 64);
    std::mt19937_64 rng(seed);
    auto range = [&] {
        const auto a = static_cast<AllocationId>(rng() % 2 ? rng() % 4 : rng() % allocations);
        const uint64_t begin = rng() % 4 * 16, end = begin + 16 * (1 + rng() % 3);
        return R(a, begin, std::min<uint64_t>(end, 64));
    };
    for (size_t i = 0; i < dispatches; ++i) {
        std::vector<ByteRange> reads, writes;
        for (uint64_t k = rng() % 4; k > 0; --k) reads.push_back(range());
        for (uint64_t k = 1 + rng() % 2; k > 0; --k) writes.push_back(range());
        if (rng() % 8 == 0) writes.push_back(reads.empty() ? range() : reads.front());
        t.dispatch("d", reads, writes);
        if (rng() % 10 == 0) t.barrier();
        if (rng() % 500 == 0) t.fence("f");
    }
    return t.graph;
}

// The index walks a graph of more than a few dozen allocations in windows of thousands of
// nodes, each allocation by allocation, and a graph of fewer node by node, each node's
// allocations one by one; either way it puts a node's hazards on several allocations back in
// order. The same rule on graphs of several windows, and on one walked node by node.
TEST(HazardIndexProperty, ListsExactlyTheRuleAppliedByteByByteAcrossWindows) {
    for (uint64_t seed = 1; seed <= 2; ++seed) {
        const ComputeGraph g = many_allocations(seed, 20000, seed == 1 ? 2100 : 20);
        ASSERT_EQ(HazardIndex(g).hazards(), hazards_byte_by_byte(g)) << "seed " << seed;
    }
    RandomGraphOptions o;
    o.seed = 3;
    o.dispatches = 20000;
    o.allocations = 600;
    o.allocation_size = 256;
    o.barrier_probability = 0.1;
    const ComputeGraph g = random_graph(o);
    ASSERT_EQ(HazardIndex(g).hazards(), hazards_byte_by_byte(g));
}

// At scale the index lists what the layers' own dependencies give, no more: a 100k-dispatch
// transformer has the hazards per layer of a 1k one (no pairs across distant layers). How long
// it takes is the benchmark's business (bench/cpu_passes.cpp, docs/benchmarks.md §4), not a
// unit test's.
TEST(HazardIndexScale, AHundredThousandDispatchTransformerHasTheHazardsPerLayerOfASmallOne) {
    auto hazards_per_layer = [](uint32_t layers) {
        TransformerGraphOptions o;
        o.layers = layers;
        const ComputeGraph g = transformer_graph(o);
        const HazardIndex h(g);
        EXPECT_GT(h.size(), g.dispatch_count());
        return double(h.size()) / layers;
    };
    const double small = hazards_per_layer(1000 / kTransformerDispatchesPerLayer);
    const double large = hazards_per_layer(100000 / kTransformerDispatchesPerLayer);
    EXPECT_NEAR(large, small, 0.05 * small);
}

}  // namespace
}  // namespace graphlens
