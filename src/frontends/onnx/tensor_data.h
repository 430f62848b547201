// ONNX tensors as edgec data: element types, TensorProto decoding, and
// conversions between small tensors and numbers.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/program.h"

namespace edgec::onnx_import {

/// ONNX element type -> DType, or nullopt for types edgec does not compute with.
std::optional<DType> dtype_from_onnx(int32_t elem_type);
/// DType -> ONNX element type.
int32_t onnx_elem_type(DType dtype);
/// "float", "double", "int16", ... for messages.
std::string onnx_type_name(int32_t elem_type);
/// Reads a TensorProto's data (raw or typed fields); throws CompileError
/// naming `what` when the type is unsupported or the sizes disagree.
TensorData tensor_from_proto(const onnx::TensorProto& t, const std::string& what);
/// A value name for the IR: [A-Za-z0-9_.] only.
std::string sanitize_name(const std::string& name);
/// Data of a static type holding `values`, converted to `dtype`.
TensorData make_data(DType dtype, const std::vector<int64_t>& shape, const std::vector<double>& values);
/// The same from exact integers.
TensorData make_int_data(DType dtype, const std::vector<int64_t>& shape, const std::vector<int64_t>& values);
/// Elements of int or bool data as int64, of float data as double.
std::vector<int64_t> data_as_ints(const TensorData& d);
std::vector<double> data_as_doubles(const TensorData& d);

}  // namespace edgec::onnx_import
