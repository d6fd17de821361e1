#include "layer/src/capture_session.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>

#include "layer/src/capture_source.h"
#include "layer/src/command_resolution.h"
#include "layer/src/diagnostics.h"
#include "layer/src/graph_builder.h"
#include "layer/src/layer_clock.h"

namespace graphlens::layer {

struct CaptureSession::Walk {
    DeviceState& device;
    QueueState& queue;
    const SubmittedBatch& batch;
};

namespace {

template <class... F>
struct Overloaded : F... {
    using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

uint64_t dispatches_in(const SubmittedBatch& batch) {
    uint64_t n = 0;
    for (const auto& l : batch.lists) n += l->dispatches;
    return n;
}

bool has_labels(const SubmittedBatch& batch) {
    return std::any_of(batch.lists.begin(), batch.lists.end(),
                       [](const auto& l) { return l->has_labels; });
}

}  // namespace

CaptureSession& CaptureSession::get() {
    static CaptureSession session;
    return session;
}

CaptureSession::CaptureSession() {
    try {
        settings_ = parse_capture_settings([](const char* n) { return std::getenv(n); });
    } catch (const std::exception& e) {
        settings_error_ = e.what();
        warn_once("settings", std::string("not capturing: ") + e.what());
        write_status("not written: " + settings_error_);
        finished_ = true;
    }
}

CaptureSession::~CaptureSession() {
    on_exit();
}

void CaptureSession::on_layer_loaded() {
    std::lock_guard lock(mutex_);
    loaded_ = true;
}

void CaptureSession::on_submit(DeviceState& device, uint64_t queue,
                               std::vector<SubmittedBatch> batches, uint64_t fence) {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    const uint64_t started = thread_cpu_ns();
    QueueState& q = queues_[queue];
    if (!q.device) {
        q.device = &device;
        if (auto info = device.queues.find(queue)) {
            q.family = info->family;
            q.index = info->index;
        }
    }
    for (const auto& batch : batches) {
        process_batch(device, queue, q, batch);
        if (range_over_) break;
    }
    handles_.clear();
    if (fence && q.last_submission) fence_submission_[fence] = {queue, *q.last_submission};
    if (began_) submit_cpu_ns_ += thread_cpu_ns() - started;
    if (range_over_) write_capture("the range ended");
}

void CaptureSession::count_hook_time(const CommandList& list) {
    if (list.hooks_timed) {
        // Calls descheduled inside the hook count at the average of the list's other calls.
        if (list.hook_calls_kept)
            hook_ticks_ += list.hook_ticks * list.hook_calls / list.hook_calls_kept;
        hook_dispatches_ += list.dispatches;
        return;
    }
    // An untimed primary may execute secondaries recorded while the range was open.
    for (const auto& s : list.secondaries) count_hook_time(*s);
}

bool CaptureSession::batch_may_touch_range(const QueueState& q, const SubmittedBatch& batch) const {
    if (active_) return true;
    const CaptureRange& r = settings_.range;
    if (r.kind == RangeKind::dispatches) return dispatches_seen_ + dispatches_in(batch) > r.first;
    if (r.kind == RangeKind::label) return has_labels(batch) || q.labels.contains(r.label);
    return false;
}

void CaptureSession::follow_labels(const CommandList& list, QueueState& q) {
    for (const auto& cmd : list.commands) {
        if (const auto* begin = std::get_if<CmdBeginLabel>(&cmd))
            push_label(q, list.text_of(begin->name));
        else if (std::holds_alternative<CmdEndLabel>(cmd))
            pop_label(q);
        else if (const auto* insert = std::get_if<CmdInsertLabel>(&cmd))
            q.pending_insert.assign(list.text_of(insert->name));
        else if (std::holds_alternative<CmdDispatch>(cmd) ||
                 std::holds_alternative<CmdTransfer>(cmd))
            q.pending_insert.clear();  // the node an inserted label names
        else if (const auto* exec = std::get_if<CmdExecuteCommands>(&cmd))
            for (uint32_t i = 0; i < exec->secondaries.count; ++i)
                follow_labels(*list.secondaries[exec->secondaries.begin + i], q);
    }
}

void CaptureSession::process_batch(DeviceState& device, uint64_t queue, QueueState& q,
                                   const SubmittedBatch& batch) {
    current_index_ = submissions_++;
    const CaptureRange& r = settings_.range;
    switch (r.kind) {
        case RangeKind::submits:
            active_ = current_index_ >= r.first && current_index_ <= r.count_or_last;
            break;
        case RangeKind::first_dispatch_submission:
            active_ = !began_ && dispatches_in(batch) > 0;
            break;
        case RangeKind::label:
            active_ = !range_over_ && q.labels.contains(r.label);
            break;
        case RangeKind::dispatches:
            break;
    }
    if (active_) begin_submission(device, q, batch);
    if (batch_may_touch_range(q, batch)) {
        Walk w{device, q, batch};
        for (const auto& list : batch.lists) walk(*list, w);
    } else {
        dispatches_seen_ += dispatches_in(batch);
        // Outside the range only the queue's label stack is kept (a label region may span
        // submissions, and labels name the nodes of later ones).
        if (has_labels(batch))
            for (const auto& list : batch.lists) follow_labels(*list, q);
    }
    if (open_submission_)
        for (const auto& list : batch.lists) count_hook_time(*list);
    end_submission();
    if (r.kind == RangeKind::submits && began_ && current_index_ >= r.count_or_last)
        range_over_ = true;
    if (r.kind == RangeKind::first_dispatch_submission && began_) range_over_ = true;
    q.last_submission = current_index_;
    last_queue_ = queue;
    for (const auto& s : batch.signals) {
        if (auto t = timeline_signals_.find(s.semaphore); t != timeline_signals_.end())
            t->second[s.value] = std::pair{queue, current_index_};
        else
            semaphore_signal_[s.semaphore] = {queue, current_index_};
    }
}

void CaptureSession::walk(const CommandList& list, Walk& w) {
    // Every command buffer starts with nothing bound; so does each secondary it executes.
    BindState bound;
    for (const auto& cmd : list.commands) walk_command(list, cmd, bound, w);
}

void CaptureSession::walk_command(const CommandList& list, const RecordedCommand& cmd,
                                  BindState& bound, Walk& w) {
    std::visit(
        Overloaded{
            [&](const CmdBindPipeline& c) { bound.apply(handles_, w.device, c); },
            [&](const CmdBindSets& c) { bound.apply(handles_, w.device, list, c); },
            [&](const CmdPushDescriptors& c) { bound.apply(handles_, w.device, list, c); },
            [&](const CmdPushConstants& c) { bound.apply(list, c); },
            [&](const CmdDispatch& c) { on_dispatch_command(c, bound, w); },
            [&](const CmdTransfer& c) {
                if (active_) {
                    emit_or_skip(w, false);
                    builder_->transfer(resolve_transfer(w.device, list, c),
                                       next_node_label(w.queue));
                }
                w.queue.pending_insert.clear();
            },
            [&](const CmdBarrier& c) {
                if (!active_) return;
                emit_or_skip(w, false);
                resolve_barrier(w.device, list, c, event_sets_, barrier_scratch_);
                builder_->barrier(barrier_scratch_);
            },
            // Followed outside the range too: a wait inside it may wait for a set
            // before it, which orders none of the captured commands (position 0).
            [&](const CmdSetEvent& c) {
                event_sets_[c.event] = builder_ ? static_cast<uint32_t>(builder_->node_count()) : 0;
            },
            [&](const CmdResetEvent& c) { event_sets_.erase(c.event); },
            [&](const CmdBeginLabel& c) { push_label(w.queue, list.text_of(c.name)); },
            [&](const CmdEndLabel&) { pop_label(w.queue); },
            [&](const CmdInsertLabel& c) { w.queue.pending_insert.assign(list.text_of(c.name)); },
            [&](const CmdExecuteCommands& c) {
                for (uint32_t i = 0; i < c.secondaries.count; ++i)
                    walk(*list.secondaries[c.secondaries.begin + i], w);
            },
        },
        cmd);
}

void CaptureSession::on_dispatch_command(const CmdDispatch& cmd, const BindState& bound, Walk& w) {
    const uint64_t n = dispatches_seen_++;
    const CaptureRange& r = settings_.range;
    if (r.kind == RangeKind::dispatches && !range_over_ && n >= r.first &&
        n - r.first < r.count_or_last)
        active_ = true;
    if (!active_) {
        w.queue.pending_insert.clear();
        return;
    }
    emit_or_skip(w, true);
    builder_->dispatch(resolve_dispatch(w.device, cmd), bound, next_node_label(w.queue));
    w.queue.pending_insert.clear();
    if (r.kind == RangeKind::dispatches && n - r.first + 1 == r.count_or_last) {
        active_ = false;
        range_over_ = true;
    }
}

void CaptureSession::emit_or_skip(Walk& w, bool /*is_dispatch*/) {
    if (!open_submission_) begin_submission(w.device, w.queue, w.batch);
}

const std::string& CaptureSession::next_node_label(const QueueState& q) {
    static const std::string none;
    if (!q.pending_insert.empty()) return q.pending_insert;
    return q.labels.empty() ? none : q.labels.back();
}

void CaptureSession::push_label(QueueState& q, std::string_view name) {
    q.labels.push(name);
    const CaptureRange& r = settings_.range;
    if (r.kind == RangeKind::label && !range_over_ && q.labels.back() == r.label) active_ = true;
}

void CaptureSession::pop_label(QueueState& q) {
    if (q.labels.empty()) return;
    const CaptureRange& r = settings_.range;
    const bool had = q.labels.contains(r.label);
    q.labels.pop();
    if (r.kind != RangeKind::label || !had || q.labels.contains(r.label)) return;
    active_ = false;
    if (began_) range_over_ = true;
}

void CaptureSession::on_event_changed_by_host(uint64_t event) {
    std::lock_guard lock(mutex_);
    event_sets_.erase(event);
}

void CaptureSession::on_queue_label(uint64_t queue, QueueLabel what, std::string name) {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    QueueState& q = queues_[queue];
    if (what == QueueLabel::begin) push_label(q, name);
    if (what == QueueLabel::end) pop_label(q);
    if (what == QueueLabel::insert) q.pending_insert = std::move(name);
    if (range_over_) write_capture("the label region ended");
}

}  // namespace graphlens::layer
