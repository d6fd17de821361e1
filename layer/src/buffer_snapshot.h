#pragma once
// The contents of a program's buffers at the start of the captured range
// (GRAPHLENS_CAPTURE_DATA): taken just before the vkQueueSubmit that may begin the range,
// after the device is idle, by copying every bound buffer (TRANSFER_SRC added at creation)
// into a host-visible staging buffer of the layer's, 64 MiB at a time. Each byte of a memory
// is copied once however many buffers alias it. At write time the entries of the allocations
// the captured graph reads go to <capture>.data (graphlens/capture/buffer_data.h).
#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graphlens/capture/buffer_data.h"
#include "graphlens/graph/compute_graph.h"
#include "layer/src/layer_state.h"

namespace graphlens::layer {

struct BufferSnapshot {
    struct Entry {
        std::shared_ptr<const MemoryState> memory;
        uint64_t offset = 0;  ///< in the memory
        std::vector<uint8_t> bytes;
    };
    std::vector<Entry> entries;
    /// Why there are no entries (the limit, a failure), empty when taken.
    std::string not_taken;
};

/// Waits for `device` to be idle and copies its buffers' bytes through `queue`. Takes nothing
/// (and says why) when they are more than `limit` bytes.
BufferSnapshot take_buffer_snapshot(DeviceState& device, VkQueue queue, uint64_t limit);

/// The `size` bytes at `offset` of `memory` as the snapshot holds them, or none when no entry
/// covers all of them.
std::optional<std::vector<uint8_t>> snapshot_bytes(const BufferSnapshot& snapshot,
                                                   const MemoryState* memory, uint64_t offset,
                                                   uint64_t size);

/// The entries of the allocations `graph` reads, as allocation byte ranges
/// (`memories[id]` is allocation id's memory).
BufferData snapshot_data_for(const BufferSnapshot& snapshot,
                             const std::vector<std::shared_ptr<const MemoryState>>& memories,
                             const ComputeGraph& graph);

}  // namespace graphlens::layer
