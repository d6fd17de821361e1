#pragma once
// RenderDoc's in-app API (renderdoc_app.h), loaded at run time only: librenderdoc.so is opened
// with dlopen when it is present, never linked, so GraphLens runs the same without RenderDoc.
// `graphlens-cli run --renderdoc` and the GUI's Run → Capture in RenderDoc bracket one execution
// of one mode with StartFrameCapture / EndFrameCapture, so RenderDoc opens GraphLens's exact
// command buffers, with the names GraphLens gives its buffers, pipelines and command buffers.
#include <cstdint>
#include <memory>
#include <string>

#include "graphlens/exec/execution_mode.h"
#include "graphlens/exec/runner.h"
#include "graphlens/graph/compute_graph.h"
#include "graphlens/vulkan/device.h"

namespace graphlens {

class RenderDoc {
  public:
    /// The RenderDoc already in this process (a program started from qrenderdoc or
    /// renderdoccmd), else librenderdoc.so (or $GRAPHLENS_RENDERDOC_LIBRARY) opened now.
    /// Opening it enables RenderDoc's Vulkan layer for instances created afterwards: load it
    /// before the Device. Null when RenderDoc is absent, with the reason in `why`.
    static std::unique_ptr<RenderDoc> load(std::string& why);

    /// Where captures go: RenderDoc appends "_frameN.rdc" to this template.
    void set_capture_path_template(const std::string& path_template);
    void start_capture(const Device& device);
    /// Ends the capture; false when RenderDoc captured nothing (e.g. its layer was not
    /// active on the device's instance).
    bool end_capture(const Device& device);
    /// Ends the capture without writing it (RenderDoc before API 1.4 writes it anyway).
    void discard_capture(const Device& device);
    uint32_t capture_count() const;
    /// The file of capture `index` (0-based); empty when there is none.
    std::string capture_path(uint32_t index) const;
    /// "1.24.0".
    std::string version() const;

  private:
    RenderDoc(const void* api, bool can_discard) : api_(api), can_discard_(can_discard) {}
    const void* api_;   // RENDERDOC_API_1_4_0, kept opaque so renderdoc_app.h stays private
    bool can_discard_;  // API 1.4.0 or later
};

/// Fills the graph's allocations as the Runner does (seeded random data), then executes
/// `mode`'s plan of `graph` once between RenderDoc's start and end of capture. Returns the
/// capture's file. Throws std::runtime_error when RenderDoc made no capture.
std::string capture_one_execution(RenderDoc& renderdoc, Device& device, const ComputeGraph& graph,
                                  ExecutionMode mode, const RunnerOptions& options);

}  // namespace graphlens
