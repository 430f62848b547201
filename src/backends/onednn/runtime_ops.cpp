// Builds the oneDNN primitives of one delegate instruction, once, at init.
// Each family maps the edge operator's semantics (src/kernels/) onto a
// primitive: shapes come from the slots (static), attributes from the
// instruction, with the partitioner (partitioner.cpp) having refused what
// does not map. Activations are plain row-major f32 between instructions,
// so every instruction reads and writes its slots directly; constant conv
// weights are reordered once into the layout the primitive prefers, and
// only that copy is kept.
#include <algorithm>
#include <cstring>
#include <limits>

#include "backends/onednn/geometry.h"
#include "backends/onednn/runtime_state.h"

namespace edgec::runtime::onednn {
namespace {

using dnnl::algorithm;
using dnnl::memory;
using dnnl::prop_kind;
using Args = std::unordered_map<int, dnnl::memory>;
constexpr auto kF32 = memory::data_type::f32;
constexpr auto kInference = prop_kind::forward_inference;

struct Ctx {
  Delegate& d;
  const Instruction& in;
  std::string what;
  int32_t input(size_t i) const { return in.inputs.at(i); }
  int32_t output(size_t i = 0) const { return in.outputs.at(i); }
  const std::vector<int64_t>& shape(int32_t slot) const { return d.slots.at(static_cast<size_t>(slot)).shape; }
  bool is_constant(int32_t slot) const {
    const SlotKind k = d.slots.at(static_cast<size_t>(slot)).kind;
    return k == SlotKind::Constant || k == SlotKind::State;
  }
  const Attrs& attrs() const { return in.attrs; }
};

memory::dims to_dims(const std::vector<int64_t>& v) { return memory::dims(v.begin(), v.end()); }

memory::dims pad_left(memory::dims v, size_t rank) {
  v.insert(v.begin(), rank - v.size(), 1);
  return v;
}

memory::desc md_of(const memory::dims& dims) { return memory::desc(dims, kF32, plain_strides(dims)); }

int64_t normalize(int64_t dim, int64_t rank) { return dim < 0 ? dim + rank : dim; }

Error bad(const Ctx& c, const std::string& message) {
  return fail(Error::InvalidProgram, "onednn: " + c.what + ": " + message);
}

// ---- copies ------------------------------------------------------------------

// Reshape-like operators: the bytes do not change.
Error build_copy(Ctx& c) {
  const int32_t x = c.input(0), y = c.output();
  Delegate& d = c.d;
  const size_t bytes = d.slots[static_cast<size_t>(y)].nbytes();
  Step step;
  step.what = c.what;
  step.run = [&d, x, y, bytes]() {
    std::memcpy(d.slots[static_cast<size_t>(y)].ptr, d.slots[static_cast<size_t>(x)].ptr, bytes);
    return Error::Ok;
  };
  d.steps.push_back(std::move(step));
  return Error::Ok;
}

// A reorder from a strided view of slot `x` (dims, strides in elements, byte
// offset) into the plain slot `y`: permute, slice, select, split.
void add_view_reorder(Ctx& c, int32_t x, const memory::dims& dims, const memory::dims& strides, size_t offset,
                      int32_t y) {
  const memory::desc src(dims, kF32, strides);
  const memory::desc dst = md_of(dims);
  dnnl::reorder::primitive_desc pd(c.d.engine, src, c.d.engine, dst, c.d.attr());
  c.d.add(dnnl::reorder(pd), pd, {{DNNL_ARG_FROM, c.d.bind(x, src, offset)}, {DNNL_ARG_TO, c.d.bind(y, dst)}}, c.what);
}

Error build_permute(Ctx& c) {
  const auto x = dnnl_dims(c.shape(c.input(0)));
  const auto xs = plain_strides(x);
  const std::vector<int64_t>* perm = c.attrs().get_ints("dims");
  if (!perm || perm->size() != c.shape(c.input(0)).size()) return bad(c, "expected one 'dims' entry per input dim");
  memory::dims dims, strides;
  for (int64_t p : *perm) {
    const auto i = static_cast<size_t>(normalize(p, static_cast<int64_t>(perm->size())));
    dims.push_back(x.at(i));
    strides.push_back(xs.at(i));
  }
  if (perm->empty()) return build_copy(c);
  add_view_reorder(c, c.input(0), dims, strides, 0, c.output());
  return Error::Ok;
}

Error build_slice(Ctx& c) {
  const auto& x = c.shape(c.input(0));
  const auto xs = plain_strides(dnnl_dims(x));
  const auto rank = static_cast<int64_t>(x.size());
  memory::dims strides = xs;
  int64_t offset = 0;
  const std::vector<int64_t> none;
  const auto* starts = c.attrs().get_ints("starts");
  const auto* dims = c.attrs().get_ints("dims");
  const auto* steps = c.attrs().get_ints("steps");
  if (!starts) return bad(c, "expected 'starts'");
  for (size_t i = 0; i < starts->size(); ++i) {
    const auto dim = static_cast<size_t>(normalize(dims && !dims->empty() ? (*dims)[i] : static_cast<int64_t>(i), rank));
    const int64_t size = x.at(dim);
    const int64_t step = steps && !steps->empty() ? (*steps)[i] : 1;
    // ONNX Slice: a negative start counts from the end, then clamps.
    int64_t start = (*starts)[i];
    if (start < 0) start += size;
    start = std::clamp<int64_t>(start, 0, size);
    offset += start * xs[dim];
    strides[dim] = xs[dim] * step;
  }
  add_view_reorder(c, c.input(0), dnnl_dims(c.shape(c.output())), strides, static_cast<size_t>(offset) * 4, c.output());
  return Error::Ok;
}

Error build_select(Ctx& c) {
  const auto& x = c.shape(c.input(0));
  const auto xs = plain_strides(dnnl_dims(x));
  const auto dim = static_cast<size_t>(normalize(c.attrs().get_int("dim"), static_cast<int64_t>(x.size())));
  int64_t index = c.attrs().get_int("index");
  if (index < 0) index += x.at(dim);
  if (index < 0 || index >= x.at(dim)) return bad(c, "index out of range");
  memory::dims dims, strides;
  for (size_t i = 0; i < x.size(); ++i)
    if (i != dim) {
      dims.push_back(x[i]);
      strides.push_back(xs[i]);
    }
  if (dims.empty()) {
    dims = {1};
    strides = {1};
  }
  add_view_reorder(c, c.input(0), dims, strides, static_cast<size_t>(index * xs[dim]) * 4, c.output());
  return Error::Ok;
}

Error build_split(Ctx& c) {
  const auto& x = c.shape(c.input(0));
  const auto xs = plain_strides(dnnl_dims(x));
  const auto dim = static_cast<size_t>(normalize(c.attrs().get_int("dim", 0), static_cast<int64_t>(x.size())));
  int64_t at = 0;
  for (size_t k = 0; k < c.in.outputs.size(); ++k) {
    const auto dims = dnnl_dims(c.shape(c.output(k)));
    add_view_reorder(c, c.input(0), dims, xs, static_cast<size_t>(at * xs[dim]) * 4, c.output(k));
    at += dims.at(dim);
  }
  return Error::Ok;
}

Error build_expand(Ctx& c) {
  add_broadcast_copy(c.d, c.input(0), c.output(), c.what);
  return Error::Ok;
}

Error build_concat(Ctx& c) {
  const auto out = dnnl_dims(c.shape(c.output()));
  const auto axis = static_cast<int>(normalize(c.attrs().get_int("dim", 0), static_cast<int64_t>(out.size())));
  std::vector<memory::desc> srcs;
  for (int32_t s : c.in.inputs) srcs.push_back(md_of(dnnl_dims(c.shape(s))));
  const memory::desc dst = md_of(out);
  dnnl::concat::primitive_desc pd(dst, axis, srcs, c.d.engine, c.d.attr());
  Args args{{DNNL_ARG_DST, c.d.bind(c.output(), dst)}};
  for (size_t i = 0; i < srcs.size(); ++i)
    args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)] = c.d.bind(c.input(i), srcs[i]);
  c.d.add(dnnl::concat(pd), pd, std::move(args), c.what);
  return Error::Ok;
}

