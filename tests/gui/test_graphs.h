#pragma once
// Small hand-built graphs for the GUI tests: dispatches state their byte ranges directly, so
// each test reads as "this node reads these bytes, that one writes them".
#include <initializer_list>
#include <memory>
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
    const ComputeGraph& graph() const { return graph_; }

  private:
    ComputeGraph graph_;
};

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

}  // namespace graphlens::gui::testing
