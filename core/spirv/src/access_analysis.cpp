#include "spirv/src/access_analysis.h"

#include <algorithm>
#include <string>
#include <unordered_set>

#include "graphlens/spirv/spirv_error.h"
#include "spirv/src/spirv_enums.h"

namespace graphlens::spirv {
namespace {

bool is_read_modify_write_atomic(uint32_t opcode) {
    return (opcode >= op::AtomicExchange && opcode <= op::AtomicXor) ||
           opcode == op::AtomicFlagTestAndSet || opcode == op::AtomicFMinEXT ||
           opcode == op::AtomicFMaxEXT || opcode == op::AtomicFAddEXT;
}

// Instructions that take no pointer operand but have literal operands, which may equal a
// tracked id by chance; they must not make a binding escape.
bool takes_no_pointer(uint32_t opcode) {
    switch (opcode) {
        case op::CompositeExtract:
        case op::CompositeInsert:
        case op::VectorShuffle:
        case op::LoopMerge:
        case op::SelectionMerge:
        case op::BranchConditional:
        case op::Switch:
        case 224:  // OpControlBarrier
        case 225:  // OpMemoryBarrier
        case op::ArrayLength:
        case op::PtrEqual:
        case op::PtrNotEqual:
        case op::PtrDiff:
            return true;
        default:
            return false;
    }
}

bool is_image_query(uint32_t opcode) {
    return opcode >= op::ImageQueryFormat && opcode <= op::ImageQuerySamples;
}

}  // namespace

// One variable's walk: the ids derived from it (pointers, or image handles loaded from it),
// grown to a fixpoint over the use lists; each (id, use) pair is visited once.
class PointerWalk {
  public:
    explicit PointerWalk(const AccessAnalysis& a) : a_(a) {}

    CodeAccess run(uint32_t variable) {
        track(variable, Kind::pointer);
        while (!pending_.empty()) {
            const uint32_t id = pending_.back();
            pending_.pop_back();
            const Tracked t = tracked_.at(id);
            if (auto it = a_.uses_.find(id); it != a_.uses_.end())
                for (size_t index : it->second)
                    if (index != t.definer) visit(index, id, t.kind);
        }
        return access_;
    }

  private:
    enum class Kind : uint8_t { pointer, handle };
    static constexpr size_t kNone = static_cast<size_t>(-1);
    struct Tracked {
        Kind kind;
        size_t definer;
    };

    // `definer`: the instruction whose result `id` is, which is among its uses (the use
    // lists hold every operand word) but does nothing with it.
    void track(uint32_t id, Kind kind, size_t definer = kNone) {
        if (tracked_.emplace(id, Tracked{kind, definer}).second) pending_.push_back(id);
    }

    void visit(size_t index, uint32_t id, Kind kind) {
        const Instruction& in = a_.module_.instructions()[index];
        here_ = index;
        switch (in.opcode()) {  // the ways either kind passes on
            case op::FunctionParameter:
                return;  // the definition of a tracked parameter
            case op::CopyObject:
                if (in.operand(2) == id) track(in.operand(1), kind, here_);
                return;
            case op::Select:
                if (in.operand(3) == id || in.operand(4) == id) track(in.operand(1), kind, here_);
                return;
            case op::Phi:
                for (size_t k = 2; k < in.operand_count(); k += 2)
                    if (in.operand(k) == id) track(in.operand(1), kind, here_);
                return;
            case op::FunctionCall:
                return call(in, id, kind);
            case op::ReturnValue:
                return returned(index, kind);
            default:
                return kind == Kind::pointer ? visit_pointer_use(in, id) : visit_handle_use(in, id);
        }
    }

    void visit_pointer_use(const Instruction& in, uint32_t id) {
        const uint32_t opcode = in.opcode();
        switch (opcode) {
            case op::AccessChain:
            case op::InBoundsAccessChain:
            case op::PtrAccessChain:
            case op::InBoundsPtrAccessChain:
            case op::ImageTexelPointer:
                if (in.operand(2) == id) track(in.operand(1), Kind::pointer, here_);
                return;
            case op::Bitcast:
                if (in.operand(2) != id) return;
                if (is_type(in.operand(0), op::TypePointer))
                    track(in.operand(1), Kind::pointer, here_);
                else
                    access_.escapes = true;  // to an integer: followed no further
                return;
            case op::Load:
                if (in.operand(2) != id) return;
                if (loads_handle(in))
                    track(in.operand(1), Kind::handle, here_);
                else
                    access_.reads = true;
                return;
            case op::Store:
                if (in.operand(0) == id) access_.writes = true;
                if (in.operand(1) == id) access_.escapes = true;  // the pointer itself is stored
                return;
            case op::CopyMemory:
            case op::CopyMemorySized:
                if (in.operand(0) == id) access_.writes = true;
                if (in.operand(1) == id) access_.reads = true;
                return;
            case op::AtomicLoad:
            case op::CooperativeMatrixLoadKHR:
            case op::CooperativeMatrixLoadNV:
            case op::CooperativeMatrixLoadTensorNV:
                if (in.operand(2) == id) access_.reads = true;
                return;
            case op::AtomicStore:
            case op::AtomicFlagClear:
            case op::CooperativeMatrixStoreKHR:
            case op::CooperativeMatrixStoreNV:
            case op::CooperativeMatrixStoreTensorNV:
                if (in.operand(0) == id) access_.writes = true;
                return;
            case op::ExtInst: {  // GLSL.std.450's Modf / Frexp write through a pointer operand
                const auto operands = in.operands_from(4);
                if (std::find(operands.begin(), operands.end(), id) != operands.end())
                    access_.escapes = true;
                return;
            }
            case op::Variable:  // a function-scope variable initialised with the pointer
                if (in.operand_count() > 3 && in.operand(3) == id) access_.escapes = true;
                return;
            default:
                if (is_read_modify_write_atomic(opcode)) {
                    if (in.operand(2) == id) access_.reads = access_.writes = true;
                } else if (!takes_no_pointer(opcode)) {
                    access_.escapes = true;
                }
        }
    }

