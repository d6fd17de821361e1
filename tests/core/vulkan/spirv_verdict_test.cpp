// What replay makes of spirv-val's verdict on a recorded module: broken words are refused, and
// a capability newer than this SPIRV-Tools release is left to the driver (the recorded
// program's own driver ran the module), not reported as invalid.
#include <gtest/gtest.h>

#include <vector>

#include "graphlens/vulkan/embedded_kernels.h"
#include "graphlens/vulkan/foreign_program.h"

namespace graphlens {
namespace {

std::vector<uint32_t> a_valid_module() {
    const EmbeddedKernel& k = embedded_kernels().front();
    return {k.words, k.words + k.word_count};
}

TEST(SpirvVerdict, AValidModuleHasNoError) {
    const SpirvVerdict v = validate_spirv(a_valid_module(), VK_API_VERSION_1_2);
    EXPECT_EQ(v.error, "");
    EXPECT_FALSE(v.unknown_to_validator);
}

TEST(SpirvVerdict, ATruncatedModuleIsAnErrorOfTheModule) {
    std::vector<uint32_t> words = a_valid_module();
    words.pop_back();
    const SpirvVerdict v = validate_spirv(words, VK_API_VERSION_1_2);
    EXPECT_NE(v.error, "");
    EXPECT_FALSE(v.unknown_to_validator) << v.error;
}

TEST(SpirvVerdict, ACapabilityNewerThanTheValidatorIsLeftToTheDriver) {
    std::vector<uint32_t> words = a_valid_module();
    // OpCapability 5430 (CooperativeMatrixReductionsNV, from SPV_NV_cooperative_matrix2, which
    // llama.cpp's flash-attention kernels use on NVIDIA) right after the header.
    const uint32_t op_capability = (2u << 16) | 17u;
    words.insert(words.begin() + 5, {op_capability, 5430u});
    const SpirvVerdict v = validate_spirv(words, VK_API_VERSION_1_2);
    if (v.error.empty()) GTEST_SKIP() << "this SPIRV-Tools knows capability 5430";
    EXPECT_TRUE(v.unknown_to_validator) << v.error;
    EXPECT_NE(v.error.find("5430"), std::string::npos) << v.error;
}

}  // namespace
}  // namespace graphlens
