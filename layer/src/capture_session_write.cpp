// Writing the capture (or saying why there is none) and the ends of the range that are not a
// submission: device destruction and process exit.
#include <chrono>
#include <cstdio>
#include <fstream>

#include "layer/src/capture_session.h"
#include "layer/src/diagnostics.h"
#include "layer/src/graph_builder.h"
#include "layer/src/layer_clock.h"

namespace graphlens::layer {

void CaptureSession::write_status(const std::string& line) const {
    if (settings_.status_file.empty()) return;
    std::ofstream out(settings_.status_file, std::ios::trunc);
    out << line << "\n";
}

std::string CaptureSession::why_nothing_captured() const {
    if (!settings_error_.empty()) return settings_error_;
    if (queues_.empty()) return "the program made no queue submission";
    const CaptureRange& r = settings_.range;
    const std::string made = "the program made " + std::to_string(submissions_) +
                             " queue submission" + (submissions_ == 1 ? "" : "s") + " with " +
                             std::to_string(dispatches_seen_) + " dispatch" +
                             (dispatches_seen_ == 1 ? "" : "es");
    switch (r.kind) {
        case RangeKind::submits:
            return made + "; the range asks for " + r.describe();
        case RangeKind::dispatches:
            return made + "; the range asks for " + r.describe();
        case RangeKind::label:
            return made +
                   "; none of their commands was inside a debug-utils label region "
                   "named '" +
                   r.label + "'";
        case RangeKind::first_dispatch_submission:
            break;
    }
    return made + ": no submission contained a dispatch";
}

std::string CaptureSession::recording_cost() const {
    const size_t dispatches = builder_->dispatch_count();
    if (dispatches == 0) return "no dispatch captured";
    char text[320];
    const double submit_us = double(submit_cpu_ns_) / 1000.0 / double(dispatches);
    if (hook_dispatches_ == 0) {
        std::snprintf(text, sizeof text,
                      "%.2f µs of CPU time per captured dispatch resolving commands and building "
                      "nodes at submission; the command hooks were not timed (every captured "
                      "command buffer was recorded before the range opened)",
                      submit_us);
        return text;
    }
    const uint64_t ticks = hook_ticks() - timing_start_ticks_;
    const double ns_per_tick = ticks ? double(steady_ns() - timing_start_ns_) / double(ticks) : 1.0;
    const double hook_us = double(hook_ticks_) * ns_per_tick / 1000.0 / double(hook_dispatches_);
    std::snprintf(text, sizeof text,
                  "%.2f µs per captured dispatch: %.2f µs in the command hooks (timed on the %llu "
                  "dispatches recorded while the range was open) + %.2f µs of CPU time resolving "
                  "commands and building nodes at submission",
                  hook_us + submit_us, hook_us, static_cast<unsigned long long>(hook_dispatches_),
                  submit_us);
    return text;
}

void CaptureSession::write_capture(const char* why_now) {
    if (finished_) return;
    finished_ = true;
    hooks_timed_ = false;
    if (!builder_) {
        const std::string why = why_nothing_captured();
        warn_once("nothing", "no capture written: " + why);
        write_status("not written: " + why);
        return;
    }
    end_submission();
    CaptureSource& source = *document_.source;
    source.range = settings_.range.describe();
    if (!range_over_)
        source.notes.push_back({std::nullopt, std::string("the range did not end before ") +
                                                  why_now +
                                                  "; the capture holds what was "
                                                  "submitted until then"});
    const size_t dispatches = builder_->dispatch_count();
    // The costs of recording and writing are reported with the file: docs/benchmarks.md
    // quotes them.
    const std::string recording = recording_cost();
    source.notes.push_back({std::nullopt, "the layer's recording cost: " + recording +
                                              " (writing the file not included)"});
    // The cost of writing is reported with the file: docs/benchmarks.md quotes it.
    const auto started = std::chrono::steady_clock::now();
    const uint64_t started_cpu = thread_cpu_ns();
    builder_->read_indirect_counts(settings_.data ? snapshot_.get() : nullptr);
    document_.graph = builder_->finish(capture_device_, source.notes);
    document_.generator = std::string("VK_LAYER_GRAPHLENS_capture ") + GRAPHLENS_LAYER_VERSION;
    if (settings_.data) source.notes.push_back({std::nullopt, write_buffer_data()});
    try {
        save_capture(document_, settings_.output);
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
                .count();
        const double cpu_ms = double(thread_cpu_ns() - started_cpu) / 1e6;
        std::fprintf(stderr,
                     "graphlens-layer: wrote %s (%zu dispatches, %zu submissions, %s) in %.1f ms "
                     "(%.1f ms of CPU time); recording: %s\n",
                     settings_.output.c_str(), dispatches, source.submissions.size(),
                     source.range.c_str(), ms, cpu_ms, recording.c_str());
        write_status("written " + settings_.output);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "graphlens-layer: could not write %s: %s\n", settings_.output.c_str(),
                     e.what());
        write_status(std::string("not written: ") + e.what());
    }
    builder_.reset();
}

void CaptureSession::on_device_destroyed(const DeviceState& device) {
    std::lock_guard lock(mutex_);
    if (began_ && !finished_ && capture_device_ == &device)
        write_capture("the program destroyed its device");
    if (capture_device_ == &device) capture_device_ = nullptr;
    for (auto& [handle, q] : queues_)
        if (q.device == &device) q.device = nullptr;
}

void CaptureSession::on_exit() {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    write_capture("the program exited");
}

}  // namespace graphlens::layer