    // An image handle writes only through OpImageWrite; queries touch no texel.
    void visit_handle_use(const Instruction& in, uint32_t id) {
        const uint32_t opcode = in.opcode();
        if (opcode == op::ImageWrite) {
            if (in.operand(0) == id) access_.writes = true;
        } else if (opcode == op::SampledImage || opcode == op::Image) {
            if (in.operand(2) == id) track(in.operand(1), Kind::handle, here_);
        } else if (opcode == op::Store) {
            if (in.operand(1) == id) access_.escapes = true;
        } else if (!is_image_query(opcode) && !takes_no_pointer(opcode)) {
            access_.reads = true;
        }
    }

    void call(const Instruction& in, uint32_t id, Kind kind) {
        const Function* callee = a_.module_.function(in.operand(2));
        const auto args = in.operands_from(3);
        for (size_t k = 0; k < args.size(); ++k) {
            if (args[k] != id) continue;
            if (callee && k < callee->parameters.size())
                track(callee->parameters[k], kind);
            else
                access_.escapes = true;  // an undefined function, or more arguments than parameters
        }
    }

    void returned(size_t index, Kind kind) {
        const uint32_t function = a_.returns_.at(index);
        if (!returning_.insert(function).second) return;
        if (auto it = a_.calls_.find(function); it != a_.calls_.end())
            for (size_t call : it->second) track(a_.module_.instructions()[call].operand(1), kind);
    }

    bool is_type(uint32_t type, uint32_t opcode) const {
        const Instruction* t = a_.module_.definition(type);
        return t && t->opcode() == opcode;
    }

    bool loads_handle(const Instruction& load) const {
        const uint32_t type = load.operand(0);
        return is_type(type, op::TypeImage) || is_type(type, op::TypeSampledImage) ||
               is_type(type, op::TypeSampler) || is_type(type, 5341);  // acceleration structure
    }

    const AccessAnalysis& a_;
    std::unordered_map<uint32_t, Tracked> tracked_;
    std::vector<uint32_t> pending_;
    std::unordered_set<uint32_t> returning_;  // functions that return a tracked id
    CodeAccess access_;
    size_t here_ = kNone;  // the instruction being visited
};

AccessAnalysis::AccessAnalysis(const SpirvModule& module, uint32_t entry_function, size_t at)
    : module_(module) {
    collect_reachable(entry_function, at);
    for (const Function* f : reachable_) index_uses(*f);
}

CodeAccess AccessAnalysis::access_of(uint32_t variable) const {
    return PointerWalk(*this).run(variable);
}

void AccessAnalysis::collect_reachable(uint32_t entry_function, size_t at) {
    const Function* entry = module_.function(entry_function);
    if (!entry)
        throw SpirvError(
            "the entry point's function %" + std::to_string(entry_function) + " is not defined",
            at);
    std::unordered_set<uint32_t> seen{entry_function};
    reachable_.push_back(entry);
    for (size_t next = 0; next < reachable_.size(); ++next) {
        const Function& f = *reachable_[next];
        for (size_t i = f.first; i < f.end; ++i) {
            // Called (OpFunctionCall) or handed to the driver to call (a cooperative-matrix
            // decode, per-element or reduce function): any operand naming a function. A
            // literal that equals a function's id by chance only adds code to the walk.
            const Instruction& in = module_.instructions()[i];
            if (is_debug_only(in)) continue;
            for (uint32_t word : in.operands_from(0)) {
                const Function* callee = module_.function(word);
                if (callee && seen.insert(callee->id).second) reachable_.push_back(callee);
            }
        }
    }
}

void AccessAnalysis::index_uses(const Function& f) {
    for (size_t i = f.first; i < f.end; ++i) {
        const Instruction& in = module_.instructions()[i];
        if (is_debug_only(in)) continue;
        if (in.opcode() == op::FunctionCall) calls_[in.operand(2)].push_back(i);
        if (in.opcode() == op::ReturnValue) returns_[i] = f.id;
        for (uint32_t word : in.operands_from(0)) {
            auto& list = uses_[word];
            if (list.empty() || list.back() != i) list.push_back(i);
        }
    }
}

bool AccessAnalysis::is_debug_only(const Instruction& in) const {
    if (in.opcode() == op::Line || in.opcode() == op::NoLine) return true;
    return in.opcode() == op::ExtInst &&
           module_.extended_instruction_set(in.operand(2)).starts_with("NonSemantic.");
}

}  // namespace graphlens::spirv
