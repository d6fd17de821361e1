// The last step of a capture's graph: names from the program's debug-utils object names
// (given at any time before the capture is written) and the notes' counts.
#include <set>

#include "layer/src/graph_builder.h"

namespace graphlens::layer {
namespace {

std::string kernel_name(const DeviceState* d, const PipelineState& p) {
    std::string name;
    if (d) name = d->object_name(VK_OBJECT_TYPE_PIPELINE, p.handle);
    if (name.empty() && d && p.module_handle)
        name = d->object_name(VK_OBJECT_TYPE_SHADER_MODULE, p.module_handle);
    if (name.empty()) name = "pipeline" + std::to_string(p.serial);
    if (p.kernel.entry_point != "main") name += ":" + p.kernel.entry_point;
    return name;
}

std::string allocation_name(const DeviceState* d, const MemoryState& memory,
                            const std::vector<uint64_t>& buffers, AllocationId id) {
    std::string name;
    if (d) name = d->object_name(VK_OBJECT_TYPE_DEVICE_MEMORY, memory.handle);
    if (!name.empty()) return name;
    for (uint64_t b : buffers) {
        const std::string buffer_name = d ? d->object_name(VK_OBJECT_TYPE_BUFFER, b) : "";
        if (buffer_name.empty()) continue;
        name += (name.empty() ? "" : "|") + buffer_name;
    }
    return name.empty() ? "memory" + std::to_string(id) : name;
}

}  // namespace

ComputeGraph GraphBuilder::finish(const DeviceState* device, std::vector<CaptureNote>& notes) {
    build_nodes();
    for (AllocationId a = 0; a < graph_.allocations.size(); ++a)
        graph_.allocations[a].name =
            allocation_name(device, *allocation_memory_[a], allocation_buffers_[a], a);
    // Kernel names must be unique (a graph finds kernels by name): a second pipeline of the
    // same name gets its creation number.
    std::set<std::string> used;
    for (KernelId k = 0; k < graph_.kernels.size(); ++k) {
        const auto& pipeline = kernel_pipelines_[k];
        std::string name = pipeline ? kernel_name(device, *pipeline) : graph_.kernels[k].name;
        if (!used.insert(name).second && pipeline) {
            name += "#" + std::to_string(pipeline->serial);
            used.insert(name);
        }
        graph_.kernels[k].name = name;
    }
    for (auto& [text, index_count] : note_counts_)
        if (index_count.second > 1)
            notes_[index_count.first].text +=
                " (and " + std::to_string(index_count.second - 1) + " more)";
    notes.insert(notes.end(), notes_.begin(), notes_.end());
    return std::move(graph_);
}

}  // namespace graphlens::layer
