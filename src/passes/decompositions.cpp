#include "passes/decompositions.h"

#include <utility>
#include <vector>

#include "ir/operator.h"

namespace edgec {
namespace {

Value* emit(Graph& g, Node* before, const std::string& op, std::vector<Value*> inputs, Attrs attrs,
            TensorType type) {
  CallSpec s;
  s.op = op;
  s.inputs = std::move(inputs);
  s.attrs = std::move(attrs);
  s.result_types = {std::move(type)};
  return g.create_call(std::move(s), before)->result();
}

// The type matmul infers for a @ b.
TensorType matmul_type(const TensorType& a, const TensorType& b) {
  const std::vector<TensorType> types{a, b};
  const std::vector<OperandGroup> groups(2);
  return find_op_by_name("matmul")->infer(types, groups, Attrs())[0];
}

Value* scaled(Graph& g, Node* before, const std::string& dialect, Value* v, double factor) {
  if (factor == 1.0) return v;
  Attrs fill;
  fill.set("shape", std::vector<int64_t>{});
  fill.set("value", factor);
  fill.set("dtype", v->type().dtype);
  Value* s = emit(g, before, dialect + ".full.default", {}, fill, TensorType(v->type().dtype, {}));
  return emit(g, before, dialect + ".mul.Tensor", {v, s}, {}, v->type());
}

// linear(x, w, b) = matmul(x, permute(w)) + b.
void decompose_linear(Graph& g, Node* call, const std::string& dialect) {
  Value* x = call->input(0);
  Value* w = call->input(1);
  Attrs perm;
  perm.set("dims", std::vector<int64_t>{1, 0});
  Value* wt = emit(g, call, dialect + ".permute.default", {w}, perm,
                   TensorType(w->type().dtype, {w->type().dims[1], w->type().dims[0]}));
  const TensorType& out_type = call->result()->type();
  const TensorType mm_type = call->inputs().size() == 3 ? matmul_type(x->type(), wt->type()) : out_type;
  Value* y = emit(g, call, dialect + ".matmul.default", {x, wt}, {}, mm_type);
  if (call->inputs().size() == 3) y = emit(g, call, dialect + ".add.Tensor", {y, call->input(2)}, {}, out_type);
  call->result()->replace_all_uses_with(y);
}

// addmm(bias, a, b) = alpha * (a @ b) + beta * bias.
void decompose_addmm(Graph& g, Node* call, const std::string& dialect) {
  const OpDecl& decl = *op_of(*call);
  Value* bias = call->input(0);
  Value* a = call->input(1);
  Value* b = call->input(2);
  Value* mm = emit(g, call, dialect + ".matmul.default", {a, b}, {}, matmul_type(a->type(), b->type()));
  mm = scaled(g, call, dialect, mm, decl.attr("alpha")->float_value(call->attrs()));
  bias = scaled(g, call, dialect, bias, decl.attr("beta")->float_value(call->attrs()));
  Value* y = emit(g, call, dialect + ".add.Tensor", {mm, bias}, {}, call->result()->type());
  call->result()->replace_all_uses_with(y);
}

// masked_fill(x, mask, value) = where(mask, full(value), x).
void decompose_masked_fill(Graph& g, Node* call, const std::string& dialect) {
  Value* x = call->input(0);
  Value* mask = call->input(1);
  Attrs fill;
  fill.set("shape", std::vector<int64_t>{});
  fill.set("value", op_of(*call)->attr("value")->float_value(call->attrs()));
  fill.set("dtype", x->type().dtype);
  Value* scalar = emit(g, call, dialect + ".full.default", {}, fill, TensorType(x->type().dtype, {}));
  Value* w = emit(g, call, dialect + ".where.default", {mask, scalar, x}, {}, call->result()->type());
  call->result()->replace_all_uses_with(w);
}

// embedding and index_select become one take along a dim.
void decompose_to_take(Graph& g, Node* call, const std::string& dialect, int64_t dim) {
  Attrs attrs;
  attrs.set("dim", dim);
  Value* t = emit(g, call, dialect + ".take.default", {call->input(0), call->input(1)}, attrs, call->result()->type());
  call->result()->replace_all_uses_with(t);
}

void decompose_embedding(Graph& g, Node* call, const std::string& dialect) { decompose_to_take(g, call, dialect, 0); }

void decompose_index_select(Graph& g, Node* call, const std::string& dialect) {
  decompose_to_take(g, call, dialect, op_of(*call)->attr("dim")->int_value(call->attrs()));
}

// zeros/ones(shape, dtype) = full(shape, value = 0 or 1, dtype).
template <int Value>
void decompose_filled(Graph& g, Node* call, const std::string& dialect) {
  Attrs attrs = call->attrs();
  attrs.set("value", static_cast<double>(Value));
  edgec::Value* f = emit(g, call, dialect + ".full.default", {}, attrs, call->result()->type());
  call->result()->replace_all_uses_with(f);
}

}  // namespace

DecomposeFn find_decomposition(std::string_view op_name) {
  static const std::pair<std::string_view, DecomposeFn> kDecompositions[] = {
      {"addmm", decompose_addmm},
      {"embedding", decompose_embedding},
      {"index_select", decompose_index_select},
      {"linear", decompose_linear},
      {"masked_fill", decompose_masked_fill},
      {"ones", decompose_filled<1>},
      {"zeros", decompose_filled<0>},
  };
  for (const auto& [name, fn] : kDecompositions)
    if (name == op_name) return fn;
  return nullptr;
}

}  // namespace edgec
