// reflect_compute_kernel: the entry point, its local size, its push-constant block and its
// descriptor bindings, put together from the module index, the constant evaluator, the type
// layout and the access analysis.
#include "graphlens/spirv/spirv_reflection.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <tuple>

#include "spirv/src/access_analysis.h"
#include "spirv/src/constant_evaluator.h"
#include "spirv/src/device_address_analysis.h"
#include "spirv/src/spirv_enums.h"
#include "spirv/src/spirv_module.h"
#include "spirv/src/type_layout.h"

namespace graphlens::spirv {
namespace {

uint32_t to_u32(uint64_t v, std::string_view what, size_t at) {
    if (v > std::numeric_limits<uint32_t>::max())
        throw SpirvError(std::string(what) + " " + std::to_string(v) + " does not fit 32 bits", at);
    return static_cast<uint32_t>(v);
}

const EntryPoint& find_entry_point(const SpirvModule& module, std::string_view name) {
    std::string present;
    for (const EntryPoint& ep : module.entry_points()) {
        if (ep.name == name && ep.execution_model == kExecutionModelGLCompute) return ep;
        present += (present.empty() ? "" : ", ") + ep.name +
                   (ep.execution_model == kExecutionModelGLCompute ? "" : " (not GLCompute)");
    }
    throw SpirvError("no GLCompute entry point '" + std::string(name) + "'; the module has " +
                     (present.empty() ? "none" : present));
}

// The WorkgroupSize built-in constant, when the module has one: it overrides LocalSize(Id).
bool local_size_from_builtin(const SpirvModule& module, const ConstantEvaluator& constants,
                             ReflectedKernel& kernel) {
    for (uint32_t id : module.decorated_with(decoration::BuiltIn, kBuiltInWorkgroupSize)) {
        const Instruction* c = module.definition(id);
        if (!c ||
            (c->opcode() != op::ConstantComposite && c->opcode() != op::SpecConstantComposite))
            continue;  // a WorkgroupSize input variable (pre-Vulkan) says nothing
        const std::vector<uint32_t> parts = constants.constituents(id, c->offset);
        if (parts.size() != 3)
            throw SpirvError(
                "the WorkgroupSize constant has " + std::to_string(parts.size()) + " components",
                c->offset);
        for (size_t d = 0; d < 3; ++d) {
            const ScalarValue v = constants.scalar(parts[d], c->offset);
            kernel.local_size[d] = to_u32(v.bits, "local size", c->offset);
            kernel.local_size_specialized |= v.specialized;
        }
        return true;
    }
    return false;
}

void resolve_local_size(const SpirvModule& module, const ConstantEvaluator& constants,
                        const EntryPoint& ep, ReflectedKernel& kernel) {
    if (local_size_from_builtin(module, constants, kernel)) return;
    for (const Instruction* mode : module.execution_modes(ep.function)) {
        const bool by_id =
            mode->opcode() == op::ExecutionModeId && mode->operand(1) == kExecutionModeLocalSizeId;
        const bool literal =
            mode->opcode() == op::ExecutionMode && mode->operand(1) == kExecutionModeLocalSize;
        if (!by_id && !literal) continue;
        for (size_t d = 0; d < 3; ++d) {
            if (literal) {
                kernel.local_size[d] = mode->operand(2 + d);
                continue;
            }
            const ScalarValue v = constants.scalar(mode->operand(2 + d), mode->offset);
            kernel.local_size[d] = to_u32(v.bits, "local size", mode->offset);
            kernel.local_size_specialized |= v.specialized;
        }
        return;
    }
    throw SpirvError(
        "entry point '" + ep.name + "' has no LocalSize, LocalSizeId or WorkgroupSize constant",
        ep.offset);
}

// SPIR-V 1.4 and later list every global variable an entry point uses in its interface;
// before, only inputs and outputs, so the call tree says which others it uses.
std::vector<uint32_t> interface_variables(const SpirvModule& module, const EntryPoint& ep,
                                          const AccessAnalysis& code) {
    std::vector<uint32_t> out;
    if (module.version() >= kVersion1_4) {
        for (uint32_t id : ep.interface) {
            const Instruction* def = module.definition(id);
            if (def && def->opcode() == op::Variable &&
                std::find(out.begin(), out.end(), id) == out.end())
                out.push_back(id);
        }
    } else {
        for (uint32_t id : module.global_variables())
            if (code.referenced(id)) out.push_back(id);
    }
    return out;
}

uint32_t pointee_type(const SpirvModule& module, const Instruction& variable) {
    const Instruction& pointer = module.require(variable.operand(0), variable.offset);
    if (pointer.opcode() != op::TypePointer)
        throw SpirvError(
            "variable %" + std::to_string(variable.operand(1)) + " does not have a pointer type",
            variable.offset);
    return pointer.operand(2);
}

DescriptorClass classify(const SpirvModule& module, uint32_t storage, const Instruction& type) {
    if (storage == storage_class::StorageBuffer) return DescriptorClass::storage_buffer;
    if (storage == storage_class::Uniform)
        return module.has_decoration(type.operand(0), decoration::BufferBlock)
                   ? DescriptorClass::storage_buffer
                   : DescriptorClass::uniform_buffer;
    switch (type.opcode()) {
        case op::TypeImage: {
            if (type.operand(2) == kImageDimBuffer) return DescriptorClass::other;  // texel buffer
            const uint32_t sampled = type.operand(6);
            return sampled == 2   ? DescriptorClass::storage_image
                   : sampled == 1 ? DescriptorClass::sampled_image
                                  : DescriptorClass::other;
        }
        case op::TypeSampledImage:
            return DescriptorClass::sampled_image;
        case op::TypeSampler:
            return DescriptorClass::sampler;
        default:
            return DescriptorClass::other;
    }
}

// readonly / writeonly: on the variable, or (glslang's way for blocks) on every member.
std::optional<BindingAccess> decorated_access(const SpirvModule& module, uint32_t variable,
                                              const Instruction& type) {
    auto decorated = [&](uint32_t kind) {
        if (module.has_decoration(variable, kind)) return true;
        if (type.opcode() != op::TypeStruct || type.operand_count() < 2) return false;
        for (uint32_t m = 0; m + 1 < type.operand_count(); ++m)
            if (!module.has_member_decoration(type.operand(0), m, kind)) return false;
        return true;
    };
    const bool non_writable = decorated(decoration::NonWritable);
    const bool non_readable = decorated(decoration::NonReadable);
    if (non_writable == non_readable) return std::nullopt;  // neither, or both: ask the code
    return non_writable ? BindingAccess::read : BindingAccess::write;
}

BindingAccess access_from(bool reads, bool writes) {
    if (writes) return reads ? BindingAccess::read_write : BindingAccess::write;
    return BindingAccess::read;  // also when untouched: see ReflectedBinding::access
}

ReflectedBinding reflect_binding(const SpirvModule& module, const ConstantEvaluator& constants,
                                 const AccessAnalysis& code, const Instruction& variable) {
    const uint32_t id = variable.operand(1);
    ReflectedBinding b;
    b.set = module.decoration(id, decoration::DescriptorSet).value_or(0);
    b.binding = module.decoration(id, decoration::Binding).value_or(0);
    const Instruction* type = &module.require(pointee_type(module, variable), variable.offset);
    if (type->opcode() == op::TypeArray) {
        b.array_size = to_u32(constants.scalar(type->operand(2), type->offset).bits,
                              "descriptor array length", type->offset);
        type = &module.require(type->operand(1), type->offset);
    } else if (type->opcode() == op::TypeRuntimeArray) {
        b.array_size = 0;
        type = &module.require(type->operand(1), type->offset);
    }
    b.descriptor = classify(module, variable.operand(2), *type);
    b.name = module.name(id);
    if (b.name.empty()) b.name = module.name(type->operand(0));
    if (b.descriptor == DescriptorClass::uniform_buffer ||
        b.descriptor == DescriptorClass::sampled_image ||
        b.descriptor == DescriptorClass::sampler) {
        b.access = BindingAccess::read;
        b.evidence = AccessEvidence::descriptor_type;
    } else if (auto decorated = decorated_access(module, id, *type)) {
        b.access = *decorated;
        b.evidence = AccessEvidence::decoration;
    } else {
        const CodeAccess c = code.access_of(id);
        b.access = c.escapes ? BindingAccess::read_write : access_from(c.reads, c.writes);
        b.evidence = AccessEvidence::code;
    }
    return b;
}

// Variables that alias one (set, binding) become one binding that does what any of them does.
std::vector<ReflectedBinding> merged_by_binding(std::vector<ReflectedBinding> all) {
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
        return std::tie(a.set, a.binding) < std::tie(b.set, b.binding);
    });
    std::vector<ReflectedBinding> out;
    for (ReflectedBinding& b : all) {
        if (out.empty() || out.back().set != b.set || out.back().binding != b.binding) {
            out.push_back(std::move(b));
            continue;
        }
        ReflectedBinding& m = out.back();
        m.access = access_from(access_reads(m.access) || access_reads(b.access),
                               access_writes(m.access) || access_writes(b.access));
        m.evidence = std::max(m.evidence, b.evidence);  // the least certain of the two
        m.array_size = std::max(m.array_size, b.array_size);
        if (m.name.empty()) m.name = std::move(b.name);
    }
    return out;
}

}  // namespace

