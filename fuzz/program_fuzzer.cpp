// Fuzz target: the program-file loader followed by one execute with fixed
// small inputs (issue 7). Any input must give an Error, never a crash, an
// out-of-bounds read or a leak. Inputs whose declared sizes are large are
// skipped before allocating (the loader's own limits are under test, not
// the machine's memory).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "runtime/method.h"

// The runtime refuses plans beyond its memory limit before allocating; set
// it below what libFuzzer lets the process allocate (-rss_limit_mb), so that
// a plan the machine could hold but the fuzzer cannot is refused, not an
// out-of-memory report.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("EDGEC_MEMORY_LIMIT", "67108864", 0);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The loader requires 64-byte alignment of the file it maps; give it that.
  std::unique_ptr<std::byte[], void (*)(std::byte*)> copy(
      static_cast<std::byte*>(::operator new[](size + 1, std::align_val_t{64})),
      [](std::byte* p) { ::operator delete[](p, std::align_val_t{64}); });
  if (size) std::memcpy(copy.get(), data, size);
  auto program = edgec::runtime::Program::load_from_bytes(std::span<const std::byte>(copy.get(), size));
  if (!program.ok()) return 0;
  const auto& p = **program;
  auto method = edgec::runtime::Method::create(p, 1);
  if (!method.ok()) return 0;
  // Bind every input to zeros of its declared (or bound) shape, small only.
  std::vector<std::vector<std::byte>> buffers;
  for (size_t i = 0; i < p.inputs().size(); ++i) {
    const auto& slot = p.slots()[static_cast<size_t>(p.inputs()[i].slot)];
    std::vector<int64_t> shape;
    int64_t numel = 1;
    for (const auto& d : slot.type.dims) {
      const int64_t n = d.value < 0 ? 1 : d.value;
      shape.push_back(n);
      numel *= n;
      if (numel > (1 << 20)) return 0;
    }
    buffers.emplace_back(static_cast<size_t>(numel) * edgec::dtype_size(slot.type.dtype) + 1);
    const auto t = edgec::make_tensor(slot.type.dtype, shape, buffers.back().data(), buffers.back().size());
    if ((*method)->set_input(i, t) != edgec::Error::Ok) return 0;
  }
  (void)(*method)->execute();
  return 0;
}
