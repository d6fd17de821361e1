#pragma once
// Appending to a command buffer's recording. Vulkan makes the program synchronise each
// command buffer, so its list needs no lock; only the lookup of its state takes one (shared).
#include <memory>

#include "layer/src/capture_session.h"
#include "layer/src/layer_state.h"

namespace graphlens::layer {

/// The list to append `cb`'s next command to, or null when the layer no longer records (the
/// capture is written) or does not know the buffer.
inline std::shared_ptr<CommandList> recording_list(DeviceState& d, VkCommandBuffer cb) {
    if (!CaptureSession::get().recording()) return nullptr;
    auto state = find_command_buffer(d, cb);
    return state ? state->list : nullptr;
}

template <class Cmd>
void record_command(DeviceState& d, VkCommandBuffer cb, Cmd&& cmd) {
    if (auto list = recording_list(d, cb)) list->commands.emplace_back(std::forward<Cmd>(cmd));
}

/// A buffer span of `buffer` from `offset`, `size` bytes (VK_WHOLE_SIZE: to the end).
inline BufferSpan buffer_span(DeviceState& d, VkBuffer buffer, uint64_t offset, uint64_t size) {
    BufferSpan s;
    s.buffer = d.buffers.find(handle_bits(buffer));
    s.offset = offset;
    s.size = size;
    if (size == VK_WHOLE_SIZE)
        s.size = s.buffer && s.buffer->size > offset ? s.buffer->size - offset : 0;
    return s;
}

}  // namespace graphlens::layer
