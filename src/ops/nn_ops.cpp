// Shape functions of the nn family: convolution, pooling, resize and
// normalization, declared with their kernels (src/kernels/convolution.cpp,
// pooling.cpp, resize.cpp, normalization.cpp). Every check below mirrors a
// check of the kernel that can be decided from types alone; static shapes
// give exactly the kernel's output shape.
//
// Spatial sizes of a symbolic (or data-dependent) input: every spatial
// formula here is nondecreasing in the input size, so a bounded input gives
// the formula at the bound as the result's bound. A stride-1 window is
// `in + offset`: offset 0 keeps the input dim itself, other offsets are named
// "<sym>_plus_<n>" / "<sym>_minus_<n>"; a strided window is named after the
// input symbol and the window ("<sym>_win_k3_s2_d1_p1_1"), so equal windows
// over equal dims give equal dims (conv and floor-mode max_pool share the
// formula, hence the name).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "kernels/resize_coords.h"
#include "ops/op_rows.h"

namespace edgec::ops {
namespace {

/// Upper bound on spatial attribute values (kernels: spatial::kMaxAttrValue).
constexpr int64_t kMaxAttrValue = int64_t{1} << 31;

std::string num(int64_t v) { return std::to_string(v); }

std::string list_str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + num(v[i]);
  return s + "]";
}

bool is_static_value(const Dim& d, int64_t v) { return d.is_static() && d.value == v; }

/// Requires between `lo` and `hi` tensor inputs.
void expect_inputs_between(const ShapeQuery& q, size_t lo, size_t hi) {
  if (q.inputs.size() < lo || q.inputs.size() > hi)
    op_error(q.op, "expected " + num(static_cast<int64_t>(lo)) + " to " + num(static_cast<int64_t>(hi)) +
                       " tensor inputs, got " + num(static_cast<int64_t>(q.inputs.size())));
}

/// Requires `t` to have `x`'s dtype.
void expect_same_dtype(const ShapeQuery& q, const TensorType& t, const TensorType& x, const std::string& what) {
  if (t.dtype != x.dtype)
    op_error(q.op, what + ": expected dtype " + std::string(dtype_name(x.dtype)) + " (the input's), got " +
                       std::string(dtype_name(t.dtype)));
}

// ---- per-axis attribute lists ------------------------------------------------

/// The int-list attribute `attr_name` with `nd` entries in [min_value,
/// kMaxAttrValue]; absent or empty gives `dflt` (nd entries). Other kinds are
/// errors, as in the kernels.
std::vector<int64_t> axis_ints(const ShapeQuery& q, std::string_view attr_name, size_t nd, int64_t min_value,
                               std::vector<int64_t> dflt) {
  const std::string_view name = q.attr(attr_name).name;
  const AttrValue* v = q.attrs.find(name);
  if (v == nullptr) return dflt;
  const auto* list = std::get_if<std::vector<int64_t>>(v);
  if (list == nullptr)
    op_error(q.op, "expected attribute '" + std::string(name) + "' to be int[], got " +
                       std::string(attr_kind_name(attr_kind(*v))));
  if (list->empty()) return dflt;
  if (list->size() != nd)
    op_error(q.op, "expected " + num(static_cast<int64_t>(nd)) + " entries in '" + std::string(name) +
                       "' (one per spatial dim), got " + list_str(*list));
  for (int64_t value : *list)
    if (value < min_value || value > kMaxAttrValue)
      op_error(q.op, "expected '" + std::string(name) + "' entries in [" + num(min_value) + ", " +
                         num(kMaxAttrValue) + "], got " + list_str(*list));
  return *list;
}

/// `padding`: nd entries (symmetric) or 2 * nd (all begins, then all ends).
void read_padding(const ShapeQuery& q, size_t nd, std::vector<int64_t>& begin, std::vector<int64_t>& end) {
  begin.assign(nd, 0);
  end.assign(nd, 0);
  const AttrValue* v = q.attrs.find(q.attr("padding").name);
  if (v == nullptr) return;
  const auto* list = std::get_if<std::vector<int64_t>>(v);
  if (list == nullptr)
    op_error(q.op, "expected attribute 'padding' to be int[], got " + std::string(attr_kind_name(attr_kind(*v))));
  if (list->empty()) return;
  if (list->size() != nd && list->size() != 2 * nd)
    op_error(q.op, "expected " + num(static_cast<int64_t>(nd)) + " or " + num(static_cast<int64_t>(2 * nd)) +
                       " entries in 'padding', got " + list_str(*list));
  for (int64_t value : *list)
    if (value < 0 || value > kMaxAttrValue)
      op_error(q.op, "expected 'padding' entries in [0, " + num(kMaxAttrValue) + "], got " + list_str(*list));
  for (size_t i = 0; i < nd; ++i) {
    begin[i] = (*list)[i];
    end[i] = (*list)[list->size() == nd ? i : nd + i];
  }
}

/// The one input of pooling and resize: of a declared dtype, of rank nd + 2
/// (N, C, spatial...) where nd is the length, 1 to max_nd, of the required
/// int list `attr_name` (kernel_size: up to 3, output_size: up to 2);
/// `what` names the list in the message. Returns nd.
size_t spatial_rank_from(const ShapeQuery& q, std::string_view attr_name, const std::string& what,
                         size_t max_nd = 2) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  expect_dtype(q, x, q.decl->dtypes, "input");
  const AttrDecl& decl = q.attr(attr_name);
  const std::vector<int64_t>* list = decl.ints_value(q.attrs);
  if (list == nullptr || list->empty() || list->size() > max_nd)
    op_error(q.op, "expected attribute '" + std::string(decl.name) + "' to be an int list with 1 " +
                       (max_nd == 2 ? "or 2" : "to " + num(static_cast<int64_t>(max_nd))) + " entries, got " +
                       (list == nullptr ? std::string("none") : list_str(*list)));
  const size_t nd = list->size();
  if (x.rank() != static_cast<int>(nd + 2))
    op_error(q.op, "expected a rank-" + num(static_cast<int64_t>(nd + 2)) + " input (N, C, spatial...) for a " +
                       num(static_cast<int64_t>(nd)) + "-d " + what + ", got " + x.str());
  return nd;
}

