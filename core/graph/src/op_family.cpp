#include "graphlens/graph/op_family.h"

namespace graphlens {

OpFamily op_family(OpKind op) {
    switch (op) {
        case OpKind::matmul:
        case OpKind::quantized_matmul:
        case OpKind::quantized_matmul_ggml:
        case OpKind::quantized_matmul_id_ggml:
        case OpKind::act_mul_matvec:
        case OpKind::matvec_epilogue:
        case OpKind::matvec_glu:
            return OpFamily::matmul;
        case OpKind::sdpa:
        case OpKind::flash_attn_vec:
        case OpKind::flash_attn_reduce:
        case OpKind::softmax:
        case OpKind::softcap:
        case OpKind::topk:
            return OpFamily::attention;
        case OpKind::rms_norm:
        case OpKind::rms_norm_no_scale:
        case OpKind::rms_norm_mul:
        case OpKind::rms_norm_mul_add:
        case OpKind::add_rms_norm_mul:
            return OpFamily::norm;
        case OpKind::add:
        case OpKind::mul:
        case OpKind::scale:
        case OpKind::multi_add:
            return OpFamily::elementwise;
        case OpKind::gelu:
        case OpKind::silu:
        case OpKind::gelu_mul:
        case OpKind::silu_mul:
            return OpFamily::activation;
        case OpKind::rope:
        case OpKind::rope_neox:
        case OpKind::rope_copy:
        case OpKind::rms_norm_mul_rope:
            return OpFamily::rope;
        case OpKind::copy:
        case OpKind::get_rows:
        case OpKind::quantize_q8:
            return OpFamily::copy;
        case OpKind::other:
            break;
    }
    return OpFamily::other;
}

std::string_view op_family_name(OpFamily family) {
    switch (family) {
        case OpFamily::matmul:
            return "matmul";
        case OpFamily::attention:
            return "attention";
        case OpFamily::norm:
            return "norm";
        case OpFamily::elementwise:
            return "element-wise";
        case OpFamily::activation:
            return "activation";
        case OpFamily::rope:
            return "rope";
        case OpFamily::copy:
            return "copy";
        case OpFamily::other:
            break;
    }
    return "other";
}

}  // namespace graphlens
