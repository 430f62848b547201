// The recurrent layers on oneDNN's RNN primitives: lstm on lstm_forward
// (with peepholes when P is given), gru on gru_forward or, with
// linear_before_reset, lbr_gru_forward, rnn on vanilla_rnn_forward. The
// partitioner (op_table.cpp, check_recurrent) takes only what these compute
// exactly as ONNX (src/kernels/recurrent.cpp): default gate functions, no
// clip, no input_forget, no sequence_lens, constant weights.
//
// The maps from ONNX's operands, made once at init:
// - W [dirs, G*H, input] and R [dirs, G*H, H] become oneDNN's ldigo
//   weights, gates reordered (ONNX's LSTM gates are i, o, f, c; oneDNN's i,
//   f, c, o; GRU's z, r, h are oneDNN's u, r, o), then reordered into the
//   layout the primitive chose (format any).
// - B [dirs, 2*G*H] (Wb then Rb) becomes the ldgo bias Wb + Rb; lbr_gru's
//   fourth gate is the candidate's recurrent bias Rbh, which the reset
//   gate multiplies, as in ONNX's linear_before_reset.
// - P [dirs, 3H] (i, o, f) becomes the ldgo peephole weights (i, f, o).
// - X [seq, batch, input] is src_layer (tnc); initial_h and initial_c
//   [dirs, batch, H] are src_iter and src_iter_c (ldnc, one layer), Y_h and
//   Y_c dst_iter and dst_iter_c, with the same bytes.
// - Y [seq, dirs, batch, H] is dst_layer (tnc) for one direction; for
//   bidirectional_concat's [seq, batch, 2H] a reorder step moves it into
//   ONNX's layout.
// The kernel's workspace result is zero (the kernel leaves it so).
#include <cstring>

#include "backends/onednn/op_table.h"
#include "backends/onednn/runtime_build.h"