// ---- elementwise -----------------------------------------------------------------

void add_eltwise(Ctx& c, algorithm alg, float alpha, float beta, int32_t src, int32_t dst) {
  const memory::desc md = plain_md(c.shape(dst));
  dnnl::eltwise_forward::desc desc(kInference, alg, md, alpha, beta);
  dnnl::eltwise_forward::primitive_desc pd(desc, c.d.attr(), c.d.engine);
  c.d.add(dnnl::eltwise_forward(pd), pd, {{DNNL_ARG_SRC, c.d.bind(src, md)}, {DNNL_ARG_DST, c.d.bind(dst, md)}}, c.what);
}

Error build_unary(Ctx& c, std::string_view op) {
  const Attrs& a = c.attrs();
  const int32_t x = c.input(0), y = c.output();
  auto f = [&](std::string_view name, double dflt) { return static_cast<float>(a.get_float(name, dflt)); };
  constexpr float kInf = std::numeric_limits<float>::infinity();
  if (op == "relu") add_eltwise(c, algorithm::eltwise_relu, 0.f, 0.f, x, y);
  else if (op == "leaky_relu") add_eltwise(c, algorithm::eltwise_relu, f("negative_slope", 0.01), 0.f, x, y);
  else if (op == "elu") add_eltwise(c, algorithm::eltwise_elu, f("alpha", 1.0), 0.f, x, y);
  else if (op == "gelu")
    add_eltwise(c, a.get_string("approximate", "none") == "tanh" ? algorithm::eltwise_gelu_tanh : algorithm::eltwise_gelu_erf,
                0.f, 0.f, x, y);
  else if (op == "tanh") add_eltwise(c, algorithm::eltwise_tanh, 0.f, 0.f, x, y);
  else if (op == "sigmoid") add_eltwise(c, algorithm::eltwise_logistic, 0.f, 0.f, x, y);
  else if (op == "exp") add_eltwise(c, algorithm::eltwise_exp, 0.f, 0.f, x, y);
  else if (op == "log") add_eltwise(c, algorithm::eltwise_log, 0.f, 0.f, x, y);
  else if (op == "sqrt") add_eltwise(c, algorithm::eltwise_sqrt, 0.f, 0.f, x, y);
  else if (op == "abs") add_eltwise(c, algorithm::eltwise_abs, 0.f, 0.f, x, y);
  else if (op == "mish") add_eltwise(c, algorithm::eltwise_mish, 0.f, 0.f, x, y);
  // 2.6 ignores hardswish's alpha/beta; later versions read x * clip(alpha x + beta, 0, 1).
  else if (op == "hardswish") add_eltwise(c, algorithm::eltwise_hardswish, 1.f / 6.f, 0.5f, x, y);
  else if (op == "softplus") add_eltwise(c, algorithm::eltwise_soft_relu, 1.f, 0.f, x, y);
  else if (op == "neg") add_eltwise(c, algorithm::eltwise_linear, -1.f, 0.f, x, y);
  else if (op == "reciprocal") add_eltwise(c, algorithm::eltwise_pow, 1.f, -1.f, x, y);
  else if (op == "rsqrt") add_eltwise(c, algorithm::eltwise_pow, 1.f, -0.5f, x, y);
  else if (op == "clamp") add_eltwise(c, algorithm::eltwise_clip_v2, f("min", -kInf), f("max", kInf), x, y);
  else if (op == "hardsigmoid") {
    // 2.6 has no hardsigmoid: clip(x / 6 + 1/2, 0, 1), the second in place.
    add_eltwise(c, algorithm::eltwise_linear, 1.f / 6.f, 0.5f, x, y);
    add_eltwise(c, algorithm::eltwise_clip_v2, 0.f, 1.f, y, y);
  } else return bad(c, "no eltwise mapping");
  return Error::Ok;
}

