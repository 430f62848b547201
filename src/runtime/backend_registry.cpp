// The backends linked into this runtime, by id. A backend whose runtime
// side is not listed here cannot run: the loader reports DelegateMissing.
#include "backends/onednn/runtime.h"
#include "backends/reference/runtime.h"

namespace edgec::runtime {

const Backend* find_backend(std::string_view id) {
  const Backend* const backends[] = {&onednn_backend(), &reference_backend()};
  for (const Backend* b : backends)
    if (b->id() == id) return b;
  return nullptr;
}

}  // namespace edgec::runtime
