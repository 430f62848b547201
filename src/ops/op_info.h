// The operator table (MLX-style single source of truth): one row per
// operator, its declaration (kernels/op_decl.h: operands, attributes, dtypes)
// and its shape function. Rows of core operators come from their kernels'
// declarations; composites (no kernel; to_edge decomposes them) are
// declared in src/ops/composite_ops.cpp. The table depends on nothing of the
// compiler IR: the IR, the passes and the backends look operators up here,
// so the verifier and the parser need no operator-specific code.
// docs/semantics.md §2.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/attrs.h"
#include "base/tensor_type.h"
#include "kernels/op_decl.h"

namespace edgec {

/// How the flat inputs of a call group into schema operands: a plain
/// operand takes one input, a list operand (concat's tensors) takes `count`.
struct OperandGroup {
  bool is_list = false;
  int count = 1;
  bool operator==(const OperandGroup& o) const = default;
};

/// A call's input types, viewed in place: either an array of types or an
/// array of pointers to them (the types of a node's input values), so that
/// inferring a node's result types copies none of its input types.
class TypeList {
 public:
  TypeList() = default;
  TypeList(std::span<const TensorType> types) : types_(types.data()), size_(types.size()) {}
  TypeList(const std::vector<TensorType>& types) : TypeList(std::span<const TensorType>(types)) {}
  TypeList(std::span<const TensorType* const> types) : pointers_(types.data()), size_(types.size()) {}

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const TensorType& operator[](size_t i) const { return pointers_ ? *pointers_[i] : types_[i]; }
  /// The types from `offset` on.
  TypeList subspan(size_t offset) const {
    TypeList rest = *this;
    rest.size_ = offset < size_ ? size_ - offset : 0;
    if (pointers_) rest.pointers_ += std::min(offset, size_);
    else rest.types_ += std::min(offset, size_);
    return rest;
  }

  class iterator {
   public:
    using value_type = TensorType;
    using difference_type = std::ptrdiff_t;
    iterator(const TypeList* list, size_t i) : list_(list), i_(i) {}
    const TensorType& operator*() const { return (*list_)[i_]; }
    iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const iterator& o) const { return i_ == o.i_; }

   private:
    const TypeList* list_;
    size_t i_;
  };
  iterator begin() const { return iterator(this, 0); }
  iterator end() const { return iterator(this, size_); }

 private:
  const TensorType* types_ = nullptr;
  const TensorType* const* pointers_ = nullptr;
  size_t size_ = 0;
};

struct OpInfo;

/// The declaration of the row for a base name ("add"), or nullptr.
const OpDecl* find_decl_by_name(std::string_view base_name);

/// What a shape function sees: the flat input types (list operands
/// expanded, absent optionals left out), their grouping, the attributes,
/// and the operator's row (its declared attributes and dtypes).
struct ShapeQuery {
  std::string_view op;  ///< Base name, for messages.
  TypeList inputs;
  std::span<const OperandGroup> groups;
  const Attrs& attrs;
  /// The operator's declaration (its attributes' defaults, its dtypes). A
  /// query built by name alone (a test calling a shape function directly)
  /// gets the table's row for `op`, so that shape functions can always read it.
  const OpDecl* decl = find_decl_by_name(op);

  /// The declared attribute `name` of this operator (the table guarantees
  /// a shape function asks only for its own operator's attributes).
  const AttrDecl& attr(std::string_view name) const;
};

/// Infers result types, or throws CompileError "[op] expected ..., got ...".
using ShapeFn = std::vector<TensorType> (*)(const ShapeQuery& q);

/// One row: the declaration and the shape function.
struct OpInfo : OpDecl {
  ShapeFn shape = nullptr;

  std::string full_name(std::string_view dialect) const {
    return std::string(dialect) + "." + std::string(name) + "." + std::string(overload);
  }
  /// Infers result types for inputs of these types (no size check).
  std::vector<TensorType> infer(TypeList inputs, std::span<const OperandGroup> groups, const Attrs& attrs) const {
    return shape(ShapeQuery{name, inputs, groups, attrs, this});
  }
};

/// docs/semantics.md §3.1: whether a call of `op` whose operands are all
/// known may be folded into constants (by constant_prop and the importer):
/// core, neither random nor an allocation, and not dequantize_linear, whose
/// int8 operand is a weight that stays int8 in the program file, stored
/// once (fuse_qdq absorbs it into an integer operator, or it runs).
inline bool folds_on_constants(const OpDecl& op) {
  return op.core && !(op.flags & (kOpRandom | kOpAllocation)) && op.name != "dequantize_linear";
}

inline constexpr std::string_view kAtenDialect = "aten";
inline constexpr std::string_view kEdgeDialect = "edge";

/// A full name split into parts: "aten.add.Tensor" -> {aten, add, Tensor}.
struct OpName {
  std::string dialect, name, overload;
};
std::optional<OpName> split_op_name(std::string_view full_name);

/// The row for a full operator name whose dialect prefix is aten or edge
/// (regardless of whether that dialect allows it), or nullptr.
const OpInfo* find_op(std::string_view full_name);
/// The row for a base name ("add"), or nullptr.
const OpInfo* find_op_by_name(std::string_view base_name);
/// Whether `dialect` allows the operator (edge: core only; aten: both).
bool dialect_allows(std::string_view dialect, const OpInfo& op, std::string_view prefix);
bool is_known_dialect(std::string_view dialect);
/// Every row, sorted by base name.
std::span<const OpInfo* const> all_ops();

}  // namespace edgec
