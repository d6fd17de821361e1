#include "layer/src/command_recording.h"

#include <atomic>

namespace graphlens::layer {
namespace {

std::atomic<uint64_t> command_buffer_epoch{1};

struct CachedCommandBuffer {
    VkCommandBuffer cb = VK_NULL_HANDLE;
    uint64_t epoch = 0;
    CommandBufferState* state = nullptr;
};
thread_local CachedCommandBuffer cached_command_buffer;

}  // namespace

void command_buffers_changed() {
    command_buffer_epoch.fetch_add(1, std::memory_order_acq_rel);
}

CommandBufferState* command_buffer_state(DeviceState& d, VkCommandBuffer cb) {
    const uint64_t epoch = command_buffer_epoch.load(std::memory_order_acquire);
    CachedCommandBuffer& c = cached_command_buffer;
    if (c.cb == cb && c.epoch == epoch) return c.state;
    // The map keeps the state alive until the buffer is freed, which bumps the epoch first.
    c = {cb, epoch, find_command_buffer(d, cb).get()};
    return c.state;
}

void CommandList::clear() {
    commands.clear();
    handles.clear();
    words.clear();
    bytes.clear();
    writes.clear();
    buffer_infos.clear();
    spans.clear();
    dependencies.clear();
    text.clear();
    secondaries.clear();
    dispatches = 0;
    has_labels = false;
    hook_ticks = 0;
    hook_calls = 0;
    hook_calls_kept = 0;
    hooks_timed = false;
}

}  // namespace graphlens::layer
