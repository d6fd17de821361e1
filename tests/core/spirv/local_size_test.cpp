// The local size: LocalSize, LocalSizeId (constants or specialization constants) or the
// WorkgroupSize built-in constant, with the pipeline's specialization data applied.
#include <gtest/gtest.h>

#include "graphlens/spirv/spirv_reflection.h"
#include "spirv/compiled_shaders.h"
#include "spirv/spirv_module_builder.h"

namespace graphlens::spirv {
namespace {

using Size = std::array<uint32_t, 3>;

SpecializationValue u32(uint32_t id, uint32_t value) {
    return {id, {uint8_t(value), uint8_t(value >> 8), uint8_t(value >> 16), uint8_t(value >> 24)}};
}

TEST(LocalSize, WorkgroupSizeBuiltinTakesSpecializationOrDefaults) {
    const auto words = test::compiled_shader("workgroup_size_builtin", "vulkan1.2");
    const ReflectedKernel defaults = reflect_compute_kernel(words, "main");
    EXPECT_EQ(defaults.local_size, (Size{1, 4, 1}));
    EXPECT_TRUE(defaults.local_size_specialized);
    const SpecializationValue values[] = {u32(0, 256), u32(2, 2)};
    EXPECT_EQ(reflect_compute_kernel(words, "main", values).local_size, (Size{256, 4, 2}));
}

TEST(LocalSize, LocalSizeIdOfSpecializationConstants) {
    // glslang's SPIR-V 1.6 output: LocalSizeId of spec constants (SpecId 0 and 2, default 1).
    const auto words = test::compiled_shader("workgroup_size_builtin", "vulkan1.3");
    const SpecializationValue values[] = {u32(0, 32)};
    const ReflectedKernel k = reflect_compute_kernel(words, "main", values);
    EXPECT_EQ(k.local_size[0], 32u);
    EXPECT_EQ(k.local_size[1], 4u);
    EXPECT_TRUE(k.local_size_specialized);
}

struct HandWritten {
    test::ModuleBuilder m;
    uint32_t main = 0;
    HandWritten() {
        main = m.begin_function(m.void_type);
        m.end_function();
        m.entry_point(main, "main", {});
    }
};

TEST(LocalSize, LocalSizeIdWithSpecConstantOpAndEveryDataWidth) {
    HandWritten h;
    auto& m = h.m;
    const uint32_t x = m.spec_constant(7, 16);
    const uint32_t twice_x =
        m.global(op::SpecConstantOp, m.uint_type, {op::IMul, x, m.constant(2)});
    const uint32_t y = m.spec_constant(8, 3);
    m.local_size_id(h.main, twice_x, y, m.constant(1));
    const auto words = m.words();
    EXPECT_EQ(reflect_compute_kernel(words, "main").local_size, (Size{32, 3, 1}));
    const SpecializationValue one_byte{7, {5}}, eight_bytes{8, {9, 0, 0, 0, 0, 0, 0, 0}};
    const SpecializationValue values[] = {one_byte, eight_bytes};
    const ReflectedKernel k = reflect_compute_kernel(words, "main", values);
    EXPECT_EQ(k.local_size, (Size{10, 9, 1}));
    EXPECT_TRUE(k.local_size_specialized);
}

TEST(LocalSize, PlainConstantsAreNotSpecialized) {
    HandWritten h;
    h.m.local_size_id(h.main, h.m.constant(8), h.m.constant(8), h.m.constant(1));
    const ReflectedKernel k = reflect_compute_kernel(h.m.words(), "main");
    EXPECT_EQ(k.local_size, (Size{8, 8, 1}));
    EXPECT_FALSE(k.local_size_specialized);
}

TEST(LocalSize, WorkgroupSizeBuiltinOverridesLocalSize) {
    HandWritten h;
    auto& m = h.m;
    m.local_size(h.main, 1, 1, 1);
    const uint32_t uvec3 = m.type(op::TypeVector, {m.uint_type, 3});
    const uint32_t size = m.global(op::SpecConstantComposite, uvec3,
                                   {m.spec_constant(0, 128), m.constant(1), m.constant(1)});
    m.decorate(size, decoration::BuiltIn, {kBuiltInWorkgroupSize});
    EXPECT_EQ(reflect_compute_kernel(m.words(), "main").local_size, (Size{128, 1, 1}));
}

TEST(LocalSize, UnevaluableOrBadSpecializationIsAClearError) {
    HandWritten h;
    auto& m = h.m;
    const uint32_t x = m.spec_constant(0, 16);
    const uint32_t quotient = m.global(op::SpecConstantOp, m.uint_type, {op::UDiv, x, m.zero});
    m.local_size_id(h.main, quotient, m.constant(1), m.constant(1));
    EXPECT_THROW(reflect_compute_kernel(m.words(), "main"), SpirvError);
    const SpecializationValue three_bytes{0, {1, 2, 3}};
    const SpecializationValue values[] = {three_bytes};
    EXPECT_THROW(reflect_compute_kernel(m.words(), "main", values), SpirvError);
}

}  // namespace
}  // namespace graphlens::spirv
