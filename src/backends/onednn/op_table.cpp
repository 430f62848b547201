// The onednn delegate's operator table (op_table.h): each operator once,
// with its support check, its builder and, for unary operators, the oneDNN
// eltwise operations it is. Attributes are read through the operator's
// declaration (kernels/op_decl.h), so their defaults are the portable
// kernel's; the verifier has already refused values the declaration does
// not allow (gelu's approximate, softplus's beta of 0).
#include "backends/onednn/op_table.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "runtime/delegate_geometry.h"
#include "backends/onednn/runtime_build.h"
#include "backends/onednn/runtime_quant.h"
#include "kernels/registry.h"

namespace edgec::onednn {
namespace {

using Reason = std::optional<std::string>;
using runtime::onednn::Eltwise;
using dnnl::algorithm;

std::string num(int64_t v) { return std::to_string(v); }

// ---- support checks: what each operator needs beyond static f32 shapes ----

Reason check_div(const CallView& call) {
  const std::string_view mode = call.string_attr("rounding_mode");
  if (mode != "none") return "attribute rounding_mode " + std::string(mode) + " for div";
  return std::nullopt;
}

Reason check_softplus(const CallView& call) {
  // oneDNN's soft_relu is log(1 + e^x) with no beta; above ~15 it equals x
  // in f32, so any threshold from there up agrees with torch's.
  if (call.float_attr("beta") != 1.0) return "attribute beta != 1 for softplus";
  if (call.float_attr("threshold") < 15.0) return "attribute threshold < 15 for softplus";
  return std::nullopt;
}

Reason check_conv_transpose(const CallView& call) {
  if (call.int_attr("groups") != 1) return "attribute groups != 1 for transposed conv";
  const size_t nd = call.inputs[0].size() - 2;
  std::vector<int64_t> pb, pe;
  spatial_padding(call.attrs, nd, pb, pe);
  const auto op = spatial_ints(call.attrs, "output_padding", nd, 0);
  // oneDNN has no output padding: it becomes less right padding, which
  // cannot go below zero.
  for (size_t i = 0; i < nd; ++i)
    if (op[i] > pe[i]) return "attribute output_padding > padding for transposed conv";
  return std::nullopt;
}

// oneDNN's linear resampling is half-pixel; its nearest is torch's floor
// only for integer factors (runtime_ops.cpp, build_resample).
Reason check_upsample(const CallView& call) {
  const auto& x = call.inputs[0];
  const auto& y = call.results[0];
  if (x.size() < 3 || x.size() > 5)
    return std::string(call.op) + " of a rank-" + num(static_cast<int64_t>(x.size())) + " input";
  if (call.op == "upsample_bilinear" && call.bool_attr("align_corners"))
    return std::string("upsample_bilinear with align_corners (oneDNN resamples half-pixel)");
  if (call.op == "upsample_nearest")
    for (size_t i = 2; i < x.size(); ++i)
      if (y[i] % x[i] != 0) return std::string("upsample_nearest by a factor that is not an integer");
  return std::nullopt;
}

Reason check_pool(const CallView& call) {
  const bool avg = call.op == "avg_pool";
  const auto& x = call.inputs[0];
  const auto& y = call.results[0];
  const size_t nd = x.size() - 2;
  const auto k = spatial_ints(call.attrs, "kernel_size", nd, 1);
  const auto s = spatial_ints(call.attrs, "stride", nd, 0);
  const auto d = spatial_ints(call.attrs, "dilation", nd, 1);
  std::vector<int64_t> pb, pe;
  spatial_padding(call.attrs, nd, pb, pe);
  for (size_t i = 0; i < nd; ++i) {
    const int64_t stride = s[i] > 0 ? s[i] : k[i];
    const int64_t pr = pool_pad_right(x[2 + i], y[2 + i], k[i], stride, d[i], pb[i]);
    if (pr < 0) return "pooling geometry oneDNN cannot express (negative right padding)";
    // torch (and ONNX, dilated too) counts padding only up to the padded
    // extent; oneDNN's include-padding divisor is always the full window.
    if (avg && pr > pe[i] && call.bool_attr("count_include_pad"))
      return "attribute ceil_mode with count_include_pad for avg_pool";
  }
  return std::nullopt;
}

Reason check_adaptive_pool(const CallView& call) {
  const auto& x = call.inputs[0];
  const auto& y = call.results[0];
  for (size_t i = 2; i < x.size(); ++i)
    if (x[i] % y[i] != 0)
      return "adaptive_avg_pool output size " + num(y[i]) + " does not divide input size " + num(x[i]);
  return std::nullopt;
}

Reason check_norm_rank(const CallView& call) {
  const auto rank = static_cast<int64_t>(call.inputs[0].size());
  if (rank < 2) return "normalization of a rank-" + num(rank) + " input";
  return std::nullopt;
}

// oneDNN centres an even window differently from ONNX (src/kernels/
// normalization.cpp) in some of its implementations; odd windows agree.
Reason check_lrn(const CallView& call) {
  if (auto r = check_norm_rank(call)) return r;
  if (call.int_attr("size") % 2 == 0) return "lrn of even size " + num(call.int_attr("size"));
  return std::nullopt;
}

int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t v : shape) n *= v;
  return n;
}

