// The xnnpack delegate's builders (op_table.cpp names them): each creates
// its instruction's XNNPACK operator from the instruction's attributes and
// constants, decides the layout it reads and writes (runtime_state.h), and
// takes the clamps after it where XNNPACK applies them for free.
//
// Every create call packs what it reads of a constant (weights, bias) into
// XNNPACK's own memory, so weights are read once from the file's mapped
// named data; only weights XNNPACK wants in another order (a convolution's
// [O, kh, kw, I] against torch's [O, I, kh, kw]) go through a temporary.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "backends/xnnpack/op_table.h"
#include "backends/xnnpack/runtime_state.h"
#include "runtime/delegate_geometry.h"

namespace edgec::runtime::xnnpack {

using edgec::xnnpack::find_op_row;
using edgec::xnnpack::Range;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::string str(int64_t v) { return std::to_string(v); }

int64_t numel(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (int64_t v : s) n *= v;
  return n;
}

bool is_half(const Ctx& c, int32_t slot) { return c.slot(slot).dtype == DType::Float16; }

const AttrDecl& attr(const Ctx& c, std::string_view name) {
  const edgec::xnnpack::OpRow* row = find_op_row(c.in().op);
  return declared_attr_of(row ? row->decl : nullptr, c.in().op, name);
}

// The instruction that alone reads `slot`, or -1 (a delegate output is
// read by the caller too).
int32_t sole_reader(const Delegate& d, int32_t slot) {
  const auto s = static_cast<size_t>(slot);
  return d.is_output[s] || d.readers[s] != 1 ? -1 : d.reader[s];
}

// Folds the clamps (relu, clamp) that alone read `slot`, one after the
// other, into `range`; returns the value the last one writes (the one the
// producer then writes instead), and names them in `name`.
int32_t absorb_clamps(Ctx& c, int32_t slot, Range& range, std::string& name) {
  for (;;) {
    const int32_t next = sole_reader(c.d, slot);
    if (next < 0) return slot;
    const Instruction& in = c.at(next);
    const edgec::xnnpack::OpRow* row = find_op_row(in.op);
    if (!row || !row->range || in.inputs.size() != 1 || in.outputs.size() != 1 || in.inputs[0] != slot) return slot;
    const SlotState &from = c.slot(slot), &to = c.slot(in.outputs[0]);
    if (to.shape != from.shape || to.dtype != from.dtype) return slot;
    const Range r = row->range(*row->decl, in.attrs);
    const Range both{std::max(range.lo, r.lo), std::min(range.hi, r.hi)};
    if (!(both.lo < both.hi)) return slot;  // XNNPACK wants a non-empty range.
    range = both;
    name += "+" + in.op;
    c.d.fused[static_cast<size_t>(next)] = true;
    slot = in.outputs[0];
  }
}

// ---- convolution ------------------------------------------------------------------------

uint32_t u32(int64_t v, const std::string& what) {
  require(v >= 0 && v <= INT32_MAX, what + " " + str(v) + " is out of range");
  return static_cast<uint32_t>(v);
}

// A 1-D or 2-D convolution (or transposed one) read as a 2-D one: a 1-D
// one (N, C, L) is an image of height 1, whose NHWC is N, L, C, with no
// padding, stride or dilation along H.
struct Conv2d {
  int32_t x, w, y;
  std::vector<int64_t> xs, ws;  ///< As rank 4.
  int64_t groups, gic, goc;     ///< Per group: input and output channels.
  uint32_t top, right, bottom, left, kh, kw, sh, sw, dh, dw;
  uint32_t adj_h = 0, adj_w = 0;  ///< Transposed: output_padding.
  const std::byte* bias = nullptr;
  bool half;
};

Conv2d read_conv(Ctx& c, bool transposed) {
  Conv2d g;
  g.x = c.input(0), g.w = c.input(1), g.y = c.output();
  g.xs = c.shape(g.x), g.ws = c.shape(g.w);
  const size_t rank = g.xs.size();
  require((rank == 3 || rank == 4) && g.ws.size() == rank && c.shape(g.y).size() == rank,
          "is not a 1-D or 2-D convolution");
  require(c.is_constant(g.w), "has weights that are not a constant");
  const Attrs& a = c.in().attrs;
  const size_t nd = rank - 2;
  require(spatial_sizes_ok(a, {"stride", "dilation", "padding", "output_padding"}, nd),
          "has spatial attributes of the wrong length");
  auto stride = spatial_ints(a, "stride", nd, 1), dilation = spatial_ints(a, "dilation", nd, 1);
  auto adj = spatial_ints(a, "output_padding", nd, 0);
  std::vector<int64_t> pb, pe;
  spatial_padding(a, nd, pb, pe);
  if (nd == 1) {
    g.xs.insert(g.xs.begin() + 2, 1);
    g.ws.insert(g.ws.begin() + 2, 1);
    stride.insert(stride.begin(), 1);
    dilation.insert(dilation.begin(), 1);
    adj.insert(adj.begin(), 0);
    pb.insert(pb.begin(), 0);
    pe.insert(pe.begin(), 0);
  }
  g.groups = attr(c, "groups").int_value(a);
  // conv's weights are [O, I / g, k...], conv_transpose's [I, O / g, k...].
  const int64_t cin = g.xs[1], wi = transposed ? g.ws[0] : g.ws[1] * g.groups;
  require(g.groups >= 1 && cin % g.groups == 0 && wi == cin && (transposed || g.ws[0] % g.groups == 0),
          "has weights " + shape_string(c.shape(g.w)) + " that do not fit input " + shape_string(c.shape(g.x)) +
              " in " + str(g.groups) + " groups");
  g.gic = cin / g.groups;
  g.goc = transposed ? g.ws[1] : g.ws[0] / g.groups;
  g.top = u32(pb[0], "padding"), g.right = u32(pe[1], "padding"), g.bottom = u32(pe[0], "padding"),
  g.left = u32(pb[1], "padding");
  g.kh = u32(g.ws[2], "kernel"), g.kw = u32(g.ws[3], "kernel");
  g.sh = u32(stride[0], "stride"), g.sw = u32(stride[1], "stride");
  g.dh = u32(dilation[0], "dilation"), g.dw = u32(dilation[1], "dilation");
  g.adj_h = u32(adj[0], "output_padding"), g.adj_w = u32(adj[1], "output_padding");
  g.half = is_half(c, g.x);
  if (c.in().inputs.size() > 2) {
    const int32_t b = c.input(2);
    require(c.is_constant(b) && numel(c.shape(b)) == g.groups * g.goc, "has a bias that is not a constant of [Cout]");
    g.bias = c.slot(b).data;
  }
  return g;
}

// The weights in XNNPACK's order, [g * goc, kh, kw, gic]: a copy in
// `scratch`, or the file's own bytes where they already are (a conv's
// [O, gic, kh, kw] when gic or kh * kw is 1: depthwise, pointwise).
const std::byte* xnnpack_weights(const Ctx& c, const Conv2d& g, bool transposed, std::vector<std::byte>& scratch) {
  const std::byte* w = c.slot(g.w).data;
  const int64_t k = static_cast<int64_t>(g.kh) * g.kw;
  if (!transposed && (g.gic == 1 || k == 1)) return w;
  const size_t esz = g.half ? 2 : 4;
  scratch.resize(c.slot(g.w).nbytes());
  for (int64_t grp = 0; grp < g.groups; ++grp)
    for (int64_t o = 0; o < g.goc; ++o)
      for (int64_t i = 0; i < g.gic; ++i)
        for (int64_t t = 0; t < k; ++t) {
          // conv_transpose's are [g * gic, goc, kh, kw].
          const int64_t from = transposed ? ((grp * g.gic + i) * g.goc + o) * k + t
                                          : ((grp * g.goc + o) * g.gic + i) * k + t;
          const int64_t to = ((grp * g.goc + o) * k + t) * g.gic + i;
          std::memcpy(&scratch[static_cast<size_t>(to) * esz], w + static_cast<size_t>(from) * esz, esz);
        }
  return scratch.data();
}

// A convolution or a transposed one (XNNPACK's deconvolution), 2-D or
// 1-D as 2-D (read_conv). torch's padding crops a transposed one's output
// as XNNPACK's does, and its output_padding is XNNPACK's adjustment (given
// at setup).
void add_conv(Ctx& c, bool transposed) {
  const Conv2d g = read_conv(c, transposed);
  std::vector<std::byte> scratch;
  const std::byte* weights = xnnpack_weights(c, g, transposed, scratch);
  Range range{-kInf, kInf};
  std::string name = transposed ? "conv_transpose" : "conv";
  const int32_t out = absorb_clamps(c, g.y, range, name);
  const Place in_place = c.d.nhwc(g.x);
  const Place out_place = c.d.define(out, Layout::Nhwc);
  xnn_operator_t op = nullptr;
  const auto G = static_cast<uint32_t>(g.groups);
  const auto gic = static_cast<size_t>(g.gic), goc = static_cast<size_t>(g.goc);
  const size_t cin = gic * G, cout = goc * G;
  const bool half = g.half;
  const auto* w32 = reinterpret_cast<const float*>(weights);
  const auto* b32 = reinterpret_cast<const float*>(g.bias);
  xnn_status s;
  const char* create;
  if (transposed) {
    create = half ? "xnn_create_deconvolution2d_nhwc_f16" : "xnn_create_deconvolution2d_nhwc_f32";
    s = half ? xnn_create_deconvolution2d_nhwc_f16(g.top, g.right, g.bottom, g.left, g.kh, g.kw, g.sh, g.sw, g.dh,
                                                   g.dw, G, gic, goc, cin, cout, weights, g.bias, range.lo, range.hi,
                                                   0, &op)
             : xnn_create_deconvolution2d_nhwc_f32(g.top, g.right, g.bottom, g.left, g.kh, g.kw, g.sh, g.sw, g.dh,
                                                   g.dw, G, gic, goc, cin, cout, w32, b32, range.lo, range.hi, 0, &op);
  } else {
    create = half ? "xnn_create_convolution2d_nhwc_f16" : "xnn_create_convolution2d_nhwc_f32";
    s = half ? xnn_create_convolution2d_nhwc_f16(g.top, g.right, g.bottom, g.left, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw,
                                                 G, gic, goc, cin, cout, weights, g.bias, range.lo, range.hi, 0, &op)
             : xnn_create_convolution2d_nhwc_f32(g.top, g.right, g.bottom, g.left, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw,
                                                 G, gic, goc, cin, cout, w32, b32, range.lo, range.hi, 0, &op);
  }
  Delegate& d = c.d;
  const auto n = static_cast<size_t>(g.xs[0]), h = static_cast<size_t>(g.xs[2]), wd = static_cast<size_t>(g.xs[3]);
  const uint32_t ah = g.adj_h, aw = g.adj_w;
  d.add_op(s, op, create,
           [&d, transposed, half, n, h, wd, ah, aw, in_place, out_place](xnn_operator_t o) {
             const std::byte* in = d.at(in_place);
             std::byte* out = d.at(out_place);
             const auto* in32 = reinterpret_cast<const float*>(in);
             auto* out32 = reinterpret_cast<float*>(out);
             if (transposed)
               return half ? xnn_setup_deconvolution2d_nhwc_f16(o, n, h, wd, ah, aw, in, out, d.pool)
                           : xnn_setup_deconvolution2d_nhwc_f32(o, n, h, wd, ah, aw, in32, out32, d.pool);
             return half ? xnn_setup_convolution2d_nhwc_f16(o, n, h, wd, in, out, d.pool)
                         : xnn_setup_convolution2d_nhwc_f32(o, n, h, wd, in32, out32, d.pool);
           },
           c.what(), name);
}

}  // namespace
Error build_conv(Ctx& c) {
  add_conv(c, false);
  return Error::Ok;
}

