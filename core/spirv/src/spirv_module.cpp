#include "spirv/src/spirv_module.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "graphlens/spirv/spirv_error.h"
#include "spirv/src/spirv_enums.h"

namespace graphlens::spirv {
namespace {

std::string hex(uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

uint32_t byte_swapped(uint32_t w) {
    return (w >> 24) | ((w >> 8) & 0xFF00u) | ((w << 8) & 0xFF0000u) | (w << 24);
}

uint64_t key_of(uint32_t id) {
    return uint64_t{id} << 32;
}

uint64_t key_of(uint32_t id, uint32_t member) {
    return uint64_t{id} << 32 | ((uint64_t{member} + 1) & 0xFFFFFFFFu);
}

bool is_type_opcode(uint32_t opcode) {
    switch (opcode) {
        case 322:   // OpTypePipeStorage
        case 327:   // OpTypeNamedBarrier
        case 4456:  // OpTypeCooperativeMatrixKHR
        case 4472:  // OpTypeRayQueryKHR
        case 5341:  // OpTypeAccelerationStructureKHR
        case 5358:  // OpTypeCooperativeMatrixNV
            return true;
        default:
            return opcode >= op::TypeVoid && opcode <= op::TypePipe;
    }
}

// Position of the result id of a global-scope instruction, or -1 when it has none that
// reflection looks up.
int global_result_position(uint32_t opcode) {
    if (is_type_opcode(opcode)) return 0;
    if (opcode == op::ExtInstImport || opcode == op::String || opcode == op::DecorationGroup)
        return 0;
    if ((opcode >= op::ConstantTrue && opcode <= op::SpecConstantOp) || opcode == op::Undef ||
        opcode == op::Variable)
        return 1;
    return -1;
}

}  // namespace

uint32_t Instruction::operand(size_t i) const {
    if (i + 1 >= words.size())
        throw SpirvError("opcode " + std::to_string(opcode()) + " has " +
                             std::to_string(operand_count()) + " operands; operand " +
                             std::to_string(i) + " is missing",
                         offset);
    return words[i + 1];
}

std::span<const uint32_t> Instruction::operands_from(size_t i) const {
    return i + 1 >= words.size() ? std::span<const uint32_t>{} : words.subspan(i + 1);
}

std::string Instruction::string_operand(size_t i, size_t* after) const {
    std::string out;
    for (size_t k = i; k < operand_count(); ++k) {
        const uint32_t w = words[k + 1];
        for (int b = 0; b < 4; ++b) {
            const char c = static_cast<char>((w >> (8 * b)) & 0xFFu);
            if (c == '\0') {
                if (after) *after = k + 1;
                return out;
            }
            out.push_back(c);
        }
    }
    throw SpirvError(
        "literal string of opcode " + std::to_string(opcode()) + " is not nul-terminated", offset);
}

SpirvModule::SpirvModule(std::span<const uint32_t> words) : words_(words.begin(), words.end()) {
    split_instructions();
    for (size_t i = 0; i < instructions_.size(); ++i) index_instruction(i);
    if (in_function_)
        throw SpirvError("the last function has no OpFunctionEnd", instructions_.back().offset);
}

void SpirvModule::split_instructions() {
    if (words_.size() < 5)
        throw SpirvError("a module of " + std::to_string(words_.size()) +
                         " words is shorter than the 5-word header");
    if (words_[0] == kMagicSwapped)
        std::transform(words_.begin(), words_.end(), words_.begin(), byte_swapped);
    else if (words_[0] != kMagic)
        throw SpirvError("not SPIR-V: magic number " + hex(words_[0]) + ", expected " + hex(kMagic),
                         0);
    id_bound_ = words_[3];
    const std::span<const uint32_t> all(words_);
    for (size_t offset = 5; offset < all.size();) {
        const size_t count = all[offset] >> 16;
        if (count == 0) throw SpirvError("instruction with a word count of 0", offset);
        if (count > all.size() - offset)
            throw SpirvError("instruction of " + std::to_string(count) +
                                 " words runs past the end of the module (" +
                                 std::to_string(all.size()) + " words)",
                             offset);
        instructions_.push_back({all.subspan(offset, count), offset});
        offset += count;
    }
}

void SpirvModule::index_instruction(size_t index) {
    const Instruction& in = instructions_[index];
    switch (in.opcode()) {
        case op::Function: {
            if (in_function_) throw SpirvError("OpFunction inside a function", in.offset);
            in_function_ = true;
            const uint32_t id = in.operand(1);
            if (!function_index_.emplace(id, functions_.size()).second)
                throw SpirvError("function %" + std::to_string(id) + " is defined twice",
                                 in.offset);
            functions_.push_back({id, {}, index + 1, index + 1});
            return;
        }
        case op::FunctionParameter:
            if (!in_function_)
                throw SpirvError("OpFunctionParameter outside a function", in.offset);
            functions_.back().parameters.push_back(in.operand(1));
            return;
        case op::FunctionEnd:
            if (!in_function_) throw SpirvError("OpFunctionEnd outside a function", in.offset);
            functions_.back().end = index;
            in_function_ = false;
            return;
        default:
            if (in_function_) return;
    }
    switch (in.opcode()) {
        case op::ExecutionMode:
        case op::ExecutionModeId:
            execution_modes_.push_back(index);
            return;
        default:
            index_global(in);
    }
    if (const int at = global_result_position(in.opcode()); at >= 0)
        define(in.operand(static_cast<size_t>(at)), index, in);
}

void SpirvModule::index_global(const Instruction& in) {
    switch (in.opcode()) {
        case op::Name:
            names_[in.operand(0)] = in.string_operand(1);
            return;
        case op::ExtInstImport:
            extended_sets_[in.operand(0)] = in.string_operand(1);
            return;
        case op::EntryPoint: {
            EntryPoint ep{in.operand(0), in.operand(1), {}, {}, in.offset};
            size_t after = 0;
            ep.name = in.string_operand(2, &after);
            const auto ids = in.operands_from(after);
            ep.interface.assign(ids.begin(), ids.end());
            entry_points_.push_back(std::move(ep));
            return;
        }
        case op::Capability:
            capabilities_.push_back(in.operand(0));
            return;
        case op::MemoryModel:
            addressing_model_ = in.operand(0);
            return;
        case op::Variable:
            global_variables_.push_back(in.operand(1));
            return;
        default:
            index_annotation(in);
    }
}

void SpirvModule::index_annotation(const Instruction& in) {
    auto first_literal = [&](size_t i) { return in.operand_count() > i ? in.operand(i) : 0u; };
    switch (in.opcode()) {
        case op::Decorate:
            decorations_[key_of(in.operand(0))].push_back({in.operand(1), first_literal(2)});
            return;
        case op::MemberDecorate:
            decorations_[key_of(in.operand(0), in.operand(1))].push_back(
                {in.operand(2), first_literal(3)});
            return;
        case op::GroupDecorate:
            for (uint32_t target : in.operands_from(1))
                groups_[key_of(target)].push_back(in.operand(0));
            return;
        case op::GroupMemberDecorate: {
            const auto pairs = in.operands_from(1);
            for (size_t i = 0; i + 1 < pairs.size(); i += 2)
                groups_[key_of(pairs[i], pairs[i + 1])].push_back(in.operand(0));
            return;
        }
        default:
            return;
    }
}

void SpirvModule::define(uint32_t id, size_t index, const Instruction& in) {
    if (id == 0 || id >= id_bound_)
        throw SpirvError("id %" + std::to_string(id) + " is outside the header's id bound " +
                             std::to_string(id_bound_),
                         in.offset);
    if (!definitions_.emplace(id, index).second)
        throw SpirvError("id %" + std::to_string(id) + " is defined twice", in.offset);
}

const Instruction* SpirvModule::definition(uint32_t id) const {
    auto it = definitions_.find(id);
    return it == definitions_.end() ? nullptr : &instructions_[it->second];
}

const Instruction& SpirvModule::require(uint32_t id, size_t at) const {
    if (const Instruction* in = definition(id)) return *in;
    throw SpirvError("id %" + std::to_string(id) + " is not defined at global scope", at);
}

const Function* SpirvModule::function(uint32_t id) const {
    auto it = function_index_.find(id);
    return it == function_index_.end() ? nullptr : &functions_[it->second];
}

const std::vector<Decoration>* SpirvModule::find_decorations(uint64_t key) const {
    auto it = decorations_.find(key);
    return it == decorations_.end() ? nullptr : &it->second;
}

std::optional<uint32_t> SpirvModule::decoration(uint32_t id, uint32_t kind) const {
    return member_decoration(id, 0xFFFFFFFFu, kind);  // member + 1 wraps to 0: the id itself
}

std::optional<uint32_t> SpirvModule::member_decoration(uint32_t id, uint32_t member,
                                                       uint32_t kind) const {
    const uint64_t key = key_of(id, member);
    auto search = [&](const std::vector<Decoration>* list) -> std::optional<uint32_t> {
        if (list)
            for (const Decoration& d : *list)
                if (d.kind == kind) return d.value;
        return std::nullopt;
    };
    if (auto v = search(find_decorations(key))) return v;
    if (auto it = groups_.find(key); it != groups_.end())
        for (uint32_t group : it->second)
            if (auto v = search(find_decorations(key_of(group)))) return v;
    return std::nullopt;
}

std::vector<uint32_t> SpirvModule::decorated_with(uint32_t kind, uint32_t value) const {
    std::vector<uint32_t> ids;
    for (const auto& [key, list] : decorations_)
        if ((key & 0xFFFFFFFFu) == 0)
            for (const Decoration& d : list)
                if (d.kind == kind && d.value == value)
                    ids.push_back(static_cast<uint32_t>(key >> 32));
    std::sort(ids.begin(), ids.end());
    return ids;
}

std::string_view SpirvModule::name(uint32_t id) const {
    auto it = names_.find(id);
    return it == names_.end() ? std::string_view{} : std::string_view(it->second);
}

std::string_view SpirvModule::extended_instruction_set(uint32_t id) const {
    auto it = extended_sets_.find(id);
    return it == extended_sets_.end() ? std::string_view{} : std::string_view(it->second);
}

bool SpirvModule::has_capability(uint32_t capability) const {
    return std::find(capabilities_.begin(), capabilities_.end(), capability) != capabilities_.end();
}

std::vector<const Instruction*> SpirvModule::execution_modes(uint32_t function) const {
    std::vector<const Instruction*> out;
    for (size_t index : execution_modes_)
        if (instructions_[index].operand(0) == function) out.push_back(&instructions_[index]);
    return out;
}

}  // namespace graphlens::spirv
