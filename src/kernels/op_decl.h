// An operator's declaration: its name, operands, attributes (kind,
// default, allowed values), the dtypes it computes on and how its result is
// typed. Declared once, beside the operator's portable kernel (or, for a
// composite operator with no kernel, in src/ops/composite_ops.cpp), so that
// every layer that handles the operator reads the same facts: the verifier
// (an attribute value the declaration refuses is an error naming it), the
// shape functions, the kernel's own attribute parsing (so the interpreter
// and the runtime, which run the kernels), and each backend's partitioner
// and runtime builders. It depends on nothing of
// the compiler: the runtime reads it too. docs/architecture.md, "Adding an
// operator", walks through one.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/attrs.h"
#include "base/dtype.h"
#include "base/error.h"

namespace edgec {

/// Which values of an attribute are allowed besides its kind.
enum class AttrRule : uint8_t {
  Any,          ///< Every value of the kind.
  NonZero,      ///< A number other than 0.
  Positive,     ///< A number > 0; for int lists, every element.
  NonNegative,  ///< A number >= 0; for int lists, every element.
  OneOf,        ///< A string among `choices`.
};

/// One attribute of an operator. An absent attribute that is not required
/// takes its default: `number` (Int, Float, Bool: 0 or 1), `text`
/// (String), `dtype` (DType); lists default to empty.
struct AttrDecl {
  std::string_view name;
  AttrKind kind = AttrKind::Int;
  bool required = false;
  double number = 0;
  std::string_view text;
  DType dtype = DType::Float32;
  AttrRule rule = AttrRule::Any;
  std::vector<std::string_view> choices;  ///< OneOf only.

  /// The value in `attrs`, or the default. An int is read as a float where
  /// a float is declared (the text form of 1.0 may be 1).
  double float_value(const Attrs& attrs) const;
  int64_t int_value(const Attrs& attrs) const;
  bool bool_value(const Attrs& attrs) const;
  std::string_view string_value(const Attrs& attrs) const;
  DType dtype_value(const Attrs& attrs) const;
  /// The list in `attrs`, or nullptr when absent.
  const std::vector<int64_t>* ints_value(const Attrs& attrs) const;