Error build_conv_transpose(Ctx& c) {
  add_conv(c, true);
  return Error::Ok;
}

namespace {

// ---- fully connected ---------------------------------------------------------------------

// The add that alone reads the matmul's result `y` ([..., N]) with a
// constant of N values (a linear layer's bias, [N] or [1, N]): its index,
// and the bias in `bias`; else -1.
int32_t bias_add(Ctx& c, int32_t y, int64_t n, const std::byte*& bias) {
  const int32_t next = sole_reader(c.d, y);
  if (next < 0) return -1;
  const Instruction& add = c.at(next);
  if (add.op != "add" || add.inputs.size() != 2 || add.outputs.size() != 1) return -1;
  const int32_t other = add.inputs[0] == y ? add.inputs[1] : add.inputs[0];
  if (other == y || !c.is_constant(other) || c.slot(other).dtype != c.slot(y).dtype) return -1;
  const auto& bs = c.shape(other);
  if (bs.empty() || bs.back() != n || numel(bs) != n || bs.size() > c.shape(y).size()) return -1;
  if (c.shape(add.outputs[0]) != c.shape(y)) return -1;
  bias = c.slot(other).data;
  return next;
}

}  // namespace
Error build_matmul(Ctx& c) {
  const int32_t x = c.input(0), w = c.input(1), y = c.output();
  const auto& ws = c.shape(w);
  const auto& xs = c.shape(x);
  require(ws.size() == 2 && !xs.empty() && xs.back() == ws[0] && c.is_constant(w),
          "is not a product by constant [K, N] weights");
  const int64_t k = ws[0], n = ws[1];
  const bool half = is_half(c, x);
  const std::byte* bias = nullptr;
  std::string name = "fully_connected";
  int32_t out = y;
  if (const int32_t add = bias_add(c, y, n, bias); add >= 0) {
    c.d.fused[static_cast<size_t>(add)] = true;
    out = c.at(add).outputs[0];
    name += "+add";
  }
  Range range{-kInf, kInf};
  out = absorb_clamps(c, out, range, name);
  const Place in_place = c.d.plain(x);
  const Place out_place = c.d.define(out, Layout::Plain);
  const auto K = static_cast<size_t>(k), N = static_cast<size_t>(n);
  xnn_operator_t op = nullptr;
  const std::byte* weights = c.slot(w).data;
  const xnn_status s =
      half ? xnn_create_fully_connected_nc_f16(K, N, K, N, weights, bias, range.lo, range.hi,
                                               XNN_FLAG_TRANSPOSE_WEIGHTS, &op)
           : xnn_create_fully_connected_nc_f32(K, N, K, N, reinterpret_cast<const float*>(weights),
                                               reinterpret_cast<const float*>(bias), range.lo, range.hi,
                                               XNN_FLAG_TRANSPOSE_WEIGHTS, &op);
  // The activations' leading dims are the rows.
  const auto rows = static_cast<size_t>(numel(xs) / k);
  Delegate& d = c.d;
  d.add_op(s, op, half ? "xnn_create_fully_connected_nc_f16" : "xnn_create_fully_connected_nc_f32",
           [&d, half, rows, in_place, out_place](xnn_operator_t o) {
             return half ? xnn_setup_fully_connected_nc_f16(o, rows, d.at(in_place), d.at(out_place), d.pool)
                         : xnn_setup_fully_connected_nc_f32(o, rows, reinterpret_cast<const float*>(d.at(in_place)),
                                                            reinterpret_cast<float*>(d.at(out_place)), d.pool);
           },
           c.what(), name);
  return Error::Ok;
}

