// Reflection of the embedded SPIR-V: access modes come from readonly/writeonly.
#include <gtest/gtest.h>

#include "graphlens/kernel_catalog.h"

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

}  // namespace
}  // namespace graphlens
