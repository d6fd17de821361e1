#pragma once
// RecordingThreads: the worker threads that record slices of a graph into secondary command
// buffers at once (SubmitMode::parallel). A driver's vkCmdDispatch costs CPU time, so one
// thread's recording of a decode step is a sizeable share of the step's wall; recording slices
// in parallel and submitting once takes part of that off the wall time without the GPU time
// each extra submission costs (secondary buffers cost far less). The figures, and how far the
// driver's recording scales with threads: docs/benchmarks.md §1.
//
// Between jobs a worker spins for a short while before it sleeps, so that back-to-back runs
// (a decode loop, a timed benchmark) start without a futex wake-up per worker.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace graphlens {

class RecordingThreads {
  public:
    /// `workers` threads besides the caller's.
    explicit RecordingThreads(size_t workers);
    ~RecordingThreads();
    RecordingThreads(const RecordingThreads&) = delete;
    RecordingThreads& operator=(const RecordingThreads&) = delete;

    /// Threads a job can use: the workers and the calling thread.
    size_t size() const { return workers_.size() + 1; }
    /// Runs job(i) for every i in [0, n), n <= size(): 0 on the calling thread, the others on
    /// workers, and returns when all are done. Rethrows the exception of the lowest i that threw.
    void run(size_t n, const std::function<void(size_t)>& job);

  private:
    void work(size_t index);

    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::atomic<uint64_t> generation_{0};  ///< bumped once a job is published
    std::atomic<size_t> pending_{0};       ///< workers not yet back from the current job
    std::atomic<bool> stop_{false};
    const std::function<void(size_t)>* job_ = nullptr;
    size_t n_ = 0;
    std::vector<std::exception_ptr> errors_;
};

}  // namespace graphlens
