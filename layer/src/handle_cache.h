#pragma once
// The tracked objects one submission's commands name, each looked up in the device's maps
// once per submission: a program binds the same pipelines, layouts and buffers dispatch after
// dispatch, and a HandleMap lookup takes a shared lock and copies a reference count. The cache
// holds a reference to each object it found, so the references it hands out stay valid until
// it is cleared; it is cleared after every submission, as a handle may name another object
// once the program destroyed the first (which Vulkan allows only after the submissions that
// use it completed). Used by one thread at a time (the capture session's, under its lock).
#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "layer/src/handle_map.h"
#include "layer/src/tracked_objects.h"

namespace graphlens::layer {

template <class T>
class HandleCache {
  public:
    /// The object `handle` names in `map`, as the map held it at the first lookup since the
    /// last clear; null when the map has none. The reference is valid until clear().
    const std::shared_ptr<T>& find(const HandleMap<T>& map, uint64_t handle) {
        if ((objects_.size() + 1) * 2 > slots_.size()) grow();
        const size_t mask = slots_.size() - 1;
        for (size_t i = spread(handle) & mask;; i = (i + 1) & mask) {
            Slot& s = slots_[i];
            if (s.generation != generation_) {
                objects_.push_back(map.find(handle));
                s = {handle, static_cast<uint32_t>(objects_.size() - 1), generation_};
                return objects_.back();
            }
            if (s.handle == handle) return objects_[s.index];
        }
    }
    /// Forgets every object found (and releases the cache's references to them).
    void clear() {
        objects_.clear();
        if (++generation_ == 0) {  // wrapped: slots of generation 0 would read as in use
            slots_.assign(slots_.size(), Slot{});
            generation_ = 1;
        }
    }

  private:
    struct Slot {
        uint64_t handle = 0;
        uint32_t index = 0;
        uint32_t generation = 0;  ///< a slot of an earlier generation is empty
    };
    static uint64_t spread(uint64_t handle) { return (handle * 0x9E3779B97F4A7C15ull) >> 32; }
    void grow() {
        std::vector<Slot> old = std::move(slots_);
        slots_.assign(std::max<size_t>(64, old.size() * 2), Slot{});
        const size_t mask = slots_.size() - 1;
        for (const Slot& s : old) {
            if (s.generation != generation_) continue;
            size_t i = spread(s.handle) & mask;
            while (slots_[i].generation == generation_) i = (i + 1) & mask;
            slots_[i] = s;
        }
    }
    std::vector<Slot> slots_;
    std::deque<std::shared_ptr<T>> objects_;  ///< never moves an element: references stay
    uint32_t generation_ = 1;                 ///< slots start at 0: empty
};

/// The caches a submission's walk resolves handles through.
struct SubmissionHandles {
    HandleCache<PipelineState> pipelines;
    HandleCache<const PipelineLayoutState> pipeline_layouts;
    HandleCache<DescriptorSetState> descriptor_sets;
    HandleCache<BufferState> buffers;

    void clear() {
        pipelines.clear();
        pipeline_layouts.clear();
        descriptor_sets.clear();
        buffers.clear();
    }
};

}  // namespace graphlens::layer
