#pragma once
// Declared byte sizes of explicitly laid-out types (push-constant blocks): scalars, vectors,
// matrices (MatrixStride, RowMajor), arrays (ArrayStride; the length may be a specialization
// constant), structs (max of member Offset + member size) and PhysicalStorageBuffer pointers.
// The same sizes spirv-cross reports as a struct's declared size.
#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>

#include "spirv/src/constant_evaluator.h"
#include "spirv/src/spirv_module.h"

namespace graphlens::spirv {

class TypeLayout {
  public:
    TypeLayout(const SpirvModule& module, const ConstantEvaluator& constants)
        : module_(module), constants_(constants) {}

    /// Bytes of a struct type: max(Offset + size) over its members; 0 for no members.
    uint64_t struct_size(uint32_t type, size_t at) const;

  private:
    // How a matrix is laid out: the decorations of the struct member that holds it.
    struct MatrixLayout {
        uint32_t stride = 0;
        bool row_major = false;
        auto operator<=>(const MatrixLayout&) const = default;
    };
    uint64_t size(uint32_t type, MatrixLayout matrix, size_t at, int depth) const;
    uint64_t size_uncached(const Instruction& t, MatrixLayout matrix, int depth) const;
    uint64_t struct_size(const Instruction& t, int depth) const;

    const SpirvModule& module_;
    const ConstantEvaluator& constants_;
    // Memoised so that a hostile DAG of structs sharing members costs its size, not 2^depth.
    mutable std::map<std::tuple<uint32_t, uint32_t, bool>, uint64_t> cache_;
};

}  // namespace graphlens::spirv
