#pragma once
// The commands of a command buffer as the layer records them: only the compute-relevant
// ones, as plain values appended to the buffer's list — the handles the program passed and
// the bytes it gave, with variable-length parts (descriptor sets, dynamic offsets, push
// constant bytes, barrier dependencies, buffer spans) in the list's own arrays. Recording
// looks nothing up and allocates only when an array grows: a program pays for the layer on
// every command it records, captured or not. The handles are resolved to tracked objects
// only for submissions that may touch the captured range (command_resolution.h); a command
// buffer whose objects were destroyed or whose descriptor sets were updated since it was
// recorded is invalid to submit (update-after-bind sets excepted, whose contents at
// submission are the ones used), so the objects as they are at submission are the ones it
// refers to.
#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "graphlens/graph/barrier_scope.h"

namespace graphlens::layer {

/// Elements [begin, begin + count) of one of a CommandList's arrays.
struct Slice {
    uint32_t begin = 0;
    uint32_t count = 0;
};

struct CmdBindPipeline {
    uint64_t pipeline = 0;
};

struct CmdBindSets {
    uint64_t layout = 0;
    uint32_t first_set = 0;
    Slice sets;             ///< VkDescriptorSet handles, in CommandList::handles
    Slice dynamic_offsets;  ///< in CommandList::words
};

/// One VkWriteDescriptorSet of a push: its buffer infos are in CommandList::buffer_infos
/// (none for descriptors without a buffer, whose type is enough to make ranges unknown).
struct RecordedWrite {
    uint32_t binding = 0;
    uint32_t array_element = 0;
    uint32_t count = 0;
    VkDescriptorType type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    Slice buffer_infos;
};

struct CmdPushDescriptors {
    uint64_t layout = 0;
    uint32_t set = 0;
    Slice writes;  ///< in CommandList::writes
};

struct CmdPushConstants {
    uint32_t offset = 0;
    Slice bytes;  ///< in CommandList::bytes
};

struct CmdDispatch {
    std::array<uint32_t, 3> groups{1, 1, 1};
    std::array<uint32_t, 3> base{0, 0, 0};
    /// vkCmdDispatchIndirect: the buffer holding VkDispatchIndirectCommand; groups unknown.
    uint64_t indirect_buffer = 0;
    uint64_t indirect_offset = 0;
    bool is_indirect = false;
};

/// A buffer span as a command named it.
struct RecordedSpan {
    uint64_t buffer = 0;
    uint64_t offset = 0;
    uint64_t size = 0;  ///< may be VK_WHOLE_SIZE
    /// vkCmdFillBuffer with VK_WHOLE_SIZE fills to the last multiple of 4 bytes.
    bool whole_words = false;
};

struct CmdTransfer {
    const char* name = "";  ///< the command, e.g. "vkCmdCopyBuffer" (a string literal)
    Slice reads;            ///< in CommandList::spans
    Slice writes;           ///< in CommandList::spans
    /// What a replay needs besides the ranges, in CommandList::bytes: vkCmdFillBuffer's data
    /// word (4 bytes, little endian), vkCmdUpdateBuffer's bytes (up to 4096; longer updates
    /// keep none).
    Slice data;
};

/// One dependency of a barrier command in Vulkan's own masks.
struct RecordedDependency {
    VkPipelineStageFlags2 src_stages = 0;
    VkPipelineStageFlags2 dst_stages = 0;
    VkAccessFlags2 src_access = 0;
    VkAccessFlags2 dst_access = 0;
    bool has_span = false;
    RecordedSpan span;
    /// An event wait's: the VkEvent handles (in CommandList::handles) whose latest sets end
    /// its source scope; empty for a pipeline barrier.
    Slice events;
};

struct CmdBarrier {
    BarrierOrigin origin = BarrierOrigin::pipeline_barrier;
    Slice dependencies;     ///< in CommandList::dependencies
    const char* note = "";  ///< a string literal
};

/// vkCmdSetEvent[2]: an event wait orders the commands before this point.
struct CmdSetEvent {
    uint64_t event = 0;
};
/// vkCmdResetEvent[2]: a later wait waits for a set the layer does not see on this queue.
struct CmdResetEvent {
    uint64_t event = 0;
};

struct CmdBeginLabel {
    Slice name;  ///< in CommandList::text
};
struct CmdEndLabel {};
struct CmdInsertLabel {
    Slice name;  ///< in CommandList::text
};

struct CmdExecuteCommands {
    Slice secondaries;  ///< in CommandList::secondaries
};

using RecordedCommand =
    std::variant<CmdBindPipeline, CmdBindSets, CmdPushDescriptors, CmdPushConstants, CmdDispatch,
                 CmdTransfer, CmdBarrier, CmdSetEvent, CmdResetEvent, CmdBeginLabel, CmdEndLabel,
                 CmdInsertLabel, CmdExecuteCommands>;

/// A command buffer's recording. Started over in place when the buffer is begun again and
/// nothing else holds it (its arrays keep their capacity), else replaced, so that a primary
/// that executes this buffer as a secondary, or a submission being processed, keeps the
/// recording it was given.
struct CommandList {
    std::vector<RecordedCommand> commands;
    std::vector<uint64_t> handles;
    std::vector<uint32_t> words;
    std::vector<uint8_t> bytes;
    std::vector<RecordedWrite> writes;
    std::vector<VkDescriptorBufferInfo> buffer_infos;
    std::vector<RecordedSpan> spans;
    std::vector<RecordedDependency> dependencies;
    /// The labels' texts, one after another: a string each would take a heap block for
    /// every label longer than a short string holds, on every command buffer recorded.
    std::vector<char> text;
    std::vector<std::shared_ptr<const CommandList>> secondaries;
    uint64_t dispatches = 0;  ///< including those of executed secondaries
    bool has_labels = false;
    /// The layer's own time in this list's hooks (layer_clock.h), counted only while a range
    /// is open.
    uint64_t hook_ticks = 0;
    uint64_t hook_calls = 0;       ///< timed hook calls
    uint64_t hook_calls_kept = 0;  ///< of those, the ones not descheduled (HookTimer)
    bool hooks_timed = false;

    void clear();

    template <class T>
    Slice append(std::vector<T>& array, const T* items, size_t count) {
        const Slice s{static_cast<uint32_t>(array.size()), static_cast<uint32_t>(count)};
        if (count) array.insert(array.end(), items, items + count);
        return s;
    }
    template <class T>
    Slice append_one(std::vector<T>& array, T item) {
        array.push_back(std::move(item));
        return {static_cast<uint32_t>(array.size() - 1), 1};
    }
    template <class T>
    static const T* begin_of(const std::vector<T>& array, Slice s) {
        return array.data() + s.begin;
    }
    std::string_view text_of(Slice s) const { return {begin_of(text, s), s.count}; }
};

}  // namespace graphlens::layer
