// Reflection of the embedded SPIR-V: access modes come from readonly/writeonly.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "graphlens/vulkan/embedded_kernels.h"
#include "graphlens/vulkan/kernel_catalog.h"

namespace graphlens {
namespace {

TEST(KernelCatalog, ReflectsBindingAccessLocalSizeAndPushConstants) {
    const KernelInfo& add = KernelCatalog::embedded().get("add_f32");
    ASSERT_EQ(add.bindings.size(), 3u);
    EXPECT_EQ(add.bindings[0].access, BindingAccess::read);
    EXPECT_EQ(add.bindings[1].access, BindingAccess::read);
    EXPECT_EQ(add.bindings[2].access, BindingAccess::write);
    EXPECT_EQ(add.local_size[0], 256u);
    EXPECT_EQ(add.push_constant_size, 8u);
    EXPECT_EQ(add.entry_point, "main");
    EXPECT_NE(add.spirv_hash, 0u);
}

TEST(KernelCatalog, UnknownKernelIsAClearError) {
    EXPECT_EQ(KernelCatalog::embedded().find("no_such_kernel"), nullptr);
    try {
        KernelCatalog::embedded().get("no_such_kernel");
        FAIL() << "expected an exception";
    } catch (const std::out_of_range& e) {
        EXPECT_NE(std::string(e.what()).find("no_such_kernel"), std::string::npos);
    }
}

TEST(KernelCatalog, NamesAreSortedAndLookupsAgree) {
    const auto names = KernelCatalog::embedded().names();
    ASSERT_FALSE(names.empty());
    EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
    for (const auto& n : names) EXPECT_EQ(KernelCatalog::embedded().get(n).name, n);
}

// Tensor-core twins (GL_NV_cooperative_matrix) cannot be reflected by spirv-cross 2021; their
// reflection twins (same source, -DTC_REFLECT) are, and must match the kernel they replace.
// The integer-dot kernels are found from their modules (KernelRegistry refuses them on a
// device without shaderIntegerDotProduct): exactly the _xq8 mat-vecs.
TEST(KernelCatalog, IntegerDotKernelsAreTheXq8Matvecs) {
    const KernelCatalog& c = KernelCatalog::embedded();
    size_t xq8 = 0;
    for (const auto& name : c.names()) {
        const bool expected = name.ends_with("_xq8");
        xq8 += expected;
        EXPECT_EQ(spirv_uses_integer_dot_product(c.spirv(name)), expected) << name;
    }
    EXPECT_GE(xq8, 4u);
}

TEST(KernelCatalog, TensorCoreTwinsAreReflectedThroughTheirReflectionTwins) {
    const auto& catalog = KernelCatalog::embedded();
    const auto kernels = catalog.tensor_core_kernels();
    EXPECT_GE(kernels.size(), 18u);  // 6 formats x 3 tile sizes (workloads/llm/shaders/variants.txt)
    for (const auto& name : catalog.names())
        EXPECT_EQ(name.find("__tc"), std::string::npos) << name << " listed as a kernel";
    for (const auto& k : kernels) {
        const KernelInfo& base = catalog.get(k);
        const TensorCoreTwin* twin = catalog.tensor_core_twin(k);
        ASSERT_NE(twin, nullptr) << k;
        const KernelInfo* tc = &twin->info;
        EXPECT_EQ(tc->name, k + "__tc");
        EXPECT_EQ(tc->local_size, base.local_size) << k;
        EXPECT_EQ(tc->push_constant_size, base.push_constant_size) << k;
        ASSERT_EQ(tc->bindings.size(), base.bindings.size()) << k;
        for (size_t i = 0; i < base.bindings.size(); ++i) {
            EXPECT_EQ(tc->bindings[i].binding, base.bindings[i].binding) << k;
            EXPECT_EQ(tc->bindings[i].access, base.bindings[i].access) << k;
        }
        const auto words = twin->spirv;
        EXPECT_FALSE(words.empty()) << k;
        EXPECT_EQ(tc->spirv_hash, spirv_hash(words)) << k;
        EXPECT_NE(tc->spirv_hash, base.spirv_hash) << k;
    }
    const TensorCoreTwin* q4_twin = catalog.tensor_core_twin("matmul_q4_0");
    ASSERT_NE(q4_twin, nullptr);
    const KernelInfo* q4 = &q4_twin->info;
    ASSERT_EQ(q4->bindings.size(), 3u);
    EXPECT_EQ(q4->bindings[0].access, BindingAccess::read);   // weights
    EXPECT_EQ(q4->bindings[1].access, BindingAccess::read);   // x
    EXPECT_EQ(q4->bindings[2].access, BindingAccess::write);  // y
    EXPECT_EQ(q4->local_size[0], 256u);
}

const EmbeddedKernel& embedded(std::string_view name) {
    for (const auto& k : embedded_kernels())
        if (name == k.name) return k;
    throw std::out_of_range(std::string(name));
}

TEST(KernelCatalog, TensorCoreTwinWithAnotherInterfaceOrNoKernelIsRejected) {
    const EmbeddedKernel& add = embedded("add_f32");
    const EmbeddedKernel& copy = embedded("copy_f32");  // 2 bindings, not 3
    const std::vector<EmbeddedKernel> mismatched = {
        add,
        {"add_f32__tc", add.words, add.word_count},
        {"add_f32__tc_reflect", copy.words, copy.word_count}};
    try {
        KernelCatalog::from_modules(mismatched);
        FAIL() << "expected an exception";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("interface differs"), std::string::npos) << e.what();
    }
    const std::vector<EmbeddedKernel> orphan = {{"nothing__tc", add.words, add.word_count},
                                                {"nothing__tc_reflect", add.words, add.word_count}};
    EXPECT_THROW(KernelCatalog::from_modules(orphan), std::runtime_error);
    const std::vector<EmbeddedKernel> no_reflection = {add,
                                                       {"add_f32__tc", add.words, add.word_count}};
    EXPECT_THROW(KernelCatalog::from_modules(no_reflection), std::runtime_error);
    const std::vector<EmbeddedKernel> same = {
        add,
        {"add_f32__tc", add.words, add.word_count},
        {"add_f32__tc_reflect", embedded("mul_f32").words, embedded("mul_f32").word_count}};
    EXPECT_EQ(KernelCatalog::from_modules(same).tensor_core_kernels(),
              std::vector<std::string>{"add_f32"});
}

}  // namespace
}  // namespace graphlens