ReflectedKernel reflect_compute_kernel(std::span<const uint32_t> words,
                                       std::string_view entry_point,
                                       std::span<const SpecializationValue> specialization) {
    const SpirvModule module(words);
    const EntryPoint& ep = find_entry_point(module, entry_point);
    const ConstantEvaluator constants(module, specialization);
    const AccessAnalysis code(module, ep.function, ep.offset);
    const TypeLayout layout(module, constants);

    ReflectedKernel kernel;
    kernel.entry_point = ep.name;
    resolve_local_size(module, constants, ep, kernel);
    DeviceAddressFinding addresses = DeviceAddressAnalysis(module, code).run();
    kernel.device_addresses = addresses.use;
    kernel.device_address_reason = std::move(addresses.reason);

    std::vector<ReflectedBinding> bindings;
    for (uint32_t id : interface_variables(module, ep, code)) {
        const Instruction& variable = module.require(id, ep.offset);
        const uint32_t storage = variable.operand(2);
        if (storage == storage_class::PushConstant) {
            const uint64_t size =
                layout.struct_size(pointee_type(module, variable), variable.offset);
            kernel.push_constant_size = std::max(
                kernel.push_constant_size, to_u32(size, "push-constant size", variable.offset));
        } else if (storage == storage_class::StorageBuffer || storage == storage_class::Uniform ||
                   storage == storage_class::UniformConstant) {
            bindings.push_back(reflect_binding(module, constants, code, variable));
        }
    }
    kernel.bindings = merged_by_binding(std::move(bindings));
    return kernel;
}

}  // namespace graphlens::spirv
