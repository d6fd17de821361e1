#pragma once
// Private to graphlens_graph (the hazard index's builder): the store of one allocation's
// segments, each with its last writer and its readers since, in the memory of its index.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "graphlens/graph/prefetch.h"

namespace graphlens::hazard_store {

inline constexpr uint32_t kNoWriter = UINT32_MAX;

inline constexpr uint32_t kNoReaders = UINT32_MAX;

/// The older readers since the last write of every segment of one index (all but the two
/// latest, which the segment keeps inline), as persistent singly linked lists in one
/// append-only array, latest first. A segment holds only the head of its list, so a cut copies
/// the head and both halves share the list; a write drops its segment's list. A list per
/// segment in a heap block of its own was copied (malloc'd) at every cut of a segment with more
/// than two readers.
class ReaderLists {
  public:
    /// The list `head` with `reader` in front; returns the new head.
    uint32_t push(uint32_t head, uint32_t reader) {
        if (links_.size() >= kNoReaders) throw std::length_error("HazardIndex: too many reads");
        links_.push_back({reader, head});
        return static_cast<uint32_t>(links_.size() - 1);
    }
    uint32_t reader(uint32_t link) const { return links_[link].reader; }
    uint32_t next(uint32_t link) const { return links_[link].next; }

  private:
    struct Link {
        uint32_t reader;
        uint32_t next;  ///< kNoReaders at the list's end
    };
    std::vector<Link> links_;
};

/// The state of a run of bytes: who wrote it last and who read it since. The four latest
/// readers are inline, the ones before them in a list of ReaderLists (latest first): a list
/// link read at a write is a cache miss at 100k dispatches, and with two readers inline the
/// 100k random graph read 235k links, with four 61k (of the segments a write finds read, 89 %
/// have four readers or fewer). Trivially copyable: segments are split (copied) and moved by the
/// thousand.
struct SegmentState {
    static constexpr size_t kInlineReaders = 4;

    uint32_t writer = kNoWriter;
    /// The latest readers since the write, latest first; kNoReaders after the last of them.
    std::array<uint32_t, kInlineReaders> readers{kNoReaders, kNoReaders, kNoReaders, kNoReaders};
    uint32_t older = kNoReaders;  ///< the head of the list of those before readers.back()

    SegmentState() = default;
    explicit SegmentState(uint32_t written_by) : writer(written_by) {}
    /// A read by `node`, the latest node so far (recorded once however often it reads).
    void read_by(uint32_t node, ReaderLists& lists) {
        if (readers[0] == node) return;
        if (readers.back() != kNoReaders) older = lists.push(older, readers.back());
        std::copy_backward(readers.begin(), readers.end() - 1, readers.end());
        readers[0] = node;
    }
    /// Calls f(reader) for each reader since the last write but `self` (which, read or not,
    /// is the latest node so far: at most the latest reader); returns whether there was one.
    template <typename F>
    bool for_each_reader_but(uint32_t self, const ReaderLists& lists, F&& f) const {
        if (readers[0] == kNoReaders || (readers[0] == self && readers[1] == kNoReaders))
            return false;
        if (readers[0] != self) f(readers[0]);
        for (size_t k = 1; k < kInlineReaders; ++k) {
            if (readers[k] == kNoReaders) return true;
            f(readers[k]);
        }
        for (uint32_t link = older; link != kNoReaders; link = lists.next(link))
            f(lists.reader(link));
        return true;
    }
    /// Neither written nor read by any node so far.
    bool untouched() const { return writer == kNoWriter && readers[0] == kNoReaders; }
    /// A write: this node's bytes now, read by nobody since.
    void written_by(uint32_t node) {
        writer = node;
        readers.fill(kNoReaders);
        older = kNoReaders;
    }
};
static_assert(sizeof(SegmentState) == 24 && std::is_trivially_copyable_v<SegmentState>);

/// A run of bytes in a tree: its end (the key is its start) and its state.
struct Segment {
    uint64_t end = 0;
    SegmentState state;
};

/// Fixed-size blocks for the tree nodes of every segment map of one index: segments are cut
/// and merged by the thousand, and malloc/free of each tree node was a large part of the
/// index. Freed blocks are reused; all memory goes when the pool does.
class NodePool {
  public:
    NodePool() = default;
    NodePool(const NodePool&) = delete;
    NodePool& operator=(const NodePool&) = delete;

