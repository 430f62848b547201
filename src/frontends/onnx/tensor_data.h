// ONNX tensors as edgec data: element types, TensorProto decoding (data in
// the model or in external files next to it), and conversions between small
// tensors and numbers.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <filesystem>
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
/// Where tensors stored outside the model (data_location EXTERNAL) are read
/// from: the folder of the model file. A model imported from bytes has no
/// folder (`folder` empty) and its external tensors are refused.
struct ExternalDataSource {
  std::filesystem::path folder;  ///< Canonical (symlink-free) folder of the model file.
};

/// Reads a TensorProto's data (raw or typed fields, or the external file its
/// external_data names, resolved inside `external`'s folder); throws
/// CompileError naming `what` (and the location) when the type is
/// unsupported, the sizes disagree, or the external file is missing, outside
/// the model's folder, not a regular file or too short.
TensorData tensor_from_proto(const onnx::TensorProto& t, const std::string& what,
                             const ExternalDataSource& external = {});
/// Replaces an external tensor's reference by its bytes (raw_data), so that
/// code without the model's folder (the Constant handlers) can read it.
/// Does nothing for a tensor stored in the model.
void inline_external_data(onnx::TensorProto& t, const std::string& what, const ExternalDataSource& external);
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
