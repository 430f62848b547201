// fuse_qdq (docs/semantics.md, "Quantized arithmetic", "QDQ fusion"): a
// float operator between dequantize_linear calls and a quantize_linear, as
// ONNX Runtime's quantize_static writes QDQ models, becomes the integer
// operator ONNX Runtime's QDQ transformer makes of it, computing on the
// int8 / uint8 tensors directly:
//
//   q(conv(dq(x), dq(w), bias?))           -> qlinear_conv (w constant)
//   q(relu | clamp(conv(...)))             -> qlinear_conv, then an integer
//                                             clamp to [q(lo), q(hi)]
//                                             (q is monotone: exact)
//   q(matmul(dq(a), dq(b)))                -> qlinear_matmul
//   q(matmul(dq(a), permute(dq(w))))       -> qlinear_matmul of permute(w)
//   q(add(matmul(...), bias))              -> qlinear_conv of a kernel-1
//                                             convolution (Gemm with a bias:
//                                             the int32 bias is added before
//                                             requantizing, as QGemm does)
//   q(add | mul(dq(a), dq(b)))             -> qlinear_add / qlinear_mul
//   q(avg_pool(dq(x))), q(mean(dq(x)))     -> qlinear_avg_pool (mean over
//                                             every spatial dim, kept: global
//                                             average pooling)
//   q(sigmoid | leaky_relu(dq(x)))         -> qlinear_sigmoid / _leaky_relu
//   q(op(dq(x)...)), op moving data, every dq and the q of one scale and
//                                           zero point -> op on the integers
//   q(dq(x)), equal parameters             -> x
//
// A bias is dq(int32 constant) with zero point 0 and scale x_scale *
// w_scale (float32, within 2^-20 relative), or a float32 constant, which is
// quantized as ONNX Runtime's quantizer does: round-half-even(b / (x_scale *
// w_scale)) in float32. Activation scales and zero points are per tensor;
// weights may be per output channel (axis 0 of a convolution's weight, the
// column axis of a matmul's). Every float value between the dq calls and the
// q must be read only by the next call of the pattern (a dq may have other
// readers: it stays for them). Anything else stays dq -> float operator ->
// q and runs so. The replaced calls, and the constants only they read, are
// removed here.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "base/diagnostic.h"
#include "ir/operator.h"
#include "ops/op_info.h"
#include "passes/pass_list.h"
#include "passes/program_edits.h"

namespace edgec {
namespace {

std::string base(const Node* n) {
  if (!n || !n->is_call()) return {};
  auto name = split_op_name(n->op());
  return name ? name->name : std::string();
}

Node* producer_call(const Value* v) {
  Node* p = v->producer();
  return p && p->is_call() ? p : nullptr;
}

// The one call reading `v`, when exactly one use reads it.
Node* sole_reader(const Value* v) {
  return v->uses().size() == 1 && v->uses()[0].user->is_call() ? v->uses()[0].user : nullptr;
}

bool is_quant(DType d) { return d == DType::Int8 || d == DType::UInt8; }
int64_t qmin(DType d) { return d == DType::Int8 ? -128 : 0; }
int64_t qmax(DType d) { return d == DType::Int8 ? 127 : 255; }

// Scale and zero point of a quantize_linear or dequantize_linear call.
struct QParams {
  Value* scale = nullptr;
  Value* zero_point = nullptr;  // null: zero
  DType dtype = DType::UInt8;   // the quantized tensor's
  int64_t axis = 0;             // normalized; meaningful when scale has rank 1
  bool per_tensor() const {
    const TensorType& t = scale->type();
    return t.rank() == 0 || (t.rank() == 1 && t.dims[0].is_static() && t.dims[0].value == 1);
  }
};

class FuseQdq : public Pass {
 public:
  bool run(Program& program) override {
    if (!find_op_by_name("quantize_linear")) return false;
    program_ = &program;
    touched_.clear();
    new_specs_.clear();
    first_user_input_ = nullptr;
    const auto phs = program.graph.placeholders();
    for (size_t i = 0; i < phs.size() && i < program.inputs.size(); ++i)
      if (program.inputs[i].kind == InputKind::UserInput) {
        first_user_input_ = phs[i];
        break;
      }
    bool changed = false;
    for (Node* q : program.graph.calls())
      if (base(q) == "quantize_linear") {
        pending_.clear();
        changed |= fuse(q);
      }
    if (!changed && new_specs_.empty()) return false;
    insert_input_specs(program, std::move(new_specs_));
    // The replaced calls, latest first, so that a chain goes in one sweep.
    auto calls = program.graph.calls();
    for (auto it = calls.rbegin(); it != calls.rend(); ++it) {
      if (!touched_.count(*it)) continue;
      bool used = false;
      for (size_t r = 0; r < (*it)->num_results(); ++r) used |= (*it)->result(r)->has_uses();
      if (!used) program.graph.erase(*it);
    }
    std::set<std::string> mutated;
    for (const auto& o : program.outputs)
      if (o.kind == OutputKind::BufferMutation) mutated.insert(o.target);
    remove_unread_constants(program, mutated);
    sync_output_specs(program);
    return changed;
  }

