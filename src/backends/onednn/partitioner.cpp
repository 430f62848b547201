// The onednn partitioner: takes a call when the runtime side
// (runtime_ops.cpp) can build it from oneDNN 2.6 primitives, or from the
// delegate's own loops for the gather family oneDNN lacks. Everything it
// takes has static shapes and f32 data (integer index operands aside);
// checks run in a fixed order so that the reason names the first obstacle:
// operator, mask index, shapes, dtypes, then the operator's attributes.
#include <map>

#include "backends/onednn/compiler.h"
#include "lowering/mask_rules.h"
#include "backends/onednn/geometry.h"
#include "base/diagnostic.h"
#include "ir/operator.h"

namespace edgec {
namespace {

using Reason = std::optional<std::string>;
using Check = Reason (*)(const Node& call);

std::string num(int64_t v) { return std::to_string(v); }

std::vector<int64_t> shape_of(const Value* v) { return v->type().static_shape(); }

Reason no_check(const Node&) { return std::nullopt; }

Reason check_div(const Node& call) {
  const std::string_view mode = call.attrs().get_string("rounding_mode", "");
  if (!mode.empty() && mode != "none") return "attribute rounding_mode " + std::string(mode) + " for div";
  return std::nullopt;
}

Reason check_softplus(const Node& call) {
  // oneDNN's soft_relu is log(1 + e^x) with no beta; above ~15 it equals x
  // in f32, so any threshold from there up agrees with torch's.
  if (call.attrs().get_float("beta", 1.0) != 1.0) return "attribute beta != 1 for softplus";
  if (call.attrs().get_float("threshold", 20.0) < 15.0) return "attribute threshold < 15 for softplus";
  return std::nullopt;
}

Reason check_gelu(const Node& call) {
  const std::string_view a = call.attrs().get_string("approximate", "none");
  if (a != "none" && a != "tanh") return "attribute approximate " + std::string(a) + " for gelu";
  return std::nullopt;
}

Reason check_conv_transpose(const Node& call) {
  if (call.attrs().get_int("groups", 1) != 1) return "attribute groups != 1 for transposed conv";
  const size_t nd = static_cast<size_t>(call.input(0)->type().rank() - 2);
  std::vector<int64_t> pb, pe;
  onednn::spatial_padding(call.attrs(), nd, pb, pe);
  const auto op = onednn::spatial_ints(call.attrs(), "output_padding", nd, 0);
  // oneDNN has no output padding: it becomes less right padding, which
  // cannot go below zero.
  for (size_t i = 0; i < nd; ++i)
    if (op[i] > pe[i]) return "attribute output_padding > padding for transposed conv";
  return std::nullopt;
}

Reason check_pool(const Node& call) {
  const bool avg = split_op_name(call.op())->name == "avg_pool";
  const auto x = shape_of(call.input(0));
  const auto y = shape_of(call.result());
  const size_t nd = x.size() - 2;
  const auto k = onednn::spatial_ints(call.attrs(), "kernel_size", nd, 1);
  const auto s = onednn::spatial_ints(call.attrs(), "stride", nd, 0);
  const auto d = onednn::spatial_ints(call.attrs(), "dilation", nd, 1);
  std::vector<int64_t> pb, pe;
  onednn::spatial_padding(call.attrs(), nd, pb, pe);
  for (size_t i = 0; i < nd; ++i) {
    const int64_t stride = s[i] > 0 ? s[i] : k[i];
    if (avg && d[i] != 1) return "attribute dilation != 1 for avg_pool";
    const int64_t pr = onednn::pool_pad_right(x[2 + i], y[2 + i], k[i], stride, d[i], pb[i]);
    if (pr < 0) return "pooling geometry oneDNN cannot express (negative right padding)";
    // torch counts padding only up to the padded extent; oneDNN's
    // include-padding divisor is always the full window.
    if (avg && pr > pe[i] && call.attrs().get_bool("count_include_pad", true))
      return "attribute ceil_mode with count_include_pad for avg_pool";
  }
  return std::nullopt;
}

Reason check_adaptive_pool(const Node& call) {
  const auto x = shape_of(call.input(0));
  const auto y = shape_of(call.result());
  for (size_t i = 2; i < x.size(); ++i)
    if (x[i] % y[i] != 0)
      return "adaptive_avg_pool output size " + num(y[i]) + " does not divide input size " + num(x[i]);
  return std::nullopt;
}

Reason check_norm_rank(const Node& call) {
  if (call.input(0)->type().rank() < 2) return "normalization of a rank-" + num(call.input(0)->type().rank()) + " input";
  return std::nullopt;
}

Reason check_layer_norm(const Node& call) {
  const auto x = shape_of(call.input(0));
  const int rank = static_cast<int>(x.size());
  if (rank < 1) return "layer_norm of a scalar";
  int64_t axis = call.attrs().get_int("axis", -1);
  if (axis < 0) axis += rank;
  int64_t inner = 1;
  for (int d = static_cast<int>(axis); d < rank; ++d) inner *= x[static_cast<size_t>(d)];
  for (size_t i = 1; i < call.inputs().size(); ++i)
    if (call.input(i)->type().max_numel() != inner)
      return "layer_norm " + std::string(i == 1 ? "weight" : "bias") + " broadcast over the normalized dims";
  return std::nullopt;
}

Reason check_slice(const Node& call) {
  if (const auto* steps = call.attrs().get_ints("steps"))
    for (int64_t s : *steps)
      if (s < 1) return "slice step " + num(s) + " (only positive steps)";
  return std::nullopt;
}

Reason check_matmul(const Node& call) {
  if (call.input(0)->type().rank() < 1 || call.input(1)->type().rank() < 1) return "matmul of a scalar";
  return std::nullopt;
}

// What each taken operator checks beyond shapes and dtypes.
const std::map<std::string, Check, std::less<>>& supported() {
  static const std::map<std::string, Check, std::less<>> kOps = {
      // oneDNN primitives
      {"conv", no_check},           {"conv_transpose", check_conv_transpose},
      {"matmul", check_matmul},     {"add", no_check},
      {"sub", no_check},            {"mul", no_check},
      {"div", check_div},           {"maximum", no_check},
      {"minimum", no_check},        {"relu", no_check},
      {"leaky_relu", no_check},     {"elu", no_check},
      {"gelu", check_gelu},         {"tanh", no_check},
      {"sigmoid", no_check},        {"exp", no_check},
      {"log", no_check},            {"sqrt", no_check},
      {"rsqrt", no_check},          {"reciprocal", no_check},
      {"abs", no_check},            {"neg", no_check},
      {"mish", no_check},           {"hardswish", no_check},
      {"hardsigmoid", no_check},    {"softplus", check_softplus},
      {"clamp", no_check},          {"softmax", no_check},
      {"log_softmax", no_check},    {"layer_norm", check_layer_norm},
      {"batch_norm", check_norm_rank}, {"instance_norm", check_norm_rank},
      {"group_norm", check_norm_rank}, {"max_pool", check_pool},
      {"avg_pool", check_pool},     {"adaptive_avg_pool", check_adaptive_pool},
      {"sum", no_check},            {"mean", no_check},
      {"amax", no_check},           {"amin", no_check},
      {"prod", no_check},           {"concat", no_check},
      {"permute", no_check},        {"slice", check_slice},
      {"select", no_check},         {"split", no_check},
      // copies and loops of the delegate's own
      {"reshape", no_check},        {"flatten", no_check},
      {"squeeze", no_check},        {"unsqueeze", no_check},
      {"clone", no_check},          {"expand", no_check},
      {"take", no_check},           {"index", no_check},
  };
  return kOps;
}

// The operand that holds integer indices, or -1.
Reason check_type(const TensorType& t, const std::string& what, bool is_index) {
  for (const Dim& d : t.dims) {
    if (!d.is_static())
      return "dynamic shape: dim " + (d.kind == Dim::Kind::Symbolic ? d.symbol.str() : d.str()) + " of " + what;
    if (d.value == 0) return "empty tensor: " + what + " " + t.str();
  }
  if (is_index ? (t.dtype != DType::Int64 && t.dtype != DType::Int32) : t.dtype != DType::Float32)
    return "dtype " + std::string(dtype_name(t.dtype)) + " of " + what;
  return std::nullopt;
}

class OnednnPartitioner final : public Partitioner {
 public:
  const std::string& backend() const override { return onednn_backend_compiler().id(); }

