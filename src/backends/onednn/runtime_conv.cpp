// Convolution and matmul, with what follows them fused in (BACKGROUND.md,
// "oneDNN 2.6 on this machine": blocked layout kept across the delegate,
// batch norm folded into the weights, bias / activation / residual add as
// post-ops, weights reordered once at init).
//
// A convolution chain is: conv [-> batch_norm | mul / add / sub / div by a
// per-channel constant]* [-> add(residual)] [-> unary]*, each link the only
// reader of the value before it. The per-channel links are folded into the
// weights and bias (a new copy made at init, reordered; the plain copy is
// not kept). The residual add becomes a `sum` post-op that accumulates into
// the residual's own storage when nothing reads the residual later, else a
// binary step. Unary links become eltwise post-ops. The result is in the
// blocked layout oneDNN chose when some reader can take it.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <new>

#include "runtime/delegate_geometry.h"
#include "backends/onednn/op_table.h"
#include "backends/onednn/runtime_build.h"
#include "backends/onednn/runtime_quant.h"
#include "backends/onednn/gemm_prepacked.h"
#include "base/thread_cap.h"
#include "kernels/gemm.h"

namespace edgec::runtime::onednn {
namespace {

using dnnl::algorithm;
using dnnl::memory;
constexpr auto kF32 = memory::data_type::f32;
constexpr auto kInference = dnnl::prop_kind::forward_inference;

memory::dims to_dims(const std::vector<int64_t>& v) { return memory::dims(v.begin(), v.end()); }

memory::desc md_of(const memory::dims& dims) { return memory::desc(dims, kF32, plain_strides(dims)); }

// True when `chosen` can be stored in a file as the weights' layout: a
// dense blocked f32 layout of exactly the plain size (no padding, no
// offset, no compensation), which stored_weights_layout() reads back.
bool storable(const memory::desc& chosen, const memory::desc& plain) {
  const dnnl_memory_desc_t& m = chosen.data;
  if (m.format_kind != dnnl_blocked || m.offset0 != 0 || m.extra.flags != 0 || m.data_type != dnnl_f32 ||
      chosen.get_size() != plain.get_size() || chosen == plain)
    return false;
  for (int i = 0; i < m.ndims; ++i)
    if (m.padded_dims[i] != m.dims[i] || m.padded_offsets[i] != 0) return false;
  return true;
}

// The weights argument. Constant weights are reordered now into the layout
// the primitive chose (only the reordered copy is kept), or read in place
// when the file stores them in that layout already; computed weights are
// read in place in their plain layout. `folded` (when not empty) replaces
// the constant's bytes.
memory weights_arg(Ctx& c, int32_t w, const memory::desc& plain, const memory::desc& chosen,
                   const std::vector<float>& folded) {
  if (!c.is_constant(w)) return c.d.src(w, plain);
  SlotState& st = c.d.slots[static_cast<size_t>(w)];
  if (!st.stored.is_zero() && (!folded.empty() || st.stored.dims() != plain.dims())) c.d.plain_constant(w);
  const memory::desc from = st.stored.is_zero() ? plain : st.stored.get();
  void* bytes = st.ptr;
  if (!folded.empty()) bytes = const_cast<float*>(folded.data());
  if (folded.empty() && chosen == from) return memory(from, c.d.engine, bytes);
  memory src(from, c.d.engine, bytes);
  std::byte* at = c.d.init_memory.allocate(chosen.get_size());
  if (!at) throw std::bad_alloc();
  memory dst(chosen, c.d.engine, at);
  reorder_at_init(c.d, src, dst);
  c.d.owned.push_back(dst);
  // For the compiler (chosen_weight_layouts): a convolution's constant
  // weights that the file could store as oneDNN chose them here (not f16
  // ones, which the file keeps in f16: these bytes are their f32 widening).
  if (c.d.record && folded.empty() && c.in.op == "conv" && st.kind == SlotKind::Constant && !st.widened &&
      st.stored.is_zero() &&
      plain == md_of(plain.dims()) && storable(chosen, plain))
    c.d.record->push_back({c.index, 1, c.program.slots()[static_cast<size_t>(w)].key, chosen, at});
  return dst;
}

// A constant vector made at init (a folded bias).
memory owned_vector(Ctx& c, const std::vector<float>& v) {
  std::byte* at = c.d.init_memory.allocate(v.size() * sizeof(float));
  if (!at) throw std::bad_alloc();
  memory m(md_of({static_cast<int64_t>(v.size())}), c.d.engine, at);
  std::memcpy(at, v.data(), v.size() * sizeof(float));
  c.d.owned.push_back(m);
  return m;
}

}  // namespace

int32_t absorb_affine(Ctx& c, int32_t slot, int64_t channels, Affine& aff, std::string& name) {
  const size_t rank = c.shape(slot).size();
  for (;;) {
    const int32_t next = sole_consumer(c.d, slot);
    if (next < 0) return slot;
    const Instruction& in = c.at(next);
    const std::string_view op = in.op;
    if (c.d.slots[static_cast<size_t>(in.outputs[0])].shape != c.shape(slot)) return slot;
    std::vector<float> s(static_cast<size_t>(channels), 1.f), t(static_cast<size_t>(channels), 0.f);
    if (op == "batch_norm") {
      if (in.inputs[0] != slot || in.inputs.size() < 5) return slot;
      std::vector<std::vector<float>> p;
      for (size_t i = 1; i < 5; ++i) {
        p.push_back(per_channel(c, in.inputs[i], 2, channels));
        if (p.back().empty()) return slot;
      }
      const double eps = edgec::onednn::declared_attr(in.op, "eps").float_value(in.attrs);
      for (size_t k = 0; k < s.size(); ++k) {
        const double inv = 1.0 / std::sqrt(static_cast<double>(p[3][k]) + eps);
        s[k] = static_cast<float>(p[0][k] * inv);
        t[k] = static_cast<float>(p[1][k] - p[2][k] * p[0][k] * inv);
      }
    } else if (op == "mul" || op == "add" || op == "sub" || op == "div") {
      if (in.inputs.size() != 2) return slot;
      const bool first = in.inputs[0] == slot;
      const int32_t other = first ? in.inputs[1] : in.inputs[0];
      if (other == slot || (!first && (op == "sub" || op == "div"))) return slot;
      std::vector<float> v = per_channel(c, other, rank, channels);
      if (v.empty()) return slot;
      for (size_t k = 0; k < s.size(); ++k) {
        if (op == "mul") s[k] = v[k];
        else if (op == "div") s[k] = 1.f / v[k];
        else if (op == "add") t[k] = v[k];
        else t[k] = -v[k];
      }
    } else {
      return slot;
    }
    if (!aff.any) {
      aff.scale.assign(static_cast<size_t>(channels), 1.f);
      aff.shift.assign(static_cast<size_t>(channels), 0.f);
      aff.any = true;
    }
    // (x * a + b) * s + t
    for (size_t k = 0; k < s.size(); ++k) {
      aff.scale[k] *= s[k];
      aff.shift[k] = aff.shift[k] * s[k] + t[k];
    }
    c.d.fused[static_cast<size_t>(next)] = true;
    name += "+" + in.op;
    slot = in.outputs[0];
  }
}

void fold_conv_params(const Ctx& c, const ConvChain& ch, bool transposed, std::vector<float>& weights,
                      std::vector<float>& bias) {
  c.d.plain_constant(ch.w);
  const auto& w = c.shape(ch.w);
  const Affine& aff = ch.aff;
  const auto* wsrc = reinterpret_cast<const float*>(c.d.slots[static_cast<size_t>(ch.w)].ptr);
  const int64_t wn = c.d.slots[static_cast<size_t>(ch.w)].numel();
  const int64_t cout = transposed ? w[1] * ch.groups : w[0];
  weights.assign(wsrc, wsrc + wn);
  // Output channel of torch-layout element e.
  const int64_t inner = wn / (w[0] * w[1]);
  for (int64_t e = 0; e < wn; ++e) {
    int64_t oc;
    if (!transposed) {
      oc = e / (w[1] * inner);
    } else {
      const int64_t ic = e / (w[1] * inner), o = (e / inner) % w[1];
      oc = (ic / (w[0] / ch.groups)) * w[1] + o;
    }
    weights[static_cast<size_t>(e)] *= aff.scale[static_cast<size_t>(oc)];
  }
  bias.assign(static_cast<size_t>(cout), 0.f);
  const auto* b = ch.bias >= 0 ? reinterpret_cast<const float*>(c.d.slots[static_cast<size_t>(ch.bias)].ptr) : nullptr;
  for (size_t k = 0; k < bias.size(); ++k) bias[k] = (b ? b[k] : 0.f) * aff.scale[k] + aff.shift[k];
}

void conv_params(const Ctx& c, const ConvChain& ch, ConvParams& p) {
  if (!ch.aff.any) {
    c.d.plain_constant(ch.w);
    auto constant = [&](int32_t slot) {
      return slot < 0 ? nullptr : reinterpret_cast<const float*>(c.d.slots[static_cast<size_t>(slot)].ptr);
    };
    p.weights = constant(ch.w);
    p.bias = constant(ch.bias);
    return;
  }
  fold_conv_params(c, ch, false, p.folded_weights, p.folded_bias);
  p.weights = p.folded_weights.data();
  p.bias = p.folded_bias.data();
}

namespace {

// What build_conv derives from the instruction before it looks at the chain:
// oneDNN's view of the attributes and of the weights.
struct ConvGeometry {
  bool transposed = false;
  size_t nd = 0;                  // spatial dims
  memory::dims dilation, pad_right;  // oneDNN's: gaps between taps; right padding less output padding
  memory::dims wdims, wstrides;   // the weights as oneDNN's (g,) O, I, k...
  int64_t cout = 0;
  bool has_bias = false, const_params = false;
};

// Checks the instruction's shapes and attributes (a payload is untrusted)
// and fills `g` and the chain's stride, dilation, padding and groups.
void read_conv_geometry(Ctx& c, bool transposed, ConvChain& ch, ConvGeometry& g) {
  const auto& x = c.shape(ch.x);
  const auto& w = c.shape(ch.w);
  require(x.size() >= 3 && x.size() <= 5 && w.size() == x.size() && c.shape(c.output()).size() == x.size(),
          "a convolution of input " + shape_string(x) + ", weights " + shape_string(w) + " and result " +
              shape_string(c.shape(c.output())) + ": expected equal ranks of 3 to 5");
  const size_t nd = g.nd = x.size() - 2;
  g.transposed = transposed;
  const Attrs& a = c.attrs();
  require(edgec::spatial_sizes_ok(a, {"stride", "dilation", "padding", "output_padding"}, nd),
          "spatial attributes (stride, dilation, padding, output_padding) of another length than the " +
              std::to_string(nd) + " spatial dims");
  require(edgec::spatial_values_in(a, {"stride", "dilation", "padding", "output_padding"}, 0, INT32_MAX),
          "convolution attributes out of range: stride, dilation, padding and output_padding must lie in [0, 2^31)");
  const int64_t groups = ch.groups = edgec::onednn::declared_attr(c.in.op, "groups").int_value(a);
  require(groups >= 1 && w[0] > 0 && w[1] > 0 && w[0] % groups == 0,
          "groups = " + std::to_string(groups) + " with weights " + shape_string(w) +
              ": expected a positive number dividing the weights' first dim");
  ch.stride = edgec::spatial_ints(a, "stride", nd, 1);
  ch.dilation = edgec::spatial_ints(a, "dilation", nd, 1);
  edgec::spatial_padding(a, nd, ch.pad_begin, ch.pad_end);
  g.dilation.resize(nd);
  g.pad_right.resize(nd);
  for (size_t i = 0; i < nd; ++i) {
    g.dilation[i] = ch.dilation[i] - 1;  // oneDNN counts the gaps
    g.pad_right[i] = ch.pad_end[i];
  }
  if (transposed) {
    // No output padding in oneDNN: it is less right padding.
    const auto op = edgec::spatial_ints(a, "output_padding", nd, 0);
    for (size_t i = 0; i < nd; ++i) g.pad_right[i] -= op[i];
  }
  // oneDNN's weights are (g,) O, I, k...; conv's torch layout [Cout,
  // Cin/g, k...] is exactly that, transposed conv's [Cin, Cout, k...] is
  // the same dims with O and I strides swapped.
  g.wdims = to_dims(w);
  if (!transposed) {
    g.wdims = conv_weights_dims(w, groups);
    g.wstrides = plain_strides(g.wdims);
  } else {
    g.wstrides = plain_strides(to_dims(w));
    std::swap(g.wdims[0], g.wdims[1]);
    std::swap(g.wstrides[0], g.wstrides[1]);
  }
  g.cout = c.shape(c.output())[1];
  // Output channels as the weights (constants with their data) say.
  const int64_t want = transposed ? w[1] * groups : w[0];
  require(g.cout == want, "a convolution whose result channels disagree with its weights: " + std::to_string(g.cout) +
                              ", expected " + std::to_string(want) + " from weights " + shape_string(w));
  g.has_bias = c.in.inputs.size() > 2;
  if (g.has_bias) ch.bias = c.input(2);
  g.const_params = c.is_constant(ch.w) && (!g.has_bias || c.is_constant(c.input(2)));
}

// The chain after the convolution: per-channel affine links (folded into
// constant weights), a residual add, unary links. Marks them fused and
// returns the value the convolution itself writes (before the add).
int32_t find_conv_chain(Ctx& c, const ConvGeometry& g, ConvChain& ch) {
  const int32_t y0 = c.output();
  ch.name = c.in.op;
  const int32_t y = g.const_params ? absorb_affine(c, y0, g.cout, ch.aff, ch.name) : y0;
  if (const int32_t next = sole_consumer(c.d, y); next >= 0 && c.at(next).op == "add" && c.at(next).inputs.size() == 2) {
    const Instruction& add = c.at(next);
    const int32_t r = add.inputs[0] == y ? add.inputs[1] : add.inputs[0];
    const int32_t rp = c.d.producer[static_cast<size_t>(r)];
    if (r != y && c.shape(r) == c.shape(y0) && !c.is_constant(r) && rp < static_cast<int32_t>(c.index) &&
        c.d.slots[static_cast<size_t>(add.outputs[0])].dtype == DType::Float32) {
      ch.residual = r;
      ch.add_at = next;
    }
  }
  if (ch.residual >= 0) {
    c.d.fused[static_cast<size_t>(ch.add_at)] = true;
    ch.out = absorb_eltwise(c, c.at(ch.add_at).outputs[0], ch.after, ch.after_name);
  } else {
    ch.out = absorb_eltwise(c, y, ch.after, ch.after_name);
  }
  return y;
}

// A convolution primitive descriptor and the primitive it makes.
struct BuiltConv {
  dnnl::primitive_desc_base pd;
  std::function<dnnl::primitive()> make;
};

// The oneDNN (de)convolution with a sum post-op when `sum` and `ops` as
// eltwise post-ops after it.
//
// Layout: a 2-D or 3-D convolution writes the layout oneDNN chooses
// (blocked, or channels-last for some 3-D ones) even when its readers need
// plain data (a reorder makes it): oneDNN 2.6's convolutions into plain
// NCHW / NCDHW fall back to im2col + GEMM, 3x slower on a diffusion
// policy's 7x7 stem (244 us against 80 with the reorder), 1.2-2x on its
// small 3x3s, and 4.5x on two 3x3x3 convolutions of a 16x64x64 volume
// (145 ms against 32, one thread). 1-D ones stay plain. With a chosen
// result oneDNN picks the source layout too (the one its producer chose,
// for a chain of convolutions); src_as reorders if not.
BuiltConv make_conv_pd(Ctx& c, const ConvChain& ch, const ConvGeometry& g, bool sum, const std::vector<Eltwise>& ops) {
  const auto& x = c.shape(ch.x);
  const auto& yshape = c.shape(c.output());
  const bool blocked = g.nd >= 2;
  const memory::desc src_want = blocked ? memory::desc(to_dims(x), kF32, memory::format_tag::any) : plain_md(x);
  const memory::desc dst_want =
      blocked ? memory::desc(to_dims(yshape), kF32, memory::format_tag::any) : plain_md(yshape);
  const memory::desc wplain(g.wdims, kF32, g.wstrides);
  const memory::desc wany = c.is_constant(ch.w) ? memory::desc(g.wdims, kF32, memory::format_tag::any) : wplain;
  const memory::desc bmd = g.has_bias || ch.aff.any ? md_of({g.cout}) : memory::desc();
  dnnl::post_ops post;
  if (sum) post.append_sum(1.f);
  append_eltwise(post, ops);
  dnnl::primitive_attr attr = c.d.attr();
  attr.set_post_ops(post);
  if (!g.transposed) {
    dnnl::convolution_forward::desc desc(kInference, algorithm::convolution_direct, src_want, wany, bmd, dst_want,
                                         to_dims(ch.stride), g.dilation, to_dims(ch.pad_begin), g.pad_right);
    dnnl::convolution_forward::primitive_desc pd(desc, attr, c.d.engine);
    return BuiltConv{pd, [pd] { return dnnl::primitive(dnnl::convolution_forward(pd)); }};
  }
  dnnl::deconvolution_forward::desc desc(kInference, algorithm::deconvolution_direct, src_want, wany, bmd, dst_want,
                                         to_dims(ch.stride), g.dilation, to_dims(ch.pad_begin), g.pad_right);
  dnnl::deconvolution_forward::primitive_desc pd(desc, attr, c.d.engine);
  return BuiltConv{pd, [pd] { return dnnl::primitive(dnnl::deconvolution_forward(pd)); }};
}

// The residual add as a binary step in the conv's layout, the unary links
// after it as post-ops (when the add could not be a sum post-op).
void add_residual_step(Ctx& c, const ConvChain& ch, int32_t y) {
  const memory::desc md = c.d.layout(y);
  dnnl::post_ops post;
  append_eltwise(post, ch.after);
  dnnl::primitive_attr attr = c.d.attr();
  attr.set_post_ops(post);
  dnnl::binary::desc desc(algorithm::binary_add, md, md, md);
  dnnl::binary::primitive_desc bpd(desc, attr, c.d.engine);
  memory s0 = c.d.src_as(y, md), s1 = c.d.src_as(ch.residual, md);
  c.d.add(dnnl::binary(bpd), bpd, {{DNNL_ARG_SRC_0, s0}, {DNNL_ARG_SRC_1, s1}, {DNNL_ARG_DST, c.d.dst(ch.out, md)}},
          c.what, "add" + ch.after_name);
}

// The convolution on oneDNN: with the residual accumulated in place (a sum
// post-op) when nothing reads it later and its storage is in the layout
// the convolution writes, else followed by an add step.
void build_onednn_conv(Ctx& c, const ConvChain& ch, const ConvGeometry& g, int32_t y) {
  const std::vector<Eltwise> none;
  // (Not into a delegate output: that is the caller's tensor, not the
  // residual's storage.)
  bool sum = ch.residual >= 0 && !c.d.slots[static_cast<size_t>(ch.out)].io &&
             free_after(c.d, ch.residual, static_cast<int32_t>(c.index), ch.add_at);
  // The eltwise links go after the sum when there is one, else after the conv.
  BuiltConv built = make_conv_pd(c, ch, g, sum, ch.residual >= 0 && !sum ? none : ch.after);
  int32_t reuse = -1;
  if (sum) {
    const SlotState& r = c.d.slots[static_cast<size_t>(ch.residual)];
    const memory::desc chosen = built.pd.dst_desc();
    if (plain_like(chosen, r) && r.blocked_buffer < 0 && r.buffer >= 0) reuse = r.buffer;
    else if (!plain_like(chosen, r) && r.blocked_buffer >= 0 && r.blocked == chosen) reuse = r.blocked_buffer;
    if (reuse < 0) {
      sum = false;
      built = make_conv_pd(c, ch, g, false, none);
    }
  }
  const dnnl::primitive_desc_base& pd = built.pd;

  // Weights and bias, folded when the chain had affine links.
  std::vector<float> folded, fbias;
  if (ch.aff.any) fold_conv_params(c, ch, g.transposed, folded, fbias);
  Args args;
  args[DNNL_ARG_SRC] = c.d.src_as(ch.x, pd.src_desc());
  args[DNNL_ARG_WEIGHTS] = weights_arg(c, ch.w, memory::desc(g.wdims, kF32, g.wstrides), pd.weights_desc(), folded);
  if (ch.aff.any) args[DNNL_ARG_BIAS] = owned_vector(c, fbias);
  else if (g.has_bias) args[DNNL_ARG_BIAS] = c.d.src(c.input(2), md_of({g.cout}));
  // With sum, dst is the residual's storage (read, then written).
  if (sum) (void)c.d.src_as(ch.residual, pd.dst_desc());
  const int32_t conv_out = ch.residual >= 0 && !sum ? y : ch.out;
  args[DNNL_ARG_DST] = c.d.dst(conv_out, pd.dst_desc(), reuse);
  std::string pname = ch.name;
  if (sum) pname += "+sum";
  if (ch.residual < 0 || sum) pname += ch.after_name;
  c.d.add(built.make(), pd, std::move(args), c.what, pname);
  if (ch.residual >= 0 && !sum) add_residual_step(c, ch, y);
}

}  // namespace

Error build_conv(Ctx& c, bool transposed) {
  ConvChain ch;
  ch.x = c.input(0);
  ch.w = c.input(1);
  ConvGeometry g;
  read_conv_geometry(c, transposed, ch, g);
  const int32_t y = find_conv_chain(c, g, ch);
  // The delegate's own kernels where they are faster than oneDNN's.
  if (!transposed && g.const_params && winograd_applies(c, ch)) {
    build_winograd(c, ch);
    return Error::Ok;
  }
  if (!transposed && g.const_params && conv1d_applies(c, ch)) {
    build_conv1d(c, ch);
    return Error::Ok;
  }
  build_onednn_conv(c, ch, g, y);
  return Error::Ok;
}

memory::dims conv_weights_dims(const std::vector<int64_t>& w, int64_t groups) {
  memory::dims dims = to_dims(w);
  if (groups > 1 && !dims.empty()) {
    dims[0] /= groups;
    dims.insert(dims.begin(), groups);
  }
  return dims;
}

memory::desc stored_weights_layout(const Instruction& in, const memory::dims& wdims, memory::data_type type) {
  const std::vector<int64_t>* strides = in.attrs.get_ints("weights_strides");
  const std::vector<int64_t>* blocks = in.attrs.get_ints("weights_blocks");
  const std::vector<int64_t>* block_dims = in.attrs.get_ints("weights_block_dims");
  const int n = static_cast<int>(wdims.size());
  // int8 weights (runtime_quant.cpp) may have oneDNN's compensation after
  // them (flags 1 and 8 of dnnl_memory_extra_flags_t) and flag its scale
  // adjustment (2), always of 1 here: one of 0.5 changes the weights and
  // is never stored.
  const std::vector<int64_t>* extra = in.attrs.get_ints("weights_extra");
  require(type == memory::data_type::s8 || !extra, "weights_extra is for int8 weights only");
  constexpr uint64_t kCompensations = dnnl_memory_extra_flag_compensation_conv_s8s8 |
                                      dnnl_memory_extra_flag_compensation_conv_asymmetric_src |
                                      dnnl_memory_extra_flag_scale_adjust;
  const int all_dims = (1 << std::min(n, DNNL_MAX_NDIMS)) - 1;
  if (extra)
    require(extra->size() == 3 && ((*extra)[0] & ~static_cast<int64_t>(kCompensations)) == 0 && (*extra)[1] >= 0 &&
                (*extra)[1] <= all_dims && (*extra)[2] >= 0 && (*extra)[2] <= all_dims,
            "stored weights extra " + shape_string(*extra) +
                ": expected [flags, compensation mask, asymmetric compensation mask] with flags of oneDNN's "
                "compensations and scale adjustment only (1, 8, 2) and masks over the weights' dims");
  require(strides && blocks && block_dims,
          "stored weights need the attributes weights_strides, weights_blocks and weights_block_dims (ints), "
          "some are missing or not ints");
  require(static_cast<int>(strides->size()) == n && blocks->size() == block_dims->size() &&
              blocks->size() <= DNNL_MAX_NDIMS && n <= DNNL_MAX_NDIMS,
          "stored weights layout with " + std::to_string(strides->size()) + " strides, " +
              std::to_string(blocks->size()) + " blocks and " + std::to_string(block_dims->size()) +
              " block dims for weights dims " + shape_string(wdims) +
              ": expected one stride per dim and one block dim per block (at most " + std::to_string(DNNL_MAX_NDIMS) + ")");
  // Inner blocks: each splits its dim, which must divide evenly (no padding).
  std::vector<int64_t> outer(wdims.begin(), wdims.end());
  int64_t inner = 1;
  for (size_t b = 0; b < blocks->size(); ++b) {
    const int64_t size = (*blocks)[b], dim = (*block_dims)[b];
    require(dim >= 0 && dim < n && size >= 1 && outer[static_cast<size_t>(dim)] % size == 0,
            "stored weights block " + std::to_string(b) + " of " + std::to_string(size) + " along dim " +
                std::to_string(dim) + " of " + shape_string(wdims) +
                ": expected a dim of the weights that the block divides");
    outer[static_cast<size_t>(dim)] /= size;
    inner *= size;
  }
  // Dense: the outer dims, by increasing stride, each step the one before
  // times its extent, starting at the inner block size. Every element then
  // lies inside the stored bytes and no two share a place.
  std::vector<int> order;
  for (int i = 0; i < n; ++i) {
    require(wdims[static_cast<size_t>(i)] > 0 && (*strides)[static_cast<size_t>(i)] >= 0,
            "stored weights strides " + shape_string(*strides) + " for dims " + shape_string(wdims) +
                ": expected positive dims and strides of 0 or more");
    if (outer[static_cast<size_t>(i)] > 1) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return (*strides)[static_cast<size_t>(a)] < (*strides)[static_cast<size_t>(b)]; });
  int64_t expect = inner;
  for (int i : order) {
    require((*strides)[static_cast<size_t>(i)] == expect,
            "stored weights strides " + shape_string(*strides) + " for dims " +
                shape_string(wdims) + " with blocks " + shape_string(*blocks) +
                ": expected a dense layout, dim " + std::to_string(i) + " has stride " +
                std::to_string((*strides)[static_cast<size_t>(i)]) + " where " + std::to_string(expect) + " fits");
    expect *= outer[static_cast<size_t>(i)];
  }
  dnnl_memory_desc_t md{};
  md.ndims = n;
  md.data_type = static_cast<dnnl_data_type_t>(type);
  md.format_kind = dnnl_blocked;
  for (int i = 0; i < n; ++i) {
    md.dims[i] = md.padded_dims[i] = wdims[static_cast<size_t>(i)];
    md.format_desc.blocking.strides[i] = (*strides)[static_cast<size_t>(i)];
  }
  md.extra.scale_adjust = 1.f;
  if (extra) {
    md.extra.flags = static_cast<uint64_t>((*extra)[0]);
    md.extra.compensation_mask = static_cast<int>((*extra)[1]);
    md.extra.asymm_compensation_mask = static_cast<int>((*extra)[2]);
  }
  md.format_desc.blocking.inner_nblks = static_cast<int>(blocks->size());
  for (size_t b = 0; b < blocks->size(); ++b) {
    md.format_desc.blocking.inner_blks[b] = (*blocks)[b];
    md.format_desc.blocking.inner_idxs[b] = (*block_dims)[b];
  }
  return memory::desc(md);
}

