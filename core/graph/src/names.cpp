// Name tables of the small enums of the graph IR (used by reports, captures and the CLI).
#include <array>
#include <string_view>

#include "graphlens/graph/allocation.h"
#include "graphlens/graph/barrier_scope.h"
#include "graphlens/graph/hazard.h"
#include "graphlens/graph/kernel_info.h"
#include "graphlens/graph/op_kind.h"

namespace graphlens {
namespace {
template <typename E, size_t N>
std::optional<E> lookup(const std::array<std::string_view, N>& names, std::string_view name) {
    for (size_t i = 0; i < N; ++i)
        if (names[i] == name) return static_cast<E>(i);
    return std::nullopt;
}

constexpr std::array<std::string_view, kOpKindCount> kOpNames{"other",
                                                              "add",
                                                              "mul",
                                                              "scale",
                                                              "multi_add",
                                                              "rms_norm",
                                                              "rms_norm_no_scale",
                                                              "rms_norm_mul",
                                                              "rms_norm_mul_add",
                                                              "gelu",
                                                              "silu",
                                                              "gelu_mul",
                                                              "silu_mul",
                                                              "softmax",
                                                              "softcap",
                                                              "rope",
                                                              "rope_neox",
                                                              "matmul",
                                                              "quantized_matmul",
                                                              "quantized_matmul_ggml",
                                                              "quantized_matmul_id_ggml",
                                                              "sdpa",
                                                              "flash_attn_vec",
                                                              "flash_attn_reduce",
                                                              "copy",
                                                              "get_rows",
                                                              "topk",
                                                              "add_rms_norm_mul",
                                                              "rope_copy",
                                                              "rms_norm_mul_rope",
                                                              "act_mul_matvec",
                                                              "matvec_epilogue",
                                                              "matvec_glu",
                                                              "quantize_q8"};
constexpr std::array<std::string_view, 6> kUsageNames{"weights", "activations", "kv_cache",
                                                      "scratch", "input",       "output"};
constexpr std::array<std::string_view, 3> kAccessNames{"read", "write", "read_write"};
constexpr std::array<std::string_view, 3> kHazardNames{"RAW", "WAR", "WAW"};
constexpr std::array<std::string_view, 2> kEvidenceNames{"decoration", "code"};
constexpr std::array<std::string_view, 3> kDescriptorNames{"storage_buffer", "uniform_buffer",
                                                           "other"};
constexpr std::array<std::string_view, 3> kBarrierOriginNames{"pipeline_barrier", "wait_events",
                                                              "submission"};
}  // namespace

std::string_view op_kind_name(OpKind k) {
    return kOpNames.at(static_cast<size_t>(k));
}
std::optional<OpKind> op_kind_from_name(std::string_view n) {
    return lookup<OpKind>(kOpNames, n);
}

std::string_view allocation_usage_name(AllocationUsage u) {
    return kUsageNames.at(static_cast<size_t>(u));
}
std::optional<AllocationUsage> allocation_usage_from_name(std::string_view n) {
    return lookup<AllocationUsage>(kUsageNames, n);
}

std::string_view binding_access_name(BindingAccess a) {
    return kAccessNames.at(static_cast<size_t>(a));
}
std::optional<BindingAccess> binding_access_from_name(std::string_view n) {
    return lookup<BindingAccess>(kAccessNames, n);
}

std::string_view hazard_kind_name(HazardKind k) {
    return kHazardNames.at(static_cast<size_t>(k));
}
std::optional<HazardKind> hazard_kind_from_name(std::string_view n) {
    return lookup<HazardKind>(kHazardNames, n);
}

std::string_view access_evidence_name(AccessEvidence e) {
    return kEvidenceNames.at(static_cast<size_t>(e));
}
std::optional<AccessEvidence> access_evidence_from_name(std::string_view n) {
    return lookup<AccessEvidence>(kEvidenceNames, n);
}

std::string_view descriptor_kind_name(DescriptorKind k) {
    return kDescriptorNames.at(static_cast<size_t>(k));
}
std::optional<DescriptorKind> descriptor_kind_from_name(std::string_view n) {
    return lookup<DescriptorKind>(kDescriptorNames, n);
}

std::string_view barrier_origin_name(BarrierOrigin o) {
    return kBarrierOriginNames.at(static_cast<size_t>(o));
}
std::optional<BarrierOrigin> barrier_origin_from_name(std::string_view n) {
    return lookup<BarrierOrigin>(kBarrierOriginNames, n);
}

}  // namespace graphlens
