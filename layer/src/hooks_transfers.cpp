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

RecordedSpan span_of(VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size) {
    return RecordedSpan{handle_bits(buffer), offset, size, false};
}

/// A copy's regions: reads from `src`, writes to `dst`, each a contiguous slice of spans.
template <class Region>
CmdTransfer copy_of(CommandList& list, const char* name, VkBuffer src, VkBuffer dst, uint32_t count,
                    const Region* regions) {
    CmdTransfer c{name, {}, {}, {}};
    c.reads = {static_cast<uint32_t>(list.spans.size()), count};
    for (uint32_t i = 0; i < count; ++i)
        list.spans.push_back(span_of(src, regions[i].srcOffset, regions[i].size));
    c.writes = {static_cast<uint32_t>(list.spans.size()), count};
    for (uint32_t i = 0; i < count; ++i)
        list.spans.push_back(span_of(dst, regions[i].dstOffset, regions[i].size));
    return c;
}

VKAPI_ATTR void VKAPI_CALL hook_CmdCopyBuffer(VkCommandBuffer cb, VkBuffer src, VkBuffer dst,
                                              uint32_t count, const VkBufferCopy* regions) {
    DeviceState* d = device_of(cb);
    if (!d) return;
    d->dispatch.CmdCopyBuffer(cb, src, dst, count, regions);
    guarded("vkCmdCopyBuffer", [&] {
        record_command(*d, cb, [&](CommandList& list) {
            return copy_of(list, "vkCmdCopyBuffer", src, dst, count, regions);
        });
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdCopyBuffer2(VkCommandBuffer cb, const VkCopyBufferInfo2* info) {
    DeviceState* d = device_of(cb);
    if (!d) return;
    auto next =
        d->dispatch.CmdCopyBuffer2 ? d->dispatch.CmdCopyBuffer2 : d->dispatch.CmdCopyBuffer2KHR;
    next(cb, info);
    guarded("vkCmdCopyBuffer2", [&] {
        record_command(*d, cb, [&](CommandList& list) {
            return copy_of(list, "vkCmdCopyBuffer2", info->srcBuffer, info->dstBuffer,
                           info->regionCount, info->pRegions);
        });
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdFillBuffer(VkCommandBuffer cb, VkBuffer dst, VkDeviceSize offset,
                                              VkDeviceSize size, uint32_t data) {
    DeviceState* d = device_of(cb);
    if (!d) return;
    d->dispatch.CmdFillBuffer(cb, dst, offset, size, data);
    guarded("vkCmdFillBuffer", [&] {
        record_command(*d, cb, [&](CommandList& list) {
            RecordedSpan span = span_of(dst, offset, size);
            // VK_WHOLE_SIZE fills to the last multiple of 4 bytes.
            span.whole_words = size == VK_WHOLE_SIZE;
            uint8_t value[4];
            for (int i = 0; i < 4; ++i) value[i] = uint8_t(data >> (8 * i));
            CmdTransfer c{"vkCmdFillBuffer", {}, list.append_one(list.spans, span), {}};
            c.data = list.append(list.bytes, value, 4);
            return c;
        });
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdUpdateBuffer(VkCommandBuffer cb, VkBuffer dst,
                                                VkDeviceSize offset, VkDeviceSize size,
                                                const void* data) {
    DeviceState* d = device_of(cb);
    if (!d) return;
    d->dispatch.CmdUpdateBuffer(cb, dst, offset, size, data);
    guarded("vkCmdUpdateBuffer", [&] {
        record_command(*d, cb, [&](CommandList& list) {
            CmdTransfer c{"vkCmdUpdateBuffer",
                          {},
                          list.append_one(list.spans, span_of(dst, offset, size)),
                          {}};
            if (size <= kMaxUpdateBytesKept)
                c.data = list.append(list.bytes, static_cast<const uint8_t*>(data), size_t(size));
            return c;
        });
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdExecuteCommands(VkCommandBuffer cb, uint32_t count,
                                                   const VkCommandBuffer* secondaries) {
    DeviceState* d = device_of(cb);
    if (!d) return;
    d->dispatch.CmdExecuteCommands(cb, count, secondaries);
    guarded("vkCmdExecuteCommands", [&] {
        record_command(*d, cb, [&](CommandList& list) {
            CmdExecuteCommands c;
            c.secondaries.begin = static_cast<uint32_t>(list.secondaries.size());
            for (uint32_t i = 0; i < count; ++i) {
                auto s = find_command_buffer(*d, secondaries[i]);
                if (!s) continue;
                list.dispatches += s->list->dispatches;
                list.has_labels = list.has_labels || s->list->has_labels;
                list.secondaries.push_back(s->list);
                ++c.secondaries.count;
            }
            return c;
        });
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
