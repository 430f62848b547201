// Error and Result<T>: how the runtime and the kernels report failure.
// The runtime never throws; every fallible call returns one of these.
//
// Error values are grouped and stable (they may be logged or compared by
// embedders); add new ones at the end of their group.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace edgec {

enum class Error : uint32_t {
  // System
  Ok = 0x00,            ///< Success.
  Internal = 0x01,      ///< A bug in edgec: an invariant did not hold.
  NotSupported = 0x02,  ///< The operation is valid but not implemented here.
  OutOfMemory = 0x03,   ///< An allocation or arena was too small.
  Cancelled = 0x04,     ///< The run was cancelled (runtime::Method::cancel) or ran past its time.

  // Arguments
  InvalidArgument = 0x10,  ///< A caller-supplied value is malformed.
  InvalidType = 0x11,      ///< A tensor has the wrong dtype.
  InvalidShape = 0x12,     ///< A tensor has the wrong rank or sizes.
  IndexOutOfRange = 0x13,  ///< An index read from data is outside its bounds.
  NotFound = 0x14,         ///< A named thing (input, key, backend) does not exist.

  // Program files
  InvalidProgram = 0x20,  ///< The file is corrupt, truncated or inconsistent.
  AccessFailed = 0x21,    ///< A file could not be opened, read or mapped.

  // Delegates
  DelegateInvalidCompatibility = 0x30,  ///< The payload was built for another version.
  DelegateInvalidHandle = 0x31,         ///< init() did not produce a usable handle.
  DelegateMissing = 0x32,               ///< No backend with this id is linked in.
};

/// A short stable name for messages, e.g. "InvalidShape".
const char* error_name(Error error);

/// The last failure's human-readable detail, kept per thread so that kernels
/// can explain an Error without allocating on success paths. Setting it may
/// allocate; that only happens on failure.
void set_error_detail(std::string detail);
const std::string& error_detail();

/// Sets the detail and returns `error`, for `return fail(Error::X, "...")`.
Error fail(Error error, std::string detail);

/// A value or an Error. ok() agrees with error() == Error::Ok.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : state_(error) {          // NOLINT: implicit by design
    if (error == Error::Ok) state_ = Error::Internal;
  }

  bool ok() const { return std::holds_alternative<T>(state_); }
  Error error() const { return ok() ? Error::Ok : std::get<Error>(state_); }
  T& get() { return std::get<T>(state_); }
  const T& get() const { return std::get<T>(state_); }
  T& operator*() { return get(); }
  const T& operator*() const { return get(); }
  T* operator->() { return &get(); }
  const T* operator->() const { return &get(); }

 private:
  std::variant<T, Error> state_;
};

}  // namespace edgec

/// Returns the error of `expr` from the enclosing function if it is not Ok.
#define EDGEC_TRY(expr)                                  \
  do {                                                   \
    ::edgec::Error edgec_try_err_ = (expr);              \
    if (edgec_try_err_ != ::edgec::Error::Ok) return edgec_try_err_; \
  } while (0)

/// Returns fail(err, msg) from the enclosing function unless `cond` holds.
#define EDGEC_CHECK(cond, err, msg)               \
  do {                                            \
    if (!(cond)) return ::edgec::fail((err), (msg)); \
  } while (0)
