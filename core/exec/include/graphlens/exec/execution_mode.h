#pragma once
// The ways the Runner executes one captured graph (design.md, "Execution modes"):
//   per-op-submit  a command buffer, a submit and a wait per dispatch
//   serial         one command buffer, a barrier after every dispatch (the reference)
//   elided         captured order, a barrier only where a hazard needs one
//   fused          fusion pass, then barriers planned
//   greedy         fusion + llama.cpp's greedy reorder (lookahead window), barriers planned
//   levels         fusion + reorder by ASAP levels of the hazard DAG, barriers planned
//   levels+split   levels, encoded in two command buffers (first submitted early)
//   levels+stream  levels, encoded in command buffers of growing size (8, 32, 128, ...), each
//                  submitted as soon as it is recorded: the encode hides behind execution
//   levels+parallel levels, its slices recorded at once by several threads into secondary
//                  command buffers that one primary buffer runs: one submission
//   levels+ahead   levels, one command buffer a step, as a decode loop runs tokens: the next
//                  step is recorded while this one executes and submitted when it completes;
//                  its wall is the time per step of that loop (GraphExecutor::execute_steps)
// The pass-based modes are cumulative (fusion is part of greedy and levels), as in llama.cpp
// where the reorder runs on the fused graph.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace graphlens {

enum class ExecutionMode : uint8_t {
    per_op_submit,
    serial,
    elided,
    fused,
    greedy,
    levels,
    levels_split,
    levels_stream,
    levels_parallel,
    levels_ahead,
};

std::string_view execution_mode_name(ExecutionMode m);  ///< "per-op-submit", ..., "levels+ahead"
std::optional<ExecutionMode> execution_mode_from_name(std::string_view name);
/// Every mode, in the order above.
std::vector<ExecutionMode> all_execution_modes();
/// "all" or a comma-separated list of names; throws std::invalid_argument naming the unknown
/// entry and listing the valid ones.
std::vector<ExecutionMode> parse_execution_modes(std::string_view list);
/// True when the mode runs fused kernels (results compared within tolerance, not bitwise,
/// when a fusion was applied).
bool execution_mode_fuses(ExecutionMode m);

}  // namespace graphlens
