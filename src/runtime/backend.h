// The runtime side of a backend (docs/architecture.md "Backends"): is_available / init -> handle /
// execute / destroy, and the registry the loader resolves a delegate's
// backend id with. A handle is one execution state: Method::create inits
// every delegate once per Method, so Methods never share a handle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "kernels/tensor.h"

namespace edgec::runtime {

struct TypeInfo;

/// One named tensor of the program file (docs/semantics.md §6): bytes mapped from
/// the file, read-only, at least 64-byte aligned.
struct NamedDataEntry {
  std::string key;
  const std::byte* data = nullptr;
  uint64_t size = 0;
};

/// The named data a delegate resolves its constant slots against.
class NamedDataMap {
 public:
  virtual ~NamedDataMap() = default;
  /// The entry for `key`, or nullptr when the file has no data by that key.
  virtual const NamedDataEntry* find(std::string_view key) const = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view id() const = 0;
  /// False when the backend cannot run on this machine (e.g. a CPU feature
  /// it needs is missing); the loader then reports DelegateMissing.
  virtual bool is_available() const = 0;
  /// Builds an execution handle from the payload. Errors: InvalidProgram (a
  /// corrupt payload), NotFound (a constant slot whose key the named data
  /// lacks; the detail names the slot and the key), OutOfMemory.
  virtual Result<void*> init(std::span<const std::byte> payload, const NamedDataMap& named_data,
                             int num_threads) const = 0;
  /// Runs the delegate: `inputs` in the order of the delegate's user inputs,
  /// `outputs` in the order of its outputs (the caller's tensors, with the
  /// capacity the owning program planned; data-dependent outputs are
  /// resized). Does not allocate or throw.
  virtual Error execute(void* handle, std::span<const Tensor* const> inputs,
                        std::span<Tensor* const> outputs) const = 0;
  virtual void destroy(void* handle) const = 0;

  /// Profiling (optional; `edgec bench --profile`): one name per step the
  /// handle runs (e.g. "conv+relu"), or none when the backend does not break
  /// its work down.
  virtual std::vector<std::string> step_names(void* handle) const {
    (void)handle;
    return {};
  }
  /// While `seconds` is non-empty (one entry per step_names()), execute adds
  /// each step's wall time in seconds to its entry. Errors: InvalidArgument
  /// (a span of another size).
  virtual Error set_profile(void* handle, std::span<double> seconds) const {
    (void)handle;
    return seconds.empty() ? Error::Ok : Error::InvalidArgument;
  }
};

/// The backends a program's delegates are resolved against.
using BackendList = std::span<const Backend* const>;

/// Every backend linked into this runtime, in priority order: the
/// generated list of the backends CMake built (EDGEC_BACKEND_<ID>), each
/// registered once in its src/backends/<id>/backend.cmake. Defined by the edgec_runtime
/// library (runtime/registry.cpp), above the backends: the loader
/// (edgec_runtime_core) takes the list as an argument, whose default the
/// caller evaluates, so the backends' runtime sides may use the loader and
/// Method without a cycle.
BackendList linked_backends();
/// The backend linked in with this id, or nullptr.
const Backend* find_backend(std::string_view id);

}  // namespace edgec::runtime
