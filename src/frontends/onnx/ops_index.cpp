// Indexing, reductions and data-dependent ONNX operators: GatherElements,
// GatherND (our `index` with one index per leading dim), NonZero (ours is
// [n, rank], ONNX's [rank, n]: a permute that the exporter's Transpose
// cancels), TopK, ArgMax/ArgMin, the Reduce* family, CumSum, and ScatterND
// on constants (folded here: there is no scatter operator).
//
// torch's x[mask] is NonZero -> Transpose -> GatherND; its structure is
// kept (nonzero, select, index), so that constant_prop folds the nonzero of
// a constant mask later (SEMANTICS 3.4).
#include <cstring>
#include <map>

#include "frontends/onnx/context.h"

namespace edgec::onnx_import {
namespace {

void gather_elements(NodeContext& n) {
  n.set_output(0, n.emit("gather", {n.value(0), n.value(1)}, attrs_of({{"dim", n.attr_int("axis", 0)}})));
}

// GatherND (batch_dims 0): indices [..., k] pick x[i0, ..., ik-1] per row.
void gather_nd(NodeContext& n) {
  if (n.attr_int("batch_dims", 0) != 0) n.fail("batch_dims other than 0 is not supported");
  Value* x = n.value(0);
  Value* idx = n.value(1);
  const TensorType& it = idx->type();
  if (it.rank() < 1 || !it.dims.back().is_static())
    n.fail("expected indices whose last dim is static, got " + it.str());
  const int64_t k = it.dims.back().value;
  if (k < 1 || k > x->type().rank())
    n.fail("expected indices of 1 to " + std::to_string(x->type().rank()) + " coordinates for " + x->type().str() +
           ", got " + it.str());
  std::vector<Value*> ins = {x};
  for (int64_t j = 0; j < k; ++j)
    ins.push_back(n.im().emit("select", {idx}, attrs_of({{"dim", int64_t{-1}}, {"index", j}}), n.hint() + "_index"));
  n.set_output(0, n.im().emit_n("index", ins, {}, n.hint(),
                                {OperandGroup{false, 1}, OperandGroup{true, static_cast<int>(k)}})[0]);
}

void nonzero(NodeContext& n) {
  Value* nz = n.im().emit("nonzero", {n.value(0)}, {}, n.hint() + "_rows");
  n.set_output(0, n.im().permute(nz, {1, 0}, n.hint()));
}

void topk(NodeContext& n) {
  const auto k = n.ints(1, "K");
  if (k.size() != 1) n.fail("expected a single K");
  auto outs = n.im().emit_n("topk", {n.value(0)},
                            attrs_of({{"k", k[0]},
                                      {"dim", n.attr_int("axis", -1)},
                                      {"largest", n.attr_int("largest", 1) != 0},
                                      {"sorted", n.attr_int("sorted", 1) != 0}}),
                            n.hint());
  n.set_output(0, outs[0]);
  n.set_output(1, outs[1]);
}

void arg_reduce(NodeContext& n) {
  const char* op = n.proto().op_type() == "ArgMax" ? "argmax" : "argmin";
  n.set_output(0, n.emit(op, {n.value(0)},
                         attrs_of({{"dim", n.attr_int("axis", 0)},
                                   {"keepdim", n.attr_int("keepdims", 1) != 0},
                                   {"select_last_index", n.attr_int("select_last_index", 0) != 0}})));
}

// Reduce*: axes from the input (ReduceSum from opset 13) or the attribute.
void reduce(NodeContext& n) {
  const std::string& op_type = n.proto().op_type();
  std::optional<std::vector<int64_t>> axes;
  if (op_type == "ReduceSum") {
    if (n.input(1)) axes = n.ints(1, "axes");
  } else {
    axes = n.attr_ints("axes");
  }
  const bool keepdim = n.attr_int("keepdims", 1) != 0;
  Value* x = n.value(0);
  if ((!axes || axes->empty()) && n.attr_int("noop_with_empty_axes", 0) != 0) {
    n.forward(0, 0);
    return;
  }
  Attrs attrs = attrs_of({{"keepdim", keepdim}});
  if (axes && !axes->empty()) attrs.set("dims", *axes);
  if (op_type == "ReduceSumSquare" || op_type == "ReduceL2") {
    Value* sq = n.im().emit("mul", {x, x}, {}, n.hint() + "_sq");
    Value* s = op_type == "ReduceL2" ? n.im().emit("sum", {sq}, attrs, n.hint() + "_sum") : n.emit("sum", {sq}, attrs);
    n.set_output(0, op_type == "ReduceL2" ? n.emit("sqrt", {s}) : s);
    return;
  }
  static const std::map<std::string, std::string> ops = {{"ReduceSum", "sum"},
                                                         {"ReduceMean", "mean"},
                                                         {"ReduceMax", "amax"},
                                                         {"ReduceMin", "amin"},
                                                         {"ReduceProd", "prod"}};
  n.set_output(0, n.emit(ops.at(op_type), {x}, attrs));
}

void cumsum(NodeContext& n) {
  const auto axis = n.ints(1, "axis");
  if (axis.size() != 1) n.fail("expected a single axis");
  n.set_output(0, n.emit("cumsum", {n.value(0)},
                         attrs_of({{"dim", axis[0]},
                                   {"exclusive", n.attr_int("exclusive", 0) != 0},
                                   {"reverse", n.attr_int("reverse", 0) != 0}})));
}

// ScatterND (reduction none) on import-time data: a copy of data with the
// slices at `indices` replaced by `updates`.
void scatter_nd(NodeContext& n) {
  if (n.attr_string("reduction", "none") != "none") n.fail("reductions other than 'none' are not supported");
  const char* names[] = {"data", "indices", "updates"};
  for (size_t i = 0; i < 3; ++i) {
    if (!n.data(i))
      n.fail(std::string("ScatterND is supported only on constants known at import time, but its ") + names[i] +
             " (input " + std::to_string(i) + " '" + n.proto().input(static_cast<int>(i)) +
             "') is computed at run time");
  }
  const TensorData& data = *n.data(0);
  const TensorData& upd = *n.data(2);
  const std::vector<int64_t> idx = data_as_ints(*n.data(1));
  const auto dshape = data.type.static_shape();
  const auto ishape = n.data(1)->type.static_shape();
  if (ishape.empty()) n.fail("expected indices of rank >= 1");
  const int64_t k = ishape.back();
  if (k < 1 || k > static_cast<int64_t>(dshape.size())) n.fail("expected 1 to rank(data) coordinates per index");
  if (upd.type.dtype != data.type.dtype) n.fail("updates must have the data's dtype");
  int64_t slice = 1;
  for (size_t d = static_cast<size_t>(k); d < dshape.size(); ++d) slice *= dshape[d];
  const int64_t rows = k == 0 ? 0 : static_cast<int64_t>(idx.size()) / k;
  const size_t elem = dtype_size(data.type.dtype);
  if (static_cast<int64_t>(upd.bytes->size()) != rows * slice * static_cast<int64_t>(elem))
    n.fail("updates " + upd.type.str() + " do not match indices " + n.data(1)->type.str() + " and data " +
           data.type.str());
  auto out = std::make_shared<std::vector<std::byte>>(*data.bytes);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t offset = 0;
    for (int64_t j = 0; j < k; ++j) {
      int64_t i = idx[r * k + j];
      const int64_t size = dshape[j];
      if (i < 0) i += size;
      if (i < 0 || i >= size)
        n.fail("index " + std::to_string(idx[r * k + j]) + " is out of range for dim " + std::to_string(j) + " of " +
               data.type.str());
      offset = offset * size + i;
    }
    if (slice > 0) std::memcpy(out->data() + offset * slice * elem, upd.bytes->data() + r * slice * elem, slice * elem);
  }
  Entry e;
  e.type = data.type;
  e.data = TensorData{data.type, std::move(out)};
  n.set_output(0, std::move(e));
}

}  // namespace

void register_index_handlers(HandlerTable& t) {
  t["GatherElements"] = gather_elements;
  t["GatherND"] = gather_nd;
  t["NonZero"] = nonzero;
  t["TopK"] = topk;
  t["ArgMax"] = arg_reduce;
  t["ArgMin"] = arg_reduce;
  for (const char* name :
       {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare", "ReduceL2"})
    t[name] = reduce;
  t["CumSum"] = cumsum;
  t["ScatterND"] = scatter_nd;
}

}  // namespace edgec::onnx_import