// ---- spatial output sizes ----------------------------------------------------

/// One spatial axis: out = size(in), nondecreasing in `in`; a result < 1
/// means the kernel rejects that input size.
struct AxisFormula {
  int64_t (*size)(int64_t in, const int64_t* p) = nullptr;
  int64_t params[8] = {};
  int64_t stride = 1;  ///< The slope: with 1, size is in + a constant.
  std::string tag;     ///< Names the window in derived symbols.
  int64_t at(int64_t in) const { return size(in, params); }
};

int64_t floor_div(int64_t a, int64_t b) {
  const int64_t quot = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? quot - 1 : quot;
}

// params: k, s, d, pb, pe, ceil_mode. conv (ceil_mode 0) and torch's
// pooling_output_shape: with ceil_mode the last window must start inside the
// input or the left padding.
int64_t window_size(int64_t in, const int64_t* p) {
  const int64_t k = p[0], s = p[1], d = p[2], pb = p[3], pe = p[4];
  const bool ceil_mode = p[5] != 0;
  int64_t out = floor_div(in + pb + pe - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0), s) + 1;
  if (ceil_mode && (out - 1) * s >= in + pb) --out;
  return out;
}

// params: k, s, d, pb, pe, output_padding. An empty input is an error.
int64_t transpose_size(int64_t in, const int64_t* p) {
  if (in < 1) return 0;
  return (in - 1) * p[1] - p[3] - p[4] + p[2] * (p[0] - 1) + p[5] + 1;
}

AxisFormula window_formula(int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe, bool ceil_mode) {
  AxisFormula f;
  f.size = window_size;
  const int64_t p[] = {k, s, d, pb, pe, ceil_mode ? 1 : 0};
  std::copy(std::begin(p), std::end(p), f.params);
  f.stride = s;
  f.tag = "win_k" + num(k) + "_s" + num(s) + "_d" + num(d) + "_p" + num(pb) + "_" + num(pe) +
          (ceil_mode ? "_ceil" : "");
  return f;
}

AxisFormula transpose_formula(int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe, int64_t op) {
  AxisFormula f;
  f.size = transpose_size;
  const int64_t p[] = {k, s, d, pb, pe, op};
  std::copy(std::begin(p), std::end(p), f.params);
  f.stride = s;
  f.tag = "up_k" + num(k) + "_s" + num(s) + "_d" + num(d) + "_p" + num(pb) + "_" + num(pe) + "_o" + num(op);
  return f;
}

/// The result dim of one spatial axis for input dim `in`; `invalid(in_size)`
/// throws for a static (or bound) size the kernel rejects.
template <typename Invalid>
Dim spatial_dim(const Dim& in, const AxisFormula& f, Invalid invalid) {
  if (in.is_static()) {
    const int64_t out = f.at(in.value);
    if (out < 1) invalid(in.value);
    return Dim::fixed(out);
  }
  // Every size up to the bound gives at most the bound's result; if even
  // that is invalid, so is every size.
  std::optional<int64_t> bound;
  if (auto ub = in.upper_bound()) {
    bound = f.at(*ub);
    if (*bound < 1) invalid(*ub);
  }
  if (in.kind == Dim::Kind::Dynamic) return Dim::dynamic(*bound);
  std::string name = in.symbol.str() + "_" + f.tag;
  if (f.stride == 1) {
    // Affine with slope 1: read the offset off a size every window fits.
    constexpr int64_t kProbe = int64_t{1} << 40;
    const int64_t offset = f.at(kProbe) - kProbe;
    if (offset == 0) return in;
    name = in.symbol.str() + (offset > 0 ? "_plus_" : "_minus_") + num(offset > 0 ? offset : -offset);
  }
  return Dim::symbolic(name, bound ? *bound : -1);
}

// ---- conv / conv_transpose ---------------------------------------------------