Error init_stored_weights(Delegate& d, const Program& p) {
  const auto instructions = p.instructions();
  std::vector<bool> says(instructions.size(), false);
  for (size_t i = 0; i < instructions.size(); ++i) {
    const Instruction& in = instructions[i];
    if (!in.attrs.has("weights_strides") && !in.attrs.has("weights_blocks") && !in.attrs.has("weights_block_dims"))
      continue;
    const std::string what = "onednn: instruction " + std::to_string(i) + " (" + in.op + "): ";
    try {
      const bool quantized = in.op == "qlinear_conv" || in.op == "qlinear_matmul";
      const size_t operand = stored_weights_operand(in.op);
      require((in.op == "conv" || quantized) && in.inputs.size() > operand,
              "stored weights layout on a " + in.op + " with " + std::to_string(in.inputs.size()) +
                  " operands: only a convolution's weights (operand 1) are stored so, or those of a qlinear_conv "
                  "or qlinear_matmul (operand 3)");
      const int32_t w = in.inputs[operand];
      SlotState& st = d.slots.at(static_cast<size_t>(w));
      require(st.kind == SlotKind::Constant,
              "stored weights layout for slot " + std::to_string(w) +
                  ", which is not a constant (state may be replaced at load in its plain layout)");
      memory::desc md;
      if (quantized) {
        require(st.dtype == DType::Int8 && st.shape.size() == 1,
                "stored int8 weights in slot " + std::to_string(w) + " of " + std::string(dtype_name(st.dtype)) +
                    shape_string(st.shape) + ": expected i8 [bytes]");
        md = stored_weights_layout(in, stored_qlinear_weights_dims(in), memory::data_type::s8);
      } else {
        const int64_t groups = edgec::onednn::declared_attr(in.op, "groups").int_value(in.attrs);
        require(st.shape.size() >= 3 && groups >= 1 && st.shape[0] % groups == 0,
                "stored weights of shape " + shape_string(st.shape) + " in " + std::to_string(groups) +
                    " groups: expected rank 3 or more and groups dividing the first dim");
        md = stored_weights_layout(in, conv_weights_dims(st.shape, groups));
      }
      require(md.get_size() == st.nbytes(), "stored weights layout of " + std::to_string(md.get_size()) +
                                                " bytes for slot " + std::to_string(w) + " of " +
                                                std::to_string(st.nbytes()) + " bytes: expected the same size");
      require(st.stored.is_zero() || st.stored == md,
              "slot " + std::to_string(w) + " is stored in another layout by an earlier convolution");
      st.stored = md;
      says[i] = true;
    } catch (const InvalidPayload& e) {
      return fail(Error::InvalidProgram, what + e.what());
    } catch (const dnnl::error& e) {
      return fail(Error::InvalidProgram, what + "oneDNN refuses the stored weights layout: " + e.what());
    }
  }
  // A stored slot is not row-major: every reader must be a convolution that
  // says so, reading it as its weights only.
  for (size_t s = 0; s < d.slots.size(); ++s) {
    if (d.slots[s].stored.is_zero()) continue;
    if (d.is_output[s])
      return fail(Error::InvalidProgram, "onednn: slot " + std::to_string(s) +
                                              " is stored in a blocked layout and is a delegate output (outputs are row-major)");
    for (int32_t reader : d.consumers[s]) {
      const Instruction& in = instructions[static_cast<size_t>(reader)];
      bool ok = says[static_cast<size_t>(reader)];
      const size_t operand = stored_weights_operand(in.op);
      for (size_t k = 0; k < in.inputs.size() && ok; ++k)
        ok = (in.inputs[k] == static_cast<int32_t>(s)) == (k == operand);
      if (!ok)
        return fail(Error::InvalidProgram, "onednn: instruction " + std::to_string(reader) + " (" + in.op +
                                                ") reads slot " + std::to_string(s) +
                                                ", which is stored in a blocked layout: expected only convolutions "
                                                "that say so, reading it as their weights");
    }
  }
  return Error::Ok;
}

