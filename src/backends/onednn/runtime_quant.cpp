// qlinear_conv and qlinear_matmul on oneDNN 2.6's int8 primitives
// (docs/semantics.md, "Quantized arithmetic"; docs/architecture.md, "The
// built-in backends").
//
// ONNX computes acc = sum (x - x_zp) * (w - w_zp) + bias in int32 and
// y = saturate(nearbyint(float(acc) * m[c]) + y_zp), m[c] = x_scale *
// w_scale[c] / y_scale in float32. oneDNN computes the same sum in int32
// (the source zero point as a runtime zero point: its compensation, and
// the padding taken as the zero point, are oneDNN's), adds the int32 bias
// in float (the same sum while it stays below 2^24 in magnitude, as every
// 8-bit layer's does in practice), and multiplies by its output scale
// (m[c], computed here as ONNX does). Then post-ops finish it as ONNX
// does (requant_attr): round to nearest even, add y_zp (an exact float
// addition of integers), and the conversion to u8 / s8 saturates. (oneDNN's
// own destination zero point would be added before its rounding: one step
// off wherever float(acc) * m[c] is halfway between two integers and y_zp
// is odd.) The weights' zero point must be 0 (ONNX Runtime's quantizer
// writes int8 weights so).
//
// VNNI: with AVX-512 VNNI or AVX-VNNI oneDNN sums u8 x s8 products with
// vpdpbusd, exactly. Without it oneDNN 2.6's int8 kernels are not exact:
// for a u8 source they sum pairs of products in int16 with vpmaddubsw,
// which saturates (a 3x3 convolution of random data was off by up to 33
// steps under ONEDNN_MAX_CPU_ISA=AVX2, a matmul by 38), and for an s8
// source the convolution halves the weights (scale_adjust 0.5, rounding
// their last bit away: off by up to 2). There the delegate takes oneDNN's
// reference implementation, which is exact and slow; int8_vnni() says
// which path a machine takes.
#include "backends/onednn/runtime_quant.h"

#include <cmath>
#include <cstring>
#include <new>
#include <vector>

#include "backends/onednn/op_table.h"
#include "backends/onednn/runtime_build.h"
#include "runtime/delegate_geometry.h"

namespace edgec::onednn {
namespace {

using Reason = std::optional<std::string>;

std::string num(int64_t v) { return std::to_string(v); }

int64_t count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t v : shape) n *= v;
  return n;
}

bool is_8bit(DType t) { return t == DType::UInt8 || t == DType::Int8; }

// The operands after the data ones: scales (f32), zero points (int8 or
// uint8 like their tensor), per tensor or per `channels` (a 1-D [C]).
Reason check_params(const CallView& call, const char* what, size_t scale, size_t zp, DType zp_dtype,
                    int64_t channels) {
  const std::string name(what);
  for (size_t i : {scale, zp})
    if (i >= call.constant.size() || !call.constant[i])
      return name + (i == scale ? " scale" : " zero point") +
             " is not a constant (init computes the requantization from it)";
  if (call.dtypes[scale] != DType::Float32)
    return name + " scale of dtype " + std::string(dtype_name(call.dtypes[scale])) + ", expected f32";
  if (call.dtypes[zp] != zp_dtype)
    return name + " zero point of dtype " + std::string(dtype_name(call.dtypes[zp])) + ", expected " +
           std::string(dtype_name(zp_dtype));
  for (size_t i : {scale, zp}) {
    const int64_t n = count(call.inputs[i]);
    if (n != 1 && !(channels > 1 && call.inputs[i].size() == 1 && n == channels))
      return name + (i == scale ? " scale" : " zero point") + " of shape " + shape_string(call.inputs[i]) +
             (channels > 1 ? ", expected one value or one per channel (" + num(channels) + ")" : ", expected one value");
  }
  return std::nullopt;
}

Reason check_source(const CallView& call, const char* what) {
  if (!is_8bit(call.dtypes[0]))
    return std::string(what) + " of dtype " + std::string(dtype_name(call.dtypes[0])) + " (oneDNN takes u8 or i8)";
  return std::nullopt;
}

