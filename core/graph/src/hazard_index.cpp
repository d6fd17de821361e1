#include "graphlens/graph/hazard_index.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "graph_validator.h"

namespace graphlens {
namespace {

constexpr uint32_t kNoWriter = UINT32_MAX;

constexpr uint32_t kNoReaders = UINT32_MAX;

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
SegmentMap::iterator cut(SegmentMap& map, SegmentMap::iterator at, uint64_t pos) {
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
SegmentMap::iterator cover(SegmentMap& map, uint64_t begin, uint64_t end) {
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
void record_write(SegmentMap& map, uint64_t begin, uint64_t end, uint32_t self) {
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
        if (tree_) return {graphlens::cover(*tree_, begin, end), true};
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
            return {graphlens::cover(*tree_, begin, end), true};
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

/// A piece of a hazard of the node being indexed (its later end) on the allocation being
/// walked: who, which bytes, which kind. Sorted by (earlier, kind, begin) as one 128-bit key.
struct Piece {
    uint64_t earlier_and_kind = 0;  ///< earlier << 2 | kind
    uint64_t begin = 0;
    uint64_t end = 0;

    unsigned __int128 key() const {
        return static_cast<unsigned __int128>(earlier_and_kind) << 64 | begin;
    }
};

/// The pieces of one node's hazards on one allocation as they are found, segment by segment,
/// appended to a list of the window's pieces (`out`), where finish() makes them that node's
/// hazards on the allocation in place. A piece that continues the latest piece of the same
/// earlier node and kind (the next segment of one range: the common case) extends it instead,
/// which leaves less to sort; the sort and merge give the same hazards either way.
class PieceList {
  public:
    explicit PieceList(std::vector<Piece>& out) : out_(&out) {}
    /// After `out` was cleared.
    void restart() { first_ = 0; }

    void add(HazardKind kind, uint32_t earlier, uint64_t begin, uint64_t end) {
        const uint64_t key = uint64_t{earlier} << 2 | static_cast<uint64_t>(kind);
        uint32_t& slot = latest_[(earlier * 4 + static_cast<uint32_t>(kind)) % kSlots];
        if (slot >= first_ && slot < out_->size()) {
            Piece& p = (*out_)[slot];
            if (p.earlier_and_kind == key && p.begin <= begin && begin <= p.end) {
                p.end = std::max(p.end, end);
                return;
            }
        }
        slot = static_cast<uint32_t>(out_->size());
        out_->push_back({key, begin, end});
    }
    /// Sorts the pieces added since the last call by (earlier, kind, begin) and merges
    /// adjacent or overlapping pieces of one (earlier, kind), in place; returns where they
    /// begin in `out` (they end at its end).
    size_t finish() {
        const size_t first = first_;
        first_ = out_->size();
        const auto begin = out_->begin() + static_cast<ptrdiff_t>(first);
        const size_t count = out_->size() - first;
        if (count <= 1) return first;
        std::sort(begin, out_->end(),
                  [](const Piece& a, const Piece& b) { return a.key() < b.key(); });
        size_t merged = 1;
        for (size_t k = 1; k < count; ++k) {
            const Piece& p = begin[static_cast<ptrdiff_t>(k)];
            Piece& last = begin[static_cast<ptrdiff_t>(merged - 1)];
            if (last.earlier_and_kind == p.earlier_and_kind && p.begin <= last.end)
                last.end = std::max(last.end, p.end);
            else
                begin[static_cast<ptrdiff_t>(merged++)] = p;
        }
        out_->resize(first + merged);
        first_ = out_->size();
        return first;
    }

  private:
    static constexpr uint32_t kSlots = 16;
    std::vector<Piece>* out_;
    size_t first_ = 0;  ///< the first piece of the node and allocation being walked
    std::array<uint32_t, kSlots> latest_{};  ///< index of a recent piece by earlier and kind
};

/// An access of a node to an allocation, as the index walks them: found in node order, then
/// taken allocation by allocation.
struct Access {
    uint64_t begin = 0;
    uint64_t end = 0;
    uint32_t node = 0;
    AllocationId allocation = 0;
    bool write = false;
};

/// Nodes the index walks at a time, allocation by allocation (see the constructor): at 100k
/// random dispatches (6,250 allocations) a window's accesses touch a store about seven times,
/// and what a window lists (3.5 MB) is walked into graph order while much of it is still in
/// the second-level cache. 4,096 was 8 % slower on the index alone, 32,768 the same.
constexpr size_t kWindowNodes = 16384;
/// Graphs with at least this many allocations are walked in windows. A transformer's or a
/// real capture's few allocations (the synthetic transformer has 7) took 45 % longer in windows
/// (the accesses gathered in a walk of their own, whose misses on the nodes' ranges nothing
/// else overlaps, and their hazards put back in graph order) and their stores stay in cache
/// in graph order; the random graphs (62 allocations at 1k dispatches, 625 at 10k) ran the
/// same or faster in windows.
constexpr size_t kWindowedAllocations = 32;

/// A run of one node's hazards on one allocation in WindowScratch::staged.
struct StagedRun {
    uint32_t node = 0;
    AllocationId allocation = 0;
    uint32_t first = 0;
    uint32_t count = 0;
};

/// The index's working lists for one window of nodes, kept by the thread for the next index
/// (SpareLists; a few MB at 100k random dispatches, whose pages were faulted in again at every
/// index as new memory).
struct WindowScratch {
    std::vector<Access> found;            ///< the window's accesses in node order
    std::vector<Access> by_allocation;    ///< the same, by allocation, each in node order
    std::vector<size_t> bucket;           ///< [a] = first of allocation a in by_allocation
    std::vector<Piece> staged;            ///< the window's hazards, by allocation, then node
    std::vector<StagedRun> runs;          ///< their runs of one node and allocation, in order
    std::vector<StagedRun> runs_by_node;  ///< the same by node, each node's in allocation order
    /// [node - w0 + 1]: the node's runs; summed, [node - w0]: where its runs begin in
    /// runs_by_node, and once they are placed, where they end.
    std::vector<uint32_t> node_runs;
};

/// How many runs ahead the merge of a window's runs into graph order asks for their hazards.
constexpr size_t kRunsAhead = 16;

/// The hazard a staged piece of `run` stands for.
Hazard hazard_of(const Piece& p, const StagedRun& run) {
    return {static_cast<HazardKind>(p.earlier_and_kind & 3),
            static_cast<uint32_t>(p.earlier_and_kind >> 2),
            run.node,
            {run.allocation, p.begin, p.end}};
}

/// Writes the hazards of one node's runs (each sorted by earlier, kind and begin, one an
/// allocation, in allocation order) at `out`, sorted by (earlier, allocation, kind, begin):
/// by earlier, the first run first among equals; their ends at `pairs`.
void merge_runs(std::span<StagedRun> runs, const std::vector<Piece>& staged, Hazard* out,
                HazardPair* pairs) {
    for (;;) {
        StagedRun* best = nullptr;
        for (StagedRun& run : runs)
            if (run.count > 0 && (!best || staged[run.first].earlier_and_kind >> 2 <
                                               staged[best->first].earlier_and_kind >> 2))
                best = &run;
        if (!best) return;
        *out = hazard_of(staged[best->first++], *best);
        *pairs++ = {out->earlier, out->later};
        ++out;
        --best->count;
    }
}

/// The lists of an index destroyed on this thread, kept for the next one (cleared, with
/// their capacity): a list of tens of MB is new memory otherwise, faulted in page by page,
/// and the hazard list grows by reallocation at least once more in a graph whose hazards per
/// dispatch rise as its allocations fill up.
struct SpareLists {
    WindowScratch scratch;
    std::vector<Hazard> hazards;
    std::vector<HazardPair> pairs;
    std::vector<size_t> into_begin;
    std::vector<uint32_t> out_order;
    std::vector<size_t> out_begin;
};

/// Set when this thread's SpareLists is gone (at thread exit; an index with static storage
/// is destroyed after it): then nothing is kept.
thread_local bool spare_lists_gone = false;

struct SpareListsOwner {
    SpareLists lists;
    ~SpareListsOwner() { spare_lists_gone = true; }
};

SpareLists* spare_lists() {
    if (spare_lists_gone) return nullptr;
    thread_local SpareListsOwner spare;
    return &spare.lists;
}

/// Moves `list` into `kept` when it has more room; takes: the reverse, cleared.
template <typename T>
void keep_larger(std::vector<T>& kept, std::vector<T>& list) {
    if (list.capacity() > kept.capacity()) kept = std::move(list);
}
template <typename T>
void take(std::vector<T>& list, std::vector<T>& kept) {
    if (kept.capacity() > list.capacity()) {
        list = std::move(kept);
        kept = {};
    }
    list.clear();
}

}  // namespace

HazardIndex::~HazardIndex() {
    SpareLists* kept = spare_lists();
    if (!kept) return;
    SpareLists& spare = *kept;
    keep_larger(spare.hazards, hazards_);
    keep_larger(spare.pairs, pairs_);
    keep_larger(spare.into_begin, into_begin_);
    keep_larger(spare.out_order, out_order_);
    keep_larger(spare.out_begin, out_begin_);
}

HazardIndex::HazardIndex(const ComputeGraph& graph) : HazardIndex(graph, nullptr) {}

HazardIndex::HazardIndex(const ComputeGraph& graph, detail::GraphValidator* validator) {
    const size_t n = graph.nodes.size();
    if (SpareLists* spare = spare_lists()) {
        take(hazards_, spare->hazards);
        take(pairs_, spare->pairs);
        take(into_begin_, spare->into_begin);
        take(out_order_, spare->out_order);
        take(out_begin_, spare->out_begin);
    }
    StorePools pool;  // before the stores: their trees give their nodes back to it
    std::vector<AllocationSegments> stores(graph.allocations.size());
    ReaderLists reader_lists;
    into_begin_.assign(n + 1, 0);
    WindowScratch scratch;
    if (SpareLists* spare = spare_lists()) std::swap(scratch, spare->scratch);
    // Named references, not a structured binding: clang 14 does not let the lambdas below
    // capture a binding.
    std::vector<Access>& found = scratch.found;
    std::vector<Access>& by_allocation = scratch.by_allocation;
    std::vector<size_t>& bucket = scratch.bucket;
    std::vector<Piece>& staged = scratch.staged;
    std::vector<StagedRun>& runs = scratch.runs;
    std::vector<StagedRun>& runs_by_node = scratch.runs_by_node;
    std::vector<uint32_t>& node_runs = scratch.node_runs;
    PieceList pieces(staged);
    // Appends one node's runs (one an allocation, in allocation order, each sorted by
    // earlier, kind and begin) to the lists, merged by earlier, the first run first among
    // equals: the order of one node's hazards (earlier, allocation, kind, begin).
    auto append_runs = [&](std::span<StagedRun> node_runs_of, const std::vector<Piece>& pieces_of) {
        if (node_runs_of.size() == 1) {
            const StagedRun& run = node_runs_of[0];
            for (size_t k = run.first; k < run.first + run.count; ++k) {
                hazards_.push_back(hazard_of(pieces_of[k], run));
                pairs_.push_back({hazards_.back().earlier, run.node});
            }
        } else if (node_runs_of.size() > 1) {
            size_t count = 0;
            for (const StagedRun& run : node_runs_of) count += run.count;
            const size_t at = hazards_.size();
            hazards_.resize(at + count);
            pairs_.resize(at + count);
            merge_runs(node_runs_of, pieces_of, &hazards_[at], &pairs_[at]);
        }
    };
    // Room in the lists: growing them by doubling moved them again and again (32 bytes a
    // hazard). Node by node: at a 64th (of a large graph) and again at an 8th, when the list
    // has no room for all at the rate so far and a quarter, then an eighth; at the 8th room for
    // four times that rate: in a graph whose allocations fill up as it goes the rate rises (the
    // 100k random graph lists 3.1 times its first eighth's rate), and room never written is
    // address space, not memory. In windows: after each, room for the window's hazards, and
    // for the rest at the rate so far and a quarter.
    auto grow_lists = [&](size_t done, size_t more) {
        size_t room = 0;
        if (more > 0) {
            const size_t after = hazards_.size() + more;
            if (after > hazards_.capacity())
                room = done < n ? after * n / done * 5 / 4 + 1024 : after;
        } else if (n >= 512 && done > 0 && ((n >= 4096 && done == n / 64) || done == n / 8)) {
            const bool first = done == n / 64;
            const size_t at_rate = hazards_.size() * n / done;
            const size_t needed = at_rate * (first ? 10 : 9) / 8 + 1024;
            if (needed > hazards_.capacity()) room = first ? needed : 4 * at_rate + 1024;
        }
        if (room > 0) {
            hazards_.reserve(room);
            pairs_.reserve(room);
        }
    };
    // The accesses [first, last) of node `self` to one allocation, its reads first: its
    // hazards on the allocation appended to `staged` as one run (sorted by earlier, kind and
    // begin), then its writes recorded. The hazards of a node on one allocation depend only on
    // that allocation's accesses before it, so the allocations of a node may be walked in any
    // order, and the nodes of an allocation need only be walked in graph order.
    auto walk = [&](AllocationSegments& store, AllocationId allocation, uint32_t self,
                    const Access* first, const Access* last) -> bool {
        // Each read in one walk: its RAW hazards (the writers, which no read changes) and this
        // node recorded as a reader of its bytes.
        const Access* writes = first;
        for (; writes != last && !writes->write; ++writes) {
            const Access& r = *writes;
            store.for_each(store.cover(pool, r.begin, r.end), r.begin, r.end,
                           [&](uint64_t b, uint64_t e, SegmentState& s) {
                               if (s.writer != kNoWriter)
                                   pieces.add(HazardKind::raw, s.writer, std::max(b, r.begin),
                                              std::min(e, r.end));
                               s.read_by(self, reader_lists);
                           });
        }
        // The writes' WAR / WAW hazards against the state before this node: the readers since
        // the last write, but for this node itself (recorded just above, always the last).
        for (const Access* w = writes; w != last; ++w) {
            // Read only: cutting the segments at the write's ends (and filling its gaps, which
            // hold no accesses) would only be undone by the write below.
            store.for_each_overlapping(
                w->begin, w->end, [&](uint64_t b, uint64_t e, const SegmentState& s) {
                    const uint64_t begin = std::max(b, w->begin), end = std::min(e, w->end);
                    const bool read_since = s.for_each_reader_but(
                        self, reader_lists,
                        [&](uint32_t reader) { pieces.add(HazardKind::war, reader, begin, end); });
                    if (!read_since && s.writer != kNoWriter)
                        pieces.add(HazardKind::waw, s.writer, begin, end);
                });
        }
        const size_t run_first = pieces.finish();
        const bool listed = staged.size() > run_first;
        if (listed)
            runs.push_back({self, allocation, static_cast<uint32_t>(run_first),
                            static_cast<uint32_t>(staged.size() - run_first)});
        // Then the writes: a read-write binding leaves the bytes written by this node with no
        // reader since.
        for (const Access* w = writes; w != last; ++w) store.write(pool, w->begin, w->end, self);
        return listed;
    };
    // The accesses of a node that are not empty, reads first, each with its allocation (whose
    // store exists then).
    auto accesses_of = [&](const Node& node, uint32_t self, std::vector<Access>& out) {
        for (const ByteRange& r : node.reads)
            if (!r.empty()) out.push_back({r.begin, r.end, self, r.allocation, false});
        for (const ByteRange& w : node.writes)
            if (!w.empty()) out.push_back({w.begin, w.end, self, w.allocation, true});
    };
    // The ranges of the nodes ahead, which at 100k nodes are no longer in cache: their lists'
    // blocks kPrefetchAhead nodes ahead, their items half as far (compute_graph.h); the
    // bindings, which only the validator reads, likewise.
    auto prefetch_ahead = [&](size_t i) {
        if (i + kPrefetchAhead < n) {
            graph.nodes[i + kPrefetchAhead].reads.prefetch();
            graph.nodes[i + kPrefetchAhead].writes.prefetch();
            if (validator) detail::GraphValidator::prefetch_far(graph.nodes[i + kPrefetchAhead]);
        }
        if (i + kPrefetchAhead / 2 < n) {
            prefetch_ranges(graph.nodes[i + kPrefetchAhead / 2]);
            if (validator)
                detail::GraphValidator::prefetch_near(graph.nodes[i + kPrefetchAhead / 2]);
        }
    };
    if (graph.allocations.size() < kWindowedAllocations) {
        // Node by node: a node's accesses grouped by allocation (a stable sort of a few), each
        // group walked, the node's runs merged into the lists.
        for (size_t i = 0; i < n; ++i) {
            prefetch_ahead(i);
            if (validator) validator->node(i);
            into_begin_[i] = hazards_.size();
            grow_lists(i, 0);
            const Node& node = graph.nodes[i];
            if (!node.is_dispatch()) continue;
            const auto self = static_cast<uint32_t>(i);
            found.clear();
            accesses_of(node, self, found);
            // Insertion sort by allocation, stable: a node's reads stay before its writes.
            for (size_t k = 1; k < found.size(); ++k)
                for (size_t j = k; j > 0 && found[j - 1].allocation > found[j].allocation; --j)
                    std::swap(found[j - 1], found[j]);
            staged.clear();
            pieces.restart();
            runs.clear();
            for (size_t k = 0; k < found.size();) {
                size_t last = k + 1;
                while (last < found.size() && found[last].allocation == found[k].allocation) ++last;
                const AllocationId a = found[k].allocation;
                if (a >= stores.size()) stores.resize(size_t{a} + 1);
                walk(stores[a], a, self, found.data() + k, found.data() + last);
                k = last;
            }
            append_runs(runs, staged);
        }
    } else {
        for (size_t w0 = 0, w1 = 0; w0 < n; w0 = w1) {
            w1 = std::min(n, w0 + kWindowNodes);
            // 1. The window's accesses, node by node (and the validator's checks).
            found.clear();
            for (size_t i = w0; i < w1; ++i) {
                prefetch_ahead(i);
                if (validator) validator->node(i);
                const Node& node = graph.nodes[i];
                if (node.is_dispatch()) accesses_of(node, static_cast<uint32_t>(i), found);
            }
            size_t allocations = stores.size();
            for (const Access& a : found)
                allocations = std::max(allocations, size_t{a.allocation} + 1);
            if (allocations > stores.size()) stores.resize(allocations);
            bucket.assign(allocations + 1, 0);
            for (const Access& a : found) ++bucket[a.allocation + 1];
            for (size_t a = 0; a < allocations; ++a) bucket[a + 1] += bucket[a];
            by_allocation.resize(found.size());
            // bucket[a] moves on to the end of allocation a's accesses, then back.
            for (const Access& a : found) by_allocation[bucket[a.allocation]++] = a;
            for (size_t a = allocations; a > 0; --a) bucket[a] = bucket[a - 1];
            bucket[0] = 0;
            // 2. Allocation by allocation: its store stays in cache for all its accesses of
            // the window.
            staged.clear();
            pieces.restart();
            runs.clear();
            node_runs.assign(w1 - w0 + 1, 0);
            for (size_t a = 0; a < allocations; ++a) {
                for (size_t k = bucket[a]; k < bucket[a + 1];) {
                    const uint32_t self = by_allocation[k].node;
                    size_t last = k + 1;
                    while (last < bucket[a + 1] && by_allocation[last].node == self) ++last;
                    if (walk(stores[a], static_cast<AllocationId>(a), self, &by_allocation[k],
                             by_allocation.data() + last))
                        ++node_runs[self - w0 + 1];
                    k = last;
                }
            }
            // 3. The window's hazards in graph order, node by node: its runs (one an
            // allocation, in allocation order) merged (append_runs).
            grow_lists(w1, staged.size());
            for (size_t i = 0; i < w1 - w0; ++i) node_runs[i + 1] += node_runs[i];
            runs_by_node.resize(runs.size());
            for (const StagedRun& run : runs) runs_by_node[node_runs[run.node - w0]++] = run;
            // node_runs[i] is now the end of node w0 + i's runs.
            size_t next_run = 0;
            for (size_t i = w0; i < w1; ++i) {
                into_begin_[i] = hazards_.size();
                const size_t runs_end = node_runs[i - w0];
                // The runs lie where their allocations' walks put them, which at 100k random
                // dispatches is no longer in the first-level caches.
                for (size_t ahead = next_run + kRunsAhead;
                     ahead < runs_end + kRunsAhead && ahead < runs_by_node.size(); ++ahead) {
                    const StagedRun& run = runs_by_node[ahead];
                    graphlens::prefetch(&staged[run.first]);
                    graphlens::prefetch(&staged[run.first + run.count - 1]);
                }
                append_runs(std::span(runs_by_node).subspan(next_run, runs_end - next_run), staged);
                next_run = runs_end;
            }
        }
    }
    into_begin_[n] = hazards_.size();

    // The out-lists, a counting sort of the hazards by earlier end. The counters are 32-bit
    // (out_order_'s positions are): half the table that both passes update at random, in the
    // scratch's node_runs (kept by the thread).
    out_order_.resize(hazards_.size());
    std::vector<uint32_t>& fill = node_runs;
    fill.assign(n + 1, 0);
    for (const HazardPair& h : pairs_) ++fill[h.earlier + 1];
    out_begin_.resize(n + 1);
    out_begin_[0] = 0;
    for (size_t i = 0; i < n; ++i) {
        fill[i + 1] += fill[i];
        out_begin_[i + 1] = fill[i + 1];
    }
    // hazards_ is sorted by later, so each node's out-list comes out sorted by later. From the
    // 8-byte ends, not the hazards; fill[node] moves on to the end of node's list.
    for (size_t k = 0; k < pairs_.size(); ++k)
        out_order_[fill[pairs_[k].earlier]++] = static_cast<uint32_t>(k);
    if (SpareLists* spare = spare_lists()) std::swap(scratch, spare->scratch);
}

std::span<const Hazard> HazardIndex::into(size_t node) const {
    if (node + 1 >= into_begin_.size()) return {};
    return std::span<const Hazard>(hazards_).subspan(into_begin_[node],
                                                     into_begin_[node + 1] - into_begin_[node]);
}

std::span<const HazardPair> HazardIndex::pairs_into(size_t node) const {
    if (node + 1 >= into_begin_.size()) return {};
    return std::span<const HazardPair>(pairs_).subspan(into_begin_[node],
                                                       into_begin_[node + 1] - into_begin_[node]);
}

std::span<const uint32_t> HazardIndex::out_indices(size_t node) const {
    if (node + 1 >= out_begin_.size()) return {};
    return std::span<const uint32_t>(out_order_)
        .subspan(out_begin_[node], out_begin_[node + 1] - out_begin_[node]);
}

void HazardIndex::prefetch_out_list(size_t node) const {
    if (node + 1 < out_begin_.size() && out_begin_[node] < out_order_.size())
        prefetch(&out_order_[out_begin_[node]]);
}

void HazardIndex::prefetch_out_hazards(size_t node) const {
    const auto list = out_indices(node);
    for (size_t k = 0; k < list.size() && k < 2; ++k) prefetch(&hazards_[list[k]]);
}

std::vector<Hazard> HazardIndex::between(size_t a, size_t b) const {
    if (a > b) std::swap(a, b);
    std::vector<Hazard> out;
    const auto in = into(b);
    auto it = std::lower_bound(in.begin(), in.end(), a,
                               [](const Hazard& h, size_t e) { return h.earlier < e; });
    for (; it != in.end() && it->earlier == a; ++it) out.push_back(*it);
    return out;
}

std::vector<Hazard> brute_force_hazards(const ComputeGraph& graph) {
    std::vector<Hazard> out;
    const auto& nodes = graph.nodes;
    for (size_t l = 0; l < nodes.size(); ++l) {
        if (!nodes[l].is_dispatch()) continue;
        for (size_t e = 0; e < l; ++e) {
            if (!nodes[e].is_dispatch()) continue;
            auto add = [&](HazardKind kind, const std::vector<ByteRange>& a,
                           const std::vector<ByteRange>& b) {
                for (const auto& x : a)
                    for (const auto& y : b)
                        if (x.overlaps(y)) out.push_back({kind, e, l, x.intersect(y)});
            };
            add(HazardKind::raw, nodes[e].writes, nodes[l].reads);
            add(HazardKind::war, nodes[e].reads, nodes[l].writes);
            add(HazardKind::waw, nodes[e].writes, nodes[l].writes);
        }
    }
    return out;
}

}  // namespace graphlens