namespace {

// ---- pooling ----------------------------------------------------------------------------

// An NHWC pooling of x into y with window `k`, stride `s`, dilation `dl`
// and padding (top, left) `pb`, (bottom, right) `pe`.
void add_pool(Ctx& c, bool max, const std::vector<int64_t>& k, const std::vector<int64_t>& s,
              const std::vector<int64_t>& dl, const std::vector<int64_t>& pb, const std::vector<int64_t>& pe) {
  const int32_t x = c.input(0), y = c.output();
  const auto& xs = c.shape(x);
  const bool half = is_half(c, x);
  Range range{-kInf, kInf};
  std::string name = max ? "max_pool" : "avg_pool";
  const int32_t out = absorb_clamps(c, y, range, name);
  const Place in_place = c.d.nhwc(x);
  const Place out_place = c.d.define(out, Layout::Nhwc);
  const auto C = static_cast<size_t>(xs[1]);
  xnn_operator_t op = nullptr;
  xnn_status st;
  const char* create;
  if (max) {
    create = half ? "xnn_create_max_pooling2d_nhwc_f16" : "xnn_create_max_pooling2d_nhwc_f32";
    st = (half ? xnn_create_max_pooling2d_nhwc_f16 : xnn_create_max_pooling2d_nhwc_f32)(
        u32(pb[0], "padding"), u32(pe[1], "padding"), u32(pe[0], "padding"), u32(pb[1], "padding"),
        u32(k[0], "kernel"), u32(k[1], "kernel"), u32(s[0], "stride"), u32(s[1], "stride"), u32(dl[0], "dilation"),
        u32(dl[1], "dilation"), C, C, C, range.lo, range.hi, 0, &op);
  } else {
    create = "xnn_create_average_pooling2d_nhwc_f32";
    st = xnn_create_average_pooling2d_nhwc_f32(u32(pb[0], "padding"), u32(pe[1], "padding"), u32(pe[0], "padding"),
                                               u32(pb[1], "padding"), u32(k[0], "kernel"), u32(k[1], "kernel"),
                                               u32(s[0], "stride"), u32(s[1], "stride"), C, C, C, range.lo, range.hi,
                                               0, &op);
  }
  Delegate& d = c.d;
  const auto n = static_cast<size_t>(xs[0]), h = static_cast<size_t>(xs[2]), w = static_cast<size_t>(xs[3]);
  d.add_op(st, op, create,
           [&d, max, half, n, h, w, in_place, out_place](xnn_operator_t o) {
             const std::byte* in = d.at(in_place);
             std::byte* out = d.at(out_place);
             if (!max)
               return xnn_setup_average_pooling2d_nhwc_f32(o, n, h, w, reinterpret_cast<const float*>(in),
                                                           reinterpret_cast<float*>(out), d.pool);
             return half ? xnn_setup_max_pooling2d_nhwc_f16(o, n, h, w, in, out, d.pool)
                         : xnn_setup_max_pooling2d_nhwc_f32(o, n, h, w, reinterpret_cast<const float*>(in),
                                                            reinterpret_cast<float*>(out), d.pool);
           },
           c.what(), name);
}

}  // namespace
Error build_pool(Ctx& c) {
  const bool max = c.in().op == "max_pool";
  const auto& xs = c.shape(c.input(0));
  const auto& ys = c.shape(c.output());
  require(xs.size() == 4 && ys.size() == 4, "is not a 2-D pooling");
  const Attrs& a = c.in().attrs;
  require(spatial_sizes_ok(a, {"kernel_size", "stride", "dilation", "padding"}, 2),
          "has spatial attributes of the wrong length");
  const auto k = spatial_ints(a, "kernel_size", 2, 1);
  auto s = spatial_ints(a, "stride", 2, 0);
  const auto dl = spatial_ints(a, "dilation", 2, 1);
  std::vector<int64_t> pb, pe;
  spatial_padding(a, 2, pb, pe);
  for (size_t i = 0; i < 2; ++i) {
    if (s[i] <= 0) s[i] = k[i];
    // Ceil mode's last window reaches past the padding: more right padding,
    // which XNNPACK leaves out of a max and out of an average's divisor, as
    // torch does.
    const int64_t pr = pool_pad_right(xs[2 + i], ys[2 + i], k[i], s[i], dl[i], pb[i]);
    require(pr >= 0, "has a pooling geometry XNNPACK cannot express");
    pe[i] = pr;
  }
  add_pool(c, max, k, s, dl, pb, pe);
  return Error::Ok;
}