 private:
  // ---- reading the program ----------------------------------------------------

  // The stored data of a `constant` placeholder's value, or null.
  const TensorData* constant(const Value* v) const {
    const Node* p = v->producer();
    if (!p || !p->is_placeholder()) return nullptr;
    const InputSpec* spec = program_->input_spec_of(v);
    if (!spec || spec->kind != InputKind::Constant) return nullptr;
    const Store& store = program_->store_for(*spec);
    auto it = store.find(spec->target);
    return it == store.end() || !it->second.bytes || it->second.splat ? nullptr : &it->second;
  }

  static std::vector<float> floats(const TensorData& d) {
    std::vector<float> out(d.bytes->size() / sizeof(float));
    std::memcpy(out.data(), d.bytes->data(), out.size() * sizeof(float));
    return out;
  }

  // Integer elements of an i8 / u8 / i32 constant.
  static std::vector<int64_t> ints(const TensorData& d) {
    const size_t n = d.bytes->size() / dtype_size(d.type.dtype);
    std::vector<int64_t> out(n);
    const auto* b = d.bytes->data();
    for (size_t i = 0; i < n; ++i) {
      switch (d.type.dtype) {
        case DType::Int8: out[i] = static_cast<int8_t>(b[i]); break;
        case DType::UInt8: out[i] = static_cast<uint8_t>(b[i]); break;
        default: {
          int32_t v;
          std::memcpy(&v, b + 4 * i, 4);
          out[i] = v;
        }
      }
    }
    return out;
  }

  static int64_t int_attr(const Node* n, std::string_view name) {
    return op_of(*n)->attr(name)->int_value(n->attrs());
  }

  // The parameters of quantize_linear or dequantize_linear call `n`, when
  // its scale (f32) and zero point are constants of a supported form.
  std::optional<QParams> params(const Node* n) const {
    QParams p;
    p.scale = n->input(1);
    p.zero_point = n->inputs().size() > 2 ? n->input(2) : nullptr;
    const bool dq = base(n) == "dequantize_linear";
    p.dtype = dq ? n->input(0)->type().dtype : n->result()->type().dtype;
    const TensorData* s = constant(p.scale);
    if (!is_quant(p.dtype) || !s || s->type.dtype != DType::Float32 || s->type.rank() > 1) return std::nullopt;
    for (float f : floats(*s))
      if (!(f > 0) || !std::isfinite(f)) return std::nullopt;
    if (p.zero_point && !constant(p.zero_point)) return std::nullopt;
    if (p.scale->type().rank() == 1) {
      const int64_t rank = n->input(0)->type().rank();
      int64_t axis = int_attr(n, "axis");
      if (axis < 0) axis += rank;
      if (axis < 0 || axis >= rank) return std::nullopt;
      p.axis = axis;
    }
    return p;
  }

