// Descriptor sets, classes and arrays: what a capture of a foreign pipeline needs to match a
// binding to the descriptor the application bound.
#include <gtest/gtest.h>

#include "graphlens/spirv/spirv_reflection.h"
#include "spirv/compiled_shaders.h"

namespace graphlens::spirv {
namespace {

class Descriptors : public testing::TestWithParam<const char*> {};

TEST_P(Descriptors, SetsClassesAndArraysSortedBySetAndBinding) {
    const ReflectedKernel k =
        reflect_compute_kernel(test::compiled_shader("descriptor_sets", GetParam()), "main");
    ASSERT_EQ(k.bindings.size(), 4u);
    const auto& tables = k.bindings[0];
    EXPECT_EQ(std::make_pair(tables.set, tables.binding), std::make_pair(0u, 1u));
    EXPECT_EQ(tables.array_size, 4u);
    EXPECT_EQ(tables.access, BindingAccess::read);
    EXPECT_EQ(tables.evidence, AccessEvidence::decoration);
    const auto& values = k.bindings[1];
    EXPECT_EQ(std::make_pair(values.set, values.binding), std::make_pair(1u, 3u));
    EXPECT_EQ(values.descriptor, DescriptorClass::storage_buffer);
    EXPECT_EQ(values.access, BindingAccess::write);
    EXPECT_EQ(values.name, "Values");
    const auto& params = k.bindings[2];
    EXPECT_EQ(std::make_pair(params.set, params.binding), std::make_pair(2u, 0u));
    EXPECT_EQ(params.descriptor, DescriptorClass::uniform_buffer);
    EXPECT_EQ(params.access, BindingAccess::read);
    EXPECT_EQ(params.evidence, AccessEvidence::descriptor_type);
    EXPECT_EQ(params.name, "params");
    const auto& many = k.bindings[3];
    EXPECT_EQ(std::make_pair(many.set, many.binding), std::make_pair(3u, 0u));
    EXPECT_EQ(many.array_size, 0u) << "runtime descriptor array";
    EXPECT_EQ(many.access, BindingAccess::read);
    EXPECT_EQ(many.evidence, AccessEvidence::code);
    EXPECT_EQ(k.local_size[0], 16u);
    EXPECT_EQ(k.device_addresses, DeviceAddresses::none);
}

INSTANTIATE_TEST_SUITE_P(SpirvVersions, Descriptors,
                         testing::Values("vulkan1.0", "vulkan1.2", "vulkan1.3"));

}  // namespace
}  // namespace graphlens::spirv
