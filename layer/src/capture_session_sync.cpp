// How consecutive submissions are ordered. Two submissions are ordered when the host waited
// for the earlier one (vkQueueWaitIdle, vkDeviceWaitIdle, vkWaitForFences or vkGetFenceStatus
// returning VK_SUCCESS on its fence or a later one of its queue, vkWaitSemaphores on a value it
// or a later one of its queue signals) before making the later one, or when the later one waits on
// a semaphore signalled at or after the earlier one on its queue (for a timeline semaphore, the
// submission whose signal completes the wait: the first to signal a value at least the one
// waited for; a value the host signalled orders nothing). Submission order alone
// orders nothing for memory: a hazard across such a boundary is a race, so an unsynchronised
// boundary adds no node.
#include "layer/src/barrier_mapping.h"
#include "layer/src/capture_session.h"
#include "layer/src/capture_source.h"
#include "layer/src/graph_builder.h"
#include "layer/src/layer_clock.h"

namespace graphlens::layer {

std::string CaptureSession::sync_with_previous(const QueueState& q, const SubmittedBatch& batch,
                                               BarrierScope& scope) const {
    (void)q;
    if (!last_queue_) return "none";
    const QueueState& prev_queue = queues_.at(*last_queue_);
    if (!prev_queue.last_submission) return "none";
    const uint64_t prev = *prev_queue.last_submission;
    scope.origin = BarrierOrigin::submission;
    if (prev_queue.host_waited_through && *prev_queue.host_waited_through >= prev) {
        scope.dependencies.push_back({kStageAll, kStageAll, kAccessAllWrites, kAccessAll, {}});
        scope.note = "the host waited for submission " + std::to_string(prev) +
                     " before submitting " + std::to_string(current_index_);
        return "host wait";
    }
    for (const auto& wait : batch.waits) {
        std::optional<std::pair<uint64_t, uint64_t>> signaller;
        if (timeline_signals_.contains(wait.semaphore)) {
            signaller = timeline_signaller(wait.semaphore, wait.value);
        } else if (auto it = semaphore_signal_.find(wait.semaphore);
                   it != semaphore_signal_.end()) {
            signaller = it->second;
        }
        if (!signaller) continue;
        const auto [signal_queue, signal_index] = *signaller;
        if (signal_queue != *last_queue_ || signal_index < prev) continue;
        MemoryDependency dep;
        dep.src_stages = kStageCompute | kStageTransfer;
        dep.dst_stages = map_stages(wait.stages, ScopeSide::second);
        dep.src_access = kAccessShaderWrite | kAccessTransferWrite;
        dep.dst_access =
            map_access(VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT, dep.dst_stages);
        scope.dependencies.push_back(dep);
        scope.note = "submission " + std::to_string(current_index_) +
                     " waits on a semaphore submission " + std::to_string(signal_index) +
                     " signalled";
        return "semaphore";
    }
    return "none";
}

void CaptureSession::begin_submission(DeviceState& device, QueueState& q,
                                      const SubmittedBatch& batch) {
    if (open_submission_) return;
    if (!builder_) {
        builder_ = std::make_unique<GraphBuilder>();
        capture_device_ = &device;
        document_.source = describe_program();
        describe_device(device, document_.device, *document_.source);
    }
    BarrierScope scope;
    const std::string sync = sync_with_previous(q, batch, scope);
    const bool previous_captured = began_ && document_.source &&
                                   !document_.source->submissions.empty() &&
                                   document_.source->submissions.back().index + 1 == current_index_;
    if (previous_captured && sync != "none") builder_->submission_barrier(std::move(scope));
    if (!began_) {
        timing_start_ticks_ = hook_ticks();
        timing_start_ns_ = steady_ns();
        hooks_timed_ = true;
    }
    began_ = true;
    CaptureSubmission s;
    s.index = static_cast<uint32_t>(current_index_);
    s.queue_family = q.family;
    s.queue_index = q.index;
    s.first_node = builder_->node_count();
    s.sync = sync;
    open_submission_ = s;
}

void CaptureSession::end_submission() {
    if (!open_submission_) return;
    open_submission_->end_node = builder_->node_count();
    document_.source->submissions.push_back(*open_submission_);
    open_submission_.reset();
}

void CaptureSession::on_queue_idle(uint64_t queue) {
    std::lock_guard lock(mutex_);
    auto it = queues_.find(queue);
    if (it != queues_.end()) it->second.host_waited_through = it->second.last_submission;
}

void CaptureSession::on_device_idle(const DeviceState& device) {
    std::lock_guard lock(mutex_);
    for (auto& [handle, q] : queues_)
        if (q.device == &device) q.host_waited_through = q.last_submission;
}

void CaptureSession::on_fences_waited(std::span<const uint64_t> fences) {
    std::lock_guard lock(mutex_);
    for (uint64_t f : fences) {
        auto it = fence_submission_.find(f);
        if (it == fence_submission_.end()) continue;
        auto& q = queues_[it->second.first];
        if (!q.host_waited_through || *q.host_waited_through < it->second.second)
            q.host_waited_through = it->second.second;
    }
}

std::optional<std::pair<uint64_t, uint64_t>> CaptureSession::timeline_signaller(
    uint64_t semaphore, uint64_t value) const {
    auto t = timeline_signals_.find(semaphore);
    if (t == timeline_signals_.end()) return std::nullopt;
    auto first = t->second.lower_bound(value);
    if (first == t->second.end()) return std::nullopt;
    return first->second;
}

void CaptureSession::on_semaphore_created(uint64_t semaphore, bool timeline) {
    std::lock_guard lock(mutex_);
    semaphore_signal_.erase(semaphore);  // a handle the driver reuses starts over
    if (timeline)
        timeline_signals_[semaphore].clear();
    else
        timeline_signals_.erase(semaphore);
}

void CaptureSession::on_semaphore_destroyed(uint64_t semaphore) {
    std::lock_guard lock(mutex_);
    semaphore_signal_.erase(semaphore);
    timeline_signals_.erase(semaphore);
}

void CaptureSession::on_semaphore_signalled_by_host(uint64_t semaphore, uint64_t value) {
    std::lock_guard lock(mutex_);
    if (auto t = timeline_signals_.find(semaphore); t != timeline_signals_.end())
        t->second[value] = std::nullopt;
}

void CaptureSession::on_semaphores_waited(std::span<const std::pair<uint64_t, uint64_t>> waited) {
    std::lock_guard lock(mutex_);
    for (const auto& [semaphore, value] : waited) {
        const auto signaller = timeline_signaller(semaphore, value);
        if (!signaller) continue;
        auto& q = queues_[signaller->first];
        if (!q.host_waited_through || *q.host_waited_through < signaller->second)
            q.host_waited_through = signaller->second;
    }
}

}  // namespace graphlens::layer
