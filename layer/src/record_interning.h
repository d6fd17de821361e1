#pragma once
// One stored copy per distinct content of what the layer records while a range is open: a
// program records the same bindings, push constants and barrier scopes at every step, and
// the memory a recording touches for the first time is what it pays most for (record_storage.h).
// Arrays are copied into a RecordArena once per content and handed out as the same span
// after that, so records that hold such spans are equal exactly when their spans are the
// same (data and size), which their own interning then compares.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "layer/src/record_storage.h"

namespace graphlens::layer {

/// A 64-bit hash of a sequence of values, fed one at a time.
class ContentHash {
  public:
    void add(uint64_t v) {
        h_ = (h_ ^ v) * 0x9E3779B97F4A7C15ull;
        h_ ^= h_ >> 29;
    }
    void add_bytes(const uint8_t* bytes, size_t n) {
        add(n);
        for (; n >= 8; bytes += 8, n -= 8) {
            uint64_t word;
            std::memcpy(&word, bytes, 8);
            add(word);
        }
        uint64_t tail = 0;
        std::memcpy(&tail, bytes, n);
        add(tail);
    }
    template <class T>
    void add_span(std::span<const T> s) {
        add(reinterpret_cast<uintptr_t>(s.data()));
        add(s.size());
    }
    uint64_t value() const { return h_; }

  private:
    uint64_t h_ = 0x243F6A8885A308D3ull;
};

/// Feeds a T's fields into a hash: `static void add(ContentHash&, const T&)` in a
/// specialisation for each type interned, over every field its operator== compares.
template <class T>
struct ContentHashing;

/// An open-addressing table from a content hash to the index of a value stored with it;
/// values of one hash but unequal contents each have their own entry.
class InternTable {
  public:
    /// The index of a stored value for which `equal(index)` holds among those stored with
    /// `hash`, else the index `add()` stores the new value at.
    template <class Equal, class Add>
    uint32_t find_or_add(uint64_t hash, Equal equal, Add add) {
        if ((count_ + 1) * 2 > slots_.size()) grow();
        const size_t mask = slots_.size() - 1;
        for (size_t i = hash & mask;; i = (i + 1) & mask) {
            Slot& s = slots_[i];
            if (s.index == kEmpty) {
                s = {hash, add()};
                ++count_;
                return s.index;
            }
            if (s.hash == hash && equal(s.index)) return s.index;
        }
    }

  private:
    static constexpr uint32_t kEmpty = UINT32_MAX;
    struct Slot {
        uint64_t hash = 0;
        uint32_t index = kEmpty;
    };
    void grow() {
        std::vector<Slot> old = std::move(slots_);
        slots_.assign(std::max<size_t>(64, old.size() * 2), Slot{});
        const size_t mask = slots_.size() - 1;
        for (const Slot& s : old) {
            if (s.index == kEmpty) continue;
            size_t i = s.hash & mask;
            while (slots_[i].index != kEmpty) i = (i + 1) & mask;
            slots_[i] = s;
        }
    }
    std::vector<Slot> slots_;
    size_t count_ = 0;
};

/// Arrays of T copied into an arena once per content (ContentHashing<T> hashes an element).
template <class T>
class InternedArrays {
  public:
    explicit InternedArrays(RecordArena& arena) : arena_(arena) {}

    std::span<const T> intern(std::span<const T> items) {
        if (items.empty()) return {};
        ContentHash h;
        if constexpr (std::is_same_v<T, uint8_t>) {
            h.add_bytes(items.data(), items.size());
        } else {
            h.add(items.size());
            for (const T& item : items) ContentHashing<T>::add(h, item);
        }
        const uint32_t index = table_.find_or_add(
            h.value(),
            [&](uint32_t i) {
                return std::equal(items.begin(), items.end(), copies_[i].begin(), copies_[i].end());
            },
            [&] {
                copies_.push_back(arena_.copy(items));
                return static_cast<uint32_t>(copies_.size() - 1);
            });
        return copies_[index];
    }

  private:
    RecordArena& arena_;
    std::vector<std::span<const T>> copies_;
    InternTable table_;
};

/// Values of T stored once per content, by number (ContentHashing<T> hashes one).
template <class T>
class InternedValues {
  public:
    uint32_t intern(const T& value) {
        ContentHash h;
        ContentHashing<T>::add(h, value);
        return table_.find_or_add(
            h.value(), [&](uint32_t i) { return values_[i] == value; },
            [&] {
                values_.push_back(value);
                return static_cast<uint32_t>(values_.size() - 1);
            });
    }
    const T& operator[](uint32_t i) const { return values_[i]; }
    size_t size() const { return values_.size(); }

  private:
    std::vector<T> values_;
    InternTable table_;
};

}  // namespace graphlens::layer
