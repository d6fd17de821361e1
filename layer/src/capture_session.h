#pragma once
// The process's one capture: which submissions and commands are inside the range the user
// asked for (capture_settings.h), how consecutive submissions were synchronised, and when
// the file is written — when the range ends, at vkDestroyDevice, or at exit if a range began
// but did not end. Once written, recording() turns false and every hook only passes through.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graphlens/capture/capture_file.h"
#include "graphlens/layer/capture_settings.h"
#include "layer/src/command_resolution.h"
#include "layer/src/handle_cache.h"
#include "layer/src/layer_state.h"

namespace graphlens::layer {

class GraphBuilder;
struct BindState;
struct BufferSnapshot;

/// One VkSubmitInfo / VkSubmitInfo2 as the queue hooks saw it.
struct SubmittedBatch {
    std::vector<std::shared_ptr<const CommandList>> lists;
    struct Wait {
        uint64_t semaphore = 0;
        VkPipelineStageFlags2 stages = 0;
        uint64_t value = 0;  ///< for a timeline semaphore: the value waited for
    };
    struct Signal {
        uint64_t semaphore = 0;
        uint64_t value = 0;  ///< for a timeline semaphore: the value signalled
    };
    std::vector<Wait> waits;
    std::vector<Signal> signals;
};

enum class QueueLabel : uint8_t { begin, end, insert };

/// A queue's open debug-utils labels, outermost first. A popped label's string keeps its
/// memory for the next one: a program opens and closes a label around every dispatch.
class LabelStack {
  public:
    void push(std::string_view name) {
        if (depth_ == names_.size()) names_.emplace_back();
        names_[depth_++].assign(name);
    }
    void pop() {
        if (depth_) --depth_;
    }
    bool empty() const { return depth_ == 0; }
    const std::string& back() const { return names_[depth_ - 1]; }
    bool contains(const std::string& name) const {
        return std::find(names_.begin(), names_.begin() + depth_, name) != names_.begin() + depth_;
    }

  private:
    std::vector<std::string> names_;
    size_t depth_ = 0;
};

class CaptureSession {
  public:
    static CaptureSession& get();

    /// False once the capture is written (or cannot be): the hooks then record nothing.
    bool recording() const { return !finished_.load(std::memory_order_relaxed); }
    /// True while the range is open: recording hooks then time themselves (HookTimer), for
    /// the recording cost the capture reports. Off otherwise: reading the clock costs more
    /// than recording a command.
    bool hooks_timed() const { return hooks_timed_.load(std::memory_order_relaxed); }

    void on_layer_loaded();
    /// With GRAPHLENS_CAPTURE_DATA: before a vkQueueSubmit that may begin the range, waits for
    /// the device and copies its buffers' contents (buffer_snapshot.cpp).
    void before_submit(DeviceState& device, VkQueue queue,
                       const std::vector<SubmittedBatch>& batches);
    /// GRAPHLENS_CAPTURE_DATA is on: buffers get TRANSFER_SRC so the layer can copy them.
    bool saves_data() const { return settings_.data; }
    void on_submit(DeviceState& device, uint64_t queue, std::vector<SubmittedBatch> batches,
                   uint64_t fence);
    void on_queue_idle(uint64_t queue);
    void on_device_idle(const DeviceState& device);
    void on_fences_waited(std::span<const uint64_t> fences);
    /// vkCreateSemaphore: timeline semaphores order by value (VkSemaphoreTypeCreateInfo).
    void on_semaphore_created(uint64_t semaphore, bool timeline);
    void on_semaphore_destroyed(uint64_t semaphore);
    /// vkSignalSemaphore: the host set a timeline semaphore's value; a wait it satisfies
    /// orders nothing on the device.
    void on_semaphore_signalled_by_host(uint64_t semaphore, uint64_t value);
    /// vkSetEvent / vkResetEvent: a later device wait for `event` waits for no set the layer
    /// saw, so it orders none of the captured commands.
    void on_event_changed_by_host(uint64_t event);
    /// vkWaitSemaphores returned VK_SUCCESS for all of these (semaphore, value) pairs: the host
    /// waited for the submissions that signal them, as for a fence.
    void on_semaphores_waited(std::span<const std::pair<uint64_t, uint64_t>> waited);
    void on_queue_label(uint64_t queue, QueueLabel what, std::string name);
    void on_device_destroyed(const DeviceState& device);
    void on_exit();

    ~CaptureSession();

