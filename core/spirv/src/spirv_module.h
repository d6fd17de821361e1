#pragma once
// A SPIR-V module split into instructions, with the tables reflection looks things up in:
// global definitions by id, decorations, names, functions, entry points, execution modes.
// Every operand is read through Instruction::operand, which checks the instruction's word
// count, so hostile input ends in SpirvError and never reads past an instruction.
// Memory is proportional to the number of words: per-id tables are hash maps, never arrays
// sized by the header's id bound.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace graphlens::spirv {

struct Instruction {
    std::span<const uint32_t> words;  ///< the whole instruction; words[0] = count << 16 | opcode
    size_t offset = 0;                ///< word offset in the module, for error messages

    uint32_t opcode() const { return words[0] & 0xFFFFu; }
    size_t operand_count() const { return words.size() - 1; }
    /// Operand i (0 = the word after the opcode); SpirvError when the instruction is shorter.
    uint32_t operand(size_t i) const;
    /// The operands from i on; empty when there are none.
    std::span<const uint32_t> operands_from(size_t i) const;
    /// The literal string starting at operand i; `after` receives the operand index after it.
    std::string string_operand(size_t i, size_t* after = nullptr) const;
};

struct Decoration {
    uint32_t kind = 0;
    uint32_t value = 0;  ///< the first literal, 0 when there is none
};

struct Function {
    uint32_t id = 0;
    std::vector<uint32_t> parameters;  ///< OpFunctionParameter result ids, in order
    size_t first = 0, end = 0;         ///< instruction indices of the body: [first, end)
};

struct EntryPoint {
    uint32_t execution_model = 0;
    uint32_t function = 0;
    std::string name;
    std::vector<uint32_t> interface;
    size_t offset = 0;
};

class SpirvModule {
  public:
    /// Copies the words (byte-swapping a big-endian module) and indexes them.
    explicit SpirvModule(std::span<const uint32_t> words);

    uint32_t version() const { return words_[1]; }
    const std::vector<Instruction>& instructions() const { return instructions_; }
    const std::vector<Function>& functions() const { return functions_; }
    const std::vector<EntryPoint>& entry_points() const { return entry_points_; }

    /// The instruction that defines a global id (type, constant, variable, ...), or null.
    const Instruction* definition(uint32_t id) const;
    /// As definition(), but SpirvError (located at `at`) when the id has none.
    const Instruction& require(uint32_t id, size_t at) const;
    const Function* function(uint32_t id) const;

    std::optional<uint32_t> decoration(uint32_t id, uint32_t kind) const;
    std::optional<uint32_t> member_decoration(uint32_t id, uint32_t member, uint32_t kind) const;
    bool has_decoration(uint32_t id, uint32_t kind) const {
        return decoration(id, kind).has_value();
    }
    bool has_member_decoration(uint32_t id, uint32_t member, uint32_t kind) const {
        return member_decoration(id, member, kind).has_value();
    }
    /// Ids that an OpDecorate gives this decoration with this first literal.
    std::vector<uint32_t> decorated_with(uint32_t kind, uint32_t value) const;

    std::string_view name(uint32_t id) const;
    /// The name an OpExtInstImport id imports ("GLSL.std.450", "NonSemantic...."), or "".
    std::string_view extended_instruction_set(uint32_t id) const;

    bool has_capability(uint32_t capability) const;
    uint32_t addressing_model() const { return addressing_model_; }
    /// OpExecutionMode / OpExecutionModeId instructions of a function.
    std::vector<const Instruction*> execution_modes(uint32_t function) const;
    /// Result ids of the OpVariables outside functions, in module order.
    const std::vector<uint32_t>& global_variables() const { return global_variables_; }

  private:
    void split_instructions();
    void index_instruction(size_t index);
    void index_global(const Instruction& in);
    void index_annotation(const Instruction& in);
    void define(uint32_t id, size_t index, const Instruction& in);
    const std::vector<Decoration>* find_decorations(uint64_t key) const;

    std::vector<uint32_t> words_;
    std::vector<Instruction> instructions_;
    std::vector<Function> functions_;
    std::vector<EntryPoint> entry_points_;
    std::unordered_map<uint32_t, size_t> definitions_;  // id -> instruction index
    std::unordered_map<uint32_t, size_t> function_index_;
    // Decorations keyed by id << 32 | (member + 1), member 0 meaning the id itself.
    std::unordered_map<uint64_t, std::vector<Decoration>> decorations_;
    // Decoration groups applied to a key (OpGroupDecorate / OpGroupMemberDecorate), resolved
    // on lookup so that a group applied many times costs one word per target, not a copy.
    std::unordered_map<uint64_t, std::vector<uint32_t>> groups_;
    std::unordered_map<uint32_t, std::string> names_;
    std::unordered_map<uint32_t, std::string> extended_sets_;
    std::vector<uint32_t> capabilities_;
    std::vector<size_t> execution_modes_;  // instruction indices
    std::vector<uint32_t> global_variables_;
    uint32_t id_bound_ = 0;
    uint32_t addressing_model_ = 0;
    bool in_function_ = false;
};

}  // namespace graphlens::spirv
