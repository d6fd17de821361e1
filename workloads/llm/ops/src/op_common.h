#pragma once
// Checks and helpers shared by the op families in workloads/llm/ops/src (private to the layer).
#include <cstdint>
#include <string>
#include <string_view>

#include "graphlens/graph/dtype.h"
#include "graphlens/graph/tensor_view.h"

namespace graphlens {
class Device;
}

namespace graphlens::ops_detail {

/// Steps of at most this many tokens (columns of x, queries) take the mat-vec kernels and the
/// exact attention variant: f32 arithmetic on every device. Above it the mat-mat and the
/// head-dim <= 64 attention run, which have tensor-core twins (f16 inputs).
inline constexpr uint32_t kMaxExactColumns = 8;

/// Throws std::invalid_argument "<op> '<label>': <message>".
[[noreturn]] void fail(std::string_view op, std::string_view label, const std::string& message);
/// v as u32, or throws naming what overflowed.
uint32_t checked_u32(std::string_view op, std::string_view label, std::string_view what, int64_t v);
/// Throws unless the view's element count is exactly `n`.
void require_elements(std::string_view op, std::string_view label, std::string_view operand,
                      const TensorView& v, int64_t n);
/// Throws unless v.dtype is one of the two.
void require_dtype_of(std::string_view op, std::string_view label, std::string_view operand,
                      const TensorView& v, DType a, DType b);
/// The subgroup-reducing kernels need subgroup arithmetic in compute shaders and a subgroup
/// size between 4 and 32 (the mat-vec kernel gives each row 32 threads). Checked once per
/// device; throws std::runtime_error naming the op when the device lacks it.
void require_subgroups(Device& device, std::string_view op);
/// Bytes of one row of k elements of a weight dtype.
uint64_t row_bytes(DType t, uint64_t k);
/// "_u16" when a weight view's bytes do not end on a 4-byte boundary: its kernels must read
/// 16-bit words (weights.glsl), else "".
std::string_view words_suffix(const TensorView& weight);
/// Kernel-name suffix of a weight dtype: "f32", "f16", "q4_0", "q8_0", "q4_k", "q6_k".
std::string_view weight_suffix(std::string_view op, std::string_view label, DType t);

}  // namespace graphlens::ops_detail
