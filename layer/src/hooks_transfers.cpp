// Buffer transfers (copy, fill, update: nodes with explicit ranges on transfer
// pseudo-kernels named after the command) and secondary command buffers (their recordings are
// inlined where the primary executes them).
#include "layer/src/command_recording.h"
#include "layer/src/diagnostics.h"
#include "layer/src/hook_table.h"

namespace graphlens::layer {
namespace {

// vkCmdUpdateBuffer's bytes are kept for replay up to the capture format's push-constant limit
// (a transfer node carries them there).
constexpr VkDeviceSize kMaxUpdateBytesKept = 4096;

VKAPI_ATTR void VKAPI_CALL hook_CmdCopyBuffer(VkCommandBuffer cb, VkBuffer src, VkBuffer dst,
                                              uint32_t count, const VkBufferCopy* regions) {
    auto d = find_device(cb);
    if (!d) return;
    d->dispatch.CmdCopyBuffer(cb, src, dst, count, regions);
    guarded("vkCmdCopyBuffer", [&] {
        CmdTransfer c{"vkCmdCopyBuffer", {}, {}, {}};
        for (uint32_t i = 0; i < count; ++i) {
            c.reads.push_back(buffer_span(*d, src, regions[i].srcOffset, regions[i].size));
            c.writes.push_back(buffer_span(*d, dst, regions[i].dstOffset, regions[i].size));
        }
        record_command(*d, cb, std::move(c));
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdCopyBuffer2(VkCommandBuffer cb, const VkCopyBufferInfo2* info) {
    auto d = find_device(cb);
    if (!d) return;
    auto next =
        d->dispatch.CmdCopyBuffer2 ? d->dispatch.CmdCopyBuffer2 : d->dispatch.CmdCopyBuffer2KHR;
    next(cb, info);
    guarded("vkCmdCopyBuffer2", [&] {
        CmdTransfer c{"vkCmdCopyBuffer2", {}, {}, {}};
        for (uint32_t i = 0; i < info->regionCount; ++i) {
            const auto& r = info->pRegions[i];
            c.reads.push_back(buffer_span(*d, info->srcBuffer, r.srcOffset, r.size));
            c.writes.push_back(buffer_span(*d, info->dstBuffer, r.dstOffset, r.size));
        }
        record_command(*d, cb, std::move(c));
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdFillBuffer(VkCommandBuffer cb, VkBuffer dst, VkDeviceSize offset,
                                              VkDeviceSize size, uint32_t data) {
    auto d = find_device(cb);
    if (!d) return;
    d->dispatch.CmdFillBuffer(cb, dst, offset, size, data);
    guarded("vkCmdFillBuffer", [&] {
        BufferSpan span = buffer_span(*d, dst, offset, size);
        // VK_WHOLE_SIZE fills to the last multiple of 4 bytes.
        if (size == VK_WHOLE_SIZE) span.size &= ~uint64_t{3};
        std::vector<uint8_t> value(4);
        for (int i = 0; i < 4; ++i) value[i] = uint8_t(data >> (8 * i));
        record_command(*d, cb,
                       CmdTransfer{"vkCmdFillBuffer", {}, {std::move(span)}, std::move(value)});
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdUpdateBuffer(VkCommandBuffer cb, VkBuffer dst,
                                                VkDeviceSize offset, VkDeviceSize size,
                                                const void* data) {
    auto d = find_device(cb);
    if (!d) return;
    d->dispatch.CmdUpdateBuffer(cb, dst, offset, size, data);
    guarded("vkCmdUpdateBuffer", [&] {
        const auto* bytes = static_cast<const uint8_t*>(data);
        std::vector<uint8_t> kept;
        if (size <= kMaxUpdateBytesKept) kept.assign(bytes, bytes + size);
        record_command(
            *d, cb,
            CmdTransfer{
                "vkCmdUpdateBuffer", {}, {buffer_span(*d, dst, offset, size)}, std::move(kept)});
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdExecuteCommands(VkCommandBuffer cb, uint32_t count,
                                                   const VkCommandBuffer* secondaries) {
    auto d = find_device(cb);
    if (!d) return;
    d->dispatch.CmdExecuteCommands(cb, count, secondaries);
    guarded("vkCmdExecuteCommands", [&] {
        auto list = recording_list(*d, cb);
        if (!list) return;
        CmdExecuteCommands c;
        for (uint32_t i = 0; i < count; ++i) {
            auto s = find_command_buffer(*d, secondaries[i]);
            if (!s) continue;
            list->dispatches += s->list->dispatches;
            list->has_labels = list->has_labels || s->list->has_labels;
            c.secondaries.push_back(s->list);
        }
        list->commands.emplace_back(std::move(c));
    });
}

}  // namespace

void add_transfer_hooks(HookTable& t) {
    t.device["vkCmdCopyBuffer"] = as_void_fn(&hook_CmdCopyBuffer);
    t.device["vkCmdCopyBuffer2"] = as_void_fn(&hook_CmdCopyBuffer2);
    t.device["vkCmdCopyBuffer2KHR"] = as_void_fn(&hook_CmdCopyBuffer2);
    t.device["vkCmdFillBuffer"] = as_void_fn(&hook_CmdFillBuffer);
    t.device["vkCmdUpdateBuffer"] = as_void_fn(&hook_CmdUpdateBuffer);
    t.device["vkCmdExecuteCommands"] = as_void_fn(&hook_CmdExecuteCommands);
}

}  // namespace graphlens::layer
