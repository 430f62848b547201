// The compile side of the backend registry (compiler/backends.h): the
// backends CMake built in, from the generated list, in priority order.
#include "compiler/backends.h"

#include <span>

#include "backends/backend_list.h"
#include "base/diagnostic.h"

// Each backend <id> in the list provides `const BackendCompiler&
// <id>_backend_compiler()` (src/backends/<id>/compiler.h).
namespace edgec {
#define EDGEC_BACKEND(id, default_targets) const BackendCompiler& id##_backend_compiler();
EDGEC_BACKENDS
#undef EDGEC_BACKEND

namespace {

struct Registered {
  const BackendCompiler* compiler;
  /// The targets it is a default backend for: bit (1 << Target value).
  unsigned default_targets;
};

// In a function, not a namespace-scope array, so that lookups made during
// another file's static initialization still see it.
std::span<const Registered> compilers() {
  static const Registered kCompilers[] = {
#define EDGEC_BACKEND(id, default_targets) {&id##_backend_compiler(), default_targets},
      EDGEC_BACKENDS
#undef EDGEC_BACKEND
      {nullptr, 0},  // keeps the array non-empty when no backend is built in
  };
  return std::span<const Registered>(kCompilers, std::size(kCompilers) - 1);
}

std::string known_ids() {
  std::string ids;
  for (const auto& id : backend_compiler_ids()) ids += (ids.empty() ? "" : ", ") + id;
  return ids.empty() ? "none" : ids;
}

}  // namespace

const BackendCompiler* find_backend_compiler(std::string_view id) {
  for (const Registered& r : compilers())
    if (r.compiler->id() == id) return r.compiler;
  return nullptr;
}

std::vector<std::string> backend_compiler_ids() {
  std::vector<std::string> ids;
  for (const Registered& r : compilers()) ids.push_back(r.compiler->id());
  return ids;
}

std::vector<std::string> default_backend_ids(Target target) {
  std::vector<std::string> ids;
  for (const Registered& r : compilers())
    if (r.default_targets & (1u << static_cast<unsigned>(target))) ids.push_back(r.compiler->id());
  return ids;
}

std::vector<std::unique_ptr<Partitioner>> make_partitioners(const std::string& list, Target target) {
  std::vector<std::unique_ptr<Partitioner>> out;
  if (list == "none") return out;
  std::vector<std::string> entries;
  if (list.empty()) {
    entries = default_backend_ids(target);
  } else {
    size_t start = 0;
    while (start <= list.size()) {
      const size_t comma = list.find(',', start);
      entries.push_back(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  for (const std::string& entry : entries) {
    const size_t colon = entry.find(':');
    const std::string id = entry.substr(0, colon);
    const std::string options = colon == std::string::npos ? "" : entry.substr(colon + 1);
    if (id == "none") throw CompileError("backend list '" + list + "': 'none' cannot be combined with backends");
    const BackendCompiler* backend = find_backend_compiler(id);
    if (!backend) {
      const std::string known = known_ids();
      throw CompileError("unknown backend '" + id + "' in '" + list + "'; built-in backends: " + known +
                         " (or 'none' for the portable kernels only)");
    }
    if (auto why = backend->refuse_target(target)) {
      const std::vector<std::string> defaults = default_backend_ids(target);
      const std::string name(target_name(target));
      throw CompileError("backend '" + id + "' cannot compile for " + name + ": " + *why + "; compile for " + name +
                         " with --backends " + (defaults.empty() ? std::string("none") : defaults.front()) +
                         " (or leave --backends out)");
    }
    out.push_back(backend->make_partitioner(options));
  }
  return out;
}

std::vector<std::byte> preprocess_delegate(const Delegate& delegate, size_t index) {
  const BackendCompiler* compiler = find_backend_compiler(delegate.backend);
  if (!compiler)
    throw CompileError("serialize: delegate " + std::to_string(index) + " uses backend '" + delegate.backend +
                       "', which this edgec does not have (built in: " + known_ids() + ")");
  return compiler->preprocess(*delegate.program);
}

}  // namespace edgec