namespace {

// Below this many multiply-adds (and for K up to kPrepackMaxK) a matmul
// by constant weights runs on gemm_prepacked_f32: weights packed once at
// init, the activations read in place. oneDNN 2.6's f32 matmul repacks
// per call, which dominates small products (a transformer's 20 x 64 x 192
// projection: 9-13 us against 4-9 us); from about 100 x 512 x 3200 on,
// oneDNN's cache blocking wins.
constexpr double kPrepackMaxMacs = 1 << 25;
constexpr int64_t kPrepackMaxK = 1024;
// Where oneDNN runs AVX-512 and the weights are laid out for it at init
// (build_matmul), its matmul is the faster one from about 2^22
// multiply-adds on (the kernel's tiles are 8 wide): Swin-T, whose twelve
// 28.9M multiply-add projections fall between the two, runs in 49 ms at
// one thread with them on oneDNN against 52 ms on the kernel; with AVX2
// (ONEDNN_MAX_CPU_ISA=AVX2) it is 88 ms either way.
constexpr double kPrepackMaxMacsAvx512 = 1 << 22;

double prepack_max_macs() {
  const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  const auto avx512 = static_cast<unsigned>(dnnl::cpu_isa::avx512_core);
  return (isa & avx512) == avx512 ? kPrepackMaxMacsAvx512 : kPrepackMaxMacs;
}
// A matrix-vector product (one row) reads each weight once either way:
// packing a copy of large weights for it costs load time and memory
// (ResNet-18's 2 MB classifier) and saves nothing measurable.
constexpr int64_t kPrepackMaxVectorWeights = int64_t{1} << 18;  // floats (1 MiB)

// Builds y = act(a @ b + bias) as a prepacked loop step when b is constant
// (batch dims of 1), a is not broadcast against it, and the activations
// are ReLU or ones the loop has; false (nothing built) otherwise. a, b, o
// are the product's dims after numpy's 1-D and batch rules.
bool build_prepacked_matmul(Ctx& c, const memory::dims& a, const memory::dims& b, const memory::dims& o,
                            int32_t bias, const std::vector<Eltwise>& ops, int32_t y, std::string& name) {
  const int32_t as = c.input(0), bs = c.input(1);
  const size_t r = o.size();
  if (!c.is_constant(bs)) return false;
  for (size_t i = 0; i + 2 < r; ++i)
    if (b[i] != 1 || a[i] != o[i]) return false;
  const int64_t K = a[r - 1], N = o[r - 1];
  int64_t M = 1;
  for (size_t i = 0; i + 1 < r; ++i) M *= o[i];
  if (K <= 0 || N <= 0 || M <= 0 || K > kPrepackMaxK ||
      static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K) > prepack_max_macs() ||
      (M == 1 && K * N > kPrepackMaxVectorWeights))
    return false;
  const bool relu = just_relu(ops);
  if (!ops.empty() && !relu && !loop_eltwise_supported(ops)) return false;
  Delegate& d = c.d;
  // The kernel writes floats: a fused link declaring another type (only a
  // crafted payload has one) goes to oneDNN's matmul, whose destination
  // check refuses it.
  if (d.slots[static_cast<size_t>(y)].dtype != DType::Float32) return false;
  require(d.slots[static_cast<size_t>(as)].numel() == M * K && d.slots[static_cast<size_t>(bs)].numel() == K * N &&
              d.slots[static_cast<size_t>(y)].numel() == M * N,
          "a matmul of " + shape_string(c.shape(as)) + " and " + shape_string(c.shape(bs)) + " into " +
              shape_string(c.shape(y)) + ": expected " + std::to_string(M) + "x" + std::to_string(K) + " times " +
              std::to_string(K) + "x" + std::to_string(N));
  auto* packed =
      reinterpret_cast<float*>(d.init_memory.allocate(static_cast<size_t>(gemm_prepacked_floats(K, N)) * sizeof(float)));
  if (!packed) throw std::bad_alloc();
  gemm_prepack_b(K, N, reinterpret_cast<const float*>(d.slots[static_cast<size_t>(bs)].ptr), N, 1, packed);
  const float* bias_values = bias >= 0 ? reinterpret_cast<const float*>(d.slots[static_cast<size_t>(bias)].ptr) : nullptr;
  d.need_plain(as);
  d.define_plain(y);
  const int threads = d.step_threads;
  const std::vector<Eltwise> rest = relu ? std::vector<Eltwise>{} : ops;
  d.add_loop(
      [&d, as, y, M, N, K, packed, bias_values, relu, rest, threads]() {
        auto* out = reinterpret_cast<float*>(d.slots[static_cast<size_t>(y)].ptr);
        gemm_prepacked_f32(M, N, K, reinterpret_cast<const float*>(d.slots[static_cast<size_t>(as)].ptr), K, packed,
                           bias_values, out, N, relu, capped_threads(threads));
        apply_eltwise(rest, out, M * N);
        return Error::Ok;
      },
      c.what, name + " (prepacked)");
  return true;
}

}  // namespace