namespace {

// A mean over H and W of a rank-4 value (ONNX's GlobalAveragePool), or an
// adaptive average pooling to 1 x 1: XNNPACK's global average pooling over
// the NHWC value's pixels. Its result, one pixel, is the same bytes plain.
void add_global_average(Ctx& c) {
  const int32_t x = c.input(0), y = c.output();
  const auto& xs = c.shape(x);
  const bool half = is_half(c, x);
  Range range{-kInf, kInf};
  std::string name = "global_average_pool";
  const int32_t out = absorb_clamps(c, y, range, name);
  const Place in_place = c.d.nhwc(x);
  const Place out_place = c.d.define(out, Layout::Plain);
  const auto C = static_cast<size_t>(xs[1]);
  xnn_operator_t op = nullptr;
  const xnn_status s = (half ? xnn_create_global_average_pooling_nwc_f16 : xnn_create_global_average_pooling_nwc_f32)(
      C, C, C, range.lo, range.hi, 0, &op);
  Delegate& d = c.d;
  const auto n = static_cast<size_t>(xs[0]), pixels = static_cast<size_t>(xs[2] * xs[3]);
  d.add_op(s, op, half ? "xnn_create_global_average_pooling_nwc_f16" : "xnn_create_global_average_pooling_nwc_f32",
           [&d, half, n, pixels, in_place, out_place](xnn_operator_t o) {
             return half ? xnn_setup_global_average_pooling_nwc_f16(o, n, pixels, d.at(in_place), d.at(out_place),
                                                                    d.pool)
                         : xnn_setup_global_average_pooling_nwc_f32(o, n, pixels,
                                                                    reinterpret_cast<const float*>(d.at(in_place)),
                                                                    reinterpret_cast<float*>(d.at(out_place)), d.pool);
           },
           c.what(), name);
}

}  // namespace
Error build_mean(Ctx& c) {
  require(c.shape(c.input(0)).size() == 4, "is not a mean over H and W");
  add_global_average(c);
  return Error::Ok;
}

