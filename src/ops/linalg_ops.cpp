// Operator-table rows of linear algebra: matmul (core, numpy semantics) and
// the composites linear and addmm, which to_edge lowers to matmul + add.
#include "ops/op_rows.h"

namespace edgec::ops {
namespace {

constexpr std::initializer_list<DType> kFloat = {DType::Float32, DType::Float16};

bool dims_conflict(const Dim& a, const Dim& b) {
  return a.is_static() && b.is_static() && a.value != b.value;
}

std::vector<TensorType> matmul_types(const ShapeQuery& q, const TensorType& a, const TensorType& b) {
  expect_dtype(q, a, kFloat, "input 0");
  if (a.dtype != b.dtype)
    op_error(q.op, "operands must have one dtype, got " + std::string(dtype_name(a.dtype)) + " and " +
                       std::string(dtype_name(b.dtype)));
  if (a.rank() < 1 || b.rank() < 1)
    op_error(q.op, "expected inputs of rank >= 1, got " + a.str() + " and " + b.str());
  const bool a_vec = a.rank() == 1, b_vec = b.rank() == 1;
  const Dim& k_a = a.dims.back();
  const Dim& k_b = b_vec ? b.dims[0] : b.dims[b.rank() - 2];
  if (dims_conflict(k_a, k_b))
    op_error(q.op, "inner dimensions differ: " + a.str() + " @ " + b.str() + " (" + k_a.str() + " vs " + k_b.str() + ")");
  Dims batch_a(a.dims.begin(), a.dims.end() - (a_vec ? 1 : 2));
  Dims batch_b(b.dims.begin(), b.dims.end() - (b_vec ? 1 : 2));
  Dims out = broadcast_dims(q, batch_a, batch_b);
  if (!a_vec) out.push_back(a.dims[a.rank() - 2]);
  if (!b_vec) out.push_back(b.dims.back());
  return {TensorType(a.dtype, out)};
}

std::vector<TensorType> matmul_shape(const ShapeQuery& q) {
  expect_inputs(q, 2);
  return matmul_types(q, q.inputs[0], q.inputs[1]);
}

// linear(x, w[out, in], b[out]?) = x @ w^T + b
std::vector<TensorType> linear_shape(const ShapeQuery& q) {
  if (q.inputs.size() < 2 || q.inputs.size() > 3)
    op_error(q.op, "expected 2 or 3 tensor inputs, got " + std::to_string(q.inputs.size()));
  const TensorType& w = q.inputs[1];
  if (w.rank() != 2) op_error(q.op, "expected a 2-D weight, got " + w.str());
  TensorType wt(w.dtype, {w.dims[1], w.dims[0]});
  auto out = matmul_types(q, q.inputs[0], wt);
  if (q.inputs.size() == 3) out[0].dims = broadcast_dims(q, out[0].dims, q.inputs[2].dims);
  return out;
}

// addmm(bias, a, b; beta, alpha) = beta * bias + alpha * (a @ b)
std::vector<TensorType> addmm_shape(const ShapeQuery& q) {
  expect_inputs(q, 3);
  if (q.inputs[1].rank() != 2 || q.inputs[2].rank() != 2)
    op_error(q.op, "expected 2-D matrices, got " + q.inputs[1].str() + " and " + q.inputs[2].str());
  auto out = matmul_types(q, q.inputs[1], q.inputs[2]);
  out[0].dims = broadcast_dims(q, out[0].dims, q.inputs[0].dims);
  return out;
}

Value* emit(Graph& g, Node* before, const std::string& op, std::vector<Value*> inputs, Attrs attrs,
            TensorType type) {
  CallSpec s;
  s.op = op;
  s.inputs = std::move(inputs);
  s.attrs = std::move(attrs);
  s.result_types = {std::move(type)};
  return g.create_call(std::move(s), before)->result();
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

void decompose_linear(Graph& g, Node* call, const std::string& dialect) {
  Value* x = call->input(0);
  Value* w = call->input(1);
  Attrs perm;
  perm.set("dims", std::vector<int64_t>{1, 0});
  Value* wt = emit(g, call, dialect + ".permute.default", {w}, perm,
                   TensorType(w->type().dtype, {w->type().dims[1], w->type().dims[0]}));
  const TensorType& out_type = call->result()->type();
  TensorType mm_type = out_type;
  if (call->inputs().size() == 3) {
    std::vector<TensorType> types{x->type(), wt->type()};
    std::vector<OperandGroup> groups(2);
    Attrs none;
    mm_type = matmul_types(ShapeQuery{"linear", types, groups, none}, x->type(), wt->type())[0];
  }
  Value* y = emit(g, call, dialect + ".matmul.default", {x, wt}, {}, mm_type);
  if (call->inputs().size() == 3) y = emit(g, call, dialect + ".add.Tensor", {y, call->input(2)}, {}, out_type);
  call->result()->replace_all_uses_with(y);
}

void decompose_addmm(Graph& g, Node* call, const std::string& dialect) {
  Value* bias = call->input(0);
  Value* a = call->input(1);
  Value* b = call->input(2);
  std::vector<TensorType> types{a->type(), b->type()};
  std::vector<OperandGroup> groups(2);
  Attrs none;
  TensorType mm_type = matmul_types(ShapeQuery{"addmm", types, groups, none}, a->type(), b->type())[0];
  Value* mm = emit(g, call, dialect + ".matmul.default", {a, b}, {}, mm_type);
  mm = scaled(g, call, dialect, mm, call->attrs().get_float("alpha", 1.0));
  bias = scaled(g, call, dialect, bias, call->attrs().get_float("beta", 1.0));
  Value* y = emit(g, call, dialect + ".add.Tensor", {mm, bias}, {}, call->result()->type());
  call->result()->replace_all_uses_with(y);
}

}  // namespace

std::vector<OpInfo> linalg_rows() {
  OpInfo linear = make_row("linear", "default", {{"input"}, {"weight"}, {"bias", OperandKind::Optional}}, {},
                           linear_shape, 0, "x @ weight^T + bias");
  linear.core = false;
  linear.decompose = decompose_linear;
  OpInfo addmm = make_row("addmm", "default", {{"self"}, {"mat1"}, {"mat2"}},
                          {{"beta", AttrKind::Float}, {"alpha", AttrKind::Float}}, addmm_shape, 0,
                          "beta * self + alpha * (mat1 @ mat2)");
  addmm.core = false;
  addmm.decompose = decompose_addmm;
  return {
      make_row("matmul", "default", {{"self"}, {"other"}}, {}, matmul_shape, 0,
               "numpy matmul: 1-D operands and batch broadcasting"),
      std::move(linear),
      std::move(addmm),
  };
}

}  // namespace edgec::ops
