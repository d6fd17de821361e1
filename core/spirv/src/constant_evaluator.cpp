#include "spirv/src/constant_evaluator.h"

#include <optional>
#include <string>

#include "spirv/src/spirv_enums.h"

namespace graphlens::spirv {
namespace {

// Deeper than any real OpSpecConstantOp chain; bounds the recursion on hostile input.
constexpr int kMaxDepth = 200;

uint64_t masked(uint64_t bits, uint32_t width) {
    return width >= 64 ? bits : bits & ((uint64_t{1} << width) - 1);
}

int64_t sign_extended(const ScalarValue& v) {
    if (v.width >= 64) return static_cast<int64_t>(v.bits);
    const uint64_t sign = uint64_t{1} << (v.width - 1);
    return static_cast<int64_t>((masked(v.bits, v.width) ^ sign) - sign);
}

std::string id_text(uint32_t id) {
    return "%" + std::to_string(id);
}

// Signed division and remainders, defined for every input: INT64_MIN / -1 wraps as two's
// complement hardware does, where C++ would be undefined.
int64_t signed_quotient(int64_t a, int64_t b) {
    return b == -1 ? static_cast<int64_t>(0 - static_cast<uint64_t>(a)) : a / b;
}

int64_t signed_remainder(int64_t a, int64_t b, bool sign_of_divisor) {
    if (b == -1) return 0;
    int64_t r = a % b;
    if (sign_of_divisor && r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

// The operations of one operand (Select, which evaluates lazily, aside); nullopt for others.
std::optional<uint64_t> unary_operation(uint32_t opcode, const ScalarValue& a) {
    switch (opcode) {
        case op::SNegate:
            return 0 - a.bits;
        case op::Not:
            return ~a.bits;
        case op::LogicalNot:
            return a.bits == 0;
        case op::UConvert:
            return a.bits;
        case op::SConvert:
            return static_cast<uint64_t>(sign_extended(a));
        default:
            return std::nullopt;
    }
}

// Arithmetic, shifts and bitwise operations of two operands; nullopt for others. A division by
// zero or a shift by the operand's width or more is SpirvError (located at `offset`), not the
// undefined behaviour C++ would give.
std::optional<uint64_t> arithmetic_operation(uint32_t opcode, const ScalarValue& a,
                                             const ScalarValue& b, size_t offset) {
    const int64_t sa = sign_extended(a), sb = sign_extended(b);
    auto nonzero_divisor = [&] {
        if (b.bits == 0) throw SpirvError("OpSpecConstantOp divides by zero", offset);
    };
    auto shift_amount = [&] {
        if (b.bits >= a.width)
            throw SpirvError("OpSpecConstantOp shifts a " + std::to_string(a.width) +
                                 "-bit value by " + std::to_string(b.bits),
                             offset);
        return static_cast<unsigned>(b.bits);
    };
    switch (opcode) {
        case op::IAdd:
            return a.bits + b.bits;
        case op::ISub:
            return a.bits - b.bits;
        case op::IMul:
            return a.bits * b.bits;
        case op::UDiv:
            nonzero_divisor();
            return a.bits / b.bits;
        case op::UMod:
            nonzero_divisor();
            return a.bits % b.bits;
        case op::SDiv:
            nonzero_divisor();
            return static_cast<uint64_t>(signed_quotient(sa, sb));
        case op::SRem:
        case op::SMod:
            nonzero_divisor();
            return static_cast<uint64_t>(signed_remainder(sa, sb, opcode == op::SMod));
        case op::ShiftLeftLogical:
            return a.bits << shift_amount();
        case op::ShiftRightLogical:
            return a.bits >> shift_amount();
        case op::ShiftRightArithmetic:
            return static_cast<uint64_t>(sa >> shift_amount());
        case op::BitwiseOr:
            return a.bits | b.bits;
        case op::BitwiseXor:
            return a.bits ^ b.bits;
        case op::BitwiseAnd:
            return a.bits & b.bits;
        default:
            return std::nullopt;
    }
}

// Logical operations and comparisons of two operands (1 or 0); nullopt for others.
std::optional<uint64_t> comparison_operation(uint32_t opcode, const ScalarValue& a,
                                             const ScalarValue& b) {
    const int64_t sa = sign_extended(a), sb = sign_extended(b);
    switch (opcode) {
        case op::LogicalOr:
            return a.bits != 0 || b.bits != 0;
        case op::LogicalAnd:
            return a.bits != 0 && b.bits != 0;
        case op::LogicalEqual:
            return (a.bits != 0) == (b.bits != 0);
        case op::LogicalNotEqual:
            return (a.bits != 0) != (b.bits != 0);
        case op::IEqual:
            return a.bits == b.bits;
        case op::INotEqual:
            return a.bits != b.bits;
        case op::UGreaterThan:
            return a.bits > b.bits;
        case op::UGreaterThanEqual:
            return a.bits >= b.bits;
        case op::ULessThan:
            return a.bits < b.bits;
        case op::ULessThanEqual:
            return a.bits <= b.bits;
        case op::SGreaterThan:
            return sa > sb;
        case op::SGreaterThanEqual:
            return sa >= sb;
        case op::SLessThan:
            return sa < sb;
        case op::SLessThanEqual:
            return sa <= sb;
        default:
            return std::nullopt;
    }
}

}  // namespace

ConstantEvaluator::ConstantEvaluator(const SpirvModule& module,
                                     std::span<const SpecializationValue> values)
    : module_(module) {
    for (const SpecializationValue& v : values) values_[v.id] = v.bytes;  // the last one wins
}

ScalarValue ConstantEvaluator::scalar(uint32_t id, size_t at) const {
    return evaluate(id, at, 0);
}

std::vector<uint32_t> ConstantEvaluator::constituents(uint32_t id, size_t at) const {
    const Instruction& in = module_.require(id, at);
    if (in.opcode() != op::ConstantComposite && in.opcode() != op::SpecConstantComposite)
        throw SpirvError(id_text(id) + " is not a composite constant", at);
    const auto ids = in.operands_from(2);
    return {ids.begin(), ids.end()};
}

ScalarValue ConstantEvaluator::evaluate(uint32_t id, size_t at, int depth) const {
    if (depth > kMaxDepth)
        throw SpirvError("constant expressions nest deeper than " + std::to_string(kMaxDepth), at);
    if (auto it = cache_.find(id); it != cache_.end()) return it->second;
    const Instruction& in = module_.require(id, at);
    if (!in_progress_.emplace(id, true).second)
        throw SpirvError("constant " + id_text(id) + " depends on itself", in.offset);
    const ScalarValue value = evaluate_uncached(in, depth);
    in_progress_.erase(id);
    cache_.emplace(id, value);
    return value;
}

ScalarValue ConstantEvaluator::evaluate_uncached(const Instruction& in, int depth) const {
    switch (in.opcode()) {
        case op::ConstantTrue:
        case op::ConstantFalse:
            return {in.opcode() == op::ConstantTrue ? 1u : 0u, 1, false};
        case op::ConstantNull:
            return {0, width_of_type(in.operand(0), in.offset), false};
        case op::Constant: {
            const uint32_t width = width_of_type(in.operand(0), in.offset);
            uint64_t bits = in.operand(2);
            if (width > 32) bits |= uint64_t{in.operand(3)} << 32;
            return {masked(bits, width), width, false};
        }
        case op::SpecConstantTrue:
        case op::SpecConstantFalse:
        case op::SpecConstant:
            return specialized_default(in, width_of_type(in.operand(0), in.offset));
        case op::SpecConstantOp:
            return evaluate_operation(in, width_of_type(in.operand(0), in.offset), depth);
        default:
            throw SpirvError(id_text(in.operand(1)) + " (opcode " + std::to_string(in.opcode()) +
                                 ") is not a scalar constant",
                             in.offset);
    }
}

ScalarValue ConstantEvaluator::specialized_default(const Instruction& in, uint32_t width) const {
    uint64_t bits = 0;
    if (in.opcode() == op::SpecConstantTrue) bits = 1;
    if (in.opcode() == op::SpecConstant) {
        bits = in.operand(2);
        if (width > 32) bits |= uint64_t{in.operand(3)} << 32;
    }
    const auto spec_id = module_.decoration(in.operand(1), decoration::SpecId);
    if (spec_id) {
        if (auto it = values_.find(*spec_id); it != values_.end()) {
            const auto bytes = it->second;
            if (bytes.size() != 1 && bytes.size() != 2 && bytes.size() != 4 && bytes.size() != 8)
                throw SpirvError("specialization constant " + std::to_string(*spec_id) + " has " +
                                     std::to_string(bytes.size()) +
                                     " bytes of data; 1, 2, 4 or 8 expected",
                                 in.offset);
            bits = 0;
            for (size_t i = 0; i < bytes.size(); ++i) bits |= uint64_t{bytes[i]} << (8 * i);
            if (width == 1) bits = bits != 0;
        }
    }
    return {masked(bits, width), width, true};
}

ScalarValue ConstantEvaluator::evaluate_operation(const Instruction& in, uint32_t width,
                                                  int depth) const {
    const uint32_t opcode = in.operand(2);
    if (opcode == op::CompositeExtract) return extract(in, depth);
    auto arg = [&](size_t k) { return evaluate(in.operand(3 + k), in.offset, depth + 1); };
    auto result = [&](uint64_t bits, bool specialized) {
        return ScalarValue{masked(bits, width), width, specialized};
    };
    const ScalarValue a = arg(0);
    if (opcode == op::Select) {  // evaluates only the operand it picks
        const ScalarValue picked = arg(a.bits != 0 ? 1 : 2);
        return result(picked.bits, a.specialized || picked.specialized);
    }
    if (const auto bits = unary_operation(opcode, a)) return result(*bits, a.specialized);
    const ScalarValue b = arg(1);
    const bool specialized = a.specialized || b.specialized;
    if (const auto bits = arithmetic_operation(opcode, a, b, in.offset))
        return result(*bits, specialized);
    if (const auto bits = comparison_operation(opcode, a, b)) return result(*bits, specialized);
    throw SpirvError("OpSpecConstantOp with opcode " + std::to_string(opcode) +
                         " is not evaluated (integer and logical operations are)",
                     in.offset);
}

ScalarValue ConstantEvaluator::extract(const Instruction& in, int depth) const {
    uint32_t id = in.operand(3);
    for (uint32_t index : in.operands_from(4)) {
        const std::vector<uint32_t> parts = constituents(id, in.offset);
        if (index >= parts.size())
            throw SpirvError("OpSpecConstantOp CompositeExtract index " + std::to_string(index) +
                                 " is past the composite's " + std::to_string(parts.size()) +
                                 " constituents",
                             in.offset);
        id = parts[index];
    }
    return evaluate(id, in.offset, depth + 1);
}

uint32_t ConstantEvaluator::width_of_type(uint32_t type, size_t at) const {
    const Instruction& t = module_.require(type, at);
    if (t.opcode() == op::TypeBool) return 1;
    if (t.opcode() == op::TypeInt || t.opcode() == op::TypeFloat) {
        const uint32_t width = t.operand(1);
        if (width == 0 || width > 64)
            throw SpirvError("scalar type of width " + std::to_string(width), t.offset);
        return width;
    }
    throw SpirvError(
        "constant of a type that is not a scalar (opcode " + std::to_string(t.opcode()) + ")", at);
}

}  // namespace graphlens::spirv
