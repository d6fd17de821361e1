// One module, several entry points: each is reflected on its own, with the bindings its
// interface (SPIR-V 1.4+) or its call tree (before) uses.
#include <gtest/gtest.h>

#include "graphlens/spirv/spirv_reflection.h"
#include "spirv/spirv_module_builder.h"

namespace graphlens::spirv {
namespace {

// "produce" writes binding 0 and calls a helper that reads binding 2; "consume" reads
// binding 0 and writes binding 1. A vertex shader "main" is in the module too.
std::vector<uint32_t> two_kernels(uint32_t version) {
    test::ModuleBuilder m(version);
    const uint32_t b0 = m.storage_buffer(0, 0), b1 = m.storage_buffer(0, 1),
                   b2 = m.storage_buffer(0, 2);
    const uint32_t helper = m.begin_function(m.void_type);
    m.value(op::Load, m.uint_type, {m.element(b2)});
    m.end_function();
    const uint32_t produce = m.begin_function(m.void_type);
    m.code(op::Store, {m.element(b0), m.zero});
    m.value(op::FunctionCall, m.void_type, {helper});
    m.end_function();
    const uint32_t consume = m.begin_function(m.void_type);
    const uint32_t v = m.value(op::Load, m.uint_type, {m.element(b0)});
    m.code(op::Store, {m.element(b1), v});
    m.end_function();
    const bool lists_all = version >= 0x00010400;
    m.entry_point(produce, "produce",
                  lists_all ? std::vector<uint32_t>{b0, b2} : std::vector<uint32_t>{});
    m.entry_point(consume, "consume",
                  lists_all ? std::vector<uint32_t>{b0, b1} : std::vector<uint32_t>{});
    m.entry_point(consume, "main", {}, 0);  // Vertex
    m.local_size(produce, 64, 1, 1);
    m.local_size(consume, 128, 1, 1);
    return m.words();
}

class EntryPoints : public testing::TestWithParam<uint32_t> {};

TEST_P(EntryPoints, EachIsReflectedWithItsOwnBindings) {
    const auto words = two_kernels(GetParam());
    const ReflectedKernel produce = reflect_compute_kernel(words, "produce");
    EXPECT_EQ(produce.entry_point, "produce");
    EXPECT_EQ(produce.local_size[0], 64u);
    ASSERT_EQ(produce.bindings.size(), 2u);
    EXPECT_EQ(produce.bindings[0].binding, 0u);
    EXPECT_EQ(produce.bindings[0].access, BindingAccess::write);
    EXPECT_EQ(produce.bindings[1].binding, 2u);
    EXPECT_EQ(produce.bindings[1].access, BindingAccess::read) << "read in a called function";

    const ReflectedKernel consume = reflect_compute_kernel(words, "consume");
    EXPECT_EQ(consume.local_size[0], 128u);
    ASSERT_EQ(consume.bindings.size(), 2u);
    EXPECT_EQ(consume.bindings[0].access, BindingAccess::read);
    EXPECT_EQ(consume.bindings[1].binding, 1u);
    EXPECT_EQ(consume.bindings[1].access, BindingAccess::write);
}

TEST_P(EntryPoints, AnAbsentOrNonComputeEntryPointNamesThoseThere) {
    const auto words = two_kernels(GetParam());
    try {
        reflect_compute_kernel(words, "main");
        FAIL() << "a vertex entry point is no kernel";
    } catch (const SpirvError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("'main'"), std::string::npos) << what;
        EXPECT_NE(what.find("produce, consume, main (not GLCompute)"), std::string::npos) << what;
    }
}

INSTANTIATE_TEST_SUITE_P(SpirvVersions, EntryPoints, testing::Values(0x00010000u, 0x00010500u));

}  // namespace
}  // namespace graphlens::spirv
