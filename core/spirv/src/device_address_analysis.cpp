#include "spirv/src/device_address_analysis.h"

#include <string>

#include "spirv/src/spirv_enums.h"

namespace graphlens::spirv {
namespace {

constexpr uint32_t kUnknownStorage = UINT32_MAX;

// Memory only the dispatch's own invocations write: what a pointer loaded from it holds was
// stored there by the code, whose stored values the analysis checks where they are made.
bool is_invocation_memory(uint32_t storage) {
    return storage == storage_class::Function || storage == storage_class::Private ||
           storage == storage_class::Workgroup;
}

std::string storage_class_name(uint32_t storage) {
    switch (storage) {
        case storage_class::UniformConstant:
            return "UniformConstant";
        case storage_class::Input:
            return "Input";
        case storage_class::Uniform:
            return "Uniform";
        case storage_class::PushConstant:
            return "PushConstant";
        case storage_class::StorageBuffer:
            return "StorageBuffer";
        case storage_class::PhysicalStorageBuffer:
            return "PhysicalStorageBuffer";
        case kUnknownStorage:
            return "unknown";
        default:
            return "storage class " + std::to_string(storage);
    }
}

// Instructions whose result (operand 1, typed by operand 0) may be a PhysicalStorageBuffer
// pointer and whose meaning the analysis knows.
bool is_known_pointer_producer(uint32_t opcode) {
    switch (opcode) {
        case op::Undef:
        case op::FunctionParameter:
        case op::FunctionCall:
        case op::Variable:
        case op::Load:
        case op::AccessChain:
        case op::InBoundsAccessChain:
        case op::PtrAccessChain:
        case op::InBoundsPtrAccessChain:
        case op::CompositeConstruct:
        case op::CompositeExtract:
        case op::CompositeInsert:
        case op::CopyObject:
        case op::CopyLogical:
        case op::ConvertUToPtr:
        case op::Bitcast:
        case op::Select:
        case op::Phi:
            return true;
        default:
            return false;
    }
}

// Instructions that read memory through their pointer operand 2 and return what they read.
bool is_load(uint32_t opcode) {
    return opcode == op::Load || opcode == op::AtomicLoad ||
           opcode == op::CooperativeMatrixLoadKHR || opcode == op::CooperativeMatrixLoadNV ||
           opcode == op::CooperativeMatrixLoadTensorNV;
}

}  // namespace

DeviceAddressAnalysis::DeviceAddressAnalysis(const SpirvModule& module, const AccessAnalysis& code)
    : module_(module), code_(code) {}

DeviceAddressFinding DeviceAddressAnalysis::run() {
    const bool declared = module_.has_capability(kCapabilityPhysicalStorageBufferAddresses) ||
                          module_.addressing_model() == kAddressingModelPhysicalStorageBuffer64;
    for (const Instruction& in : module_.instructions()) {
        if (in.opcode() == op::Function) break;  // globals come first
        if (auto why = global_forming_address(in)) return {DeviceAddresses::unknown, *why};
    }
    index_result_types();
    for (const Function* f : code_.reachable_functions()) {
        for (size_t i = f->first; i < f->end; ++i) {
            const Instruction& in = module_.instructions()[i];
            if (auto why = instruction_forming_address(in)) return {DeviceAddresses::unknown, *why};
            if (auto why = unfollowed_use(in)) return {DeviceAddresses::unknown, *why};
        }
    }
    if (!saw_device_address_value_)
        return {DeviceAddresses::none,
                declared ? "it declares PhysicalStorageBufferAddresses, but its code holds no "
                           "PhysicalStorageBuffer pointer"
                         : ""};
    return {DeviceAddresses::within_bindings,
            "its only buffer device addresses are the parameters of the decode callbacks its "
            "cooperative-matrix tensor loads call, which the driver derives from the buffers "
            "those loads bind; the code passes them on, offsets and re-types them and reads "
            "through them, and makes none from data"};
}

void DeviceAddressAnalysis::index_result_types() {
    for (const Function* f : code_.reachable_functions())
        for (size_t i = f->first; i < f->end; ++i) {
            const Instruction& in = module_.instructions()[i];
            if (is_known_pointer_producer(in.opcode()) && in.operand_count() >= 2) {
                local_types_[in.operand(1)] = in.operand(0);
                if (is_device_address_type(in.operand(0))) saw_device_address_value_ = true;
            }
        }
}

// A global variable outside the invocation's own memory (push constants, uniform and storage
// blocks, inputs) whose type holds a PhysicalStorageBuffer pointer: an address from data.
std::optional<std::string> DeviceAddressAnalysis::global_forming_address(const Instruction& in) {
    if (in.opcode() == op::Variable) {
        const uint32_t storage = in.operand(2);
        if (!is_invocation_memory(storage) && holds_device_address(pointee(in.operand(0))))
            return storage_class_name(storage) + " variable %" + std::to_string(in.operand(1)) +
                   " holds a buffer device address " + where(in);
    } else if (in.opcode() == op::SpecConstantOp && in.operand_count() >= 3 &&
               (in.operand(2) == op::ConvertUToPtr || in.operand(2) == op::Bitcast) &&
               is_device_address_type(in.operand(0))) {
        return "a specialization constant is converted to a buffer device address " + where(in);
    }
    return std::nullopt;
}

std::optional<std::string> DeviceAddressAnalysis::instruction_forming_address(
    const Instruction& in) {
    const uint32_t opcode = in.opcode();
    if (opcode == op::ConvertUToPtr)
        return "OpConvertUToPtr makes a buffer device address from an integer " + where(in);
    if (opcode == op::Bitcast) {
        const uint32_t to = in.operand(0);
        const uint32_t from = type_of(in.operand(2));
        if (is_device_address_type(to) && !is_device_address_type(from))
            return "OpBitcast makes a buffer device address from a value that is not one " +
                   where(in);
        const bool to_holder = is_pointer_type(to) && holds_device_address(pointee(to));
        const bool from_holder = is_pointer_type(from) && holds_device_address(pointee(from));
        if ((to_holder || from_holder) && pointee(to) != pointee(from))
            return "OpBitcast re-types memory that holds buffer device addresses " + where(in);
        return std::nullopt;
    }
    if (is_load(opcode) && holds_device_address(in.operand(0))) {
        const uint32_t storage = storage_class_of(in.operand(2));
        if (!is_invocation_memory(storage))
            return "a buffer device address is loaded from " + storage_class_name(storage) +
                   " memory " + where(in);
    }
    if (opcode == op::CopyMemory || opcode == op::CopyMemorySized) {
        const uint32_t source = in.operand(1);
        const uint32_t storage = storage_class_of(source);
        if (!is_invocation_memory(storage) &&
            (opcode == op::CopyMemorySized || holds_device_address(pointee(type_of(source)))))
            return "a copy from " + storage_class_name(storage) +
                   " memory may bring buffer device addresses " + where(in);
    }
    if (!is_known_pointer_producer(opcode) && in.operand_count() >= 2 &&
        holds_device_address(in.operand(0)))
        return "opcode " + std::to_string(opcode) +
               ", which the analysis does not know, makes a buffer device address " + where(in);
    return std::nullopt;
}

// A PhysicalStorageBuffer pointer used by an instruction whose effect through it is not a
// read, a derivation of another pointer, or a comparison / conversion of its value.
std::optional<std::string> DeviceAddressAnalysis::unfollowed_use(const Instruction& in) {
    switch (in.opcode()) {
        case op::Line:
        case op::NoLine:
        case op::CompositeExtract:  // its operands after the composite are literals
        case op::VectorShuffle:
        case op::LoopMerge:
        case op::SelectionMerge:
        case op::BranchConditional:
        case op::Switch:
            return std::nullopt;
        case op::ExtInst:
            if (module_.extended_instruction_set(in.operand(2)).starts_with("NonSemantic."))
                return std::nullopt;
            break;
        default:
            break;
    }
    return psb_operand_use(in);
}

std::optional<std::string> DeviceAddressAnalysis::psb_operand_use(const Instruction& in) {
    const uint32_t opcode = in.opcode();
    const auto operands = in.operands_from(0);
    for (size_t k = 0; k < operands.size(); ++k) {
        if (!is_device_address_type(type_of(operands[k]))) continue;
        if (k == 1 && is_known_pointer_producer(opcode)) continue;  // its own result
        if (opcode == op::ExtInst && k == 3) continue;  // the instruction's number, a literal
        switch (opcode) {
            case op::Load:
            case op::AtomicLoad:
            case op::CooperativeMatrixLoadKHR:
            case op::CooperativeMatrixLoadNV:
            case op::CooperativeMatrixLoadTensorNV:
            case op::AccessChain:
            case op::InBoundsAccessChain:
            case op::PtrAccessChain:
            case op::InBoundsPtrAccessChain:
            case op::ArrayLength:
                // The pointer read through or derived from; after it come indices (never
                // pointers) and memory-operand literals, which may equal an id by chance.
                if (k >= 2) continue;
                break;
            case op::Store:
                if (k >= 1) continue;  // the pointer's value stored, or memory operands
                return "OpStore writes through a buffer device address " + where(in);
            case op::FunctionCall:
                if (k >= 3 && module_.function(operands[2])) continue;  // followed in the callee
                break;
            case op::Variable:  // a function-scope variable initialised with the pointer
            case op::CompositeConstruct:
            case op::CompositeInsert:
            case op::CopyObject:
            case op::CopyLogical:
            case op::Bitcast:  // checked where addresses are formed
            case op::Select:
            case op::Phi:
            case op::ReturnValue:
            case op::ConvertPtrToU:
            case op::PtrEqual:
            case op::PtrNotEqual:
            case op::PtrDiff:
                continue;
            default:
                break;
        }
        return "opcode " + std::to_string(opcode) + " uses a buffer device address in a way " +
               "the analysis does not follow " + where(in);
    }
    return std::nullopt;
}

uint32_t DeviceAddressAnalysis::type_of(uint32_t id) const {
    if (auto it = local_types_.find(id); it != local_types_.end()) return it->second;
    const Instruction* def = module_.definition(id);
    if (!def || def->operand_count() < 2) return 0;
    const uint32_t opcode = def->opcode();
    const bool value = opcode == op::Variable || opcode == op::Undef ||
                       (opcode >= op::ConstantTrue && opcode <= op::SpecConstantOp);
    return value ? def->operand(0) : 0;
}

bool DeviceAddressAnalysis::is_pointer_type(uint32_t type) const {
    const Instruction* t = module_.definition(type);
    return t && t->opcode() == op::TypePointer;
}

bool DeviceAddressAnalysis::is_device_address_type(uint32_t type) const {
    const Instruction* t = module_.definition(type);
    return t && t->opcode() == op::TypePointer && t->operand_count() >= 3 &&
           t->operand(1) == storage_class::PhysicalStorageBuffer;
}

// A PhysicalStorageBuffer pointer, or a struct, array, vector or matrix holding one. Other
// pointers are values of the invocation's own memory and hold nothing by themselves.
bool DeviceAddressAnalysis::holds_device_address(uint32_t type, int depth) {
    if (is_device_address_type(type)) return true;
    if (depth > 64) return true;  // deeper than any real type: assume the worst
    if (auto it = holds_cache_.find(type); it != holds_cache_.end()) return it->second;
    const Instruction* t = module_.definition(type);
    bool holds = false;
    if (t) {
        switch (t->opcode()) {
            case op::TypeStruct:
                for (uint32_t member : t->operands_from(1))
                    holds = holds || holds_device_address(member, depth + 1);
                break;
            case op::TypeArray:
            case op::TypeRuntimeArray:
            case op::TypeVector:
            case op::TypeMatrix:
                holds = holds_device_address(t->operand(1), depth + 1);
                break;
            default:
                break;
        }
    }
    holds_cache_[type] = holds;
    return holds;
}

uint32_t DeviceAddressAnalysis::pointee(uint32_t pointer_type) const {
    const Instruction* t = module_.definition(pointer_type);
    return t && t->opcode() == op::TypePointer && t->operand_count() >= 3 ? t->operand(2) : 0;
}

uint32_t DeviceAddressAnalysis::storage_class_of(uint32_t pointer_value) const {
    const Instruction* t = module_.definition(type_of(pointer_value));
    return t && t->opcode() == op::TypePointer && t->operand_count() >= 3 ? t->operand(1)
                                                                          : kUnknownStorage;
}

std::string DeviceAddressAnalysis::where(const Instruction& in) const {
    return "(word " + std::to_string(in.offset) + ")";
}

}  // namespace graphlens::spirv
