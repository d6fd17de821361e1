// Any words give a reflection or a SpirvError: never a crash, never another exception.
// (ASan + UBSan builds run these too: scripts/test.sh's sanitizer pass.)
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "graphlens/spirv/spirv_reflection.h"
#include "spirv/compiled_shaders.h"

namespace graphlens::spirv {
namespace {

// Reflects and reports whether it succeeded; any exception other than SpirvError fails.
bool reflects(std::span<const uint32_t> words) {
    try {
        reflect_compute_kernel(words, "main");
        return true;
    } catch (const SpirvError&) {
        return false;
    }
}

std::string error_of(std::span<const uint32_t> words) {
    try {
        reflect_compute_kernel(words, "main");
    } catch (const SpirvError& e) {
        return e.what();
    }
    return "";
}

TEST(HostileInput, EmptyShortAndForeignWordsAreRejected) {
    EXPECT_NE(error_of({}).find("shorter than the 5-word header"), std::string::npos);
    const std::vector<uint32_t> elf{0x464C457F, 0x00010102, 0, 0, 0, 0};
    EXPECT_NE(error_of(elf).find("magic number 0x464c457f"), std::string::npos) << error_of(elf);
}

TEST(HostileInput, AByteSwappedModuleReflectsTheSame) {
    const auto words = test::compiled_shader("code_access");
    std::vector<uint32_t> swapped(words.size());
    for (size_t i = 0; i < words.size(); ++i) swapped[i] = __builtin_bswap32(words[i]);
    EXPECT_EQ(reflect_compute_kernel(swapped, "main").bindings,
              reflect_compute_kernel(words, "main").bindings);
}

TEST(HostileInput, ErrorsNameTheWordOffset) {
    auto words = test::compiled_shader("code_access");
    words[5] = 0x00000011;  // OpCapability with a word count of 0
    try {
        reflect_compute_kernel(words, "main");
        FAIL();
    } catch (const SpirvError& e) {
        EXPECT_EQ(e.word_offset(), 5u);
        EXPECT_NE(std::string(e.what()).find("SPIR-V word 5:"), std::string::npos) << e.what();
    }
}

TEST(HostileInput, EveryTruncationIsAResultOrASpirvError) {
    const auto words = test::compiled_shader("code_access");
    for (size_t n = 0; n < words.size(); ++n) reflects(std::span<const uint32_t>(words).first(n));
    EXPECT_TRUE(reflects(words));
}

TEST(HostileInput, RandomlyCorruptedModulesAreAResultOrASpirvError) {
    std::mt19937 random(12345);
    for (const char* shader : {"code_access", "descriptor_sets", "push_constants",
                               "workgroup_size_builtin", "image_parameter"}) {
        const auto original = test::compiled_shader(shader);
        for (int round = 0; round < 400; ++round) {
            auto words = original;
            const int edits = 1 + static_cast<int>(random() % 4);
            for (int e = 0; e < edits; ++e) {
                const size_t at = 5 + random() % (words.size() - 5);
                switch (random() % 4) {
                    case 0:
                        words[at] = static_cast<uint32_t>(random());
                        break;
                    case 1:
                        words[at] ^= 1u << (random() % 32);
                        break;
                    case 2:
                        words[at] = static_cast<uint32_t>(random() % 64);
                        break;  // small ids
                    default:
                        words[at] = words[5 + random() % (words.size() - 5)];
                }
            }
            reflects(words);
        }
    }
}

}  // namespace
}  // namespace graphlens::spirv