Reason check_weights(const CallView& call, size_t w, const char* what) {
  if (call.dtypes[w] != DType::Int8)
    return std::string(what) + " of dtype " + std::string(dtype_name(call.dtypes[w])) +
           " (oneDNN's int8 primitives take i8 weights; ONNX Runtime's quantizer writes them with "
           "weight_type=QInt8)";
  if (!call.constant[w]) return std::string(what) + " are not a constant (init lays them out for oneDNN once)";
  return std::nullopt;
}

}  // namespace

Reason check_qlinear_conv(const CallView& call) {
  if (call.inputs.size() < 8 || call.inputs.size() > 9) return "qlinear_conv with " + num(call.inputs.size()) + " operands";
  const auto& x = call.inputs[0];
  const auto& w = call.inputs[3];
  if (x.size() < 3 || x.size() > 5) return "qlinear_conv of a rank-" + num(x.size()) + " input";
  if (auto r = check_source(call, "qlinear_conv input")) return r;
  if (auto r = check_weights(call, 3, "qlinear_conv weights")) return r;
  const DType ydt = call.dtypes[7];
  if (auto r = check_params(call, "qlinear_conv x", 1, 2, call.dtypes[0], 1)) return r;
  if (auto r = check_params(call, "qlinear_conv w", 4, 5, DType::Int8, w.empty() ? 1 : w[0])) return r;
  if (!is_8bit(ydt)) return "qlinear_conv y zero point of dtype " + std::string(dtype_name(ydt));
  if (auto r = check_params(call, "qlinear_conv y", 6, 7, ydt, 1)) return r;
  if (call.inputs.size() == 9 && count(call.inputs[8]) > 0) {
    if (call.dtypes[8] != DType::Int32)
      return "qlinear_conv bias of dtype " + std::string(dtype_name(call.dtypes[8])) + ", expected i32";
  }
  return std::nullopt;
}

Reason check_qlinear_matmul(const CallView& call) {
  if (call.inputs.size() != 8) return "qlinear_matmul with " + num(call.inputs.size()) + " operands";
  const auto& a = call.inputs[0];
  const auto& b = call.inputs[3];
  if (a.size() < 2 || b.size() < 2) return std::string("qlinear_matmul of a 1-D operand");
  for (size_t i = 0; i + 2 < b.size(); ++i)
    if (b[i] != 1) return "qlinear_matmul by batched weights " + shape_string(b) + " (the delegate folds batch dims of 1)";
  if (auto r = check_source(call, "qlinear_matmul a")) return r;
  if (auto r = check_weights(call, 3, "qlinear_matmul b")) return r;
  const DType ydt = call.dtypes[7];
  if (auto r = check_params(call, "qlinear_matmul a", 1, 2, call.dtypes[0], 1)) return r;
  if (auto r = check_params(call, "qlinear_matmul b", 4, 5, DType::Int8, b.back())) return r;
  if (!is_8bit(ydt)) return "qlinear_matmul y zero point of dtype " + std::string(dtype_name(ydt));
  if (auto r = check_params(call, "qlinear_matmul y", 6, 7, ydt, 1)) return r;
  return std::nullopt;
}

int quantized_zero_operand(std::string_view op) { return op == "qlinear_conv" || op == "qlinear_matmul" ? 5 : -1; }

}  // namespace edgec::onednn

