// numpy .npy / .npz reading and writing: how `edgec run` takes inputs and
// gives outputs, and how tests get reference data from numpy.
//
// Files come from users, so every size read from them is validated with
// overflow-checked arithmetic, against the bytes really there and against
// the memory limit (edgec::memory_limit(), EDGEC_MEMORY_LIMIT), before
// anything is allocated, inflated or copied, and arbitrary bytes give an
// IoError, never a crash. This layer is not on the
// execute path, so it reports failure by exception: the message names the
// file, the array, and what was expected versus found.
//
// Only the dtypes edgec computes with are accepted (see DType); anything else
// (float64, big-endian, structured, object arrays) is refused with a hint on
// how to convert it in numpy, rather than converted silently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/dtype.h"
#include "kernels/tensor.h"

namespace edgec::io {

/// A malformed, unsupported or unreadable .npy/.npz, or a failed write.
class IoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One array: C-order, little-endian, contiguous.
struct NpyArray {
  std::string name;
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  std::vector<std::byte> data;  // exactly numel() * dtype_size(dtype) bytes

  int64_t numel() const;

  /// A contiguous Tensor over `data` (capacity = data.size()). The array must
  /// outlive the view. Throws IoError if the rank exceeds kMaxRank.
  Tensor view();
  /// The same, read-only (capacity 0).
  Tensor view() const;

  /// Copies `tensor` (which may be strided) into a contiguous array.
  static NpyArray from_tensor(std::string name, const Tensor& tensor);
};

/// Reads every array of an .npz (stored or deflate-compressed, as written by
/// np.savez / np.savez_compressed), in archive order. Member "x.npy" becomes
/// array "x". Throws IoError.
std::vector<NpyArray> read_npz(const std::string& path);

/// The same from bytes in memory; `what` names the source in messages.
/// Safe on arbitrary input (this is what the fuzzer calls).
std::vector<NpyArray> read_npz_bytes(std::span<const std::byte> bytes, const std::string& what);

/// Writes `arrays` as an uncompressed .npz, members in the given order, with a
/// fixed timestamp so identical arrays give identical bytes. The file appears
/// atomically (temporary file in the same folder, then rename); on failure no
/// file is left behind and an existing file at `path` is untouched.
/// Throws IoError (duplicate or empty names, unwritable folder).
void write_npz(const std::string& path, const std::vector<NpyArray>& arrays);

/// The .npz as bytes (what write_npz writes).
std::vector<std::byte> serialize_npz(const std::vector<NpyArray>& arrays);

/// Parses one .npy (format 1.0, 2.0 or 3.0). `what` names the source and
/// `name` the array in messages; the result is named `name`. Fortran-order
/// arrays are converted to C order. Throws IoError.
NpyArray parse_npy(std::span<const std::byte> bytes, const std::string& what,
                   const std::string& name);

/// One array as .npy bytes (format 1.0, or 2.0 when the header needs it),
/// with the header padded so that the data starts 64-byte aligned like numpy.
std::vector<std::byte> serialize_npy(const NpyArray& array);

}  // namespace edgec::io
