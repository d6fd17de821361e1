// A decode step of a built-in preset shows its kernels' internal stages: the attention of the
// captured step, and the projections that take the residual add and the next norm once fused
// (_anq8), each with the bytes its arrival counter orders.
#include <gtest/gtest.h>

#include <string>

#include "graphlens/graph/fusion.h"
#include "graphlens/graph/internal_stages.h"
#include "graphlens/model/transformer_builder.h"
#include "graphlens/ops/fusion_recipes.h"
#include "graphlens/ops/kernel_stages.h"
#include "vulkan/gpu_fixture.h"

namespace graphlens {
namespace {

class KernelStagesInDecodeTest : public test::GpuTest {};

TEST_F(KernelStagesInDecodeTest, TheFusedLlamaDecodeStepHasNodesWithStages) {
    CaptureRequest r;
    r.config = model_preset("llama-3.2-1b").config;
    r.config.n_layer = 2;  // the preset's shapes; two layers are enough to see each kind
    r.phase = Phase::decode;
    r.kv_length = 64;
    const ComputeGraph captured = capture_transformer(*memory, r);
    const FusionResult fused = fuse(captured, ops::fusion_recipes());

    size_t attention = 0, add_norm = 0;
    for (const ComputeGraph* g : {&captured, &fused.graph})
        for (size_t i = 0; i < g->nodes.size(); ++i) {
            if (!has_internal_stages(*g, i)) continue;
            const KernelInfo& kernel = g->kernels[g->nodes[i].kernel];
            EXPECT_EQ(kernel.stages, ops::kernel_stages(kernel.name)) << kernel.name;
            const NodeInternalStages s = internal_stages(*g, i);
            ASSERT_EQ(s.stages.size(), 2u) << g->nodes[i].label;
            EXPECT_TRUE(s.stages[1].counter.has_value());
            // What the first stage writes, the second reads: at least that RAW is ordered.
            ASSERT_FALSE(s.hazards.empty()) << g->nodes[i].label;
            EXPECT_EQ(s.hazards[0].kind, HazardKind::raw);
            if (g == &captured && g->nodes[i].op == OpKind::flash_attn_vec) ++attention;
            if (g == &fused.graph && kernel.name.find("_anq8") != std::string::npos) ++add_norm;
        }
    EXPECT_EQ(attention, r.config.n_layer);
    // The attention output and the down projection of every layer.
    EXPECT_EQ(add_norm, 2u * r.config.n_layer);
}

}  // namespace
}  // namespace graphlens
