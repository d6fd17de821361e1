#pragma once
// A tiny SPIR-V assembler for tests that need modules glslang cannot produce (two entry
// points, pointers passed to functions, LocalSizeId, hostile words). Instructions go into the
// section the SPIR-V layout requires; words() puts the sections in order after the header.
// It knows a storage buffer `{ uint data[]; }` so tests can say what a kernel does with one.
#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <vector>

#include "spirv/src/spirv_enums.h"

namespace graphlens::spirv::test {

class ModuleBuilder {
  public:
    explicit ModuleBuilder(uint32_t version = 0x00010000) : version_(version) {
        emit(preamble_, op::Capability, {1});      // Shader
        emit(preamble_, op::MemoryModel, {0, 1});  // Logical GLSL450
        void_type = type(op::TypeVoid, {});
        void_function = type(op::TypeFunction, {void_type});
        uint_type = type(op::TypeInt, {32, 0});
        bool_type = type(op::TypeBool, {});
        const uint32_t runtime_array = type(op::TypeRuntimeArray, {uint_type});
        decorate(runtime_array, decoration::ArrayStride, {4});
        block_type = type(op::TypeStruct, {runtime_array});
        decorate(block_type, decoration::Block);
        member_decorate(block_type, 0, decoration::Offset, {0});
        block_pointer = type(op::TypePointer, {storage_class::StorageBuffer, block_type});
        uint_pointer = type(op::TypePointer, {storage_class::StorageBuffer, uint_type});
        zero = constant(0);
    }

    uint32_t fresh() { return next_id_++; }

    void entry_point(uint32_t function, std::string_view name, std::vector<uint32_t> interface,
                     uint32_t model = kExecutionModelGLCompute) {
        std::vector<uint32_t> operands{model, function};
        append_string(operands, name);
        operands.insert(operands.end(), interface.begin(), interface.end());
        emit(entry_points_, op::EntryPoint, operands);
    }
    void local_size(uint32_t function, uint32_t x, uint32_t y, uint32_t z) {
        emit(modes_, op::ExecutionMode, {function, kExecutionModeLocalSize, x, y, z});
    }
    void local_size_id(uint32_t function, uint32_t x, uint32_t y, uint32_t z) {
        emit(modes_, op::ExecutionModeId, {function, kExecutionModeLocalSizeId, x, y, z});
    }
    void decorate(uint32_t id, uint32_t kind, std::vector<uint32_t> literals = {}) {
        literals.insert(literals.begin(), {id, kind});
        emit(annotations_, op::Decorate, literals);
    }
    void member_decorate(uint32_t id, uint32_t member, uint32_t kind,
                         std::vector<uint32_t> literals = {}) {
        literals.insert(literals.begin(), {id, member, kind});
        emit(annotations_, op::MemberDecorate, literals);
    }

    /// A global instruction whose first operand is its result (types).
    uint32_t type(uint32_t opcode, std::vector<uint32_t> operands) {
        const uint32_t id = fresh();
        operands.insert(operands.begin(), id);
        emit(globals_, opcode, operands);
        return id;
    }
    /// A global instruction with a result type and a result (constants, variables).
    uint32_t global(uint32_t opcode, uint32_t result_type, std::vector<uint32_t> operands) {
        const uint32_t id = fresh();
        operands.insert(operands.begin(), {result_type, id});
        emit(globals_, opcode, operands);
        return id;
    }
    uint32_t constant(uint32_t value) { return global(op::Constant, uint_type, {value}); }
    uint32_t spec_constant(uint32_t spec_id, uint32_t default_value) {
        const uint32_t id = global(op::SpecConstant, uint_type, {default_value});
        decorate(id, decoration::SpecId, {spec_id});
        return id;
    }

    /// A `buffer { uint data[]; }` at (set, binding).
    uint32_t storage_buffer(uint32_t set, uint32_t binding) {
        const uint32_t id = global(op::Variable, block_pointer, {storage_class::StorageBuffer});
        decorate(id, decoration::DescriptorSet, {set});
        decorate(id, decoration::Binding, {binding});
        return id;
    }

    /// Starts a function returning `result` with parameters of these types; `parameters`
    /// receives their ids. Ends with end_function().
    uint32_t begin_function(uint32_t result, std::vector<uint32_t> parameter_types = {},
                            std::vector<uint32_t>* parameters = nullptr) {
        std::vector<uint32_t> signature{result};
        signature.insert(signature.end(), parameter_types.begin(), parameter_types.end());
        const uint32_t function_type = parameter_types.empty() && result == void_type
                                           ? void_function
                                           : type(op::TypeFunction, signature);
        const uint32_t id = fresh();
        emit(functions_, op::Function, {result, id, 0, function_type});
        for (uint32_t t : parameter_types) {
            const uint32_t p = fresh();
            emit(functions_, op::FunctionParameter, {t, p});
            if (parameters) parameters->push_back(p);
        }
        emit(functions_, 248, {fresh()});  // OpLabel
        return id;
    }
    void end_function() {
        emit(functions_, 253, {});  // OpReturn
        emit(functions_, op::FunctionEnd, {});
    }
    /// An instruction in the current function, without a result.
    void code(uint32_t opcode, std::vector<uint32_t> operands) {
        emit(functions_, opcode, operands);
    }
    /// An instruction in the current function with a result type and a result.
    uint32_t value(uint32_t opcode, uint32_t result_type, std::vector<uint32_t> operands) {
        const uint32_t id = fresh();
        operands.insert(operands.begin(), {result_type, id});
        emit(functions_, opcode, operands);
        return id;
    }
    /// &buffer.data[0]
    uint32_t element(uint32_t buffer) {
        return value(op::AccessChain, uint_pointer, {buffer, zero, zero});
    }

    std::vector<uint32_t> words() const {
        std::vector<uint32_t> out{kMagic, version_, 0, next_id_, 0};
        for (const auto* s :
             {&preamble_, &entry_points_, &modes_, &annotations_, &globals_, &functions_})
            out.insert(out.end(), s->begin(), s->end());
        return out;
    }

    uint32_t void_type, void_function, uint_type, bool_type, block_type, block_pointer,
        uint_pointer, zero;

  private:
    static void append_string(std::vector<uint32_t>& out, std::string_view s) {
        for (size_t i = 0; i <= s.size(); i += 4) {
            uint32_t w = 0;
            for (size_t b = 0; b < 4 && i + b < s.size(); ++b)
                w |= uint32_t{static_cast<uint8_t>(s[i + b])} << (8 * b);
            out.push_back(w);
        }
    }
    static void emit(std::vector<uint32_t>& section, uint32_t opcode,
                     const std::vector<uint32_t>& operands) {
        section.push_back(static_cast<uint32_t>(operands.size() + 1) << 16 | opcode);
        section.insert(section.end(), operands.begin(), operands.end());
    }

    uint32_t version_;
    uint32_t next_id_ = 1;
    std::vector<uint32_t> preamble_, entry_points_, modes_, annotations_, globals_, functions_;
};

}  // namespace graphlens::spirv::test
