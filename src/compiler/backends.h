// The backends built into this edgec, compile side. Each backend registers
// itself once, in src/backends/<id>/backend.cmake (edgec_add_backend), which puts it
// in the generated list this registry and the runtime's read
// (backends/backend_list.h); the CMake option EDGEC_BACKEND_<ID> leaves it
// out. docs/architecture.md, "Adding a backend".
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lowering/backend.h"

namespace edgec {

/// The backend compiled into this edgec with this id, or nullptr.
const BackendCompiler* find_backend_compiler(std::string_view id);
/// Every built-in backend id (those `--backends` accepts), in priority order.
std::vector<std::string> backend_compiler_ids();
/// The backends `edgec compile` uses without `--backends` for `target`, in
/// priority order: the production delegates built in that are a default
/// for it (x86-64: onednn; aarch64: xnnpack; never `reference`, which
/// exists to test the lowering rules). Empty when none is built in.
std::vector<std::string> default_backend_ids(Target target = kHostTarget);

/// The partitioners of `list`, a `--backends` value: "id[:options],..." in
/// priority order, "" for `target`'s defaults, "none" for none. Throws
/// CompileError naming an unknown backend and the built-in ones, or a
/// backend that cannot compile for `target` and why.
std::vector<std::unique_ptr<Partitioner>> make_partitioners(const std::string& list, Target target = kHostTarget);

/// A delegate's payload, from its backend's preprocess; throws CompileError
/// for a backend this edgec does not have.
std::vector<std::byte> preprocess_delegate(const Delegate& delegate, size_t index);

}  // namespace edgec
