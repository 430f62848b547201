// The ONNX importer: an ONNX model (opsets 13-17 of the default domain, IR
// version <= 8, as torch 1.13's exporter writes them) becomes a verified
// program of the aten dialect.
//
// - Initializers that are not graph inputs become `constant` placeholders,
//   initializers that are also graph inputs (overridable defaults) become
//   `parameter`s, and `Constant` nodes become `constant`s (SEMANTICS §1).
// - Types are inferred by the operator table's shape functions, not read
//   from the model's value_info; the model only supplies its input types.
// - Shape computations (Shape -> Gather -> Concat -> Reshape chains) are
//   folded at import time, symbolically when a dim is symbolic, so that
//   reshape/expand targets become attributes.
//
// Every failure is a CompileError whose message names the file and, for a
// node, its name, index, op_type, domain and opset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>

#include "ir/program.h"

namespace edgec {

struct OnnxImportOptions {
  /// Fixes a dim_param (a symbolic input dim) to a size.
  std::map<std::string, int64_t> dim_sizes;
  /// Gives a dim_param an upper bound; it stays symbolic.
  std::map<std::string, int64_t> dim_bounds;
};

/// Reads and imports the model at `path`. Throws CompileError.
std::unique_ptr<Program> import_onnx(const std::string& path, const OnnxImportOptions& options = {});

/// Imports a serialized ModelProto; `what` names it in messages (a path).
std::unique_ptr<Program> import_onnx_bytes(std::span<const std::byte> bytes, const std::string& what,
                                           const OnnxImportOptions& options = {});

}  // namespace edgec
