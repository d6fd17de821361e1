#pragma once
// What a recorded program's barrier orders. GraphLens's own plans emit full compute→compute
// memory barriers, which order every hazard between compute dispatches; a barrier recorded
// from another program (vkCmdPipelineBarrier[2], vkCmdWaitEvents, a synchronised queue
// submission) orders only the hazards its scope covers, so a hazard can cross a barrier and
// still be a race.
//
// Stages and accesses are GraphLens's own small sets, not Vulkan's flags: the graph layer
// links no Vulkan. The capture layer maps Vulkan's masks onto them (docs/passes.md, "Barrier
// scopes").
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graphlens/graph/byte_range.h"

namespace graphlens {

/// Pipeline stages a command runs in, as a bit set.
enum SyncStage : uint8_t {
    kStageCompute = 1u << 0,   ///< compute shaders (and indirect dispatch arguments)
    kStageTransfer = 1u << 1,  ///< copy, fill and update buffer commands
    kStageHost = 1u << 2,      ///< host reads and writes of mapped memory
    kStageAll = kStageCompute | kStageTransfer | kStageHost,
};

/// Memory accesses, as a bit set.
enum SyncAccess : uint8_t {
    kAccessShaderRead = 1u << 0,
    kAccessShaderWrite = 1u << 1,
    kAccessTransferRead = 1u << 2,
    kAccessTransferWrite = 1u << 3,
    kAccessHostRead = 1u << 4,
    kAccessHostWrite = 1u << 5,
    kAccessAllReads = kAccessShaderRead | kAccessTransferRead | kAccessHostRead,
    kAccessAllWrites = kAccessShaderWrite | kAccessTransferWrite | kAccessHostWrite,
    kAccessAll = kAccessAllReads | kAccessAllWrites,
};

/// One dependency of a barrier command: an execution dependency from `src_stages` to
/// `dst_stages`, and a memory dependency making `src_access` writes visible to `dst_access`
/// (none when both are 0). `range` limits the memory dependency to a buffer barrier's bytes;
/// absent = a global memory barrier. The execution dependency is never limited by a range.
/// `event_set_at` limits the source side of an event wait's dependency: the wait orders only
/// the commands before the vkCmdSetEvent[2] that signalled its event, not those recorded
/// between the set and the wait.
struct MemoryDependency {
    uint8_t src_stages = 0;
    uint8_t dst_stages = 0;
    uint8_t src_access = 0;
    uint8_t dst_access = 0;
    std::optional<ByteRange> range;
    /// An event wait's: the node position at which the event was set (the set comes right
    /// before node *event_set_at, after the commands at smaller positions); 0 when the set
    /// precedes every node of the graph (an earlier submission outside the capture, or the
    /// host). Absent: the source side holds every command before the barrier.
    std::optional<uint32_t> event_set_at = std::nullopt;
    friend bool operator==(const MemoryDependency&, const MemoryDependency&) = default;
};

enum class BarrierOrigin : uint8_t {
    pipeline_barrier,  ///< vkCmdPipelineBarrier / vkCmdPipelineBarrier2
    wait_events,       ///< vkCmdWaitEvents[2]: a barrier at the wait whose dependencies'
                       ///< source sides end at the matching vkCmdSetEvent[2] (event_set_at)
    submission,        ///< a queue submission boundary the program synchronised (host wait or
                       ///< semaphore)
};

std::string_view barrier_origin_name(BarrierOrigin o);  // "pipeline_barrier", ...
std::optional<BarrierOrigin> barrier_origin_from_name(std::string_view name);

struct BarrierScope {
    BarrierOrigin origin = BarrierOrigin::pipeline_barrier;
    std::vector<MemoryDependency> dependencies;
    /// Free text the recorder adds, e.g. "host waited for the fence of submission 3".
    std::string note;
    friend bool operator==(const BarrierScope&, const BarrierScope&) = default;
};

/// The side of a hazard a barrier has to order: the command's stage, what it did to the
/// bytes (write or read) and its node position (an event wait orders only the commands before
/// its set, MemoryDependency::event_set_at).
struct HazardEnd {
    uint8_t stage = kStageCompute;
    bool writes = false;
    size_t node = 0;
};

/// The access bit of a read or a write in a stage (kAccessShaderRead for a compute read, ...).
uint8_t access_of(uint8_t stage, bool writes);

/// Whether `scope` orders a hazard from `earlier` to `later` on `bytes`. A write-after-read
/// needs only the execution dependency; a hazard with an earlier write also needs a memory
/// dependency whose source accesses include that write, whose destination accesses include
/// the later access, and whose range (if any) holds every byte of `bytes`. One dependency
/// must cover the hazard on its own (chains through several barriers are not followed:
/// docs/passes.md says why this errs towards reporting a race); an event wait's dependency
/// covers it only when the earlier command comes before the event's set.
bool scope_covers(const BarrierScope& scope, HazardEnd earlier, HazardEnd later,
                  const ByteRange& bytes);

/// How scope_gap names an allocation ("'kv_cache'"); without one, "allocation 3".
using AllocationNamer = std::function<std::string(AllocationId)>;

/// Why `scope` does not cover the hazard (empty when it does): "its stages order compute
/// before compute, not transfer before compute", "no memory dependency makes shader writes
/// visible to shader reads", "its buffer barrier covers bytes 0..256 of 'scratch', not
/// 128..512", "node 4 is recorded after the vkCmdSetEvent its wait waits for (set before node
/// 3): an event orders only the commands before its set", ...
std::string scope_gap(const BarrierScope& scope, HazardEnd earlier, HazardEnd later,
                      const ByteRange& bytes, const AllocationNamer& allocation_name = {});

}  // namespace graphlens
