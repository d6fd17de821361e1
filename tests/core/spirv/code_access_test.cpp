// Without readonly / writeonly, a binding's access is what the entry point's code does with it.
#include <gtest/gtest.h>

#include "graphlens/spirv/spirv_reflection.h"
#include "spirv/compiled_shaders.h"
#include "spirv/spirv_module_builder.h"

namespace graphlens::spirv {
namespace {

const ReflectedBinding& binding(const ReflectedKernel& k, uint32_t number, uint32_t set = 0) {
    for (const auto& b : k.bindings)
        if (b.set == set && b.binding == number) return b;
    throw std::runtime_error("no binding " + std::to_string(number));
}

class CodeAccessOfGlsl : public testing::TestWithParam<const char*> {};

TEST_P(CodeAccessOfGlsl, LoadsReadStoresWriteAtomicsDoBoth) {
    const ReflectedKernel k =
        reflect_compute_kernel(test::compiled_shader("code_access", GetParam()), "main");
    ASSERT_EQ(k.bindings.size(), 6u);
    for (const auto& b : k.bindings) EXPECT_EQ(b.evidence, AccessEvidence::code) << b.name;
    EXPECT_EQ(binding(k, 0).access, BindingAccess::read);
    EXPECT_EQ(binding(k, 1).access, BindingAccess::write);
    EXPECT_EQ(binding(k, 2).access, BindingAccess::read_write);
    EXPECT_EQ(binding(k, 3).access, BindingAccess::read) << "only .length(): touches nothing";
    EXPECT_EQ(binding(k, 4).access, BindingAccess::read_write) << "atomicAdd";
    EXPECT_EQ(binding(k, 5).access, BindingAccess::write) << "stored in a called function";
    EXPECT_EQ(binding(k, 5).name, "StoredInAFunction") << "anonymous block: the type's name";
    EXPECT_EQ(k.local_size, (std::array<uint32_t, 3>{32, 2, 1}));
}

TEST_P(CodeAccessOfGlsl, AnImagePassedToAFunctionIsWrittenThere) {
    const ReflectedKernel k =
        reflect_compute_kernel(test::compiled_shader("image_parameter", GetParam()), "main");
    ASSERT_EQ(k.bindings.size(), 2u);
    EXPECT_EQ(binding(k, 0).descriptor, DescriptorClass::storage_image);
    EXPECT_EQ(binding(k, 0).access, BindingAccess::write);
    EXPECT_EQ(binding(k, 0).evidence, AccessEvidence::code);
    EXPECT_EQ(binding(k, 1).descriptor, DescriptorClass::sampled_image);
    EXPECT_EQ(binding(k, 1).access, BindingAccess::read);
    EXPECT_EQ(binding(k, 1).evidence, AccessEvidence::descriptor_type);
}

INSTANTIATE_TEST_SUITE_P(SpirvVersions, CodeAccessOfGlsl,
                         testing::Values("vulkan1.0", "vulkan1.2", "vulkan1.3"));

// A kernel `main` that hands &buffer.data[0] to a function whose body `body` writes; the
// access of the buffer at binding 0 is returned.
template <typename Body>
BindingAccess access_through_function(Body body) {
    test::ModuleBuilder m;
    const uint32_t buffer = m.storage_buffer(0, 0);
    std::vector<uint32_t> params;
    const uint32_t callee = m.begin_function(m.void_type, {m.uint_pointer}, &params);
    body(m, params[0]);
    m.end_function();
    const uint32_t main = m.begin_function(m.void_type);
    m.value(op::FunctionCall, m.void_type, {callee, m.element(buffer)});
    m.end_function();
    m.entry_point(main, "main", {});
    m.local_size(main, 1, 1, 1);
    const ReflectedKernel k = reflect_compute_kernel(m.words(), "main");
    EXPECT_EQ(k.bindings.size(), 1u);
    return k.bindings.at(0).access;
}

TEST(CodeAccess, FollowsPointersIntoFunctionParameters) {
    EXPECT_EQ(access_through_function([](test::ModuleBuilder& m, uint32_t p) {
                  m.code(op::Store, {p, m.zero});
              }),
              BindingAccess::write);
    EXPECT_EQ(access_through_function(
                  [](test::ModuleBuilder& m, uint32_t p) { m.value(op::Load, m.uint_type, {p}); }),
              BindingAccess::read);
}

TEST(CodeAccess, FollowsCopiesSelectsAndAtomicLoadsAndStores) {
    EXPECT_EQ(access_through_function([](test::ModuleBuilder& m, uint32_t p) {
                  const uint32_t copy = m.value(op::CopyObject, m.uint_pointer, {p});
                  const uint32_t yes = m.global(op::ConstantTrue, m.bool_type, {});
                  const uint32_t picked = m.value(op::Select, m.uint_pointer, {yes, copy, copy});
                  m.code(op::AtomicStore, {picked, m.constant(1), m.zero, m.zero});
              }),
              BindingAccess::write);
    EXPECT_EQ(access_through_function([](test::ModuleBuilder& m, uint32_t p) {
                  m.value(op::AtomicLoad, m.uint_type, {p, m.constant(1), m.zero});
              }),
              BindingAccess::read);
    EXPECT_EQ(access_through_function([](test::ModuleBuilder& m, uint32_t p) {
                  m.value(op::AtomicExchange + 5, m.uint_type, {p, m.constant(1), m.zero, m.zero});
              }),
              BindingAccess::read_write)
        << "OpAtomicIAdd";
}

TEST(CodeAccess, CopyMemoryWritesItsTargetAndReadsItsSource) {
    test::ModuleBuilder m;
    const uint32_t source = m.storage_buffer(0, 0), target = m.storage_buffer(0, 1);
    const uint32_t main = m.begin_function(m.void_type);
    m.code(op::CopyMemory, {m.element(target), m.element(source)});
    m.end_function();
    m.entry_point(main, "main", {});
    m.local_size(main, 1, 1, 1);
    const ReflectedKernel k = reflect_compute_kernel(m.words(), "main");
    ASSERT_EQ(k.bindings.size(), 2u);
    EXPECT_EQ(k.bindings[0].access, BindingAccess::read);
    EXPECT_EQ(k.bindings[1].access, BindingAccess::write);
}

// A barrier analysis survives an extra hazard, never a missed write: a pointer that goes
// where the walker cannot follow makes its binding read_write.
TEST(CodeAccess, APointerTheWalkerCannotFollowIsReadWrite) {
    EXPECT_EQ(access_through_function([](test::ModuleBuilder& m, uint32_t p) {
                  const uint32_t u64 = m.type(op::TypeInt, {64, 0});
                  m.value(op::ConvertPtrToU, u64, {p});
              }),
              BindingAccess::read_write);
    EXPECT_EQ(access_through_function([](test::ModuleBuilder& m, uint32_t p) {
                  m.value(9999, m.uint_type, {p});  // an opcode nobody knows
              }),
              BindingAccess::read_write);
}

TEST(CodeAccess, PointersReturnedFromAFunctionAreFollowed) {
    test::ModuleBuilder m;
    const uint32_t buffer = m.storage_buffer(0, 0);
    const uint32_t getter = m.begin_function(m.uint_pointer);
    const uint32_t element = m.element(buffer);
    m.code(op::ReturnValue, {element});
    m.code(op::FunctionEnd, {});
    const uint32_t main = m.begin_function(m.void_type);
    const uint32_t got = m.value(op::FunctionCall, m.uint_pointer, {getter});
    m.code(op::Store, {got, m.zero});
    m.end_function();
    m.entry_point(main, "main", {});
    m.local_size(main, 1, 1, 1);
    const ReflectedKernel k = reflect_compute_kernel(m.words(), "main");
    ASSERT_EQ(k.bindings.size(), 1u);
    EXPECT_EQ(k.bindings[0].access, BindingAccess::write);
}

}  // namespace
}  // namespace graphlens::spirv
