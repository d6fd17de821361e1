#pragma once
// Classification of a dispatch: decides which fusion patterns apply. Whether a node may
// move is decided by its ranges (Node::ranges_known, Node::fence), not by its kind.
#include <cstdint>
#include <optional>
#include <string_view>

namespace graphlens {

enum class OpKind : uint8_t {
    other,  ///< a kernel the passes know nothing special about (still reorderable if ranges known)
    add,
    mul,
    scale,
    multi_add,
    rms_norm,
    rms_norm_no_scale,
    rms_norm_mul,
    rms_norm_mul_add,
    gelu,
    silu,
    gelu_mul,
    silu_mul,
    softmax,
    softcap,
    rope,
    rope_neox,
    matmul,
    quantized_matmul,
    quantized_matmul_ggml,
    quantized_matmul_id_ggml,
    sdpa,
    flash_attn_vec,
    flash_attn_reduce,
    copy,
    get_rows,
    topk,
    add_rms_norm_mul,  ///< fused add→rms_norm→mul: writes the sum (kept) and the normed product
    rope_copy,         ///< fused rope→copy: the rotated values written where the copy put them
    rms_norm_mul_rope,  ///< fused rms_norm→mul→rope[→copy]: q/k norm of each head, then rope
    act_mul_matvec,     ///< fused silu|gelu→mul→mat-vec (no recipe makes it any more: measured
                        ///< slower on the H100, docs/kernels.md; kept so captures naming it load)
    matvec_epilogue,    ///< fused mat-vec→rope[→copy] or mat-vec→copy: q/k/v projections that
                        ///< write rotated and/or f16 (KV-cache) outputs themselves
    matvec_glu,         ///< fused gate mat-vec, up mat-vec and silu|gelu→mul of a decode FFN:
                        ///< one dispatch sums both weights' rows and writes act(gate) * up
    quantize_q8,        ///< f32 → q8x: the 8-bit x of decode mat-vecs (integer dot products)
};

std::string_view op_kind_name(OpKind k);
std::optional<OpKind> op_kind_from_name(std::string_view name);
/// Number of enumerators, for tables indexed by OpKind.
inline constexpr size_t kOpKindCount = static_cast<size_t>(OpKind::quantize_q8) + 1;

}  // namespace graphlens