Error build_adaptive_pool(Ctx& c) {
  const auto& xs = c.shape(c.input(0));
  const auto& ys = c.shape(c.output());
  require(xs.size() == 4 && ys.size() == 4 && xs[2] % ys[2] == 0 && xs[3] % ys[3] == 0,
          "is not an adaptive pooling by whole windows");
  if (ys[2] == 1 && ys[3] == 1) {
    add_global_average(c);
    return Error::Ok;
  }
  // Output sizes that divide the input's: windows of in / out, side by side.
  const std::vector<int64_t> k{xs[2] / ys[2], xs[3] / ys[3]}, zero{0, 0}, one{1, 1};
  add_pool(c, false, k, k, one, zero, zero);
  return Error::Ok;
}

// ---- resize ------------------------------------------------------------------------------

// Bilinear resize of H and W in NHWC: torch's align_corners, or half-pixel
// centres (XNNPACK's default, which clamps a coordinate before the first
// pixel to it, as torch does).
Error build_resize(Ctx& c) {
  const int32_t x = c.input(0), y = c.output();
  const auto& xs = c.shape(x);
  const auto& ys = c.shape(y);
  require(xs.size() == 4 && ys.size() == 4 && xs[0] == ys[0] && xs[1] == ys[1], "is not a resize of H and W");
  bool align_corners = false;
  if (c.in().op == "upsample_bilinear") align_corners = attr(c, "align_corners").bool_value(c.in().attrs);
  else align_corners = attr(c, "coordinate_transformation_mode").string_value(c.in().attrs) == "align_corners";
  const bool half = is_half(c, x);
  const Place in_place = c.d.nhwc(x);
  const Place out_place = c.d.define(y, Layout::Nhwc);
  const auto C = static_cast<size_t>(xs[1]);
  xnn_operator_t op = nullptr;
  const uint32_t flags = align_corners ? XNN_FLAG_ALIGN_CORNERS : 0;
  const xnn_status s =
      (half ? xnn_create_resize_bilinear2d_nhwc_f16 : xnn_create_resize_bilinear2d_nhwc_f32)(C, C, C, flags, &op);
  Delegate& d = c.d;
  const auto n = static_cast<size_t>(xs[0]), ih = static_cast<size_t>(xs[2]), iw = static_cast<size_t>(xs[3]),
             oh = static_cast<size_t>(ys[2]), ow = static_cast<size_t>(ys[3]);
  d.add_op(s, op, half ? "xnn_create_resize_bilinear2d_nhwc_f16" : "xnn_create_resize_bilinear2d_nhwc_f32",
           [&d, half, n, ih, iw, oh, ow, in_place, out_place](xnn_operator_t o) {
             return half ? xnn_setup_resize_bilinear2d_nhwc_f16(o, n, ih, iw, oh, ow, d.at(in_place), d.at(out_place),
                                                                d.pool)
                         : xnn_setup_resize_bilinear2d_nhwc_f32(o, n, ih, iw, oh, ow,
                                                                reinterpret_cast<const float*>(d.at(in_place)),
                                                                reinterpret_cast<float*>(d.at(out_place)), d.pool);
           },
           c.what(), "resize_bilinear");
  return Error::Ok;
}

// ---- softmax -----------------------------------------------------------------------------

// Over the last axis of the plain value, or over the channels of a rank-4
// one in NHWC (its last axis there).
Error build_softmax(Ctx& c) {
  const int32_t x = c.input(0), y = c.output();
  const auto& xs = c.shape(x);
  const auto rank = static_cast<int64_t>(xs.size());
  int64_t dim = attr(c, "dim").int_value(c.in().attrs);
  if (dim < 0) dim += rank;
  require(rank >= 1 && (dim == rank - 1 || (rank == 4 && dim == 1)), "is not a softmax over the last axis or channels");
  const bool channels = rank == 4 && dim == 1 && dim != rank - 1;
  const Place in_place = channels ? c.d.nhwc(x) : c.d.plain(x);
  const Place out_place = c.d.define(y, channels ? Layout::Nhwc : Layout::Plain);
  const auto C = static_cast<size_t>(xs[static_cast<size_t>(dim)]);
  xnn_operator_t op = nullptr;
  const xnn_status s = xnn_create_softmax_nc_f32(C, C, C, 0, &op);
  Delegate& d = c.d;
  const auto rows = static_cast<size_t>(numel(xs)) / C;
  d.add_op(s, op, "xnn_create_softmax_nc_f32",
           [&d, rows, in_place, out_place](xnn_operator_t o) {
             return xnn_setup_softmax_nc_f32(o, rows, reinterpret_cast<const float*>(d.at(in_place)),
                                             reinterpret_cast<float*>(d.at(out_place)), d.pool);
           },
           c.what(), "softmax");
  return Error::Ok;
}

