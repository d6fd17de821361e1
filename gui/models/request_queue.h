#pragma once
// The worker thread's queue (after RenderDoc's replay manager): each request carries a tag,
// and a newer request with the same tag replaces an older one still waiting, so scrubbing
// through stages or re-running analyses never piles up work. Requests run in the order their
// tags were first queued. Thread-safe; pop() blocks until a request or close().
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace graphlens::gui {

struct Request {
    std::string tag;
    uint64_t generation = 0;  ///< increasing per queue; results carry it so stale ones drop
    std::function<void(uint64_t generation)> work;  ///< called with `generation`
};

class RequestQueue {
  public:
    /// Queues work under a tag; returns its generation. Replaces a waiting one with that tag.
    uint64_t push(std::string tag, std::function<void(uint64_t)> work);
    /// Next request, or nothing once closed and empty.
    std::optional<Request> pop();
    void close();
    size_t pending() const;
    /// The newest generation queued for a tag (0 if never): a result from an older one is stale.
    uint64_t latest(const std::string& tag) const;

  private:
    mutable std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<Request> queue_;
    std::unordered_map<std::string, uint64_t> latest_;
    uint64_t next_generation_ = 1;
    bool closed_ = false;
};

}  // namespace graphlens::gui
