// qlinear_conv and qlinear_matmul on XNNPACK's 8-bit convolutions
// (docs/semantics.md, "Quantized arithmetic"; docs/architecture.md, "The
// built-in backends").
//
// ONNX computes acc = sum (x - x_zp) * (w - w_zp) + bias in int32 and
// y = saturate(nearbyint(float(acc) * m[c]) + y_zp), m[c] = x_scale *
// w_scale[c] / y_scale in float32. XNNPACK's qc8 and qu8 convolutions sum
// the same int32 (the zero points folded into the packed bias, the padding
// taken as x's zero point) and requantize as ONNX does on x86-64 (fp32:
// float(acc) times the float32 m, rounded to nearest even, y_zp added,
// clamped); tests/backends/xnnpack_int8_test.cpp measures what differs
// where.
//
// Which operator (op_table.h's QuantPlan, chosen from the constant
// parameters): i8 weights with zero point 0 in [-127, 127] go to qc8
// (per-channel or per-tensor scales, computed in i8); weights with one
// zero point and one scale to qu8 (computed in u8), which is where
// symmetric weights holding -128 go too: XNNPACK's ARM kernels without
// the dot product sum pairs of i8 products in int16, so its qc8 is exact
// only for weights in [-127, 127] (under qemu's cortex-a53 and -a72 a
// channel with -128 weights and an input at -128 came out wrong by up to
// 255). What is of the other 8-bit type is
// flipped, exactly: v ^ 0x80 turns u8 v into i8 v - 128 (and back), so a
// u8 input with zero point z is the i8 input v - 128 with zero point
// z - 128, and a result computed in i8 with y's zero point less 128 is the
// u8 result less 128. The weights are flipped once at init; an input of
// the other type is flipped into a buffer of the delegate's before the
// operator (one pass over it), a result in place after it. ONNX Runtime's
// quantizer's usual form, u8 activations with i8 weights, takes both.
//
// A matmul by constant 2-D weights [K, N] is a 1x1 convolution of an image
// of one row of M pixels (a's leading dims) with K channels: XNNPACK's
// fully connected, with qc8 weights (this XNNPACK has no qc8 fully
// connected operator).
#include <cstring>

#include "backends/xnnpack/op_table.h"
#include "backends/xnnpack/runtime_state.h"
#include "runtime/delegate_geometry.h"