struct ConvAttrs {
  size_t nd = 2;
  std::vector<int64_t> stride, dilation, pad_begin, pad_end;
  int64_t groups = 1;
};

/// Checks what conv and conv_transpose share: arity, dtypes, ranks, attributes.
ConvAttrs conv_common(const ShapeQuery& q) {
  expect_inputs_between(q, 2, 3);
  const TensorType& x = q.inputs[0];
  const TensorType& w = q.inputs[1];
  expect_dtype(q, x, q.decl->dtypes, "input");
  expect_same_dtype(q, w, x, "weight");
  if (q.inputs.size() == 3) expect_same_dtype(q, q.inputs[2], x, "bias");
  if (x.rank() < 3 || x.rank() > 5)
    op_error(q.op, "expected a rank-3 (N, C, L), rank-4 (N, C, H, W) or rank-5 (N, C, D, H, W) input, got " + x.str());
  if (w.rank() != x.rank())
    op_error(q.op, "expected a weight of the input's rank " + num(x.rank()) + ", got " + w.str() + " (input " +
                       x.str() + ")");
  ConvAttrs ca;
  ca.nd = static_cast<size_t>(x.rank() - 2);
  for (size_t i = 0; i < ca.nd; ++i) {
    const Dim& k = w.dims[2 + i];
    if (k.is_static() && (k.value < 1 || k.value > kMaxAttrValue))
      op_error(q.op, "expected a non-empty kernel, got weight " + w.str());
  }
  ca.stride = axis_ints(q, "stride", ca.nd, 1, std::vector<int64_t>(ca.nd, 1));
  ca.dilation = axis_ints(q, "dilation", ca.nd, 1, std::vector<int64_t>(ca.nd, 1));
  read_padding(q, ca.nd, ca.pad_begin, ca.pad_end);
  ca.groups = q.attr("groups").int_value(q.attrs);
  if (ca.groups < 1) op_error(q.op, "expected groups >= 1, got " + num(ca.groups));
  return ca;
}

void check_bias(const ShapeQuery& q, const Dim& cout) {
  if (q.inputs.size() < 3) return;
  const TensorType& b = q.inputs[2];
  if (b.rank() != 1 || (cout.is_static() && b.dims[0].is_static() && b.dims[0].value != cout.value))
    op_error(q.op, "expected bias of shape [" + cout.str() + "] (output channels), got " + b.str());
}

/// A name part for a dim in a derived symbol.
std::string dim_part(const Dim& d) {
  return d.kind == Dim::Kind::Symbolic ? d.symbol.str() : d.is_static() ? num(d.value) : "dyn";
}

/// The spatial result dim for a kernel size that is not static (weights are
/// constants in practice, so this is a corner): named after both, bounded by
/// the smallest kernel when the input is bounded.
Dim unknown_kernel_dim(const Dim& in, const Dim& k, const AxisFormula& at_k1) {
  std::string name = "conv_" + dim_part(in) + "_k" + dim_part(k) + "_" + at_k1.tag;
  auto ub = in.upper_bound();
  if (!ub) return Dim::symbolic(name, -1);
  return Dim::symbolic(name, std::max<int64_t>(at_k1.at(*ub), 0));
}

std::vector<TensorType> conv_shape(const ShapeQuery& q) {
  const ConvAttrs ca = conv_common(q);
  const TensorType& x = q.inputs[0];
  const TensorType& w = q.inputs[1];
  const Dim& cin = x.dims[1];
  const Dim& cout = w.dims[0];
  const Dim& cig = w.dims[1];
  if ((cin.is_static() && cin.value % ca.groups != 0) || (cout.is_static() && cout.value % ca.groups != 0))
    op_error(q.op, "expected groups " + num(ca.groups) + " to divide both the input channels " + cin.str() +
                       " and the output channels " + cout.str());
  if (cin.is_static() && cig.is_static() && cig.value * ca.groups != cin.value)
    op_error(q.op, "expected an input with " + num(cig.value * ca.groups) + " channels (weight " + w.str() +
                       ": " + num(cig.value) + " per group x " + num(ca.groups) + " groups), got " + x.str());
  check_bias(q, cout);
  TensorType out(x.dtype, {x.dims[0], cout});
  for (size_t i = 0; i < ca.nd; ++i) {
    const Dim& in = x.dims[2 + i];
    const Dim& k = w.dims[2 + i];
    const AxisFormula f =
        window_formula(k.is_static() ? k.value : 1, ca.stride[i], ca.dilation[i], ca.pad_begin[i], ca.pad_end[i], false);
    if (!k.is_static()) {
      out.dims.push_back(unknown_kernel_dim(in, k, f));
      continue;
    }
    out.dims.push_back(spatial_dim(in, f, [&](int64_t size) {
      op_error(q.op, "expected the input padded by " + list_str(ca.pad_begin) + " + " + list_str(ca.pad_end) +
                         " to hold the kernel " + w.str() + " with dilation " + list_str(ca.dilation) +
                         ", got spatial size " + num(size) + " in input " + x.str());
    }));
  }
  return {out};
}

