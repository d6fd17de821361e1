#pragma once
// A kernel's internal stages in a capture (KernelInfo::stages, graphlens/graph/kernel_stage.h):
// "stages": [{"name", "reads": [{"set"?, "binding"}], "writes": [...], "order",
// "counter": {"set"?, "binding"}, "block"?}], written only when the kernel has stages, so a
// kernel of one stage and a file from before the field read the same.
#include "capture/src/capture_json.h"
#include "capture/src/json_fields.h"
#include "graphlens/graph/kernel_info.h"

namespace graphlens::capture_detail {

Json kernel_stages_json(const std::vector<KernelStage>& stages);
/// The kernel's "stages", if any: each stage's order a known name, a counter unless the order
/// is "first", and the whole declaration consistent with the kernel's bindings
/// (kernel_stage_problems); the first problem is the error.
std::vector<KernelStage> read_kernel_stages(const Fields& kernel, const KernelInfo& k);

}  // namespace graphlens::capture_detail
