// What the graph learns of a recorded op comes from SPIR-V reflection of its kernel: reads
// are the readonly bindings, writes the writeonly ones, view offsets included.
#include <algorithm>

#include "graphlens/kernel_catalog.h"
#include "ops_test_support.h"

namespace graphlens::test {
namespace {

bool contains(const std::vector<ByteRange>& ranges, const TensorView& v) {
    return std::find(ranges.begin(), ranges.end(), v.range()) != ranges.end();
}

TEST_F(OpsTest, FlashAttnVecRecordsSplitAndReduceWithReflectedRanges) {
    FlashAttnVecParams p;
    p.head_dim = 16;
    p.n_heads = 2;
    p.n_kv_heads = 1;
    p.kv_len = 5;
    p.split_len = 4;
    auto q = input(random(32), {16, 2}, "q");
    // The caches are views at an offset into one allocation: ranges must keep the offset.
    const AllocationId kv = memory->allocate("kv", 2 * 8 * 16 * 4, AllocationUsage::kv_cache);
    const TensorView k = memory->view(kv, DType::f32, {16, 1, 8});
    const TensorView v = memory->view(kv, DType::f32, {16, 1, 8}, 8 * 16 * 4);
    auto tmp = tensor(DType::f32, {int64_t(flash_attn_vec_tmp_elements(p))}, "tmp");
    auto out = tensor(DType::f32, {16, 2}, "out");
    auto s = executor->begin_recorded();
    s.flash_attn_vec(q, k, v, out, tmp, p, "blk.0.attn");
    const ComputeGraph g = s.finish_recording();
    std::vector<const Node*> dispatches;
    for (const Node& n : g.nodes)
        if (n.is_dispatch()) dispatches.push_back(&n);
    ASSERT_EQ(dispatches.size(), 2u);
    const Node& split = *dispatches[0];
    const Node& reduce = *dispatches[1];
    EXPECT_EQ(split.op, OpKind::flash_attn_vec);
    EXPECT_EQ(split.label, "blk.0.attn");
    EXPECT_TRUE(contains(split.reads, q) && contains(split.reads, k) && contains(split.reads, v));
    EXPECT_EQ(split.writes, std::vector<ByteRange>{tmp.range()});
    EXPECT_EQ(reduce.op, OpKind::flash_attn_reduce);
    EXPECT_EQ(reduce.label, "blk.0.attn.reduce");
    EXPECT_EQ(reduce.reads, std::vector<ByteRange>{tmp.range()});
    EXPECT_EQ(reduce.writes, std::vector<ByteRange>{out.range()});
}

TEST(KernelLibrary, EveryOpKernelDeclaresEachBindingReadOnlyOrWriteOnly) {
    // A read_write binding would make the graph assume both; none of the ops needs one.
    const std::string_view families[] = {
        "rms_norm", "add_f",   "mul_f",      "multi_add", "scale",   "gelu",
        "silu",     "softcap", "softmax",    "rope",      "matvec",  "matmul",
        "topk",     "sdpa",    "flash_attn", "copy",      "get_rows"};
    const auto& catalog = KernelCatalog::embedded();
    size_t checked = 0;
    for (const std::string& name : catalog.names()) {
        if (std::none_of(std::begin(families), std::end(families),
                         [&](std::string_view f) { return name.starts_with(f); }))
            continue;
        ++checked;
        for (const KernelBinding& b : catalog.get(name).bindings)
            EXPECT_NE(b.access, BindingAccess::read_write) << name << " binding " << b.binding;
    }
    EXPECT_GE(checked, std::size(families));
}

}  // namespace
}  // namespace graphlens::test
