// A vector that keeps its first N elements inside itself and moves to the
// heap only past N. The IR holds a few of these per node (a call's inputs,
// a value's uses): with std::vector, a graph of 10^5 nodes made as many
// small heap blocks per field, and walking it chased a pointer per block.
//
// Only for trivially copyable elements (pointers, small structs): copies
// are memcpy and nothing is destroyed element by element.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <new>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace edgec {

template <typename T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVector holds trivially copyable elements only");
  static_assert(N > 0, "SmallVector needs room for one element inline");

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVector() = default;
  SmallVector(std::initializer_list<T> items) { append(items.begin(), items.end()); }
  template <typename It, typename = decltype(*std::declval<It&>()), typename = decltype(++std::declval<It&>())>
  SmallVector(It first, It last) {
    append(first, last);
  }
  explicit SmallVector(size_t n, const T& fill = T()) { resize(n, fill); }
  SmallVector(const SmallVector& o) { append(o.begin(), o.end()); }
  SmallVector(SmallVector&& o) noexcept { take(o); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) {
      size_ = 0;
      append(o.begin(), o.end());
    }
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  ~SmallVector() { release(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return capacity_; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
  operator std::span<const T>() const { return {data_, size_}; }
  operator std::span<T>() { return {data_, size_}; }

  void reserve(size_t n) {
    if (n <= capacity_) return;
    if (n > UINT32_MAX) throw std::length_error("SmallVector: more than 2^32 elements");
    T* grown = static_cast<T*>(std::malloc(n * sizeof(T)));
    if (!grown) throw std::bad_alloc();
    if (size_) std::memcpy(static_cast<void*>(grown), data_, size_ * sizeof(T));
    if (data_ != inline_data()) std::free(data_);
    data_ = grown;
    capacity_ = static_cast<uint32_t>(n);
  }
  void push_back(const T& v) {
    if (size_ == capacity_) {
      const T copy = v;  // `v` may live in this vector
      reserve(size_t{capacity_} * 2);
      data_[size_++] = copy;
      return;
    }
    data_[size_++] = v;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }
  void resize(size_t n, const T& fill = T()) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = fill;
    size_ = static_cast<uint32_t>(n);
  }
  void assign(size_t n, const T& fill) {
    size_ = 0;
    resize(n, fill);
  }
  template <typename It>
  void assign(It first, It last) {
    size_ = 0;
    append(first, last);
  }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    push_back(T{std::forward<Args>(args)...});
    return back();
  }
  T& front() { return data_[0]; }
  const T& front() const { return data_[0]; }
  std::reverse_iterator<T*> rbegin() { return std::reverse_iterator<T*>(end()); }
  std::reverse_iterator<T*> rend() { return std::reverse_iterator<T*>(begin()); }
  std::reverse_iterator<const T*> rbegin() const { return std::reverse_iterator<const T*>(end()); }
  std::reverse_iterator<const T*> rend() const { return std::reverse_iterator<const T*>(begin()); }
  const T* cbegin() const { return begin(); }
  const T* cend() const { return end(); }

  /// Inserts `v` before `pos`; returns where it now is.
  T* insert(const T* pos, const T& v) { return insert(pos, &v, &v + 1); }
  /// Inserts [first, last) before `pos` (the range may not alias this vector).
  template <typename It>
  T* insert(const T* pos, It first, It last) {
    const size_t at = static_cast<size_t>(pos - data_);
    const size_t count = static_cast<size_t>(std::distance(first, last));
    if (count == 0) return data_ + at;
    SmallVector copy;  // the range may come from this vector
    copy.append(first, last);
    reserve(std::max<size_t>(size_ + count, size_t{capacity_} * 2));
    std::memmove(static_cast<void*>(data_ + at + count), data_ + at, (size_ - at) * sizeof(T));
    std::memcpy(static_cast<void*>(data_ + at), copy.data_, count * sizeof(T));
    size_ += static_cast<uint32_t>(count);
    return data_ + at;
  }
  T* erase(const T* pos) { return erase(pos, pos + 1); }
  T* erase(const T* first, const T* last) {
    const size_t at = static_cast<size_t>(first - data_);
    const size_t count = static_cast<size_t>(last - first);
    std::memmove(static_cast<void*>(data_ + at), data_ + at + count, (size_ - at - count) * sizeof(T));
    size_ -= static_cast<uint32_t>(count);
    return data_ + at;
  }

  bool operator==(const SmallVector& o) const { return std::equal(begin(), end(), o.begin(), o.end()); }

 private:
  T* inline_data() { return reinterpret_cast<T*>(inline_); }
  template <typename It>
  void append(It first, It last) {
    reserve(size_ + static_cast<size_t>(std::distance(first, last)));
    for (; first != last; ++first) data_[size_++] = *first;
  }
  void release() {
    if (data_ != inline_data()) std::free(data_);
    data_ = inline_data();
    size_ = 0;
    capacity_ = N;
  }
  // Takes o's elements; o is left empty and inline.
  void take(SmallVector& o) {
    if (o.data_ == o.inline_data()) {
      std::memcpy(static_cast<void*>(inline_), o.inline_, o.size_ * sizeof(T));
      data_ = inline_data();
    } else {
      data_ = o.data_;
      capacity_ = o.capacity_;
      o.data_ = o.inline_data();
      o.capacity_ = N;
    }
    size_ = o.size_;
    o.size_ = 0;
  }

  T* data_ = inline_data();
  uint32_t size_ = 0;
  uint32_t capacity_ = N;
  alignas(T) unsigned char inline_[N * sizeof(T)];
};

}  // namespace edgec