  // dequantize_linear producing `v`, with its parameters.
  std::optional<std::pair<Node*, QParams>> dq_of(const Value* v) const {
    Node* dq = producer_call(v);
    if (base(dq) != "dequantize_linear") return std::nullopt;
    auto p = params(dq);
    if (!p) return std::nullopt;
    return std::pair{dq, *p};
  }

  // The zero point's elements (zeros when absent), one per scale element.
  std::vector<int64_t> zero_points(const QParams& p) const {
    const size_t n = p.per_tensor() ? 1 : static_cast<size_t>(p.scale->type().dims[0].value);
    if (!p.zero_point) return std::vector<int64_t>(n, 0);
    return ints(*constant(p.zero_point));
  }

  // Equal scale and zero point (values, not just the same tensors).
  bool same_params(const QParams& a, const QParams& b) const {
    if (a.dtype != b.dtype || a.scale->type() != b.scale->type()) return false;
    if (!a.per_tensor() && a.axis != b.axis) return false;
    if (a.scale != b.scale && *constant(a.scale)->bytes != *constant(b.scale)->bytes) return false;
    return zero_points(a) == zero_points(b);
  }

  // q(v) as quantize_linear computes it (per tensor).
  int64_t quantize_value(double v, const QParams& p) const {
    const float s = floats(*constant(p.scale))[0];
    const float r = std::nearbyint(static_cast<float>(v) / s);
    const int64_t z = zero_points(p)[0];
    if (!(r >= -1e9f && r <= 1e9f)) return r > 0 ? qmax(p.dtype) : qmin(p.dtype);
    return std::clamp(static_cast<int64_t>(r) + z, qmin(p.dtype), qmax(p.dtype));
  }

  // ---- editing ---------------------------------------------------------------

  // A new `constant` of `type` holding `bytes`.
  Value* new_constant(TensorType type, std::vector<std::byte> bytes) {
    std::string target;
    do {
      target = "_qdq_constant" + std::to_string(next_constant_++);
    } while (program_->constants.count(target) || program_->state.count(target) || target_taken(target));
    // Before the first user input, as the importer orders constants.
    Node* ph = program_->graph.add_placeholder(target, type, first_user_input_);
    new_specs_.emplace(ph, InputSpec{InputKind::Constant, ph->result()->name(), target, false});
    program_->constants[target] =
        TensorData{std::move(type), std::make_shared<const std::vector<std::byte>>(std::move(bytes))};
    return ph->result();
  }

  bool target_taken(const std::string& t) const {
    for (const auto& s : program_->inputs)
      if (s.target == t) return true;
    return false;
  }

  // The zero point operand: the call's own, or a new zero constant of the
  // scale's shape.
  Value* zero_point_value(const QParams& p) {
    if (p.zero_point) return p.zero_point;
    TensorType t = p.scale->type();
    t.dtype = p.dtype;
    const size_t n = p.per_tensor() ? 1 : static_cast<size_t>(t.dims[0].value);
    return new_constant(std::move(t), std::vector<std::byte>(n, std::byte{0}));
  }

  // A call of `op` (base name) in the program's dialect, typed by its
  // shape function, before `before`.
  Value* emit(Node* before, const std::string& op, std::vector<Value*> inputs, Attrs attrs,
              std::vector<OperandGroup> groups = {}) {
    const OpInfo* row = find_op_by_name(op);
    if (!row) throw CompileError("internal error: fuse_qdq: no operator '" + op + "'");
    std::vector<TensorType> types;
    for (const Value* v : inputs) types.push_back(v->type());
    std::vector<OperandGroup> g = groups.empty() ? std::vector<OperandGroup>(inputs.size()) : groups;
    CallSpec spec;
    spec.op = row->full_name(program_->dialect);
    spec.result_types = row->infer(types, g, attrs);
    spec.inputs = std::move(inputs);
    spec.groups = std::move(groups);
    spec.attrs = std::move(attrs);
    spec.result_names = {before->result()->name()};
    Node* n = program_->graph.create_call(std::move(spec), before);
    pending_.push_back(n);
    return n->result();
  }

