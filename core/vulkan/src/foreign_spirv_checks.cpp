// What replay checks in a recorded program's SPIR-V before a driver sees it: spirv-val's
// verdict (a driver handed invalid SPIR-V may crash rather than fail) and whether the code
// uses atomics (whose results may depend on the order invocations run in).
#include <spirv-tools/libspirv.h>

#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "graphlens/vulkan/foreign_program.h"

namespace graphlens {
namespace {

spv_target_env target_for(uint32_t api_version) {
    if (api_version >= VK_API_VERSION_1_3) return SPV_ENV_VULKAN_1_3;
    if (api_version >= VK_API_VERSION_1_2) return SPV_ENV_VULKAN_1_2;
    if (api_version >= VK_API_VERSION_1_1) return SPV_ENV_VULKAN_1_1;
    return SPV_ENV_VULKAN_1_0;
}

bool is_atomic_opcode(uint32_t op) {
    // OpAtomicLoad .. OpAtomicXor, OpAtomicFlagTestAndSet / Clear, OpAtomicFMinEXT /
    // OpAtomicFMaxEXT, OpAtomicFAddEXT.
    return (op >= 227 && op <= 242) || op == 318 || op == 319 || op == 5614 || op == 5615 ||
           op == 6035;
}

// spirv-val's parser reports operands from a newer SPIR-V grammar than its own this way; a
// module the program's driver ran is not refused for them.
bool names_an_operand_unknown_to_validator(spv_result_t r, const std::string& error) {
    if (r != SPV_ERROR_INVALID_BINARY && r != SPV_ERROR_INVALID_CAPABILITY) return false;
    for (const char* prefix : {"Invalid capability operand", "Invalid extension operand",
                               "Invalid execution mode operand", "Invalid decoration operand",
                               "Invalid built-in operand", "Invalid storage class operand"})
        if (error.rfind(prefix, 0) == 0) return true;
    return false;
}

}  // namespace

SpirvVerdict validate_spirv(const std::vector<uint32_t>& words, uint32_t api_version) {
    const spv_target_env env = target_for(api_version);
    std::unique_ptr<spv_context_t, void (*)(spv_context)> context(spvContextCreate(env),
                                                                  spvContextDestroy);
    std::unique_ptr<spv_validator_options_t, void (*)(spv_validator_options)> options(
        spvValidatorOptionsCreate(), spvValidatorOptionsDestroy);
    // What drivers accept for storage buffers and push constants (std430 rules, scalar
    // layouts where the program's device allowed them): the driver, not spirv-val, decides
    // whether the layout is supported.
    spvValidatorOptionsSetRelaxBlockLayout(options.get(), true);
    spvValidatorOptionsSetScalarBlockLayout(options.get(), true);
    spvValidatorOptionsSetUniformBufferStandardLayout(options.get(), true);
    spv_const_binary_t binary{words.data(), words.size()};
    spv_diagnostic diagnostic = nullptr;
    const spv_result_t r =
        spvValidateWithOptions(context.get(), options.get(), &binary, &diagnostic);
    SpirvVerdict out;
    if (r != SPV_SUCCESS) {
        const std::string error = diagnostic && diagnostic->error ? diagnostic->error : "";
        out.unknown_to_validator = names_an_operand_unknown_to_validator(r, error);
        out.error = error.empty() ? fmt::format("spirv-val result {}", static_cast<int>(r))
                                  : fmt::format("{} (word {})", error, diagnostic->position.index);
    }
    spvDiagnosticDestroy(diagnostic);
    return out;
}

bool spirv_uses_atomics(const std::vector<uint32_t>& words) {
    for (size_t i = 5; i < words.size();) {
        const uint32_t count = words[i] >> 16;
        if (is_atomic_opcode(words[i] & 0xffffu)) return true;
        if (count == 0) return false;
        i += count;
    }
    return false;
}

}  // namespace graphlens