    /// Size of the blocks: set by the first request (every map node has one size).
    size_t block() const { return block_; }
    void* take(size_t size) {
        if (block_ == 0) block_ = std::max(size, sizeof(void*));
        if (free_) {
            void* p = free_;
            free_ = *static_cast<void**>(p);
            return p;
        }
        if (next_ == end_) {
            constexpr size_t kBlocksPerChunk = 1024;
            chunks_.push_back(std::make_unique<std::byte[]>(block_ * kBlocksPerChunk));
            next_ = chunks_.back().get();
            end_ = next_ + block_ * kBlocksPerChunk;
        }
        void* p = next_;
        next_ += block_;
        return p;
    }
    void give(void* p) {
        *static_cast<void**>(p) = free_;
        free_ = p;
    }

  private:
    size_t block_ = 0;
    void* free_ = nullptr;
    std::byte* next_ = nullptr;
    std::byte* end_ = nullptr;
    std::vector<std::unique_ptr<std::byte[]>> chunks_;
};

/// Allocator of single map nodes from a NodePool (anything else from the heap).
template <typename T>
struct PoolAllocator {
    using value_type = T;
    NodePool* pool;
    explicit PoolAllocator(NodePool* p) noexcept : pool(p) {}
    template <typename U>
    PoolAllocator(const PoolAllocator<U>& other) noexcept : pool(other.pool) {}
    static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
    T* allocate(size_t n) {
        if (n == 1 && (pool->block() == 0 || pool->block() == sizeof(T)))
            return static_cast<T*>(pool->take(sizeof(T)));
        return std::allocator<T>().allocate(n);
    }
    void deallocate(T* p, size_t n) noexcept {
        if (n == 1 && pool->block() == sizeof(T))
            pool->give(p);
        else
            std::allocator<T>().deallocate(p, n);
    }
    template <typename U>
    bool operator==(const PoolAllocator<U>& other) const noexcept {
        return pool == other.pool;
    }
};

/// Non-overlapping segments keyed by begin; bytes never touched have no segment.
using SegmentMap =
    std::map<uint64_t, Segment, std::less<>, PoolAllocator<std::pair<const uint64_t, Segment>>>;

/// Makes `pos` a segment boundary: splits the segment containing it (if pos lies strictly
/// inside one). `at` is map.lower_bound(pos); returns the first segment starting at or after
/// pos, i.e. lower_bound(pos) after the cut.
inline SegmentMap::iterator cut(SegmentMap& map, SegmentMap::iterator at, uint64_t pos) {
    if (at == map.begin()) return at;
    const auto before = std::prev(at);  // starts before pos
    if (before->second.end <= pos) return at;
    Segment right = before->second;
    before->second.end = pos;
    return map.emplace_hint(at, pos, std::move(right));
}

/// Makes segments tile [begin, end) exactly (gaps become fresh segments); returns the segment
/// that starts at begin. Later cuts keep that segment's start, and nothing here erases, so
/// the iterator stays valid until the node's writes are recorded.
inline SegmentMap::iterator cover(SegmentMap& map, uint64_t begin, uint64_t end) {
    auto it = map.lower_bound(begin);
    // The common case of tensor views: the range is exactly one existing segment.
    if (it != map.end() && it->first == begin && it->second.end == end) return it;
    it = cut(map, it, begin);
    cut(map, map.lower_bound(end), end);
    uint64_t pos = begin;
    SegmentMap::iterator first = map.end();
    while (pos < end) {
        if (it == map.end() || it->first > pos) {
            const uint64_t gap_end = (it == map.end()) ? end : std::min(end, it->first);
            it = map.emplace_hint(it, pos, Segment{gap_end, SegmentState()});
        }
        if (pos == begin) first = it;
        pos = it->second.end;
        ++it;
    }
    return first;
}

/// Calls f(begin, end, state) for each segment from `first` that starts before `end`.
template <typename F>
void for_each_segment(SegmentMap& map, SegmentMap::iterator first, uint64_t end, F&& f) {
    for (auto it = first; it != map.end() && it->first < end; ++it)
        f(it->first, it->second.end, it->second.state);
}

/// Records a write of [begin, end) by `self` in a tree: one segment, this write's.
inline void record_write(SegmentMap& map, uint64_t begin, uint64_t end, uint32_t self) {
    // One segment exactly the range (tensor views): it becomes this write's.
    auto first = map.lower_bound(begin);
    if (first != map.end() && first->first == begin && first->second.end == end) {
        first->second.state.written_by(self);
        return;
    }
    // cover() made segments tile the range; an earlier write of this node may have merged
    // across its ends, so cut there again before replacing them by one.
    first = cut(map, first, begin);
    const auto last = cut(map, map.lower_bound(end), end);
    if (first != last && first->first == begin) {
        // Reuse the first segment's tree node (one allocation less per write).
        first->second.end = end;
        first->second.state.written_by(self);
        map.erase(std::next(first), last);
    } else {
        map.erase(first, last);
        map.emplace(begin, Segment{end, SegmentState(self)});
    }
}

/// An entry of a flat store: where a segment ends, and its state. It begins where the entry
/// before it ends (the first at byte 0): a flat store tiles its allocation from byte 0 to its
/// last segment's end, and bytes nobody accessed lie in segments of their own, untouched (no
/// writer, no reader), which give no hazard, as bytes without a segment in a tree. No begin
/// stored: with four readers inline, half a cache line, as with two and a begin.
struct FlatSegment {
    uint64_t end = 0;
    SegmentState state;
};
static_assert(sizeof(FlatSegment) == 32 && std::is_trivially_copyable_v<FlatSegment>);

/// The flat stores' arrays of one index, in blocks of 2^k segments cut from large chunks: a
/// block given back (an array that grew or became a tree) is reused for the next array of its
/// size. A heap block per array (6,250 stores at 100k random dispatches, each reallocated two
/// or three times as it grows) cost a malloc and a free each, and scattered the arrays.
class ArrayPool {
  public:
    ArrayPool() = default;
    ArrayPool(const ArrayPool&) = delete;
    ArrayPool& operator=(const ArrayPool&) = delete;

