// The row type of the operator table (SEMANTICS §2; MLX-style single source
// of truth). The rows themselves live in src/ops, one file per family; the IR
// only looks them up, so the verifier and the parser need no op-specific code.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/attrs.h"
#include "ir/program.h"
#include "ir/types.h"

namespace edgec {

enum class OperandKind : uint8_t {
  Tensor,    ///< Exactly one tensor.
  Optional,  ///< Zero or one tensor; only trailing operands may be optional.
  List,      ///< Any number of tensors (concat's inputs, index's indices).
};

struct OperandSpec {
  std::string name;
  OperandKind kind = OperandKind::Tensor;
};

struct AttrSpec {
  std::string name;
  AttrKind kind = AttrKind::Int;
  bool required = false;
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

/// What a shape function sees: the flat input types (list operands
/// expanded, absent optionals left out), their grouping, and the attributes.
struct ShapeQuery {
  std::string_view op;  ///< Base name, for messages.
  TypeList inputs;
  std::span<const OperandGroup> groups;
  const Attrs& attrs;
};

/// Infers result types, or throws CompileError "[op] expected ..., got ...".
using ShapeFn = std::vector<TensorType> (*)(const ShapeQuery& q);

/// Rewrites one call of a composite operator into core operators of
/// `dialect`, replacing the uses of its results; the caller erases it.
using DecomposeFn = void (*)(Graph& graph, Node* call, const std::string& dialect);

enum OpFlags : uint32_t {
  kOpElementwise = 1u << 0,   ///< Output element i depends on input element i (after broadcast).
  kOpRandom = 1u << 1,        ///< Never folded: results differ between runs.
  kOpAllocation = 1u << 2,    ///< Creates a tensor from attributes only (full, arange).
  kOpShapeOnly = 1u << 3,     ///< Moves or views data without arithmetic.
  kOpDataDependent = 1u << 4, ///< Output shape depends on input values.
};

struct OpInfo {
  std::string name;      ///< Base name: "add".
  std::string overload;  ///< "Tensor", "default".
  /// Core operators exist in both dialects and have kernels; composites exist
  /// only in aten and are decomposed by to_edge.
  bool core = true;
  std::vector<OperandSpec> operands;
  std::vector<AttrSpec> attrs;
  ShapeFn shape = nullptr;
  DecomposeFn decompose = nullptr;
  uint32_t flags = 0;
  std::string summary;  ///< One line for `edgec ops` / docs.

  std::string full_name(std::string_view dialect) const {
    return std::string(dialect) + "." + name + "." + overload;
  }
  const AttrSpec* attr(std::string_view attr_name) const {
    for (const auto& a : attrs)
      if (a.name == attr_name) return &a;
    return nullptr;
  }
};

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
/// find_op of a call's operator, remembered by the node until its operator
/// changes: every pass and the verifier look up every call.
inline const OpInfo* op_of(const Node& call) {
  if (const OpInfo* cached = call.cached_op_info()) return cached;
  const OpInfo* op = find_op(call.op());
  call.cache_op_info(op);
  return op;
}
/// The row for a base name ("add"), or nullptr.
const OpInfo* find_op_by_name(std::string_view base_name);
/// Whether `dialect` allows the operator (edge: core only; aten: both).
bool dialect_allows(std::string_view dialect, const OpInfo& op, std::string_view prefix);
bool is_known_dialect(std::string_view dialect);
/// Every row, sorted by base name.
std::span<const OpInfo* const> all_ops();

/// Runs the row's shape function on a call's current input types.
std::vector<TensorType> infer_result_types(const OpInfo& op, const Node& call);
/// The row's shape function on the types of `inputs` (a call about to be
/// made), without infer_result_types's check that each result's size fits.
std::vector<TensorType> shape_of_call(const OpInfo& op, std::span<Value* const> inputs,
                                      std::span<const OperandGroup> groups, const Attrs& attrs);

}  // namespace edgec