std::vector<TensorType> conv_transpose_shape(const ShapeQuery& q) {
  const ConvAttrs ca = conv_common(q);
  const std::vector<int64_t> output_padding =
      axis_ints(q, "output_padding", ca.nd, 0, std::vector<int64_t>(ca.nd, 0));
  const TensorType& x = q.inputs[0];
  const TensorType& w = q.inputs[1];
  const Dim& cin = x.dims[1];
  if (cin.is_static() && w.dims[0].is_static() && w.dims[0].value != cin.value)
    op_error(q.op, "expected an input with " + num(w.dims[0].value) + " channels (weight " + w.str() + "), got " +
                       x.str());
  if (cin.is_static() && cin.value % ca.groups != 0)
    op_error(q.op, "expected groups " + num(ca.groups) + " to divide the input channels, got " + x.str());
  // Output channels: weight dim 1 times groups.
  const Dim& cog = w.dims[1];
  Dim cout;
  if (cog.is_static()) {
    cout = Dim::fixed(cog.value * ca.groups);
  } else if (ca.groups == 1) {
    cout = cog;
  } else if (cog.kind == Dim::Kind::Dynamic) {
    cout = Dim::dynamic(cog.value * ca.groups);
  } else {
    auto ub = cog.upper_bound();
    cout = Dim::symbolic(cog.symbol.str() + "_times_" + num(ca.groups), ub ? *ub * ca.groups : -1);
  }
  check_bias(q, cout);
  for (size_t i = 0; i < ca.nd; ++i) {
    if (output_padding[i] >= std::max(ca.stride[i], ca.dilation[i]))
      op_error(q.op, "expected output_padding smaller than stride " + list_str(ca.stride) + " or dilation " +
                         list_str(ca.dilation) + ", got " + list_str(output_padding));
  }
  TensorType out(x.dtype, {x.dims[0], cout});
  for (size_t i = 0; i < ca.nd; ++i) {
    const Dim& in = x.dims[2 + i];
    const Dim& k = w.dims[2 + i];
    const AxisFormula f = transpose_formula(k.is_static() ? k.value : 1, ca.stride[i], ca.dilation[i],
                                            ca.pad_begin[i], ca.pad_end[i], output_padding[i]);
    if (!k.is_static()) {
      out.dims.push_back(unknown_kernel_dim(in, k, f));
      continue;
    }
    out.dims.push_back(spatial_dim(in, f, [&](int64_t size) {
      op_error(q.op, "expected a non-empty output, got spatial size " + num(size) + " of input " + x.str() +
                         " with kernel " + w.str() + " and padding " + list_str(ca.pad_begin) + " + " +
                         list_str(ca.pad_end) + " (an empty output)");
    }));
  }
  return {out};
}

// ---- pooling -----------------------------------------------------------------

// max_pool and avg_pool (whose dilation is ONNX AveragePool's): 1-d to 3-d
// windows.
std::vector<TensorType> pool_shape(const ShapeQuery& q) {
  const size_t nd = spatial_rank_from(q, "kernel_size", "window", 3);
  const TensorType& x = q.inputs[0];
  const std::vector<int64_t> kernel = axis_ints(q, "kernel_size", nd, 1, {});
  const std::vector<int64_t> stride = axis_ints(q, "stride", nd, 1, kernel);
  std::vector<int64_t> pad_begin, pad_end;
  read_padding(q, nd, pad_begin, pad_end);
  const std::vector<int64_t> dilation = axis_ints(q, "dilation", nd, 1, std::vector<int64_t>(nd, 1));
  const bool ceil_mode = q.attr("ceil_mode").bool_value(q.attrs);
  TensorType out(x.dtype, {x.dims[0], x.dims[1]});
  for (size_t i = 0; i < nd; ++i) {
    const AxisFormula f = window_formula(kernel[i], stride[i], dilation[i], pad_begin[i], pad_end[i], ceil_mode);
    out.dims.push_back(spatial_dim(x.dims[2 + i], f, [&](int64_t size) {
      op_error(q.op, "expected the window " + list_str(kernel) + " (dilation " + list_str(dilation) +
                         ") to fit the input padded by " + list_str(pad_begin) + " + " + list_str(pad_end) +
                         ", got spatial size " + num(size) + " in input " + x.str());
    }));
  }
  return {out};
}

// max_pool_with_indices: max_pool's result and, of its shape, the i64 flat
// index of each maximum in the input (ONNX MaxPool's Indices).
std::vector<TensorType> pool_with_indices_shape(const ShapeQuery& q) {
  std::vector<TensorType> out = pool_shape(q);
  expect_dtype(q, q.inputs[0], q.decl->dtypes, "input 0");
  const int64_t order = int_attr(q, "storage_order");
  if (order > 1) op_error(q.op, "expected storage_order 0 (row major) or 1 (column major), got " + num(order));
  out.push_back(TensorType(DType::Int64, out[0].dims));
  return out;
}

