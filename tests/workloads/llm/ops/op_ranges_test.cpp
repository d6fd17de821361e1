// What the graph learns of a recorded op comes from SPIR-V reflection of its kernel: reads
// are the readonly bindings, writes the writeonly ones, view offsets included.
#include <algorithm>

#include "graphlens/ops/ops.h"
#include "graphlens/vulkan/kernel_catalog.h"
#include "ops_test_support.h"

namespace graphlens::test {
namespace {

bool contains(const std::vector<ByteRange>& ranges, const TensorView& v) {
    return std::find(ranges.begin(), ranges.end(), v.range()) != ranges.end();
}

TEST_F(OpsTest, FlashAttnVecRecordsOneDispatchWithReflectedRanges) {
    const FlashAttnVecParams p = small_flash_attn_vec_params();
    auto q = input(random(32), {16, 2}, "q");
    // The caches are views at an offset into one allocation: ranges must keep the offset.
    const AllocationId kv = memory->allocate("kv", 2 * 8 * 16 * 4, AllocationUsage::kv_cache);
    const TensorView k = memory->view(kv, DType::f32, {16, 1, 8});
    const TensorView v = memory->view(kv, DType::f32, {16, 1, 8}, 8 * 16 * 4);
    auto tmp = tensor(DType::f32, {int64_t(flash_attn_vec_tmp_elements(p))}, "tmp");
    auto ctr = tensor(DType::u32, {int64_t(flash_attn_vec_counter_elements(p))}, "counters");
    auto out = tensor(DType::f32, {16, 2}, "out");
    auto s = executor->begin_recorded();
    ops::flash_attn_vec(s, q, k, v, out, tmp, ctr, p, "blk.0.attn");
    const ComputeGraph g = s.finish_recording();
    std::vector<const Node*> dispatches;
    for (const Node& n : g.nodes)
        if (n.is_dispatch()) dispatches.push_back(&n);
    ASSERT_EQ(dispatches.size(), 1u);
    const Node& attn = *dispatches[0];
    EXPECT_EQ(attn.op, OpKind::flash_attn_vec);
    EXPECT_EQ(attn.label, "blk.0.attn");
    // The partials and the counters are read back by the combining workgroup: read-write.
    for (const TensorView& t : {q, k, v, tmp, ctr}) EXPECT_TRUE(contains(attn.reads, t));
    EXPECT_EQ(attn.reads.size(), 5u);
    for (const TensorView& t : {tmp, out, ctr}) EXPECT_TRUE(contains(attn.writes, t));
    EXPECT_EQ(attn.writes.size(), 3u);
}

TEST(KernelLibrary, EveryOpKernelDeclaresEachBindingReadOnlyOrWriteOnly) {
    // A read_write binding would make the graph assume both; only flash_attn_vec's partials
    // and arrival counters are one (its last workgroup per head reads them back), and the
    // output and arrival counters of the gated mat-vecs that quantise it (_yq8: the last
    // workgroup of a block of 32 rows reads the block back) and of the mat-vecs that add the
    // residual and normalise (_anq8: the last workgroup reads the whole output back), and the
    // sampler's scratch (its last workgroup reads the other workgroups' bests back).
    const std::string_view families[] = {
        "rms_norm", "add_f",   "mul_f",      "multi_add", "scale",    "gelu",
        "silu",     "softcap", "softmax",    "rope",      "matvec",   "matmul",
        "topk",     "sdpa",    "flash_attn", "copy",      "get_rows", "greedy_next_token"};
    const auto& catalog = KernelCatalog::embedded();
    size_t checked = 0;
    for (const std::string& name : catalog.names()) {
        if (std::none_of(std::begin(families), std::end(families),
                         [&](std::string_view f) { return name.starts_with(f); }))
            continue;
        ++checked;
        const bool attn = name.starts_with("flash_attn_vec");
        const bool sampler = name == "greedy_next_token";
        const bool yq8 =
            name.find("_yq8") != std::string::npos || name.find("_anq8") != std::string::npos;
        for (const KernelBinding& b : catalog.get(name).bindings)
            EXPECT_EQ(b.access == BindingAccess::read_write,
                      (attn && (b.name == "Tmp" || b.name == "Counters")) ||
                          (yq8 && (b.name == "Y" || b.name == "Arrivals")) ||
                          (sampler && b.name == "Scratch"))
                << name << " binding " << b.binding;
    }
    EXPECT_GE(checked, std::size(families));
}

}  // namespace
}  // namespace graphlens::test
