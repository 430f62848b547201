// The backends compiled into this edgec (compiler side). The runtime side
// has its own list (src/runtime/backend_registry.cpp), so a runtime build
// carries no compiler code.
#include <span>

#include "backends/onednn/compiler.h"
#include "backends/reference/compiler.h"

namespace edgec {
namespace {

// In a function, not a namespace-scope array, so that lookups made during
// another file's static initialization still see it.
std::span<const BackendCompiler* const> compilers() {
  static const BackendCompiler* const kCompilers[] = {&onednn_backend_compiler(), &reference_backend_compiler()};
  return kCompilers;
}

}  // namespace

const BackendCompiler* find_backend_compiler(std::string_view id) {
  for (const BackendCompiler* c : compilers())
    if (c->id() == id) return c;
  return nullptr;
}

std::vector<std::string> backend_compiler_ids() {
  std::vector<std::string> ids;
  for (const BackendCompiler* c : compilers()) ids.push_back(c->id());
  return ids;
}

std::vector<std::string> default_backend_ids() {
  // `reference` exists to test the lowering rules and is never a default.
  return {"onednn"};
}

}  // namespace edgec