    /// A block of 2^log2 segments (their values unset). A free block holds the next free one in
    /// its first bytes, copied in and out with memcpy (not stored through a segment).
    FlatSegment* take(unsigned log2) {
        if (log2 >= free_.size()) free_.resize(log2 + 1, nullptr);
        if (FlatSegment* p = free_[log2]) {
            FlatSegment* next = nullptr;  // the next free block
            std::memcpy(&next, static_cast<const void*>(p), sizeof next);
            free_[log2] = next;
            return p;
        }
        const size_t count = size_t{1} << log2;
        if (static_cast<size_t>(end_ - next_) < count) {
            const size_t chunk = std::max(kChunk, count);
            chunks_.push_back(std::make_unique<FlatSegment[]>(chunk));
            next_ = chunks_.back().get();
            end_ = next_ + chunk;
        }
        FlatSegment* p = next_;
        next_ += count;
        return p;
    }
    void give(FlatSegment* p, unsigned log2) {
        // A list through the free blocks, in their bytes.
        std::memcpy(static_cast<void*>(p), &free_[log2], sizeof(FlatSegment*));
        free_[log2] = p;
    }

  private:
    static constexpr size_t kChunk = size_t{1} << 14;  ///< segments (512 KiB)
    std::vector<FlatSegment*> free_;  ///< [log2]: the first free block of 2^log2 segments
    FlatSegment* next_ = nullptr;
    FlatSegment* end_ = nullptr;
    std::vector<std::unique_ptr<FlatSegment[]>> chunks_;
};

/// The memory of one index's stores: tree nodes and flat arrays.
struct StorePools {
    NodePool nodes;
    ArrayPool arrays;
};

/// The segments of one allocation: a sorted array that tiles the allocation from byte 0
/// (FlatSegment; the small allocations of random graphs, whose tree nodes were cache misses at
/// every level; an allocation filled from front to back, like the weights or KV cache of a
/// transformer, whose accesses land at the array's end) while no change has to move more than
/// kFlatLimit entries after it; from the first that would, a tree of the accessed segments. So
/// a cut never moves more than kFlatLimit entries.
class AllocationSegments {
  public:
    /// The first segment of a covered range, for the walks over it before the node's writes
    /// are recorded: a tree iterator, or (flat) found again by its start, as inserting into
    /// the array moves entries.
    struct First {
        SegmentMap::iterator tree;
        bool in_tree = false;  ///< false: made while the store was flat
        /// Flat: where the segment stood after the cover; checked by its start before use.
        size_t flat = SIZE_MAX;
    };

