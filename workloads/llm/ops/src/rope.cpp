// Rotary position embedding, adjacent-pair and NeoX forms (rope.comp variants). The output
// may be f16 (a rope writing straight into an f16 KV cache: rope_*_f32_f16).
#include <fmt/format.h>

#include "graphlens/ops/dispatch_helpers.h"
#include "graphlens/ops/ops.h"
#include "graphlens/vulkan/graph_session.h"
#include "op_common.h"

namespace graphlens {
namespace {

using namespace ops_detail;

constexpr uint32_t kLocal = 64;  // rope.comp

DispatchDesc rope_desc(std::string_view op, bool neox, const TensorView& x,
                       const TensorView& positions, const TensorView& out, RopeParams p,
                       const std::optional<TensorView>& ff, std::string label) {
    require_dtype(op, label, "x", x, DType::f32);
    require_dtype_of(op, label, "out", out, DType::f32, DType::f16);
    require_dtype(op, label, "positions", positions, DType::i32);
    require_consistent(op, label, "x", x);
    require_consistent(op, label, "out", out);
    if (p.rope_dim == 0) p.rope_dim = p.head_dim;
    if (p.head_dim == 0 || p.head_dim % 2 || p.rope_dim % 2 || p.rope_dim > p.head_dim)
        fail(op, label,
             fmt::format("head_dim {} and rope_dim {} must be even, rope_dim <= head_dim",
                         p.head_dim, p.rope_dim));
    const int64_t n = int64_t(p.head_dim) * p.n_heads * p.seq_len;
    require_elements(op, label, "x", x, n);
    require_elements(op, label, "out", out, n);
    require_elements(op, label, "positions", positions, p.seq_len);
    DispatchDesc d;
    d.bindings = {{0, x}, {1, positions}, {3, out}};
    if (ff) {
        require_dtype(op, label, "freq_factors", *ff, DType::f32);
        require_elements(op, label, "freq_factors", *ff, p.rope_dim / 2);
        d.bindings.insert(d.bindings.begin() + 2, {2, *ff});
    }
    struct {
        uint32_t head_dim, n_heads, seq_len, rope_dim;
        float freq_base, freq_scale;
    } params{p.head_dim, p.n_heads, p.seq_len, p.rope_dim, p.freq_base, p.freq_scale};
    d.kernel = fmt::format("rope{}{}_f32{}", neox ? "_neox" : "", ff ? "_ff" : "",
                           out.dtype == DType::f16 ? "_f16" : "");
    d.push_constants = push_constant_bytes(params);
    // One thread a pair, the pairs of all heads of a position in a row of workgroups: a
    // 64-dimension head alone would leave half of a workgroup idle.
    d.workgroups = {(p.head_dim / 2 * p.n_heads + kLocal - 1) / kLocal, 1, p.seq_len};
    d.op = neox ? OpKind::rope_neox : OpKind::rope;
    d.label = std::move(label);
    return d;
}

}  // namespace

void ops::rope(GraphSession& s, const TensorView& x, const TensorView& positions,
               const TensorView& out, const RopeParams& params,
               std::optional<TensorView> freq_factors, std::string label) {
    s.dispatch(rope_desc("rope", false, x, positions, out, params, freq_factors, std::move(label)));
}

void ops::rope_neox_f32(GraphSession& s, const TensorView& x, const TensorView& positions,
                        const TensorView& out, const RopeParams& params,
                        std::optional<TensorView> freq_factors, std::string label) {
    s.dispatch(rope_desc("rope_neox_f32", true, x, positions, out, params, freq_factors,
                         std::move(label)));
}

}  // namespace graphlens