/// adaptive_avg_pool and the resizes: [N, C, output_size...] for a float
/// input of rank nd + 2; an empty spatial dim cannot grow.
std::vector<TensorType> output_size_shape(const ShapeQuery& q) {
  const size_t nd = spatial_rank_from(q, "output_size", "output_size");
  const TensorType& x = q.inputs[0];
  const std::vector<int64_t> size = axis_ints(q, "output_size", nd, 0, {});
  TensorType out(x.dtype, {x.dims[0], x.dims[1]});
  for (size_t i = 0; i < nd; ++i) {
    if (is_static_value(x.dims[2 + i], 0) && size[i] > 0)
      op_error(q.op, "expected non-empty spatial dims to produce output_size " + list_str(size) + ", got " +
                         x.str());
    out.dims.push_back(Dim::fixed(size[i]));
  }
  return {out};
}

// ---- resize (ONNX) -----------------------------------------------------------

/// The float list `name`: `count` finite entries, or none (absent, or an
/// empty list of either kind).
std::vector<double> resize_floats(const ShapeQuery& q, std::string_view name, size_t count,
                                  const std::string& what) {
  const AttrDecl& decl = q.attr(name);
  const AttrValue* v = find_attr(q, decl);
  if (!v) return {};
  if (const auto* ints = std::get_if<std::vector<int64_t>>(v); ints && ints->empty()) return {};
  const auto* values = std::get_if<std::vector<double>>(v);
  if (!values) wrong_attr(q, decl, *v);
  if (values->empty()) return {};
  if (values->size() != count)
    op_error(q.op, "expected " + num(static_cast<int64_t>(count)) + " entries in '" + std::string(name) + "' (" +
                       what + "), got " + num(static_cast<int64_t>(values->size())));
  for (double d : *values)
    if (!std::isfinite(d))
      op_error(q.op, "expected finite entries in '" + std::string(name) + "', got " + std::to_string(d));
  return *values;
}

/// ONNX's floor(in * scale) for resize's axes sized at run time: static for
/// a static dim; for a symbolic one a symbol named after it and the scale
/// (equal resizes of one symbol give equal dims), bounded by its bound's
/// result; for a data-dependent one a data-dependent dim so bounded.
Dim scaled_dim(const Dim& in, double scale) {
  const auto at = [&](int64_t size) {
    const double sized = std::floor(static_cast<double>(size) * scale);
    if (!(sized <= static_cast<double>(kMaxAttrValue)))
      op_error("resize", "scale " + std::to_string(scale) + " gives " + in.str() + " more than " +
                             num(kMaxAttrValue) + " elements");
    return static_cast<int64_t>(sized);
  };
  if (in.is_static()) return Dim::fixed(at(in.value));
  const std::optional<int64_t> bound = in.upper_bound();
  if (in.kind == Dim::Kind::Dynamic) return Dim::dynamic(at(*bound));
  char tag[32];
  std::snprintf(tag, sizeof tag, "%.9g", scale);
  std::string name = in.symbol.str() + "_times_" + tag;
  std::replace(name.begin(), name.end(), '.', 'p');
  return Dim::symbolic(name, bound ? at(*bound) : -1);
}

// resize: x's type with each of `axes` sized by `output_size` (or, for an
// entry of kSizeByScale, by its scale).
std::vector<TensorType> resize_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  expect_dtype(q, x, q.decl->dtypes, "input");
  const std::vector<int64_t>& axes = required_ints(q, "axes");
  const std::vector<int64_t>& sizes = required_ints(q, "output_size");
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] < 0 || axes[i] >= x.rank() || (i > 0 && axes[i] <= axes[i - 1]))
      op_error(q.op, "expected 'axes' to be increasing axes of the input " + x.str() + ", got " + list_str(axes));
  if (sizes.size() != axes.size())
    op_error(q.op, "expected " + num(static_cast<int64_t>(axes.size())) + " entries in 'output_size' (one per axis " +
                       list_str(axes) + "), got " + list_str(sizes));
  const std::vector<double> scales = resize_floats(q, "scales", axes.size(), "one per axis");
  for (double s : scales)
    if (!(s > 0)) op_error(q.op, "expected 'scales' entries > 0, got " + std::to_string(s));
  resize_floats(q, "roi", 2 * axes.size(), "the starts, then the ends, of each axis");
  TensorType out = x;
  for (size_t i = 0; i < axes.size(); ++i) {
    Dim& d = out.dims[static_cast<size_t>(axes[i])];
    if (sizes[i] == resize::kSizeByScale && !scales.empty()) {
      d = scaled_dim(d, scales[i]);
      continue;
    }
    if (sizes[i] < 0)
      op_error(q.op, "expected 'output_size' entries >= 0, or " + num(resize::kSizeByScale) +
                         " (floor(size * scale)) with 'scales', got " + list_str(sizes));
    if (is_static_value(d, 0) && sizes[i] > 0)
      op_error(q.op, "expected a non-empty axis " + num(axes[i]) + " to resize to " + num(sizes[i]) + ", got " +
                         x.str());
    d = Dim::fixed(sizes[i]);
  }
  return {out};
}

// ---- normalization -----------------------------------------------------------

