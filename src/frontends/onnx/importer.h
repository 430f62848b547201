// The ONNX importer: an ONNX model (opsets 13-17 of the default domain, IR
// version <= 8, as torch 1.13's exporter writes them) becomes a verified
// program of the aten dialect.
//
// - Initializers that are not graph inputs become `constant` placeholders,
//   initializers that are also graph inputs (overridable defaults) become
//   `parameter`s, and `Constant` nodes become `constant`s (docs/semantics.md §1).
// - Types are inferred by the operator table's shape functions, not read
//   from the model's value_info; the model only supplies its input types.
// - Shape computations (Shape -> Gather -> Concat -> Reshape chains) are
//   folded at import time, symbolically when a dim is symbolic, so that
//   reshape/expand targets become attributes.
//
// Every failure is a CompileError whose message names the file and, for a
// node, its name, index, op_type, domain and opset, and the input, output
// or attribute concerned (refusals are onnx_import::ImportRefusal, see
// refusal.h); where a flag would fix it (--fix-inputs, --dim), it says so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ir/program.h"

namespace edgec {

struct OnnxImportOptions {
  /// Fixes a dim_param (a symbolic input dim) to a size. A dim with neither
  /// a size nor a name is named INPUT_dimI (dim I of graph input INPUT).
  std::map<std::string, int64_t> dim_sizes;
  /// Gives a dim_param an upper bound; it stays symbolic.
  std::map<std::string, int64_t> dim_bounds;
  /// Sizes every dim of a graph input, named or not (`--shape
  /// NAME=1x3x224x224`, as trtexec's --shapes); a named dim is then that
  /// size wherever it appears. A dim the model fixes must be given its size.
  std::map<std::string, std::vector<int64_t>> input_shapes;
  /// Bounds every dim of a graph input (`--max-shape NAME=8x3x640x640`);
  /// its symbolic dims stay symbolic, up to these sizes.
  std::map<std::string, std::vector<int64_t>> input_max_shapes;
  /// Graph inputs fixed at compile time: each becomes a constant of the
  /// given value (checked against the input's declared type) and leaves the
  /// program's signature. For inputs that determine shapes (a Reshape
  /// target, Slice starts, Resize sizes...), which edgec must know to plan
  /// memory.
  std::map<std::string, TensorData> input_values;
};

/// Reads and imports the model at `path`. Tensors kept in external data
/// files are read from the folder holding `path` (never from outside it).
/// Throws CompileError.
std::unique_ptr<Program> import_onnx(const std::string& path, const OnnxImportOptions& options = {});

/// Imports a serialized ModelProto; `what` names it in messages (a path).
/// The bytes have no folder, so tensors in external data files are refused.
std::unique_ptr<Program> import_onnx_bytes(std::span<const std::byte> bytes, const std::string& what,
                                           const OnnxImportOptions& options = {});

/// The op_types of the default domain the importer handles (sorted), for
/// the user guide and the ONNX node tests' denominator.
std::vector<std::string> onnx_supported_operators();

/// The op_types of ONNX Runtime's com.microsoft domain (version 1) the
/// importer handles (sorted), for the user guide.
std::vector<std::string> onnx_microsoft_operators();

/// The default-domain opsets the importer accepts: [first, second].
std::pair<int64_t, int64_t> onnx_supported_opsets();

}  // namespace edgec