// out = a op b with numpy broadcasting. oneDNN broadcasts only src1, so an
// `a` smaller than the result is first broadcast into the output, which
// then serves as src0 in place.
// `b_dims` (optional) describes b in the result's rank when numpy's
// right-aligned rule is not the one meant (per-channel affine parameters).
void add_binary(Ctx& c, algorithm alg, bool commutative, int32_t a, int32_t b, int32_t out,
                const memory::dims& b_dims = {}) {
  const auto o = dnnl_dims(c.shape(out));
  auto ad = pad_left(dnnl_dims(c.shape(a)), o.size());
  auto bd = b_dims.empty() ? pad_left(dnnl_dims(c.shape(b)), o.size()) : b_dims;
  if (ad != o && bd == o && commutative) {
    std::swap(a, b);
    std::swap(ad, bd);
  }
  memory src0;
  const memory::desc omd = md_of(o);
  if (ad == o) {
    src0 = c.d.bind(a, omd);
  } else {
    add_broadcast_copy(c.d, a, out, c.what);
    src0 = c.d.bind(out, omd);
  }
  const memory::desc bmd = md_of(bd);
  dnnl::binary::desc desc(alg, omd, bmd, omd);
  dnnl::binary::primitive_desc pd(desc, c.d.attr(), c.d.engine);
  c.d.add(dnnl::binary(pd), pd,
          {{DNNL_ARG_SRC_0, src0}, {DNNL_ARG_SRC_1, c.d.bind(b, bmd)}, {DNNL_ARG_DST, c.d.bind(out, omd)}}, c.what);
}