  // Points q's readers at `v` and marks the replaced calls, when `v` has
  // q's type (a reshape of a symbolic size may not say so: the calls made
  // for the pattern are then erased, and q stays).
  bool replace(Node* q, Value* v, std::initializer_list<Node*> replaced) {
    if (v->type() != q->result()->type()) {
      for (auto it = pending_.rbegin(); it != pending_.rend(); ++it) program_->graph.erase(*it);
      pending_.clear();
      return false;
    }
    pending_.clear();
    q->result()->replace_all_uses_with(v);
    touched_.insert(q);
    for (Node* n : replaced)
      if (n) touched_.insert(n);
    return true;
  }

  // An integer clamp of `v` to [lo, hi] (bounds at the dtype's limits left out).
  Value* clamp_int(Node* before, Value* v, int64_t lo, int64_t hi) {
    const DType d = v->type().dtype;
    if (lo <= qmin(d) && hi >= qmax(d)) return v;
    Attrs a;
    if (lo > qmin(d)) a.set("min", static_cast<double>(lo));
    if (hi < qmax(d)) a.set("max", static_cast<double>(hi));
    return emit(before, "clamp", {v}, std::move(a));
  }

  // ---- the patterns ----------------------------------------------------------

  bool fuse(Node* q) {
    auto qp = params(q);
    if (!qp) return false;
    Value* y = q->input(0);
    Node* p = producer_call(y);
    if (!p || sole_reader(y) != q || p->num_results() != 1) {
      // q(dq(x)) with other readers of the dq is still x.
      if (auto dq = dq_of(y); dq && same_params(dq->second, *qp))
        return replace(q, dq->first->input(0), {dq->first});
      return false;
    }
    const std::string op = base(p);
    if (op == "dequantize_linear") {
      auto dq = dq_of(y);
      return dq && same_params(dq->second, *qp) && replace(q, dq->first->input(0), {dq->first});
    }
    if (!qp->per_tensor()) return false;
    if (op == "conv") return fuse_conv(q, *qp, p, nullptr);
    if (op == "relu" || op == "clamp") {
      Node* c = producer_call(p->input(0));
      if (base(c) == "conv" && sole_reader(p->input(0)) == p && fuse_conv(q, *qp, c, p)) return true;
    }
    if (op == "matmul") return fuse_matmul(q, *qp, p, nullptr);
    if (op == "add") {
      for (size_t i = 0; i < 2; ++i) {
        Node* mm = producer_call(p->input(i));
        if (base(mm) == "matmul" && sole_reader(p->input(i)) == p && fuse_matmul(q, *qp, mm, p)) return true;
      }
    }
    if ((op == "add" || op == "mul") && fuse_binary(q, *qp, p)) return true;
    if ((op == "avg_pool" || op == "mean") && fuse_avg_pool(q, *qp, p)) return true;
    if ((op == "sigmoid" || op == "leaky_relu") && fuse_lookup(q, *qp, p)) return true;
    return fuse_data_movement(q, *qp, p);
  }

  // The per-tensor activation dq producing `v` (its parameters), or nullopt.
  std::optional<std::pair<Node*, QParams>> activation(const Value* v) const {
    auto dq = dq_of(v);
    if (!dq || !dq->second.per_tensor()) return std::nullopt;
    return dq;
  }

  // Checks a weight dq's parameters: per tensor, or per index of `axis`
  // (of `channels` entries).
  static bool weight_params_fit(const QParams& p, int64_t axis, const Dim& channels) {
    if (p.per_tensor()) return true;
    return p.axis == axis && channels.is_static() && p.scale->type().dims[0].value == channels.value;
  }

