// readonly / writeonly decide a binding's access wherever glslang puts them: on every member
// of a block (buffers) or on the variable (images).
#include <gtest/gtest.h>

#include "graphlens/spirv/spirv_reflection.h"
#include "spirv/compiled_shaders.h"

namespace graphlens::spirv {
namespace {

class DecoratedAccess : public testing::TestWithParam<const char*> {};

TEST_P(DecoratedAccess, ReadonlyReadsAndWriteonlyWrites) {
    const ReflectedKernel k =
        reflect_compute_kernel(test::compiled_shader("decorated_access", GetParam()), "main");
    ASSERT_EQ(k.bindings.size(), 4u);
    const BindingAccess expected[] = {BindingAccess::read, BindingAccess::write,
                                      BindingAccess::read, BindingAccess::write};
    for (uint32_t i = 0; i < 4; ++i) {
        EXPECT_EQ(k.bindings[i].binding, i);
        EXPECT_EQ(k.bindings[i].access, expected[i]) << "binding " << i;
        EXPECT_EQ(k.bindings[i].evidence, AccessEvidence::decoration) << "binding " << i;
    }
    EXPECT_EQ(k.bindings[0].descriptor, DescriptorClass::storage_buffer);
    EXPECT_EQ(k.bindings[2].descriptor, DescriptorClass::storage_image);
    EXPECT_EQ(k.bindings[2].name, "image_in");
    EXPECT_EQ(k.local_size, (std::array<uint32_t, 3>{64, 1, 1}));
    EXPECT_FALSE(k.local_size_specialized);
}

// SPIR-V 1.0 declares buffers as Uniform + BufferBlock and lists none in the entry point.
INSTANTIATE_TEST_SUITE_P(SpirvVersions, DecoratedAccess,
                         testing::Values("vulkan1.0", "vulkan1.2", "vulkan1.3"));

}  // namespace
}  // namespace graphlens::spirv