Error build_binary(Ctx& c, std::string_view op) {
  struct Row {
    std::string_view name;
    algorithm alg;
    bool commutative;
  };
  static constexpr Row kRows[] = {
      {"add", algorithm::binary_add, true},     {"sub", algorithm::binary_sub, false},
      {"mul", algorithm::binary_mul, true},     {"div", algorithm::binary_div, false},
      {"maximum", algorithm::binary_max, true}, {"minimum", algorithm::binary_min, true},
  };
  for (const Row& r : kRows)
    if (r.name == op) {
      add_binary(c, r.alg, r.commutative, c.input(0), c.input(1), c.output());
      return Error::Ok;
    }
  return bad(c, "no binary mapping");
}

// ---- matmul ------------------------------------------------------------------------

// numpy matmul: a 1-D operand gains a dim of 1 (dropped from the result,
// which the output slot's plain layout already reflects), batch dims
// broadcast.
Error build_matmul(Ctx& c) {
  auto a = dnnl_dims(c.shape(c.input(0)));
  auto b = dnnl_dims(c.shape(c.input(1)));
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  const size_t r = std::max(a.size(), b.size());
  a = pad_left(a, r);
  b = pad_left(b, r);
  memory::dims o(r);
  for (size_t i = 0; i + 2 < r; ++i) o[i] = std::max(a[i], b[i]);
  o[r - 2] = a[r - 2];
  o[r - 1] = b[r - 1];
  const memory::desc amd = md_of(a), bmd = md_of(b), omd = md_of(o);
  dnnl::matmul::desc desc(amd, bmd, omd);
  dnnl::matmul::primitive_desc pd(desc, c.d.attr(), c.d.engine);
  c.d.add(dnnl::matmul(pd), pd,
          {{DNNL_ARG_SRC, c.d.bind(c.input(0), amd)},
           {DNNL_ARG_WEIGHTS, c.d.bind(c.input(1), bmd)},
           {DNNL_ARG_DST, c.d.bind(c.output(), omd)}},
          c.what);
  return Error::Ok;
}

