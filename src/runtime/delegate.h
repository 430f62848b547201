// What every delegate's runtime side needs besides its own kernels, so that
// a backend implements only init and the work itself (docs/architecture.md,
// "Adding a backend"):
// - DelegateHandle, one execution state, and DelegateBackend, which
//   implements the Backend entry points on it: handle and operand-count
//   checks, destroy, the profile's step names and per-step times;
// - guarded_init: init with every exception turned into an Error;
// - the I/O binding checks and copies between the caller's tensors
//   (possibly strided views) and the delegate's contiguous buffers.
// The messages name the backend: "the onednn delegate takes 2 input(s)...".
#pragma once

#include <chrono>
#include <cstddef>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/error.h"
#include "kernels/tensor.h"
#include "runtime/backend.h"
#include "runtime/program.h"

namespace edgec::runtime {

/// One delegate execution state (what Backend::init returns).
class DelegateHandle {
 public:
  virtual ~DelegateHandle() = default;
  virtual size_t num_inputs() const = 0;
  virtual size_t num_outputs() const = 0;
  /// Runs the delegate on the caller's tensors (counts already checked).
  /// Does not allocate or throw.
  virtual Error run(std::span<const Tensor* const> inputs, std::span<Tensor* const> outputs) = 0;
  /// The steps `run` breaks its work into, for the profile (empty: none).
  virtual std::vector<std::string> step_names() const { return {}; }

  /// Per-step seconds while profiling (one entry per step name), else
  /// empty; run adds each step's time with time_step.
  std::span<double> profile;

  /// Runs `step` (returning Error) and adds its wall time to profile[index]
  /// when profiling.
  template <typename F>
  Error time_step(size_t index, F&& step) {
    if (profile.empty()) return step();
    const auto start = std::chrono::steady_clock::now();
    const Error err = step();
    profile[index] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return err;
  }
};

/// The Backend entry points every delegate shares, on a DelegateHandle.
/// A backend derives from it and implements id, is_available and init.
class DelegateBackend : public Backend {
 public:
  Error execute(void* handle, std::span<const Tensor* const> inputs,
                std::span<Tensor* const> outputs) const override;
  void destroy(void* handle) const override;
  std::vector<std::string> step_names(void* handle) const override;
  Error set_profile(void* handle, std::span<double> seconds) const override;

 protected:
  /// "the onednn delegate" for messages.
  std::string who() const;
};

/// Runs `init` (a Backend::init body), turning what escapes it into an
/// error naming the backend: OutOfMemory for std::bad_alloc, InvalidProgram
/// (a payload that is not right) for any other exception. A backend
/// catches its library's own exceptions inside `init` first.
template <typename F>
auto guarded_init(std::string_view backend, F&& init) -> decltype(init()) {
  try {
    return init();
  } catch (const std::bad_alloc&) {
    return fail(Error::OutOfMemory, std::string(backend) + ": out of memory building the delegate");
  } catch (const std::exception& e) {
    return fail(Error::InvalidProgram, std::string(backend) + ": invalid delegate program: " + e.what());
  }
}

/// InvalidShape unless `t` has `dtype` and `shape`: "onednn: input 0:
/// expected f32[1, 3], got f32[1, 4]".
Error check_input(std::string_view backend, size_t index, const Tensor& t, DType dtype,
                  std::span<const int64_t> shape);

/// InvalidArgument unless `num_threads` is from 1 to the cores of this
/// machine (Method::max_threads()): what a direct init, which Method::create
/// does not check, may pass a library that crashes on a huge count.
Error check_thread_count(std::string_view backend, int num_threads);

/// The static shape of slot `index` of the delegate program `p` into
/// `shape`: InvalidProgram for a dim that is not static (the partitioner
/// takes none; a crafted payload may have one), OutOfMemory for an
/// activation larger than `limit` bytes (memory_limit(), read once by the
/// caller), refused before anything is sized from its shape. Messages name
/// the backend and the slot.
Error static_slot_shape(std::string_view backend, const Program& p, size_t index, uint64_t limit,
                        std::vector<int64_t>& shape);

/// Copies `src` (possibly a strided view) into `dst`, row-major.
void pack_contiguous(const Tensor& src, std::byte* dst);

/// Copies `src` into the caller's output `dst`, resizing it to src's shape
/// within its planned capacity. InvalidType when dtype or rank differ.
Error copy_to_output(const Tensor& src, Tensor& dst, size_t index);

}  // namespace edgec::runtime
