// Shape functions of the com.microsoft quantized operators
// (src/kernels/quantized_ms.cpp): qlinear_add and qlinear_mul broadcast;
// qlinear_avg_pool pools like avg_pool; qlinear_sigmoid and
// qlinear_leaky_relu keep the shape. Every one checks its scale (one f32)
// and zero point (one value of the data's dtype) operands.
#include <algorithm>
#include <string>

#include "ops/op_rows.h"

namespace edgec::ops {
namespace {

std::string num(int64_t v) { return std::to_string(v); }

/// One value: rank 0, or rank 1 of size 1.
bool is_one_value(const TensorType& t) {
  return t.rank() == 0 || (t.rank() == 1 && t.dims[0].is_static() && t.dims[0].value == 1);
}

void expect_scale(const ShapeQuery& q, size_t i, const std::string& what) {
  const TensorType& t = q.inputs[i];
  if (t.dtype != DType::Float32 || !is_one_value(t))
    op_error(q.op, "expected " + what + " (operand " + num(static_cast<int64_t>(i)) +
                       ") to be one f32 value (a per-tensor scale), got " + t.str());
}

void expect_zero_point(const ShapeQuery& q, size_t i, DType dtype, const std::string& what) {
  const TensorType& t = q.inputs[i];
  if (t.dtype != dtype || !is_one_value(t))
    op_error(q.op, "expected " + what + " (operand " + num(static_cast<int64_t>(i)) + ") to be one " +
                       std::string(dtype_name(dtype)) + " value (a per-tensor zero point of the data's dtype), got " +
                       t.str());
}

std::vector<TensorType> qlinear_binary_shape(const ShapeQuery& q) {
  expect_inputs(q, 8);
  const TensorType& a = q.inputs[0];
  const TensorType& b = q.inputs[3];
  expect_dtype(q, a, q.decl->dtypes, "a");
  if (b.dtype != a.dtype) op_error(q.op, "expected b of a's dtype " + std::string(dtype_name(a.dtype)) + ", got " + b.str());
  expect_scale(q, 1, "a_scale");
  expect_zero_point(q, 2, a.dtype, "a_zero_point");
  expect_scale(q, 4, "b_scale");
  expect_zero_point(q, 5, a.dtype, "b_zero_point");
  expect_scale(q, 6, "y_scale");
  expect_zero_point(q, 7, a.dtype, "y_zero_point");
  return {TensorType(a.dtype, broadcast_dims(q, a.dims, b.dims))};
}

/// The operands of the unary forms: x, x_scale, x_zero_point, y_scale, y_zero_point.
const TensorType& expect_unary(const ShapeQuery& q) {
  expect_inputs(q, 5);
  const TensorType& x = q.inputs[0];
  expect_dtype(q, x, q.decl->dtypes, "x");
  expect_scale(q, 1, "x_scale");
  expect_zero_point(q, 2, x.dtype, "x_zero_point");
  expect_scale(q, 3, "y_scale");
  expect_zero_point(q, 4, x.dtype, "y_zero_point");
  return x;
}

std::vector<TensorType> qlinear_lookup_shape(const ShapeQuery& q) { return {expect_unary(q)}; }

int64_t floor_div(int64_t a, int64_t b) {
  const int64_t quot = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? quot - 1 : quot;
}

// The pooled size ONNX Runtime computes (as torch's pooling_output_shape).
int64_t pooled_size(int64_t in, int64_t k, int64_t s, int64_t pb, int64_t pe, bool ceil_mode) {
  int64_t out = floor_div(in + pb + pe - (k - 1) - 1 + (ceil_mode ? s - 1 : 0), s) + 1;
  if (ceil_mode && (out - 1) * s >= in + pb) --out;
  return out;
}

std::vector<TensorType> qlinear_avg_pool_shape(const ShapeQuery& q) {
  const TensorType& x = expect_unary(q);
  const std::vector<int64_t>& kernel = required_ints(q, "kernel_size");
  const size_t nd = kernel.size();
  if (nd < 1 || nd > 3) op_error(q.op, "expected 1 to 3 entries in kernel_size, got " + num(static_cast<int64_t>(nd)));
  if (x.rank() != static_cast<int>(nd + 2))
    op_error(q.op, "expected a rank-" + num(static_cast<int64_t>(nd + 2)) + " input (N, C, spatial...) for a " +
                       num(static_cast<int64_t>(nd)) + "-d window, got " + x.str());
  std::vector<int64_t> stride = kernel;
  if (const std::vector<int64_t>* s = ints_attr(q, "stride"); s && !s->empty()) {
    if (s->size() != nd) op_error(q.op, "expected " + num(static_cast<int64_t>(nd)) + " entries in stride");
    stride = *s;
  }
  std::vector<int64_t> begin(nd, 0), end(nd, 0);
  if (const std::vector<int64_t>* p = ints_attr(q, "padding"); p && !p->empty()) {
    if (p->size() != nd && p->size() != 2 * nd)
      op_error(q.op, "expected " + num(static_cast<int64_t>(nd)) + " or " + num(static_cast<int64_t>(2 * nd)) +
                         " entries in padding, got " + num(static_cast<int64_t>(p->size())));
    for (size_t i = 0; i < nd; ++i) {
      begin[i] = (*p)[i];
      end[i] = (*p)[p->size() == nd ? i : nd + i];
    }
  }
  const bool ceil_mode = bool_attr(q, "ceil_mode");
  TensorType out(x.dtype, {x.dims[0], x.dims[1]});
  for (size_t i = 0; i < nd; ++i) {
    const Dim& in = x.dims[2 + i];
    if (!in.is_static())
      op_error(q.op, "expected static spatial dims, got " + x.str() + " (fix the input's size at compile time)");
    const int64_t size = pooled_size(in.value, kernel[i], stride[i], begin[i], end[i], ceil_mode);
    if (size < 1)
      op_error(q.op, "expected the window to fit the padded input, got spatial size " + num(in.value) + " in " +
                         x.str());
    out.dims.push_back(Dim::fixed(size));
  }
  return {out};
}

}  // namespace

std::vector<std::pair<std::string_view, ShapeFn>> quantized_ms_shapes() {
  return {{"qlinear_add", qlinear_binary_shape},
          {"qlinear_mul", qlinear_binary_shape},
          {"qlinear_avg_pool", qlinear_avg_pool_shape},
          {"qlinear_sigmoid", qlinear_lookup_shape},
          {"qlinear_leaky_relu", qlinear_lookup_shape}};
}

}  // namespace edgec::ops