    /// Makes segments tile [begin, end) exactly (bytes never accessed become fresh segments).
    First cover(StorePools& pool, uint64_t begin, uint64_t end) {
        if (tree_) return {hazard_store::cover(*tree_, begin, end), true};
        // lo: the first segment that ends after begin (size_ when begin lies past the
        // extent); last: the first that ends at or after `end`, if any.
        const auto [lo, last] = run_of(begin, end);
        const bool gap = begin > extent();  // [extent, begin) untouched, before the range
        const bool cut_left = lo < size_ && begin_of(lo) < begin;
        const bool cut_right = last < size_ && flat_[last].end > end;
        const bool tail = last == size_;  // [max(extent, begin), end) appended, fresh
        const size_t added = size_t{gap} + size_t{cut_left} + size_t{cut_right} + size_t{tail};
        if (added == 0) return {{}, false, lo};     // the range is whole segments already
        const size_t hi = tail ? size_ : last + 1;  // the run [lo, hi) gets `added` entries
        if (outgrows(hi, hi + added)) {
            to_tree(pool);
            return {hazard_store::cover(*tree_, begin, end), true};
        }
        // Room for the new entries after the run, then the run rewritten from its back: each
        // entry lands at or after its own index, so it is read before anything overwrites it.
        // A cut copies the cut segment's state to both halves.
        resize_run(pool.arrays, lo, hi, hi - lo + added);
        size_t out = hi + added;
        if (tail) flat_[--out] = {end, SegmentState()};
        for (size_t k = hi; k-- > lo;) {
            const FlatSegment segment = flat_[k];
            flat_[--out] = segment;
            if (cut_right && k == last) flat_[--out] = {end, segment.state};
            if (cut_left && k == lo) flat_[--out] = {begin, segment.state};
        }
        if (gap) flat_[--out] = {begin, SegmentState()};
        return {{}, false, lo + size_t{cut_left || gap}};
    }

    /// Calls f(begin, end, state) for each segment of a covered range, from its first.
    template <typename F>
    void for_each(const First& first, uint64_t begin, uint64_t end, F&& f) {
        if (tree_) {
            for_each_segment(*tree_, first.in_tree ? first.tree : tree_->lower_bound(begin), end,
                             f);
            return;
        }
        size_t k = first.flat;
        if (k >= size_ || begin_of(k) != begin) k = first_ending_after(begin);
        for (uint64_t b = begin_of(k); k < size_ && b < end; b = flat_[k++].end)
            f(b, flat_[k].end, flat_[k].state);
    }

