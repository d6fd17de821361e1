#pragma once
// SharedVector<T>: a std::vector<T> shared between copies until one of them changes it
// (copy-on-write). The variable-length payloads of a graph Node are SharedVectors, so copying a
// Node (every pass does, every pipeline stage keeps a graph) costs a few reference-count
// increments instead of one heap block per payload.
//
// Reads look like a const std::vector<T>: size(), empty(), operator[], begin()/end(), data(),
// front()/back(), comparison with a std::vector, and an implicit conversion to
// const std::vector<T>& for functions that take one. Writes look like std::vector too
// (push_back, insert, resize, assign, clear, erase, non-const operator[] and iterators): each
// first makes this copy's payload its own when it is shared, so other copies never see a change.
// Note: non-const begin()/end()/operator[] count as writes, so iterate through a const
// reference where no write is meant; it keeps the payload shared.
//
// The count is atomic: copies may live in, and be copied or destroyed by, different threads.
// One object itself is not safe to write from two threads at once (like std::vector).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <utility>
#include <vector>

#include "graphlens/graph/prefetch.h"

namespace graphlens {

template <typename T>
class SharedVector {
  public:
    using value_type = T;
    using size_type = std::size_t;
    using difference_type = std::ptrdiff_t;
    using reference = T&;
    using const_reference = const T&;
    using pointer = T*;
    using const_pointer = const T*;
    using iterator = T*;
    using const_iterator = const T*;

    SharedVector() noexcept = default;
    SharedVector(const std::vector<T>& items) { adopt(std::vector<T>(items)); }
    SharedVector(std::vector<T>&& items) { adopt(std::move(items)); }
    SharedVector(std::initializer_list<T> items) { adopt(std::vector<T>(items)); }
    template <std::input_iterator It>
    SharedVector(It first, It last) {
        adopt(std::vector<T>(first, last));
    }
    SharedVector(const SharedVector& other) noexcept : rep_(other.rep_) { retain(); }
    SharedVector(SharedVector&& other) noexcept : rep_(std::exchange(other.rep_, nullptr)) {}
    ~SharedVector() { release(); }

    SharedVector& operator=(const SharedVector& other) noexcept {
        if (rep_ != other.rep_) {
            SharedVector copy(other);
            swap(copy);
        }
        return *this;
    }
    SharedVector& operator=(SharedVector&& other) noexcept {
        SharedVector moved(std::move(other));
        swap(moved);
        return *this;
    }
    SharedVector& operator=(const std::vector<T>& items) { return *this = SharedVector(items); }
    SharedVector& operator=(std::vector<T>&& items) {
        return *this = SharedVector(std::move(items));
    }
    SharedVector& operator=(std::initializer_list<T> items) { return *this = SharedVector(items); }

    // --- reading ---
    size_type size() const noexcept { return rep_ ? rep_->items.size() : 0; }
    bool empty() const noexcept { return size() == 0; }
    const T* data() const noexcept { return rep_ ? rep_->items.data() : nullptr; }
    const T* begin() const noexcept { return data(); }
    const T* end() const noexcept { return data() + size(); }
    const T* cbegin() const noexcept { return begin(); }
    const T* cend() const noexcept { return end(); }
    const T& operator[](size_type i) const { return rep_->items[i]; }
    const T& at(size_type i) const { return vector().at(i); }
    const T& front() const { return rep_->items.front(); }
    const T& back() const { return rep_->items.back(); }
    /// The items as a std::vector (an empty one when there are none).
    const std::vector<T>& vector() const noexcept { return rep_ ? rep_->items : empty_vector(); }
    operator const std::vector<T>&() const noexcept { return vector(); }
    /// True when this and `other` share one payload (copies that nobody changed since).
    bool shares_with(const SharedVector& other) const noexcept { return rep_ == other.rep_; }
    /// The payload's identity, without counting a reference: equal for copies that share one
    /// (shares_with), nullptr when there are no items. Only for comparing while some copy is
    /// alive; never dereferenced.
    const void* payload_id() const noexcept { return rep_; }
    /// Cache hints for walks over many nodes, whose payloads are cold at 100k dispatches: ask
    /// for the shared block now (prefetch), and a few steps later for the items
    /// (prefetch_items: reads the block, so only once prefetch() had time to bring it in).
    void prefetch() const noexcept {
        if (rep_) graphlens::prefetch(rep_);
    }
    void prefetch_items() const noexcept {
        if (rep_) graphlens::prefetch(rep_->items.data());
    }

