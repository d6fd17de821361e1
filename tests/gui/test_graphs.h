#pragma once
// Small hand-built graphs for the GUI tests: dispatches state their byte ranges directly, so
// each test reads as "this node reads these bytes, that one writes them".
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graphlens/graph/compute_graph.h"
#include "models/document.h"

namespace graphlens::gui::testing {

class GraphBuilder {
  public:
    GraphBuilder() {
        KernelInfo k;
        k.name = "k";
        graph_.add_kernel(k);
    }
    AllocationId alloc(std::string name, uint64_t size) {
        return graph_.add_allocation(std::move(name), size, AllocationUsage::activations);
    }
    GraphBuilder& dispatch(std::string label, OpKind op, std::initializer_list<ByteRange> reads,
                           std::initializer_list<ByteRange> writes) {
        Node n;
        n.label = std::move(label);
        n.op = op;
        n.reads = reads;
        n.writes = writes;
        graph_.add_dispatch(std::move(n));
        return *this;
    }
    GraphBuilder& barrier() {
        graph_.add_barrier();
        return *this;
    }
    /// A barrier recorded from a program: it orders only what `scope` covers.
    GraphBuilder& barrier(BarrierScope scope) {
        graph_.add_barrier(std::move(scope));
        return *this;
    }
    /// A copy / fill / update command: a node on a transfer pseudo-kernel.
    GraphBuilder& transfer(std::string label, std::initializer_list<ByteRange> reads,
                           std::initializer_list<ByteRange> writes) {
        KernelInfo k;
        k.name = "fill_buffer";
        k.stage = kStageTransfer;
        Node n;
        n.label = std::move(label);
        n.op = OpKind::copy;
        n.kernel = graph_.add_kernel(k);
        n.reads = reads;
        n.writes = writes;
        graph_.add_dispatch(std::move(n));
        return *this;
    }
    const ComputeGraph& graph() const { return graph_; }