  /// Why `value` is not allowed ("expected a float, got str", "expected a
  /// value other than 0, got 0"), or "" when it is.
  std::string problem(const AttrValue& value) const;
  /// "a float other than 0", "one of 'none', 'tanh'": what the rule allows.
  std::string allowed() const;
};

/// Shorthands for declaring attributes in a row.
AttrDecl attr_int(std::string_view name, int64_t dflt, AttrRule rule = AttrRule::Any);
AttrDecl attr_float(std::string_view name, double dflt, AttrRule rule = AttrRule::Any);
AttrDecl attr_bool(std::string_view name, bool dflt);
AttrDecl attr_string(std::string_view name, std::string_view dflt, std::initializer_list<std::string_view> choices);
AttrDecl attr_ints(std::string_view name, AttrRule rule = AttrRule::Any);
AttrDecl attr_floats(std::string_view name);
AttrDecl attr_dtype(std::string_view name, DType dflt);
/// The same attribute, required (no default).
AttrDecl required(AttrDecl a);

enum class OperandKind : uint8_t {
  Tensor,    ///< Exactly one tensor.
  Optional,  ///< Zero or one tensor; only trailing operands may be optional.
  List,      ///< Any number of tensors (concat's inputs, index's indices).
};

struct OperandDecl {
  std::string_view name;
  OperandKind kind = OperandKind::Tensor;
};

/// A set of dtypes (a bit per DType).
class DTypeSet {
 public:
  constexpr DTypeSet() = default;
  constexpr DTypeSet(std::initializer_list<DType> dtypes) {
    for (DType d : dtypes) bits_ |= bit(d);
  }
  constexpr bool contains(DType d) const { return (bits_ & bit(d)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr DTypeSet operator|(DTypeSet o) const { return DTypeSet(bits_ | o.bits_); }
  bool operator==(const DTypeSet&) const = default;
  /// "f32, f16" in DType order.
  std::string str() const;

 private:
  constexpr explicit DTypeSet(uint32_t bits) : bits_(bits) {}
  static constexpr uint32_t bit(DType d) { return uint32_t{1} << static_cast<unsigned>(d); }
  uint32_t bits_ = 0;
};

/// Dtype sets that many declarations share. kFloatDTypes and kNumericDTypes
/// are what the tuned kernels (convolution, pooling, normalization, resize)
/// take; float64 and the wider integer types (i16, u16, u32, u64) are taken
/// by the portable kernels that list them (kAllDTypes: every dtype, for the
/// operators that only move bytes).
inline constexpr DTypeSet kFloatDTypes = {DType::Float32, DType::Float16};
inline constexpr DTypeSet kNumericDTypes = {DType::Float32, DType::Float16, DType::Int64,
                                            DType::Int32,   DType::Int8,    DType::UInt8};
inline constexpr DTypeSet kExtraDTypes = {DType::Float64, DType::Int16, DType::UInt16, DType::UInt32,
                                          DType::UInt64};
inline constexpr DTypeSet kAllDTypes = kNumericDTypes | kExtraDTypes | DTypeSet{DType::Bool};

/// How a call's result types follow from its inputs, for the operators
/// whose rule is one of a few (elementwise ones); others name a shape
/// function of the operator table (src/ops).
enum class ResultRule : uint8_t {
  Custom,            ///< A shape function registered under the operator's name (src/ops).
  SameAsInput,       ///< Unary: input 0's type.
  SameShapeBool,     ///< Unary predicate: bool of input 0's shape.
  Broadcast,         ///< Binary: the operands' dtype, their broadcast shape.
  BroadcastToBool,   ///< Binary comparison: bool, the broadcast shape.
};

enum OpFlags : uint32_t {
  kOpElementwise = 1u << 0,    ///< Output element i depends on input element i (after broadcast).
  kOpRandom = 1u << 1,         ///< Never folded: results differ between runs.
  kOpAllocation = 1u << 2,     ///< Creates a tensor from attributes only (full, arange).
  kOpShapeOnly = 1u << 3,      ///< Moves or views data without arithmetic.
  kOpDataDependent = 1u << 4,  ///< Output shape depends on input values.
};

struct OpDecl {
  std::string_view name;             ///< Base name: "add".
  /// The family the operator belongs to ("elementwise", "nn", "shape", ...),
  /// after its kernel's file ("nn": convolution, pooling, resize and
  /// normalization) or, for a composite (declared in
  /// src/ops/composite_ops.cpp), after the operators it decomposes into.
  std::string_view family;
  std::string_view overload = "default";  ///< "Tensor", "default".
  /// Core operators exist in both dialects and have kernels; composites
  /// exist only in aten and are decomposed by to_edge.
  bool core = true;
  std::vector<OperandDecl> operands;
  std::vector<AttrDecl> attrs;
  /// The dtypes of the data operand (input 0, or the operands a rule
  /// broadcasts); empty: the shape function checks dtypes itself.
  DTypeSet dtypes;
  ResultRule result = ResultRule::Custom;
  uint32_t flags = 0;
  std::string_view summary;  ///< One line, for docs and `edgec opt --help`.

  /// The declaration of attribute `name`, or nullptr.
  const AttrDecl* attr(std::string_view attr_name) const;
  /// Why `attrs` does not fit the declaration (an unknown or missing
  /// attribute, a kind or value not allowed), naming the attribute: "attribute
  /// 'beta' is 0; expected a float other than 0"; or "" when it fits.
  std::string attrs_problem(const Attrs& attrs) const;
};

/// The one instance of a struct of attribute declarations, built on first
/// use. A kernel file declares its operators' attributes once, as the
/// members of such a struct (`struct PadDecls { AttrDecl pads =
/// required(attr_ints("pads")); ... };`), and its rows and its kernels both
/// read declared<PadDecls>(): the same objects.
template <typename Decls>
const Decls& declared() {
  static const Decls d;
  return d;
}

/// A declaration whose result types a shape function of src/ops gives
/// (registered under `name`).
OpDecl declare(std::string_view name, std::string_view family, std::vector<OperandDecl> operands,
               std::vector<AttrDecl> attrs, DTypeSet dtypes, uint32_t flags, std::string_view summary);

// ---- kernel-side reading ---------------------------------------------------
// A kernel reads its attributes through their declarations: the value, or
// the declared default when absent. A value of another kind, or one the
// declaration does not allow, is an InvalidArgument naming the operator and
// the attribute (a program file is untrusted; the compiler's verifier has
// already refused such values in what it writes).

/// Float (an int is read as a float).
Error read_attr(std::string_view op, const Attrs& attrs, const AttrDecl& decl, double& value);
/// String (one of the declared choices, when there are some).
Error read_attr(std::string_view op, const Attrs& attrs, const AttrDecl& decl, std::string_view& value);
/// Int (a bool is read as 0 or 1).
Error read_attr(std::string_view op, const Attrs& attrs, const AttrDecl& decl, int64_t& value);
/// Bool (an int is read as false for 0).
Error read_attr(std::string_view op, const Attrs& attrs, const AttrDecl& decl, bool& value);

}  // namespace edgec
