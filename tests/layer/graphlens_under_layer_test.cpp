// GraphLens itself under the layer: `graphlens-cli run` of a preset's decode step, recorded
// with `record`, against the native capture of the same step. The serial mode replays the
// captured dispatches in order with a barrier after each, so the recording must hold the same
// dispatches (labels, kernels by SPIR-V hash, workgroups) reading and writing the same bytes
// up to where GraphLens placed each allocation in its arenas.
#include <gtest/gtest.h>

#include <map>

#include "layer_test_support.h"

namespace graphlens {
namespace {

using namespace layer_test;

/// Native allocation → (recorded allocation, byte offset of the native allocation in it),
/// learned from the first range that names it and checked against every later one.
class AllocationMapping {
  public:
    bool map(const ByteRange& native, const ByteRange& recorded) {
        const int64_t delta = int64_t(recorded.begin) - int64_t(native.begin);
        auto [it, added] = map_.try_emplace(native.allocation, recorded.allocation, delta);
        return it->second == std::pair{recorded.allocation, delta} &&
               recorded.size() == native.size();
    }

  private:
    std::map<AllocationId, std::pair<AllocationId, int64_t>> map_;
};

std::vector<const Node*> dispatches(const ComputeGraph& g) {
    std::vector<const Node*> out;
    for (const auto& n : g.nodes)
        if (n.is_dispatch()) out.push_back(&n);
    return out;
}

TEST(GraphLensUnderTheLayer, RecordsWhatItsOwnCaptureHolds) {
    const std::string native_path = scratch_path(".native.json");
    const std::string cli = GRAPHLENS_CLI;
    const auto made = run("GRAPHLENS_DEVICE=llvmpipe " + cli +
                          " capture --preset qwen2.5-0.5b --ctx 16 -o " + native_path);
    ASSERT_EQ(made.exit_code, 0) << made.output;
    const auto r = record("", "env GRAPHLENS_DEVICE=llvmpipe GRAPHLENS_VALIDATION=0 " + cli +
                                  " run " + native_path + " --modes serial --repeat 1 --warmup 0");
    ASSERT_EQ(r.result.exit_code, 0) << r.result.output;
    const CaptureDocument native = load_capture(native_path);
    const CaptureDocument recorded = load_capture(r.capture_path);
    const auto a = dispatches(native.graph), b = dispatches(recorded.graph);
    ASSERT_EQ(a.size(), b.size());
    AllocationMapping mapping;
    for (size_t k = 0; k < a.size(); ++k) {
        const Node &n = *a[k], &m = *b[k];
        ASSERT_EQ(std::string(n.label), std::string(m.label)) << "dispatch " << k;
        EXPECT_EQ(native.graph.kernels[n.kernel].spirv_hash,
                  recorded.graph.kernels[m.kernel].spirv_hash)
            << n.label << ": " << native.graph.kernels[n.kernel].name;
        EXPECT_EQ(n.workgroups, m.workgroups) << n.label;
        ASSERT_TRUE(m.ranges_known) << n.label;
        ASSERT_EQ(n.reads.size(), m.reads.size()) << n.label;
        ASSERT_EQ(n.writes.size(), m.writes.size()) << n.label;
        for (size_t i = 0; i < n.reads.size(); ++i)
            EXPECT_TRUE(mapping.map(n.reads[i], m.reads[i])) << n.label << " read " << i;
        for (size_t i = 0; i < n.writes.size(); ++i)
            EXPECT_TRUE(mapping.map(n.writes[i], m.writes[i])) << n.label << " write " << i;
    }
    // Serial: a barrier after every dispatch; the last is the command buffer's own end
    // barrier (shader writes → later shader, transfer and host access).
    const auto& nodes = recorded.graph.nodes;
    ASSERT_EQ(nodes.size(), 2 * b.size());
    for (size_t i = 0; i < nodes.size(); ++i) EXPECT_EQ(nodes[i].is_barrier(), i % 2 == 1) << i;
}

}  // namespace
}  // namespace graphlens