namespace {

// ---- elementwise -------------------------------------------------------------------------

// The XNNPACK unary operators in the nc form ([batch, channels]); an
// elementwise operator runs on the value as one row, in whichever layout
// it is held.
using UnaryCreate = xnn_status (*)(size_t, size_t, size_t, uint32_t, xnn_operator_t*);
using UnarySetup = xnn_status (*)(xnn_operator_t, size_t, const float*, float*, pthreadpool_t);

struct Unary {
  std::string_view op;
  UnaryCreate create;
  UnarySetup setup;
  const char* create_name;
};

const Unary kUnary[] = {
    {"abs", xnn_create_abs_nc_f32, xnn_setup_abs_nc_f32, "xnn_create_abs_nc_f32"},
    {"ceil", xnn_create_ceiling_nc_f32, xnn_setup_ceiling_nc_f32, "xnn_create_ceiling_nc_f32"},
    {"floor", xnn_create_floor_nc_f32, xnn_setup_floor_nc_f32, "xnn_create_floor_nc_f32"},
    {"neg", xnn_create_negate_nc_f32, xnn_setup_negate_nc_f32, "xnn_create_negate_nc_f32"},
    {"round", xnn_create_bankers_rounding_nc_f32, xnn_setup_bankers_rounding_nc_f32,
     "xnn_create_bankers_rounding_nc_f32"},
    {"sigmoid", xnn_create_sigmoid_nc_f32, xnn_setup_sigmoid_nc_f32, "xnn_create_sigmoid_nc_f32"},
    {"sqrt", xnn_create_square_root_nc_f32, xnn_setup_square_root_nc_f32, "xnn_create_square_root_nc_f32"},
};

// Where an elementwise step reads `slot` and writes its result: in NHWC
// when the value is held only so, else plain.
Layout layout_of(const Ctx& c, int32_t slot) { return c.d.in_nhwc(slot) ? Layout::Nhwc : Layout::Plain; }

Place held(Ctx& c, int32_t slot, Layout layout) { return layout == Layout::Nhwc ? c.d.nhwc(slot) : c.d.plain(slot); }

}  // namespace
Error build_unary(Ctx& c) {
  const int32_t x = c.input(0), y = c.output();
  const std::string op = c.in().op;
  const bool half = is_half(c, x);
  const Layout layout = layout_of(c, x);
  const auto count = static_cast<size_t>(c.slot(x).numel());
  const edgec::xnnpack::OpRow* row = find_op_row(op);
  xnn_operator_t xop = nullptr;
  xnn_status s = xnn_status_invalid_parameter;
  const char* create = "";
  std::string name = op;
  int32_t out = y;
  if (row->range) {
    // relu and clamp: one clamp, with those after it.
    Range range = row->range(*row->decl, c.in().attrs);
    out = absorb_clamps(c, y, range, name);
    create = half ? "xnn_create_clamp_nc_f16" : "xnn_create_clamp_nc_f32";
    s = (half ? xnn_create_clamp_nc_f16 : xnn_create_clamp_nc_f32)(1, 1, 1, range.lo, range.hi, 0, &xop);
  } else if (op == "leaky_relu") {
    const auto slope = static_cast<float>(attr(c, "negative_slope").float_value(c.in().attrs));
    create = half ? "xnn_create_leaky_relu_nc_f16" : "xnn_create_leaky_relu_nc_f32";
    s = (half ? xnn_create_leaky_relu_nc_f16 : xnn_create_leaky_relu_nc_f32)(1, 1, 1, slope, 0, &xop);
  } else if (op == "hardswish") {
    create = half ? "xnn_create_hardswish_nc_f16" : "xnn_create_hardswish_nc_f32";
    s = (half ? xnn_create_hardswish_nc_f16 : xnn_create_hardswish_nc_f32)(1, 1, 1, 0, &xop);
  } else if (op == "elu") {
    const auto alpha = static_cast<float>(attr(c, "alpha").float_value(c.in().attrs));
    create = "xnn_create_elu_nc_f32";
    s = xnn_create_elu_nc_f32(1, 1, 1, alpha, 0, &xop);
  } else {
    const auto* u = std::find_if(std::begin(kUnary), std::end(kUnary), [&](const Unary& e) { return e.op == op; });
    require(u != std::end(kUnary), "is not an elementwise operator XNNPACK has");
    create = u->create_name;
    s = u->create(1, 1, 1, 0, &xop);
  }
  const Place in_place = held(c, x, layout);
  const Place out_place = c.d.define(out, layout);
  // The setups of the f16 forms and of the ones with parameters take the
  // same arguments as the plain f32 ones: the pointer types differ.
  using HalfSetup = xnn_status (*)(xnn_operator_t, size_t, const void*, void*, pthreadpool_t);
  UnarySetup setup32 = nullptr;
  HalfSetup setup16 = nullptr;
  if (row->range) (half ? void(setup16 = xnn_setup_clamp_nc_f16) : void(setup32 = xnn_setup_clamp_nc_f32));
  else if (op == "leaky_relu") (half ? void(setup16 = xnn_setup_leaky_relu_nc_f16) : void(setup32 = xnn_setup_leaky_relu_nc_f32));
  else if (op == "hardswish") (half ? void(setup16 = xnn_setup_hardswish_nc_f16) : void(setup32 = xnn_setup_hardswish_nc_f32));
  else if (op == "elu") setup32 = xnn_setup_elu_nc_f32;
  else setup32 = std::find_if(std::begin(kUnary), std::end(kUnary), [&](const Unary& e) { return e.op == op; })->setup;
  Delegate& d = c.d;
  d.add_op(s, xop, create,
           [&d, setup32, setup16, count, in_place, out_place](xnn_operator_t o) {
             return setup16 ? setup16(o, count, d.at(in_place), d.at(out_place), d.pool)
                            : setup32(o, count, reinterpret_cast<const float*>(d.at(in_place)),
                                      reinterpret_cast<float*>(d.at(out_place)), d.pool);
           },
           c.what(), name);
  return Error::Ok;
}

