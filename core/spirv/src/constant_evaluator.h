#pragma once
// Values of constants and specialization constants, with the pipeline's specialization data
// applied: OpConstant*, OpSpecConstant (SpecId overridden by the caller's bytes),
// OpSpecConstantTrue/False, composites and OpSpecConstantOp for the integer and logical
// operations (the ones Vulkan sizes are computed with). Evaluation is memoised and
// depth-limited, so a hostile module's cycles or deep chains end in SpirvError.
#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "graphlens/spirv/spirv_reflection.h"
#include "spirv/src/spirv_module.h"

namespace graphlens::spirv {

struct ScalarValue {
    uint64_t bits = 0;         ///< the value, masked to `width` bits
    uint32_t width = 32;       ///< 1 for a bool
    bool specialized = false;  ///< a specialization constant takes part in it
};

class ConstantEvaluator {
  public:
    ConstantEvaluator(const SpirvModule& module, std::span<const SpecializationValue> values);

    /// The scalar value of a constant id; SpirvError (located at `at`) when it is none.
    ScalarValue scalar(uint32_t id, size_t at) const;
    /// The constituent ids of a composite constant.
    std::vector<uint32_t> constituents(uint32_t id, size_t at) const;

  private:
    ScalarValue evaluate(uint32_t id, size_t at, int depth) const;
    ScalarValue evaluate_uncached(const Instruction& in, int depth) const;
    ScalarValue specialized_default(const Instruction& in, uint32_t width) const;
    ScalarValue evaluate_operation(const Instruction& in, uint32_t width, int depth) const;
    ScalarValue extract(const Instruction& in, int depth) const;
    uint32_t width_of_type(uint32_t type, size_t at) const;

    const SpirvModule& module_;
    std::unordered_map<uint32_t, std::span<const uint8_t>> values_;  // SpecId -> bytes
    mutable std::unordered_map<uint32_t, ScalarValue> cache_;
    mutable std::unordered_map<uint32_t, bool> in_progress_;
};

}  // namespace graphlens::spirv
