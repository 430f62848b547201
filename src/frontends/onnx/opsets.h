// Models older or newer than the importer's handlers. The handlers read operators
// as opset 13 defines them (and the later changes they check by opset);
// a model below opset 13 is brought to 13 first by ONNX's own version
// converter, which rewrites each operator whose meaning changed (Split's
// attribute becomes an input, Upsample becomes Resize, Softmax's 2-D
// coercion becomes Flatten + Softmax + Reshape...).
//
// Old Softmax and LogSoftmax are kept out of the converter: it rewrites
// them as Flatten + Softmax + Reshape to the input's shape, which it needs
// from shape inference (it fails without one) and writes wrong for
// symbolic dims (each becomes -1). They are imported at their own opset by
// handlers of the old meaning instead, which see the shapes edgec knows.
// So is PRelu before opset 7, whose slope of size C was one value per
// channel (dim 1), not a numpy broadcast; the converter passes it as it is.
//
// Some adapters need shapes (opset 6's broadcasting Add and Gemm): a model
// the converter refuses is tried once more after ONNX's shape inference.
//
// The converter can still fail. Then the model is imported at its own
// opset: a node whose operator means what it means at 13 goes to its
// handler; any other operator whose meaning changed is refused, naming the
// change and the converter's reason.
//
// Newer models (opsets 18-23) are read as they are: libonnx knows no
// schema past opset 17, so the schemas of the operators that changed since
// are edgec's own (newer_schemas.cpp) and the handlers check the opset
// where the meaning changed (Reduce*'s axes became an input at 18...).
#pragma once

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <string>
#include <unordered_map>

#include "frontends/onnx/context.h"

namespace edgec::onnx_import {

/// The opset the handlers read; older models are converted to it.
constexpr int64_t kHandlersOpset = 13;

struct Conversion {
  /// Why the converter could not convert the model (left as it was), or "".
  std::string failure;
  /// The nodes kept at their old opset (by their first output's name).
  std::unordered_map<std::string, int64_t> kept;
};

/// Brings `model` (default domain below kHandlersOpset) to
/// kHandlersOpset with ONNX's version converter, but for the nodes kept at
/// their opset (see above).
Conversion convert_to_handlers_opset(onnx::ModelProto& model);

/// For a node of `op_type` at `opset` (below kHandlersOpset) in a model the
/// converter could not convert: null when its handler reads it as it is,
/// else why not ("Split's sizes became an input at opset 13").
const char* meaning_changed_since(const std::string& op_type, int64_t opset);

/// The last opset whose schemas Debian's libonnx (ONNX 1.12) knows.
constexpr int64_t kLibonnxOpset = 17;

/// The schema of `op_type` at `opset` (past kLibonnxOpset) when it changed
/// after kLibonnxOpset, or null (libonnx's schema holds).
const onnx::OpSchema* newer_schema(const std::string& op_type, int64_t opset);

/// The handler for the old meaning of `op_type` at `opset`, or null when
/// the current handler reads it.
Handler legacy_handler(const std::string& op_type, int64_t opset);

}  // namespace edgec::onnx_import
