#pragma once
// Recorded commands (recorded_command.h) resolved to the tracked objects they name, for a
// submission that may touch the captured range: buffer spans get their buffer (VK_WHOLE_SIZE
// resolved against its size), barrier masks are mapped onto GraphLens's stages and accesses
// (barrier_mapping.h), and an event wait's dependencies get the position of their events'
// latest sets.
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "graphlens/graph/barrier_scope.h"
#include "layer/src/layer_state.h"
#include "layer/src/recorded_command.h"

namespace graphlens::layer {

/// A buffer span used by a transfer command, a buffer barrier or indirect arguments.
struct BufferSpan {
    std::shared_ptr<BufferState> buffer;  ///< null: a buffer the layer does not know
    uint64_t offset = 0;
    uint64_t size = 0;  ///< VK_WHOLE_SIZE resolved
};

struct ResolvedDispatch {
    std::array<uint32_t, 3> groups{1, 1, 1};
    std::array<uint32_t, 3> base{0, 0, 0};
    bool is_indirect = false;
    BufferSpan indirect_args;  ///< the 12 bytes of VkDispatchIndirectCommand
};

struct ResolvedTransfer {
    std::string name;
    std::vector<BufferSpan> reads;
    std::vector<BufferSpan> writes;
    std::vector<uint8_t> data;  ///< fill word or update bytes (CmdTransfer::data)
};

/// One dependency of a barrier command, before buffer spans become allocation ranges.
struct ResolvedDependency {
    MemoryDependency dependency;  ///< range unset here
    std::optional<BufferSpan> span;
};

struct ResolvedBarrier {
    BarrierOrigin origin = BarrierOrigin::pipeline_barrier;
    std::vector<ResolvedDependency> dependencies;
    std::string note;
};

/// VkEvent → the node position of its latest vkCmdSetEvent[2] in submission order
/// (MemoryDependency::event_set_at); an event without one was set outside the capture's
/// commands (before the range, or by the host).
using EventSets = std::unordered_map<uint64_t, uint32_t>;

BufferSpan resolve_span(const DeviceState& device, const RecordedSpan& span);
ResolvedDispatch resolve_dispatch(const DeviceState& device, const CmdDispatch& cmd);
ResolvedTransfer resolve_transfer(const DeviceState& device, const CommandList& list,
                                  const CmdTransfer& cmd);
/// Fills `out`, reusing its memory (a program records a barrier per dispatch).
void resolve_barrier(const DeviceState& device, const CommandList& list, const CmdBarrier& cmd,
                     const EventSets& event_sets, ResolvedBarrier& out);

}  // namespace graphlens::layer