// ---- convolution --------------------------------------------------------------------

// The weights argument: constant weights are reordered now into the layout
// the primitive chose (only the reordered copy is kept); computed weights
// are read in place in their plain layout.
memory conv_weights(Ctx& c, int32_t w, const memory::desc& plain, const memory::desc& chosen) {
  if (!c.is_constant(w) || chosen == plain) return c.d.bind(w, plain);
  memory src(plain, c.d.engine, c.d.slots[static_cast<size_t>(w)].ptr);
  memory dst(chosen, c.d.engine);
  dnnl::reorder(src, dst).execute(c.d.stream, src, dst);
  c.d.stream.wait();
  return dst;
}

Error build_conv(Ctx& c, bool transposed) {
  const auto& x = c.shape(c.input(0));
  const auto& w = c.shape(c.input(1));
  const size_t nd = x.size() - 2;
  const Attrs& a = c.attrs();
  const int64_t groups = a.get_int("groups", 1);
  const auto stride = edgec::onednn::spatial_ints(a, "stride", nd, 1);
  const auto dilation = edgec::onednn::spatial_ints(a, "dilation", nd, 1);
  std::vector<int64_t> pb, pe;
  edgec::onednn::spatial_padding(a, nd, pb, pe);
  memory::dims dil(nd), pr(nd);
  for (size_t i = 0; i < nd; ++i) {
    dil[i] = dilation[i] - 1;  // oneDNN counts the gaps
    pr[i] = pe[i];
  }
  if (transposed) {
    // No output padding in oneDNN: it is less right padding.
    const auto op = edgec::onednn::spatial_ints(a, "output_padding", nd, 0);
    for (size_t i = 0; i < nd; ++i) pr[i] -= op[i];
  }
  // oneDNN's weights are (g,) O, I, k...; conv's torch layout [Cout,
  // Cin/g, k...] is exactly that, transposed conv's [Cin, Cout, k...] is
  // the same dims with O and I strides swapped.
  memory::dims wdims;
  memory::dims wstrides;
  if (!transposed) {
    wdims = to_dims(w);
    if (groups > 1) {
      wdims[0] /= groups;
      wdims.insert(wdims.begin(), groups);
    }
    wstrides = plain_strides(wdims);
  } else {
    const auto ts = plain_strides(to_dims(w));
    wdims = to_dims(w);
    std::swap(wdims[0], wdims[1]);
    wstrides = ts;
    std::swap(wstrides[0], wstrides[1]);
  }
  const memory::desc wplain(wdims, kF32, wstrides);
  const memory::desc wany = c.is_constant(c.input(1)) ? memory::desc(wdims, kF32, memory::format_tag::any) : wplain;
  const memory::desc src = plain_md(x), dst = plain_md(c.shape(c.output()));
  const bool has_bias = c.in.inputs.size() > 2;
  const memory::desc bias = has_bias ? plain_md(c.shape(c.input(2))) : memory::desc();
  Args args{{DNNL_ARG_SRC, c.d.bind(c.input(0), src)}, {DNNL_ARG_DST, c.d.bind(c.output(), dst)}};
  if (has_bias) args[DNNL_ARG_BIAS] = c.d.bind(c.input(2), bias);
  if (!transposed) {
    dnnl::convolution_forward::desc desc(kInference, algorithm::convolution_direct, src, wany, bias, dst, to_dims(stride),
                                         dil, to_dims(pb), pr);
    dnnl::convolution_forward::primitive_desc pd(desc, c.d.attr(), c.d.engine);
    args[DNNL_ARG_WEIGHTS] = conv_weights(c, c.input(1), wplain, pd.weights_desc());
    c.d.add(dnnl::convolution_forward(pd), pd, std::move(args), c.what);
  } else {
    dnnl::deconvolution_forward::desc desc(kInference, algorithm::deconvolution_direct, src, wany, bias, dst,
                                           to_dims(stride), dil, to_dims(pb), pr);
    dnnl::deconvolution_forward::primitive_desc pd(desc, c.d.attr(), c.d.engine);
    args[DNNL_ARG_WEIGHTS] = conv_weights(c, c.input(1), wplain, pd.weights_desc());
    c.d.add(dnnl::deconvolution_forward(pd), pd, std::move(args), c.what);
  }
  return Error::Ok;
}

