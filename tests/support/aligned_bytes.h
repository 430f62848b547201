// A copy of a program file in 64-byte aligned memory, as an mmap would give
// it, for tests that load programs from memory (Program::load_from_bytes
// wants 8-byte alignment, zero-copy tensors 64).
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <span>

namespace edgec {

struct AlignedBytes {
  // One byte more than `bytes`, so that an empty file still has an address.
  explicit AlignedBytes(std::span<const std::byte> bytes)
      : data(new (std::align_val_t(64)) std::byte[bytes.size() + 1]), size(bytes.size()) {
    if (!bytes.empty()) std::memcpy(data.get(), bytes.data(), bytes.size());
  }
  std::span<const std::byte> span() const { return {data.get(), size}; }

  struct Delete {
    void operator()(std::byte* p) const { ::operator delete[](p, std::align_val_t(64)); }
  };
  std::unique_ptr<std::byte[], Delete> data;
  size_t size;
};

}  // namespace edgec
