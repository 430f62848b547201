// LSTM, GRU and RNN: one call of edgec's lstm, gru or rnn
// (src/kernels/recurrent.cpp), which are time-major. Batch-first models
// (layout 1, opset 14) are permuted in and out. The kernels' operands after
// R are optional in ONNX's order; one the node leaves out before one it
// gives is passed as an empty [0] tensor. The activations become codes with
// one alpha and one beta each, resolved here as ONNX Runtime does: each
// activation that takes an alpha (a beta) consumes the next entry of
// activation_alpha (activation_beta), else takes its default.
#include <algorithm>
#include <cctype>

#include "frontends/onnx/context.h"

namespace edgec::onnx_import {
namespace {

struct ActivationInfo {
  const char* name;  // lower case
  bool alpha;
  bool beta;
  double default_alpha;
  double default_beta;
};

// In the order of the kernel's codes (recurrent.cpp's Act).
constexpr ActivationInfo kActivations[] = {
    {"sigmoid", false, false, 0, 0},        {"tanh", false, false, 0, 0},
    {"relu", false, false, 0, 0},           {"affine", true, true, 1.0, 0.0},
    {"leakyrelu", true, false, 0.01, 0},    {"thresholdedrelu", true, false, 1.0, 0},
    {"scaledtanh", true, true, 1.0, 1.0},   {"hardsigmoid", true, true, 0.2, 0.5},
    {"elu", true, false, 1.0, 0},           {"softsign", false, false, 0, 0},
    {"softplus", false, false, 0, 0},
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::vector<double> floats_of(const NodeContext& n, const std::string& name) {
  const onnx::AttributeProto* a = n.attr(name);
  if (a == nullptr) return {};
  return {a->floats().begin(), a->floats().end()};
}

void recurrent(NodeContext& n) {
  const std::string& type = n.proto().op_type();
  const bool lstm = type == "LSTM";
  const bool gru = type == "GRU";
  const size_t funcs = lstm ? 3 : gru ? 2 : 1;
  const char* op = lstm ? "lstm" : gru ? "gru" : "rnn";

  const std::string direction = n.attr_string("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    n.fail("attribute 'direction' is '" + direction + "'; expected 'forward', 'reverse' or 'bidirectional'");
  const size_t dirs = direction == "bidirectional" ? 2 : 1;
  const int64_t layout = n.attr_int("layout", 0);
  if (layout != 0 && layout != 1) n.fail("attribute 'layout' is " + std::to_string(layout) + "; expected 0 or 1");
  if (n.type(0).dtype != DType::Float32)
    n.fail(n.typed_operand(0) + " is not float; edgec's " + op + " computes in float only");
  const Dim r_hidden = n.type(2).rank() == 3 ? n.type(2).dims[2] : Dim::fixed(-1);
  const int64_t hidden = n.attr_int("hidden_size", r_hidden.is_static() ? r_hidden.value : -1);
  if (hidden <= 0)
    n.fail("attribute 'hidden_size' is " + std::to_string(hidden) + "; expected a positive size (the last dim of " +
           n.typed_operand(2) + ")");

  Attrs attrs = attrs_of({{"hidden_size", hidden}, {"direction", direction}});
  if (const onnx::AttributeProto* a = n.attr("activations"); a && a->strings_size() > 0) {
    std::vector<std::string> names(a->strings().begin(), a->strings().end());
    // One direction's list for a bidirectional layer serves both (ONNX Runtime).
    if (dirs == 2 && names.size() == funcs) names.insert(names.end(), names.begin(), names.end());
    if (names.size() != funcs * dirs)
      n.fail("attribute 'activations' has " + std::to_string(a->strings_size()) + " entries; expected " +
             std::to_string(funcs * dirs) + " (" + std::to_string(funcs) + " per direction)");
    const std::vector<double> alphas = floats_of(n, "activation_alpha");
    const std::vector<double> betas = floats_of(n, "activation_beta");
    size_t next_alpha = 0, next_beta = 0;
    std::vector<int64_t> codes;
    std::vector<double> alpha, beta;
    for (const std::string& name : names) {
      const auto* info = std::find_if(std::begin(kActivations), std::end(kActivations),
                                      [&](const ActivationInfo& i) { return lower(name) == i.name; });
      if (info == std::end(kActivations))
        n.fail("attribute 'activations' holds '" + name +
               "'; expected one of ONNX's: Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, "
               "HardSigmoid, Elu, Softsign, Softplus");
      codes.push_back(info - std::begin(kActivations));
      alpha.push_back(info->alpha && next_alpha < alphas.size() ? alphas[next_alpha++] : info->default_alpha);
      beta.push_back(info->beta && next_beta < betas.size() ? betas[next_beta++] : info->default_beta);
    }
    attrs.set("activations", codes);
    attrs.set("activation_alpha", alpha);
    attrs.set("activation_beta", beta);
  }
  if (const onnx::AttributeProto* a = n.attr("clip")) {
    if (!(a->f() > 0)) n.fail("attribute 'clip' is " + std::to_string(a->f()) + "; expected a positive threshold");
    attrs.set("clip", static_cast<double>(a->f()));
  }
  if (lstm) attrs.set("input_forget", n.attr_int("input_forget", 0) != 0);
  if (gru) attrs.set("linear_before_reset", n.attr_int("linear_before_reset", 0) != 0);

  // Operands: batch-first X and initial states become time-major.
  size_t last = 2;
  for (size_t i = 3; i < n.num_inputs(); ++i)
    if (n.input(i)) last = i;
  std::vector<Value*> inputs;
  for (size_t i = 0; i <= last; ++i) {
    if (!n.input(i)) {
      inputs.push_back(n.im().full({0}, 0.0, DType::Float32, n.hint() + "_absent"));
      continue;
    }
    Value* v = n.value(i);
    const bool batch_first = layout == 1 && (i == 0 || i == 5 || i == 6);
    inputs.push_back(batch_first ? n.im().permute(v, {1, 0, 2}, n.hint() + "_time_major") : v);
  }
  auto outs = n.im().emit_n(op, inputs, attrs, n.hint());
  if (n.has_output(0))
    n.set_output(0, layout == 1 ? n.im().permute(outs[0], {2, 0, 1, 3}, n.hint(0)) : outs[0]);
  // Y_h, and Y_c for LSTM.
  for (size_t i = 1; i <= (lstm ? 2u : 1u); ++i)
    if (n.has_output(i)) n.set_output(i, layout == 1 ? n.im().permute(outs[i], {1, 0, 2}, n.hint(i)) : outs[i]);
}

}  // namespace

void register_recurrent_handlers(HandlerTable& t) {
  t["LSTM"] = recurrent;
  t["GRU"] = recurrent;
  t["RNN"] = recurrent;
}

}  // namespace edgec::onnx_import
