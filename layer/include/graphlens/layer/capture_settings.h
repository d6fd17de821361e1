#pragma once
// What `graphlens-cli record` tells VK_LAYER_GRAPHLENS_capture: which work to capture and
// where to write it, as environment variables of the recorded program (a layer has no other
// way to receive options: the program creates it through the Vulkan loader, not the CLI).
// The CLI writes them with the names below and the layer reads them with
// parse_capture_settings, so both sides agree on names and syntax.
//
//   GRAPHLENS_CAPTURE_OUTPUT             capture file to write (default graphlens-capture.json
//                                        in the program's working directory)
//   GRAPHLENS_CAPTURE_STATUS             optional file the layer writes one line to when the
//                                        program ends: "written <path>" or "not written: <why>"
//   GRAPHLENS_CAPTURE_SUBMITS            "A..B" or "A": queue submissions A to B (0-based,
//                                        counted over every queue; each VkSubmitInfo or
//                                        VkSubmitInfo2 is one submission)
//   GRAPHLENS_CAPTURE_AFTER_DISPATCHES   N: skip the first N submitted dispatches
//   GRAPHLENS_CAPTURE_DISPATCHES         M: then capture M dispatches (and the copies and
//                                        barriers between them); without it, until the end
//   GRAPHLENS_CAPTURE_LABEL              NAME: the commands inside the first debug-utils label
//                                        region named NAME (command-buffer or queue label)
//   GRAPHLENS_CAPTURE_DATA               1: also save the contents of the buffers the range
//                                        reads, as they are when it begins, to <output>.data
//   GRAPHLENS_CAPTURE_DATA_LIMIT         bytes the contents may take (default 16 GiB); more,
//                                        and no contents are saved (the capture notes why)
//
// At most one kind of range may be given. Without any, the layer captures the first
// submission that contains a dispatch.
#include <charconv>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace graphlens::layer {

inline constexpr const char* kEnvOutput = "GRAPHLENS_CAPTURE_OUTPUT";
inline constexpr const char* kEnvStatus = "GRAPHLENS_CAPTURE_STATUS";
inline constexpr const char* kEnvSubmits = "GRAPHLENS_CAPTURE_SUBMITS";
inline constexpr const char* kEnvAfterDispatches = "GRAPHLENS_CAPTURE_AFTER_DISPATCHES";
inline constexpr const char* kEnvDispatches = "GRAPHLENS_CAPTURE_DISPATCHES";
inline constexpr const char* kEnvLabel = "GRAPHLENS_CAPTURE_LABEL";
inline constexpr const char* kEnvData = "GRAPHLENS_CAPTURE_DATA";
inline constexpr const char* kEnvDataLimit = "GRAPHLENS_CAPTURE_DATA_LIMIT";
inline constexpr uint64_t kDefaultDataLimit = 16ull << 30;
inline constexpr const char* kDefaultOutput = "graphlens-capture.json";

/// The loader names the layer by this; its manifest is VkLayer_graphlens_capture.json.
inline constexpr const char* kLayerName = "VK_LAYER_GRAPHLENS_capture";
inline constexpr const char* kLayerManifest = "VkLayer_graphlens_capture.json";

enum class RangeKind : uint8_t {
    first_dispatch_submission,  ///< the default
    submits,
    dispatches,
    label,
};

struct CaptureRange {
    RangeKind kind = RangeKind::first_dispatch_submission;
    uint64_t first = 0;  ///< submits: first index; dispatches: dispatches skipped
    /// submits: last index (inclusive); dispatches: how many (UINT64_MAX = until the end)
    uint64_t count_or_last = 0;
    std::string label;

    /// The range in the user's terms, as CaptureSource::range stores it.
    std::string describe() const {
        switch (kind) {
            case RangeKind::submits:
                return first == count_or_last ? "submit " + std::to_string(first)
                                              : "submits " + std::to_string(first) + ".." +
                                                    std::to_string(count_or_last);
            case RangeKind::dispatches:
                return count_or_last == UINT64_MAX ? "dispatches from " + std::to_string(first)
                                                   : "dispatches " + std::to_string(first) + ".." +
                                                         std::to_string(first + count_or_last - 1);
            case RangeKind::label:
                return "label " + label;
            case RangeKind::first_dispatch_submission:
                break;
        }
        return "first submission with a dispatch";
    }
};

struct CaptureSettings {
    std::string output = kDefaultOutput;
    std::string status_file;  ///< empty: none
    CaptureRange range;
    bool data = false;  ///< save the buffers' contents at the start of the range
    uint64_t data_limit = kDefaultDataLimit;
};

/// Parses a non-negative decimal integer; throws std::invalid_argument naming `what`.
inline uint64_t parse_count(std::string_view text, const char* what) {
    uint64_t value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc{} || ptr != end)
        throw std::invalid_argument(std::string(what) + ": expected a non-negative integer, got '" +
                                    std::string(text) + "'");
    return value;
}

/// "A..B" or "A" → {A, B}; throws std::invalid_argument when malformed or B < A.
inline std::pair<uint64_t, uint64_t> parse_submit_range(std::string_view text) {
    const size_t dots = text.find("..");
    const uint64_t a = parse_count(text.substr(0, dots), kEnvSubmits);
    const uint64_t b =
        dots == std::string_view::npos ? a : parse_count(text.substr(dots + 2), kEnvSubmits);
    if (b < a)
        throw std::invalid_argument(std::string(kEnvSubmits) + ": the range '" + std::string(text) +
                                    "' ends before it begins");
    return {a, b};
}

/// Reads the settings through `getenv` (a parameter so that tests and the CLI can check a
/// set of variables without exporting them). Throws std::invalid_argument on a malformed value
/// or on two kinds of range at once.
inline CaptureSettings parse_capture_settings(
    const std::function<const char*(const char*)>& getenv) {
    CaptureSettings s;
    auto value = [&](const char* name) -> std::optional<std::string> {
        const char* v = getenv(name);
        if (!v || !*v) return std::nullopt;
        return std::string(v);
    };
    if (auto v = value(kEnvOutput)) s.output = *v;
    if (auto v = value(kEnvStatus)) s.status_file = *v;
    if (auto v = value(kEnvData)) s.data = parse_count(*v, kEnvData) != 0;
    if (auto v = value(kEnvDataLimit)) s.data_limit = parse_count(*v, kEnvDataLimit);
    const auto submits = value(kEnvSubmits);
    const auto after = value(kEnvAfterDispatches);
    const auto count = value(kEnvDispatches);
    const auto label = value(kEnvLabel);
    const int kinds = int(submits.has_value()) + int(after || count) + int(label.has_value());
    if (kinds > 1)
        throw std::invalid_argument(
            "give one range only: submits, dispatches or a label (GRAPHLENS_CAPTURE_*)");
    if (submits) {
        const auto [a, b] = parse_submit_range(*submits);
        s.range = {RangeKind::submits, a, b, {}};
    } else if (after || count) {
        const uint64_t n = after ? parse_count(*after, kEnvAfterDispatches) : 0;
        const uint64_t m = count ? parse_count(*count, kEnvDispatches) : UINT64_MAX;
        if (m == 0) throw std::invalid_argument(std::string(kEnvDispatches) + ": must be > 0");
        s.range = {RangeKind::dispatches, n, m, {}};
    } else if (label) {
        s.range = {RangeKind::label, 0, 0, *label};
    }
    return s;
}

}  // namespace graphlens::layer
