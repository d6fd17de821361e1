// RMS norm and its fused forms (rms_norm.comp variants): one workgroup per row.
#include <fmt/format.h>

#include "graphlens/ops/dispatch_helpers.h"
#include "graphlens/ops/ops.h"
#include "graphlens/vulkan/graph_session.h"
#include "op_common.h"

namespace graphlens {
namespace {

using namespace ops_detail;

struct NormParams {
    uint32_t rows;
    uint32_t dim;
    float eps;
    uint32_t mul_stride;
    uint32_t add_stride;
};

struct NormOperands {
    const TensorView* weight = nullptr;
    const TensorView* mul = nullptr;
    const TensorView* add = nullptr;
};

// Row stride of a fused operand: 0 for one broadcast row, dim for x's full shape.
uint32_t operand_stride(std::string_view op, std::string_view label, std::string_view name,
                        const TensorView& v, const TensorView& x, uint32_t dim) {
    require_dtype(op, label, name, v, DType::f32);
    require_consistent(op, label, name, v);
    if (v.elements() == dim) return 0;
    if (v.elements() == x.elements()) return dim;
    fail(op, label,
         fmt::format("{} has {} elements: neither one row ({}) nor x's {}", name, v.elements(), dim,
                     x.elements()));
}

DispatchDesc norm(Device& device, std::string_view op, std::string kernel, OpKind kind,
                  const TensorView& x, const NormOperands& o, const TensorView& out, float eps,
                  std::string label) {
    require_subgroups(device, op);
    require_consistent(op, label, "x", x);
    require_consistent(op, label, "out", out);
    if (out.dtype != x.dtype)
        fail(op, label,
             fmt::format("out is {} but x is {}", dtype_name(out.dtype), dtype_name(x.dtype)));
    require_same_elements(op, label, "x", x, "out", out);
    const uint32_t dim = checked_u32(op, label, "row length", x.shape[0]);
    if (dim == 0) fail(op, label, "empty rows");
    NormParams params{checked_u32(op, label, "rows", x.elements() / dim), dim, eps, 0, 0};
    DispatchDesc d;
    d.bindings = {{0, x}};
    if (o.weight) {
        require_dtype(op, label, "weight", *o.weight, DType::f32);
        require_elements(op, label, "weight", *o.weight, dim);
        d.bindings.push_back({1, *o.weight});
    }
    if (o.mul) {
        params.mul_stride = operand_stride(op, label, "m", *o.mul, x, dim);
        d.bindings.push_back({2, *o.mul});
    }
    if (o.add) {
        params.add_stride = operand_stride(op, label, "a", *o.add, x, dim);
        d.bindings.push_back({3, *o.add});
    }
    d.bindings.push_back({4, out});
    d.kernel = std::move(kernel);
    d.push_constants = push_constant_bytes(params);
    d.workgroups = grid_1d(params.rows, 1);
    d.op = kind;
    d.label = std::move(label);
    return d;
}

}  // namespace

void ops::rms_norm(GraphSession& s, const TensorView& x, const TensorView& weight,
                   const TensorView& out, float eps, std::string label) {
    require_dtype_of("rms_norm", label, "x", x, DType::f32, DType::f16);
    s.dispatch(norm(s.device(), "rms_norm", x.dtype == DType::f16 ? "rms_norm_f16" : "rms_norm_f32",
                    OpKind::rms_norm, x, {.weight = &weight}, out, eps, std::move(label)));
}

void ops::rms_norm_no_scale_f32(GraphSession& s, const TensorView& x, const TensorView& out,
                                float eps, std::string label) {
    require_dtype("rms_norm_no_scale_f32", label, "x", x, DType::f32);
    s.dispatch(norm(s.device(), "rms_norm_no_scale_f32", "rms_norm_no_scale_f32",
                    OpKind::rms_norm_no_scale, x, {}, out, eps, std::move(label)));
}

void ops::rms_norm_mul(GraphSession& s, const TensorView& x, std::optional<TensorView> weight,
                       const TensorView& m, const TensorView& out, float eps, std::string label) {
    require_dtype("rms_norm_mul", label, "x", x, DType::f32);
    s.dispatch(norm(s.device(), "rms_norm_mul", weight ? "rms_norm_w_mul_f32" : "rms_norm_mul_f32",
                    OpKind::rms_norm_mul, x, {.weight = weight ? &*weight : nullptr, .mul = &m},
                    out, eps, std::move(label)));
}

void ops::rms_norm_mul_add(GraphSession& s, const TensorView& x, std::optional<TensorView> weight,
                           const TensorView& m, const TensorView& a, const TensorView& out,
                           float eps, std::string label) {
    require_dtype("rms_norm_mul_add", label, "x", x, DType::f32);
    s.dispatch(norm(
        s.device(), "rms_norm_mul_add", weight ? "rms_norm_w_mul_add_f32" : "rms_norm_mul_add_f32",
        OpKind::rms_norm_mul_add, x, {.weight = weight ? &*weight : nullptr, .mul = &m, .add = &a},
        out, eps, std::move(label)));
}

}  // namespace graphlens
