// Old opsets: ONNX's version converter, and the old meanings the importer
// knows itself (opsets.h).
#include "frontends/onnx/opsets.h"

#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <algorithm>
#include <map>
#include <unordered_set>
#include <utility>

namespace edgec::onnx_import {

namespace {

// Kept nodes go through the converter as an Identity of a private domain
// (the converter passes Identity through at every opset and infers no
// shape for a domain it does not know), carrying their op_type in an
// attribute; they are restored after it.
constexpr const char* kKeptDomain = "edgec.kept";
constexpr const char* kKeptOpType = "edgec_op_type";

// Scan too: the converter's 8 -> 9 adapter drops the batch dim from the
// graph's inputs (an opset-8 model's [1, 2] state became [2]); the Scan
// handler reads opset 8's batched form itself (ops_control.cpp). And PRelu
// before opset 7: the converter passes it as it is, but its slope of one
// value per channel ([C] for [N, C, ...]) is no numpy broadcast
// (legacy_prelu).
bool kept_from_converter(const onnx::NodeProto& n, int64_t opset) {
  return (n.domain().empty() || n.domain() == "ai.onnx") &&
         (n.op_type() == "Softmax" || n.op_type() == "LogSoftmax" || n.op_type() == "Hardmax" ||
          n.op_type() == "Scan" || (n.op_type() == "PRelu" && opset < 7));
}

void restore_kept(onnx::ModelProto& model) {
  auto& imports = *model.mutable_opset_import();
  for (int i = imports.size() - 1; i >= 0; --i)
    if (imports.Get(i).domain() == kKeptDomain) imports.DeleteSubrange(i, 1);
  for (auto& n : *model.mutable_graph()->mutable_node()) {
    if (n.domain() != kKeptDomain) continue;
    auto& attrs = *n.mutable_attribute();
    for (int i = attrs.size() - 1; i >= 0; --i) {
      if (attrs.Get(i).name() != kKeptOpType) continue;
      n.set_op_type(attrs.Get(i).s());
      attrs.DeleteSubrange(i, 1);
    }
    n.clear_domain();
  }
}

// The converter reads no initializer's values (its adapters move
// attributes into new initializers and rewire nodes) but copies every one,
// and drops the references to external data files. It is given stubs of
// the right name, type and dims; the model keeps its own.
onnx::ModelProto without_weights(const onnx::ModelProto& model) {
  onnx::ModelProto light;
  light.set_ir_version(model.ir_version());
  *light.mutable_opset_import() = model.opset_import();
  const onnx::GraphProto& g = model.graph();
  onnx::GraphProto& lg = *light.mutable_graph();
  lg.set_name(g.name());
  *lg.mutable_node() = g.node();
  *lg.mutable_input() = g.input();
  *lg.mutable_output() = g.output();
  *lg.mutable_value_info() = g.value_info();
  for (const auto& t : g.initializer()) {
    onnx::TensorProto& stub = *lg.add_initializer();
    stub.set_name(t.name());
    stub.set_data_type(t.data_type());
    *stub.mutable_dims() = t.dims();
  }
  return light;
}

/// The converted graph, with the model's own initializers (and those the
/// converter added).
void take_converted_graph(onnx::ModelProto& model, const onnx::ModelProto& converted) {
  *model.mutable_opset_import() = converted.opset_import();
  onnx::GraphProto& g = *model.mutable_graph();
  const onnx::GraphProto& cg = converted.graph();
  *g.mutable_node() = cg.node();
  *g.mutable_input() = cg.input();
  *g.mutable_output() = cg.output();
  *g.mutable_value_info() = cg.value_info();
  std::unordered_set<std::string> own;
  for (const auto& t : g.initializer()) own.insert(t.name());
  for (const auto& t : cg.initializer())
    if (!own.count(t.name())) *g.add_initializer() = t;
}

}  // namespace

Conversion convert_to_handlers_opset(onnx::ModelProto& model) {
  Conversion result;
  int64_t opset = 0;
  for (const auto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  for (auto& n : *model.mutable_graph()->mutable_node()) {
    if (!kept_from_converter(n, opset) || n.output_size() == 0) continue;
    result.kept[n.output(0)] = opset;
    auto* a = n.add_attribute();
    a->set_name(kKeptOpType);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(n.op_type());
    n.set_op_type("Identity");
    n.set_domain(kKeptDomain);
  }
  if (!result.kept.empty()) {
    auto* o = model.add_opset_import();
    o->set_domain(kKeptDomain);
    o->set_version(1);
  }
  // Some adapters need their inputs' shapes (opset 6's broadcasting Add and
  // Gemm read the ranks), which the converter does not infer itself; ONNX's
  // Python convert_version runs shape inference first. A model that fails
  // without it is given one more try with the shapes inferred; the shapes
  // stay out of the model (the importer infers its own).
  const onnx::ModelProto light = without_weights(model);
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      onnx::ModelProto input = light;
      if (attempt == 1) onnx::shape_inference::InferShapes(input);
      onnx::ModelProto converted =
          onnx::version_conversion::ConvertVersion(input, static_cast<int>(kHandlersOpset));
      if (attempt == 1) *converted.mutable_graph()->mutable_value_info() = light.graph().value_info();
      take_converted_graph(model, converted);
      result.failure.clear();
      break;
    } catch (const std::exception& e) {
      // The converter's messages can run to the whole graph; its first line
      // says what failed. The first attempt's reason is the one reported.
      if (attempt == 1) continue;
      result.failure = e.what();
      if (const size_t eol = result.failure.find('\n'); eol != std::string::npos) result.failure.resize(eol);
      if (result.failure.empty()) result.failure = "the converter gave no reason";
    }
  }
  restore_kept(model);
  return result;
}

