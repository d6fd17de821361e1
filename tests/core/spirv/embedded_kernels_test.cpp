// Every kernel GraphLens embeds, reflected by this parser and by the vulkan layer's
// spirv-cross reflection (KernelCatalog): the two agree on bindings, local size and
// push-constant size, and wherever the decorations decide an access, on the access. This is
// the parser's check against a hundred-odd real shaders.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "graphlens/spirv/spirv_hash.h"
#include "graphlens/spirv/spirv_reflection.h"
#include "graphlens/vulkan/embedded_kernels.h"
#include "graphlens/vulkan/kernel_catalog.h"

namespace graphlens::spirv {
namespace {

// The catalog's reflection of an embedded module: the kernel's own, or for a tensor-core
// twin (`<kernel>__tc<tag>` and its `_reflect` build) the twin's.
const KernelInfo* catalog_info(std::string_view module) {
    const KernelCatalog& catalog = KernelCatalog::embedded();
    if (const KernelInfo* k = catalog.find(module)) return k;
    if (module.ends_with(kTensorCoreReflectSuffix))
        module.remove_suffix(kTensorCoreReflectSuffix.size());
    const size_t at = module.find(kTensorCoreSuffix);
    if (at == std::string_view::npos) return nullptr;
    const std::string_view tag = module.substr(at + kTensorCoreSuffix.size());
    const TensorCoreTwin* twin = catalog.tensor_core_twin(module.substr(0, at), tag);
    return twin && twin->tag == tag ? &twin->info : nullptr;
}

TEST(EmbeddedKernels, AgreeWithTheSpirvCrossReflection) {
    size_t modules = 0, narrowed = 0;
    for (const EmbeddedKernel& e : embedded_kernels()) {
        SCOPED_TRACE(e.name);
        const std::span<const uint32_t> words(e.words, e.word_count);
        const KernelInfo* expected = catalog_info(e.name);
        ASSERT_NE(expected, nullptr);
        const ReflectedKernel k = reflect_compute_kernel(words, expected->entry_point);
        ++modules;
        EXPECT_EQ(k.local_size, expected->local_size);
        EXPECT_FALSE(k.local_size_specialized);
        EXPECT_EQ(k.push_constant_size, expected->push_constant_size);
        ASSERT_EQ(k.bindings.size(), expected->bindings.size());
        for (size_t i = 0; i < k.bindings.size(); ++i) {
            const ReflectedBinding& mine = k.bindings[i];
            const KernelBinding& theirs = expected->bindings[i];
            SCOPED_TRACE("binding " + std::to_string(theirs.binding));
            EXPECT_EQ(mine.set, 0u);
            EXPECT_EQ(mine.binding, theirs.binding);
            EXPECT_EQ(mine.descriptor, DescriptorClass::storage_buffer);
            if (theirs.access != BindingAccess::read_write) {
                EXPECT_EQ(mine.access, theirs.access);
                EXPECT_EQ(mine.evidence, AccessEvidence::decoration);
            } else {
                EXPECT_EQ(mine.evidence, AccessEvidence::code);
                narrowed += mine.access != BindingAccess::read_write;
            }
        }
    }
    EXPECT_GE(modules, 50u);
    RecordProperty("read_write_bindings_narrowed_by_code", static_cast<int>(narrowed));
}

// The same modules with every NonWritable / NonReadable turned into RelaxedPrecision: the
// code alone must then give the access the decorations gave (a readonly buffer is only read,
// a writeonly one only written), so the walker follows every pointer of real kernels.
std::vector<uint32_t> without_access_decorations(std::span<const uint32_t> words) {
    std::vector<uint32_t> out(words.begin(), words.end());
    for (size_t i = 5; i < out.size() && (out[i] >> 16) != 0; i += out[i] >> 16) {
        const uint32_t opcode = out[i] & 0xFFFFu, count = out[i] >> 16;
        const size_t kind = opcode == 71   ? i + 2
                            : opcode == 72 ? i + 3
                                           : 0;  // OpDecorate, OpMemberDecorate
        if (kind != 0 && kind < i + count && (out[kind] == 24 || out[kind] == 25)) out[kind] = 0;
    }
    return out;
}

TEST(EmbeddedKernels, CodeAloneGivesTheDecoratedAccess) {
    for (const EmbeddedKernel& e : embedded_kernels()) {
        SCOPED_TRACE(e.name);
        const KernelInfo* expected = catalog_info(e.name);
        ASSERT_NE(expected, nullptr);
        const ReflectedKernel k = reflect_compute_kernel(
            without_access_decorations({e.words, e.word_count}), expected->entry_point);
        ASSERT_EQ(k.bindings.size(), expected->bindings.size());
        for (size_t i = 0; i < k.bindings.size(); ++i) {
            EXPECT_EQ(k.bindings[i].evidence, AccessEvidence::code);
            EXPECT_EQ(k.bindings[i].access, expected->bindings[i].access)
                << "binding " << expected->bindings[i].binding;
        }
    }
}

TEST(EmbeddedKernels, HashIsTheOneKernelInfoCarries) {
    for (const EmbeddedKernel& e : embedded_kernels()) {
        const std::span<const uint32_t> words(e.words, e.word_count);
        EXPECT_EQ(spirv_hash(words), graphlens::spirv_hash(words)) << e.name;
        if (const KernelInfo* k = KernelCatalog::embedded().find(e.name)) {
            EXPECT_EQ(spirv_hash(words), k->spirv_hash) << e.name;
        }
    }
}

// FNV-1a 64 with GraphLens's offset basis 1469598103934665603 (FNV's 14695981039346656037
// without its last digit): capture files store these hashes, so the basis stays.
TEST(SpirvHash, IsFnv1a64OverLittleEndianBytes) {
    EXPECT_EQ(spirv_hash({}), 1469598103934665603ull);
    const uint32_t one_word[] = {0x00000061};  // "a\0\0\0"
    uint64_t h = 1469598103934665603ull;
    for (uint8_t byte : {0x61, 0, 0, 0}) h = (h ^ byte) * 0x100000001b3ull;
    EXPECT_EQ(spirv_hash(one_word), h);
}

}  // namespace
}  // namespace graphlens::spirv