  // The int32 bias for output channels of scale x_scale * w_scale[c]: from
  // dq(int32 constant) of that scale, or a float32 constant quantized as
  // ONNX Runtime's quantizer does. `cout` channels.
  std::optional<Value*> bias_operand(Value* b, const QParams& xp, const QParams& wp, int64_t cout) {
    const float xs = floats(*constant(xp.scale))[0];
    std::vector<float> ws = floats(*constant(wp.scale));
    if (ws.size() == 1) ws.assign(static_cast<size_t>(cout), ws[0]);
    std::vector<float> want(ws.size());
    for (size_t c = 0; c < ws.size(); ++c) want[c] = xs * ws[c];
    if (b->type().rank() != 1 || b->type().dims[0].value != cout) return std::nullopt;
    if (Node* dq = producer_call(b); base(dq) == "dequantize_linear") {
      Value* bq = dq->input(0);
      const TensorData* s = constant(dq->input(1));
      if (bq->type().dtype != DType::Int32 || !constant(bq) || !s || s->type.dtype != DType::Float32) return std::nullopt;
      if (dq->inputs().size() > 2) {
        const TensorData* z = constant(dq->input(2));
        if (!z) return std::nullopt;
        for (int64_t v : ints(*z))
          if (v != 0) return std::nullopt;
      }
      std::vector<float> bs = floats(*s);
      if (bs.size() != 1 && bs.size() != want.size()) return std::nullopt;
      for (size_t c = 0; c < want.size(); ++c) {
        const float got = bs.size() == 1 ? bs[0] : bs[c];
        if (!(std::fabs(got - want[c]) <= std::ldexp(std::fabs(want[c]), -20))) return std::nullopt;
      }
      touched_.insert(dq);
      return bq;
    }
    const TensorData* f = constant(b);
    if (!f || f->type.dtype != DType::Float32) return std::nullopt;
    const std::vector<float> bf = floats(*f);
    std::vector<std::byte> bytes(bf.size() * 4);
    for (size_t c = 0; c < bf.size(); ++c) {
      const float r = std::nearbyint(bf[c] / want[c]);
      const int32_t v = !(r > -2147483648.0f) ? INT32_MIN : r >= 2147483648.0f ? INT32_MAX : static_cast<int32_t>(r);
      std::memcpy(bytes.data() + 4 * c, &v, 4);
    }
    return new_constant(TensorType(DType::Int32, {Dim::fixed(cout)}), std::move(bytes));
  }

  // q(act?(conv(dq(x), dq(w), bias?))) -> qlinear_conv, then a clamp for act.
  bool fuse_conv(Node* q, const QParams& yp, Node* conv, Node* act) {
    if (!find_op_by_name("qlinear_conv")) return false;
    auto x = activation(conv->input(0));
    auto w = dq_of(conv->input(1));
    if (!x || !w || !constant(w->first->input(0))) return false;
    const TensorType& wt = w->first->input(0)->type();
    if (wt.rank() < 3 || !weight_params_fit(w->second, 0, wt.dims[0])) return false;
    for (const auto& [name, value] : conv->attrs().items())
      if (name != "stride" && name != "padding" && name != "dilation" && name != "groups") return false;
    // The activation's bounds, as quantized values.
    int64_t lo = qmin(yp.dtype), hi = qmax(yp.dtype);
    if (act && base(act) == "relu") {
      lo = zero_points(yp)[0];
    } else if (act) {
      const double amin = act->attrs().get_float("min", -std::numeric_limits<double>::infinity());
      const double amax = act->attrs().get_float("max", std::numeric_limits<double>::infinity());
      if (std::isfinite(amin)) lo = quantize_value(amin, yp);
      if (std::isfinite(amax)) hi = quantize_value(amax, yp);
      if (lo > hi) return false;
    }
    std::optional<Value*> bias;
    if (conv->inputs().size() > 2) {
      if (!wt.dims[0].is_static()) return false;
      bias = bias_operand(conv->input(2), x->second, w->second, wt.dims[0].value);
      if (!bias) return false;
    }
    std::vector<Value*> ins = {x->first->input(0), x->second.scale,  zero_point_value(x->second),
                               w->first->input(0), w->second.scale, zero_point_value(w->second),
                               yp.scale,           zero_point_value(yp)};
    if (bias) ins.push_back(*bias);
    Value* v = emit(q, "qlinear_conv", std::move(ins), conv->attrs());
    v = clamp_int(q, v, lo, hi);
    return replace(q, v, {conv, act, x->first, w->first});
  }