namespace {

// Where an operator's meaning changed between opset 1 and 13 in a way the
// current handler would misread (an attribute that became an input, a
// changed default or semantics); opsets that only added element types or
// extended a range (negative axes) are not listed. From ONNX's changelog.
struct MeaningChange {
  int64_t opset;
  const char* what;
};
const std::multimap<std::string, MeaningChange>& meaning_changes() {
  static const std::multimap<std::string, MeaningChange> table = {
      {"Add", {7, "Add's 'broadcast' and 'axis' attributes became numpy broadcasting at opset 7"}},
      {"Sub", {7, "Sub's 'broadcast' and 'axis' attributes became numpy broadcasting at opset 7"}},
      {"Mul", {7, "Mul's 'broadcast' and 'axis' attributes became numpy broadcasting at opset 7"}},
      {"Div", {7, "Div's 'broadcast' and 'axis' attributes became numpy broadcasting at opset 7"}},
      {"Pow", {7, "Pow's 'broadcast' and 'axis' attributes became numpy broadcasting at opset 7"}},
      {"And", {7, "And's 'broadcast' and 'axis' attributes became numpy broadcasting at opset 7"}},
      {"Or", {7, "Or's 'broadcast' and 'axis' attributes became numpy broadcasting at opset 7"}},
      {"Xor", {7, "Xor's 'broadcast' and 'axis' attributes became numpy broadcasting at opset 7"}},
      {"Equal", {7, "Equal's 'broadcast' and 'axis' attributes became numpy broadcasting at opset 7"}},
      {"Greater", {7, "Greater's 'broadcast' and 'axis' attributes became numpy broadcasting at opset 7"}},
      {"Less", {7, "Less's 'broadcast' and 'axis' attributes became numpy broadcasting at opset 7"}},
      {"PRelu", {7, "PRelu's slope became numpy-broadcast at opset 7"}},
      {"Gemm", {7, "Gemm's 'broadcast' attribute became unidirectional broadcasting of C at opset 7"}},
      {"Concat", {4, "Concat's 'axis' became required at opset 4 (before, it defaulted to 1)"}},
      {"Reshape", {5, "Reshape's 'shape' attribute became an input at opset 5"}},
      {"Cast", {6, "Cast's 'to' changed from a type name to a type number at opset 6"}},
      {"Tile", {6, "Tile's 'tiles' and 'axis' inputs became one 'repeats' input at opset 6"}},
      {"Split", {2, "Split's sizes moved from an input to the 'split' attribute at opset 2"}},
      {"Split", {13, "Split's sizes moved from the 'split' attribute to an input at opset 13"}},
      {"BatchNormalization", {9, "BatchNormalization's 'spatial' attribute was removed at opset 9"}},
      {"Slice", {10, "Slice's 'starts', 'ends' and 'axes' attributes became inputs at opset 10"}},
      {"TopK", {10, "TopK's 'k' attribute became an input at opset 10"}},
      {"Pad", {11, "Pad's 'pads' and 'value' attributes became inputs at opset 11"}},
      {"Clip", {11, "Clip's 'min' and 'max' attributes became inputs at opset 11"}},
      {"Resize", {11, "Resize gained 'roi' and the coordinate transformation modes at opset 11"}},
      {"Dropout", {12, "Dropout's 'ratio' attribute became an input at opset 12"}},
      {"Squeeze", {13, "Squeeze's 'axes' attribute became an input at opset 13"}},
      {"Unsqueeze", {13, "Unsqueeze's 'axes' attribute became an input at opset 13"}},
      {"ReduceSum", {13, "ReduceSum's 'axes' attribute became an input at opset 13"}},
      {"Softmax", {13, "Softmax over the 2-D coercion at 'axis' became Softmax along 'axis' at opset 13"}},
      {"LogSoftmax", {13, "LogSoftmax over the 2-D coercion at 'axis' became LogSoftmax along 'axis' at opset 13"}},
      {"Hardmax", {13, "Hardmax over the 2-D coercion at 'axis' became Hardmax along 'axis' at opset 13"}},
  };
  return table;
}

// ---- Softmax and LogSoftmax before opset 13 -----------------------------------

// The input is coerced to 2-D at 'axis' (default 1): the result is the
// softmax over all dims from 'axis' on. Along the last dim alone it is
// today's operator; over several dims it is composed from reductions over
// them (exp(x - max) / sum), which keeps symbolic dims symbolic.
void legacy_softmax(NodeContext& n) {
  const bool log = n.proto().op_type() == "LogSoftmax";
  Value* x = n.value(0);
  const int64_t rank = n.type(0).rank();
  int64_t axis = n.attr_int("axis", 1);
  if (rank == 0 || axis < -rank || axis >= rank)
    n.fail("attribute 'axis' is " + std::to_string(axis) + "; expected an axis in [" + std::to_string(-rank) + ", " +
           std::to_string(rank - 1) + "] for " + n.typed_operand(0));
  if (axis < 0) axis += rank;
  if (axis == rank - 1) {
    n.set_output(0, n.emit(log ? "log_softmax" : "softmax", {x}, attrs_of({{"dim", axis}})));
    return;
  }
  std::vector<int64_t> dims;
  for (int64_t d = axis; d < rank; ++d) dims.push_back(d);
  const Attrs over = attrs_of({{"dims", dims}, {"keepdim", true}});
  Value* shifted = n.emit("sub", {x, n.emit("amax", {x}, over)});
  Value* e = n.emit("exp", {shifted});
  Value* total = n.emit("sum", {e}, over);
  n.set_output(0, log ? n.emit("sub", {shifted, n.emit("log", {total})}) : n.emit("div", {e, total}));
}

// ---- Hardmax before opset 13 ---------------------------------------------------

// The one-hot of the first maximum over all dims from 'axis' on (the 2-D
// coercion), in row-major order: the input is reshaped to (dims before
// 'axis', the rest flattened), the first maximum of each row is where a
// running count of its maxima is 1, and the result is reshaped back. Each
// reshape can leave one size to run time.
void legacy_hardmax(NodeContext& n) {
  Value* x = n.value(0);
  const TensorType& xt = n.type(0);
  const int64_t rank = xt.rank();
  int64_t axis = n.attr_int("axis", 1);
  if (rank == 0 || axis < -rank || axis >= rank)
    n.fail("attribute 'axis' is " + std::to_string(axis) + "; expected an axis in [" + std::to_string(-rank) + ", " +
           std::to_string(rank - 1) + "] for " + n.typed_operand(0));
  if (axis < 0) axis += rank;
  std::vector<int64_t> rows, back;
  int64_t tail = 1;
  for (int64_t d = 0; d < rank; ++d) {
    const Dim& dim = xt.dims[d];
    back.push_back(dim.is_static() ? dim.value : -1);
    if (d < axis) rows.push_back(back.back());
    else tail = tail < 0 || !dim.is_static() ? -1 : tail * dim.value;
  }
  rows.push_back(tail);
  if (std::count(back.begin(), back.end(), -1) > 1)
    n.fail("cannot coerce " + n.typed_operand(0) + " to 2-D at axis " + std::to_string(axis) +
           ": it has more than one symbolic dim, and a reshape can leave only one size to run time" +
           n.im().dim_fix(xt.dims));
  Value* flat = n.emit("reshape", {x}, attrs_of({{"shape", rows}}));
  const int64_t last = static_cast<int64_t>(rows.size()) - 1;
  Value* top = n.emit("amax", {flat}, attrs_of({{"dims", std::vector<int64_t>{last}}, {"keepdim", true}}));
  Value* is_max = n.emit("eq", {flat, top});
  Value* count = n.emit("cumsum", {n.emit("cast", {is_max}, attrs_of({{"dtype", DType::Int64}}))},
                        attrs_of({{"dim", last}}));
  Value* first = n.emit("logical_and", {is_max, n.emit("eq", {count, n.im().full({}, 1.0, DType::Int64, n.hint())})});
  Value* y = n.emit("cast", {first}, attrs_of({{"dtype", xt.dtype}}));
  n.set_output(0, n.emit("reshape", {y}, attrs_of({{"shape", back}})));
}

// ---- PRelu before opset 7 -------------------------------------------------------

// f(x) = x for x >= 0, slope * x otherwise, where the slope is one value
// shared by every element or, of size C, one per channel (dim 1 of
// [N, C, ...]); opset 7 made it a numpy broadcast, under which [C] would
// align with the last dim. Any other slope is read as opset 7 reads it
// (the product's broadcast refuses one that does not fit).
void legacy_prelu(NodeContext& n) {
  Value* x = n.value(0);
  Value* slope = n.value(1);
  const TensorType& xt = n.type(0);
  const TensorType& st = n.type(1);
  const int64_t rank = xt.rank();
  if (rank > 2 && st.rank() == 1 && st.dims[0].is_static() && st.dims[0].value > 1 && xt.dims[1].is_static() &&
      xt.dims[1].value == st.dims[0].value) {
    std::vector<int64_t> shape(static_cast<size_t>(rank - 1), 1);
    shape[0] = st.dims[0].value;
    slope = n.emit("reshape", {slope}, attrs_of({{"shape", shape}}));
  }
  Value* zero = n.im().full({}, 0.0, xt.dtype, n.hint());
  Value* positive = n.emit("ge", {x, zero});
  n.set_output(0, n.emit("where", {positive, x, n.emit("mul", {x, slope})}));
}

}  // namespace

const char* meaning_changed_since(const std::string& op_type, int64_t opset) {
  auto [first, last] = meaning_changes().equal_range(op_type);
  for (auto it = first; it != last; ++it)
    if (opset < it->second.opset && it->second.opset <= kHandlersOpset) return it->second.what;
  return nullptr;
}

Handler legacy_handler(const std::string& op_type, int64_t opset) {
  if ((op_type == "Softmax" || op_type == "LogSoftmax") && opset < 13) return legacy_softmax;
  if (op_type == "Hardmax" && opset < 13) return legacy_hardmax;
  if (op_type == "PRelu" && opset < 7) return legacy_prelu;
  return nullptr;
}

}  // namespace edgec::onnx_import