Reason check_layer_norm(const CallView& call) {
  const auto& x = call.inputs[0];
  const int rank = static_cast<int>(x.size());
  if (rank < 1) return "layer_norm of a scalar";
  int64_t axis = call.int_attr("axis");
  if (axis < 0) axis += rank;
  int64_t inner = 1;
  for (int d = static_cast<int>(axis); d < rank; ++d) inner *= x[static_cast<size_t>(d)];
  for (size_t i = 1; i < call.inputs.size(); ++i)
    if (numel(call.inputs[i]) != inner)
      return "layer_norm " + std::string(i == 1 ? "weight" : "bias") + " broadcast over the normalized dims";
  return std::nullopt;
}

Reason check_slice(const CallView& call) {
  if (const auto* steps = call.attrs.get_ints("steps"))
    for (int64_t s : *steps)
      if (s < 1) return "slice step " + num(s) + " (only positive steps)";
  return std::nullopt;
}

// Positions: one 1-D integer index per leading dim, all of one length (what
// a folded k-D mask gives); anything else needs broadcasting the delegate
// does not do.
Reason check_index(const CallView& call) {
  const size_t k = call.inputs.size() - 1;
  if (k == 0 || k > call.inputs[0].size())
    return "index with " + num(static_cast<int64_t>(k)) + " index tensors for rank " +
           num(static_cast<int64_t>(call.inputs[0].size()));
  for (size_t i = 1; i <= k; ++i) {
    const auto& t = call.inputs[i];
    if (k > 1 && (t.size() != 1 || call.inputs[1].size() != 1 || t[0] != call.inputs[1][0]))
      return "index with " + num(static_cast<int64_t>(k)) +
             " index tensors that are not 1-D of one length (broadcast indices)";
  }
  return std::nullopt;
}

Reason check_matmul(const CallView& call) {
  if (call.inputs[0].empty() || call.inputs[1].empty()) return "matmul of a scalar";
  return std::nullopt;
}

// The recurrent layers (runtime_rnn.cpp): oneDNN's LSTM, GRU (with and
// without linear_before_reset) and vanilla RNN compute ONNX's layers
// exactly for the default gate functions, with no clip and every batch
// entry running the whole sequence; init lays the weights out once, so
// they must be constants.
constexpr const char* kRecurrentOperands[] = {"x", "w", "r", "b", "sequence_lens", "initial_h", "initial_c", "p"};

// The activation codes of src/kernels/recurrent.cpp (sigmoid, tanh, relu).
constexpr int64_t kActSigmoid = 0, kActTanh = 1, kActRelu = 2;

Reason check_recurrent(const CallView& call) {
  const std::string op(call.op);
  const bool lstm = op == "lstm", gru = op == "gru";
  auto present = [&](size_t i) {
    return i < call.inputs.size() && !(call.inputs[i].size() == 1 && call.inputs[i][0] == 0);
  };
  if (present(4))
    return op + " with sequence_lens (oneDNN's RNN primitives run every batch entry over the whole sequence)";
  if (call.float_attr("clip") != 0.0) return "attribute clip for " + op + " (oneDNN's RNN primitives do not clip)";
  if (lstm && call.bool_attr("input_forget")) return std::string("attribute input_forget for lstm");
  if (const auto* codes = call.attrs.get_ints("activations"); codes && !codes->empty()) {
    // LSTM and GRU: oneDNN's gates are the default functions. RNN: one
    // function oneDNN has (tanh, relu, sigmoid), the same in both directions.
    const size_t funcs = lstm ? 3 : gru ? 2 : 1;
    for (size_t i = 0; i < codes->size(); ++i) {
      const int64_t code = (*codes)[i];
      const size_t f = i % funcs;
      const bool ok = lstm || gru ? code == (f == 0 ? kActSigmoid : kActTanh)
                                  : (code == kActTanh || code == kActRelu || code == kActSigmoid) && code == (*codes)[0];
      if (!ok)
        return lstm || gru ? "activations other than the defaults for " + op + " (oneDNN's gates are fixed)"
                           : std::string("rnn activation other than Tanh, Relu or Sigmoid, or different per direction");
    }
  }
  for (size_t i : {1, 2, 3, 7})
    if (present(i) && (i >= call.constant.size() || !call.constant[i]))
      return op + " " + kRecurrentOperands[i] + " (input " + num(static_cast<int64_t>(i)) +
             ") is not a constant (init lays it out for oneDNN once)";
  return std::nullopt;
}

