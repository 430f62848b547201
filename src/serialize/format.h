// The fixed parts of the program file format, shared by the writer and the
// loader. Layout:
//
//   offset 0:   Header (64 bytes, little-endian)
//   offset 64:  the flatbuffer (program.fbs), `flatbuffer_size` bytes
//   then zero padding to `data_offset` (a multiple of kDataAlignment)
//   data segment: each named tensor / payload at a multiple of
//                 kDataAlignment from `data_offset`, so an mmap of the file
//                 gives aligned, zero-copy tensors.
#pragma once

#include <cstddef>
#include <cstdint>

namespace edgec::format {

inline constexpr char kMagic[8] = {'E', 'D', 'G', 'E', 'C', 'P', 'R', 'G'};
inline constexpr uint32_t kVersion = 1;
inline constexpr uint64_t kDataAlignment = 64;
inline constexpr uint64_t kHeaderSize = 64;

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t header_size;
  uint64_t flatbuffer_offset;
  uint64_t flatbuffer_size;
  uint64_t data_offset;
  uint64_t data_size;
  uint64_t file_size;
  uint8_t reserved[8];
};
static_assert(sizeof(Header) == kHeaderSize);

constexpr uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

}  // namespace edgec::format
