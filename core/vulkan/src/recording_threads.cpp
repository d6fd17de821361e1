#include "graphlens/vulkan/recording_threads.h"

#include <chrono>
#include <stdexcept>

namespace graphlens {
namespace {
// How long an idle worker polls for the next job before it sleeps: longer than the gap
// between two runs of a benchmark or a decode loop, short enough not to hold a core after.
constexpr auto kSpin = std::chrono::milliseconds(2);
}  // namespace

RecordingThreads::RecordingThreads(size_t workers) {
    errors_.resize(workers + 1);
    workers_.reserve(workers);
    for (size_t i = 0; i < workers; ++i) workers_.emplace_back([this, i] { work(i + 1); });
}

RecordingThreads::~RecordingThreads() {
    {
        std::lock_guard lock(mutex_);
        stop_.store(true);
        generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
}

void RecordingThreads::run(size_t n, const std::function<void(size_t)>& job) {
    if (n == 0) return;
    if (n > size()) throw std::invalid_argument("RecordingThreads::run: more jobs than threads");
    for (auto& e : errors_) e = nullptr;
    job_ = &job;
    n_ = n;
    // Every worker reports back, needed or not: none can lag behind into the next job and read
    // its parameters.
    pending_.store(workers_.size(), std::memory_order_relaxed);
    {
        std::lock_guard lock(mutex_);  // a worker about to sleep sees the new generation
        generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    try {
        job(0);
    } catch (...) {
        errors_[0] = std::current_exception();
    }
    while (pending_.load(std::memory_order_acquire) != 0) std::this_thread::yield();
    for (const auto& e : errors_)
        if (e) std::rethrow_exception(e);
}

void RecordingThreads::work(size_t index) {
    uint64_t seen = 0;
    for (;;) {
        uint64_t g = generation_.load(std::memory_order_acquire);
        const auto until = std::chrono::steady_clock::now() + kSpin;
        while (g == seen && std::chrono::steady_clock::now() < until) {
            std::this_thread::yield();
            g = generation_.load(std::memory_order_acquire);
        }
        if (g == seen) {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
            g = generation_.load(std::memory_order_acquire);
        }
        seen = g;
        if (stop_.load()) return;
        if (index < n_) {
            try {
                (*job_)(index);
            } catch (...) {
                errors_[index] = std::current_exception();
            }
        }
        pending_.fetch_sub(1, std::memory_order_acq_rel);
    }
}

}  // namespace graphlens
