#pragma once
// SharedString: a std::string shared between copies until one of them changes it
// (copy-on-write), for Node::label: copying a Node then costs a reference-count increment
// instead of a heap block for every label longer than the small-string buffer.
//
// It reads like a const std::string: empty(), size(), c_str(), data(), operator[], find,
// rfind, substr, starts_with, ..., comparisons and + with strings and string literals,
// fmt formatting, streaming, std::hash, and an implicit conversion to const std::string& and
// to std::string_view for functions that take those. It is assigned from a std::string, a
// string_view or a literal. Writes (+=, append, push_back, clear, edit()) first make the text
// this copy's own. Construction from a std::string is explicit so that `c ? str : label`
// stays a std::string (two-way conversions would make that ambiguous).
//
// The count is atomic (copies may live in different threads); one object is not safe to
// write from two threads at once.
#include <fmt/format.h>  // formatter<string_view>::format is defined here

#include <atomic>
#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include "graphlens/graph/prefetch.h"

namespace graphlens {

class SharedString;

/// Types a SharedString compares with and concatenates: anything that is a string_view.
template <typename S>
concept StringLike = std::convertible_to<const S&, std::string_view> &&
    !std::same_as<std::remove_cvref_t<S>, SharedString>;

class SharedString {
  public:
    using value_type = char;
    using size_type = std::size_t;
    static constexpr size_type npos = std::string::npos;

    SharedString() noexcept = default;
    SharedString(const char* text) { adopt(std::string(text)); }
    explicit SharedString(const std::string& text) { adopt(std::string(text)); }
    explicit SharedString(std::string&& text) { adopt(std::move(text)); }
    explicit SharedString(std::string_view text) { adopt(std::string(text)); }
    SharedString(const SharedString& other) noexcept : rep_(other.rep_) { retain(); }
    SharedString(SharedString&& other) noexcept : rep_(std::exchange(other.rep_, nullptr)) {}
    ~SharedString() { release(); }

    SharedString& operator=(const SharedString& other) noexcept {
        if (rep_ != other.rep_) {
            SharedString copy(other);
            swap(copy);
        }
        return *this;
    }
    SharedString& operator=(SharedString&& other) noexcept {
        SharedString moved(std::move(other));
        swap(moved);
        return *this;
    }
    SharedString& operator=(const std::string& text) { return *this = SharedString(text); }
    SharedString& operator=(std::string&& text) { return *this = SharedString(std::move(text)); }
    SharedString& operator=(std::string_view text) { return *this = SharedString(text); }
    SharedString& operator=(const char* text) { return *this = SharedString(text); }

    // --- reading ---
    const std::string& str() const noexcept { return rep_ ? rep_->text : empty_string(); }
    operator const std::string&() const noexcept { return str(); }
    operator std::string_view() const noexcept { return str(); }
    size_type size() const noexcept { return str().size(); }
    size_type length() const noexcept { return size(); }
    bool empty() const noexcept { return size() == 0; }
    const char* c_str() const noexcept { return str().c_str(); }
    const char* data() const noexcept { return str().data(); }
    const char* begin() const noexcept { return data(); }
    const char* end() const noexcept { return data() + size(); }
    const char& operator[](size_type i) const { return str()[i]; }
    const char& at(size_type i) const { return str().at(i); }
    const char& front() const { return str().front(); }
    const char& back() const { return str().back(); }
    template <typename... A>
    size_type find(A&&... a) const {
        return str().find(std::forward<A>(a)...);
    }
    template <typename... A>
    size_type rfind(A&&... a) const {
        return str().rfind(std::forward<A>(a)...);
    }
    template <typename... A>
    size_type find_first_of(A&&... a) const {
        return str().find_first_of(std::forward<A>(a)...);
    }
    template <typename... A>
    size_type find_last_of(A&&... a) const {
        return str().find_last_of(std::forward<A>(a)...);
    }
    template <typename... A>
    size_type find_first_not_of(A&&... a) const {
        return str().find_first_not_of(std::forward<A>(a)...);
    }
    template <typename... A>
    size_type find_last_not_of(A&&... a) const {
        return str().find_last_not_of(std::forward<A>(a)...);
    }
    template <typename... A>
    int compare(A&&... a) const {
        return str().compare(std::forward<A>(a)...);
    }
    std::string substr(size_type pos = 0, size_type count = npos) const {
        return str().substr(pos, count);
    }
    bool starts_with(std::string_view s) const noexcept { return str().starts_with(s); }
    bool starts_with(char c) const noexcept { return str().starts_with(c); }
    bool ends_with(std::string_view s) const noexcept { return str().ends_with(s); }
    bool ends_with(char c) const noexcept { return str().ends_with(c); }
    bool shares_with(const SharedString& other) const noexcept { return rep_ == other.rep_; }
    /// Cache hint for walks over many nodes: ask for the shared block (and its count) now.
    void prefetch() const noexcept {
        if (rep_) graphlens::prefetch(rep_);
    }