// ---- pooling -------------------------------------------------------------------------

Error build_pool(Ctx& c, std::string_view op) {
  const auto& x = c.shape(c.input(0));
  const auto& y = c.shape(c.output());
  const size_t nd = x.size() - 2;
  memory::dims k(nd), s(nd), dil(nd, 0), pl(nd, 0), pr(nd, 0);
  algorithm alg = algorithm::pooling_max;
  if (op == "adaptive_avg_pool") {
    // Taken only when each output size divides its input size: then every
    // window has the same size and no padding.
    for (size_t i = 0; i < nd; ++i) k[i] = s[i] = x[2 + i] / y[2 + i];
    alg = algorithm::pooling_avg_exclude_padding;
  } else {
    const Attrs& a = c.attrs();
    const auto kernel = edgec::onednn::spatial_ints(a, "kernel_size", nd, 1);
    const auto stride = edgec::onednn::spatial_ints(a, "stride", nd, 0);
    const auto dilation = edgec::onednn::spatial_ints(a, "dilation", nd, 1);
    std::vector<int64_t> pb, pe;
    edgec::onednn::spatial_padding(a, nd, pb, pe);
    for (size_t i = 0; i < nd; ++i) {
      k[i] = kernel[i];
      s[i] = stride[i] > 0 ? stride[i] : kernel[i];
      dil[i] = dilation[i] - 1;
      pl[i] = pb[i];
      pr[i] = edgec::onednn::pool_pad_right(x[2 + i], y[2 + i], k[i], s[i], dilation[i], pb[i]);
      if (pr[i] < 0) return bad(c, "no right padding gives the output size");
    }
    if (op == "avg_pool")
      alg = a.get_bool("count_include_pad", true) ? algorithm::pooling_avg_include_padding
                                                  : algorithm::pooling_avg_exclude_padding;
  }
  const memory::desc src = plain_md(x), dst = plain_md(y);
  dnnl::pooling_v2_forward::desc desc(kInference, alg, src, dst, s, k, dil, pl, pr);
  dnnl::pooling_v2_forward::primitive_desc pd(desc, c.d.attr(), c.d.engine);
  c.d.add(dnnl::pooling_v2_forward(pd), pd,
          {{DNNL_ARG_SRC, c.d.bind(c.input(0), src)}, {DNNL_ARG_DST, c.d.bind(c.output(), dst)}}, c.what);
  return Error::Ok;
}

// ---- normalization -----------------------------------------------------------------------

Error build_softmax(Ctx& c, bool log) {
  const auto& x = c.shape(c.input(0));
  const int64_t rank = std::max<int64_t>(static_cast<int64_t>(x.size()), 1);
  const auto axis = static_cast<int>(normalize(c.attrs().get_int("dim", -1), rank));
  const memory::desc md = plain_md(x);
  dnnl::softmax_v2_forward::desc desc(kInference, log ? algorithm::softmax_log : algorithm::softmax_accurate, md, md,
                                      axis);
  dnnl::softmax_v2_forward::primitive_desc pd(desc, c.d.attr(), c.d.engine);
  c.d.add(dnnl::softmax_v2_forward(pd), pd,
          {{DNNL_ARG_SRC, c.d.bind(c.input(0), md)}, {DNNL_ARG_DST, c.d.bind(c.output(), md)}}, c.what);
  return Error::Ok;
}