  private:
    CaptureSession();
    struct QueueState {
        const DeviceState* device = nullptr;
        uint32_t family = 0, index = 0;
        LabelStack labels;           ///< queue and command-buffer labels
        std::string pending_insert;  ///< an inserted label names the next node
        std::optional<uint64_t> last_submission;
        std::optional<uint64_t> host_waited_through;
    };
    struct Walk;

    void process_batch(DeviceState& device, uint64_t queue, QueueState& q,
                       const SubmittedBatch& batch);
    bool batch_may_touch_range(const QueueState& q, const SubmittedBatch& batch) const;
    void walk(const CommandList& list, Walk& walk);
    void follow_labels(const CommandList& list, QueueState& q);
    void walk_command(const CommandList& list, const RecordedCommand& cmd, BindState& bound,
                      Walk& walk);
    void on_dispatch_command(const CmdDispatch& cmd, const BindState& bound, Walk& walk);
    void emit_or_skip(Walk& walk, bool is_dispatch);
    void push_label(QueueState& q, std::string_view name);
    void pop_label(QueueState& q);
    void begin_submission(DeviceState& device, QueueState& q, const SubmittedBatch& batch);
    std::string sync_with_previous(const QueueState& q, const SubmittedBatch& batch,
                                   BarrierScope& scope) const;
    void end_submission();
    /// The label of the queue's next node: an inserted label, else the innermost open one.
    /// The caller clears q.pending_insert once the node is made (an inserted label names one
    /// node).
    static const std::string& next_node_label(const QueueState& q);
    uint64_t current_index_ = 0;
    std::optional<uint64_t> last_queue_;  ///< the queue of the latest submission
    void write_capture(const char* why_now);
    void write_status(const std::string& line) const;
    std::string why_nothing_captured() const;
    bool range_may_begin(uint64_t queue, const std::vector<SubmittedBatch>& batches) const;
    /// Writes <output>.data from the snapshot; returns the note the capture keeps.
    std::string write_buffer_data();
    std::shared_ptr<BufferSnapshot> snapshot_;  ///< the latest, taken before the range began
    void count_hook_time(const CommandList& list);
    std::string recording_cost() const;

    CaptureSettings settings_;
    std::string settings_error_;
    mutable std::mutex mutex_;
    std::atomic<bool> finished_{false};
    std::atomic<bool> hooks_timed_{false};
    uint64_t hook_ticks_ = 0;       ///< timed hook time of the captured command buffers
    uint64_t hook_dispatches_ = 0;  ///< the dispatches of those command buffers
    uint64_t submit_cpu_ns_ = 0;    ///< CPU time in on_submit since the range began
    uint64_t timing_start_ticks_ = 0, timing_start_ns_ = 0;  ///< converts ticks to ns
    bool loaded_ = false;
    bool active_ = false;      ///< commands now walked are inside the range
    bool began_ = false;       ///< the range has begun (something was captured)
    bool range_over_ = false;  ///< write after this submission
    std::map<uint64_t, QueueState> queues_;
    std::map<uint64_t, std::pair<uint64_t, uint64_t>> fence_submission_;  ///< fence → (queue, idx)
    std::map<uint64_t, std::pair<uint64_t, uint64_t>> semaphore_signal_;  ///< → (queue, idx)
    /// Timeline semaphores: value → the (queue, submission) that signals it, or none when
    /// the host signalled it.
    using TimelineSignals = std::map<uint64_t, std::optional<std::pair<uint64_t, uint64_t>>>;
    std::map<uint64_t, TimelineSignals> timeline_signals_;
    /// The submission whose signal completes a wait for `value` (the first signal of a value
    /// ≥ it); none when the host signalled it or nothing signalled it yet.
    std::optional<std::pair<uint64_t, uint64_t>> timeline_signaller(uint64_t semaphore,
                                                                    uint64_t value) const;
    /// Event → the node position of its latest vkCmdSetEvent[2] walked (0 before the range),
    /// for the waits of later commands (MemoryDependency::event_set_at).
    EventSets event_sets_;
    ResolvedBarrier barrier_scratch_;  ///< reused by every barrier command walked
    SubmissionHandles handles_;        ///< the objects the submission walked names
    uint64_t submissions_ = 0;
    uint64_t dispatches_seen_ = 0;
    std::unique_ptr<GraphBuilder> builder_;
    CaptureDocument document_;
    const DeviceState* capture_device_ = nullptr;
    std::optional<std::pair<uint64_t, uint64_t>> previous_captured_;  ///< (queue, submission)
    std::optional<CaptureSubmission> open_submission_;
};

}  // namespace graphlens::layer