namespace {

// A rank-3 or rank-4 shape in channels-last order: N, L, C or N, H, W, C.
std::vector<int64_t> channels_last(std::vector<int64_t> shape) {
  std::rotate(shape.begin() + 1, shape.begin() + 2, shape.end());
  return shape;
}

// The shape XNNPACK reads operand `s` with for a result of rank `rank` in
// `layout`: numpy's, or in NHWC the shape's channels-last order.
std::vector<size_t> operand_shape(const std::vector<int64_t>& shape, size_t rank, Layout layout) {
  std::vector<int64_t> full(rank - shape.size(), 1);
  full.insert(full.end(), shape.begin(), shape.end());
  if (layout == Layout::Nhwc) full = channels_last(full);
  return std::vector<size_t>(full.begin(), full.end());
}

// Whether `shape`, padded to `rank` (3 or 4), has the same bytes
// channels-first and channels-last.
bool same_bytes_nhwc(const std::vector<int64_t>& shape, size_t rank) {
  if (shape.size() > rank) return false;
  std::vector<int64_t> full(rank - shape.size(), 1);
  full.insert(full.end(), shape.begin(), shape.end());
  return full[1] == 1 || numel(full) == full[0] * full[1];
}

}  // namespace
Error build_binary(Ctx& c) {
  const int32_t a = c.input(0), b = c.input(1), y = c.output();
  const std::string op = c.in().op;
  const auto& ys = c.shape(y);
  require(ys.size() <= XNN_MAX_TENSOR_DIMS && c.shape(a).size() <= ys.size() && c.shape(b).size() <= ys.size(),
          "has operands of a rank XNNPACK does not broadcast");
  const bool half = is_half(c, y);
  // NHWC (NLC) where an operand is held only so and the other reads the
  // same in both layouts (or is of the result's rank too): no conversion
  // back to plain.
  Layout layout = Layout::Plain;
  if ((ys.size() == 3 || ys.size() == 4) && (c.d.in_nhwc(a) || c.d.in_nhwc(b))) {
    bool ok = true;
    for (int32_t s : {a, b}) ok = ok && (c.shape(s).size() == ys.size() || same_bytes_nhwc(c.shape(s), ys.size()));
    if (ok) layout = Layout::Nhwc;
  }
  auto operand = [&](int32_t s) {
    return layout == Layout::Nhwc && c.shape(s).size() == ys.size() ? c.d.nhwc(s) : c.d.plain(s);
  };
  const bool ranged = op == "add" || op == "sub" || op == "mul" || op == "div";
  Range range{-kInf, kInf};
  std::string name = op;
  const int32_t out = ranged ? absorb_clamps(c, y, range, name) : y;
  xnn_operator_t xop = nullptr;
  xnn_status s;
  const char* create;
  using Setup32 = xnn_status (*)(xnn_operator_t, size_t, const size_t*, size_t, const size_t*, const float*,
                                 const float*, float*, pthreadpool_t);
  using Setup16 = xnn_status (*)(xnn_operator_t, size_t, const size_t*, size_t, const size_t*, const void*,
                                 const void*, void*, pthreadpool_t);
  Setup32 setup32 = nullptr;
  Setup16 setup16 = nullptr;
  if (half) {
    require(op == "add" || op == "mul", "is an f16 operator XNNPACK does not have");
    create = op == "add" ? "xnn_create_add_nd_f16" : "xnn_create_multiply_nd_f16";
    s = (op == "add" ? xnn_create_add_nd_f16 : xnn_create_multiply_nd_f16)(range.lo, range.hi, 0, &xop);
    setup16 = op == "add" ? xnn_setup_add_nd_f16 : xnn_setup_multiply_nd_f16;
  } else if (op == "maximum" || op == "minimum") {
    create = op == "maximum" ? "xnn_create_maximum_nd_f32" : "xnn_create_minimum_nd_f32";
    s = (op == "maximum" ? xnn_create_maximum_nd_f32 : xnn_create_minimum_nd_f32)(0, &xop);
    setup32 = op == "maximum" ? xnn_setup_maximum_nd_f32 : xnn_setup_minimum_nd_f32;
  } else {
    using Create = xnn_status (*)(float, float, uint32_t, xnn_operator_t*);
    const Create make = op == "add"   ? xnn_create_add_nd_f32
                        : op == "sub" ? xnn_create_subtract_nd_f32
                        : op == "mul" ? xnn_create_multiply_nd_f32
                                      : xnn_create_divide_nd_f32;
    create = op == "add"   ? "xnn_create_add_nd_f32"
             : op == "sub" ? "xnn_create_subtract_nd_f32"
             : op == "mul" ? "xnn_create_multiply_nd_f32"
                           : "xnn_create_divide_nd_f32";
    s = make(range.lo, range.hi, 0, &xop);
    setup32 = op == "add"   ? xnn_setup_add_nd_f32
              : op == "sub" ? xnn_setup_subtract_nd_f32
              : op == "mul" ? xnn_setup_multiply_nd_f32
                            : xnn_setup_divide_nd_f32;
  }
  const Place pa = operand(a), pb = operand(b);
  const Place out_place = c.d.define(out, layout);
  const std::vector<size_t> sa = operand_shape(c.shape(a), ys.size(), layout),
                            sb = operand_shape(c.shape(b), ys.size(), layout);
  Delegate& d = c.d;
  d.add_op(s, xop, create,
           [&d, setup32, setup16, sa, sb, pa, pb, out_place](xnn_operator_t o) {
             return setup16 ? setup16(o, sa.size(), sa.data(), sb.size(), sb.data(), d.at(pa), d.at(pb),
                                      d.at(out_place), d.pool)
                            : setup32(o, sa.size(), sa.data(), sb.size(), sb.data(),
                                      reinterpret_cast<const float*>(d.at(pa)), reinterpret_cast<const float*>(d.at(pb)),
                                      reinterpret_cast<float*>(d.at(out_place)), d.pool);
           },
           c.what(), name);
  return Error::Ok;
}