  std::optional<std::string> refuse(const Program& program, const Node& call) const override {
    const auto name = split_op_name(call.op());
    if (!name) return "operator " + call.op() + " is not supported by oneDNN";
    auto it = supported().find(name->name);
    if (it == supported().end()) return "operator " + name->name + " is not supported by oneDNN";
    if (name->name == "index" || name->name == "take" || name->name == "gather") {
      // SEMANTICS 7 first: a mask's positions computed at run time make the
      // result's size data-dependent, and the mask's origin is the reason
      // that matters. A constant mask arrives here already folded into
      // positions (SEMANTICS 3.4) and is taken.
      if (auto r = mask_refusal(program, call)) return r;
      for (size_t i = 1; i < call.inputs().size(); ++i)
        if (call.input(i)->type().dtype == DType::Bool)
          return std::string("boolean mask index not folded into positions (SEMANTICS 7.2)");
    }
    if (name->name == "index") {
      // Positions: one 1-D integer index per leading dim, all of one length
      // (what a folded k-D mask gives); anything else needs broadcasting
      // the delegate does not do.
      const size_t k = call.inputs().size() - 1;
      if (k == 0 || k > call.input(0)->type().dims.size())
        return "index with " + num(static_cast<int64_t>(k)) + " index tensors for rank " +
               num(static_cast<int64_t>(call.input(0)->type().dims.size()));
      for (size_t i = 1; i <= k; ++i) {
        const TensorType& t = call.input(i)->type();
        if (k > 1 && (t.dims.size() != 1 || !(t.dims[0] == call.input(1)->type().dims[0])))
          return "index with " + num(static_cast<int64_t>(k)) +
                 " index tensors that are not 1-D of one length (broadcast indices)";
      }
    }
    for (size_t i = 0; i < call.inputs().size(); ++i) {
      const bool is_index = (name->name == "take" && i == 1) || (name->name == "index" && i >= 1);
      if (auto r = check_type(call.input(i)->type(), "input " + num(static_cast<int64_t>(i)), is_index)) return r;
    }
    for (size_t i = 0; i < call.num_results(); ++i)
      if (auto r = check_type(call.result(i)->type(), "result " + num(static_cast<int64_t>(i)), false)) return r;
    return it->second(call);
  }
};

}  // namespace

const std::string& OnednnCompiler::id() const {
  static const std::string kId = "onednn";
  return kId;
}

std::string OnednnCompiler::summary() const {
  return "oneDNN 2.6 primitives (static shapes, f32): conv, matmul, normalization, pooling, elementwise, reductions";
}

std::unique_ptr<Partitioner> OnednnCompiler::make_partitioner(const std::string& options) const {
  if (!options.empty()) throw CompileError("onednn: unknown options '" + options + "' (the backend takes none)");
  return std::make_unique<OnednnPartitioner>();
}

const BackendCompiler& onednn_backend_compiler() {
  static const OnednnCompiler kCompiler;
  return kCompiler;
}

}  // namespace edgec
