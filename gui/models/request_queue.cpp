#include "models/request_queue.h"

#include <algorithm>

namespace graphlens::gui {

uint64_t RequestQueue::push(std::string tag, std::function<void(uint64_t)> work) {
    std::lock_guard lock(mutex_);
    const uint64_t generation = next_generation_++;
    latest_[tag] = generation;
    auto it =
        std::find_if(queue_.begin(), queue_.end(), [&](const Request& r) { return r.tag == tag; });
    if (it != queue_.end()) {
        it->generation = generation;
        it->work = std::move(work);
    } else {
        queue_.push_back({std::move(tag), generation, std::move(work)});
    }
    ready_.notify_one();
    return generation;
}

std::optional<Request> RequestQueue::pop() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return closed_ || !queue_.empty(); });
    if (queue_.empty()) return std::nullopt;
    Request r = std::move(queue_.front());
    queue_.pop_front();
    return r;
}

void RequestQueue::close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    queue_.clear();
    ready_.notify_all();
}

size_t RequestQueue::pending() const {
    std::lock_guard lock(mutex_);
    return queue_.size();
}

uint64_t RequestQueue::latest(const std::string& tag) const {
    std::lock_guard lock(mutex_);
    auto it = latest_.find(tag);
    return it == latest_.end() ? 0 : it->second;
}

}  // namespace graphlens::gui
