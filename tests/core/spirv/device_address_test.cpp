// Buffer device addresses: a kernel whose PhysicalStorageBuffer pointers only come from the
// driver's calls of its cooperative-matrix decode callbacks touches only its bindings; one
// that forms an address from data (an integer, a vector bitcast, a pointer in a block or in
// memory) or writes through one may touch anything, and reflection says which and why.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "graphlens/spirv/spirv_reflection.h"
#include "spirv/compiled_shaders.h"
#include "spirv/src/spirv_enums.h"

namespace graphlens::spirv {
namespace {

// Debian's spirv-as predates SPV_NV_cooperative_matrix2, so the assembly writes such an
// instruction as `OpExtInst %type %raw <opcode> %ids...` of the import
// "NonSemantic.GraphLens.raw_opcode"; this rewrites it into <opcode> with the operands
// %type %result %ids..., where an id named "literal" (OpName) becomes its constant's value.
std::vector<uint32_t> with_raw_opcodes(const std::vector<uint32_t>& in) {
    std::map<uint32_t, uint32_t> literal_ids, constants;
    uint32_t raw_set = 0;
    auto string_at = [&](size_t word) {
        return std::string(reinterpret_cast<const char*>(&in[word]));
    };
    for (size_t at = 5; at < in.size(); at += in[at] >> 16) {
        const uint32_t opcode = in[at] & 0xFFFFu;
        if (opcode == op::ExtInstImport && string_at(at + 2) == "NonSemantic.GraphLens.raw_opcode")
            raw_set = in[at + 1];
        if (opcode == op::Name && string_at(at + 2) == "literal") literal_ids[in[at + 1]] = 0;
        if (opcode == op::Constant) constants[in[at + 2]] = in[at + 3];
    }
    std::vector<uint32_t> out(in.begin(), in.begin() + 5);
    for (size_t at = 5; at < in.size(); at += in[at] >> 16) {
        const size_t count = in[at] >> 16;
        if ((in[at] & 0xFFFFu) != op::ExtInst || in[at + 3] != raw_set) {
            out.insert(out.end(), in.begin() + int64_t(at), in.begin() + int64_t(at + count));
            continue;
        }
        std::vector<uint32_t> operands{in[at + 1], in[at + 2]};
        for (size_t k = at + 5; k < at + count; ++k)
            operands.push_back(literal_ids.contains(in[k]) ? constants.at(in[k]) : in[k]);
        out.push_back(uint32_t(operands.size() + 1) << 16 | in[at + 4]);
        out.insert(out.end(), operands.begin(), operands.end());
    }
    return out;
}

ReflectedKernel reflect_assembly(std::string_view stem) {
    return reflect_compute_kernel(with_raw_opcodes(test::compiled_shader(stem, "asm")), "main");
}

TEST(DeviceAddresses, DecodeCallbackPointersStayInsideTheLoadedBinding) {
    const ReflectedKernel k = reflect_assembly("device_address_decode_callback");
    EXPECT_EQ(k.device_addresses, DeviceAddresses::within_bindings) << k.device_address_reason;
    EXPECT_NE(k.device_address_reason.find("decode callbacks"), std::string::npos)
        << k.device_address_reason;
    ASSERT_EQ(k.bindings.size(), 2u);
    EXPECT_EQ(k.bindings[0].access, BindingAccess::read) << "the tensor load reads binding 0";
    EXPECT_EQ(k.bindings[0].evidence, AccessEvidence::code);
    EXPECT_EQ(k.bindings[1].access, BindingAccess::write);
}

TEST(DeviceAddresses, TheRewrittenTensorLoadIsWhatReadsTheBinding) {
    // Without the rewrite the load is a non-semantic instruction: nothing reads binding 0 and
    // nothing calls the callback, so no pointer is left in the code.
    const ReflectedKernel k = reflect_compute_kernel(
        test::compiled_shader("device_address_decode_callback", "asm"), "main");
    EXPECT_EQ(k.device_addresses, DeviceAddresses::none);
    EXPECT_NE(k.device_address_reason.find("declares PhysicalStorageBufferAddresses"),
              std::string::npos);
}

TEST(DeviceAddresses, AnAddressConvertedFromAPushConstantIsUnknown) {
    const ReflectedKernel k = reflect_assembly("device_address_from_integer");
    EXPECT_EQ(k.device_addresses, DeviceAddresses::unknown);
    EXPECT_NE(k.device_address_reason.find("OpConvertUToPtr"), std::string::npos)
        << k.device_address_reason;
}

TEST(DeviceAddresses, AnAddressBitcastFromAVectorIsUnknown) {
    const ReflectedKernel k = reflect_assembly("device_address_bitcast_from_vector");
    EXPECT_EQ(k.device_addresses, DeviceAddresses::unknown);
    EXPECT_NE(k.device_address_reason.find("OpBitcast makes a buffer device address"),
              std::string::npos)
        << k.device_address_reason;
}

TEST(DeviceAddresses, AnAddressInAStorageBlockIsUnknown) {
    const ReflectedKernel k = reflect_assembly("device_address_in_storage_block");
    EXPECT_EQ(k.device_addresses, DeviceAddresses::unknown);
    EXPECT_NE(k.device_address_reason.find("StorageBuffer variable"), std::string::npos)
        << k.device_address_reason;
}

TEST(DeviceAddresses, AnAddressACallbackLoadsFromMemoryIsUnknown) {
    const ReflectedKernel k = reflect_assembly("device_address_loaded_by_callback");
    EXPECT_EQ(k.device_addresses, DeviceAddresses::unknown);
    EXPECT_NE(k.device_address_reason.find("loaded from PhysicalStorageBuffer memory"),
              std::string::npos)
        << k.device_address_reason;
}

TEST(DeviceAddresses, ACallbackWritingThroughItsPointerIsUnknown) {
    const ReflectedKernel k = reflect_assembly("device_address_written_by_callback");
    EXPECT_EQ(k.device_addresses, DeviceAddresses::unknown);
    EXPECT_NE(k.device_address_reason.find("OpStore writes through"), std::string::npos)
        << k.device_address_reason;
}

TEST(DeviceAddresses, GlslBufferReferenceInAPushConstantIsUnknown) {
    const ReflectedKernel k =
        reflect_compute_kernel(test::compiled_shader("buffer_reference"), "main");
    EXPECT_EQ(k.device_addresses, DeviceAddresses::unknown);
    EXPECT_NE(k.device_address_reason.find("PushConstant variable"), std::string::npos)
        << k.device_address_reason;
}

TEST(DeviceAddresses, AKernelWithoutTheCapabilityHasNone) {
    const ReflectedKernel k = reflect_compute_kernel(test::compiled_shader("code_access"), "main");
    EXPECT_EQ(k.device_addresses, DeviceAddresses::none);
    EXPECT_TRUE(k.device_address_reason.empty());
}

}  // namespace
}  // namespace graphlens::spirv