// ---- eltwise mappings --------------------------------------------------------

float attr_f(const OpDecl& decl, const Attrs& attrs, std::string_view name) {
  return static_cast<float>(declared_attr_of(&decl, decl.name, name).float_value(attrs));
}

template <algorithm Alg, int AlphaNum = 0, int AlphaDen = 1, int BetaNum = 0, int BetaDen = 1>
std::vector<Eltwise> fixed(const OpDecl&, const Attrs&) {
  return {{Alg, static_cast<float>(AlphaNum) / AlphaDen, static_cast<float>(BetaNum) / BetaDen}};
}

std::vector<Eltwise> leaky_relu(const OpDecl& d, const Attrs& a) {
  return {{algorithm::eltwise_relu, attr_f(d, a, "negative_slope"), 0.f}};
}
std::vector<Eltwise> elu(const OpDecl& d, const Attrs& a) { return {{algorithm::eltwise_elu, attr_f(d, a, "alpha"), 0.f}}; }
// selu = gamma * elu(x, alpha).
std::vector<Eltwise> selu(const OpDecl& d, const Attrs& a) {
  return {{algorithm::eltwise_elu, attr_f(d, a, "alpha"), 0.f}, {algorithm::eltwise_linear, attr_f(d, a, "gamma"), 0.f}};
}
// celu = alpha * elu(x / alpha, 1).
std::vector<Eltwise> celu(const OpDecl& d, const Attrs& a) {
  const float alpha = attr_f(d, a, "alpha");
  return {{algorithm::eltwise_linear, 1.f / alpha, 0.f},
          {algorithm::eltwise_elu, 1.f, 0.f},
          {algorithm::eltwise_linear, alpha, 0.f}};
}
std::vector<Eltwise> gelu(const OpDecl& d, const Attrs& a) {
  const bool tanh = declared_attr_of(&d, d.name, "approximate").string_value(a) == "tanh";
  return {{tanh ? algorithm::eltwise_gelu_tanh : algorithm::eltwise_gelu_erf, 0.f, 0.f}};
}
std::vector<Eltwise> clamp(const OpDecl& d, const Attrs& a) {
  return {{algorithm::eltwise_clip_v2, attr_f(d, a, "min"), attr_f(d, a, "max")}};
}
// 2.6 ignores hardswish's alpha/beta; later versions read x * clip(alpha x + beta, 0, 1).
constexpr auto hardswish = fixed<algorithm::eltwise_hardswish, 1, 6, 1, 2>;
// 2.6 has no hardsigmoid: clip(x / 6 + 1/2, 0, 1).
std::vector<Eltwise> hardsigmoid(const OpDecl&, const Attrs&) {
  return {{algorithm::eltwise_linear, 1.f / 6.f, 0.5f}, {algorithm::eltwise_clip_v2, 0.f, 1.f}};
}

using runtime::onednn::build_binary;
using runtime::onednn::build_copy;
using runtime::onednn::build_reduce;
using runtime::onednn::build_unary;

// A unary operator: one eltwise step (or a post-op of its producer's step).
OpRow unary(std::string_view name, EltwiseFn eltwise, SupportCheck check = nullptr) {
  return {name, check, build_unary, eltwise, BlockedReads::All};
}
OpRow binary(std::string_view name, SupportCheck check = nullptr) {
  return {name, check, build_binary, nullptr, BlockedReads::SameShape};
}
OpRow plain(std::string_view name, BuildFn build, SupportCheck check = nullptr) { return {name, check, build}; }
OpRow recurrent(std::string_view name) {
  return {name, check_recurrent, runtime::onednn::build_recurrent, nullptr, BlockedReads::None, -1, false, nullptr, 3};
}
OpRow view(std::string_view name) {
  return {name, nullptr, build_copy, nullptr, BlockedReads::None, -1, true, nullptr, -1, false, true};
}
// Data movement of any dtype the delegate holds, u8 and i8 included.
OpRow moving(std::string_view name, BuildFn build, SupportCheck check = nullptr) {
  return {name, check, build, nullptr, BlockedReads::None, -1, false, nullptr, -1, false, true};
}

