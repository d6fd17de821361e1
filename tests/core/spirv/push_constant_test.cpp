// The push-constant block's size: max(Offset + size) of its members, nested structs, arrays
// (ArrayStride) and matrices (MatrixStride) included.
#include <gtest/gtest.h>

#include "graphlens/spirv/spirv_reflection.h"
#include "spirv/compiled_shaders.h"
#include "spirv/spirv_module_builder.h"

namespace graphlens::spirv {
namespace {

TEST(PushConstants, StructWithVec3FloatArrayAndMatrix) {
    for (const char* env : {"vulkan1.0", "vulkan1.2"}) {
        const ReflectedKernel k =
            reflect_compute_kernel(test::compiled_shader("push_constants", env), "main");
        EXPECT_EQ(k.push_constant_size, 16u + 16u + 64u) << env;
        ASSERT_EQ(k.bindings.size(), 1u);
        EXPECT_EQ(k.bindings[0].access, BindingAccess::write);
    }
}

TEST(PushConstants, ABufferReferenceIsEightBytes) {
    const ReflectedKernel k =
        reflect_compute_kernel(test::compiled_shader("buffer_reference"), "main");
    EXPECT_EQ(k.push_constant_size, 12u);
    EXPECT_EQ(k.device_addresses, DeviceAddresses::unknown) << k.device_address_reason;
    EXPECT_TRUE(k.bindings.empty());
}

TEST(PushConstants, ArrayLengthFromASpecializationConstant) {
    test::ModuleBuilder m(0x00010500);  // SPIR-V 1.5: the interface lists the push constant
    const uint32_t length = m.spec_constant(4, 3);
    const uint32_t array = m.type(op::TypeArray, {m.uint_type, length});
    m.decorate(array, decoration::ArrayStride, {16});
    const uint32_t block = m.type(op::TypeStruct, {m.uint_type, array});
    m.decorate(block, decoration::Block);
    m.member_decorate(block, 0, decoration::Offset, {0});
    m.member_decorate(block, 1, decoration::Offset, {16});
    const uint32_t pointer = m.type(op::TypePointer, {storage_class::PushConstant, block});
    const uint32_t push = m.global(op::Variable, pointer, {storage_class::PushConstant});
    const uint32_t main = m.begin_function(m.void_type);
    m.end_function();
    m.entry_point(main, "main", {push});
    m.local_size(main, 1, 1, 1);
    const auto words = m.words();
    EXPECT_EQ(reflect_compute_kernel(words, "main").push_constant_size, 16u + 3u * 16u);
    const SpecializationValue five{4, {5, 0, 0, 0}};
    EXPECT_EQ(reflect_compute_kernel(words, "main", {&five, 1}).push_constant_size, 16u + 5u * 16u);
}

}  // namespace
}  // namespace graphlens::spirv
