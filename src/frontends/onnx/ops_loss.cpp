// ONNX's loss operators, composed at import of edge operators as ONNX's
// function bodies define them (the node tests' *_expanded cases are those
// bodies):
//
//   NegativeLogLikelihoodLoss(input [N, C, d...], target [N, d...], weight [C]?)
//     loss[n, d...] = -input[n, target[n, d...], d...] * weight[target[n, d...]]
//     and 0 where target is ignore_index; reduction 'none' keeps it, 'sum'
//     sums it, 'mean' divides the sum by the sum of the weights taken (the
//     count of targets not ignored, without a weight).
//   SoftmaxCrossEntropyLoss(scores, labels, weights?)
//     NegativeLogLikelihoodLoss of log_softmax(scores) along axis 1; its
//     optional second output is that log_softmax.
//
// An ignored target may be any value, in range or not: it is replaced by 0
// before it is used as an index, and its weight by 0 after.
//
// Also Hardmax (opset 13: along 'axis'), the one-hot of a classifier's
// decision: 1 at the first maximum along the axis, 0 elsewhere. The first
// maximum is where a running count of the maxima is 1, which needs no
// arange of the axis's size (so the size may be symbolic).
#include "frontends/onnx/context.h"

namespace edgec::onnx_import {
namespace {

enum class Reduction { None, Sum, Mean };

Reduction reduction_of(NodeContext& n) {
  const std::string r = n.attr_string("reduction", "mean");
  if (r == "none") return Reduction::None;
  if (r == "sum") return Reduction::Sum;
  if (r == "mean") return Reduction::Mean;
  n.fail("attribute 'reduction' is '" + r + "'; expected 'none', 'sum' or 'mean'");
}

/// The loss of log-probabilities `log_prob` [N, C, d...] for the node's
/// input 1 (target) and input 2 (weight, optional), set as output 0.
void nll(NodeContext& n, Value* log_prob) {
  const Reduction reduction = reduction_of(n);
  Importer& im = n.im();
  const std::string h = n.hint();
  const TensorType& xt = log_prob->type();
  if (xt.rank() < 2)
    n.fail(n.typed_operand(0) + " has rank " + std::to_string(xt.rank()) + "; expected rank >= 2 (N, C, d...)");
  Value* target = n.value(1);
  if (target->type().rank() != xt.rank() - 1)
    n.fail(n.typed_operand(1) + " has rank " + std::to_string(target->type().rank()) + "; expected rank " +
           std::to_string(xt.rank() - 1) + ", one less than " + n.typed_operand(0));
  const DType dt = xt.dtype;
  const onnx::AttributeProto* ignore = n.attr("ignore_index");
  Value* ignored = nullptr;
  if (ignore) {
    ignored = im.emit("eq", {target, im.full({}, static_cast<double>(ignore->i()), target->type().dtype, h)}, {},
                      h + "_ignored");
    target = im.emit("where", {ignored, im.full({}, 0.0, target->type().dtype, h), target}, {}, h + "_target");
  }
  const Attrs class_dim = attrs_of({{"dims", std::vector<int64_t>{1}}});
  Value* index = im.emit("unsqueeze", {target}, class_dim, h + "_index");
  Value* picked = im.emit("squeeze", {im.emit("gather", {log_prob, index}, attrs_of({{"dim", int64_t{1}}}), h + "_picked")},
                          class_dim, h + "_picked");
  Value* weight = nullptr;  // null: every weight is 1
  if (n.input(2)) weight = im.emit("take", {n.value(2), target}, attrs_of({{"dim", int64_t{0}}}), h + "_weight");
  if (ignored)
    weight = im.emit("where", {ignored, im.full({}, 0.0, dt, h), weight ? weight : im.full({}, 1.0, dt, h)}, {},
                     h + "_weight");
  Value* loss = weight ? im.emit("mul", {picked, weight}, {}, h + "_weighted") : picked;
  if (reduction == Reduction::None) {
    n.set_output(0, n.emit("neg", {loss}));
    return;
  }
  loss = im.emit("neg", {loss}, {}, h + "_loss");
  if (reduction == Reduction::Sum) {
    n.set_output(0, n.emit("sum", {loss}));
    return;
  }
  if (!weight) {
    n.set_output(0, n.emit("mean", {loss}));
    return;
  }
  // weight has the target's shape, as the loss has.
  Value* total = im.emit("sum", {loss}, {}, h + "_sum");
  Value* weights = im.emit("sum", {weight}, {}, h + "_weights");
  n.set_output(0, n.emit("div", {total, weights}));
}

void negative_log_likelihood_loss(NodeContext& n) { nll(n, n.value(0)); }

void softmax_cross_entropy_loss(NodeContext& n) {
  if (n.type(0).rank() < 2)
    n.fail(n.typed_operand(0) + " has rank " + std::to_string(n.type(0).rank()) +
           "; expected rank >= 2 (N, C, d...)");
  Value* log_prob = n.im().emit("log_softmax", {n.value(0)}, attrs_of({{"dim", int64_t{1}}}), n.hint(1));
  nll(n, log_prob);
  if (n.has_output(1)) n.set_output(1, log_prob);
}

void hardmax(NodeContext& n) {
  const int64_t rank = n.type(0).rank(), axis = n.attr_int("axis", -1);
  if (axis < -rank || axis >= rank)
    n.fail("attribute 'axis' is " + std::to_string(axis) + "; expected an axis in [" + std::to_string(-rank) + ", " +
           std::to_string(rank - 1) + "] for " + n.typed_operand(0));
  Importer& im = n.im();
  const std::string h = n.hint();
  Value* x = n.value(0);
  const int64_t dim = axis < 0 ? axis + rank : axis;
  Value* top = im.emit("amax", {x}, attrs_of({{"dims", std::vector<int64_t>{dim}}, {"keepdim", true}}), h + "_max");
  Value* is_max = im.emit("eq", {x, top}, {}, h + "_is_max");
  Value* count = im.emit("cumsum", {im.emit("cast", {is_max}, attrs_of({{"dtype", DType::Int64}}), h + "_count")},
                         attrs_of({{"dim", dim}}), h + "_count");
  Value* first = im.emit("logical_and", {is_max, im.emit("eq", {count, im.full({}, 1.0, DType::Int64, h)}, {}, h + "_first")},
                         {}, h + "_first");
  n.set_output(0, n.emit("cast", {first}, attrs_of({{"dtype", x->type().dtype}})));
}

}  // namespace

void register_loss_handlers(HandlerTable& t) {
  t["NegativeLogLikelihoodLoss"] = negative_log_likelihood_loss;
  t["SoftmaxCrossEntropyLoss"] = softmax_cross_entropy_loss;
  t["Hardmax"] = hardmax;
}

}  // namespace edgec::onnx_import