namespace edgec::runtime::onednn {
namespace {

using dnnl::memory;
using dt = memory::data_type;

bool has_vnni(dnnl::cpu_isa isa) {
  const auto have = static_cast<unsigned>(isa);
  for (dnnl::cpu_isa v : {dnnl::cpu_isa::avx512_core_vnni, dnnl::cpu_isa::avx2_vnni})
    if ((have & static_cast<unsigned>(v)) == static_cast<unsigned>(v)) return true;
  return false;
}

dt dnnl_type(DType t) { return t == DType::UInt8 ? dt::u8 : t == DType::Int8 ? dt::s8 : t == DType::Int32 ? dt::s32 : dt::f32; }

// The requantization a qlinear call's constants say: m[c] = x_scale *
// w_scale[c] / y_scale in float32 (ONNX's order), and the zero points.
struct Requant {
  std::vector<float> m;  // one, or one per output channel
  int32_t x_zp = 0, y_zp = 0;
};

float scalar_f32(const Ctx& c, int32_t slot) {
  const SlotState& st = c.d.slots.at(static_cast<size_t>(slot));
  require(c.is_constant(slot) && st.dtype == DType::Float32 && st.numel() == 1 && st.ptr,
          "scale slot " + std::to_string(slot) + " is not a constant f32 scalar");
  float v;
  std::memcpy(&v, st.ptr, sizeof v);
  return v;
}

int32_t zero_point(const Ctx& c, int32_t slot, int64_t k = 0) {
  const SlotState& st = c.d.slots.at(static_cast<size_t>(slot));
  require(c.is_constant(slot) && (st.dtype == DType::UInt8 || st.dtype == DType::Int8) && k < st.numel() && st.ptr,
          "zero point slot " + std::to_string(slot) + " is not a constant u8 or i8 tensor");
  return st.dtype == DType::UInt8 ? static_cast<int32_t>(reinterpret_cast<const uint8_t*>(st.ptr)[k])
                                  : static_cast<int32_t>(reinterpret_cast<const int8_t*>(st.ptr)[k]);
}

// Operands 1, 2 (x), 4, 5 (w) and 6, 7 (y) of either operator; `channels`
// output channels (conv) or columns (matmul).
Requant read_requant(const Ctx& c, int64_t channels) {
  Requant q;
  const float xs = scalar_f32(c, c.input(1)), ys = scalar_f32(c, c.input(6));
  q.x_zp = zero_point(c, c.input(2));
  q.y_zp = zero_point(c, c.input(7));
  const SlotState& ws = c.d.slots.at(static_cast<size_t>(c.input(4)));
  const SlotState& wz = c.d.slots.at(static_cast<size_t>(c.input(5)));
  require(c.is_constant(c.input(4)) && ws.dtype == DType::Float32 && ws.ptr && (ws.numel() == 1 || ws.numel() == channels),
          "weight scale slot " + std::to_string(c.input(4)) + ": expected a constant f32 of 1 or " +
              std::to_string(channels) + " values");
  require(wz.numel() == ws.numel(), "weight zero point and scale of different sizes");
  for (int64_t k = 0; k < wz.numel(); ++k)
    require(zero_point(c, c.input(5), k) == 0,
            "weight zero point " + std::to_string(zero_point(c, c.input(5), k)) + " at " + std::to_string(k) +
                ": oneDNN's int8 primitives take weights with zero point 0");
  const auto* wsv = reinterpret_cast<const float*>(ws.ptr);
  q.m.resize(static_cast<size_t>(ws.numel()));
  for (size_t k = 0; k < q.m.size(); ++k) {
    float w;
    std::memcpy(&w, wsv + k, sizeof w);
    q.m[k] = xs * w / ys;
  }
  return q;
}

// A 4-byte s32 constant made at init (a runtime zero point's argument).
memory owned_s32(Ctx& c, int32_t v) {
  std::byte* at = c.d.init_memory.allocate(sizeof v);
  if (!at) throw std::bad_alloc();
  std::memcpy(at, &v, sizeof v);
  memory m(memory::desc({1}, dt::s32, memory::dims{1}), c.d.engine, at);
  c.d.owned.push_back(m);
  return m;
}

// The attribute carrying the requantization: output scales (per tensor, or
// per channel along dst dim `channel_dim`), x's zero point as a runtime
// argument (left out when 0), then post-ops rounding the scaled sum to
// nearest even (eltwise_round: vroundps in the default rounding mode, as
// std::nearbyint) and adding y's zero point to the integer (eltwise_linear,
// exact in float), so that y = saturate(nearbyint(float(acc) * m) + y_zp)
// as ONNX computes it: oneDNN's own destination zero point would be added
// before its rounding, one step off at ties with an odd zero point. The
// conversion to u8 / s8 saturates an integer: exact.
// A fused integer clamp (`clamp`) adds eltwise_clip_v2 with its bounds
// after that, on the integer y: exact, and the same as ONNX's clamp of the
// saturated y while lo <= hi (the partitioner's condition).
struct IntClamp {
  float lo = 0, hi = 0;
};

dnnl::primitive_attr requant_attr(const Ctx& c, const Requant& q, int channel_dim,
                                  const std::optional<IntClamp>& clamp) {
  dnnl::primitive_attr attr = c.d.attr();
  attr.set_output_scales(q.m.size() > 1 ? 1 << channel_dim : 0, q.m);
  if (q.x_zp != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  dnnl::post_ops ops;
  ops.append_eltwise(1.f, dnnl::algorithm::eltwise_round, 0.f, 0.f);
  if (q.y_zp != 0) ops.append_eltwise(1.f, dnnl::algorithm::eltwise_linear, 1.f, static_cast<float>(q.y_zp));
  if (clamp) ops.append_eltwise(1.f, dnnl::algorithm::eltwise_clip_v2, clamp->lo, clamp->hi);
  attr.set_post_ops(ops);
  return attr;
}

// The integer clamp that alone reads `y` (what fuse_qdq writes for a relu
// or clip after an integer convolution or matmul; the partitioner takes an
// integer clamp only there, partitioner.cpp): marked fused, its result made
// `y`, its bounds returned.
std::optional<IntClamp> fuse_int_clamp(Ctx& c, int32_t& y) {
  const int32_t next = sole_consumer(c.d, y);
  if (next < 0 || c.d.fused[static_cast<size_t>(next)] || c.at(next).op != "clamp") return std::nullopt;
  const Instruction& in = c.at(next);
  if (in.inputs.size() != 1 || in.inputs[0] != y || in.outputs.size() != 1 ||
      c.d.slots.at(static_cast<size_t>(in.outputs[0])).dtype != c.d.slots.at(static_cast<size_t>(y)).dtype)
    return std::nullopt;
  const double lo = edgec::onednn::declared_attr(in.op, "min").float_value(in.attrs);
  const double hi = edgec::onednn::declared_attr(in.op, "max").float_value(in.attrs);
  if (!(lo <= hi)) return std::nullopt;
  c.d.fused[static_cast<size_t>(next)] = true;
  y = in.outputs[0];
  return IntClamp{static_cast<float>(lo), static_cast<float>(hi)};
}

void add_zero_point_args(Ctx& c, const Requant& q, Args& args) {
  if (q.x_zp != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = owned_s32(c, q.x_zp);
}

bool on_reference(const dnnl::primitive_desc_base& pd) {
  return std::string_view(pd.impl_info_str()).substr(0, 3) == "ref";
}

// Without VNNI, oneDNN's exact implementation: its reference code (the
// header says why). With it, oneDNN's first choice.
template <typename PD>
void pick_exact(PD& pd) {
  if (int8_vnni()) return;
  while (!on_reference(pd))
    if (!pd.next_impl()) throw dnnl::error(dnnl_unimplemented, "no exact int8 implementation");
}

// True when the file can store `chosen` as the weights' layout (the
// compiler's prepare_constants; stored_weights_layout reads it back): s8,
// blocked, other than plain, its only extras oneDNN's compensations and a
// scale adjustment of 1 (oneDNN 2.6 flags one for an s8 source even with
// VNNI; without VNNI it is 0.5, which halves the weights: then the bytes
// are not the weights any more), and no padding: padded to its blocks, a small
// layer's layout is mostly zeros (act's 8-channel 3x3 convolutions twice
// their weights, its 3-channel stem 11 times), which the file need not
// hold; such weights are reordered at init as before.
bool storable(const memory::desc& chosen, const memory::desc& plain) {
  const dnnl_memory_desc_t& m = chosen.data;
  constexpr uint64_t kCompensations =
      dnnl_memory_extra_flag_compensation_conv_s8s8 | dnnl_memory_extra_flag_compensation_conv_asymmetric_src;
  constexpr uint64_t kScaleAdjust = dnnl_memory_extra_flag_scale_adjust;
  if (m.format_kind != dnnl_blocked || m.data_type != dnnl_s8 || m.offset0 != 0 ||
      (m.extra.flags & ~(kCompensations | kScaleAdjust)) || ((m.extra.flags & kScaleAdjust) && m.extra.scale_adjust != 1.f) ||
      chosen == plain)
    return false;
  for (int i = 0; i < m.ndims; ++i)
    if (m.padded_offsets[i] != 0 || m.padded_dims[i] != m.dims[i]) return false;
  return true;
}

// Constant s8 weights reordered once, now, into the layout the primitive
// chose, with the compensation oneDNN asks for; or, when the file stores
// them in that layout already (SlotState::stored, compensation included),
// read in place. Stored in another layout (a file made where oneDNN chose
// differently: another ISA, or a reference implementation), the stored
// weights are reordered from there, their compensation left behind and
// made anew for the chosen layout. `plain` is their row-major layout.
memory int8_weights(Ctx& c, int32_t w, const memory::desc& plain, const memory::desc& chosen) {
  const SlotState& st = c.d.slots.at(static_cast<size_t>(w));
  require(c.is_constant(w) && st.dtype == DType::Int8 && st.ptr &&
              (st.stored.is_zero() ? st.nbytes() == plain.get_size() : st.nbytes() == st.stored.get().get_size()),
          "weights slot " + std::to_string(w) + " is not a constant i8 tensor of the weights' size");
  memory src(plain, c.d.engine, st.ptr);
  // Stored in another layout: oneDNN 2.6 makes the compensation only in a
  // reorder from a plain layout (one from a blocked s8 layout into one with
  // compensation is NotSupported: MobileNetV2's 1x1 convolutions compiled
  // for two threads and loaded for one), so the stored weights are first
  // reordered back to plain, bare of their compensation, in a buffer of
  // init's own.
  std::vector<std::byte> unstored;
  if (!st.stored.is_zero()) {
    if (st.stored == chosen) return memory(chosen, c.d.engine, st.ptr);
    dnnl_memory_desc_t bare = st.stored.get().data;
    bare.extra = dnnl_memory_extra_desc_t{};
    bare.extra.scale_adjust = 1.f;
    unstored.resize(plain.get_size());
    src = memory(plain, c.d.engine, unstored.data());
    reorder_at_init(c.d, memory(memory::desc(bare), c.d.engine, st.ptr), src);
  }
  std::byte* at = c.d.init_memory.allocate(chosen.get_size());
  if (!at) throw std::bad_alloc();
  memory to(chosen, c.d.engine, at);
  reorder_at_init(c.d, src, to);
  c.d.owned.push_back(to);
  // For the compiler (chosen_weight_layouts): weights the file could store
  // as oneDNN chose them here.
  if (c.d.record && st.kind == SlotKind::Constant && st.stored.is_zero() && storable(chosen, plain))
    c.d.record->push_back({c.index, 3, c.program.slots()[static_cast<size_t>(w)].key, chosen, at});
  return to;
}

// The weights' own shape (ONNX's): the weights_shape attribute where the
// compiler stored them flat in oneDNN's layout, else their slot's.
std::vector<int64_t> weights_shape(const Ctx& c, int32_t w) {
  if (const std::vector<int64_t>* s = c.attrs().get_ints("weights_shape")) return *s;
  return c.shape(w);
}

memory::dims to_dims(const std::vector<int64_t>& v) { return memory::dims(v.begin(), v.end()); }

std::string step_name(std::string_view op, const dnnl::primitive_desc_base& pd, bool clamp) {
  return std::string(op) + (clamp ? "+clamp" : "") + " (" + pd.impl_info_str() + ")";
}

}  // namespace

bool int8_vnni() { return has_vnni(dnnl::get_effective_cpu_isa()); }

double int8_multiply_add_cost() {
  const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
  if (has_vnni(isa)) return 0.25;
  auto has = [&](dnnl::cpu_isa v) {
    return (static_cast<unsigned>(isa) & static_cast<unsigned>(v)) == static_cast<unsigned>(v);
  };
  return has(dnnl::cpu_isa::avx512_core) ? 16 : has(dnnl::cpu_isa::avx2) ? 8 : 4;
}

size_t stored_weights_operand(std::string_view op) { return op == "qlinear_conv" || op == "qlinear_matmul" ? 3 : 1; }

memory::dims stored_qlinear_weights_dims(const Instruction& in) {
  const std::vector<int64_t>* shape = in.attrs.get_ints("weights_shape");
  require(shape != nullptr, "stored int8 weights need the attribute weights_shape (ints)");
  for (int64_t d : *shape) require(d >= 1, "weights_shape " + shape_string(*shape) + ": expected positive dims");
  if (in.op == "qlinear_conv") {
    const int64_t groups = edgec::onednn::declared_attr(in.op, "groups").int_value(in.attrs);
    require(shape->size() >= 3 && shape->size() <= 5 && groups >= 1 && (*shape)[0] % groups == 0,
            "stored weights of shape " + shape_string(*shape) + " in " + std::to_string(groups) +
                " groups: expected rank 3 to 5 and groups dividing the first dim");
    return conv_weights_dims(*shape, groups);
  }
  require(shape->size() >= 2, "stored matmul weights of shape " + shape_string(*shape) + ": expected rank 2 or more");
  for (size_t i = 0; i + 2 < shape->size(); ++i)
    require((*shape)[i] == 1, "stored matmul weights of shape " + shape_string(*shape) + ": expected batch dims of 1");
  return {(*shape)[shape->size() - 2], shape->back()};
}

Error build_qlinear_conv(Ctx& c) {
  const int32_t x = c.input(0), w = c.input(3);
  int32_t y = c.output();
  const auto& xs = c.shape(x);
  const std::vector<int64_t> ws = weights_shape(c, w);
  const auto& ys = c.shape(y);
  require(xs.size() >= 3 && xs.size() <= 5 && ws.size() == xs.size() && ys.size() == xs.size(),
          "a qlinear_conv of input " + shape_string(xs) + ", weights " + shape_string(ws) + " and result " +
              shape_string(ys) + ": expected equal ranks of 3 to 5");
  const size_t nd = xs.size() - 2;
  const Attrs& a = c.attrs();
  require(edgec::spatial_sizes_ok(a, {"stride", "dilation", "padding"}, nd),
          "spatial attributes (stride, dilation, padding) of another length than the " + std::to_string(nd) +
              " spatial dims");
  require(edgec::spatial_values_in(a, {"stride", "dilation", "padding"}, 0, INT32_MAX),
          "convolution attributes out of range: stride, dilation and padding must lie in [0, 2^31)");
  const int64_t groups = c.int_attr("groups");
  require(groups >= 1 && ws[0] > 0 && ws[0] % groups == 0 && ys[1] == ws[0] && xs[1] == ws[1] * groups,
          "groups = " + std::to_string(groups) + " with input " + shape_string(xs) + ", weights " + shape_string(ws) +
              " and result " + shape_string(ys) + ": expected channels that agree");
  const auto stride = edgec::spatial_ints(a, "stride", nd, 1);
  const auto dil = edgec::spatial_ints(a, "dilation", nd, 1);
  std::vector<int64_t> pb, pe;
  edgec::spatial_padding(a, nd, pb, pe);
  memory::dims gaps(nd);
  for (size_t i = 0; i < nd; ++i) gaps[i] = dil[i] - 1;  // oneDNN counts the gaps
  const Requant q = read_requant(c, ys[1]);
  const SlotState& xst = c.d.slots.at(static_cast<size_t>(x));
  const SlotState& yst = c.d.slots.at(static_cast<size_t>(y));
  const bool has_bias = c.in.inputs.size() > 8 && c.d.slots.at(static_cast<size_t>(c.input(8))).numel() > 0;
  if (has_bias)
    require(c.d.slots.at(static_cast<size_t>(c.input(8))).dtype == DType::Int32 &&
                c.d.slots.at(static_cast<size_t>(c.input(8))).numel() == ys[1],
            "qlinear_conv bias: expected i32 with one value per output channel");
  const memory::dims wdims = conv_weights_dims(ws, groups);
  // 2-D and 3-D: the layouts oneDNN chooses (blocked; a plain int8
  // destination falls back to slower code), 1-D plain (as conv's).
  const auto tag = nd >= 2 ? memory::format_tag::any : memory::format_tag::undef;
  auto md = [&](const std::vector<int64_t>& shape, DType t) {
    return tag == memory::format_tag::any ? memory::desc(to_dims(shape), dnnl_type(t), tag)
                                          : memory::desc(to_dims(shape), dnnl_type(t), plain_strides(to_dims(shape)));
  };
  const memory::desc src_want = md(xs, xst.dtype), dst_want = md(ys, yst.dtype);
  const memory::desc wany(wdims, dt::s8, memory::format_tag::any);
  const memory::desc bmd = has_bias ? memory::desc({ys[1]}, dt::s32, memory::dims{1}) : memory::desc();
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                       src_want, wany, bmd, dst_want, to_dims(stride), gaps, to_dims(pb), to_dims(pe));
  const std::optional<IntClamp> clamp = fuse_int_clamp(c, y);
  dnnl::convolution_forward::primitive_desc pd(desc, requant_attr(c, q, 1, clamp), c.d.engine);
  pick_exact(pd);
  Args args;
  args[DNNL_ARG_SRC] = c.d.src_as(x, pd.src_desc());
  args[DNNL_ARG_WEIGHTS] = int8_weights(c, w, memory::desc(wdims, dt::s8, plain_strides(wdims)), pd.weights_desc());
  if (has_bias) args[DNNL_ARG_BIAS] = c.d.src(c.input(8), bmd);
  add_zero_point_args(c, q, args);
  args[DNNL_ARG_DST] = c.d.dst(y, pd.dst_desc());
  c.d.add(dnnl::convolution_forward(pd), pd, std::move(args), c.what, step_name(c.in.op, pd, clamp.has_value()));
  return Error::Ok;
}

// numpy matmul of a (rank 2 or more) by constant 2-D weights (batch dims
// of 1): a's batch dims fold into its rows, one [M, K] x [K, N] product,
// the weights reordered once, at init.
Error build_qlinear_matmul(Ctx& c) {
  const int32_t a = c.input(0), b = c.input(3);
  int32_t y = c.output();
  const auto& as = c.shape(a);
  const std::vector<int64_t> bs = weights_shape(c, b);
  const auto& ys = c.shape(y);
  require(as.size() >= 2 && bs.size() >= 2 && ys.size() == std::max(as.size(), bs.size()),
          "a qlinear_matmul of " + shape_string(as) + " and " + shape_string(bs) + " into " + shape_string(ys) +
              ": expected ranks of 2 or more");
  for (size_t i = 0; i + 2 < bs.size(); ++i) require(bs[i] == 1, "qlinear_matmul by batched weights " + shape_string(bs));
  const int64_t K = as.back(), N = bs.back();
  int64_t M = 1;
  for (size_t i = 0; i + 1 < as.size(); ++i) M *= as[i];
  require(bs[bs.size() - 2] == K && c.d.slots.at(static_cast<size_t>(y)).numel() == M * N,
          "a qlinear_matmul of " + shape_string(as) + " and " + shape_string(bs) + " into " + shape_string(ys) +
              ": expected " + std::to_string(M) + "x" + std::to_string(K) + " times " + std::to_string(K) + "x" +
              std::to_string(N));
  const Requant q = read_requant(c, N);
  const SlotState& ast = c.d.slots.at(static_cast<size_t>(a));
  const SlotState& yst = c.d.slots.at(static_cast<size_t>(y));
  const memory::desc amd({M, K}, dnnl_type(ast.dtype), memory::dims{K, 1});
  const memory::desc bplain({K, N}, dt::s8, memory::dims{N, 1});
  const memory::desc bany({K, N}, dt::s8, memory::format_tag::any);
  const memory::desc ymd({M, N}, dnnl_type(yst.dtype), memory::dims{N, 1});
  const std::optional<IntClamp> clamp = fuse_int_clamp(c, y);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(amd, bany, ymd), requant_attr(c, q, 1, clamp), c.d.engine);
  pick_exact(pd);
  Args args;
  args[DNNL_ARG_SRC] = c.d.src(a, amd);
  args[DNNL_ARG_WEIGHTS] = int8_weights(c, b, bplain, pd.weights_desc());
  add_zero_point_args(c, q, args);
  args[DNNL_ARG_DST] = c.d.dst(y, ymd);
  c.d.add(dnnl::matmul(pd), pd, std::move(args), c.what, step_name(c.in.op, pd, clamp.has_value()));
  return Error::Ok;
}

}  // namespace edgec::runtime::onednn
