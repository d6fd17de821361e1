// copy (f32 -> f32 / f16), quantize_q8 (f32 -> q8x) and get_rows (embedding gather, any weight
// format): conversions of whole tensors.
#include <fmt/format.h>

#include "graphlens/ops/dispatch_helpers.h"
#include "graphlens/ops/ops.h"
#include "graphlens/vulkan/graph_session.h"
#include "op_common.h"

namespace graphlens {

using namespace ops_detail;

void ops::copy(GraphSession& s, const TensorView& src, const TensorView& dst, std::string label) {
    constexpr std::string_view op = "copy";
    require_dtype(op, label, "src", src, DType::f32);
    require_dtype_of(op, label, "dst", dst, DType::f32, DType::f16);
    require_elementwise(op, label, "src", src, "dst", dst);
    const uint32_t n = checked_u32(op, label, "elements", src.elements());
    DispatchDesc d;
    d.kernel = dst.dtype == DType::f16 ? "copy_f32_f16" : "copy_f32";
    d.bindings = {{0, src}, {1, dst}};
    d.push_constants = push_constant_bytes(n);
    d.workgroups = grid_1d(n, 256);
    d.op = OpKind::copy;
    d.label = std::move(label);
    s.dispatch(d);
}

void ops::quantize_q8(GraphSession& s, const TensorView& x, const TensorView& out,
                      std::string label) {
    constexpr std::string_view op = "quantize_q8";
    require_dtype(op, label, "x", x, DType::f32);
    require_dtype(op, label, "out", out, DType::q8x);
    require_elementwise(op, label, "x", x, "out", out);
    if (x.elements() % 32 != 0)
        fail(op, label, fmt::format("{} values are not whole blocks of 32", x.elements()));
    const uint32_t blocks = checked_u32(op, label, "blocks", x.elements() / 32);
    DispatchDesc d;
    d.kernel = "quantize_q8_f32";
    d.bindings = {{0, x}, {1, out}};
    d.push_constants = push_constant_bytes(blocks);
    d.workgroups = grid_1d(blocks, 64);
    d.op = OpKind::quantize_q8;
    d.label = std::move(label);
    s.dispatch(d);
}

// Same push-constant block as the matmul kernels (matmul_params.glsl).
struct GatherParams {
    uint32_t n, k, m, row_bytes, x_stride, y_stride, bits, group_size, expert_bytes, n_ids,
        x_slot_stride;
};

void ops::get_rows(GraphSession& s, const TensorView& table, const TensorView& ids,
                   const TensorView& out, std::string label) {
    constexpr std::string_view op = "get_rows";
    const auto suffix = weight_suffix(op, label, table.dtype);
    require_dtype(op, label, "ids", ids, DType::i32);
    require_dtype(op, label, "out", out, DType::f32);
    require_consistent(op, label, "table", table);
    require_consistent(op, label, "out", out);
    const uint32_t row_len = checked_u32(op, label, "row length", table.shape[0]);
    const uint32_t n = checked_u32(op, label, "ids", ids.elements());
    require_elements(op, label, "out", out, int64_t(row_len) * n);
    if (n > 65535) fail(op, label, fmt::format("{} ids exceed one dispatch (65535)", n));
    GatherParams params{};
    params.n = n;
    params.k = row_len;
    params.row_bytes =
        checked_u32(op, label, "row bytes", int64_t(row_bytes(table.dtype, row_len)));
    params.y_stride = row_len;
    DispatchDesc d;
    d.kernel = fmt::format("get_rows_{}{}", suffix, words_suffix(table));
    d.bindings = {{0, table}, {1, ids}, {2, out}};
    d.push_constants = push_constant_bytes(params);
    d.workgroups = {(row_len + 127) / 128, n, 1};
    d.op = OpKind::get_rows;
    d.label = std::move(label);
    s.dispatch(d);
}

}  // namespace graphlens
