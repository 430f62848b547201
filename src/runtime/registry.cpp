// The backends linked into this runtime (runtime/backend.h), from the list
// CMake generates of the backends it built (backends/backend_list.h). A
// backend whose runtime side is not listed cannot run: the loader reports
// DelegateMissing.
#include <iterator>

#include "backends/backend_list.h"
#include "runtime/backend.h"

// Each backend <id> in the list provides `const Backend& <id>_backend()`
// (src/backends/<id>/runtime.h).
namespace edgec::runtime {
#define EDGEC_BACKEND(id, default_targets) const Backend& id##_backend();
EDGEC_BACKENDS
#undef EDGEC_BACKEND

BackendList linked_backends() {
  static const Backend* const kBackends[] = {
#define EDGEC_BACKEND(id, default_targets) &id##_backend(),
      EDGEC_BACKENDS
#undef EDGEC_BACKEND
      nullptr,  // keeps the array non-empty when no backend is built in
  };
  return BackendList(kBackends, std::size(kBackends) - 1);
}

const Backend* find_backend(std::string_view id) {
  for (const Backend* b : linked_backends())
    if (b->id() == id) return b;
  return nullptr;
}

}  // namespace edgec::runtime
