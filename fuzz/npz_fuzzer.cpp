// Fuzz target: the npz reader (run --inputs). Malformed archives, headers
// and sizes are IoError, never a crash or an allocation of a size the file
// does not hold.
#include <cstddef>
#include <cstdint>
#include <span>

#include "io/npz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)edgec::io::read_npz_bytes(std::as_bytes(std::span<const uint8_t>(data, size)), "fuzz.npz");
  } catch (const edgec::io::IoError&) {
  }
  return 0;
}
