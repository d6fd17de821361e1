#include "graphlens/exec/renderdoc_capture.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <renderdoc_app.h>

#include <cstdlib>
#include <stdexcept>

#include "graphlens/vulkan/device_memory.h"

namespace graphlens {
namespace {

const RENDERDOC_API_1_4_0* api_of(const void* api) {
    return static_cast<const RENDERDOC_API_1_4_0*>(api);
}

// RenderDoc names a device by the dispatch table pointer inside its VkInstance.
RENDERDOC_DevicePointer device_pointer(const Device& device) {
    return RENDERDOC_DEVICEPOINTER_FROM_VKINSTANCE(device.instance());
}

}  // namespace

std::unique_ptr<RenderDoc> RenderDoc::load(std::string& why) {
    const char* override_path = std::getenv("GRAPHLENS_RENDERDOC_LIBRARY");
    const std::string library = override_path && *override_path ? override_path : "librenderdoc.so";
    // Already injected (started from RenderDoc): take that copy, never a second one.
    void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (!handle) handle = dlopen(library.c_str(), RTLD_NOW);
    if (!handle) {
        why = fmt::format(
            "RenderDoc is not available: {} could not be opened ({}); install RenderDoc "
            "(Debian: apt install renderdoc) or start GraphLens from qrenderdoc",
            library, dlerror());
        return nullptr;
    }
    auto get_api = reinterpret_cast<pRENDERDOC_GetAPI>(dlsym(handle, "RENDERDOC_GetAPI"));
    void* api = nullptr;
    // 1.4.0 can discard a capture that failed half-way; 1.1.2 has the rest.
    bool can_discard = get_api && get_api(eRENDERDOC_API_Version_1_4_0, &api) == 1 && api;
    if (!can_discard && (!get_api || get_api(eRENDERDOC_API_Version_1_1_2, &api) != 1 || !api)) {
        why = fmt::format("RenderDoc is not available: {} has no in-app API 1.1.2", library);
        return nullptr;
    }
    return std::unique_ptr<RenderDoc>(new RenderDoc(api, can_discard));
}

void RenderDoc::set_capture_path_template(const std::string& path_template) {
    api_of(api_)->SetCaptureFilePathTemplate(path_template.c_str());
}

void RenderDoc::start_capture(const Device& device) {
    api_of(api_)->StartFrameCapture(device_pointer(device), nullptr);
}

bool RenderDoc::end_capture(const Device& device) {
    return api_of(api_)->EndFrameCapture(device_pointer(device), nullptr) == 1;
}

void RenderDoc::discard_capture(const Device& device) {
    if (can_discard_)
        api_of(api_)->DiscardFrameCapture(device_pointer(device), nullptr);
    else
        api_of(api_)->EndFrameCapture(device_pointer(device), nullptr);
}

uint32_t RenderDoc::capture_count() const {
    return api_of(api_)->GetNumCaptures();
}

std::string RenderDoc::capture_path(uint32_t index) const {
    uint32_t length = 0;
    if (api_of(api_)->GetCapture(index, nullptr, &length, nullptr) != 1 || length == 0) return {};
    std::string path(length, '\0');
    api_of(api_)->GetCapture(index, path.data(), &length, nullptr);
    path.resize(path.find('\0') == std::string::npos ? path.size() : path.find('\0'));
    return path;
}

std::string RenderDoc::version() const {
    int major = 0, minor = 0, patch = 0;
    api_of(api_)->GetAPIVersion(&major, &minor, &patch);
    return fmt::format("{}.{}.{}", major, minor, patch);
}

std::string capture_one_execution(RenderDoc& renderdoc, Device& device, const ComputeGraph& graph,
                                  ExecutionMode mode, const RunnerOptions& options) {
    DeviceMemory memory(device);
    memory.recreate(graph);
    fill_random(memory, graph, options.seed);
    Runner runner(device, memory);
    const ModePlan plan = Runner::plan(graph, mode, options);
    const uint32_t before = renderdoc.capture_count();
    renderdoc.start_capture(device);
    try {
        runner.executor().execute(plan.graph, plan.execute);
    } catch (...) {
        renderdoc.discard_capture(device);
        throw;
    }
    if (!renderdoc.end_capture(device) || renderdoc.capture_count() == before)
        throw std::runtime_error(
            "RenderDoc made no capture: its Vulkan layer was not active on this device "
            "(RenderDoc must be loaded before the Vulkan instance is created)");
    return renderdoc.capture_path(renderdoc.capture_count() - 1);
}

}  // namespace graphlens