    /// Calls f(begin, end, state) for each segment that overlaps [begin, end), as it is (not
    /// cut: the callers clip). Bytes without a segment, or in an untouched one, were never
    /// accessed.
    template <typename F>
    void for_each_overlapping(uint64_t begin, uint64_t end, F&& f) const {
        if (tree_) {
            auto it = tree_->upper_bound(begin);
            if (it != tree_->begin() && std::prev(it)->second.end > begin) --it;
            for (; it != tree_->end() && it->first < end; ++it)
                f(it->first, it->second.end, it->second.state);
            return;
        }
        size_t k = first_ending_after(begin);
        for (uint64_t b = begin_of(k); k < size_ && b < end; b = flat_[k++].end)
            f(b, flat_[k].end, flat_[k].state);
    }

    /// Records a write of [begin, end) by `self`: one segment, this write's.
    void write(StorePools& pool, uint64_t begin, uint64_t end, uint32_t self) {
        if (tree_) {
            record_write(*tree_, begin, end, self);
            return;
        }
        const auto [lo, last] = run_of(begin, end);  // as in cover()
        if (lo < size_ && begin_of(lo) == begin && flat_[lo].end == end) {
            flat_[lo].state.written_by(self);
            return;
        }
        const size_t hi = last < size_ ? last + 1 : size_;
        // The run [lo, hi) becomes: the left rest of its first segment (or, past the extent,
        // the untouched bytes before the write), this write, the right rest of its last (both
        // rests keep their states).
        const bool left = begin > (lo < size_ ? begin_of(lo) : extent());
        const bool cut_right = last < size_ && flat_[last].end > end;
        const SegmentState left_state = lo < size_ ? flat_[lo].state : SegmentState();
        const FlatSegment right = cut_right ? flat_[last] : FlatSegment();
        const size_t runs = 1 + size_t{left} + size_t{cut_right};
        if (outgrows(hi, lo + runs)) {
            to_tree(pool);
            record_write(*tree_, begin, end, self);
            return;
        }
        resize_run(pool.arrays, lo, hi, runs);
        size_t out = lo;
        if (left) flat_[out++] = {begin, left_state};
        flat_[out++] = {end, SegmentState(self)};
        if (cut_right) flat_[out] = right;
    }

  private:
    static constexpr size_t kFlatLimit = 256;
    static constexpr unsigned kFirstCapacityLog2 = 4;  ///< 16 segments

    /// A store of at most this many segments is searched by counting (no branch on the data):
    /// the stores of the random graphs (2 to 63 segments, 14 on average at a search), which
    /// the walk allocation by allocation finds in the first-level cache, where a search's
    /// probes cost more in mispredicted branches than a pass over every end.
    static constexpr size_t kCountedSearch = 64;

    /// {first segment that ends after begin, first segment that ends at or after end}, each
    /// size_ when there is none (begin <= end).
    std::pair<size_t, size_t> run_of(uint64_t begin, uint64_t end) const {
        if (begin >= extent()) return {size_, size_};  // an append
        if (size_ <= kCountedSearch) {
            size_t lo = 0, last = 0;
            for (size_t k = 0; k < size_; ++k) {
                lo += size_t{flat_[k].end <= begin};
                last += size_t{flat_[k].end < end};
            }
            return {lo, last};
        }
        const size_t lo = first_ending_after(begin);
        size_t last = lo;
        while (last < size_ && flat_[last].end < end) ++last;
        return {lo, last};
    }