  // The matmul's right operand as a quantized [K, N] (b) or, for a weight
  // read through permute(dq(w), [1, 0]), the [N, K] weight: the integer
  // tensor, its parameters (per tensor, or per N), and whether it is [N, K].
  struct RightOperand {
    Node* dq = nullptr;
    Node* permute = nullptr;
    QParams params;
  };
  std::optional<RightOperand> right_operand(Value* b) const {
    RightOperand r;
    Node* p = producer_call(b);
    if (base(p) == "permute" && sole_reader(b)) {
      const auto* dims = op_of(*p)->attr("dims")->ints_value(p->attrs());
      if (!dims || *dims != std::vector<int64_t>{1, 0} || sole_reader(p->input(0)) != p) return std::nullopt;
      r.permute = p;
      b = p->input(0);
    }
    auto dq = dq_of(b);
    if (!dq) return std::nullopt;
    r.dq = dq->first;
    r.params = dq->second;
    const TensorType& t = dq->first->input(0)->type();
    if (r.permute) {
      if (t.rank() != 2 || !weight_params_fit(r.params, 0, t.dims[0])) return std::nullopt;
    } else if (!r.params.per_tensor()) {
      if (t.rank() < 2 || !weight_params_fit(r.params, t.rank() - 1, t.dims[t.rank() - 1])) return std::nullopt;
    }
    return r;
  }

  // q(matmul(dq(a), b)) -> qlinear_matmul; q(add(matmul(dq(a), b), bias))
  // with a constant 2-D weight -> a kernel-1 qlinear_conv over the rows of a.
  bool fuse_matmul(Node* q, const QParams& yp, Node* mm, Node* add) {
    if (!find_op_by_name(add ? "qlinear_conv" : "qlinear_matmul")) return false;
    auto a = activation(mm->input(0));
    auto b = right_operand(mm->input(1));
    if (!a || !b) return false;
    Value* bq = b->dq->input(0);
    const bool weight = constant(bq) != nullptr;
    if (!b->params.per_tensor() && !weight) return false;
    if (!add) {
      Value* w = b->permute ? emit(q, "permute", {bq}, b->permute->attrs()) : bq;
      Value* v = emit(q, "qlinear_matmul",
                      {a->first->input(0), a->second.scale, zero_point_value(a->second), w, b->params.scale,
                       zero_point_value(b->params), yp.scale, zero_point_value(yp)},
                      {});
      return replace(q, v, {mm, b->permute, a->first, b->dq});
    }
    // With a bias: the rows of a, [P, K], as a batch of P one-element
    // sequences of K channels, convolved with the weight as [N, K, 1].
    if (!weight || bq->type().rank() != 2) return false;
    const TensorType& at = mm->input(0)->type();
    const TensorType& ot = mm->result()->type();
    if (at.rank() < 2 || !at.dims.back().is_static()) return false;
    std::vector<int64_t> out_shape;
    int symbolic = 0;
    for (const Dim& d : ot.dims) {
      out_shape.push_back(d.is_static() ? d.value : -1);
      symbolic += !d.is_static();
    }
    if (symbolic > 1) return false;
    const int64_t k = at.dims.back().value;
    const Dim n_dim = ot.dims.back();
    if (!n_dim.is_static()) return false;
    Value* bias_in = add->input(0) == mm->result() ? add->input(1) : add->input(0);
    auto bias = bias_operand(bias_in, a->second, b->params, n_dim.value);
    if (!bias) return false;
    Attrs perm;
    perm.set("dims", std::vector<int64_t>{1, 0});
    Value* w = b->permute ? bq : emit(q, "permute", {bq}, perm);  // [N, K]
    Attrs wshape;
    wshape.set("shape", std::vector<int64_t>{n_dim.value, k, 1});
    w = emit(q, "reshape", {w}, wshape);
    Attrs xshape;
    xshape.set("shape", std::vector<int64_t>{-1, k, 1});
    Value* x = emit(q, "reshape", {a->first->input(0)}, xshape);
    Attrs conv;
    conv.set("stride", std::vector<int64_t>{1});
    conv.set("padding", std::vector<int64_t>{0, 0});
    conv.set("dilation", std::vector<int64_t>{1});
    Value* v = emit(q, "qlinear_conv",
                    {x, a->second.scale, zero_point_value(a->second), w, b->params.scale,
                     zero_point_value(b->params), yp.scale, zero_point_value(yp), *bias},
                    conv);
    Attrs yshape;
    yshape.set("shape", out_shape);
    v = emit(q, "reshape", {v}, yshape);
    return replace(q, v, {add, mm, b->permute, a->first, b->dq});
  }