std::vector<TensorType> softmax_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  expect_dtype(q, x, q.decl->dtypes, "input");
  const AttrDecl& dim = q.attr("dim");
  if (!q.attrs.has(dim.name)) op_error(q.op, "expected attribute 'dim', got none");
  normalize_dim(q, dim.int_value(q.attrs), x.rank());
  return {x};
}

/// A per-channel parameter: rank 1 with the input's channel count.
void check_channel_param(const ShapeQuery& q, const TensorType& p, const TensorType& x, const std::string& what,
                         bool same_dtype) {
  if (same_dtype) {
    expect_same_dtype(q, p, x, what);
  } else {
    expect_dtype(q, p, q.decl->dtypes, what);
  }
  const Dim& c = x.dims[1];
  if (p.rank() != 1 || (c.is_static() && p.dims[0].is_static() && p.dims[0].value != c.value))
    op_error(q.op, "expected " + what + " of shape [" + c.str() + "] (channels of input " + x.str() + "), got " +
                       p.str());
}

void expect_channels_input(const ShapeQuery& q, const TensorType& x) {
  expect_dtype(q, x, q.decl->dtypes, "input");
  if (x.rank() < 2) op_error(q.op, "expected an input of rank >= 2 (N, C, ...), got " + x.str());
}

std::vector<TensorType> batch_norm_shape(const ShapeQuery& q) {
  expect_inputs(q, 5);
  const TensorType& x = q.inputs[0];
  expect_channels_input(q, x);
  const char* names[] = {"weight", "bias", "running_mean", "running_var"};
  for (size_t i = 0; i < 4; ++i) check_channel_param(q, q.inputs[1 + i], x, names[i], false);
  return {x};
}

std::vector<TensorType> grouped_norm_shape(const ShapeQuery& q, bool instance) {
  expect_inputs_between(q, 1, 3);
  const TensorType& x = q.inputs[0];
  expect_channels_input(q, x);
  if (!instance) {
    const AttrDecl& num_groups = q.attr("num_groups");
    if (!q.attrs.has(num_groups.name)) op_error(q.op, "expected attribute 'num_groups', got none");
    const int64_t groups = num_groups.int_value(q.attrs);
    const Dim& c = x.dims[1];
    if (groups <= 0 || (c.is_static() && c.value % groups != 0))
      op_error(q.op, "expected num_groups to be positive and divide the " + c.str() + " channels of input " +
                         x.str() + ", got " + num(groups));
  }
  if (q.inputs.size() >= 2) check_channel_param(q, q.inputs[1], x, "weight", true);
  if (q.inputs.size() >= 3) check_channel_param(q, q.inputs[2], x, "bias", true);
  return {x};
}

std::vector<TensorType> lrn_shape(const ShapeQuery& q) {
  expect_inputs(q, 1);
  const TensorType& x = q.inputs[0];
  expect_channels_input(q, x);
  if (!q.attrs.has(q.attr("size").name)) op_error(q.op, "expected attribute 'size', got none");
  return {x};
}

std::vector<TensorType> group_norm_shape(const ShapeQuery& q) { return grouped_norm_shape(q, false); }
std::vector<TensorType> instance_norm_shape(const ShapeQuery& q) { return grouped_norm_shape(q, true); }

std::vector<TensorType> layer_norm_shape(const ShapeQuery& q) {
  expect_inputs_between(q, 1, 3);
  const TensorType& x = q.inputs[0];
  expect_dtype(q, x, q.decl->dtypes, "input");
  if (x.rank() < 1) op_error(q.op, "expected an input of rank >= 1, got " + x.str());
  const int64_t raw = q.attr("axis").int_value(q.attrs);
  if (raw < -x.rank() || raw >= x.rank())
    op_error(q.op, "expected axis in [" + num(-x.rank()) + ", " + num(x.rank() - 1) + "] for input " + x.str() +
                       ", got " + num(raw));
  const int64_t axis = raw < 0 ? raw + x.rank() : raw;
  const int64_t norm_rank = x.rank() - axis;
  const char* names[] = {"weight", "bias"};
  for (size_t i = 1; i < q.inputs.size(); ++i) {
    const TensorType& p = q.inputs[i];
    expect_same_dtype(q, p, x, names[i - 1]);
    // Broadcasts against x.shape[axis:]: right-aligned, size-1 dims stretch.
    bool ok = p.rank() <= norm_rank;
    for (int64_t j = 0; ok && j < p.rank(); ++j) {
      const Dim& pd = p.dims[j];
      const Dim& xd = x.dims[x.rank() - p.rank() + j];
      if (pd.is_static() && xd.is_static() && pd.value != xd.value && pd.value != 1) ok = false;
    }
    if (!ok) {
      std::string tail = "[";
      for (int64_t j = axis; j < x.rank(); ++j) tail += (j > axis ? ", " : "") + x.dims[j].str();
      op_error(q.op, "expected " + std::string(names[i - 1]) + " of shape " + tail + "]" +
                         " (input " + x.str() + ", axis " + num(axis) + "), got " + p.str());
    }
  }
  return {x};
}