// numpy matmul: a 1-D operand gains a dim of 1 (dropped from the result,
// which the output slot's plain layout already reflects), batch dims
// broadcast. A following add of a constant along the last dim (a bias) is
// a binary post-op, unary links eltwise post-ops.
Error build_matmul(Ctx& c) {
  auto a = dnnl_dims(c.shape(c.input(0)));
  auto b = dnnl_dims(c.shape(c.input(1)));
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  const size_t r = std::max(a.size(), b.size());
  a.insert(a.begin(), r - a.size(), 1);
  b.insert(b.begin(), r - b.size(), 1);
  memory::dims o(r);
  for (size_t i = 0; i + 2 < r; ++i) o[i] = std::max(a[i], b[i]);
  o[r - 2] = a[r - 2];
  o[r - 1] = b[r - 1];
  int32_t y = c.output();
  std::string name = "matmul";
  dnnl::post_ops post;
  int32_t bias = -1;
  memory::dims bias_dims;
  // The result slot's shape is o without the dims a 1-D operand gained.
  if (const int32_t next = sole_consumer(c.d, y); next >= 0 && c.at(next).op == "add" && c.at(next).inputs.size() == 2) {
    const Instruction& add = c.at(next);
    const int32_t other = add.inputs[0] == y ? add.inputs[1] : add.inputs[0];
    const auto& os = c.shape(other);
    int64_t n = 1;
    for (int64_t v : os) n *= v;
    if (other != y && c.is_constant(other) && c.d.slots[static_cast<size_t>(other)].dtype == DType::Float32 &&
        !os.empty() && os.back() == o[r - 1] && n == os.back() && os.size() <= r &&
        c.shape(add.outputs[0]) == c.shape(y)) {
      bias = other;
      bias_dims.assign(r, 1);
      bias_dims[r - 1] = o[r - 1];
      c.d.fused[static_cast<size_t>(next)] = true;
      name += "+add";
      y = add.outputs[0];
    }
  }
  std::vector<Eltwise> ops;
  y = absorb_eltwise(c, y, ops, name);
  if (build_prepacked_matmul(c, a, b, o, bias, ops, y, name)) return Error::Ok;
  // Constant weights with batch dims of 1 (a linear layer's): the batch
  // dims of a fold into its rows, [M, K] x [K, N] (a's plain data is that
  // matrix), and the weights are reordered once, at init, into the layout
  // oneDNN chooses. A batched product of a broadcast matrix instead runs
  // one small product per batch entry; torch's attention in-projection of
  // [T, 1, C] is T matrix-vector products, each reading all the weights.
  const bool fold = c.is_constant(c.input(1)) &&
                    std::all_of(b.begin(), b.end() - 2, [](int64_t v) { return v == 1; });
  if (fold && r > 2) {
    int64_t m = 1;
    for (size_t i = 0; i + 1 < r; ++i) m *= o[i];
    a = {m, a[r - 1]};
    b = {b[r - 2], b[r - 1]};
    o = {m, o[r - 1]};
    if (bias >= 0) bias_dims = {1, o[1]};
  }
  if (bias >= 0) post.append_binary(algorithm::binary_add, md_of(bias_dims));
  append_eltwise(post, ops);
  dnnl::primitive_attr attr = c.d.attr();
  attr.set_post_ops(post);
  const memory::desc amd = md_of(a), bmd = md_of(b), omd = md_of(o);
  const memory::desc bwant = fold ? memory::desc(b, kF32, memory::format_tag::any) : bmd;
  dnnl::matmul::desc desc(amd, bwant, omd);
  dnnl::matmul::primitive_desc pd(desc, attr, c.d.engine);
  Args args{{DNNL_ARG_SRC, c.d.src(c.input(0), amd)},
            {DNNL_ARG_WEIGHTS, fold ? weights_arg(c, c.input(1), bmd, pd.weights_desc(), {})
                                    : c.d.src(c.input(1), bmd)}};
  if (bias >= 0) args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] = c.d.src(bias, md_of(bias_dims));
  args[DNNL_ARG_DST] = c.d.dst(y, omd);
  c.d.add(dnnl::matmul(pd), pd, std::move(args), c.what, name);
  return Error::Ok;
}

}  // namespace edgec::runtime::onednn