    /// Index of the first segment that ends after pos (segments are sorted and disjoint, so
    /// their ends are sorted too). Counted in a store of up to kCountedSearch segments; in a
    /// larger one searched from the back, in steps that double, then by halves: allocations
    /// filled front to back are accessed near their end, and a search from the middle of a
    /// long array missed the cache at every step.
    size_t first_ending_after(uint64_t pos) const {
        const size_t n = size_;
        if (n == 0 || pos >= flat_[n - 1].end) return n;  // an append
        if (n <= kCountedSearch) {
            size_t k = 0;
            for (size_t j = 0; j < n; ++j) k += size_t{flat_[j].end <= pos};
            return k;
        }
        size_t lo = n - 1;  // flat_[lo].end > pos
        for (size_t step = 1; lo > 0; step *= 2) {
            const size_t probe = lo > step ? lo - step : 0;
            if (flat_[probe].end <= pos)  // the answer lies in (probe, lo]
                return static_cast<size_t>(
                    std::upper_bound(flat_ + static_cast<ptrdiff_t>(probe) + 1,
                                     flat_ + static_cast<ptrdiff_t>(lo), pos,
                                     [](uint64_t p, const FlatSegment& f) { return p < f.end; }) -
                    flat_);
            lo = probe;
        }
        return 0;
    }
    /// Whether replacing flat_[lo, hi) by runs ending at index `new_hi` (lo + their count)
    /// would move more than kFlatLimit entries: then the store becomes a tree instead.
    bool outgrows(size_t hi, size_t new_hi) const {
        return new_hi != hi && size_ - hi > kFlatLimit;
    }
    /// Makes the run flat_[lo, hi) `count` entries long: inserts (unset) or erases entries
    /// at its end, moving those after it. A full array moves to a block twice as large (the
    /// first holds kFirstCapacity: most stores grow to a dozen segments or more).
    void resize_run(ArrayPool& arrays, size_t lo, size_t hi, size_t count) {
        const size_t old_count = hi - lo;
        if (count > old_count) {
            const size_t grow = count - old_count;
            if (size_ + grow > (size_t{1} << cap_log2_) || !flat_) {
                unsigned log2 = flat_ ? cap_log2_ + 1 : kFirstCapacityLog2;
                while ((size_t{1} << log2) < size_ + grow) ++log2;
                FlatSegment* grown = arrays.take(log2);
                if (flat_) {
                    std::copy(flat_, flat_ + hi, grown);
                    std::copy(flat_ + hi, flat_ + size_, grown + hi + grow);
                    arrays.give(flat_, cap_log2_);
                }
                flat_ = grown;
                cap_log2_ = log2;
            } else {
                std::copy_backward(flat_ + hi, flat_ + size_, flat_ + size_ + grow);
            }
            size_ += grow;
        } else if (count < old_count) {
            std::copy(flat_ + hi, flat_ + size_, flat_ + lo + count);
            size_ -= old_count - count;
        }
    }
    /// Where flat_[k] begins (k <= size_: the extent for k == size_).
    uint64_t begin_of(size_t k) const { return k > 0 ? flat_[k - 1].end : 0; }
    /// The end of the tiled bytes: past it no byte was accessed.
    uint64_t extent() const { return size_ > 0 ? flat_[size_ - 1].end : 0; }
    void to_tree(StorePools& pool) {
        tree_.emplace(PoolAllocator<std::pair<const uint64_t, Segment>>(&pool.nodes));
        for (size_t k = 0; k < size_; ++k)
            if (!flat_[k].state.untouched())  // a tree has no segment for such bytes
                tree_->emplace_hint(tree_->end(), begin_of(k),
                                    Segment{flat_[k].end, flat_[k].state});
        if (flat_) pool.arrays.give(flat_, cap_log2_);
        flat_ = nullptr;
        size_ = 0;
    }

    /// One array (the ends were a parallel array for the searches: two heap blocks a store,
    /// both moved at every cut, where the searches from the back read a line or two): a block
    /// of the index's ArrayPool, of 2^cap_log2_ segments, the first size_ in use.
    FlatSegment* flat_ = nullptr;
    uint32_t size_ = 0;
    uint32_t cap_log2_ = 0;
    std::optional<SegmentMap> tree_;
};

}  // namespace graphlens::hazard_store
