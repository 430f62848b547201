// Pieces shared by the shape, indexing and creation kernels: argument checks
// whose messages all read "<op>: expected ..., got ...", and the strided copy
// that nearly every data-movement kernel reduces to (a permute, an expand, a
// slice or a tile is a copy through a strided view of the input).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "base/attrs.h"
#include "base/error.h"
#include "kernels/kernel_checks.h"
#include "kernels/op_decl.h"
#include "kernels/registry.h"
#include "kernels/tensor.h"

namespace edgec::shape_detail {

/// Below this many elements a kernel stays on one thread: spawning a team
/// costs more than the copy.
inline constexpr int64_t kParallelElements = 32 * 1024;

/// A tile view splits every dim in two (repeat, size), so copies go up to
/// twice the tensor rank.
inline constexpr int kMaxCopyRank = 2 * kMaxRank;

// ---- argument checks ---------------------------------------------------------
// (check_arity, check_num_outputs, check_output_dtype and resize_output come
// from kernel_checks.h.)

/// Index tensors are i64 or i32.
Error check_index_dtype(std::string_view op, const Tensor& index, std::string_view what);

/// Wraps a possibly negative `dim` into [0, rank) or fails naming the op.
Error normalize_dim(std::string_view op, int64_t dim, int rank, int& out);

/// The failure for an index read from data: "<op>: index 7 is out of range
/// for size 5".
Error index_out_of_range(std::string_view op, int64_t index, int64_t size);

/// Wraps a negative index once; false when it is still outside [0, size).
inline bool wrap_index(int64_t& index, int64_t size) {
  if (index < 0) index += size;
  return index >= 0 && index < size;
}

/// One input and one output of the input's dtype (most data movement).
Error check_one_to_one(std::string_view op, std::span<const Tensor> inputs, std::span<Tensor> outputs);

// ---- attributes --------------------------------------------------------------
// Read through the operator's declaration: the attribute's name, and its
// default when absent (absent is an error where it is required). A value of
// another kind than declared is an error, except an int for a bool (ONNX
// writes bools as ints) and an empty float list for an empty int list.

Error int_attr(std::string_view op, const Attrs& attrs, const AttrDecl& decl, int64_t& out);
Error bool_attr(std::string_view op, const Attrs& attrs, const AttrDecl& decl, bool& out);
/// An int list; an optional one absent reads as empty, and `present` (where
/// given) says whether it was there.
Error ints_attr(std::string_view op, const Attrs& attrs, const AttrDecl& decl, std::span<const int64_t>& out,
                bool* present = nullptr);


/// A numeric attribute that may be written as an int or a float (arange's
/// bounds, full's value); ints stay exact so that i64 values above 2^53 survive.
struct Number {
  bool is_int = true;
  int64_t i = 0;
  double f = 0.0;
  double as_double() const { return is_int ? static_cast<double>(i) : f; }
};
/// check_one_to_one, then the int list `decl` that drives the operator
/// (reshape's shape, permute's dims, pad's pads), as ints_attr reads it.
Error one_to_one_list(std::string_view op, std::span<const Tensor> inputs, std::span<Tensor> outputs,
                      const Attrs& attrs, const AttrDecl& decl, std::span<const int64_t>& list,
                      bool* present = nullptr);
/// A number; the declared default is an int when it is a whole number.
Error number_attr(std::string_view op, const Attrs& attrs, const AttrDecl& decl, Number& out);

/// arange's length for int bounds, ceil((end - start) / step) or 0 for an
/// empty range, computed exactly (in 128 bits); `step` is not 0. The
/// operator table's shape function for arange computes it here too, so the
/// two always agree.
int64_t arange_int_length(int64_t start, int64_t end, int64_t step);

/// float -> int64 truncating toward zero; NaN becomes 0 and out-of-range
/// values saturate, where a plain cast would be undefined behaviour.
inline int64_t saturating_int(double f) {
  if (f != f) return 0;
  if (f >= 9223372036854775807.0) return INT64_MAX;
  if (f <= -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(f);
}

/// The bit pattern of `value` converted to `dtype` (low dtype_size bytes of
/// the result, little endian), as a cast in C would produce it except that
/// out-of-range floats saturate instead of being undefined.
uint64_t scalar_bits(DType dtype, const Number& value);

// ---- strided copies ----------------------------------------------------------

/// A copy of a box of elements between two strided layouts. Strides are in
/// elements and may be zero (broadcast) or negative (reversed slices).
struct CopyPlan {
  int rank = 0;
  std::array<int64_t, kMaxCopyRank> sizes{};
  std::array<int64_t, kMaxCopyRank> src_strides{};
  std::array<int64_t, kMaxCopyRank> dst_strides{};

  void add_dim(int64_t size, int64_t src_stride, int64_t dst_stride) {
    sizes[rank] = size;
    src_strides[rank] = src_stride;
    dst_strides[rank] = dst_stride;
    ++rank;
  }
  int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= sizes[i];
    return n;
  }
  /// Drops size-1 dims and merges dims that are contiguous in both layouts,
  /// so that the inner loop runs as long as possible.
  void simplify();
};

/// A plan copying `src` (its sizes and strides) into a contiguous layout.
CopyPlan contiguous_plan(const Tensor& src);

/// Copies the plan's box, in parallel when large. `src` and `dst` point at
/// the box's first element.
void copy_strided(const KernelContext& ctx, size_t elem_size, CopyPlan plan, const void* src,
                  void* dst);

/// The serial form for small blocks inside a caller's loop; `plan` must
/// already be simplified.
void copy_block(size_t elem_size, const CopyPlan& plan, const void* src, void* dst);

/// Copies `src` in row-major order into contiguous memory at `dst`.
void copy_to_contiguous(const KernelContext& ctx, const Tensor& src, void* dst);

/// Writes `count` elements of `elem_size` bytes holding `bits` (see scalar_bits).
void fill_bits(void* dst, int64_t count, size_t elem_size, uint64_t bits);

/// Byte address of element `offset` (which may be negative) from `base`.
inline const char* at(const void* base, int64_t offset, size_t elem_size) {
  return static_cast<const char*>(base) + offset * static_cast<int64_t>(elem_size);
}
inline char* at(void* base, int64_t offset, size_t elem_size) {
  return static_cast<char*>(base) + offset * static_cast<int64_t>(elem_size);
}

/// Visits positions of a box in row-major order, keeping one running
/// element offset per operand (the output, the input, index tensors...).
/// Operands share the box's sizes and each has its own strides.
struct Walker {
  static constexpr int kMaxOperands = kMaxRank + 2;

