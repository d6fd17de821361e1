// run_step_loop: one plan, its per-step values patched, every step recorded and run.
#include "graphlens/exec/step_loop.h"

#include <chrono>
#include <stdexcept>

namespace graphlens {

std::vector<ExecutionTiming> run_step_loop(GraphExecutor& executor, ModePlan& plan, size_t steps,
                                           const StepPatch& patch) {
    if (plan.execute.profile_dispatches || plan.execute.profile_groups)
        throw std::invalid_argument("a step loop runs without per-dispatch or per-group profiles");
    if (plan.execute.submit == SubmitMode::ahead) {
        // Step i's graph is patched when its recording begins: step i - 1 has been recorded by
        // then (its command buffer holds its own values), so one graph serves every step.
        return executor.execute_steps(
            [&](size_t step) -> const ComputeGraph& {
                patch(plan.graph, step);
                return plan.graph;
            },
            plan.execute, steps);
    }
    using Clock = std::chrono::steady_clock;
    std::vector<ExecutionTiming> out;
    out.reserve(steps);
    auto previous = Clock::now();
    for (size_t step = 0; step < steps; ++step) {
        patch(plan.graph, step);
        ExecutionTiming t = executor.execute(plan.graph, plan.execute);
        const auto done = Clock::now();
        t.wall_ns = static_cast<uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(done - previous).count());
        previous = done;
        out.push_back(std::move(t));
    }
    return out;
}

}  // namespace graphlens
