#pragma once
// A thread-safe map from a Vulkan handle to the layer's state for it. Command buffers are
// recorded on many threads at once and each records lookups here, so readers share the lock.
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

namespace graphlens::layer {

template <class T>
class HandleMap {
  public:
    std::shared_ptr<T> find(uint64_t handle) const {
        std::shared_lock lock(mutex_);
        auto it = map_.find(handle);
        return it == map_.end() ? nullptr : it->second;
    }
    void put(uint64_t handle, std::shared_ptr<T> value) {
        std::unique_lock lock(mutex_);
        map_[handle] = std::move(value);
    }
    std::shared_ptr<T> take(uint64_t handle) {
        std::unique_lock lock(mutex_);
        auto it = map_.find(handle);
        if (it == map_.end()) return nullptr;
        auto value = std::move(it->second);
        map_.erase(it);
        return value;
    }
    /// Calls `f(value)` for every entry (under the readers' lock: f must not use the map).
    template <class F>
    void for_each(F f) const {
        std::shared_lock lock(mutex_);
        for (const auto& kv : map_) f(*kv.second);
    }
    /// Removes every entry for which `pred(value)` holds.
    template <class Pred>
    void erase_if(Pred pred) {
        std::unique_lock lock(mutex_);
        std::erase_if(map_, [&](const auto& kv) { return pred(*kv.second); });
    }

  private:
    mutable std::shared_mutex mutex_;
    std::unordered_map<uint64_t, std::shared_ptr<T>> map_;
};

template <class Handle>
uint64_t handle_bits(Handle h) {
    if constexpr (std::is_pointer_v<Handle>)
        return reinterpret_cast<uint64_t>(h);
    else
        return static_cast<uint64_t>(h);
}

}  // namespace graphlens::layer
