#pragma once
// Appending to a command buffer's recording, the layer's hot path: every vkCmd* the program
// records passes here, captured or not. Vulkan makes the program synchronise each command
// buffer (and its pool), so its list needs no lock; its state is found through a per-thread
// cache of the last command buffer, checked against a counter that every allocation and free
// of command buffers increases, so that a hit takes no lock.
#include "layer/src/capture_session.h"
#include "layer/src/layer_clock.h"
#include "layer/src/layer_state.h"

namespace graphlens::layer {

/// The state of `cb`, or null when the layer does not know the buffer.
CommandBufferState* command_buffer_state(DeviceState& d, VkCommandBuffer cb);

/// The list to append `cb`'s next command to, or null when the layer no longer records (the
/// capture is written) or does not know the buffer.
inline CommandList* recording_list(DeviceState& d, VkCommandBuffer cb) {
    if (!CaptureSession::get().recording()) return nullptr;
    CommandBufferState* state = command_buffer_state(d, cb);
    return state ? state->list.get() : nullptr;
}

/// Counts the layer's own time in a recording hook into the list, while a range is open
/// (CaptureSession::hooks_timed): the cost of recording that the capture reports.
class HookTimer {
  public:
    explicit HookTimer(CommandList& list) : list_(list), on_(CaptureSession::get().hooks_timed()) {
        if (on_) start_ = hook_ticks();
    }
    ~HookTimer() {
        if (!on_) return;
        const uint64_t ticks = hook_ticks() - start_;
        ++list_.hook_calls;
        // A hook does well under a microsecond of work; an interval this long means the thread
        // was descheduled inside it, and is counted at the average of the others instead.
        if (ticks < kInterruptedTicks) {
            list_.hook_ticks += ticks;
            ++list_.hook_calls_kept;
        }
        list_.hooks_timed = true;
    }
    HookTimer(const HookTimer&) = delete;
    HookTimer& operator=(const HookTimer&) = delete;

  private:
    static constexpr uint64_t kInterruptedTicks = 100000;  ///< tens of µs at GHz rates
    CommandList& list_;
    bool on_;
    uint64_t start_ = 0;
};

/// Appends one command made by `make(list)` to `cb`'s recording, timed.
template <class Make>
void record_command(DeviceState& d, VkCommandBuffer cb, Make&& make) {
    if (CommandList* list = recording_list(d, cb)) {
        HookTimer timer(*list);
        list->commands.emplace_back(make(*list));
    }
}

}  // namespace graphlens::layer
