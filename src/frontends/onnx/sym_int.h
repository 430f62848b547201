// Integers the importer knows at import time, possibly symbolically: the
// elements of "shape values" (the 1-D int64 tensors that Shape produces and
// Gather/Concat/Mul/... rearrange before a Reshape or Expand reads them).
//
// A SymInt is factor * (product of non-static dims). That is all torch's
// exporter computes with symbolic sizes (a sequence length times heads,
// a size divided by heads); a sum of a symbol and a number has no SymInt and
// the importer falls back to computing it at run time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/program.h"
#include "base/tensor_type.h"

namespace edgec::onnx_import {

/// One non-static factor: the dim, and a value whose dim `axis` it is (so
/// that the importer can build tensors of that size at run time).
struct SymPart {
  Dim dim;
  Value* source = nullptr;
  int axis = 0;
};

struct SymInt {
  int64_t factor = 1;
  std::vector<SymPart> parts;

  static SymInt constant(int64_t v) { return SymInt{v, {}}; }
  /// Dim `axis` of `source` (whose type has that dim).
  static SymInt of_dim(const Dim& d, Value* source, int axis);

  bool is_static() const { return parts.empty(); }
  /// Exactly one part with factor 1: the dim itself.
  bool is_single_dim() const { return factor == 1 && parts.size() == 1; }
  /// "6", "src_len", "4*src_len*tgt_len".
  std::string str() const;
};

/// Same value, comparing parts as a multiset of dims.
bool sym_equal(const SymInt& a, const SymInt& b);

// Arithmetic; nullopt when the result is not of the form factor * product.
std::optional<SymInt> sym_mul(const SymInt& a, const SymInt& b);
std::optional<SymInt> sym_add(const SymInt& a, const SymInt& b);
std::optional<SymInt> sym_sub(const SymInt& a, const SymInt& b);
/// a / b rounded toward zero when both are static; otherwise exact
/// division only (b's parts must appear in a, and the factors divide).
std::optional<SymInt> sym_div(const SymInt& a, const SymInt& b);

/// The product of `dims` of `source`'s type from `begin` to `end`; nullopt
/// when the static sizes' product overflows int64.
std::optional<SymInt> sym_numel(const TensorType& type, Value* source, size_t begin, size_t end);

}  // namespace edgec::onnx_import