// ---- concat and views --------------------------------------------------------------------

// Each operand copied into its slice of the result: XNNPACK's strided copy
// of [outer, inner_i] rows into rows of inner_total, in the layout the
// operands are held in (the axis mapped to NHWC's order when they are).
Error build_concat(Ctx& c) {
  const int32_t y = c.output();
  const auto& ys = c.shape(y);
  const auto rank = static_cast<int64_t>(ys.size());
  int64_t axis = attr(c, "dim").int_value(c.in().attrs);
  if (axis < 0) axis += rank;
  require(axis >= 0 && axis < rank, "concatenates along axis " + str(axis) + " of a rank-" + str(rank) + " result");
  const auto operands = c.in().inputs;
  bool nhwc = rank == 3 || rank == 4;
  bool any_nhwc = false;
  for (int32_t s : operands) {
    require(c.shape(s).size() == ys.size(), "concatenates operands of another rank");
    any_nhwc = any_nhwc || c.d.in_nhwc(s);
  }
  nhwc = nhwc && any_nhwc;
  const Layout layout = nhwc ? Layout::Nhwc : Layout::Plain;
  std::vector<int64_t> phys = ys;
  int64_t phys_axis = axis;
  if (nhwc) {
    phys = channels_last(ys);
    phys_axis = axis == 0 ? 0 : axis == 1 ? rank - 1 : axis - 1;
  }
  int64_t outer = 1, inner_total = 1;
  for (int64_t i = 0; i < phys_axis; ++i) outer *= phys[static_cast<size_t>(i)];
  for (int64_t i = phys_axis; i < rank; ++i) inner_total *= phys[static_cast<size_t>(i)];
  const bool half = is_half(c, y);
  const size_t esz = half ? 2 : 4;
  std::vector<Place> from;
  for (int32_t s : operands) from.push_back(held(c, s, layout));
  const Place out_place = c.d.define(y, layout);
  Delegate& d = c.d;
  int64_t offset = 0;
  for (size_t i = 0; i < operands.size(); ++i) {
    const int64_t inner = numel(c.shape(operands[i])) / outer;
    xnn_operator_t op = nullptr;
    const auto I = static_cast<size_t>(inner), T = static_cast<size_t>(inner_total);
    const xnn_status s = (half ? xnn_create_copy_nc_x16 : xnn_create_copy_nc_x32)(I, I, T, 0, &op);
    const size_t byte_offset = static_cast<size_t>(offset) * esz;
    const auto rows = static_cast<size_t>(outer);
    const Place in_place = from[i];
    d.add_op(s, op, half ? "xnn_create_copy_nc_x16" : "xnn_create_copy_nc_x32",
             [&d, half, rows, in_place, out_place, byte_offset](xnn_operator_t o) {
               return (half ? xnn_setup_copy_nc_x16 : xnn_setup_copy_nc_x32)(
                   o, rows, d.at(in_place), d.at(out_place) + byte_offset, d.pool);
             },
             c.what(), "concat");
    offset += inner;
  }
  return Error::Ok;
}

// reshape and kin: the result is the input's plain bytes.
Error build_view(Ctx& c) {
  c.d.alias(c.output(), c.input(0));
  return Error::Ok;
}

// clone: a copy of its own (a later step may not write its input).
Error build_clone(Ctx& c) {
  const int32_t x = c.input(0), y = c.output();
  const Layout layout = layout_of(c, x);
  const Place in_place = held(c, x, layout);
  const Place out_place = c.d.define(y, layout);
  Delegate& d = c.d;
  const size_t bytes = c.slot(x).nbytes();
  d.add_loop([&d, in_place, out_place, bytes] { std::memcpy(d.at(out_place), d.at(in_place), bytes); }, c.what(),
             "clone");
  return Error::Ok;
}

Error build_instruction(Ctx& c) {
  const edgec::xnnpack::OpRow* row = find_op_row(c.in().op);
  require(row != nullptr, "is not an operator the xnnpack delegate runs");
  for (int32_t s : c.in().inputs) require(s >= 0 && static_cast<size_t>(s) < c.d.slots.size(), "reads a missing slot");
  for (int32_t s : c.in().outputs) require(s >= 0 && static_cast<size_t>(s) < c.d.slots.size(), "writes a missing slot");
  return row->build(c);
}

}  // namespace edgec::runtime::xnnpack