  // q(add | mul(dq(a), dq(b))) -> qlinear_add / qlinear_mul (when declared).
  bool fuse_binary(Node* q, const QParams& yp, Node* p) {
    const std::string op = "qlinear_" + base(p);
    if (!find_op_by_name(op) || p->inputs().size() != 2) return false;
    auto a = activation(p->input(0));
    auto b = activation(p->input(1));
    if (!a || !b || a->second.dtype != yp.dtype || b->second.dtype != yp.dtype) return false;
    Value* v = emit(q, op,
                    {a->first->input(0), a->second.scale, zero_point_value(a->second), b->first->input(0),
                     b->second.scale, zero_point_value(b->second), yp.scale, zero_point_value(yp)},
                    {});
    return replace(q, v, {p, a->first, b->first});
  }

  // q(avg_pool(dq(x))) and q(mean(dq(x)) over every spatial dim, kept) ->
  // qlinear_avg_pool (when declared).
  bool fuse_avg_pool(Node* q, const QParams& yp, Node* p) {
    if (!find_op_by_name("qlinear_avg_pool")) return false;
    auto x = activation(p->input(0));
    if (!x || x->second.dtype != yp.dtype) return false;
    const TensorType& xt = p->input(0)->type();
    Attrs attrs;
    if (base(p) == "avg_pool") {
      if (const auto* d = op_of(*p)->attr("dilation")->ints_value(p->attrs()))
        for (int64_t v : *d)
          if (v != 1) return false;
      for (const auto& [name, value] : p->attrs().items())
        if (name != "dilation") attrs.set(name, value);
    } else {
      const auto* dims = op_of(*p)->attr("dims")->ints_value(p->attrs());
      if (!dims || !p->attrs().get_int("keepdim", 0) || xt.rank() < 3 || xt.rank() > 5) return false;
      std::vector<int64_t> want, kernel;
      for (int64_t d = 2; d < xt.rank(); ++d) {
        if (!xt.dims[d].is_static()) return false;
        want.push_back(d);
        kernel.push_back(xt.dims[d].value);
      }
      std::vector<int64_t> got = *dims;
      for (int64_t& d : got)
        if (d < 0) d += xt.rank();
      std::sort(got.begin(), got.end());
      if (got != want) return false;
      attrs.set("kernel_size", kernel);
    }
    Value* v = emit(q, "qlinear_avg_pool",
                    {x->first->input(0), x->second.scale, zero_point_value(x->second), yp.scale,
                     zero_point_value(yp)},
                    std::move(attrs));
    return replace(q, v, {p, x->first});
  }

