// fuse_gelu: GELU written out with erf, x * 0.5 * (1 + erf(x / sqrt(2))),
// as torch exports nn.GELU before ONNX had a Gelu operator, becomes one
// gelu call (approximate = "none"). One operator is what a backend can take
// whole (oneDNN's gelu_erf, fused into the matmul before it); written out,
// erf splits a delegate in two and the four elementwise passes over the
// activations cost more than the erf itself.
//
// Matched, for f32 x, each intermediate value read by nothing but the next
// call of the pattern (x may have other readers; the constants are scalars,
// compared with a relative tolerance of 1e-6):
//   d = div(x, sqrt(2)) or mul(x, 1 / sqrt(2))
//   e = erf(d)
//   a = add(e, 1)                              (either operand order)
//   y = mul(mul(x, a), 0.5), mul(mul(a, 0.5), x) or mul(mul(x, 0.5), a),
//       the factors of each mul in either order.
// The written-out calls are left for dce to remove.
#include <cmath>
#include <cstring>
#include <optional>

#include "ops/op_info.h"
#include "passes/pass_list.h"
#include "passes/program_edits.h"

namespace edgec {
namespace {

class FuseGelu : public Pass {
 public:
  bool run(Program& program) override {
    program_ = &program;
    bool changed = false;
    for (Node* n : program.graph.calls())
      if (base(n) == "erf") changed |= fuse(program.graph, n);
    if (changed) sync_output_specs(program);
    return changed;
  }

 private:
  static std::string base(const Node* n) {
    if (!n || !n->is_call()) return {};
    auto name = split_op_name(n->op());
    return name ? name->name : std::string();
  }

  // The one call reading `v`, when exactly one use reads it.
  static Node* sole_reader(const Value* v) {
    return v->uses().size() == 1 && v->uses()[0].user->is_call() ? v->uses()[0].user : nullptr;
  }

  // The value of `v` when it is a scalar (one-element) f32 constant.
  std::optional<double> scalar(const Value* v) const {
    const Node* p = v->producer();
    if (!p || !p->is_placeholder() || v->type().dtype != DType::Float32) return std::nullopt;
    const InputSpec* spec = program_->input_spec_of(v);
    if (!spec || spec->kind != InputKind::Constant) return std::nullopt;
    const Store& store = program_->store_for(*spec);
    auto it = store.find(spec->target);
    if (it == store.end() || !it->second.bytes || it->second.bytes->size() != sizeof(float)) return std::nullopt;
    float f;
    std::memcpy(&f, it->second.bytes->data(), sizeof f);
    return f;
  }

  bool is_scalar(const Value* v, double want) const {
    auto s = scalar(v);
    return s && std::abs(*s - want) <= 1e-6 * std::abs(want);
  }

  // The operand of binary call `n` other than `v` (nullptr when both are v
  // or n has not two operands).
  static Value* other(const Node* n, const Value* v) {
    if (n->inputs().size() != 2) return nullptr;
    if (n->input(0) == v && n->input(1) != v) return n->input(1);
    if (n->input(1) == v && n->input(0) != v) return n->input(0);
    return nullptr;
  }

  bool fuse(Graph& g, Node* erf) {
    const double kSqrt2 = std::sqrt(2.0);
    Node* d = erf->input(0)->producer();
    if (!sole_reader(erf->input(0)) || base(d).empty() || d->inputs().size() != 2) return false;
    Value* x = nullptr;
    if (base(d) == "div" && is_scalar(d->input(1), kSqrt2)) {
      x = d->input(0);
    } else if (base(d) == "mul") {
      if (is_scalar(d->input(1), 1 / kSqrt2)) x = d->input(0);
      else if (is_scalar(d->input(0), 1 / kSqrt2)) x = d->input(1);
    }
    if (!x || x->type().dtype != DType::Float32) return false;
    Node* add = sole_reader(erf->result());
    if (base(add) != "add") return false;
    Value* one = other(add, erf->result());
    if (!one || !is_scalar(one, 1.0)) return false;
    Node* m1 = sole_reader(add->result());
    if (base(m1) != "mul") return false;
    Value* f = other(m1, add->result());
    if (!f) return false;
    Node* m2 = sole_reader(m1->result());
    Value* m2_other = base(m2) == "mul" ? other(m2, m1->result()) : nullptr;
    Node* last = nullptr;
    if (f == x) {  // mul(mul(x, a), 0.5)
      if (m2_other && is_scalar(m2_other, 0.5)) last = m2;
    } else if (is_scalar(f, 0.5)) {  // mul(mul(a, 0.5), x)
      if (m2_other == x) last = m2;
    } else if (Node* h = f->producer(); base(h) == "mul" && sole_reader(f) == m1) {  // mul(mul(x, 0.5), a)
      Value* half = other(h, x);
      if (half && is_scalar(half, 0.5)) last = m1;
    }
    if (!last || last->result()->type() != x->type()) return false;
    CallSpec spec;
    spec.op = split_op_name(erf->op())->dialect + ".gelu.default";
    spec.inputs = {x};
    spec.attrs.set("approximate", std::string("none"));
    spec.result_types = {x->type()};
    spec.result_names = {last->result()->name()};
    Value* y = g.create_call(std::move(spec), last)->result();
    last->result()->replace_all_uses_with(y);
    return true;
  }

  const Program* program_ = nullptr;
};

}  // namespace

std::unique_ptr<Pass> create_fuse_gelu_pass(std::string_view) { return std::make_unique<FuseGelu>(); }

}  // namespace edgec
