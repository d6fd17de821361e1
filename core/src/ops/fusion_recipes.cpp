// Builders of fused dispatches. They read the members' bindings and push constants, whose
// layouts this library defines (rms_norm.comp, unary.comp, multi_add.comp) or follows
// (add_f32.comp / mul_f32.comp: bindings 0 a, 1 b, 2 out; push {n, nb}).
#include "graphlens/op_fusion_recipes.h"

#include <fmt/format.h>

#include <cstring>
#include <optional>

#include "graphlens/kernel_catalog.h"
#include "graphlens/op_support.h"

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

}  // namespace

std::vector<FusionRecipe> fusion_recipes() {
    std::vector<FusionRecipe> r;
    for (OpKind norm : {OpKind::rms_norm, OpKind::rms_norm_no_scale}) {
        const std::string name = norm == OpKind::rms_norm ? "rms_norm" : "rms_norm_no_scale";
        r.push_back({name + "→mul→add",
                     {norm, OpKind::mul, OpKind::add},
                     OpKind::rms_norm_mul_add,
                     "rms_norm_mul_add_f32",
                     build_norm_chain});
    }
    for (OpKind norm : {OpKind::rms_norm, OpKind::rms_norm_no_scale}) {
        const std::string name = norm == OpKind::rms_norm ? "rms_norm" : "rms_norm_no_scale";
        r.push_back({name + "→mul",
                     {norm, OpKind::mul},
                     OpKind::rms_norm_mul,
                     "rms_norm_mul_f32",
                     build_norm_chain});
    }
    for (size_t n = 8; n >= 2; --n) {
        std::string pattern = "add";
        for (size_t i = 1; i < n; ++i) pattern += "→add";
        // n adds sum n + 1 tensors (multi_add takes up to 9).
        r.push_back({pattern, std::vector<OpKind>(n, OpKind::add), OpKind::multi_add,
                     fmt::format("multi_add{}_f32", n + 1), build_add_chain});
    }
    r.push_back({"gelu→mul",
                 {OpKind::gelu, OpKind::mul},
                 OpKind::gelu_mul,
                 "gelu_mul_f32",
                 [](const ComputeGraph& g, std::span<const size_t> c) {
                     return build_gated(g, c, "gelu_f32", "gelu_mul_f32", OpKind::gelu_mul);
                 }});
    r.push_back({"silu→mul",
                 {OpKind::silu, OpKind::mul},
                 OpKind::silu_mul,
                 "silu_mul_f32",
                 [](const ComputeGraph& g, std::span<const size_t> c) {
                     return build_gated(g, c, "silu_f32", "silu_mul_f32", OpKind::silu_mul);
                 }});
    return r;
}

}  // namespace graphlens::ops