  // q(sigmoid | leaky_relu(dq(x))) -> qlinear_sigmoid / qlinear_leaky_relu (when declared).
  bool fuse_lookup(Node* q, const QParams& yp, Node* p) {
    const std::string op = "qlinear_" + base(p);
    if (!find_op_by_name(op)) return false;
    auto x = activation(p->input(0));
    if (!x || x->second.dtype != yp.dtype) return false;
    Attrs attrs;
    if (base(p) == "leaky_relu") attrs.set("alpha", op_of(*p)->attr("negative_slope")->float_value(p->attrs()));
    Value* v = emit(q, op,
                    {x->first->input(0), x->second.scale, zero_point_value(x->second), yp.scale,
                     zero_point_value(yp)},
                    std::move(attrs));
    return replace(q, v, {p, x->first});
  }

  // q(op(dq(x), ...)) with every dq and the q of equal per-tensor
  // parameters, op moving data (or a monotone max / clamp): q(dq(x)) is x,
  // so the result is op on the integers.
  bool fuse_data_movement(Node* q, const QParams& yp, Node* p) {
    static const std::set<std::string, std::less<>> kOps = {
        "max_pool", "amax", "reshape", "permute", "flatten", "squeeze", "unsqueeze", "slice", "pad",
        "concat", "expand", "select", "tile", "clone", "relu", "clamp", "upsample_nearest"};
    const std::string op = base(p);
    if (!kOps.count(op) || p->inputs().empty()) return false;
    std::vector<Value*> ins;
    std::vector<Node*> dqs;
    for (Value* v : p->inputs()) {
      auto dq = activation(v);
      if (!dq || !same_params(dq->second, yp)) return false;
      ins.push_back(dq->first->input(0));
      dqs.push_back(dq->first);
    }
    const OpInfo* row = op_of(*p);
    if (!row->dtypes.contains(yp.dtype)) return false;
    Attrs attrs = p->attrs();
    Value* v = nullptr;
    if (op == "relu") {
      v = clamp_int(q, ins[0], zero_points(yp)[0], qmax(yp.dtype));
    } else if (op == "clamp") {
      const double lo = attrs.get_float("min", -std::numeric_limits<double>::infinity());
      const double hi = attrs.get_float("max", std::numeric_limits<double>::infinity());
      const int64_t qlo = std::isfinite(lo) ? quantize_value(lo, yp) : qmin(yp.dtype);
      const int64_t qhi = std::isfinite(hi) ? quantize_value(hi, yp) : qmax(yp.dtype);
      if (qlo > qhi) return false;
      v = clamp_int(q, ins[0], qlo, qhi);
    } else {
      if (op == "pad" && row->attr("mode")->string_value(attrs) == "constant")
        attrs.set("value", static_cast<double>(quantize_value(row->attr("value")->float_value(attrs), yp)));
      const auto groups = p->operand_groups();
      v = emit(q, op, ins, std::move(attrs), std::vector<OperandGroup>(groups.begin(), groups.end()));
    }
    if (!replace(q, v, {p})) return false;
    for (Node* dq : dqs) touched_.insert(dq);
    return true;
  }

  Program* program_ = nullptr;
  Node* first_user_input_ = nullptr;
  std::unordered_set<const Node*> touched_;
  std::vector<Node*> pending_;  // calls made for the pattern being fused
  std::unordered_map<const Node*, InputSpec> new_specs_;
  int64_t next_constant_ = 0;
};

}  // namespace

std::unique_ptr<Pass> create_fuse_qdq_pass(std::string_view) { return std::make_unique<FuseQdq>(); }

}  // namespace edgec
