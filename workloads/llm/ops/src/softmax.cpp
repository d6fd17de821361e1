// Row softmax with optional scale and additive mask (softmax.comp variants).
#include <fmt/format.h>

#include "graphlens/ops/dispatch_helpers.h"
#include "graphlens/ops/ops.h"
#include "graphlens/vulkan/graph_session.h"
#include "op_common.h"

namespace graphlens {

void ops::softmax(GraphSession& s, const TensorView& x, const TensorView& out, float scale,
                  std::optional<TensorView> mask, std::string label) {
    using namespace ops_detail;
    constexpr std::string_view op = "softmax";
    require_subgroups(s.device(), op);
    require_dtype(op, label, "x", x, DType::f32);
    require_dtype(op, label, "out", out, DType::f32);
    require_elementwise(op, label, "x", x, "out", out);
    const uint32_t cols = checked_u32(op, label, "row length", x.shape[0]);
    if (cols == 0) fail(op, label, "empty rows");
    struct {
        uint32_t rows, cols;
        float scale;
        uint32_t mask_rows;
    } params{checked_u32(op, label, "rows", x.elements() / cols), cols, scale, 1};
    DispatchDesc d;
    d.bindings = {{0, x}, {2, out}};
    if (mask) {
        require_dtype(op, label, "mask", *mask, DType::f32);
        require_consistent(op, label, "mask", *mask);
        if (mask->elements() == 0 || mask->elements() % cols != 0 ||
            params.rows % (mask->elements() / cols) != 0)
            fail(op, label,
                 fmt::format("mask has {} elements: not whole rows of {} dividing {} rows",
                             mask->elements(), cols, params.rows));
        params.mask_rows = static_cast<uint32_t>(mask->elements() / cols);
        d.bindings.insert(d.bindings.begin() + 1, {1, *mask});
    }
    d.kernel = mask ? "softmax_mask_f32" : "softmax_f32";
    d.push_constants = push_constant_bytes(params);
    d.workgroups = grid_1d(params.rows, 1);
    d.op = OpKind::softmax;
    d.label = std::move(label);
    s.dispatch(d);
}

}  // namespace graphlens
