#pragma once
// Storage for what the layer records while a capture's range is open: append-only, in chunks
// that never move once allocated. A growing std::vector moves every element into new memory
// when it grows and touches that memory for the first time, and the first touch of a page is
// what recording pays most for (a page fault per 4 KiB); chunks are touched once, in order.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <vector>

namespace graphlens::layer {

/// Memory for one chunk, its pages made present up front: one system call maps them all,
/// where touching them one by one costs a page fault each (expensive under virtualisation).
struct ChunkMemory {
    struct Unmap {
        size_t bytes = 0;
        void operator()(void* p) const;
    };
    using Pointer = std::unique_ptr<void, Unmap>;
    static Pointer allocate(size_t bytes);
};

/// Copies of small arrays of plain values, each contiguous, kept until the arena is destroyed.
class RecordArena {
  public:
    template <class T>
    std::span<const T> copy(std::span<const T> items) {
        static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                      "the arena keeps plain values only: it never runs destructors");
        if (items.empty()) return {};
        void* place = allocate(items.size_bytes(), alignof(T));
        std::memcpy(place, items.data(), items.size_bytes());
        return {static_cast<const T*>(place), items.size()};
    }

  private:
    static constexpr size_t kChunkBytes = size_t{256} << 10;

    void* allocate(size_t bytes, size_t align) {
        size_t at = (used_ + align - 1) & ~(align - 1);
        if (chunks_.empty() || at + bytes > capacity_) {
            // An array larger than a chunk gets a chunk of its own.
            capacity_ = std::max(kChunkBytes, bytes);
            chunks_.push_back(ChunkMemory::allocate(capacity_));
            at = 0;
        }
        used_ = at + bytes;
        return static_cast<std::byte*>(chunks_.back().get()) + at;
    }

    std::vector<ChunkMemory::Pointer> chunks_;  ///< page-aligned
    size_t used_ = 0;
    size_t capacity_ = 0;
};

/// An append-only sequence whose elements never move (a vector of fixed-size chunks).
template <class T>
class StableVector {
  public:
    void push_back(const T& item) {
        if (size_ == chunks_.size() * kChunkItems)
            chunks_.push_back(ChunkMemory::allocate(kChunkItems * sizeof(T)));
        new (slot(size_)) T(item);
        ++size_;
    }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const T& operator[](size_t i) const {
        return *std::launder(reinterpret_cast<const T*>(slot(i)));
    }

    StableVector() = default;
    StableVector(const StableVector&) = delete;
    StableVector& operator=(const StableVector&) = delete;
    ~StableVector() {
        if constexpr (!std::is_trivially_destructible_v<T>)
            for (size_t i = 0; i < size_; ++i) (*this)[i].~T();
    }

  private:
    static constexpr size_t kChunkItems = std::max<size_t>(64, (size_t{256} << 10) / sizeof(T));
    static_assert(alignof(T) <= 4096, "chunks are page-aligned");
    std::byte* slot(size_t i) const {
        return static_cast<std::byte*>(chunks_[i / kChunkItems].get()) +
               i % kChunkItems * sizeof(T);
    }
    std::vector<ChunkMemory::Pointer> chunks_;
    size_t size_ = 0;
};

}  // namespace graphlens::layer
