// Matrix products: f32/f16 weights, MLX affine-quantised weights, ggml block weights and
// expert-routed ggml weights (matvec.comp / matmul.comp variants), plus MoE top-k routing.
// One column of Q4_0 / Q8_0: the split-k mat-vec (matvec_blocks.comp). Otherwise the mat-vec
// kernel (one weight pass for up to 8 columns per workgroup) for m <= kMatvecMaxCols, the tiled
// mat-mat kernel above.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <optional>

#include "graphlens/ops/dispatch_helpers.h"
#include "graphlens/ops/ops.h"
#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/graph_session.h"
#include "op_common.h"

namespace graphlens {
namespace {

using namespace ops_detail;

constexpr uint32_t kMatvecThreadGroups = 4;  // matvec.comp: WG_SIZE 128 / TPR 32
constexpr uint32_t kMatvecCols = 8;          // matvec.comp: MAX_COLS
// Beyond this the tiled kernel reuses weights better (and may run on tensor cores).
constexpr uint32_t kMatvecMaxCols = kMaxExactColumns;
// matmul.comp tiles (rows x columns per workgroup): the biggest that still gives
// kTileMinGroups workgroups (about one per SM of a large GPU; a 512-token llama-3.2-1b q
// projection is 64 128 x 128 tiles against 132 SMs on an H100), else 64 x 64. A fixed count,
// not a device query, so a graph records the same kernels everywhere.
struct MatmulTile {
    uint32_t rows, cols;
    std::string_view suffix;  // of the kernel name (variants.txt)
};
constexpr MatmulTile kMatmulTiles[] = {{128, 128, ""}, {128, 64, "_t128x64"}, {64, 64, "_t64"}};
constexpr uint64_t kTileMinGroups = 128;

MatmulTile pick_tile(uint32_t n, uint32_t m) {
    for (const MatmulTile& t : kMatmulTiles)
        if (uint64_t((n + t.rows - 1) / t.rows) * ((m + t.cols - 1) / t.cols) >= kTileMinGroups)
            return t;
    return kMatmulTiles[std::size(kMatmulTiles) - 1];
}

// matmul_params.glsl
struct MatmulParams {
    uint32_t n = 0, k = 0, m = 0, row_bytes = 0, x_stride = 0, y_stride = 0, bits = 0,
             group_size = 0, expert_bytes = 0, n_ids = 0, x_slot_stride = 0;
};

// Rows per matvec workgroup: thread groups x RPT of the kernel (variants.txt).
uint32_t matvec_rows_per_group(std::string_view kernel) {
    if (kernel == "matvec_q4_0" || kernel == "matvec_id_q4_0") return kMatvecThreadGroups * 4;
    if (kernel == "matvec_q8_0" || kernel == "matvec_id_q8_0") return kMatvecThreadGroups * 2;
    return kMatvecThreadGroups;
}

// Split-k mat-vec of one column (matvec_blocks.comp, "matvec1_<format>_<threads>x<rows>_c<chunk>"
// in variants.txt) for Q4_0 / Q8_0, from the H100 sweep in docs/kernels.md. Q4_0: 16-weight
// chunks; 128 threads over 4 rows below 8192 rows (a single dispatch needs threads to fill the
// GPU), 64 over 4 up to 16384, 32 over 8 above (the lm_head: the most bandwidth per thread).
// Q8_0: 128 threads over 2 rows of 8-weight chunks. Null for other formats.
struct SplitKMatvec {
    std::string_view kernel;
    uint32_t rows;  // per workgroup
};
// With x given as q8x the picks are the same kernels' _xq8 twins, except that the widest rows
// (the lm_head) stream best on 64 threads over 4 rows (docs/kernels.md, "8-bit x"), while their
// grid allows.
std::optional<SplitKMatvec> split_k_matvec(std::string_view format, uint32_t n,
                                           bool q8x_x = false) {
    std::optional<SplitKMatvec> r;
    const bool wide_on_64 = q8x_x && (n + 3) / 4 <= 65535;  // 64 x 4 within the grid
    if (format == "q4_0")
        r = n >= 16384 && !wide_on_64 ? SplitKMatvec{"matvec1_q4_0_32x8_c16_u2", 8}
            : n >= 8192               ? SplitKMatvec{"matvec1_q4_0_64x4_c16", 4}
                                      : SplitKMatvec{"matvec1_q4_0_128x4_c16", 4};
    else if (format == "q8_0")
        r = SplitKMatvec{"matvec1_q8_0_128x2_c8", 2};
    if (r && (n + r->rows - 1) / r->rows > 65535) r.reset();  // over the grid limit: matvec.comp
    return r;
}

struct Shape {
    uint32_t n, k, m;
};

// Checks x [k, m] and an f32 output `out_name` against a weight of n rows of k; returns m.
// The output's element count is the caller's check (one product or several partials).
uint32_t check_x_and_output(std::string_view op, std::string_view label, const TensorView& x,
                            const TensorView& out, const char* out_name, uint32_t n, uint32_t k) {
    require_dtype(op, label, "x", x, DType::f32);
    require_dtype(op, label, out_name, out, DType::f32);
    require_consistent(op, label, "x", x);
    require_consistent(op, label, out_name, out);
    if (k == 0 || n == 0) fail(op, label, "empty weight");
    if (x.shape[0] != k)
        fail(op, label,
             fmt::format("x rows have {} elements but weight rows have {}", x.shape[0], k));
    return checked_u32(op, label, "columns of x", x.elements() / k);
}

// Checks x [k, m] and out [n, m] against a weight of n rows of k; returns m.
uint32_t check_x_out(std::string_view op, std::string_view label, const TensorView& x,
                     const TensorView& out, uint32_t n, uint32_t k) {
    const uint32_t m = check_x_and_output(op, label, x, out, "out", n, k);
    require_elements(op, label, "out", out, int64_t(n) * m);
    return m;
}

// Split-k: k ranges per mat-mat, at most, and the tile grid they fill (two workgroups an SM
// of a large GPU).
constexpr uint32_t kMaxKSplits = 4;
constexpr uint32_t kMinSplitRow = 2048;

// Elements of a k range: whole 32-k tiles and whole blocks of t.
uint32_t split_unit(DType t) {
    return std::max<uint32_t>(32, uint32_t(dtype_block_elements(t)));
}

// Checks x [k, m] and partials [n, m * splits] of a split-k product; returns m.
uint32_t check_x_partials(std::string_view op, std::string_view label, const TensorView& x,
                          const TensorView& partials, uint32_t n, uint32_t k, DType weight,
                          uint32_t splits) {
    const uint32_t m = check_x_and_output(op, label, x, partials, "partials", n, k);
    const uint32_t unit = split_unit(weight);
    if (splits < 2 || splits > kMaxKSplits || k % (uint64_t(splits) * unit) != 0)
        fail(op, label,
             fmt::format("{} splits of rows of {} (2..{} ranges of whole {}-element tiles "
                         "and blocks)",
                         splits, k, kMaxKSplits, unit));
    if (m <= kMatvecMaxCols)
        fail(op, label, fmt::format("{} columns take the mat-vec kernel, which has no split", m));
    require_elements(op, label, "partials", partials, int64_t(n) * m * splits);
    return m;
}

// A ggml block weight (Q4_0, Q8_0, Q4_K, Q6_K): consistent, rows of whole blocks; returns k.
uint32_t check_ggml_weight(std::string_view op, std::string_view label, const TensorView& weight) {
    if (!dtype_is_quantized(weight.dtype))
        fail(op, label,
             fmt::format("weight must be q4_0, q8_0, q4_k or q6_k, is {}",
                         dtype_name(weight.dtype)));
    require_consistent(op, label, "weight", weight);
    const uint32_t k = checked_u32(op, label, "k", weight.shape[0]);
    if (k == 0 || k % dtype_block_elements(weight.dtype) != 0)
        fail(op, label,
             fmt::format("rows of {} elements are not whole {} blocks", k,
                         dtype_name(weight.dtype)));
    return k;
}

DispatchDesc product(std::string_view op, std::string_view format, const Shape& s,
                     MatmulParams params, std::vector<BoundView> bindings, OpKind kind,
                     std::string label, bool vec_ok, uint32_t splits = 1) {
    const std::string_view words = words_suffix(bindings.front().view);
    params.n = s.n;
    params.k = s.k;
    params.m = s.m;
    params.x_stride = s.k;
    params.y_stride = s.n;
    DispatchDesc d;
    const auto split_k = s.m == 1 ? split_k_matvec(format, s.n) : std::nullopt;
    if (splits > 1) {  // the 128 x 128 tile, one grid layer a k range
        d.kernel = fmt::format("matmul_{}{}{}", format, words, kMatmulTiles[0].suffix);
        d.workgroups = {(s.n + kMatmulTiles[0].rows - 1) / kMatmulTiles[0].rows,
                        (s.m + kMatmulTiles[0].cols - 1) / kMatmulTiles[0].cols, splits};
    } else if (split_k) {
        d.kernel = split_k->kernel;  // 16-bit weight words: any view size
        d.workgroups = {(s.n + split_k->rows - 1) / split_k->rows, 1, 1};
    } else if (s.m <= kMatvecMaxCols) {
        d.kernel = fmt::format("matvec_{}{}", format, vec_ok ? "_vec" : words);
        const uint32_t rows = matvec_rows_per_group(d.kernel);
        d.workgroups = {(s.n + rows - 1) / rows, (s.m + kMatvecCols - 1) / kMatvecCols, 1};
    } else {
        const MatmulTile t = pick_tile(s.n, s.m);
        d.kernel = fmt::format("matmul_{}{}{}", format, words, t.suffix);
        d.workgroups = {(s.n + t.rows - 1) / t.rows, (s.m + t.cols - 1) / t.cols, 1};
    }
    if (d.workgroups[0] > 65535 || d.workgroups[1] > 65535)
        fail(op, label, fmt::format("{} x {} outputs exceed one dispatch", s.n, s.m));
    d.bindings = std::move(bindings);
    d.push_constants = push_constant_bytes(params);
    d.op = kind;
    d.label = std::move(label);
    return d;
}

// One column of x given as q8x (quantize_q8): the split-k pick's _xq8 twin, which takes the
// chunk dots as packed 8-bit integer dot products.
DispatchDesc xq8_matvec(Device& device, const TensorView& x, const TensorView& weight,
                        const TensorView& out, uint32_t n, uint32_t k, std::string label) {
    constexpr std::string_view op = "quantized_matmul_ggml";
    if (!device.facts().integer_dot_product)
        fail(op, label,
             "x is q8x, but the device has no shaderIntegerDotProduct (Vulkan 1.3) to read it");
    require_consistent(op, label, "x", x);
    require_consistent(op, label, "out", out);
    require_dtype(op, label, "out", out, DType::f32);
    if (x.shape[0] != k)
        fail(op, label,
             fmt::format("x rows have {} elements but weight rows have {}", x.shape[0], k));
    if (x.elements() != k)
        fail(op, label,
             fmt::format("x is q8x with {} columns; one column is supported",
                         x.elements() / std::max<int64_t>(k, 1)));
    require_elements(op, label, "out", out, n);
    const auto split_k = split_k_matvec(dtype_name(weight.dtype), n, true);
    if (!split_k)
        fail(op, label,
             fmt::format("x is q8x: the {} weight of {} rows has no integer-dot mat-vec (q4_0 "
                         "and q8_0 weights within one dispatch's grid have one)",
                         dtype_name(weight.dtype), n));
    MatmulParams params;
    params.n = n;
    params.k = k;
    params.m = 1;
    params.row_bytes = checked_u32(op, label, "row bytes", int64_t(row_bytes(weight.dtype, k)));
    params.x_stride = k;
    params.y_stride = n;
    DispatchDesc d;
    d.kernel = fmt::format("{}_xq8", split_k->kernel);
    d.workgroups = {(n + split_k->rows - 1) / split_k->rows, 1, 1};
    d.bindings = {{0, weight}, {1, x}, {2, out}};
    d.push_constants = push_constant_bytes(params);
    d.op = OpKind::quantized_matmul_ggml;
    d.label = std::move(label);
    return d;
}

}  // namespace

uint32_t matmul_k_splits(DType weight, uint32_t n, uint32_t k, uint32_t m) {
    if (m <= kMatvecMaxCols || k < kMinSplitRow) return 1;
    const MatmulTile& t = kMatmulTiles[0];
    const uint64_t groups = uint64_t((n + t.rows - 1) / t.rows) * ((m + t.cols - 1) / t.cols);
    if (groups >= kTileMinGroups) return 1;
    for (uint32_t s = kMaxKSplits; s >= 2; s /= 2)
        if (groups * s <= 2 * kTileMinGroups && k % (uint64_t(s) * split_unit(weight)) == 0)
            return s;
    return 1;
}

void ops::matmul(GraphSession& s, const TensorView& weight, const TensorView& x,
                 const TensorView& out, std::string label) {
    constexpr std::string_view op = "matmul";
    require_subgroups(s.device(), op);
    require_dtype_of(op, label, "weight", weight, DType::f32, DType::f16);
    require_consistent(op, label, "weight", weight);
    const uint32_t k = checked_u32(op, label, "k", weight.shape[0]);
    const uint32_t n = checked_u32(op, label, "n", k ? weight.elements() / k : 0);
    const uint32_t m = check_x_out(op, label, x, out, n, k);
    MatmulParams params;
    params.row_bytes = checked_u32(op, label, "row bytes", int64_t(row_bytes(weight.dtype, k)));
    // f16 rows read 8 halves at a time when rows and the view are 16-byte aligned.
    const bool vec = weight.dtype == DType::f16 && k % 8 == 0 && weight.offset % 16 == 0;
    s.dispatch(product(op, weight.dtype == DType::f16 ? "f16" : "f32", {n, k, m}, params,
                       {{0, weight}, {1, x}, {2, out}}, OpKind::matmul, std::move(label),
                       vec && m <= kMatvecMaxCols));
}

void ops::matmul_split_k(GraphSession& s, const TensorView& weight, const TensorView& x,
                         const TensorView& partials, uint32_t splits, std::string label) {
    constexpr std::string_view op = "matmul";
    require_dtype_of(op, label, "weight", weight, DType::f32, DType::f16);
    require_consistent(op, label, "weight", weight);
    const uint32_t k = checked_u32(op, label, "k", weight.shape[0]);
    const uint32_t n = checked_u32(op, label, "n", k ? weight.elements() / k : 0);
    const uint32_t m = check_x_partials(op, label, x, partials, n, k, weight.dtype, splits);
    MatmulParams params;
    params.row_bytes = checked_u32(op, label, "row bytes", int64_t(row_bytes(weight.dtype, k)));
    s.dispatch(product(op, weight.dtype == DType::f16 ? "f16" : "f32", {n, k, m}, params,
                       {{0, weight}, {1, x}, {2, partials}}, OpKind::matmul, std::move(label),
                       false, splits));
}

void ops::quantized_matmul(GraphSession& s, const TensorView& x, const TensorView& weight,
                           const TensorView& scales, const TensorView& biases,
                           const TensorView& out, const AffineQuantParams& p, std::string label) {
    constexpr std::string_view op = "quantized_matmul";
    require_subgroups(s.device(), op);
    if ((p.bits != 4 && p.bits != 8) || (p.group_size != 32 && p.group_size != 64))
        fail(op, label,
             fmt::format("bits {} / group_size {}: supported are 4 or 8 bits, groups "
                         "of 32 or 64",
                         p.bits, p.group_size));
    if (p.k % 32 != 0 || p.k % p.group_size != 0)
        fail(op, label, fmt::format("k = {} must be a multiple of 32 and of the group size", p.k));
    require_dtype(op, label, "weight", weight, DType::u32);
    require_dtype(op, label, "scales", scales, DType::f16);
    require_dtype(op, label, "biases", biases, DType::f16);
    require_elements(op, label, "weight", weight, int64_t(p.n) * p.k * p.bits / 32);
    require_elements(op, label, "scales", scales, int64_t(p.n) * p.k / p.group_size);
    require_elements(op, label, "biases", biases, int64_t(p.n) * p.k / p.group_size);
    const uint32_t m = check_x_out(op, label, x, out, p.n, p.k);
    MatmulParams params;
    params.row_bytes = p.k * p.bits / 8;
    params.bits = p.bits;
    params.group_size = p.group_size;
    s.dispatch(product(op, "affine", {p.n, p.k, m}, params,
                       {{0, weight}, {1, x}, {2, out}, {3, scales}, {4, biases}},
                       OpKind::quantized_matmul, std::move(label), false));
}

void ops::quantized_matmul_ggml(GraphSession& s, const TensorView& x, const TensorView& weight,
                                const TensorView& out, std::string label) {
    constexpr std::string_view op = "quantized_matmul_ggml";
    require_subgroups(s.device(), op);
    const uint32_t k = check_ggml_weight(op, label, weight);
    const auto suffix = weight_suffix(op, label, weight.dtype);
    const uint32_t n = checked_u32(op, label, "n", k ? weight.elements() / k : 0);
    if (x.dtype == DType::q8x) {
        s.dispatch(xq8_matvec(s.device(), x, weight, out, n, k, std::move(label)));
        return;
    }
    const uint32_t m = check_x_out(op, label, x, out, n, k);
    MatmulParams params;
    params.row_bytes = checked_u32(op, label, "row bytes", int64_t(row_bytes(weight.dtype, k)));
    s.dispatch(product(op, suffix, {n, k, m}, params, {{0, weight}, {1, x}, {2, out}},
                       OpKind::quantized_matmul_ggml, std::move(label), false));
}

void ops::quantized_matmul_ggml_split_k(GraphSession& s, const TensorView& x,
                                        const TensorView& weight, const TensorView& partials,
                                        uint32_t splits, std::string label) {
    constexpr std::string_view op = "quantized_matmul_ggml";
    const uint32_t k = check_ggml_weight(op, label, weight);
    const auto suffix = weight_suffix(op, label, weight.dtype);
    const uint32_t n = checked_u32(op, label, "n", k ? weight.elements() / k : 0);
    const uint32_t m = check_x_partials(op, label, x, partials, n, k, weight.dtype, splits);
    MatmulParams params;
    params.row_bytes = checked_u32(op, label, "row bytes", int64_t(row_bytes(weight.dtype, k)));
    s.dispatch(product(op, suffix, {n, k, m}, params, {{0, weight}, {1, x}, {2, partials}},
                       OpKind::quantized_matmul_ggml, std::move(label), false, splits));
}

void ops::quantized_matmul_id_ggml(GraphSession& s, const TensorView& x, const TensorView& weight,
                                   const TensorView& ids, const TensorView& out,
                                   const MatmulIdParams& p, std::string label) {
    constexpr std::string_view op = "quantized_matmul_id_ggml";
    require_subgroups(s.device(), op);
    const uint32_t k = check_ggml_weight(op, label, weight);
    const auto suffix = weight_suffix(op, label, weight.dtype);
    require_dtype(op, label, "ids", ids, DType::i32);
    require_dtype(op, label, "x", x, DType::f32);
    require_dtype(op, label, "out", out, DType::f32);
    if (p.n_experts == 0 || p.n_ids == 0 || p.n_tokens == 0)
        fail(op, label, "n_experts, n_ids and n_tokens must be > 0");
    const int64_t per_expert = weight.elements() / p.n_experts;
    if (per_expert * p.n_experts != weight.elements() || per_expert % k != 0)
        fail(op, label,
             fmt::format("weight of {} elements is not {} experts of rows of {}", weight.elements(),
                         p.n_experts, k));
    const uint32_t n = checked_u32(op, label, "n", per_expert / k);
    require_elements(op, label, "ids", ids, int64_t(p.n_ids) * p.n_tokens);
    require_elements(op, label, "out", out, int64_t(n) * p.n_ids * p.n_tokens);
    const int64_t x_slots = x.elements() / (int64_t(k) * p.n_tokens);
    if ((x_slots != 1 && x_slots != p.n_ids) || x_slots * k * p.n_tokens != x.elements())
        fail(op, label,
             fmt::format("x has {} elements: expected k x (1 or n_ids) x n_tokens", x.elements()));
    MatmulParams params;
    params.n = n;
    params.k = k;
    params.m = 1;
    params.row_bytes = checked_u32(op, label, "row bytes", int64_t(row_bytes(weight.dtype, k)));
    params.x_stride = checked_u32(op, label, "x stride", int64_t(k) * x_slots);
    params.y_stride = n;
    params.expert_bytes = checked_u32(op, label, "expert bytes", int64_t(params.row_bytes) * n);
    params.n_ids = p.n_ids;
    params.x_slot_stride = x_slots == 1 ? 0 : k;
    DispatchDesc d;
    d.kernel = fmt::format("matvec_id_{}{}", suffix, words_suffix(weight));
    d.bindings = {{0, weight}, {1, x}, {2, out}, {5, ids}};
    d.push_constants = push_constant_bytes(params);
    const uint32_t rows = matvec_rows_per_group(d.kernel);
    d.workgroups = {(n + rows - 1) / rows, 1, p.n_ids * p.n_tokens};
    d.op = OpKind::quantized_matmul_id_ggml;
    d.label = std::move(label);
    s.dispatch(d);
}

void ops::topk(GraphSession& s, const TensorView& logits, const TensorView& ids,
               const TensorView& weights, uint32_t k, bool normalize, std::string label) {
    constexpr std::string_view op = "topk";
    require_dtype(op, label, "logits", logits, DType::f32);
    require_dtype(op, label, "ids", ids, DType::i32);
    require_dtype(op, label, "weights", weights, DType::f32);
    const uint32_t n_experts = checked_u32(op, label, "experts", logits.shape[0]);
    if (n_experts == 0 || n_experts > 256 || k == 0 || k > 8 || k > n_experts)
        fail(
            op, label,
            fmt::format("{} experts, k = {}: need 1 <= k <= 8, k <= experts <= 256", n_experts, k));
    const uint32_t tokens = checked_u32(op, label, "tokens", logits.elements() / n_experts);
    require_elements(op, label, "ids", ids, int64_t(k) * tokens);
    require_elements(op, label, "weights", weights, int64_t(k) * tokens);
    struct {
        uint32_t n_experts, n_tokens, k, normalize;
    } params{n_experts, tokens, k, normalize ? 1u : 0u};
    DispatchDesc d;
    d.kernel = "topk";
    d.bindings = {{0, logits}, {1, ids}, {2, weights}};
    d.push_constants = push_constant_bytes(params);
    d.workgroups = grid_1d(tokens, 64);
    d.op = OpKind::topk;
    d.label = std::move(label);
    s.dispatch(d);
}

}  // namespace graphlens
