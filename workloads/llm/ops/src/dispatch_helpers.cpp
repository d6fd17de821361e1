#include "graphlens/ops/dispatch_helpers.h"

#include <fmt/format.h>

#include <stdexcept>

namespace graphlens {
namespace {
// Every Vulkan device supports at least 65,535 workgroups per dimension.
constexpr uint64_t kMaxGroupsPerDim = 65535;
}  // namespace

std::array<uint32_t, 3> grid_1d(uint64_t invocations, uint32_t local_x) {
    const uint64_t groups = std::max<uint64_t>(1, (invocations + local_x - 1) / local_x);
    if (groups <= kMaxGroupsPerDim) return {static_cast<uint32_t>(groups), 1, 1};
    const uint64_t y = (groups + kMaxGroupsPerDim - 1) / kMaxGroupsPerDim;
    if (y > kMaxGroupsPerDim)
        throw std::invalid_argument(
            fmt::format("grid_1d: {} invocations need too many workgroups", invocations));
    const uint64_t x = (groups + y - 1) / y;
    return {static_cast<uint32_t>(x), static_cast<uint32_t>(y), 1};
}

std::array<uint32_t, 3> grid_2d(uint64_t cols, uint32_t local_x, uint64_t rows) {
    const uint64_t x = std::max<uint64_t>(1, (cols + local_x - 1) / local_x);
    if (x > kMaxGroupsPerDim || rows > kMaxGroupsPerDim)
        throw std::invalid_argument(
            fmt::format("grid_2d: {}x{} exceeds 65535 workgroups per dimension", x, rows));
    return {static_cast<uint32_t>(x), static_cast<uint32_t>(std::max<uint64_t>(rows, 1)), 1};
}

void require_dtype(std::string_view op, std::string_view label, std::string_view operand,
                   const TensorView& v, DType want) {
    if (v.dtype != want)
        throw std::invalid_argument(fmt::format("{} '{}': {} must be {}, is {}", op, label, operand,
                                                dtype_name(want), dtype_name(v.dtype)));
}

void require_same_elements(std::string_view op, std::string_view label, std::string_view a_name,
                           const TensorView& a, std::string_view b_name, const TensorView& b) {
    if (a.elements() != b.elements())
        throw std::invalid_argument(fmt::format("{} '{}': {} has {} elements but {} has {}", op,
                                                label, a_name, a.elements(), b_name, b.elements()));
}

void require_broadcastable(std::string_view op, std::string_view label, const TensorView& a,
                           const TensorView& b) {
    if (b.elements() <= 0 || a.elements() % b.elements() != 0)
        throw std::invalid_argument(
            fmt::format("{} '{}': b has {} elements, which does not divide a's {} (no broadcast)",
                        op, label, b.elements(), a.elements()));
}

void require_consistent(std::string_view op, std::string_view label, std::string_view operand,
                        const TensorView& v) {
    if (v.elements() < 0 || v.size != dtype_bytes_for(v.dtype, static_cast<uint64_t>(v.elements())))
        throw std::invalid_argument(fmt::format(
            "{} '{}': {} is {} bytes but {} {} elements need {}", op, label, operand, v.size,
            v.elements(), dtype_name(v.dtype),
            dtype_bytes_for(v.dtype, static_cast<uint64_t>(std::max<int64_t>(v.elements(), 0)))));
}

void require_elementwise(std::string_view op, std::string_view label, std::string_view a_name,
                         const TensorView& a, std::string_view b_name, const TensorView& b) {
    require_consistent(op, label, a_name, a);
    require_consistent(op, label, b_name, b);
    require_same_elements(op, label, a_name, a, b_name, b);
}

}  // namespace graphlens
