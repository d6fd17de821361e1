#pragma once
// The commands of a command buffer as the layer records them: only the compute-relevant
// ones, with what they refer to already resolved to tracked objects (a command buffer may be
// submitted long after, but the objects it uses cannot change meanwhile without making it
// invalid). Graph nodes are built from these only for submissions inside the captured range.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "graphlens/graph/barrier_scope.h"
#include "layer/src/tracked_objects.h"

namespace graphlens::layer {

struct CmdBindPipeline {
    std::shared_ptr<const PipelineState> pipeline;
};

struct CmdBindSets {
    std::shared_ptr<const PipelineLayoutState> layout;
    uint32_t first_set = 0;
    std::vector<std::shared_ptr<const SetContents>> sets;  ///< null: a set the layer lost
    std::vector<std::shared_ptr<const SetLayoutState>> set_layouts;
    std::vector<uint32_t> dynamic_offsets;
};

struct CmdPushDescriptors {
    uint32_t set = 0;
    SetContents writes;  ///< the descriptors pushed
};

struct CmdPushConstants {
    uint32_t offset = 0;
    std::vector<uint8_t> bytes;
};

struct CmdDispatch {
    std::array<uint32_t, 3> groups{1, 1, 1};
    std::array<uint32_t, 3> base{0, 0, 0};
    /// vkCmdDispatchIndirect: the buffer holding VkDispatchIndirectCommand; groups unknown.
    std::shared_ptr<BufferState> indirect;
    uint64_t indirect_offset = 0;
    bool is_indirect = false;
};

/// A buffer span used by a transfer command or a buffer barrier.
struct BufferSpan {
    std::shared_ptr<BufferState> buffer;
    uint64_t offset = 0;
    uint64_t size = 0;  ///< VK_WHOLE_SIZE resolved
};

struct CmdTransfer {
    std::string name;  ///< the command, e.g. "vkCmdCopyBuffer"
    std::vector<BufferSpan> reads;
    std::vector<BufferSpan> writes;
    /// What a replay needs besides the ranges: vkCmdFillBuffer's data word (4 bytes, little
    /// endian), vkCmdUpdateBuffer's bytes (up to 4096; longer updates keep none).
    std::vector<uint8_t> data;
};

/// One dependency of a barrier command, before buffer spans become allocation ranges.
struct RecordedDependency {
    MemoryDependency dependency;  ///< range unset here
    std::optional<BufferSpan> span;
};

struct CmdBarrier {
    BarrierOrigin origin = BarrierOrigin::pipeline_barrier;
    std::vector<RecordedDependency> dependencies;
    std::string note;
};

struct CmdBeginLabel {
    std::string name;
};
struct CmdEndLabel {};
struct CmdInsertLabel {
    std::string name;
};

struct CommandList;
struct CmdExecuteCommands {
    std::vector<std::shared_ptr<const CommandList>> secondaries;
};

/// A command the layer cannot follow, reported once per kind.
struct CmdUnsupported {
    std::string what;
};

using RecordedCommand =
    std::variant<CmdBindPipeline, CmdBindSets, CmdPushDescriptors, CmdPushConstants, CmdDispatch,
                 CmdTransfer, CmdBarrier, CmdBeginLabel, CmdEndLabel, CmdInsertLabel,
                 CmdExecuteCommands, CmdUnsupported>;

/// A command buffer's recording. Replaced (not cleared) on reset, so that a primary that
/// executes this buffer as a secondary keeps the recording it was given.
struct CommandList {
    std::vector<RecordedCommand> commands;
    uint64_t dispatches = 0;  ///< including those of executed secondaries
    bool has_labels = false;
};

}  // namespace graphlens::layer
