// Builders of fused dispatches. They read the members' bindings and push constants, whose
// layouts this library defines (rms_norm.comp, unary.comp, multi_add.comp, rope.comp,
// copy.comp) or follows (add_f32.comp / mul_f32.comp: bindings 0 a, 1 b, 2 out; push {n, nb}).
#include "graphlens/ops/fusion_recipes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <tuple>
#include <utility>

#include "graphlens/ops/dispatch_helpers.h"
#include "graphlens/ops/kernel_stages.h"
#include "graphlens/vulkan/kernel_catalog.h"

namespace graphlens::ops {
namespace {

struct NormParams {  // rms_norm.comp
    uint32_t rows, dim;
    float eps;
    uint32_t mul_stride, add_stride;
};
struct BinaryParams {  // add_f32.comp / mul_f32.comp
    uint32_t n, nb;
};
struct MatvecParams {  // matmul_params.glsl (without ROPE)
    uint32_t n, k, m, row_bytes, x_stride, y_stride, bits, group_size, expert_bytes, n_ids,
        x_slot_stride;
};
struct PreNormParams {  // rms_norm.comp with PRE_NORM
    NormParams norm;
    uint32_t pre_mul_stride;
    float pre_eps;
};

FusionBuildResult decline(std::string reason) {
    return {std::nullopt, std::move(reason)};
}

const std::string& kernel_name(const ComputeGraph& g, const Node& n) {
    static const std::string unknown = "?";
    return n.kernel < g.kernels.size() ? g.kernels[n.kernel].name : unknown;
}

const TensorView* binding(const Node& n, uint32_t b) {
    for (const BoundView& v : n.bindings)
        if (v.binding == b) return &v.view;
    return nullptr;
}

template <class T>
std::optional<T> params_of(const Node& n) {
    if (n.push_constants.size() != sizeof(T)) return std::nullopt;
    T t;
    std::memcpy(&t, n.push_constants.data(), sizeof(T));
    return t;
}

// A binary f32 node consuming `intermediate`: its other operand and how it is broadcast.
struct OtherOperand {
    TensorView view;
    uint32_t elements = 0;  ///< elements the kernel reads of it (nb, or n when it is `a`)
};

std::optional<OtherOperand> other_operand(const Node& n, const TensorView& intermediate,
                                          std::string& why) {
    const TensorView* a = binding(n, 0);
    const TensorView* b = binding(n, 1);
    const auto p = params_of<BinaryParams>(n);
    if (!a || !b || !binding(n, 2) || !p) {
        why = fmt::format("{} does not have the add/mul f32 bindings", n.label);
        return std::nullopt;
    }
    if (a->range() == intermediate.range()) return OtherOperand{*b, p->nb};
    if (b->range() == intermediate.range() && p->nb == p->n) return OtherOperand{*a, p->n};
    why = fmt::format("{} reads the intermediate as a broadcast operand", n.label);
    return std::nullopt;
}

FusedDispatch make(const std::string& kernel, OpKind op, std::vector<BoundView> bindings,
                   std::vector<uint8_t> push, std::array<uint32_t, 3> groups) {
    FusedDispatch f;
    f.kernel = KernelCatalog::embedded().get(kernel);
    f.node.op = op;
    f.node.bindings = std::move(bindings);
    f.node.push_constants = std::move(push);
    f.node.workgroups = groups;
    return f;
}

// Row stride of a fused operand of `elements` values for rows of dim: 0 (one row) or dim.
std::optional<uint32_t> row_stride(uint32_t elements, const NormParams& np) {
    if (elements == np.dim) return 0u;
    if (elements == np.dim * np.rows) return np.dim;
    return std::nullopt;
}

// The rms_norm member of a chain: its parameters and whether it is weighted.
struct NormMember {
    NormParams params;
    bool weighted;
    const TensorView* x;
    const TensorView* weight;
    const TensorView* y;
};

std::optional<NormMember> norm_member(const ComputeGraph& g, const Node& norm, std::string& why) {
    const std::string& nk = kernel_name(g, norm);
    const bool weighted = nk == "rms_norm_f32";
    if (!weighted && nk != "rms_norm_no_scale_f32") {
        why = fmt::format("{} runs {}; the fused kernels are f32 only", norm.label, nk);
        return std::nullopt;
    }
    const auto np = params_of<NormParams>(norm);
    const TensorView* x = binding(norm, 0);
    const TensorView* y = binding(norm, 4);
    const TensorView* w = binding(norm, 1);
    if (!np || !x || !y || (weighted && !w)) {
        why = fmt::format("{} is not an rms_norm dispatch", norm.label);
        return std::nullopt;
    }
    return NormMember{*np, weighted, x, weighted ? w : nullptr, y};
}

// The operand a mul member multiplies the chain's value by, as a binding of the fused
// kernel with its row stride.
std::optional<std::pair<TensorView, uint32_t>> mul_member(const ComputeGraph& g, const Node& mul,
                                                          const TensorView& current,
                                                          const NormParams& np, std::string& why) {
    if (kernel_name(g, mul) != "mul_f32") {
        why = fmt::format("{} runs {}, the fusion expects mul_f32", mul.label, kernel_name(g, mul));
        return std::nullopt;
    }
    const auto other = other_operand(mul, current, why);
    if (!other) return std::nullopt;
    const auto stride = row_stride(other->elements, np);
    if (!stride) {
        why = fmt::format("{}: operand of {} elements is neither a row nor the whole tensor",
                          mul.label, other->elements);
        return std::nullopt;
    }
    return std::pair{other->view, *stride};
}

// The residual add of an add→rms_norm chain: its full-shape operand (the one that is not
// `current`, or both when current is null) and its output, the sum the graph keeps. The
// fused kernel computes the sum twice from the operands, so it must not overwrite them.
struct AddMember {
    TensorView a, b, sum;
};

std::optional<AddMember> add_member(const ComputeGraph& g, const Node& add,
                                    const TensorView* current, std::string& why) {
    if (kernel_name(g, add) != "add_f32") {
        why = fmt::format("{} runs {}, not add_f32", add.label, kernel_name(g, add));
        return std::nullopt;
    }
    const TensorView* a = binding(add, 0);
    const TensorView* b = binding(add, 1);
    const TensorView* out = binding(add, 2);
    const auto p = params_of<BinaryParams>(add);
    if (!a || !b || !out || !p) {
        why = fmt::format("{} does not have the add_f32 bindings", add.label);
        return std::nullopt;
    }
    if (p->nb != p->n) {
        why = fmt::format("{} broadcasts its second operand; the fused kernel adds whole rows",
                          add.label);
        return std::nullopt;
    }
    AddMember m{*a, *b, *out};
    if (current) {
        std::string ignored;
        const auto other = other_operand(add, *current, ignored);
        if (!other) {
            why = fmt::format("{} does not add the chain's value", add.label);
            return std::nullopt;
        }
        m.a = *current;
        m.b = other->view;
    }
    for (const TensorView* in : {a, b})
        if (out->range().overlaps(in->range())) {
            why = fmt::format(
                "{} adds in place; the fused kernel reads its operands again after writing the "
                "sum",
                add.label);
            return std::nullopt;
        }
    return m;
}

// add → rms_norm → mul: the sum (binding 6) stays written for its later readers.
FusionBuildResult build_add_norm_chain(const ComputeGraph& g, std::span<const size_t> chain) {
    std::string why;
    const auto add = add_member(g, g.nodes[chain[0]], nullptr, why);
    if (!add) return decline(why);
    const Node& norm_node = g.nodes[chain[1]];
    const auto norm = norm_member(g, norm_node, why);
    if (!norm) return decline(why);
    if (int64_t(norm->params.dim) * norm->params.rows != add->sum.elements())
        return decline(fmt::format("{} normalises another number of elements than {} adds",
                                   norm_node.label, g.nodes[chain[0]].label));
    NormParams np = norm->params;
    const auto mul = mul_member(g, g.nodes[chain[2]], *norm->y, np, why);
    if (!mul) return decline(why);
    np.mul_stride = mul->second;
    std::vector<BoundView> bindings{{0, add->a}, {5, add->b}, {6, add->sum}};
    if (norm->weighted) bindings.push_back({1, *norm->weight});
    bindings.push_back({2, mul->first});
    bindings.push_back({4, *binding(g.nodes[chain[2]], 2)});
    return {make(norm->weighted ? "add_rms_norm_w_mul_f32" : "add_rms_norm_mul_f32",
                 OpKind::add_rms_norm_mul, std::move(bindings), push_constant_bytes(np),
                 norm_node.workgroups),
            {}};
}

// rms_norm → mul → add → rms_norm → mul (gemma's post-norm, residual add and next norm): the
// sum (binding 6) stays written for its later readers.
FusionBuildResult build_norm_add_norm_chain(const ComputeGraph& g, std::span<const size_t> chain) {
    std::string why;
    const Node& first_node = g.nodes[chain[0]];
    const auto first = norm_member(g, first_node, why);
    if (!first) return decline(why);
    if (first->weighted)
        return decline(fmt::format("{} is weighted; the fused kernel's first norm has no weight",
                                   first_node.label));
    const auto pre_mul = mul_member(g, g.nodes[chain[1]], *first->y, first->params, why);
    if (!pre_mul) return decline(why);
    const auto add = add_member(g, g.nodes[chain[2]], binding(g.nodes[chain[1]], 2), why);
    if (!add) return decline(why);
    for (const TensorView* in : {first->x, &pre_mul->first})
        if (add->sum.range().overlaps(in->range()))
            return decline(
                fmt::format("{} writes over an input of the chain; the fused kernel reads it again",
                            g.nodes[chain[2]].label));
    const Node& norm_node = g.nodes[chain[3]];
    const auto second = norm_member(g, norm_node, why);
    if (!second) return decline(why);
    if (second->params.dim != first->params.dim || second->params.rows != first->params.rows)
        return decline(fmt::format("{} normalises rows of another length than {}", norm_node.label,
                                   first_node.label));
    PreNormParams p{second->params, pre_mul->second, first->params.eps};
    const auto mul = mul_member(g, g.nodes[chain[4]], *second->y, p.norm, why);
    if (!mul) return decline(why);
    p.norm.mul_stride = mul->second;
    p.norm.add_stride = 0;
    std::vector<BoundView> bindings{
        {0, *first->x}, {7, pre_mul->first}, {5, add->b}, {6, add->sum}};
    if (second->weighted) bindings.push_back({1, *second->weight});
    bindings.push_back({2, mul->first});
    bindings.push_back({4, *binding(g.nodes[chain[4]], 2)});
    return {make(second->weighted ? "rms_norm_mul_add_rms_norm_w_mul_f32"
                                  : "rms_norm_mul_add_rms_norm_mul_f32",
                 OpKind::add_rms_norm_mul, std::move(bindings), push_constant_bytes(p),
                 norm_node.workgroups),
            {}};
}

struct RopeParamsPush {  // rope.comp
    uint32_t head_dim, n_heads, seq_len, rope_dim;
    float freq_base, freq_scale;
};
struct NormRopeParams {  // rms_norm.comp with ROPE
    NormParams norm;
    uint32_t n_heads, rope_dim;
    float freq_base, freq_scale;
};
constexpr uint32_t kNormRopeMaxDim = 1024;  // rms_norm.comp's ROPE_MAX_DIM

// rms_norm → mul → rope [→ copy]: the q/k norm of each head and its rotation in one
// dispatch, with k written straight into the cache slot when the copy follows.
FusionBuildResult build_norm_rope_chain(const ComputeGraph& g, std::span<const size_t> chain) {
    std::string why;
    const Node& norm_node = g.nodes[chain[0]];
    const auto norm = norm_member(g, norm_node, why);
    if (!norm) return decline(why);
    if (norm->weighted)
        return decline(
            fmt::format("{} is weighted; the fused kernel's norm has no weight", norm_node.label));
    NormParams np = norm->params;
    const auto mul = mul_member(g, g.nodes[chain[1]], *norm->y, np, why);
    if (!mul) return decline(why);
    np.mul_stride = mul->second;
    np.add_stride = 0;
    const Node& rope = g.nodes[chain[2]];
    const std::string& rk = kernel_name(g, rope);
    const bool neox = rk == "rope_neox_f32" || rk == "rope_neox_ff_f32";
    const bool ff = rk == "rope_ff_f32" || rk == "rope_neox_ff_f32";
    if (!neox && !ff && rk != "rope_f32")
        return decline(fmt::format("{} runs {}, not an f32 rope kernel", rope.label, rk));
    const auto rp = params_of<RopeParamsPush>(rope);
    const TensorView* positions = binding(rope, 1);
    if (!rp || !positions || (ff && !binding(rope, 2)))
        return decline(fmt::format("{} is not a rope dispatch", rope.label));
    if (rp->head_dim != np.dim || rp->n_heads * rp->seq_len != np.rows)
        return decline(fmt::format("{} normalises rows of {} values, {} rotates heads of {}",
                                   norm_node.label, np.dim, rope.label, rp->head_dim));
    if (np.dim > kNormRopeMaxDim)
        return decline(fmt::format("heads of {} values exceed the fused kernel's {}", np.dim,
                                   kNormRopeMaxDim));
    TensorView out = *binding(rope, 3);
    bool f16 = false;
    if (chain.size() == 4) {
        const Node& copy = g.nodes[chain[3]];
        const std::string& ck = kernel_name(g, copy);
        if (ck != "copy_f32" && ck != "copy_f32_f16")
            return decline(fmt::format("{} runs {}, not copy_f32 or copy_f32_f16", copy.label, ck));
        out = *binding(copy, 1);
        f16 = ck == "copy_f32_f16";
    }
    std::vector<BoundView> bindings{{0, *norm->x}, {2, mul->first}, {4, out}, {8, *positions}};
    if (ff) bindings.push_back({9, *binding(rope, 2)});
    const NormRopeParams push{np, rp->n_heads, rp->rope_dim, rp->freq_base, rp->freq_scale};
    return {make(fmt::format("rms_norm_mul_rope{}{}_f32{}", neox ? "_neox" : "", ff ? "_ff" : "",
                             f16 ? "_f16" : ""),
                 OpKind::rms_norm_mul_rope, std::move(bindings), push_constant_bytes(push),
                 norm_node.workgroups),
            {}};
}

// rope → copy: the rope kernel writes straight where the copy would have put its output,
// converting to f16 itself when the copy did.
FusionBuildResult build_rope_copy(const ComputeGraph& g, std::span<const size_t> chain) {
    const Node& rope = g.nodes[chain[0]];
    const Node& copy = g.nodes[chain[1]];
    const std::string& rk = kernel_name(g, rope);
    if (rk != "rope_f32" && rk != "rope_ff_f32" && rk != "rope_neox_f32" &&
        rk != "rope_neox_ff_f32")
        return decline(fmt::format("{} runs {}, not an f32 rope kernel", rope.label, rk));
    const std::string& ck = kernel_name(g, copy);
    if (ck != "copy_f32" && ck != "copy_f32_f16")
        return decline(fmt::format("{} runs {}, not copy_f32 or copy_f32_f16", copy.label, ck));
    const TensorView* dst = binding(copy, 1);
    if (!dst) return decline(fmt::format("{} has no destination binding", copy.label));
    std::vector<BoundView> bindings;
    for (const BoundView& b : rope.bindings)
        bindings.push_back(b.binding == 3 ? BoundView{3, *dst} : b);
    return {make(ck == "copy_f32" ? rk : rk + "_f16", OpKind::rope_copy, std::move(bindings),
                 rope.push_constants, rope.workgroups),
            {}};
}

// rms_norm [→ mul [→ add]] with the norm weighted or not.
FusionBuildResult build_norm_chain(const ComputeGraph& g, std::span<const size_t> chain) {
    const Node& norm = g.nodes[chain[0]];
    const std::string& nk = kernel_name(g, norm);
    const bool weighted = nk == "rms_norm_f32";
    if (!weighted && nk != "rms_norm_no_scale_f32")
        return decline(fmt::format("{} runs {}; the fused kernels are f32 only", norm.label, nk));
    auto np = params_of<NormParams>(norm);
    const TensorView* x = binding(norm, 0);
    const TensorView* y = binding(norm, 4);
    if (!np || !x || !y) return decline(fmt::format("{} is not an rms_norm dispatch", norm.label));
    std::vector<BoundView> bindings{{0, *x}};
    if (weighted) bindings.push_back({1, *binding(norm, 1)});

    TensorView current = *y;
    const char* slots_kernel[2] = {"mul_f32", "add_f32"};
    for (size_t k = 1; k < chain.size(); ++k) {
        const Node& n = g.nodes[chain[k]];
        if (kernel_name(g, n) != slots_kernel[k - 1])
            return decline(fmt::format("{} runs {}, the fusion expects {}", n.label,
                                       kernel_name(g, n), slots_kernel[k - 1]));
        std::string why;
        const auto other = other_operand(n, current, why);
        if (!other) return decline(why);
        uint32_t stride;
        if (other->elements == np->dim)
            stride = 0;
        else if (other->elements == np->dim * np->rows)
            stride = np->dim;
        else
            return decline(
                fmt::format("{}: operand of {} elements is neither a row nor the whole "
                            "tensor",
                            n.label, other->elements));
        (k == 1 ? np->mul_stride : np->add_stride) = stride;
        bindings.push_back({k == 1 ? 2u : 3u, other->view});
        current = *binding(n, 2);
    }
    bindings.push_back({4, current});
    const bool with_add = chain.size() == 3;
    const std::string kernel =
        fmt::format("rms_norm{}_mul{}_f32", weighted ? "_w" : "", with_add ? "_add" : "");
    return {make(kernel, with_add ? OpKind::rms_norm_mul_add : OpKind::rms_norm_mul,
                 std::move(bindings), push_constant_bytes(*np), norm.workgroups),
            {}};
}

FusionBuildResult build_add_chain(const ComputeGraph& g, std::span<const size_t> chain) {
    std::vector<BoundView> bindings;
    const Node& first = g.nodes[chain[0]];
    if (kernel_name(g, first) != "add_f32")
        return decline(fmt::format("{} runs {}, not add_f32", first.label, kernel_name(g, first)));
    const auto p0 = params_of<BinaryParams>(first);
    if (!p0 || !binding(first, 0) || !binding(first, 1) || !binding(first, 2))
        return decline(fmt::format("{} does not have the add_f32 bindings", first.label));
    if (p0->nb != p0->n)
        return decline(fmt::format("{} broadcasts its second operand", first.label));
    bindings.push_back({0, *binding(first, 0)});
    bindings.push_back({1, *binding(first, 1)});
    TensorView current = *binding(first, 2);
    for (size_t k = 1; k < chain.size(); ++k) {
        const Node& n = g.nodes[chain[k]];
        if (kernel_name(g, n) != "add_f32")
            return decline(fmt::format("{} runs {}, not add_f32", n.label, kernel_name(g, n)));
        std::string why;
        const auto other = other_operand(n, current, why);
        if (!other) return decline(why);
        if (other->elements != p0->n)
            return decline(fmt::format("{} broadcasts its operand", n.label));
        bindings.push_back({static_cast<uint32_t>(k + 1), other->view});
        current = *binding(n, 2);
    }
    bindings.push_back({15, current});
    return {make(fmt::format("multi_add{}_f32", chain.size() + 1), OpKind::multi_add,
                 std::move(bindings), push_constant_bytes(p0->n), first.workgroups),
            {}};
}

FusionBuildResult build_gated(const ComputeGraph& g, std::span<const size_t> chain,
                              const char* act_kernel, const char* fused_kernel, OpKind op) {
    const Node& act = g.nodes[chain[0]];
    const Node& mul = g.nodes[chain[1]];
    if (kernel_name(g, act) != act_kernel)
        return decline(
            fmt::format("{} runs {}, not {}", act.label, kernel_name(g, act), act_kernel));
    if (kernel_name(g, mul) != "mul_f32")
        return decline(fmt::format("{} runs {}, not mul_f32", mul.label, kernel_name(g, mul)));
    const TensorView* x = binding(act, 0);
    const TensorView* y = binding(act, 2);
    if (!x || !y) return decline(fmt::format("{} has not the activation bindings", act.label));
    std::string why;
    const auto other = other_operand(mul, *y, why);
    if (!other) return decline(why);
    if (other->view.elements() != y->elements() || other->elements != y->elements())
        return decline(
            fmt::format("{} broadcasts the gate; the fused kernel needs it whole", mul.label));
    struct {
        uint32_t n;
        float param;
    } p{static_cast<uint32_t>(y->elements()), 0.0f};
    return {make(fused_kernel, op, {{0, *x}, {1, other->view}, {2, *binding(mul, 2)}},
                 push_constant_bytes(p), act.workgroups),
            {}};
}

// A split-k mat-vec's kernel without the _xq8 suffix of its q8x-x twin, and whether it had it.
std::pair<std::string_view, bool> without_xq8(std::string_view kernel) {
    constexpr std::string_view suffix = "_xq8";
    if (kernel.ends_with(suffix)) return {kernel.substr(0, kernel.size() - suffix.size()), true};
    return {kernel, false};
}

constexpr uint32_t kNormQ8MaxDim = 4096;  // rms_norm.comp's Q8_MAX_DIM

// A norm chain followed by quantize_q8 (the 8-bit x of the next mat-vecs): `inner` builds the
// chain without its last member; the fused kernel's _q8 variant then writes the quantised row
// where the quantize_q8 dispatch wrote it, with that kernel's operations.
FusionBuildResult build_with_q8_tail(const ComputeGraph& g, std::span<const size_t> chain,
                                     const FusionBuilder& inner) {
    FusionBuildResult r = inner(g, chain.first(chain.size() - 1));
    if (!r.fused) return r;
    const Node& q = g.nodes[chain.back()];
    if (kernel_name(g, q) != "quantize_q8_f32")
        return decline(fmt::format("{} runs {}, not quantize_q8_f32", q.label, kernel_name(g, q)));
    const TensorView* qy = binding(q, 1);
    if (!qy) return decline(fmt::format("{} is not a quantize_q8 dispatch", q.label));
    // The fused push constants start with rms_norm.comp's NormParams (PRE_NORM appends).
    const std::vector<uint8_t>& push = r.fused->node.push_constants;
    NormParams np{};
    if (push.size() >= sizeof(NormParams)) std::memcpy(&np, push.data(), sizeof(NormParams));
    if (np.dim == 0 || np.dim % 32 != 0 || np.dim > kNormQ8MaxDim)
        return decline(
            fmt::format("{} quantises rows of {} values; the fused norms quantise rows of a "
                        "multiple of 32 up to {}",
                        q.label, np.dim, kNormQ8MaxDim));
    const std::string kernel = r.fused->kernel.name + "_q8";
    if (!KernelCatalog::embedded().find(kernel))
        return decline(fmt::format("{} has no _q8 variant", r.fused->kernel.name));
    r.fused->kernel = KernelCatalog::embedded().get(kernel);
    for (BoundView& b : r.fused->node.bindings)
        if (b.binding == 4) b.view = *qy;
    return r;
}

// The mat-vec member of a chain: weight, x, y and its push constants.
struct MatvecMember {
    const TensorView* w;
    const TensorView* x;
    const TensorView* y;
    MatvecParams params;
};

std::optional<MatvecMember> matvec_member(const Node& matvec) {
    const TensorView* w = binding(matvec, 0);
    const TensorView* x = binding(matvec, 1);
    const TensorView* y = binding(matvec, 2);
    const auto mp = params_of<MatvecParams>(matvec);
    if (!w || !x || !y || !mp) return std::nullopt;
    return MatvecMember{w, x, y, *mp};
}

// mat-vec → rope [→ copy] and mat-vec → copy (a decode step's q, k and v projections, their
// rope and their KV-cache appends): the split-k mat-vec's epilogue variant rotates its outputs
// (adjacent pairs only, OpKind::rope: both rows of a pair are sums of one workgroup; NeoX
// pairs are rope_dim / 2 rows apart and have no recipe) and/or writes them as
// f16 where the copy would have put them. chain: the mat-vec, then the rope and/or the copy.
FusionBuildResult build_matvec_epilogue(const ComputeGraph& g, std::span<const size_t> chain,
                                        bool with_rope) {
    const Node& matvec = g.nodes[chain[0]];
    const auto member = matvec_member(matvec);
    if (!member) return decline(fmt::format("{} is not a mat-vec dispatch", matvec.label));
    const TensorView *w = member->w, *x = member->x, *y = member->y;
    const MatvecParams* mp = &member->params;
    // x of dtype q8x: the _xq8 twin (the suffix comes last).
    const auto [pick, xq8] = without_xq8(kernel_name(g, matvec));
    std::string kernel(pick);
    std::vector<BoundView> bindings{{0, *w}, {1, *x}};
    std::vector<uint8_t> push = matvec.push_constants;
    TensorView out = *y;
    if (with_rope) {
        const Node& rope = g.nodes[chain[1]];
        const std::string& rk = kernel_name(g, rope);
        const bool ff = rk == "rope_ff_f32";
        if (!ff && rk != "rope_f32")
            return decline(fmt::format("{} runs {}, not an f32 rope kernel", rope.label, rk));
        const auto rp = params_of<RopeParamsPush>(rope);
        const TensorView* positions = binding(rope, 1);
        if (!rp || !positions || (ff && !binding(rope, 2)) || !binding(rope, 3))
            return decline(fmt::format("{} is not a rope dispatch", rope.label));
        if (uint64_t(rp->head_dim) * rp->n_heads != mp->n || rp->seq_len != mp->m)
            return decline(fmt::format(
                "{} rotates {} heads of {} over {} positions, {} writes {} "
                "rows of {} columns",
                rope.label, rp->n_heads, rp->head_dim, rp->seq_len, matvec.label, mp->n, mp->m));
        bindings.push_back({4, *positions});
        if (ff) bindings.push_back({5, *binding(rope, 2)});
        struct {
            uint32_t head_dim, rope_dim;
            float freq_base, freq_scale;
        } extra{rp->head_dim, rp->rope_dim, rp->freq_base, rp->freq_scale};
        const auto bytes = push_constant_bytes(extra);
        push.insert(push.end(), bytes.begin(), bytes.end());
        kernel += ff ? "_rope_ff" : "_rope";
        out = *binding(rope, 3);
    }
    if (chain.size() == (with_rope ? 3u : 2u)) {
        const Node& copy = g.nodes[chain.back()];
        const std::string& ck = kernel_name(g, copy);
        if (ck != "copy_f32" && ck != "copy_f32_f16")
            return decline(fmt::format("{} runs {}, not copy_f32 or copy_f32_f16", copy.label, ck));
        const TensorView* dst = binding(copy, 1);
        if (!dst) return decline(fmt::format("{} has no destination binding", copy.label));
        out = *dst;
        if (ck == "copy_f32_f16") kernel += "_f16";
    }
    if (xq8) kernel += "_xq8";
    if (!KernelCatalog::embedded().find(kernel))
        return decline(
            fmt::format("{} runs {}, which has no {} variant (the split-k Q4_0 / Q8_0 "
                        "mat-vecs of decode below 16384 rows have one)",
                        matvec.label, kernel_name(g, matvec), kernel.substr(pick.size())));
    bindings.push_back({2, out});
    return {make(kernel, OpKind::matvec_epilogue, std::move(bindings), std::move(push),
                 matvec.workgroups),
            {}};
}

// The gated twin of each split-k mat-vec the op picks (matmul.cpp: split_k_matvec): half the
// rows of each weight per workgroup, so a thread keeps as many weight chunks in flight as the
// pick does (twins with the pick's rows are slower). From k = 4096 on, the 64-thread twin takes
// 2 chunks of a row at a time instead of 4, because all 4 of a thread's chunks of 2 rows of 2
// weights at once hold too many registers; below that the 4 chunks are faster (measurements:
// docs/history.md, Kernels).
struct GluTwin {
    std::string_view pick, twin;
    uint32_t rows;                 ///< rows of each weight per workgroup
    std::string_view twin_long_k;  ///< for k >= kGluLongK when not empty (same rows)
};
constexpr uint32_t kGluLongK = 4096;
constexpr GluTwin kGluTwins[] = {
    {"matvec1_q4_0_32x8_c16_u2", "matvec1_q4_0_32x4_c16_u2", 4, {}},
    {"matvec1_q4_0_64x4_c16", "matvec1_q4_0_64x2_c16", 2, "matvec1_q4_0_64x2_c16_u2"},
    {"matvec1_q4_0_128x4_c16", "matvec1_q4_0_128x2_c16", 2, {}},
    {"matvec1_q8_0_128x2_c8", "matvec1_q8_0_128x1_c8", 1, {}}};

// gate mat-vec → silu|gelu → mul, with the up mat-vec (the mul's other operand) as sibling: a
// decode FFN's gate, up and act·mul as one split-k mat-vec summing both weights (_glu_<act>).
// chain: gate, act, mul, up. Both mat-vecs must run one kernel over one x with one shape.
FusionBuildResult build_matvec_glu(const ComputeGraph& g, std::span<const size_t> chain,
                                   const char* act_kernel, const char* act) {
    const Node& gate = g.nodes[chain[0]];
    const Node& activation = g.nodes[chain[1]];
    const Node& mul = g.nodes[chain[2]];
    const Node& up = g.nodes[chain[3]];
    const std::string& gk = kernel_name(g, gate);
    // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
    const std::pair<std::string_view, bool> stripped = without_xq8(gk);
    const std::string_view pick = stripped.first;
    const bool xq8 = stripped.second;
    const auto twin = std::find_if(std::begin(kGluTwins), std::end(kGluTwins),
                                   [&](const GluTwin& t) { return t.pick == pick; });
    if (twin == std::end(kGluTwins))
        return decline(fmt::format(
            "{} runs {}, which has no gated twin (the split-k Q4_0 / Q8_0 mat-vecs of decode "
            "have one)",
            gate.label, gk));
    if (kernel_name(g, up) != gk)
        return decline(fmt::format("{} runs {}, {} runs {}: one kernel must do both", gate.label,
                                   gk, up.label, kernel_name(g, up)));
    if (kernel_name(g, activation) != act_kernel)
        return decline(fmt::format("{} runs {}, not {}", activation.label,
                                   kernel_name(g, activation), act_kernel));
    if (kernel_name(g, mul) != "mul_f32")
        return decline(fmt::format("{} runs {}, not mul_f32", mul.label, kernel_name(g, mul)));
    const TensorView* w = binding(gate, 0);
    const TensorView* x = binding(gate, 1);
    const TensorView* y = binding(gate, 2);
    const TensorView* w_up = binding(up, 0);
    const TensorView* x_up = binding(up, 1);
    const TensorView* y_up = binding(up, 2);
    const auto gp = params_of<MatvecParams>(gate);
    const auto upp = params_of<MatvecParams>(up);
    if (!w || !x || !y || !gp || !w_up || !x_up || !y_up || !upp)
        return decline(fmt::format("{} or {} is not a mat-vec dispatch", gate.label, up.label));
    if (x_up->range() != x->range())
        return decline(fmt::format("{} and {} read different inputs", gate.label, up.label));
    if (gate.push_constants != up.push_constants || gate.workgroups != up.workgroups)
        return decline(fmt::format("{} ({} rows of {}) and {} ({} rows of {}) differ in shape",
                                   gate.label, gp->n, gp->k, up.label, upp->n, upp->k));
    const bool long_k = !twin->twin_long_k.empty() && gp->k >= kGluLongK;
    const std::string kernel =
        fmt::format("{}_glu_{}{}", long_k ? twin->twin_long_k : twin->twin, act, xq8 ? "_xq8" : "");
    std::string why;
    const auto other = other_operand(mul, *binding(activation, 2), why);
    if (!other) return decline(why);
    if (other->view.range() != y_up->range() || other->elements != y->elements())
        return decline(
            fmt::format("{} does not multiply by the whole output of {}", mul.label, up.label));
    return {make(kernel, OpKind::matvec_glu, {{0, *w}, {1, *x}, {2, *binding(mul, 2)}, {6, *w_up}},
                 gate.push_constants,
                 {(gp->n + twin->rows - 1) / twin->rows, gate.workgroups[1], gate.workgroups[2]}),
            {}};
}

// The same FFN with the quantize_q8 of its output (the 8-bit x of the down projection): the
// gated twin's _yq8 variant also writes the q8x blocks. A block of 32 rows spans 32 / rows
// workgroups; the last of them to finish quantises it (an arrival counter per block, zeroed
// memory that fuse() allocates: FusionScratch). chain: gate, act, mul, quantize, up.
FusionBuildResult build_matvec_glu_q8(const ComputeGraph& g, std::span<const size_t> chain,
                                      const char* act_kernel, const char* act) {
    const size_t glu_chain[] = {chain[0], chain[1], chain[2], chain[4]};
    FusionBuildResult r = build_matvec_glu(g, glu_chain, act_kernel, act);
    if (!r.fused) return r;
    const Node& mul = g.nodes[chain[2]];
    const Node& q = g.nodes[chain[3]];
    if (kernel_name(g, q) != "quantize_q8_f32")
        return decline(fmt::format("{} runs {}, not quantize_q8_f32", q.label, kernel_name(g, q)));
    const TensorView* qx = binding(q, 0);
    const TensorView* qy = binding(q, 1);
    const TensorView* y = binding(mul, 2);
    const auto mp = params_of<MatvecParams>(g.nodes[chain[0]]);
    if (!qx || !qy || !y || !mp)
        return decline(fmt::format("{} is not a quantize_q8 dispatch", q.label));
    if (qx->range() != y->range())
        return decline(
            fmt::format("{} does not quantise the whole output of {}", q.label, mul.label));
    if (mp->n % 32 != 0 || (mp->m > 1 && mp->y_stride != mp->n))
        return decline(fmt::format(
            "{} writes {} rows a column; the fused kernel quantises whole blocks of 32 rows of "
            "contiguous columns",
            mul.label, mp->n));
    // The x suffix stays last: <twin>_glu_<act>_yq8_xq8.
    const std::pair<std::string_view, bool> stripped = without_xq8(r.fused->kernel.name);
    const std::string kernel =
        fmt::format("{}_yq8{}", stripped.first, stripped.second ? "_xq8" : "");
    if (!KernelCatalog::embedded().find(kernel))
        return decline(fmt::format("{} has no _yq8 variant (the gated twins over q8x x have one)",
                                   r.fused->kernel.name));
    r.fused->kernel = KernelCatalog::embedded().get(kernel);
    r.fused->node.bindings.push_back({7, *qy});
    r.fused->scratch.push_back(
        {8, 4ull * (uint64_t(mp->m) * mp->n / 32), g.nodes[chain[0]].label + ".arrivals"});
    return r;
}

// mat-vec → add → rms_norm → mul → quantize_q8 (a decode layer's output or down projection,
// the residual add and the next norm with its 8-bit x): the split-k mat-vec's _anq8 variant,
// whose last workgroup (an arrival counter, FusionScratch) does what add_rms_norm_mul_f32_q8
// does, bit for bit. chain: the mat-vec, the add, the norm, the mul, the quantize.
FusionBuildResult build_matvec_add_norm_q8(const ComputeGraph& g, std::span<const size_t> chain) {
    const Node& matvec = g.nodes[chain[0]];
    const auto member = matvec_member(matvec);
    if (!member) return decline(fmt::format("{} is not a mat-vec dispatch", matvec.label));
    const TensorView *w = member->w, *x = member->x, *y = member->y;
    const MatvecParams* mp = &member->params;
    FusionBuildResult r = build_with_q8_tail(g, chain.subspan(1), build_add_norm_chain);
    if (!r.fused) return r;
    if (r.fused->kernel.name != "add_rms_norm_mul_f32_q8")
        return decline(
            fmt::format("{} is weighted and multiplied; the fused mat-vec's norm only "
                        "multiplies (rms_norm_no_scale→mul)",
                        g.nodes[chain[2]].label));
    NormParams np{};
    std::memcpy(&np, r.fused->node.push_constants.data(), sizeof(NormParams));
    if (mp->m != 1 || np.rows != 1 || np.dim != mp->n || mp->n % 32 != 0 || mp->n > kNormQ8MaxDim)
        return decline(fmt::format(
            "{} writes {} rows of {} columns; the fused mat-vec normalises one column of a "
            "multiple of 32 rows up to {}",
            matvec.label, mp->n, mp->m, kNormQ8MaxDim));
    const TensorView* a = binding(r.fused->node, 0);
    const TensorView* b = binding(r.fused->node, 5);
    const TensorView* sum = binding(r.fused->node, 6);
    const TensorView* m = binding(r.fused->node, 2);
    const TensorView* q8 = binding(r.fused->node, 4);
    // The add's operand that is not the projection's output: the residual (t = y + res; a sum of
    // two floats is the same in either order).
    const TensorView* residual = a->range() == y->range()   ? b
                                 : b->range() == y->range() ? a
                                                            : nullptr;
    if (!residual)
        return decline(
            fmt::format("{} does not add {}'s output", g.nodes[chain[1]].label, matvec.label));
    const auto [pick, xq8] = without_xq8(kernel_name(g, matvec));
    const std::string kernel = fmt::format("{}_anq8{}", pick, xq8 ? "_xq8" : "");
    if (!KernelCatalog::embedded().find(kernel))
        return decline(
            fmt::format("{} runs {}, which has no _anq8 variant (the 128-thread split-k "
                        "Q4_0 / Q8_0 mat-vecs have one)",
                        matvec.label, kernel_name(g, matvec)));
    std::vector<uint8_t> push = matvec.push_constants;
    const auto eps = push_constant_bytes(np.eps);
    push.insert(push.end(), eps.begin(), eps.end());
    // Several of the plain mat-vec's workgroups in one (GROUPS, the same rows summed the same
    // way), so that its last workgroup has rms_norm.comp's 512 threads for the row: as many as
    // the two kernels' workgroup sizes say.
    const uint32_t plain_threads =
        matvec.kernel < g.kernels.size() ? g.kernels[matvec.kernel].local_size[0] : 0;
    const uint32_t groups =
        plain_threads == 0 ? 0
                           : KernelCatalog::embedded().get(kernel).local_size[0] / plain_threads;
    if (groups == 0)
        return decline(fmt::format("{}'s kernel {} has no workgroup size to group", matvec.label,
                                   kernel_name(g, matvec)));
    FusionBuildResult out{
        make(kernel, OpKind::matvec_epilogue,
             {{0, *w}, {1, *x}, {2, *y}, {9, *residual}, {10, *sum}, {11, *m}, {12, *q8}},
             std::move(push),
             {(matvec.workgroups[0] + groups - 1) / groups, matvec.workgroups[1],
              matvec.workgroups[2]}),
        {}};
    out.fused->scratch.push_back({8, 4, matvec.label + ".arrivals"});
    return out;
}

}  // namespace

// One function: the table of recipes in the order the fusion pass tries them, and the order
// matters (a projection's epilogue before the add chains that would take its add first), so it
// reads top to bottom in one place; each recipe's building lives in its builder above.
std::vector<FusionRecipe> fusion_recipes() {
    std::vector<FusionRecipe> r;
    auto add = [&r](std::string pattern, std::vector<OpKind> chain, OpKind op, std::string kernel,
                    FusionBuilder build) -> FusionRecipe& {
        FusionRecipe recipe;
        recipe.pattern = std::move(pattern);
        recipe.chain = std::move(chain);
        recipe.fused_op = op;
        recipe.fused_kernel = std::move(kernel);
        recipe.build = std::move(build);
        return r.emplace_back(std::move(recipe));
    };
    auto name = [](OpKind k) { return std::string(op_kind_name(k)); };
    const OpKind norms[] = {OpKind::rms_norm, OpKind::rms_norm_no_scale};
    // The kept output is the residual sum, read again by the next residual add.
    // Each norm chain also with the quantize_q8 after it (the 8-bit x of decode mat-vecs):
    // the fused norm writes the q8x row itself (converting: f32 → q8x).
    auto q8_tail = [](FusionBuilder inner) -> FusionBuilder {
        return [inner = std::move(inner)](const ComputeGraph& g, std::span<const size_t> c) {
            return build_with_q8_tail(g, c, inner);
        };
    };
    auto with_q8 = [](std::vector<OpKind> chain) {
        chain.push_back(OpKind::quantize_q8);
        return chain;
    };
    // A projection with the residual add and the next norm after it: before the add chains,
    // which would take its add first.
    {
        FusionRecipe& rr = add("quantized_matmul_ggml→add→rms_norm_no_scale→mul→quantize_q8",
                               {OpKind::quantized_matmul_ggml, OpKind::add,
                                OpKind::rms_norm_no_scale, OpKind::mul, OpKind::quantize_q8},
                               OpKind::matvec_epilogue, "matvec1_<format>_<shape>_anq8[_xq8]",
                               build_matvec_add_norm_q8);
        rr.kept_outputs = {1};
        rr.converting = {4};
    }
    for (OpKind norm : norms) {
        FusionRecipe& rr =
            add(fmt::format("rms_norm_no_scale→mul→add→{}→mul→quantize_q8", name(norm)),
                with_q8({OpKind::rms_norm_no_scale, OpKind::mul, OpKind::add, norm, OpKind::mul}),
                OpKind::add_rms_norm_mul, "rms_norm_mul_add_rms_norm_[w_]mul_f32_q8",
                q8_tail(build_norm_add_norm_chain));
        rr.kept_outputs = {2};
        rr.converting = {5};
    }
    for (OpKind norm : norms) {
        FusionRecipe& rr = add("add→" + name(norm) + "→mul→quantize_q8",
                               with_q8({OpKind::add, norm, OpKind::mul}), OpKind::add_rms_norm_mul,
                               "add_rms_norm_[w_]mul_f32_q8", q8_tail(build_add_norm_chain));
        rr.kept_outputs = {0};
        rr.converting = {3};
    }
    for (OpKind norm : norms)
        add(name(norm) + "→mul→quantize_q8", with_q8({norm, OpKind::mul}), OpKind::rms_norm_mul,
            "rms_norm_[w_]mul_f32_q8", q8_tail(build_norm_chain))
            .converting = {2};
    for (OpKind norm : norms)
        add(fmt::format("rms_norm_no_scale→mul→add→{}→mul", name(norm)),
            {OpKind::rms_norm_no_scale, OpKind::mul, OpKind::add, norm, OpKind::mul},
            OpKind::add_rms_norm_mul, "rms_norm_mul_add_rms_norm_[w_]mul_f32",
            build_norm_add_norm_chain)
            .kept_outputs = {2};
    for (OpKind norm : norms)
        add(name(norm) + "→mul→add", {norm, OpKind::mul, OpKind::add}, OpKind::rms_norm_mul_add,
            "rms_norm_mul_add_f32", build_norm_chain);
    for (OpKind norm : norms)
        add("add→" + name(norm) + "→mul", {OpKind::add, norm, OpKind::mul},
            OpKind::add_rms_norm_mul, "add_rms_norm_[w_]mul_f32", build_add_norm_chain)
            .kept_outputs = {0};
    // q/k norms: the q chain has the k norm in its gap and the k chain rope_q, so the members
    // need not be consecutive.
    for (OpKind rope : {OpKind::rope, OpKind::rope_neox}) {
        FusionRecipe& with_copy = add(
            fmt::format("rms_norm_no_scale→mul→{}→copy", name(rope)),
            {OpKind::rms_norm_no_scale, OpKind::mul, rope, OpKind::copy}, OpKind::rms_norm_mul_rope,
            "rms_norm_mul_rope[_neox][_ff]_f32[_f16]", build_norm_rope_chain);
        with_copy.converting = {3};
        with_copy.gaps = true;
        add(fmt::format("rms_norm_no_scale→mul→{}", name(rope)),
            {OpKind::rms_norm_no_scale, OpKind::mul, rope}, OpKind::rms_norm_mul_rope,
            "rms_norm_mul_rope[_neox][_ff]_f32", build_norm_rope_chain)
            .gaps = true;
    }
    for (OpKind norm : norms)
        add(name(norm) + "→mul", {norm, OpKind::mul}, OpKind::rms_norm_mul, "rms_norm_mul_f32",
            build_norm_chain);
    for (size_t n = 8; n >= 2; --n) {
        std::string pattern = "add";
        for (size_t i = 1; i < n; ++i) pattern += "→add";
        // n adds sum n + 1 tensors (multi_add takes up to 9).
        add(pattern, std::vector<OpKind>(n, OpKind::add), OpKind::multi_add,
            fmt::format("multi_add{}_f32", n + 1), build_add_chain);
    }
    // The q / k / v projections with their rope and KV-cache appends (k and v projections
    // run between q and its rope: gaps). A plain mat-vec → copy_f32 keeps the mat-vec kernel
    // with the copy's destination as its output.
    {
        const OpKind mv = OpKind::quantized_matmul_ggml;
        FusionRecipe& rope_copy =
            add("quantized_matmul_ggml→rope→copy", {mv, OpKind::rope, OpKind::copy},
                OpKind::matvec_epilogue, "matvec1_<format>_<shape>_rope[_ff]_f16",
                [](const ComputeGraph& g, std::span<const size_t> c) {
                    return build_matvec_epilogue(g, c, true);
                });
        rope_copy.gaps = true;
        rope_copy.converting = {2};
        add("quantized_matmul_ggml→rope", {mv, OpKind::rope}, OpKind::matvec_epilogue,
            "matvec1_<format>_<shape>_rope[_ff]",
            [](const ComputeGraph& g, std::span<const size_t> c) {
                return build_matvec_epilogue(g, c, true);
            })
            .gaps = true;
        FusionRecipe& copy = add("quantized_matmul_ggml→copy", {mv, OpKind::copy},
                                 OpKind::matvec_epilogue, "matvec1_<format>_<shape>[_f16]",
                                 [](const ComputeGraph& g, std::span<const size_t> c) {
                                     return build_matvec_epilogue(g, c, false);
                                 });
        copy.gaps = true;
        copy.converting = {1};
    }
    // A decode FFN: gate → act → mul, the up projection making the mul's other operand (a
    // sibling; the act and the mul stand after both projections: gaps).
    for (const auto& [act, act_kernel, act_name] : {std::tuple{OpKind::silu, "silu_f32", "silu"},
                                                    std::tuple{OpKind::gelu, "gelu_f32", "gelu"}}) {
        // The chain, with the up projection as the sibling making the mul's other operand.
        auto gated = [&](std::vector<OpKind> chain, std::string pattern, std::string kernel,
                         FusionBuilder build) -> FusionRecipe& {
            FusionRecipe& glu = add(std::move(pattern), std::move(chain), OpKind::matvec_glu,
                                    std::move(kernel), std::move(build));
            glu.gaps = true;
            glu.sibling_of = 2;
            glu.sibling_op = OpKind::quantized_matmul_ggml;
            return glu;
        };
        // With the quantize_q8 before the down projection first: the longer chain.
        gated({OpKind::quantized_matmul_ggml, act, OpKind::mul, OpKind::quantize_q8},
              fmt::format("quantized_matmul_ggml→{}→mul→quantize_q8 (+ quantized_matmul_ggml)",
                          act_name),
              fmt::format("matvec1_<format>_<shape>_glu_{}_yq8_xq8", act_name),
              [act_kernel = act_kernel, act_name = act_name](const ComputeGraph& g,
                                                             std::span<const size_t> c) {
                  return build_matvec_glu_q8(g, c, act_kernel, act_name);
              })
            .converting = {3};
        gated({OpKind::quantized_matmul_ggml, act, OpKind::mul},
              fmt::format("quantized_matmul_ggml→{}→mul (+ quantized_matmul_ggml)", act_name),
              fmt::format("matvec1_<format>_<shape>_glu_{}", act_name),
              [act_kernel = act_kernel, act_name = act_name](const ComputeGraph& g,
                                                             std::span<const size_t> c) {
                  return build_matvec_glu(g, c, act_kernel, act_name);
              });
    }
    add("gelu→mul", {OpKind::gelu, OpKind::mul}, OpKind::gelu_mul, "gelu_mul_f32",
        [](const ComputeGraph& g, std::span<const size_t> c) {
            return build_gated(g, c, "gelu_f32", "gelu_mul_f32", OpKind::gelu_mul);
        });
    add("silu→mul", {OpKind::silu, OpKind::mul}, OpKind::silu_mul, "silu_mul_f32",
        [](const ComputeGraph& g, std::span<const size_t> c) {
            return build_gated(g, c, "silu_f32", "silu_mul_f32", OpKind::silu_mul);
        });
    // The KV-cache append: the copy only converts f32 → f16 (or copies f32), element for
    // element, so rope writes the cache slot itself.
    for (OpKind rope : {OpKind::rope, OpKind::rope_neox})
        add(name(rope) + "→copy", {rope, OpKind::copy}, OpKind::rope_copy,
            name(rope) + "[_ff]_f32[_f16]", build_rope_copy)
            .converting = {1};
    return with_kernel_stages(std::move(r));
}

}  // namespace graphlens::ops