// ---- rnn, gru, lstm -------------------------------------------------------------
// src/kernels/recurrent.cpp: x [seq, batch, input]; W, R, B per direction;
// an optional operand left out before a present one is an empty [0].

std::vector<TensorType> recurrent_shape(const ShapeQuery& q) {
  const bool lstm = q.op == "lstm";
  const int64_t gates = lstm ? 4 : q.op == "gru" ? 3 : 1;
  expect_inputs_between(q, 3, lstm ? 8 : 6);
  const TensorType& x = q.inputs[0];
  expect_dtype(q, x, q.decl->dtypes, "input");
  if (x.rank() != 3) op_error(q.op, "expected an input [seq, batch, input], got " + x.str());
  const int64_t hidden = int_attr(q, "hidden_size");
  const int64_t dirs = q.attr("direction").string_value(q.attrs) == "bidirectional" ? 2 : 1;
  if (!x.dims[2].is_static()) op_error(q.op, "expected a static input size, got " + x.str());
  const Dim& batch = x.dims[1];
  // Each operand's expected dims; a symbolic one (batch) matches any.
  auto expect = [&](size_t i, const char* what, std::vector<Dim> dims) {
    if (i >= q.inputs.size()) return;
    const TensorType& t = q.inputs[i];
    if (t.rank() == 1 && t.dims[0].is_static() && t.dims[0].value == 0 && i >= 3) return;  // left out
    bool ok = t.rank() == static_cast<int64_t>(dims.size());
    for (size_t j = 0; ok && j < dims.size(); ++j)
      ok = !dims[j].is_static() || !t.dims[j].is_static() || dims[j].value == t.dims[j].value;
    std::string want = "[";
    for (size_t j = 0; j < dims.size(); ++j) want += (j ? ", " : "") + dims[j].str();
    if (!ok) op_error(q.op, "expected " + std::string(what) + " " + want + "], got " + t.str());
    if (i == 4) {
      expect_dtype(q, t, {DType::Int32, DType::Int64}, what);
    } else {
      expect_same_dtype(q, t, x, what);
    }
  };
  const Dim d = Dim::fixed(dirs), gh = Dim::fixed(gates * hidden), h = Dim::fixed(hidden);
  expect(1, "W", {d, gh, x.dims[2]});
  expect(2, "R", {d, gh, h});
  expect(3, "B", {d, Dim::fixed(2 * gates * hidden)});
  expect(4, "sequence_lens", {batch});
  expect(5, "initial_h", {d, batch, h});
  expect(6, "initial_c", {d, batch, h});
  expect(7, "P", {d, Dim::fixed(3 * hidden)});
  const TensorType y(x.dtype, {x.dims[0], d, batch, h});
  const TensorType state(x.dtype, {d, batch, h});
  const TensorType workspace(x.dtype, {batch, Dim::fixed(2 * gates * hidden + hidden)});
  if (lstm) return {y, state, state, workspace};
  return {y, state, workspace};
}

// ---- non_max_suppression, roi_align, grid_sample ----------------------------------
// src/kernels/detection.cpp and grid_sample.cpp.

/// The product of the dims' upper bounds, or nullopt when one is unbounded.
std::optional<int64_t> bound_product(std::initializer_list<std::optional<int64_t>> bounds) {
  int64_t p = 1;
  for (const auto& b : bounds)
    if (!b || __builtin_mul_overflow(p, *b, &p)) return std::nullopt;
  return p;
}

// boxes [batch, boxes, 4], scores [batch, classes, boxes] and three optional
// scalars; i64 [n, 3] with n at most batch * classes * min(boxes,
// max_boxes_bound), and an i64 [boxes] workspace.
std::vector<TensorType> non_max_suppression_shape(const ShapeQuery& q) {
  expect_inputs_between(q, 2, 5);
  const TensorType& boxes = q.inputs[0];
  const TensorType& scores = q.inputs[1];
  expect_dtype(q, boxes, q.decl->dtypes, "boxes");
  expect_dtype(q, scores, q.decl->dtypes, "scores");
  if (boxes.rank() != 3 || (boxes.dims[2].is_static() && boxes.dims[2].value != 4))
    op_error(q.op, "expected boxes [batch, boxes, 4], got " + boxes.str());
  if (scores.rank() != 3) op_error(q.op, "expected scores [batch, classes, boxes], got " + scores.str());
  for (int d : {0, 2}) {
    const Dim& a = boxes.dims[d == 0 ? 0 : 1];
    const Dim& b = scores.dims[d];
    if (a.is_static() && b.is_static() && a.value != b.value)
      op_error(q.op, "expected scores [batch, classes, boxes] for boxes " + boxes.str() + ", got " + scores.str());
  }
  const char* names[] = {"max_output_boxes_per_class", "iou_threshold", "score_threshold"};
  for (size_t i = 2; i < q.inputs.size(); ++i) {
    const TensorType& t = q.inputs[i];
    expect_dtype(q, t, {i == 2 ? DType::Int64 : DType::Float32}, names[i - 2]);
    const auto n = t.max_numel();
    if (t.rank() > 1 || (t.is_static() && n && *n != 1))
      op_error(q.op, "expected " + std::string(names[i - 2]) + " of one element (shape [] or [1]), got " + t.str());
  }
  std::optional<int64_t> per_class = boxes.dims[1].upper_bound();
  const int64_t bound = int_attr(q, "max_boxes_bound");
  if (bound >= 0) per_class = per_class ? std::min(*per_class, bound) : bound;
  const auto rows = bound_product({boxes.dims[0].upper_bound(), scores.dims[1].upper_bound(), per_class});
  const Dim n = rows ? Dim::dynamic(*rows) : Dim::symbolic("non_max_suppression_rows");
  return {TensorType(DType::Int64, {n, Dim::fixed(3)}), TensorType(DType::Int64, {boxes.dims[1]})};
}

