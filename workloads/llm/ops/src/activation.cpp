// gelu, silu, their fused *_mul forms and softcap (unary.comp variants), f32.
#include "graphlens/ops/dispatch_helpers.h"
#include "graphlens/ops/ops.h"
#include "graphlens/vulkan/graph_session.h"
#include "op_common.h"

namespace graphlens {
namespace {

using namespace ops_detail;

constexpr uint32_t kLocal = 256;  // unary.comp

struct UnaryParams {
    uint32_t n;
    float param;
};

DispatchDesc unary(std::string_view op, const char* kernel, OpKind kind, const TensorView& x,
                   const TensorView* gate, const TensorView& out, float param, std::string label) {
    require_dtype(op, label, "x", x, DType::f32);
    require_dtype(op, label, "out", out, DType::f32);
    require_elementwise(op, label, "x", x, "out", out);
    DispatchDesc d;
    d.bindings = {{0, x}, {2, out}};
    if (gate) {
        require_dtype(op, label, "g", *gate, DType::f32);
        require_consistent(op, label, "g", *gate);
        require_same_elements(op, label, "g", *gate, "out", out);
        d.bindings.insert(d.bindings.begin() + 1, {1, *gate});
    }
    const UnaryParams params{checked_u32(op, label, "elements", x.elements()), param};
    d.kernel = kernel;
    d.push_constants = push_constant_bytes(params);
    d.workgroups = grid_1d(params.n, kLocal);
    d.op = kind;
    d.label = std::move(label);
    return d;
}

}  // namespace

void ops::gelu(GraphSession& s, const TensorView& x, const TensorView& out, std::string label) {
    s.dispatch(unary("gelu", "gelu_f32", OpKind::gelu, x, nullptr, out, 0, std::move(label)));
}

void ops::silu(GraphSession& s, const TensorView& x, const TensorView& out, std::string label) {
    s.dispatch(unary("silu", "silu_f32", OpKind::silu, x, nullptr, out, 0, std::move(label)));
}

void ops::gelu_mul(GraphSession& s, const TensorView& x, const TensorView& g, const TensorView& out,
                   std::string label) {
    s.dispatch(
        unary("gelu_mul", "gelu_mul_f32", OpKind::gelu_mul, x, &g, out, 0, std::move(label)));
}

void ops::silu_mul(GraphSession& s, const TensorView& x, const TensorView& g, const TensorView& out,
                   std::string label) {
    s.dispatch(
        unary("silu_mul", "silu_mul_f32", OpKind::silu_mul, x, &g, out, 0, std::move(label)));
}

void ops::softcap(GraphSession& s, const TensorView& x, const TensorView& out, float cap,
                  std::string label) {
    if (!(cap > 0)) ops_detail::fail("softcap", label, "cap must be > 0");
    s.dispatch(
        unary("softcap", "softcap_f32", OpKind::softcap, x, nullptr, out, cap, std::move(label)));
}

}  // namespace graphlens
