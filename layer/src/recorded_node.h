#pragma once
// The captured graph as the layer holds it while the range is open: one small record per node,
// what a dispatch binds, pushes and touches as the number of an interned payload, barriers'
// scopes interned too, labels and kernels by number (record_interning.h: a program records the
// same payloads and scopes at every step, so the memory a capture touches grows by little more
// than a record per node). GraphBuilder turns the records into the core graph's Nodes and
// BarrierScopes only when the capture is written: a Node with its shared payloads and a
// BarrierScope with its own vector take several heap blocks each, which recording would pay
// for on every dispatch.
#include <array>
#include <cstdint>
#include <span>

#include "graphlens/graph/barrier_scope.h"
#include "graphlens/graph/byte_range.h"
#include "graphlens/graph/compute_graph.h"
#include "layer/src/record_interning.h"

namespace graphlens::layer {

/// A binding a dispatch's kernel uses, resolved to bytes of an allocation.
struct RecordedView {
    uint32_t set = 0;
    uint32_t binding = 0;
    ByteRange bytes;
    friend bool operator==(const RecordedView&, const RecordedView&) = default;
};

/// What a dispatch or transfer binds, pushes and touches besides its kernel. Its arrays are
/// interned (InternedArrays), so two payloads are equal when their spans are the same.
struct RecordedPayload {
    std::span<const RecordedView> bindings;
    std::span<const uint8_t> push_constants;
    /// Stated directly where the bindings do not say them (descriptor arrays, transfers).
    std::span<const ByteRange> reads;
    std::span<const ByteRange> writes;
    friend bool operator==(const RecordedPayload& a, const RecordedPayload& b) {
        return same(a.bindings, b.bindings) && same(a.push_constants, b.push_constants) &&
               same(a.reads, b.reads) && same(a.writes, b.writes);
    }
    template <class T>
    static bool same(std::span<const T> a, std::span<const T> b) {
        return a.data() == b.data() && a.size() == b.size();
    }
};

/// A dispatch, transfer or barrier, in capture order.
struct RecordedNode {
    std::array<uint32_t, 3> workgroups{1, 1, 1};
    /// A dispatch's kernel; a barrier's number among GraphBuilder's interned barriers.
    uint32_t kernel = 0;
    uint32_t label = 0;    ///< into GraphBuilder's labels
    uint32_t payload = 0;  ///< into GraphBuilder's interned payloads
    NodeKind kind = NodeKind::dispatch;
    bool ranges_known = true;
    /// An indirect dispatch whose ranges are its bindings' and its arguments' (a read): the
    /// arguments are in GraphBuilder's list of indirect dispatches.
    bool reads_indirect_args = false;
};

/// A barrier's scope; its dependencies are interned, so two are equal when their spans are.
struct RecordedBarrier {
    BarrierOrigin origin = BarrierOrigin::pipeline_barrier;
    uint32_t note = 0;  ///< into GraphBuilder's barrier notes
    std::span<const MemoryDependency> dependencies;
    friend bool operator==(const RecordedBarrier& a, const RecordedBarrier& b) {
        return a.origin == b.origin && a.note == b.note &&
               RecordedPayload::same(a.dependencies, b.dependencies);
    }
};

template <>
struct ContentHashing<ByteRange> {
    static void add(ContentHash& h, const ByteRange& r) {
        h.add(r.allocation);
        h.add(r.begin);
        h.add(r.end);
    }
};

template <>
struct ContentHashing<RecordedView> {
    static void add(ContentHash& h, const RecordedView& v) {
        h.add(uint64_t{v.set} << 32 | v.binding);
        ContentHashing<ByteRange>::add(h, v.bytes);
    }
};

template <>
struct ContentHashing<MemoryDependency> {
    static void add(ContentHash& h, const MemoryDependency& d) {
        h.add(uint64_t{d.src_stages} | uint64_t{d.dst_stages} << 8 | uint64_t{d.src_access} << 16 |
              uint64_t{d.dst_access} << 24 | uint64_t{d.range.has_value()} << 32 |
              uint64_t{d.event_set_at.has_value()} << 33);
        if (d.range) ContentHashing<ByteRange>::add(h, *d.range);
        if (d.event_set_at) h.add(*d.event_set_at);
    }
};

template <>
struct ContentHashing<RecordedPayload> {
    static void add(ContentHash& h, const RecordedPayload& p) {
        h.add_span(p.bindings);
        h.add_span(p.push_constants);
        h.add_span(p.reads);
        h.add_span(p.writes);
    }
};

template <>
struct ContentHashing<RecordedBarrier> {
    static void add(ContentHash& h, const RecordedBarrier& b) {
        h.add(uint64_t{static_cast<uint8_t>(b.origin)} << 32 | b.note);
        h.add_span(b.dependencies);
    }
};

}  // namespace graphlens::layer