namespace edgec::runtime::onednn {
namespace {

using dnnl::memory;
using tag = memory::format_tag;
constexpr auto kF32 = memory::data_type::f32;
constexpr auto kInference = dnnl::prop_kind::forward_inference;

// A plain f32 vector made at init, as a memory object of layout `md`.
memory owned_plain(Ctx& c, const memory::desc& md, const std::vector<float>& v) {
  require(md.get_size() == v.size() * sizeof(float), "recurrent weights of an unexpected size");
  std::byte* at = c.d.init_memory.allocate(md.get_size());
  if (!at) throw std::bad_alloc();
  std::memcpy(at, v.data(), md.get_size());
  memory m(md, c.d.engine, at);
  c.d.owned.push_back(m);
  return m;
}

// `plain` (made at init) in the primitive's layout `chosen`.
memory owned_as(Ctx& c, const memory::desc& plain_md, const std::vector<float>& v, const memory::desc& chosen) {
  memory from = owned_plain(c, plain_md, v);
  if (chosen == plain_md) return from;
  std::byte* at = c.d.init_memory.allocate(chosen.get_size());
  if (!at) throw std::bad_alloc();
  memory to(chosen, c.d.engine, at);
  reorder_at_init(c.d, from, to);
  c.d.owned.push_back(to);
  return to;
}

}  // namespace

Error build_recurrent(Ctx& c) {
  const std::string_view op = c.in.op;
  const bool lstm = op == "lstm", gru = op == "gru";
  const bool lbr = gru && c.bool_attr("linear_before_reset");
  const int64_t G = lstm ? 4 : gru ? 3 : 1;
  const int64_t GB = lbr ? 4 : G;  // bias gates
  const std::string_view direction = edgec::onednn::declared_attr(op, "direction").string_value(c.attrs());
  const int64_t D = direction == "bidirectional" ? 2 : 1;
  const int64_t H = c.int_attr("hidden_size");
  const auto& xs = c.shape(c.input(0));
  require(xs.size() == 3, "X of rank " + std::to_string(xs.size()) + ", expected 3");
  const int64_t T = xs[0], N = xs[1], I = xs[2];
  // Optional operands: -1 when left out (absent, or the empty [0] tensor).
  auto operand = [&](size_t i) -> int32_t {
    if (i >= c.in.inputs.size()) return -1;
    const int32_t s = c.in.inputs[i];
    return c.d.slots.at(static_cast<size_t>(s)).numel() == 0 ? -1 : s;
  };
  const int32_t w = c.input(1), r = c.input(2), b = operand(3), h0 = operand(5);
  const int32_t c0 = lstm ? operand(6) : -1, p = lstm ? operand(7) : -1;
  if (operand(4) >= 0) return bad(c, "sequence_lens, which the delegate does not take");
  if (c.float_attr("clip") != 0.0 || (lstm && c.bool_attr("input_forget")))
    return bad(c, "clip or input_forget, which the delegate does not take");
  for (int32_t s : {w, r, b, p})
    if (s >= 0 && !c.is_constant(s))
      return bad(c, "weights that are not constants, which the delegate does not take");
  require(c.shape(w) == std::vector<int64_t>{D, G * H, I} && c.shape(r) == std::vector<int64_t>{D, G * H, H},
          "W " + shape_string(c.shape(w)) + " or R " + shape_string(c.shape(r)) + " do not fit X " +
              shape_string(xs) + " and hidden_size " + std::to_string(H));
  if (b >= 0 && c.shape(b) != std::vector<int64_t>{D, 2 * G * H})
    throw InvalidPayload("B of shape " + shape_string(c.shape(b)));
  if (p >= 0 && c.shape(p) != std::vector<int64_t>{D, 3 * H})
    throw InvalidPayload("P of shape " + shape_string(c.shape(p)));
  for (int32_t s : {h0, c0})
    if (s >= 0 && c.shape(s) != std::vector<int64_t>{D, N, H})
      throw InvalidPayload("an initial state of shape " + shape_string(c.shape(s)));
  // The activation (rnn): the check took tanh, relu and sigmoid only.
  auto activation = dnnl::algorithm::eltwise_tanh;
  if (const auto* codes = c.attrs().get_ints("activations"); !lstm && !gru && codes && !codes->empty()) {
    if ((*codes)[0] == 2) activation = dnnl::algorithm::eltwise_relu;
    else if ((*codes)[0] == 0) activation = dnnl::algorithm::eltwise_logistic;
    else if ((*codes)[0] != 1) return bad(c, "an rnn activation oneDNN does not have");
  }

  // Weights and biases in oneDNN's gate order, plain ldigo / ldgo.
  auto gate = [&](int64_t g) -> int64_t {
    static constexpr int64_t kLstm[] = {0, 2, 3, 1};  // oneDNN i, f, c, o from ONNX i, o, f, c
    return lstm ? kLstm[g] : g;
  };
  auto ldigo = [&](int32_t slot, int64_t in) {
    const auto* src = reinterpret_cast<const float*>(c.d.slots[static_cast<size_t>(slot)].ptr);
    std::vector<float> v(static_cast<size_t>(D * in * G * H));
    for (int64_t d = 0; d < D; ++d)
      for (int64_t i = 0; i < in; ++i)
        for (int64_t g = 0; g < G; ++g)
          for (int64_t o = 0; o < H; ++o)
            v[static_cast<size_t>(((d * in + i) * G + g) * H + o)] = src[(d * G * H + gate(g) * H + o) * in + i];
    return v;
  };
  std::vector<float> bias(static_cast<size_t>(D * GB * H), 0.0f);
  if (b >= 0) {
    const auto* src = reinterpret_cast<const float*>(c.d.slots[static_cast<size_t>(b)].ptr);
    for (int64_t d = 0; d < D; ++d) {
      const float* wb = src + d * 2 * G * H;
      const float* rb = wb + G * H;
      for (int64_t g = 0; g < G; ++g)
        for (int64_t o = 0; o < H; ++o) {
          const int64_t k = gate(g) * H + o;
          // lbr_gru: the candidate's Rbh is a gate of its own (below).
          bias[static_cast<size_t>((d * GB + g) * H + o)] = wb[k] + (lbr && g == 2 ? 0.0f : rb[k]);
        }
      if (lbr)
        for (int64_t o = 0; o < H; ++o) bias[static_cast<size_t>((d * GB + 3) * H + o)] = rb[2 * H + o];
    }
  }

  const auto dir = D == 2 ? dnnl::rnn_direction::bidirectional_concat
                          : direction == "reverse" ? dnnl::rnn_direction::unidirectional_right2left
                                                   : dnnl::rnn_direction::unidirectional_left2right;
  const memory::desc src_layer({T, N, I}, kF32, tag::tnc), dst_layer({T, N, D * H}, kF32, tag::tnc);
  const memory::desc state({1, D, N, H}, kF32, tag::ldnc);
  const memory::desc wl_any({1, D, I, G, H}, kF32, tag::any), wi_any({1, D, H, G, H}, kF32, tag::any);
  const memory::desc wl_plain({1, D, I, G, H}, kF32, tag::ldigo), wi_plain({1, D, H, G, H}, kF32, tag::ldigo);
  const memory::desc bias_md({1, D, GB, H}, kF32, tag::ldgo), peephole_md({1, D, 3, H}, kF32, tag::ldgo);
  // oneDNN's LSTM takes both initial states or neither: one left out is
  // zeros of its own (made at init) when the other is given.
  const bool states = h0 >= 0 || c0 >= 0;
  const memory::desc none;
  const memory::desc& h0_md = states ? state : none;
  const memory::desc& c0_md = states ? state : none;

  // The primitive and the layouts it chose for its weights.
  dnnl::primitive prim;
  memory::desc wl_md, wi_md;
  auto made = [&](const auto& pd) {
    wl_md = pd.weights_layer_desc();
    wi_md = pd.weights_iter_desc();
  };
  dnnl::primitive_desc_base base_pd;
  if (lstm) {
    using L = dnnl::lstm_forward;
    L::primitive_desc pd =
        p >= 0 ? L::primitive_desc(L::desc(kInference, dir, src_layer, h0_md, c0_md, wl_any, wi_any, peephole_md,
                                           bias_md, dst_layer, state, state),
                                   c.d.attr(), c.d.engine)
               : L::primitive_desc(L::desc(kInference, dir, src_layer, h0_md, c0_md, wl_any, wi_any, bias_md,
                                           dst_layer, state, state),
                                   c.d.attr(), c.d.engine);
    made(pd);
    prim = L(pd);
    base_pd = pd;
  } else if (lbr) {
    using L = dnnl::lbr_gru_forward;
    L::primitive_desc pd(L::desc(kInference, dir, src_layer, h0_md, wl_any, wi_any, bias_md, dst_layer, state),
                         c.d.attr(), c.d.engine);
    made(pd);
    prim = L(pd);
    base_pd = pd;
  } else if (gru) {
    using L = dnnl::gru_forward;
    L::primitive_desc pd(L::desc(kInference, dir, src_layer, h0_md, wl_any, wi_any, bias_md, dst_layer, state),
                         c.d.attr(), c.d.engine);
    made(pd);
    prim = L(pd);
    base_pd = pd;
  } else {
    using L = dnnl::vanilla_rnn_forward;
    L::primitive_desc pd(L::desc(kInference, activation, dir, src_layer, h0_md, wl_any, wi_any, bias_md, dst_layer,
                                 state),
                         c.d.attr(), c.d.engine);
    made(pd);
    prim = L(pd);
    base_pd = pd;
  }

  Args args;
  args[DNNL_ARG_WEIGHTS_LAYER] = owned_as(c, wl_plain, ldigo(w, I), wl_md);
  args[DNNL_ARG_WEIGHTS_ITER] = owned_as(c, wi_plain, ldigo(r, H), wi_md);
  args[DNNL_ARG_BIAS] = owned_plain(c, bias_md, bias);
  if (p >= 0) {
    const auto* src = reinterpret_cast<const float*>(c.d.slots[static_cast<size_t>(p)].ptr);
    std::vector<float> v(static_cast<size_t>(D * 3 * H));
    static constexpr int64_t kPeep[] = {0, 2, 1};  // oneDNN i, f, o from ONNX i, o, f
    for (int64_t d = 0; d < D; ++d)
      for (int64_t g = 0; g < 3; ++g)
        for (int64_t o = 0; o < H; ++o)
          v[static_cast<size_t>((d * 3 + g) * H + o)] = src[d * 3 * H + kPeep[g] * H + o];
    args[DNNL_ARG_WEIGHTS_PEEPHOLE] = owned_plain(c, peephole_md, v);
  }
  args[DNNL_ARG_SRC_LAYER] = c.d.src(c.input(0), src_layer);
  const std::vector<float> zeros(states && (h0 < 0 || (lstm && c0 < 0)) ? static_cast<size_t>(D * N * H) : 0, 0.0f);
  if (states) args[DNNL_ARG_SRC_ITER] = h0 >= 0 ? c.d.src(h0, state) : owned_plain(c, state, zeros);
  if (states && lstm) args[DNNL_ARG_SRC_ITER_C] = c0 >= 0 ? c.d.src(c0, state) : owned_plain(c, state, zeros);
  const int32_t y = c.output(0), yh = c.output(1), yc = lstm ? c.output(2) : -1;
  const int32_t ws = c.output(lstm ? 3 : 2);
  memory ymem;
  if (D == 1) {
    args[DNNL_ARG_DST_LAYER] = c.d.dst(y, dst_layer);
  } else {
    // bidirectional_concat writes [seq, batch, dirs, H]; Y is [seq, dirs,
    // batch, H]: the primitive writes a buffer of its own, a reorder moves it.
    std::byte* at = c.d.init_memory.allocate(dst_layer.get_size());
    if (!at) throw std::bad_alloc();
    ymem = memory(dst_layer, c.d.engine, at);
    c.d.owned.push_back(ymem);
    args[DNNL_ARG_DST_LAYER] = ymem;
  }
  args[DNNL_ARG_DST_ITER] = c.d.dst(yh, state);
  if (lstm) args[DNNL_ARG_DST_ITER_C] = c.d.dst(yc, state);
  c.d.add(prim, base_pd, std::move(args), c.what, std::string(op) + (lbr ? " (lbr)" : ""));
  if (D == 2) {
    const memory::desc from({T, D, N, H}, kF32, memory::dims{N * D * H, H, D * H, 1});
    const memory::desc to = plain_md(c.shape(y));
    memory src(from, c.d.engine, ymem.get_data_handle());
    c.d.owned.push_back(src);
    dnnl::reorder::primitive_desc pd(c.d.engine, from, c.d.engine, to, c.d.attr());
    c.d.add(dnnl::reorder(pd), pd, {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, c.d.dst(y, to)}}, c.what,
            "reorder (" + std::string(op) + " Y)");
  }
  // The workspace, when read: zero, as the kernel leaves it.
  if (c.d.is_output[static_cast<size_t>(ws)] || !c.d.consumers[static_cast<size_t>(ws)].empty()) {
    c.d.define_plain(ws);
    Delegate* d = &c.d;
    c.d.add_loop(
        [d, ws] {
          const SlotState& st = d->slots[static_cast<size_t>(ws)];
          std::memset(st.ptr, 0, st.nbytes());
          return Error::Ok;
        },
        c.what, std::string(op) + " workspace");
  }
  return Error::Ok;
}

}  // namespace edgec::runtime::onednn
