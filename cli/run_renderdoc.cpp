#include "run_renderdoc.h"

#include <fmt/format.h>

#include <stdexcept>

#include "graphlens/exec/renderdoc_capture.h"
#include "graphlens/exec/runner.h"
#include "graphlens/ops/fusion_recipes.h"
#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/foreign_program.h"

namespace graphlens::cli {

int run_in_renderdoc(const CaptureDocument& doc, const std::string& modes, uint64_t seed) {
    if (is_foreign_graph(doc.graph))
        throw std::invalid_argument(
            "--renderdoc runs GraphLens's own graphs; for a recorded program start "
            "graphlens-cli run from qrenderdoc instead");
    const std::vector<ExecutionMode> chosen = parse_execution_modes(modes);
    if (chosen.size() != 1)
        throw std::invalid_argument(
            "--renderdoc captures one execution of one mode: give --modes one mode (e.g. "
            "--modes levels)");
    std::string why;
    // Before the Device: opening RenderDoc enables its layer for the instance created next.
    const std::unique_ptr<RenderDoc> renderdoc = RenderDoc::load(why);
    if (!renderdoc) throw std::runtime_error(why);
    Device device;
    RunnerOptions options;
    options.fusion_recipes = ops::fusion_recipes();
    options.seed = seed;
    const std::string path =
        capture_one_execution(*renderdoc, device, doc.graph, chosen.front(), options);
    fmt::print(
        "RenderDoc (in-app API {}) captured one execution of {} on {}\nRenderDoc capture written "
        "to {}\n",
        renderdoc->version(), execution_mode_name(chosen.front()), device.facts().name, path);
    return 0;
}

}  // namespace graphlens::cli
