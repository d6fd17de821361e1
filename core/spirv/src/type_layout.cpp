#include "spirv/src/type_layout.h"

#include <algorithm>
#include <string>

#include "spirv/src/spirv_enums.h"

namespace graphlens::spirv {
namespace {

constexpr int kMaxTypeNesting = 64;        // nesting of arrays and structs
constexpr uint64_t kMaxSize = 1ull << 40;  // far above any block; keeps products in range

uint64_t checked_product(uint64_t a, uint64_t b, size_t at) {
    if (a != 0 && b > kMaxSize / a)
        throw SpirvError(
            "type size overflows (" + std::to_string(a) + " x " + std::to_string(b) + ")", at);
    return a * b;
}

}  // namespace

uint64_t TypeLayout::struct_size(uint32_t type, size_t at) const {
    return size(type, {}, at, 0);
}

uint64_t TypeLayout::size(uint32_t type, MatrixLayout matrix, size_t at, int depth) const {
    if (depth > kMaxTypeNesting)
        throw SpirvError("types nest deeper than " + std::to_string(kMaxTypeNesting), at);
    const auto key = std::make_tuple(type, matrix.stride, matrix.row_major);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    const uint64_t bytes = size_uncached(module_.require(type, at), matrix, depth);
    cache_.emplace(key, bytes);
    return bytes;
}

uint64_t TypeLayout::size_uncached(const Instruction& t, MatrixLayout matrix, int depth) const {
    switch (t.opcode()) {
        case op::TypeBool:
            return 4;
        case op::TypeInt:
        case op::TypeFloat: {
            const uint32_t width = t.operand(1);
            if (width == 0 || width % 8 != 0 || width > 64)
                throw SpirvError("scalar of " + std::to_string(width) + " bits", t.offset);
            return width / 8;
        }
        case op::TypeVector:
            return checked_product(t.operand(2), size(t.operand(1), {}, t.offset, depth + 1),
                                   t.offset);
        case op::TypeMatrix: {
            // Column-major: one stride per column; row-major: one per row of the column type.
            const uint32_t columns = t.operand(2);
            if (matrix.stride == 0)
                return checked_product(columns, size(t.operand(1), {}, t.offset, depth + 1),
                                       t.offset);
            const uint32_t rows = module_.require(t.operand(1), t.offset).operand(2);
            return checked_product(matrix.row_major ? rows : columns, matrix.stride, t.offset);
        }
        case op::TypeArray: {
            const uint64_t length = constants_.scalar(t.operand(2), t.offset).bits;
            const auto stride = module_.decoration(t.operand(0), decoration::ArrayStride);
            const uint64_t element =
                stride ? *stride : size(t.operand(1), matrix, t.offset, depth + 1);
            return checked_product(length, element, t.offset);
        }
        case op::TypeRuntimeArray:
            return 0;
        case op::TypeStruct:
            return struct_size(t, depth);
        case op::TypePointer:
            return 8;  // a PhysicalStorageBuffer address
        default:
            throw SpirvError("type with opcode " + std::to_string(t.opcode()) +
                                 " has no size in an explicit layout",
                             t.offset);
    }
}

uint64_t TypeLayout::struct_size(const Instruction& t, int depth) const {
    const uint32_t id = t.operand(0);
    const auto members = t.operands_from(1);
    uint64_t end = 0;
    for (uint32_t m = 0; m < members.size(); ++m) {
        const auto offset = module_.member_decoration(id, m, decoration::Offset);
        if (!offset)
            throw SpirvError("member " + std::to_string(m) + " of struct %" + std::to_string(id) +
                                 " has no Offset",
                             t.offset);
        MatrixLayout matrix;
        matrix.stride = module_.member_decoration(id, m, decoration::MatrixStride).value_or(0);
        matrix.row_major = module_.has_member_decoration(id, m, decoration::RowMajor);
        end = std::max(end, *offset + size(members[m], matrix, t.offset, depth + 1));
    }
    return end;
}

}  // namespace graphlens::spirv