    // --- writing: each makes the text this copy's own first ---
    std::string& edit() {
        if (!rep_) {
            rep_ = new Rep{};
        } else if (rep_->refs.load(std::memory_order_acquire) != 1) {
            Rep* own = new Rep{{1}, rep_->text};
            release();
            rep_ = own;
        }
        return rep_->text;
    }
    SharedString& operator+=(std::string_view s) {
        edit() += s;
        return *this;
    }
    SharedString& operator+=(char c) {
        edit() += c;
        return *this;
    }
    SharedString& operator+=(const SharedString& s) { return *this += std::string_view(s); }
    template <typename... A>
    SharedString& append(A&&... a) {
        edit().append(std::forward<A>(a)...);
        return *this;
    }
    void push_back(char c) { edit().push_back(c); }
    void clear() noexcept {
        release();
        rep_ = nullptr;
    }
    void swap(SharedString& other) noexcept { std::swap(rep_, other.rep_); }

    // --- comparison and concatenation ---
    friend bool operator==(const SharedString& a, const SharedString& b) noexcept {
        return a.rep_ == b.rep_ || a.str() == b.str();
    }
    template <StringLike S>
    friend bool operator==(const SharedString& a, const S& b) {
        return std::string_view(a.str()) == std::string_view(b);
    }
    friend std::strong_ordering operator<=>(const SharedString& a, const SharedString& b) noexcept {
        return std::string_view(a.str()) <=> std::string_view(b.str());
    }
    template <StringLike S>
    friend std::strong_ordering operator<=>(const SharedString& a, const S& b) {
        return std::string_view(a.str()) <=> std::string_view(b);
    }
    friend std::string operator+(const SharedString& a, const SharedString& b) {
        return a.str() + b.str();
    }
    template <StringLike S>
    friend std::string operator+(const SharedString& a, const S& b) {
        std::string s = a.str();
        s += std::string_view(b);
        return s;
    }
    template <StringLike S>
    friend std::string operator+(const S& a, const SharedString& b) {
        std::string s(std::string_view{a});
        s += b.str();
        return s;
    }
    friend std::string operator+(const SharedString& a, char b) { return a.str() + b; }
    friend std::string operator+(char a, const SharedString& b) { return a + b.str(); }
    friend std::ostream& operator<<(std::ostream& os, const SharedString& s) {
        return os << s.str();
    }

  private:
    struct Rep {
        std::atomic<uint32_t> refs{1};
        std::string text;
    };

    static const std::string& empty_string() noexcept {
        static const std::string none;
        return none;
    }
    void adopt(std::string&& text) {
        if (!text.empty()) rep_ = new Rep{{1}, std::move(text)};
    }
    void retain() noexcept {
        if (rep_) rep_->refs.fetch_add(1, std::memory_order_relaxed);
    }
    void release() noexcept {
        if (rep_ && rep_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete rep_;
    }

    Rep* rep_ = nullptr;
};

}  // namespace graphlens

template <>
struct std::hash<graphlens::SharedString> {
    std::size_t operator()(const graphlens::SharedString& s) const noexcept {
        return std::hash<std::string_view>{}(s);
    }
};

template <>
struct fmt::formatter<graphlens::SharedString> : fmt::formatter<fmt::string_view> {
    template <typename FormatContext>
    auto format(const graphlens::SharedString& s, FormatContext& ctx) const {
        return fmt::formatter<fmt::string_view>::format(fmt::string_view(s.data(), s.size()), ctx);
    }
};
