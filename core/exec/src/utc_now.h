#pragma once
// The date a run result records: now, in UTC, as ISO 8601 ("2026-11-27T18:02:33Z").
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <ctime>
#include <string>

namespace graphlens {

inline std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", tm);
}

}  // namespace graphlens
