// The library's declarations of its kernels' internal stages (graphlens/ops/kernel_stages.h)
// agree with the kernels' SPIR-V, and travel with the kernels into a graph: through the op's
// DispatchDesc and through the fusion table's builders.
#include "graphlens/ops/kernel_stages.h"

#include <fmt/format.h>

#include <algorithm>

#include "graphlens/graph/internal_stages.h"
#include "graphlens/graph/kernel_stage_check.h"
#include "graphlens/ops/ops.h"
#include "graphlens/vulkan/kernel_catalog.h"
#include "ops_test_support.h"

namespace graphlens::test {
namespace {

// Whether a module has an atomic instruction (OpAtomicLoad 227 … OpAtomicXor 242): a kernel
// whose workgroups count arrivals, the mark of a stage ordered inside the dispatch.
bool uses_atomics(std::span<const uint32_t> spirv) {
    for (size_t i = 5; i < spirv.size();) {  // after the header
        const uint32_t words = spirv[i] >> 16, opcode = spirv[i] & 0xFFFF;
        if (opcode >= 227 && opcode <= 242) return true;
        if (words == 0) break;
        i += words;
    }
    return false;
}

TEST(KernelStages, EveryDeclarationAgreesWithItsKernelsReflectedBindings) {
    const auto& catalog = KernelCatalog::embedded();
    size_t declared = 0;
    for (const std::string& name : catalog.names()) {
        std::vector<KernelStage> stages = ops::kernel_stages(name);
        if (stages.empty()) continue;
        KernelInfo k = catalog.get(name);
        k.stages = std::move(stages);
        const std::vector<std::string> problems = kernel_stage_problems(k);
        EXPECT_TRUE(problems.empty()) << fmt::format("{}", fmt::join(problems, "\n"));
        ++declared;
    }
    // 4 _anq8, 10 _yq8, 4 flash_attn_vec, greedy_next_token.
    EXPECT_GE(declared, 19u);
}

TEST(KernelStages, EveryKernelThatCountsArrivalsDeclaresItsStagesAndNoOtherDoes) {
    const auto& catalog = KernelCatalog::embedded();
    std::vector<std::string> undeclared, without_atomics;
    for (const std::string& name : catalog.names()) {
        const bool atomics = uses_atomics(catalog.spirv(name));
        const bool declared = !ops::kernel_stages(name).empty();
        if (atomics && !declared) undeclared.push_back(name);
        if (declared && !atomics) without_atomics.push_back(name);
    }
    EXPECT_TRUE(undeclared.empty())
        << "atomics but no declared stages: " << fmt::format("{}", fmt::join(undeclared, ", "));
    EXPECT_TRUE(without_atomics.empty()) << "declared stages but no arrival counter: "
                                         << fmt::format("{}", fmt::join(without_atomics, ", "));
}

TEST_F(OpsTest, FlashAttnVecEntersTheGraphWithItsStages) {
    const FlashAttnVecParams p = small_flash_attn_vec_params();
    auto q = tensor(DType::f32, {16, 2}, "q");
    auto k = tensor(DType::f32, {16, 1, 8}, "k");
    auto v = tensor(DType::f32, {16, 1, 8}, "v");
    auto tmp = tensor(DType::f32, {int64_t(flash_attn_vec_tmp_elements(p))}, "tmp");
    auto ctr = tensor(DType::u32, {int64_t(flash_attn_vec_counter_elements(p))}, "counters");
    auto out = tensor(DType::f32, {16, 2}, "out");
    auto s = executor->begin_recorded();
    ops::flash_attn_vec(s, q, k, v, out, tmp, ctr, p, "blk.0.attn");
    const ComputeGraph g = s.finish_recording();
    ASSERT_EQ(g.dispatch_count(), 1u);
    const size_t node = size_t(std::find_if(g.nodes.begin(), g.nodes.end(),
                                            [](const Node& n) { return n.is_dispatch(); }) -
                               g.nodes.begin());
    const KernelInfo& kernel = g.kernels[g.nodes[node].kernel];
    EXPECT_EQ(kernel.stages, ops::kernel_stages(kernel.name));
    const NodeInternalStages stages = internal_stages(g, node);
    ASSERT_EQ(stages.stages.size(), 2u);
    EXPECT_EQ(stages.stages[1].counter, ctr.range());
    // The combine reads the partials the splits wrote: the one hazard the counters order.
    EXPECT_EQ(stages.hazards, (std::vector<StageHazard>{{HazardKind::raw, 0, 1, tmp.range()}}));
}

}  // namespace
}  // namespace graphlens::test
