// Elementwise add and mul (f32) with a broadcast second operand. The reference pattern for
// ops (see the comment block in graphlens/ops/ops.h).
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "graphlens/ops/dispatch_helpers.h"
#include "graphlens/ops/ops.h"
#include "graphlens/vulkan/graph_session.h"

namespace graphlens {
namespace {

struct BinaryParams {
    uint32_t n;   // elements of a and out
    uint32_t nb;  // elements of b (divides n)
};

// Local size of add_f32.comp / mul_f32.comp.
constexpr uint32_t kLocalSize = 256;

DispatchDesc binary_f32(std::string_view op, const char* kernel, OpKind kind, const TensorView& a,
                        const TensorView& b, const TensorView& out, std::string label) {
    require_dtype(op, label, "a", a, DType::f32);
    require_dtype(op, label, "b", b, DType::f32);
    require_dtype(op, label, "out", out, DType::f32);
    require_consistent(op, label, "a", a);
    require_consistent(op, label, "b", b);
    require_consistent(op, label, "out", out);
    require_same_elements(op, label, "a", a, "out", out);
    require_broadcastable(op, label, a, b);
    if (a.elements() > std::numeric_limits<uint32_t>::max())
        throw std::invalid_argument(std::string(op) + " '" + label + "': more than 2^32 elements");
    const BinaryParams params{static_cast<uint32_t>(a.elements()),
                              static_cast<uint32_t>(b.elements())};
    DispatchDesc d;
    d.kernel = kernel;
    d.bindings = {{0, a}, {1, b}, {2, out}};
    d.push_constants = push_constant_bytes(params);
    d.workgroups = grid_1d(params.n, kLocalSize);
    d.op = kind;
    d.label = std::move(label);
    return d;
}

}  // namespace

void ops::add(GraphSession& s, const TensorView& a, const TensorView& b, const TensorView& out,
              std::string label) {
    s.dispatch(binary_f32("add", "add_f32", OpKind::add, a, b, out, std::move(label)));
}

void ops::mul(GraphSession& s, const TensorView& a, const TensorView& b, const TensorView& out,
              std::string label) {
    s.dispatch(binary_f32("mul", "mul_f32", OpKind::mul, a, b, out, std::move(label)));
}

}  // namespace graphlens