// Normalizes rows of `cols` elements of x into y (no affine).
void add_row_norm(Ctx& c, int64_t rows, int64_t cols, float eps, int32_t x, int32_t y, int32_t scale, int32_t shift) {
  const memory::desc md = md_of({rows, cols});
  auto flags = dnnl::normalization_flags::none;
  if (scale >= 0) flags |= dnnl::normalization_flags::use_scale;
  if (shift >= 0) flags |= dnnl::normalization_flags::use_shift;
  dnnl::layer_normalization_forward::desc desc(kInference, md, eps, flags);
  dnnl::layer_normalization_forward::primitive_desc pd(desc, c.d.attr(), c.d.engine);
  Args args{{DNNL_ARG_SRC, c.d.bind(x, md)}, {DNNL_ARG_DST, c.d.bind(y, md)}};
  if (scale >= 0) args[DNNL_ARG_SCALE] = c.d.bind(scale, md_of({cols}));
  if (shift >= 0) args[DNNL_ARG_SHIFT] = c.d.bind(shift, md_of({cols}));
  c.d.add(dnnl::layer_normalization_forward(pd), pd, std::move(args), c.what);
}

Error build_layer_norm(Ctx& c) {
  const auto& x = c.shape(c.input(0));
  const auto rank = static_cast<int64_t>(x.size());
  const auto axis = static_cast<size_t>(normalize(c.attrs().get_int("axis", -1), rank));
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < x.size(); ++i) (i < axis ? outer : inner) *= x[i];
  const auto eps = static_cast<float>(c.attrs().get_float("eps", 1e-5));
  const int32_t w = c.in.inputs.size() > 1 ? c.input(1) : -1;
  const int32_t b = c.in.inputs.size() > 2 ? c.input(2) : -1;
  add_row_norm(c, outer, inner, eps, c.input(0), c.output(), w, b);
  return Error::Ok;
}

// instance_norm (groups = channels) and group_norm: a row norm per (sample,
// group), then the per-channel affine as broadcast binaries in place.
Error build_group_norm(Ctx& c, bool instance) {
  const auto& x = c.shape(c.input(0));
  const int64_t n = x[0], ch = x[1];
  const int64_t groups = instance ? ch : c.attrs().get_int("num_groups", 1);
  int64_t numel = 1;
  for (int64_t v : x) numel *= v;
  const auto eps = static_cast<float>(c.attrs().get_float("eps", 1e-5));
  add_row_norm(c, n * groups, numel / (n * groups), eps, c.input(0), c.output(), -1, -1);
  memory::dims per_channel(x.size(), 1);
  per_channel[1] = ch;
  for (size_t i = 1; i < c.in.inputs.size(); ++i)
    add_binary(c, i == 1 ? algorithm::binary_mul : algorithm::binary_add, false, c.output(), c.input(i), c.output(),
               per_channel);
  return Error::Ok;
}

Error build_batch_norm(Ctx& c) {
  const auto& x = c.shape(c.input(0));
  const memory::desc md = plain_md(x), cmd = md_of({x[1]});
  const auto eps = static_cast<float>(c.attrs().get_float("eps", 1e-5));
  const auto flags = dnnl::normalization_flags::use_global_stats | dnnl::normalization_flags::use_scale |
                     dnnl::normalization_flags::use_shift;
  dnnl::batch_normalization_forward::desc desc(kInference, md, eps, flags);
  dnnl::batch_normalization_forward::primitive_desc pd(desc, c.d.attr(), c.d.engine);
  c.d.add(dnnl::batch_normalization_forward(pd), pd,
          {{DNNL_ARG_SRC, c.d.bind(c.input(0), md)},
           {DNNL_ARG_SCALE, c.d.bind(c.input(1), cmd)},
           {DNNL_ARG_SHIFT, c.d.bind(c.input(2), cmd)},
           {DNNL_ARG_MEAN, c.d.bind(c.input(3), cmd)},
           {DNNL_ARG_VARIANCE, c.d.bind(c.input(4), cmd)},
           {DNNL_ARG_DST, c.d.bind(c.output(), md)}},
          c.what);
  return Error::Ok;
}

