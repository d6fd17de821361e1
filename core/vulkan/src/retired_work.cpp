// RetiredWork: abandoned submissions' objects, destroyed in order once their fences signal.
#include "graphlens/vulkan/retired_work.h"

#include <utility>

namespace graphlens {

bool RetiredWork::signalled(VkFence fence) const {
    if (fence == VK_NULL_HANDLE) return true;
    // A lost device finishes nothing any more: its objects can go.
    return vkGetFenceStatus(device_, fence) != VK_NOT_READY;
}

void RetiredWork::reap_locked() {
    while (!entries_.empty() && signalled(entries_.front().fence)) {
        Entry e = std::move(entries_.front());
        entries_.pop_front();
        e.destroy();
    }
}

void RetiredWork::retire(VkFence fence, std::function<void()> destroy) {
    std::lock_guard lock(mutex_);
    entries_.push_back({fence, std::move(destroy)});
    reap_locked();
}

bool RetiredWork::defer(std::function<void()> destroy) {
    std::lock_guard lock(mutex_);
    reap_locked();
    if (entries_.empty()) return false;
    entries_.push_back({VK_NULL_HANDLE, std::move(destroy)});
    return true;
}

void RetiredWork::reap() {
    std::lock_guard lock(mutex_);
    reap_locked();
}

size_t RetiredWork::pending() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
}

void RetiredWork::finish() {
    std::lock_guard lock(mutex_);
    for (Entry& e : entries_) {
        if (e.fence != VK_NULL_HANDLE) vkWaitForFences(device_, 1, &e.fence, VK_TRUE, UINT64_MAX);
        e.destroy();
    }
    entries_.clear();
}

}  // namespace graphlens