std::vector<OpRow> make_table() {
  namespace rt = runtime::onednn;
  std::vector<OpRow> rows = {
      // oneDNN primitives (convolution and matmul with their fusions)
      {"conv", nullptr, [](rt::Ctx& c) { return rt::build_conv(c, false); }, nullptr, BlockedReads::First},
      {"conv_transpose", check_conv_transpose, [](rt::Ctx& c) { return rt::build_conv(c, true); }, nullptr,
       BlockedReads::First},
      plain("matmul", rt::build_matmul, check_matmul),
      binary("add"), binary("sub"), binary("mul"), binary("div", check_div), binary("maximum"), binary("minimum"),
      unary("relu", fixed<algorithm::eltwise_relu>),
      unary("leaky_relu", leaky_relu),
      unary("elu", elu),
      unary("selu", selu),
      unary("celu", celu),
      unary("gelu", gelu),
      unary("tanh", fixed<algorithm::eltwise_tanh>),
      unary("sigmoid", fixed<algorithm::eltwise_logistic>),
      unary("exp", fixed<algorithm::eltwise_exp>),
      unary("log", fixed<algorithm::eltwise_log>),
      unary("sqrt", fixed<algorithm::eltwise_sqrt>),
      unary("rsqrt", fixed<algorithm::eltwise_pow, 1, 1, -1, 2>),
      unary("reciprocal", fixed<algorithm::eltwise_pow, 1, 1, -1, 1>),
      unary("abs", fixed<algorithm::eltwise_abs>),
      unary("neg", fixed<algorithm::eltwise_linear, -1>),
      unary("mish", fixed<algorithm::eltwise_mish>),
      unary("hardswish", hardswish),
      unary("hardsigmoid", hardsigmoid),
      unary("softplus", fixed<algorithm::eltwise_soft_relu, 1>, check_softplus),
      unary("clamp", clamp),
      plain("softmax", [](rt::Ctx& c) { return rt::build_softmax(c, false); }),
      plain("log_softmax", [](rt::Ctx& c) { return rt::build_softmax(c, true); }),
      plain("layer_norm", rt::build_layer_norm, check_layer_norm),
      plain("lrn", rt::build_lrn, check_lrn),
      {"batch_norm", check_norm_rank, rt::build_batch_norm, nullptr, BlockedReads::First},
      plain("instance_norm", [](rt::Ctx& c) { return rt::build_group_norm(c, true); }, check_norm_rank),
      plain("group_norm", [](rt::Ctx& c) { return rt::build_group_norm(c, false); }, check_norm_rank),
      {"max_pool", check_pool, rt::build_pool, nullptr, BlockedReads::First},
      {"avg_pool", check_pool, rt::build_pool, nullptr, BlockedReads::First},
      {"adaptive_avg_pool", check_adaptive_pool, rt::build_pool, nullptr, BlockedReads::First},
      {"upsample_bilinear", check_upsample, rt::build_resample, nullptr, BlockedReads::First},
      {"upsample_nearest", check_upsample, rt::build_resample, nullptr, BlockedReads::First},
      plain("sum", build_reduce), plain("mean", build_reduce), plain("amax", build_reduce),
      plain("amin", build_reduce), plain("prod", build_reduce),
      plain("concat", rt::build_concat),
      moving("permute", rt::build_permute),
      moving("slice", rt::build_slice, check_slice),
      plain("select", rt::build_select),
      plain("split", rt::build_split),
      // copies and loops of the delegate's own
      view("reshape"), view("flatten"), view("squeeze"), view("unsqueeze"), view("clone"),
      // between f32 and f16 (held in f32 inside: runtime_state.h's header)
      plain("cast", rt::build_cast),
      plain("expand", rt::build_expand),
      {"take", nullptr, rt::build_gather, nullptr, BlockedReads::None, 1},
      {"index", check_index, rt::build_gather, nullptr, BlockedReads::None, 1},
      // recurrent layers (runtime_rnn.cpp)
      recurrent("lstm"), recurrent("gru"), recurrent("rnn"),
      // integer convolution and matmul (runtime_quant.cpp); qlinear_conv's
      // bias is optional
      {"qlinear_conv", check_qlinear_conv, rt::build_qlinear_conv, nullptr, BlockedReads::First, -1, false, nullptr, 8,
       true},
      {"qlinear_matmul", check_qlinear_matmul, rt::build_qlinear_matmul, nullptr, BlockedReads::None, -1, false, nullptr,
       -1, true},
  };
  return sorted_op_rows(std::move(rows), "onednn");
}

}  // namespace

std::span<const OpRow> op_table() {
  static const std::vector<OpRow> kRows = make_table();
  return kRows;
}

const OpRow* find_op_row(std::string_view op) { return find_sorted_row(op_table(), op); }

const AttrDecl& declared_attr(std::string_view op, std::string_view name) {
  const OpRow* row = find_op_row(op);
  return declared_attr_of(row ? row->decl : nullptr, op, name);
}

std::optional<std::string> check_call(const OpRow& row, const CallView& call) {
  return row.check ? row.check(call) : std::nullopt;
}

}  // namespace edgec::onednn
