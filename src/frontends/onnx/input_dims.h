// The sizes and bounds the import options give graph inputs' dims. --dim
// and --max-dim name a dim_param; --shape and --max-shape name an input
// and give every dim, which for a named dim means that name everywhere.
// A dim with neither a size nor a name gets the name INPUT_dimI, so that
// every option reaches it.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "frontends/onnx/importer.h"

namespace edgec::onnx_import {

struct InputDimSizes {
  /// By dim name (a dim_param, or INPUT_dimI for an unnamed dim).
  std::map<std::string, int64_t> sizes, bounds;
  /// Where each size or bound came from, for messages ("--shape x").
  std::map<std::string, std::string> size_source, bound_source;
};

/// The name of dim `i` of graph input `input` when the model gives it none.
std::string unnamed_dim_name(const std::string& input, int i);

/// Resolves the options against the graph's inputs (not `initializers`),
/// refusing names of no input, ranks that differ, sizes that contradict
/// the model or one another, and negative sizes: "WHAT: ...".
InputDimSizes resolve_input_dims(const onnx::GraphProto& g, const std::set<std::string>& initializers,
                                 const OnnxImportOptions& options, const std::string& what);

}  // namespace edgec::onnx_import
