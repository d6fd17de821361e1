// f16 add/mul, multi_add and scale. (f32 add/mul: elementwise_basic.cpp.)
#include <fmt/format.h>

#include "graphlens/ops/dispatch_helpers.h"
#include "graphlens/ops/ops.h"
#include "graphlens/vulkan/graph_session.h"
#include "op_common.h"

namespace graphlens {
namespace {

using namespace ops_detail;

constexpr uint32_t kLocal = 256;  // local size of binary.comp, multi_add.comp, unary.comp

struct BinaryParams {
    uint32_t n, nb;
};

DispatchDesc binary_f16(std::string_view op, const char* kernel, OpKind kind, const TensorView& a,
                        const TensorView& b, const TensorView& out, std::string label) {
    for (auto [name, v] : {std::pair{"a", &a}, {"b", &b}, {"out", &out}}) {
        require_dtype(op, label, name, *v, DType::f16);
        require_consistent(op, label, name, *v);
    }
    require_same_elements(op, label, "a", a, "out", out);
    require_broadcastable(op, label, a, b);
    const BinaryParams params{checked_u32(op, label, "elements", a.elements()),
                              checked_u32(op, label, "b elements", b.elements())};
    DispatchDesc d;
    d.kernel = kernel;
    d.bindings = {{0, a}, {1, b}, {2, out}};
    d.push_constants = push_constant_bytes(params);
    d.workgroups = grid_1d(params.n, kLocal);
    d.op = kind;
    d.label = std::move(label);
    return d;
}

}  // namespace

void ops::add_f16(GraphSession& s, const TensorView& a, const TensorView& b, const TensorView& out,
                  std::string label) {
    s.dispatch(binary_f16("add_f16", "add_f16", OpKind::add, a, b, out, std::move(label)));
}

void ops::mul_f16(GraphSession& s, const TensorView& a, const TensorView& b, const TensorView& out,
                  std::string label) {
    s.dispatch(binary_f16("mul_f16", "mul_f16", OpKind::mul, a, b, out, std::move(label)));
}

void ops::multi_add(GraphSession& s, std::span<const TensorView> inputs, const TensorView& out,
                    std::string label) {
    constexpr std::string_view op = "multi_add";
    if (inputs.size() < 2 || inputs.size() > 9)
        fail(op, label, fmt::format("takes 2 to 9 inputs, got {}", inputs.size()));
    require_dtype(op, label, "out", out, DType::f32);
    require_consistent(op, label, "out", out);
    DispatchDesc d;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const std::string name = fmt::format("inputs[{}]", i);
        require_dtype(op, label, name, inputs[i], DType::f32);
        require_consistent(op, label, name, inputs[i]);
        require_same_elements(op, label, name, inputs[i], "out", out);
        d.bindings.push_back({static_cast<uint32_t>(i), inputs[i]});
    }
    d.bindings.push_back({15, out});
    const uint32_t n = checked_u32(op, label, "elements", out.elements());
    d.kernel = fmt::format("multi_add{}_f32", inputs.size());
    d.push_constants = push_constant_bytes(n);
    d.workgroups = grid_1d(n, kLocal);
    d.op = OpKind::multi_add;
    d.label = std::move(label);
    s.dispatch(d);
}

void ops::scale(GraphSession& s, const TensorView& x, const TensorView& out, float factor,
                std::string label) {
    constexpr std::string_view op = "scale";
    require_dtype(op, label, "x", x, DType::f32);
    require_dtype(op, label, "out", out, DType::f32);
    require_elementwise(op, label, "x", x, "out", out);
    struct {
        uint32_t n;
        float param;
    } params{checked_u32(op, label, "elements", x.elements()), factor};
    DispatchDesc d;
    d.kernel = "scale_f32";
    d.bindings = {{0, x}, {2, out}};
    d.push_constants = push_constant_bytes(params);
    d.workgroups = grid_1d(params.n, kLocal);
    d.op = OpKind::scale;
    d.label = std::move(label);
    s.dispatch(d);
}

}  // namespace graphlens