    // --- writing: each makes the payload this copy's own first ---
    /// The items as a std::vector this copy alone owns.
    std::vector<T>& edit() {
        if (!rep_) {
            rep_ = new Rep{};
        } else if (rep_->refs.load(std::memory_order_acquire) != 1) {
            Rep* own = new Rep{{1}, rep_->items};
            release();
            rep_ = own;
        }
        return rep_->items;
    }
    T* data() { return rep_ ? edit().data() : nullptr; }
    T* begin() { return data(); }
    T* end() { return data() + size(); }
    T& operator[](size_type i) { return edit()[i]; }
    T& at(size_type i) { return edit().at(i); }
    T& front() { return edit().front(); }
    T& back() { return edit().back(); }

    void push_back(const T& item) { edit().push_back(item); }
    void push_back(T&& item) { edit().push_back(std::move(item)); }
    template <typename... Args>
    T& emplace_back(Args&&... args) {
        return edit().emplace_back(std::forward<Args>(args)...);
    }
    void pop_back() { edit().pop_back(); }
    T* insert(const T* pos, const T& item) {
        const auto at = offset(pos);
        auto& v = edit();
        return v.data() + (v.insert(v.begin() + at, item) - v.begin());
    }
    T* insert(const T* pos, T&& item) {
        const auto at = offset(pos);
        auto& v = edit();
        return v.data() + (v.insert(v.begin() + at, std::move(item)) - v.begin());
    }
    template <std::input_iterator It>
    T* insert(const T* pos, It first, It last) {
        const auto at = offset(pos);
        auto& v = edit();
        return v.data() + (v.insert(v.begin() + at, first, last) - v.begin());
    }
    T* insert(const T* pos, std::initializer_list<T> items) {
        return insert(pos, items.begin(), items.end());
    }
    T* erase(const T* pos) { return erase(pos, pos + 1); }
    T* erase(const T* first, const T* last) {
        const auto at = offset(first);
        const auto count = last - first;
        auto& v = edit();
        return v.data() + (v.erase(v.begin() + at, v.begin() + at + count) - v.begin());
    }
    void resize(size_type n) { edit().resize(n); }
    void resize(size_type n, const T& value) { edit().resize(n, value); }
    void reserve(size_type n) { edit().reserve(n); }
    void assign(size_type n, const T& value) { edit().assign(n, value); }
    template <std::input_iterator It>
    void assign(It first, It last) {
        edit().assign(first, last);
    }
    void assign(std::initializer_list<T> items) { edit().assign(items); }
    /// Drops this copy's reference; other copies keep their items.
    void clear() noexcept {
        release();
        rep_ = nullptr;
    }
    void swap(SharedVector& other) noexcept { std::swap(rep_, other.rep_); }

    friend bool operator==(const SharedVector& a, const SharedVector& b) {
        return a.rep_ == b.rep_ || a.vector() == b.vector();
    }
    friend bool operator==(const SharedVector& a, const std::vector<T>& b) {
        return a.vector() == b;
    }

  private:
    struct Rep {
        std::atomic<uint32_t> refs{1};
        std::vector<T> items;
    };

    static const std::vector<T>& empty_vector() noexcept {
        static const std::vector<T> none;
        return none;
    }
    void adopt(std::vector<T>&& items) {
        if (!items.empty()) rep_ = new Rep{{1}, std::move(items)};
    }
    void retain() noexcept {
        if (rep_) rep_->refs.fetch_add(1, std::memory_order_relaxed);
    }
    void release() noexcept {
        if (rep_ && rep_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete rep_;
    }
    std::ptrdiff_t offset(const T* pos) const noexcept { return pos - data(); }

    Rep* rep_ = nullptr;
};

}  // namespace graphlens
