// Shared pieces of the operator table's families: each family file
// (elementwise_ops.cpp, reduction_ops.cpp, ...) exports the shape functions
// of the operators declared beside their kernels, composite_ops.cpp the
// composites' rows, and the shape helpers here implement the rules several
// families share.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/diagnostic.h"
#include "ops/op_info.h"

namespace edgec::ops {

/// The rows of one family ("elementwise", "nn", ...), core and composite,
/// sorted by name: copies of the table's rows.
std::vector<OpInfo> family_rows(std::string_view family);  // op_table.cpp
inline std::vector<OpInfo> elementwise_rows() { return family_rows("elementwise"); }
inline std::vector<OpInfo> linalg_rows() { return family_rows("linalg"); }
/// Convolution, pooling, resize and normalization.
inline std::vector<OpInfo> nn_rows() { return family_rows("nn"); }
inline std::vector<OpInfo> shape_rows() { return family_rows("shape"); }
inline std::vector<OpInfo> indexing_rows() { return family_rows("indexing"); }
inline std::vector<OpInfo> creation_rows() { return family_rows("creation"); }

/// The shape function of a declared ResultRule (nullptr for Custom).
ShapeFn rule_shape(ResultRule rule);  // elementwise_ops.cpp
/// Shape functions of operators declared beside their kernels with
/// ResultRule::Custom, by name; each family file exports its own.
std::vector<std::pair<std::string_view, ShapeFn>> elementwise_shapes();  // elementwise_ops.cpp
std::vector<std::pair<std::string_view, ShapeFn>> reduction_shapes();    // reduction_ops.cpp
std::vector<std::pair<std::string_view, ShapeFn>> linalg_shapes();       // linalg_ops.cpp
std::vector<std::pair<std::string_view, ShapeFn>> nn_shapes();           // nn_ops.cpp
std::vector<std::pair<std::string_view, ShapeFn>> shape_shapes();        // shape_ops.cpp
std::vector<std::pair<std::string_view, ShapeFn>> indexing_shapes();     // indexing_ops.cpp
std::vector<std::pair<std::string_view, ShapeFn>> creation_shapes();     // creation_ops.cpp
std::vector<std::pair<std::string_view, ShapeFn>> quantized_shapes();    // quantized_ops.cpp
std::vector<std::pair<std::string_view, ShapeFn>> quantized_ms_shapes(); // quantized_ms_ops.cpp

/// The rows of the composite operators (core = false), each with its family.
std::vector<OpInfo> composite_rows();  // composite_ops.cpp

/// Throws "[op] message".
[[noreturn]] void op_error(std::string_view op, const std::string& message);

// ---- attributes ---------------------------------------------------------------
// Read like the kernels read them, through the operator's declaration
// (q.attr(name)): its default, absent is an error where it is required, and
// a value of another kind than declared is an error, except an int for a
// bool (ONNX writes bools as ints) and an empty float list for an empty int
// list.

/// Throws "expected attribute 'x' (int), got none".
[[noreturn]] void missing_attr(const ShapeQuery& q, const AttrDecl& decl);
/// Throws "expected attribute 'x' of kind int, got float".
[[noreturn]] void wrong_attr(const ShapeQuery& q, const AttrDecl& decl, const AttrValue& got);
/// The attribute's value, or nullptr when absent (thrown where it is required).
const AttrValue* find_attr(const ShapeQuery& q, const AttrDecl& decl);
int64_t int_attr(const ShapeQuery& q, std::string_view name);
bool bool_attr(const ShapeQuery& q, std::string_view name);
/// An int list; nullptr when absent and optional.
const std::vector<int64_t>* ints_attr(const ShapeQuery& q, std::string_view name);
/// An int list the declaration requires.
const std::vector<int64_t>& required_ints(const ShapeQuery& q, std::string_view name);

/// Requires exactly `n` inputs.
void expect_inputs(const ShapeQuery& q, size_t n);
/// Requires `t` to have one of the dtypes; `what` names the operand.
void expect_dtype(const ShapeQuery& q, const TensorType& t, std::initializer_list<DType> allowed,
                  const std::string& what);
void expect_dtype(const ShapeQuery& q, const TensorType& t, DTypeSet allowed, const std::string& what);
/// Normalizes a possibly negative dim against `rank`, or throws.
int64_t normalize_dim(const ShapeQuery& q, int64_t dim, int64_t rank);

/// numpy broadcasting of two shapes; symbolic dims broadcast against 1 and
/// are assumed equal to a static non-1 size they meet.
Dims broadcast_dims(const ShapeQuery& q, const Dims& a,
                                const Dims& b);

/// The sum of two dims (concat): static if both are.
Dim add_dims(const Dim& a, const Dim& b);

}  // namespace edgec::ops
