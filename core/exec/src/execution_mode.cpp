#include "graphlens/exec/execution_mode.h"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace graphlens {

namespace {
constexpr std::string_view kNames[] = {
    "per-op-submit", "serial",       "elided",        "fused",           "greedy",
    "levels",        "levels+split", "levels+stream", "levels+parallel", "levels+ahead"};
}

std::string_view execution_mode_name(ExecutionMode m) {
    return kNames[static_cast<size_t>(m)];
}

std::optional<ExecutionMode> execution_mode_from_name(std::string_view name) {
    for (size_t i = 0; i < std::size(kNames); ++i)
        if (kNames[i] == name) return static_cast<ExecutionMode>(i);
    return std::nullopt;
}

std::vector<ExecutionMode> all_execution_modes() {
    std::vector<ExecutionMode> out;
    for (size_t i = 0; i < std::size(kNames); ++i) out.push_back(static_cast<ExecutionMode>(i));
    return out;
}

std::vector<ExecutionMode> parse_execution_modes(std::string_view list) {
    if (list == "all") return all_execution_modes();
    std::vector<ExecutionMode> out;
    size_t pos = 0;
    while (pos <= list.size()) {
        const size_t comma = std::min(list.find(',', pos), list.size());
        const std::string_view item = list.substr(pos, comma - pos);
        const auto m = execution_mode_from_name(item);
        if (!m)
            throw std::invalid_argument(fmt::format("unknown execution mode '{}' (valid: all, {})",
                                                    item, fmt::join(kNames, ", ")));
        bool seen = false;
        for (auto x : out) seen = seen || x == *m;
        if (!seen) out.push_back(*m);
        pos = comma + 1;
    }
    return out;
}

bool execution_mode_fuses(ExecutionMode m) {
    return m == ExecutionMode::fused || m == ExecutionMode::greedy || m == ExecutionMode::levels ||
           m == ExecutionMode::levels_split || m == ExecutionMode::levels_stream ||
           m == ExecutionMode::levels_parallel || m == ExecutionMode::levels_ahead;
}

}  // namespace graphlens