namespace edgec::runtime::xnnpack {
namespace {

using edgec::xnnpack::QuantPlan;

std::string str(int64_t v) { return std::to_string(v); }

uint32_t u32(int64_t v, const std::string& what) {
  require(v >= 0 && v <= INT32_MAX, what + " " + str(v) + " is out of range");
  return static_cast<uint32_t>(v);
}

// The values of constant slot `s`: f32, or u8 / i8 as int32.
std::vector<float> floats(const Ctx& c, int32_t s) {
  const SlotState& st = c.slot(s);
  require(c.is_constant(s) && st.dtype == DType::Float32 && st.data,
          "reads slot " + str(s) + " as a scale, which is not an f32 constant");
  std::vector<float> v(static_cast<size_t>(st.numel()));
  std::memcpy(v.data(), st.data, v.size() * sizeof(float));
  return v;
}

std::vector<int32_t> zero_points(const Ctx& c, int32_t s) {
  const SlotState& st = c.slot(s);
  require(c.is_constant(s) && (st.dtype == DType::UInt8 || st.dtype == DType::Int8) && st.data,
          "reads slot " + str(s) + " as a zero point, which is not a u8 or i8 constant");
  std::vector<int32_t> v;
  for (int64_t k = 0; k < st.numel(); ++k)
    v.push_back(st.dtype == DType::UInt8 ? static_cast<int32_t>(reinterpret_cast<const uint8_t*>(st.data)[k])
                                         : static_cast<int32_t>(reinterpret_cast<const int8_t*>(st.data)[k]));
  return v;
}

// The quantization of a qlinear call: operands 1, 2 (x), 4, 5 (w), 6, 7
// (y), for `channels` output channels, and the operator that computes it.
struct Quant {
  QuantPlan plan;
  DType xdt, ydt, domain;  ///< domain: what the XNNPACK operator computes in (qc8 i8, qu8 u8).
  int32_t x_zp, y_zp;      ///< In the domain (flipped where x or y is of the other type).
};

Quant read_quant(const Ctx& c, int64_t channels) {
  Quant q;
  const int32_t x = c.input(0), w = c.input(3), y = c.output();
  q.xdt = c.slot(x).dtype;
  q.ydt = c.slot(y).dtype;
  const DType wdt = c.slot(w).dtype;
  for (DType t : {q.xdt, q.ydt, wdt}) require(t == DType::UInt8 || t == DType::Int8, "has an operand that is not u8 or i8");
  const std::vector<float> xs = floats(c, c.input(1)), ws = floats(c, c.input(4)), ys = floats(c, c.input(6));
  const std::vector<int32_t> xz = zero_points(c, c.input(2)), wz = zero_points(c, c.input(5)),
                             yz = zero_points(c, c.input(7));
  require(xs.size() == 1 && ys.size() == 1 && xz.size() == 1 && yz.size() == 1,
          "has x or y quantization parameters of more than one value");
  require((ws.size() == 1 || static_cast<int64_t>(ws.size()) == channels) &&
              (wz.size() == 1 || static_cast<int64_t>(wz.size()) == channels),
          "has weight scales or zero points of neither one value nor one per output channel (" + str(channels) + ")");
  // The partitioner took only what plan_quantized takes: a file that says
  // otherwise is not one it wrote.
  const SlotState& wst = c.slot(w);
  require(wst.data != nullptr, "has weights without data");
  const bool w_min = edgec::xnnpack::holds_qc8_min(wdt, wz, reinterpret_cast<const uint8_t*>(wst.data), wst.nbytes());
  const auto refused = edgec::xnnpack::plan_quantized(c.in().op, wdt, wz, ws, xs[0], ys[0], channels, w_min, q.plan);
  require(!refused, refused ? *refused : "");
  q.domain = q.plan.qu8 ? DType::UInt8 : DType::Int8;
  // u8 -> i8 is v - 128, i8 -> u8 is v + 128.
  auto in_domain = [&](int32_t zp, DType t) { return t == q.domain ? zp : zp + (t == DType::UInt8 ? -128 : 128); };
  q.x_zp = in_domain(xz[0], q.xdt);
  q.y_zp = in_domain(yz[0], q.ydt);
  return q;
}

// v ^ 0x80 over `n` bytes: u8 <-> i8 less / plus 128.
void flip(const std::byte* src, std::byte* dst, size_t n) {
  const auto* s = reinterpret_cast<const uint8_t*>(src);
  auto* d = reinterpret_cast<uint8_t*>(dst);
  for (size_t i = 0; i < n; ++i) d[i] = static_cast<uint8_t>(s[i] ^ 0x80u);
}

// A 2-D convolution in XNNPACK's terms (NHWC input of n x h x w).
struct QConv {
  size_t n = 1, h = 1, w = 1;
  uint32_t groups = 1;
  size_t gic = 0, goc = 0;
  uint32_t top = 0, right = 0, bottom = 0, left = 0, kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  std::vector<uint8_t> weights;  ///< [groups * goc, kh, kw, gic], flipped where the plan says.
  const int32_t* bias = nullptr;
};

// The operator (and the flips around it) reading `in` (slot x's form the
// operator reads: NHWC, or a matmul's plain rows) and writing `out`.
void add_qconv(Ctx& c, const QConv& g, const Quant& q, Place in, Place out, const std::string& name) {
  Delegate& d = c.d;
  const SlotState &xst = c.slot(c.input(0)), &yst = c.slot(c.output());
  if (q.xdt != q.domain) {
    // The input flipped into a buffer of its own, which the operator reads.
    const size_t bytes = xst.nbytes();
    const Place to{static_cast<int32_t>(d.buffers.size())};
    d.buffers.push_back({bytes + XNN_EXTRA_BYTES});
    d.touch(to);
    d.add_loop([&d, in, to, bytes] { flip(d.at(in), d.at(to), bytes); }, c.what() + ": its input flipped",
               "flip (" + std::string(dtype_name(q.xdt)) + " to " + std::string(dtype_name(q.domain)) + ")");
    in = to;
  }
  const size_t cin = g.gic * g.groups, cout = g.goc * g.groups;
  xnn_operator_t op = nullptr;
  xnn_status s;
  const char* create;
  if (q.plan.qu8) {
    create = "xnn_create_convolution2d_nhwc_qu8";
    s = xnn_create_convolution2d_nhwc_qu8(g.top, g.right, g.bottom, g.left, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw,
                                          g.groups, g.gic, g.goc, cin, cout, static_cast<uint8_t>(q.x_zp),
                                          q.plan.x_scale, static_cast<uint8_t>(q.plan.w_zp), q.plan.w_scale[0],
                                          g.weights.data(), g.bias, static_cast<uint8_t>(q.y_zp), q.plan.y_scale, 0,
                                          255, 0, &op);
  } else {
    create = "xnn_create_convolution2d_nhwc_qc8";
    s = xnn_create_convolution2d_nhwc_qc8(g.top, g.right, g.bottom, g.left, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw,
                                          g.groups, g.gic, g.goc, cin, cout, static_cast<int8_t>(q.x_zp),
                                          q.plan.x_scale, q.plan.w_scale.data(),
                                          reinterpret_cast<const int8_t*>(g.weights.data()), g.bias,
                                          static_cast<int8_t>(q.y_zp), q.plan.y_scale, -128, 127, 0, &op);
  }
  const bool qu8 = q.plan.qu8;
  const size_t n = g.n, h = g.h, w = g.w;
  d.add_op(s, op, create,
           [&d, qu8, n, h, w, in, out](xnn_operator_t o) {
             if (qu8)
               return xnn_setup_convolution2d_nhwc_qu8(o, n, h, w, reinterpret_cast<const uint8_t*>(d.at(in)),
                                                       reinterpret_cast<uint8_t*>(d.at(out)), d.pool);
             return xnn_setup_convolution2d_nhwc_qc8(o, n, h, w, reinterpret_cast<const int8_t*>(d.at(in)),
                                                     reinterpret_cast<int8_t*>(d.at(out)), d.pool);
           },
           c.what(), name + (qu8 ? " (qu8)" : " (qc8)"));
  if (q.ydt != q.domain) {
    const size_t bytes = yst.nbytes();
    d.add_loop([&d, out, bytes] { flip(d.at(out), d.at(out), bytes); }, c.what() + ": its result flipped",
               "flip (" + std::string(dtype_name(q.domain)) + " to " + std::string(dtype_name(q.ydt)) + ")");
  }
}

// The weights [g * goc, gic, k] (k: the taps, row-major) in XNNPACK's
// order [g * goc, k, gic], flipped where the plan says.
std::vector<uint8_t> conv_weights(const std::byte* from, int64_t cout, int64_t gic, int64_t taps, bool flipped) {
  std::vector<uint8_t> out(static_cast<size_t>(cout * gic * taps));
  const auto* w = reinterpret_cast<const uint8_t*>(from);
  const uint8_t x = flipped ? 0x80 : 0;
  for (int64_t o = 0; o < cout; ++o)
    for (int64_t i = 0; i < gic; ++i)
      for (int64_t t = 0; t < taps; ++t)
        out[static_cast<size_t>((o * taps + t) * gic + i)] = static_cast<uint8_t>(w[(o * gic + i) * taps + t] ^ x);
  return out;
}

}  // namespace

// 2-D, or 1-D as 2-D over an image of height 1 (as conv's builder).
Error build_qlinear_conv(Ctx& c) {
  const int32_t x = c.input(0), wslot = c.input(3), y = c.output();
  std::vector<int64_t> xs = c.shape(x), ws = c.shape(wslot);
  const size_t rank = xs.size();
  require((rank == 3 || rank == 4) && ws.size() == rank && c.shape(y).size() == rank,
          "is not a 1-D or 2-D convolution");
  require(c.is_constant(wslot), "has weights that are not a constant");
  const Attrs& a = c.in().attrs;
  const size_t nd = rank - 2;
  require(spatial_sizes_ok(a, {"stride", "dilation", "padding"}, nd), "has spatial attributes of the wrong length");
  auto stride = spatial_ints(a, "stride", nd, 1), dilation = spatial_ints(a, "dilation", nd, 1);
  std::vector<int64_t> pb, pe;
  spatial_padding(a, nd, pb, pe);
  if (nd == 1) {
    xs.insert(xs.begin() + 2, 1);
    ws.insert(ws.begin() + 2, 1);
    stride.insert(stride.begin(), 1);
    dilation.insert(dilation.begin(), 1);
    pb.insert(pb.begin(), 0);
    pe.insert(pe.begin(), 0);
  }
  const edgec::xnnpack::OpRow* row = edgec::xnnpack::find_op_row(c.in().op);
  const int64_t groups = declared_attr_of(row ? row->decl : nullptr, c.in().op, "groups").int_value(a);
  require(groups >= 1 && xs[1] % groups == 0 && ws[1] * groups == xs[1] && ws[0] % groups == 0 &&
              c.shape(y)[1] == ws[0],
          "has weights " + shape_string(c.shape(wslot)) + " that do not fit input " + shape_string(c.shape(x)) +
              " in " + str(groups) + " groups");
  const Quant q = read_quant(c, ws[0]);
  QConv g;
  g.n = static_cast<size_t>(xs[0]), g.h = static_cast<size_t>(xs[2]), g.w = static_cast<size_t>(xs[3]);
  g.groups = u32(groups, "groups");
  g.gic = static_cast<size_t>(ws[1]), g.goc = static_cast<size_t>(ws[0] / groups);
  g.top = u32(pb[0], "padding"), g.right = u32(pe[1], "padding"), g.bottom = u32(pe[0], "padding"),
  g.left = u32(pb[1], "padding");
  g.kh = u32(ws[2], "kernel"), g.kw = u32(ws[3], "kernel");
  g.sh = u32(stride[0], "stride"), g.sw = u32(stride[1], "stride");
  g.dh = u32(dilation[0], "dilation"), g.dw = u32(dilation[1], "dilation");
  require(c.slot(wslot).data != nullptr, "has weights without data");
  g.weights = conv_weights(c.slot(wslot).data, ws[0], ws[1], ws[2] * ws[3], q.plan.flip_weights);
  if (c.in().inputs.size() > 8 && c.slot(c.input(8)).numel() > 0) {
    const int32_t b = c.input(8);
    require(c.is_constant(b) && c.slot(b).dtype == DType::Int32 && c.slot(b).numel() == ws[0] && c.slot(b).data,
            "has a bias that is not an i32 constant of [Cout]");
    g.bias = reinterpret_cast<const int32_t*>(c.slot(b).data);
  }
  const Place in = c.d.nhwc(x);
  const Place out = c.d.define(y, Layout::Nhwc);
  add_qconv(c, g, q, in, out, "qlinear_conv");
  return Error::Ok;
}

// a [..., M, K] by constant b [K, N]: a 1x1 convolution of one image row
// of (leading dims) x M pixels.
Error build_qlinear_matmul(Ctx& c) {
  const int32_t a = c.input(0), b = c.input(3), y = c.output();
  const auto& as = c.shape(a);
  const auto& bs = c.shape(b);
  require(as.size() >= 2 && bs.size() == 2 && as.back() == bs[0] && c.is_constant(b) && c.slot(b).data,
          "is not a product by constant [K, N] weights");
  const int64_t K = bs[0], N = bs[1];
  const int64_t rows = c.slot(a).numel() / K;
  require(c.slot(y).numel() == rows * N, "has a result of another size than its operands give");
  const Quant q = read_quant(c, N);
  QConv g;
  g.w = static_cast<size_t>(rows);
  g.gic = static_cast<size_t>(K), g.goc = static_cast<size_t>(N);
  // [K, N] read as [N, K, 1 tap]: the transpose XNNPACK's [N, 1, 1, K] is.
  std::vector<uint8_t> t(static_cast<size_t>(K * N));
  const auto* bv = reinterpret_cast<const uint8_t*>(c.slot(b).data);
  const uint8_t x = q.plan.flip_weights ? 0x80 : 0;
  for (int64_t k = 0; k < K; ++k)
    for (int64_t j = 0; j < N; ++j) t[static_cast<size_t>(j * K + k)] = static_cast<uint8_t>(bv[k * N + j] ^ x);
  g.weights = std::move(t);
  // Flipped, it is read by the flip only (at an address that may move).
  const Place in = c.d.plain(a, q.xdt == q.domain);
  const Place out = c.d.define(y, Layout::Plain);
  add_qconv(c, g, q, in, out, "qlinear_matmul");
  return Error::Ok;
}

}  // namespace edgec::runtime::xnnpack