  int rank = 0;
  int num_operands = 0;
  std::array<int64_t, kMaxRank> sizes{};
  std::array<int64_t, kMaxRank> coord{};
  std::array<std::array<int64_t, kMaxRank>, kMaxOperands> strides{};
  std::array<int64_t, kMaxOperands> offset{};

  /// Positions the walker at row-major position `flat`.
  void seek(int64_t flat) {
    offset.fill(0);
    for (int d = rank - 1; d >= 0; --d) {
      coord[d] = sizes[d] == 0 ? 0 : flat % sizes[d];
      flat = sizes[d] == 0 ? 0 : flat / sizes[d];
      for (int k = 0; k < num_operands; ++k) offset[k] += coord[d] * strides[k][d];
    }
  }
  /// Moves to the next position; wraps to all zeros after the last.
  void next() {
    for (int d = rank - 1; d >= 0; --d) {
      for (int k = 0; k < num_operands; ++k) offset[k] += strides[k][d];
      if (++coord[d] < sizes[d]) return;
      for (int k = 0; k < num_operands; ++k) offset[k] -= strides[k][d] * sizes[d];
      coord[d] = 0;
    }
  }
};

/// Calls `fn` with a value of an unsigned type as wide as one element, so
/// that data movement is written once for all dtypes.
template <typename Fn>
void dispatch_elem_size(size_t elem_size, Fn&& fn) {
  switch (elem_size) {
    case 1: fn(uint8_t{}); break;
    case 2: fn(uint16_t{}); break;
    case 4: fn(uint32_t{}); break;
    default: fn(uint64_t{}); break;
  }
}

/// Reads element `offset` of an i64 or i32 index tensor.
inline int64_t read_index(const Tensor& index, int64_t offset) {
  if (index.dtype == DType::Int64) return index.data_as<int64_t>()[offset];
  return index.data_as<int32_t>()[offset];
}

}  // namespace edgec::shape_detail