// x [N, C, H, W], rois [R, 4] of x's dtype, batch_indices [R]:
// [R, C, output_height, output_width].
std::vector<TensorType> roi_align_shape(const ShapeQuery& q) {
  expect_inputs(q, 3);
  const TensorType& x = q.inputs[0];
  const TensorType& rois = q.inputs[1];
  const TensorType& idx = q.inputs[2];
  expect_dtype(q, x, q.decl->dtypes, "input");
  expect_same_dtype(q, rois, x, "rois");
  expect_dtype(q, idx, {DType::Int64, DType::Int32}, "batch_indices");
  if (x.rank() != 4) op_error(q.op, "expected an input [N, C, H, W], got " + x.str());
  if (rois.rank() != 2 || (rois.dims[1].is_static() && rois.dims[1].value != 4))
    op_error(q.op, "expected rois [num_rois, 4], got " + rois.str());
  if (idx.rank() != 1 ||
      (idx.dims[0].is_static() && rois.dims[0].is_static() && idx.dims[0].value != rois.dims[0].value))
    op_error(q.op, "expected batch_indices [" + rois.dims[0].str() + "], one per ROI, got " + idx.str());
  return {TensorType(x.dtype, {rois.dims[0], x.dims[1], Dim::fixed(int_attr(q, "output_height")),
                               Dim::fixed(int_attr(q, "output_width"))})};
}

// x [N, C, H, W] with grid [N, H_out, W_out, 2], or x [N, C, D, H, W] with
// grid [N, D_out, H_out, W_out, 3]: [N, C, (D_out,) H_out, W_out].
std::vector<TensorType> grid_sample_shape(const ShapeQuery& q) {
  expect_inputs(q, 2);
  const TensorType& x = q.inputs[0];
  const TensorType& grid = q.inputs[1];
  expect_dtype(q, x, q.decl->dtypes, "input");
  expect_same_dtype(q, grid, x, "grid");
  if (x.rank() != 4 && x.rank() != 5) op_error(q.op, "expected an input [N, C, H, W] or [N, C, D, H, W], got " + x.str());
  const int64_t spatial = x.rank() - 2;
  const Dim last = grid.rank() == x.rank() ? grid.dims.back() : Dim::fixed(0);
  if (grid.rank() != x.rank() || (last.is_static() && last.value != spatial) ||
      (grid.dims[0].is_static() && x.dims[0].is_static() && grid.dims[0].value != x.dims[0].value))
    op_error(q.op, "expected a grid [" + x.dims[0].str() + ", ..., " + num(spatial) + "] of rank " + num(x.rank()) +
                       " for an input " + x.str() + ", got " + grid.str());
  if (q.attr("mode").string_value(q.attrs) == "cubic" && spatial != 2)
    op_error(q.op, "expected an input [N, C, H, W] for cubic mode (2-D only), got " + x.str());
  Dims out = {x.dims[0], x.dims[1]};
  for (int64_t a = 1; a <= spatial; ++a) out.push_back(grid.dims[a]);
  return {TensorType(x.dtype, std::move(out))};
}

}  // namespace

std::vector<std::pair<std::string_view, ShapeFn>> nn_shapes() {
  return {{"conv", conv_shape},
          {"conv_transpose", conv_transpose_shape},
          {"max_pool", pool_shape},
          {"max_pool_with_indices", pool_with_indices_shape},
          {"avg_pool", pool_shape},
          {"adaptive_avg_pool", output_size_shape},
          {"upsample_nearest", output_size_shape},
          {"upsample_bilinear", output_size_shape},
          {"resize", resize_shape},
          {"softmax", softmax_shape},
          {"log_softmax", softmax_shape},
          {"batch_norm", batch_norm_shape},
          {"layer_norm", layer_norm_shape},
          {"group_norm", group_norm_shape},
          {"instance_norm", instance_norm_shape},
          {"lrn", lrn_shape},

          {"rnn", recurrent_shape},
          {"gru", recurrent_shape},
          {"lstm", recurrent_shape},
          {"non_max_suppression", non_max_suppression_shape},
          {"roi_align", roi_align_shape},
          {"grid_sample", grid_sample_shape}};
}

}  // namespace edgec::ops
