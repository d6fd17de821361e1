#pragma once
// The GPU objects of abandoned executions, destroyed once the GPU is done with them.
//
// A cancelled run stops waiting for the submission it has in flight (CommandRecorder::wait),
// so the worker that runs it returns at once; the command buffers, query and descriptor pools
// that submission executes, and the buffers, memory and pipelines it reads and writes, must
// outlive it. Their owners' destructors hand them here instead of destroying them: each entry
// is a destroy function, with the fence of the abandoned submission where it has one. Entries
// are destroyed in the order they came, each once its fence has signalled and every entry
// before it is destroyed, so an object retired without a fence (the memory an abandoned
// submission writes, a secondary buffer its primary executes) waits for the submissions retired
// before it. One list per Device; reaped at the next execution, and all waited for when the
// device is destroyed.
#include <vulkan/vulkan.h>

#include <deque>
#include <functional>
#include <mutex>

namespace graphlens {

class RetiredWork {
  public:
    explicit RetiredWork(VkDevice device) : device_(device) {}
    RetiredWork(const RetiredWork&) = delete;
    RetiredWork& operator=(const RetiredWork&) = delete;

    /// The objects of an abandoned submission: `destroy` runs once `fence` has signalled (it
    /// may destroy the fence) and everything retired before has been destroyed; at once when
    /// that is so already.
    void retire(VkFence fence, std::function<void()> destroy);
    /// Objects that abandoned work may still use: queued behind it when any is pending (true),
    /// else left to the caller to destroy now (false, nothing done).
    bool defer(std::function<void()> destroy);
    /// Destroys, in order, the entries whose submissions have finished; never blocks.
    void reap();
    /// Entries not destroyed yet.
    size_t pending() const;
    /// Waits for every retired submission and destroys everything (the device's teardown).
    void finish();

  private:
    struct Entry {
        VkFence fence = VK_NULL_HANDLE;
        std::function<void()> destroy;
    };
    bool signalled(VkFence fence) const;
    void reap_locked();

    VkDevice device_;
    mutable std::mutex mutex_;
    std::deque<Entry> entries_;
};

}  // namespace graphlens
