#include "app/recorded_program_run.h"

#include <filesystem>
#include <optional>
#include <stdexcept>

#include "graphlens/capture/buffer_data.h"
#include "graphlens/capture/capture_file.h"
#include "graphlens/exec/foreign_replay.h"
#include "graphlens/vulkan/device.h"

namespace graphlens::gui {
namespace {

// The program's source (extensions, features, submissions): the graph alone does not carry it.
std::optional<CaptureSource> source_of(const std::string& path) {
    if (path.empty() || !std::filesystem::exists(path)) return std::nullopt;
    try {
        return load_capture(path).source;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

}  // namespace

RunResult run_recorded_program(const ComputeGraph& graph, const RecordedProgramRun& run) {
    ForeignRunOptions o;
    o.modes = {ForeignMode::as_recorded};
    std::vector<ModeResult> refused;
    for (const auto& name : run.modes) {
        try {
            for (ForeignMode m : parse_foreign_modes(name))
                if (m != ForeignMode::as_recorded) o.modes.push_back(m);
        } catch (const std::invalid_argument& e) {
            ModeResult r;
            r.mode = name;
            r.outputs_match = false;
            r.error = e.what();
            refused.push_back(std::move(r));
        }
    }
    o.warmup = static_cast<uint32_t>(run.warmup);
    o.warmup_ms = 0;
    o.repeats = static_cast<uint32_t>(run.repeats);
    o.workload = run.workload;
    o.progress = run.progress;
    o.cancelled = run.cancelled;
    const std::optional<CaptureSource> source = source_of(run.capture_path);
    if (source) o.submissions = source->submissions;
    std::optional<BufferData> data;
    if (!run.capture_path.empty() && std::filesystem::exists(buffer_data_path(run.capture_path)))
        data = load_buffer_data(buffer_data_path(run.capture_path), graph);
    o.data = data ? &*data : nullptr;

    Device::Options dopt;
    if (!run.device_selector.empty()) dopt.selector = run.device_selector;
    dopt.required = foreign_requirements(graph, source ? &*source : nullptr);
    Device device(dopt);
    ForeignRunResult result = run_foreign_capture(device, graph, o);
    for (size_t i = 0; i < result.run.modes.size(); ++i)
        if (result.validation_errors[i] > 0)
            throw std::runtime_error(
                result.run.modes[i].mode + " raised " +
                std::to_string(result.validation_errors[i]) + " validation error(s)" +
                (result.validation_messages[i].empty() ? ""
                                                       : ": " + result.validation_messages[i][0]));
    for (auto& r : refused) result.run.modes.push_back(std::move(r));
    return result.run;
}

}  // namespace graphlens::gui