// ---- reductions -----------------------------------------------------------------------------

Error build_reduce(Ctx& c, std::string_view op) {
  const auto& x = c.shape(c.input(0));
  const auto reduced = edgec::onednn::reduced_dims(c.attrs(), static_cast<int>(x.size()));
  memory::dims o = dnnl_dims(x);
  bool any = false;
  for (size_t i = 0; i < x.size(); ++i)
    if (reduced[i] && x[i] != 1) {
      o[i] = 1;
      any = true;
    }
  // oneDNN rejects a reduction that reduces nothing; the values are unchanged.
  if (!any) return build_copy(c);
  algorithm alg = algorithm::reduction_sum;
  if (op == "mean") alg = algorithm::reduction_mean;
  else if (op == "amax") alg = algorithm::reduction_max;
  else if (op == "amin") alg = algorithm::reduction_min;
  else if (op == "prod") alg = algorithm::reduction_mul;
  const memory::desc src = plain_md(x), dst = md_of(o);
  dnnl::reduction::desc desc(alg, src, dst, 0.f, 0.f);
  dnnl::reduction::primitive_desc pd(desc, c.d.attr(), c.d.engine);
  c.d.add(dnnl::reduction(pd), pd, {{DNNL_ARG_SRC, c.d.bind(c.input(0), src)}, {DNNL_ARG_DST, c.d.bind(c.output(), dst)}},
          c.what);
  return Error::Ok;
}

bool one_of(std::string_view op, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), op) != names.end();
}

}  // namespace

Error build_instruction(Delegate& d, const Program&, const Instruction& in, size_t index) {
  const std::string_view op = in.op;
  Ctx c{d, in, "instruction " + std::to_string(index) + " (" + in.op + ")"};
  if (in.outputs.empty()) return bad(c, "expected at least one output");
  if (op == "conv" || op == "conv_transpose") return build_conv(c, op == "conv_transpose");
  if (op == "matmul") return build_matmul(c);
  if (one_of(op, {"add", "sub", "mul", "div", "maximum", "minimum"})) return build_binary(c, op);
  if (one_of(op, {"relu", "leaky_relu", "elu", "gelu", "tanh", "sigmoid", "exp", "log", "sqrt", "abs", "mish",
                  "hardswish", "softplus", "neg", "reciprocal", "rsqrt", "clamp", "hardsigmoid"}))
    return build_unary(c, op);
  if (op == "softmax" || op == "log_softmax") return build_softmax(c, op == "log_softmax");
  if (op == "layer_norm") return build_layer_norm(c);
  if (op == "batch_norm") return build_batch_norm(c);
  if (op == "instance_norm" || op == "group_norm") return build_group_norm(c, op == "instance_norm");
  if (one_of(op, {"max_pool", "avg_pool", "adaptive_avg_pool"})) return build_pool(c, op);
  if (one_of(op, {"sum", "mean", "amax", "amin", "prod"})) return build_reduce(c, op);
  if (op == "concat") return build_concat(c);
  if (op == "permute") return build_permute(c);
  if (op == "slice") return build_slice(c);
  if (op == "select") return build_select(c);
  if (op == "split") return build_split(c);
  if (op == "expand") return build_expand(c);
  if (one_of(op, {"reshape", "flatten", "squeeze", "unsqueeze", "clone"})) return build_copy(c);
  if (op == "take" || op == "index") return build_gather(d, in, index);
  return fail(Error::NotSupported, "onednn: " + c.what + ": the operator is not supported by this runtime");
}

}  // namespace edgec::runtime::onednn
