#pragma once
// Helpers for the ops (workloads/llm/ops/src/*.cpp): argument checks with clear
// messages, push-constant packing and workgroup grids.
#include <array>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

#include "graphlens/graph/tensor_view.h"

namespace graphlens {

/// The bytes of a trivially copyable push-constant struct.
template <class T>
std::vector<uint8_t> push_constant_bytes(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<uint8_t> bytes(sizeof(T));
    std::memcpy(bytes.data(), &value, sizeof(T));
    return bytes;
}

/// Workgroups covering `invocations` invocations with `local_x` per group, spilling into y
/// beyond the 65,535 groups every device supports in x. Shaders index with
///   gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * local_x
std::array<uint32_t, 3> grid_1d(uint64_t invocations, uint32_t local_x);
/// One workgroup per (row, column-block): x = ceil(cols / local_x), y = rows.
std::array<uint32_t, 3> grid_2d(uint64_t cols, uint32_t local_x, uint64_t rows);

/// Throws std::invalid_argument "<op> '<label>': <operand> must be <dtype>, is <dtype>".
void require_dtype(std::string_view op, std::string_view label, std::string_view operand,
                   const TensorView& v, DType want);
/// Throws when the element counts differ.
void require_same_elements(std::string_view op, std::string_view label, std::string_view a_name,
                           const TensorView& a, std::string_view b_name, const TensorView& b);
/// Throws unless `b` has > 0 elements and divides `a`'s element count (broadcast operand).
void require_broadcastable(std::string_view op, std::string_view label, const TensorView& a,
                           const TensorView& b);
/// Throws when the view's byte size is not what its dtype and shape need.
void require_consistent(std::string_view op, std::string_view label, std::string_view operand,
                        const TensorView& v);
/// An elementwise operand and its output: both consistent, with equal element counts.
void require_elementwise(std::string_view op, std::string_view label, std::string_view a_name,
                         const TensorView& a, std::string_view b_name, const TensorView& b);

}  // namespace graphlens
