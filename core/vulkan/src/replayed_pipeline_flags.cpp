#include "vulkan/src/replayed_pipeline_flags.h"

#include <fmt/format.h>

namespace graphlens {
namespace {

struct KnownFlag {
    VkPipelineCreateFlags bit;
    const char* name;
    /// Why it is not replayed; nullptr = replayed (always, or with executable_info).
    const char* dropped_because;
    bool needs_executable_info = false;
};

constexpr const char* kNeedsExecutableInfo =
    "it needs the pipelineExecutableInfo feature, which the replay's device has only with "
    "GRAPHLENS_PIPELINE_STATS=1";

constexpr KnownFlag kKnownFlags[] = {
    {VK_PIPELINE_CREATE_DISABLE_OPTIMIZATION_BIT, "DISABLE_OPTIMIZATION", nullptr},
    {VK_PIPELINE_CREATE_ALLOW_DERIVATIVES_BIT, "ALLOW_DERIVATIVES", nullptr},
    {VK_PIPELINE_CREATE_DERIVATIVE_BIT, "DERIVATIVE",
     "it needs the program's base pipeline, which the capture does not name"},
    {VK_PIPELINE_CREATE_DISPATCH_BASE_BIT, "DISPATCH_BASE", nullptr},
    {VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR, "CAPTURE_STATISTICS", nullptr, true},
    {VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR,
     "CAPTURE_INTERNAL_REPRESENTATIONS", nullptr, true},
    {VK_PIPELINE_CREATE_FAIL_ON_PIPELINE_COMPILE_REQUIRED_BIT, "FAIL_ON_PIPELINE_COMPILE_REQUIRED",
     "it would make creation fail unless a pipeline cache already holds the pipeline; the replay "
     "has no cache"},
    {VK_PIPELINE_CREATE_EARLY_RETURN_ON_FAILURE_BIT, "EARLY_RETURN_ON_FAILURE",
     "it needs the pipelineCreationCacheControl feature and concerns batches of pipelines; the "
     "replay creates one at a time"},
};

}  // namespace

ReplayedPipelineFlags replayed_pipeline_flags(VkPipelineCreateFlags recorded,
                                              bool executable_info) {
    ReplayedPipelineFlags out;
    VkPipelineCreateFlags unknown = recorded;
    for (const KnownFlag& f : kKnownFlags) {
        if (!(recorded & f.bit)) continue;
        unknown &= ~f.bit;
        const char* why =
            f.needs_executable_info && !executable_info ? kNeedsExecutableInfo : f.dropped_because;
        if (why)
            out.dropped.push_back(
                fmt::format("{:#x} ({}) is not replayed: {}", f.bit, f.name, why));
        else
            out.flags |= f.bit;
    }
    if (unknown)
        out.dropped.push_back(fmt::format(
            "{:#x} is not replayed: not a flag the replay of a compute pipeline knows to be "
            "valid without the program's other state",
            unknown));
    return out;
}

}  // namespace graphlens
