// graphlens-cli diff: two captures or runs compared by label, stage and mode
// (graphlens/capture/run_diff.h).
#include <fmt/core.h>

#include <memory>

#include "command.h"
#include "graphlens/capture/run_diff.h"

namespace graphlens::cli {
namespace {

struct DiffArgs {
    std::string a, b;
    size_t max_listed = 20;
};

const RegisterCommand diff_registration{
    "diff", [](CLI::App& app) -> std::function<int()> {
        app.description(
            "Compare two captures or runs (before/after): barriers and groups per stage, "
            "timing per mode, op kind and layer, largest per-dispatch changes; dispatches "
            "are matched by label. Prints Markdown.");
        auto args = std::make_shared<DiffArgs>();
        app.add_option("a", args->a, "the 'before' capture")->required();
        app.add_option("b", args->b, "the 'after' capture")->required();
        app.add_option("--top", args->max_listed, "rows of the per-dispatch and unmatched lists");
        return [args] {
            const CaptureDocument a = load_capture(args->a);
            const CaptureDocument b = load_capture(args->b);
            DiffOptions o;
            o.max_listed = args->max_listed;
            fmt::print("{}", diff_markdown(diff_captures(a, b, args->a, args->b, o)));
            return 0;
        };
    }};

}  // namespace
}  // namespace graphlens::cli
