#pragma once
// A loop of steps that share one plan and differ only in per-step values, as a decode loop's
// tokens do (the KV length, the cache slot, the sampled token's place): the mode's plan (the
// pass pipeline's order, barriers and command-buffer split, Runner::plan) is made once by the
// caller, and before each step a patch writes that step's values into the plan's graph (push
// constants, binding offsets), never its order, barriers or kernels. Each step is then
// recorded from the patched graph and run as the mode runs one execution; levels+ahead records
// step i + 1 while step i executes (GraphExecutor::execute_steps), every other mode records,
// submits and waits for each step in turn.
#include <cstddef>
#include <functional>
#include <vector>

#include "graphlens/exec/runner.h"
#include "graphlens/vulkan/graph_executor.h"

namespace graphlens {

/// Writes step `step`'s values into `graph`, the plan's graph.
using StepPatch = std::function<void(ComputeGraph& graph, size_t step)>;

/// Runs `steps` steps of `plan` on `executor`, patching plan.graph before each. Per step, as
/// ExecutionTiming: encode_ns its recording, gpu_ns its timestamps, and wall_ns from the
/// previous step's completion (step 0: from its own patch) to its own, which is the loop's time
/// per step with everything the CPU does between two steps included (patch, validation,
/// recording, submission, fence wait). Refuses the per-dispatch and per-group profiles.
std::vector<ExecutionTiming> run_step_loop(GraphExecutor& executor, ModePlan& plan, size_t steps,
                                           const StepPatch& patch);

}  // namespace graphlens
