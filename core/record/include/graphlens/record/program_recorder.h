#pragma once
// Recording a program: runs it under VK_LAYER_GRAPHLENS_capture and loads the capture the
// layer wrote. The program needs no change: the layer is enabled through the loader's
// environment (VK_LAYER_PATH, VK_INSTANCE_LAYERS, VK_LOADER_LAYERS_ENABLE) and told what to
// capture through its own variables (graphlens/layer/capture_settings.h). `graphlens-cli
// record` and the GUI's File → Record a program… both call record_program.
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graphlens/capture/capture_file.h"
#include "graphlens/layer/capture_settings.h"

namespace graphlens {

struct RecordRequest {
    std::vector<std::string> command;         ///< the program (searched in PATH) and its arguments
    std::filesystem::path working_directory;  ///< empty: this process's
    std::filesystem::path output;             ///< the capture file the layer writes
    layer::CaptureRange range;                ///< default: the first submission with a dispatch
    /// Where the program's stdout and stderr go: empty = this process's own; else a file.
    std::filesystem::path program_log;
    /// Also save the contents of the buffers the range reads, at its start, to
    /// `<output>.data` (GRAPHLENS_CAPTURE_DATA).
    bool data = false;
};

struct RecordResult {
    int exit_code = 0;            ///< the program's (128 + signal when killed)
    std::string program_failure;  ///< "exited with status 3", "was killed by signal 11", or ""
    /// The capture as written, loaded (load_capture): absent when none was written, and then
    /// `why_not` says why.
    std::optional<CaptureDocument> capture;
    std::string why_not;
};

/// The folder with the layer's manifest: GRAPHLENS_LAYER_PATH, else the build tree (<build>/layer
/// beside <build>/core/ or <build>/gui/), else the install tree
/// (<prefix>/share/vulkan/explicit_layer.d beside <prefix>/bin). Throws std::runtime_error
/// listing where it looked.
std::filesystem::path find_layer_manifest_dir();

/// The environment changes that load the layer and give it `request`'s settings: a name with an
/// empty value is removed from the program's environment.
std::map<std::string, std::string> record_environment(const RecordRequest& request,
                                                      const std::filesystem::path& manifest_dir,
                                                      const std::filesystem::path& status_file);

/// Runs the program to its end under the layer. Throws std::invalid_argument for an empty
/// command or malformed range, std::runtime_error when the program cannot be started (naming
/// it and why), CaptureError when the written capture does not load. A program that fails
/// after the layer wrote its capture still gives the capture.
RecordResult record_program(const RecordRequest& request);

}  // namespace graphlens
