#pragma once
// Whether a kernel's declared stages (KernelInfo::stages) agree with its reflected bindings:
// a declaration is written by hand beside the shader, the reflection comes from the SPIR-V, so
// this check is what keeps the two from drifting apart.
#include <string>
#include <vector>

#include "graphlens/graph/kernel_info.h"

namespace graphlens {

/// One message per disagreement, each naming the kernel, the stage and the binding; empty when
/// the declaration is consistent (a kernel without stages always is). Consistent means:
///   - the first stage is ordered StageOrder::first and no later one is;
///   - every declared read / write is of a binding the kernel has, whose reflected access
///     allows it; every counter is a binding the kernel reads and writes (its atomics);
///   - every reflected binding is in some stage: a binding the SPIR-V reads is read by a stage
///     or is a counter, and one it writes is written by a stage or is a counter.
std::vector<std::string> kernel_stage_problems(const KernelInfo& kernel);

}  // namespace graphlens