  private:
    ComputeGraph graph_;
};

// One dispatch of a kernel that does two stages: every workgroup writes y (binding 2) from x
// (0 and 1), the last to arrive at the counter (8) reads y and writes out (3).
//   0 matvec: x[0, 256) w[0, 1024) → y[0, 64); then y → out[0, 64), counter[0, 4)
inline ComputeGraph stagedDispatch() {
    ComputeGraph g;
    const AllocationId x = g.add_allocation("x", 256, AllocationUsage::activations);
    const AllocationId w = g.add_allocation("w", 1024, AllocationUsage::weights);
    const AllocationId y = g.add_allocation("y", 64, AllocationUsage::activations);
    const AllocationId out = g.add_allocation("out", 64, AllocationUsage::activations);
    const AllocationId counter = g.add_allocation("counter", 4, AllocationUsage::scratch);
    KernelInfo k;
    k.name = "matvec_then_epilogue";
    using A = BindingAccess;
    k.bindings = {{0, A::read, "x"},
                  {1, A::read, "w"},
                  {2, A::read_write, "y"},
                  {3, A::write, "out"},
                  {8, A::read_write, "counter"}};
    k.stages = {{"rows of y", {{0, 0}, {0, 1}}, {{0, 2}}, StageOrder::first, {}, {}},
                {"epilogue", {{0, 2}}, {{0, 3}}, StageOrder::last_arrival, {0, 8}, {}}};
    Node n;
    n.label = "blk.0.ffn_down";
    n.kernel = g.add_kernel(k);
    auto view = [](AllocationId a, uint64_t size) {
        TensorView v;
        v.allocation = a;
        v.size = size;
        v.shape = {int64_t(size / 4), 1, 1, 1};
        return v;
    };
    n.bindings = {{0, view(x, 256)},
                  {1, view(w, 1024)},
                  {2, view(y, 64)},
                  {3, view(out, 64)},
                  {8, view(counter, 4)}};
    g.add_dispatch(std::move(n));
    return g;
}

inline Snapshot stage(std::string name, ComputeGraph graph) {
    Snapshot s;
    s.stage = std::move(name);
    s.graph = std::move(graph);
    return s;
}

inline DocumentPtr document(std::vector<Snapshot> stages) {
    return std::make_shared<const Document>(
        make_document(std::move(stages), "test", "hand-built test graph"));
}

// a and b are independent; c reads what a wrote; d reads what b wrote. The barrier before c
// is forced by a→c; the barrier before d is redundant (b→d is already ordered by the first).
//   0 a | 1 b | 2 barrier | 3 c | 4 barrier | 5 d
inline ComputeGraph twoChains() {
    GraphBuilder b;
    const auto x = b.alloc("x", 256), y = b.alloc("y", 256), z = b.alloc("z", 256);
    b.dispatch("a", OpKind::add, {}, {{x, 0, 128}});
    b.dispatch("b", OpKind::matmul, {}, {{y, 0, 128}});
    b.barrier();
    b.dispatch("c", OpKind::rms_norm, {{x, 0, 64}}, {{z, 0, 64}});
    b.barrier();
    b.dispatch("d", OpKind::silu, {{y, 0, 64}}, {{z, 128, 192}});
    return b.graph();
}

// A program recorded by the capture layer, with barriers of its own scopes:
//   0 fill (transfer) writes act         1 barrier: compute → compute only (fill → q races)
//   2 q reads act, writes out            3 buffer barrier over out bytes 0..512 only
//   4 k reads out (q → k races: its bytes 512..1024 are not covered)
//   5 full barrier (needed: it alone orders q → v on out)
//   6 v reads out, writes act            7 barrier compute → transfer (needed: v → download)
//   8 download (transfer) reads act      9 barrier, execution only (redundant)
//  10 w writes buf[1024, 2048)  11 x writes buf[0, 64)  12 y reads buf[0, 64): x → y races with
//   no barrier between
inline ComputeGraph recordedProgram() {
    GraphBuilder b;
    const auto act = b.alloc("act", 4096), out = b.alloc("out", 4096), buf = b.alloc("buf", 4096);
    const auto dependency = [](uint8_t src, uint8_t dst, uint8_t src_access, uint8_t dst_access,
                               std::optional<ByteRange> range = std::nullopt) {
        return MemoryDependency{src, dst, src_access, dst_access, range};
    };
    const auto scope = [](MemoryDependency d, std::string note = {}) {
        return BarrierScope{BarrierOrigin::pipeline_barrier, {d}, std::move(note)};
    };
    b.transfer("fill", {}, {{act, 0, 1024}});
    b.barrier(scope(dependency(kStageCompute, kStageCompute, kAccessShaderWrite, kAccessShaderRead),
                    "compute to compute"));
    b.dispatch("q", OpKind::matmul, {{act, 0, 1024}}, {{out, 0, 1024}});
    b.barrier(scope(dependency(kStageCompute, kStageCompute, kAccessShaderWrite, kAccessShaderRead,
                               ByteRange{out, 0, 512})));
    b.dispatch("k", OpKind::matmul, {{out, 0, 1024}}, {});
    b.barrier();
    b.dispatch("v", OpKind::matmul, {{out, 0, 1024}}, {{act, 0, 1024}});
    b.barrier(
        scope(dependency(kStageCompute, kStageTransfer, kAccessShaderWrite, kAccessTransferRead)));
    b.transfer("download", {{act, 0, 1024}}, {});
    b.barrier(scope(dependency(kStageCompute | kStageTransfer, kStageCompute, 0, 0)));
    b.dispatch("w", OpKind::add, {}, {{buf, 1024, 2048}});
    b.dispatch("x", OpKind::add, {}, {{buf, 0, 64}});
    b.dispatch("y", OpKind::rms_norm, {{buf, 0, 64}}, {});
    return b.graph();
}

}  // namespace graphlens::gui::testing
