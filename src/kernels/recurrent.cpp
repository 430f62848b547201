// Recurrent layers: rnn, gru and lstm, with the meaning of ONNX's RNN, GRU
// and LSTM operators on time-major X [seq, batch, input] (the importer
// permutes batch-first models).
//
// The three share one loop (`run_direction`): per direction and time step,
// the input and recurrent products are two gemm_f32 calls into a workspace
// (a last result the shape function sizes, so the runtime plans it like
// any other value and the kernel never allocates; left zero), then a per-cell pass
// applies the gates. Each batch entry has its own length (sequence_lens):
// the reverse direction starts at its last valid step, the steps past it
// leave Y zero and the state as it was, so Y_h and Y_c hold the state at
// the last valid step, and zero for an entry of length 0 (as ONNX Runtime's
// LSTM and GRU do; ONNX's spec leaves both open).
//
// Operands after R are optional and in ONNX's order; one absent before a
// present one is passed as an empty tensor (the importer's convention),
// one absent at the end is not passed.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "kernels/elementwise_math.h"
#include "kernels/families.h"
#include "kernels/gemm.h"
#include "kernels/kernel_checks.h"

namespace edgec {
namespace {

enum class Cell { Rnn, Gru, Lstm };

// The activation functions ONNX lets the layers use, by the code the
// `activations` attribute holds (ONNX's names are strings; edgec's
// attributes have no string lists).
enum Act : int64_t {
  kSigmoid = 0,
  kTanh,
  kRelu,
  kAffine,
  kLeakyRelu,
  kThresholdedRelu,
  kScaledTanh,
  kHardSigmoid,
  kElu,
  kSoftsign,
  kSoftplus,
  kNumActs,
};

// The attributes of the three operators, declared once: the rows at the end
// of this file and the kernel read them.
struct RecurrentDecls {
  AttrDecl hidden_size = required(attr_int("hidden_size", 1, AttrRule::Positive));
  AttrDecl direction = attr_string("direction", "forward", {"forward", "reverse", "bidirectional"});
  /// Codes (Act), num_funcs per direction, forward's first; absent: the
  /// cell's defaults (sigmoid, tanh, tanh; sigmoid, tanh; tanh).
  AttrDecl activations = attr_ints("activations", AttrRule::NonNegative);
  /// One alpha and one beta per activation (ignored by those without).
  AttrDecl activation_alpha = attr_floats("activation_alpha");
  AttrDecl activation_beta = attr_floats("activation_beta");
  /// Bounds the gates' pre-activations to [-clip, clip]; 0: no clip.
  AttrDecl clip = attr_float("clip", 0.0, AttrRule::NonNegative);
  AttrDecl input_forget = attr_bool("input_forget", false);                // lstm
  AttrDecl linear_before_reset = attr_bool("linear_before_reset", false);  // gru
};

constexpr DTypeSet kRecurrentTypes = {DType::Float32};

int gates_of(Cell cell) { return cell == Cell::Lstm ? 4 : cell == Cell::Gru ? 3 : 1; }
int funcs_of(Cell cell) { return cell == Cell::Lstm ? 3 : cell == Cell::Gru ? 2 : 1; }
const char* name_of(Cell cell) { return cell == Cell::Lstm ? "lstm" : cell == Cell::Gru ? "gru" : "rnn"; }

struct Activation {
  int64_t code = kTanh;
  float alpha = 0.0f;
  float beta = 0.0f;

  float operator()(float x) const {
    switch (code) {
      case kSigmoid: return 1.0f / (1.0f + vexp(-x));
      case kTanh: return vtanh(x);
      case kRelu: return std::max(x, 0.0f);
      case kAffine: return alpha * x + beta;
      case kLeakyRelu: return x >= 0.0f ? x : alpha * x;
      case kThresholdedRelu: return x > alpha ? x : 0.0f;
      case kScaledTanh: return alpha * std::tanh(beta * x);
      case kHardSigmoid: return std::clamp(alpha * x + beta, 0.0f, 1.0f);
      case kElu: return x >= 0.0f ? x : alpha * (std::exp(x) - 1.0f);
      case kSoftsign: return x / (1.0f + std::fabs(x));
      default: return std::log1p(std::exp(x));  // softplus
    }
  }
};

// `a` over v[0..n): the default functions (sigmoid, tanh) in loops the
// compiler vectorizes (elementwise_math.h); libm's scalar calls were most of
// the layers' time at small sizes.
void apply(const Activation& a, float* v, int64_t n) {
  if (a.code == kSigmoid) {
    for (int64_t j = 0; j < n; ++j) v[j] = 1.0f / (1.0f + vexp(-v[j]));
  } else if (a.code == kTanh) {
    for (int64_t j = 0; j < n; ++j) v[j] = vtanh(v[j]);
  } else {
    for (int64_t j = 0; j < n; ++j) v[j] = a(v[j]);
  }
}

void clip_all(float* v, int64_t n, float clip) {
  if (clip > 0.0f)
    for (int64_t j = 0; j < n; ++j) v[j] = std::clamp(v[j], -clip, clip);
}

struct Layer {
  Cell cell = Cell::Lstm;
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1;
  bool reverse_only = false;
  float clip = 0.0f;
  bool input_forget = false;
  bool linear_before_reset = false;
  Activation acts[2][3];  // [direction][function]
  // Operands (null data: absent).
  const Tensor* x = nullptr;
  const Tensor* w = nullptr;
  const Tensor* r = nullptr;
  const Tensor* b = nullptr;
  const Tensor* lens = nullptr;
  const Tensor* h0 = nullptr;
  const Tensor* c0 = nullptr;
  const Tensor* p = nullptr;
  float* y = nullptr;
  float* yh = nullptr;
  float* yc = nullptr;
  float* ws = nullptr;
  int64_t ws_cols = 0;
};

int64_t workspace_cols(Cell cell, int64_t hidden) { return 2 * gates_of(cell) * hidden + hidden; }

float at2(const Tensor& t, int64_t i, int64_t j) {
  return static_cast<const float*>(t.data)[i * t.strides[0] + j * t.strides[1]];
}
float at3(const Tensor& t, int64_t i, int64_t j, int64_t k) {
  return static_cast<const float*>(t.data)[i * t.strides[0] + j * t.strides[1] + k * t.strides[2]];
}

int64_t length_of(const Layer& L, int64_t b) {
  if (L.lens == nullptr) return L.seq;
  const Tensor& t = *L.lens;
  const int64_t v = t.dtype == DType::Int32 ? static_cast<const int32_t*>(t.data)[b * t.strides[0]]
                                            : static_cast<const int64_t*>(t.data)[b * t.strides[0]];
  return v;
}

// Small layers (the streaming models': a few hidden units, batch 1) spend
// more on gemm_f32's packing of W and R, redone at every step, than on the
// products. Their W^T and R^T are laid out once per direction on the stack
// (the runtime allocates nothing while it runs) and each step's products
// are rows of multiply-adds the compiler vectorizes.
constexpr int64_t kSmallWeights = 16384;  // floats: 64 KiB
constexpr int64_t kSmallBatch = 8;

// y[0..n) += sum_k x[k * xs] * wt[k * ld + j].
void small_product(int64_t K, int64_t n, const float* x, int64_t xs, const float* wt, int64_t ld, float* y) {
  for (int64_t k = 0; k < K; ++k) {
    const float a = x[k * xs];
    const float* row = wt + k * ld;
    for (int64_t j = 0; j < n; ++j) y[j] += a * row[j];
  }
}

// One direction d: the state lives in Y_h (and Y_c) from start to end.
void run_direction(const Layer& L, int64_t d, bool reverse, int num_threads) {
  const int64_t H = L.hidden;
  const int64_t G = gates_of(L.cell);
  const int64_t B = L.batch;
  float* h = L.yh + d * B * H;
  float* c = L.yc ? L.yc + d * B * H : nullptr;
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t j = 0; j < H; ++j) {
      h[b * H + j] = L.h0 ? at3(*L.h0, d, b, j) : 0.0f;
      if (c) c[b * H + j] = L.c0 ? at3(*L.c0, d, b, j) : 0.0f;
    }
  }
  const Tensor& x = *L.x;
  const Tensor& w = *L.w;
  const Tensor& r = *L.r;
  const float* xd = static_cast<const float*>(x.data);
  const float* wd = static_cast<const float*>(w.data) + d * w.strides[0];
  const float* rd = static_cast<const float*>(r.data) + d * r.strides[0];
  const Activation* act = L.acts[d];
  // Workspace row b: gates [G*H] (input part and biases; lstm and rnn add
  // the recurrent part too), rec [G*H] (gru's recurrent part), rh [H].
  const int64_t gates_off = 0, rec_off = G * H, rh_off = 2 * G * H;
  const bool split_rec = L.cell == Cell::Gru;
  // X_t W^T is one product when every entry is at the same time step, else
  // one row at a time (the reverse direction with several lengths).
  bool same_time = true;
  for (int64_t b = 1; b < B && reverse && L.lens != nullptr; ++b) same_time &= length_of(L, b) == length_of(L, 0);
  const int64_t GH = G * H;
  const bool small = B <= kSmallBatch && (L.input + H) * GH <= kSmallWeights;
  float wt[kSmallWeights];  // W^T [input, G*H], then R^T [H, G*H]
  float* rt = wt + L.input * GH;
  if (small) {
    for (int64_t n = 0; n < GH; ++n) {
      for (int64_t k = 0; k < L.input; ++k) wt[k * GH + n] = wd[n * w.strides[1] + k * w.strides[2]];
      for (int64_t k = 0; k < H; ++k) rt[k * GH + n] = rd[n * r.strides[1] + k * r.strides[2]];
    }
  }

  for (int64_t s = 0; s < L.seq; ++s) {
    // Biases first, then the products accumulate onto them.
    for (int64_t b = 0; b < B; ++b) {
      float* g = L.ws + b * L.ws_cols;
      for (int64_t k = 0; k < G * H; ++k) {
        const float wb = L.b ? at2(*L.b, d, k) : 0.0f;
        const float rb = L.b ? at2(*L.b, d, G * H + k) : 0.0f;
        if (split_rec) {
          g[gates_off + k] = wb;
          g[rec_off + k] = rb;
        } else {
          g[gates_off + k] = wb + rb;
        }
      }
    }
    // X_t W^T.
    if (small) {
      for (int64_t b = 0; b < B; ++b) {
        const int64_t len = length_of(L, b);
        if (s >= len) continue;
        const int64_t t = reverse ? len - 1 - s : s;
        small_product(L.input, GH, xd + t * x.strides[0] + b * x.strides[1], x.strides[2], wt, GH,
                      L.ws + b * L.ws_cols + gates_off);
      }
    } else if (same_time && B > 0) {
      // Forward, every entry is at step s (an entry past its length is
      // computed and ignored); reverse, every entry has the same length.
      const int64_t len = reverse ? length_of(L, 0) : L.seq;
      const int64_t t = reverse ? len - 1 - s : s;
      if (s < len)
        gemm_f32(B, G * H, L.input, xd + t * x.strides[0], x.strides[1], x.strides[2], wd, w.strides[2],
                 w.strides[1], L.ws + gates_off, L.ws_cols, true, num_threads);
    } else {
      for (int64_t b = 0; b < B; ++b) {
        const int64_t len = length_of(L, b);
        if (s >= len) continue;
        const int64_t t = reverse ? len - 1 - s : s;
        gemm_f32(1, G * H, L.input, xd + t * x.strides[0] + b * x.strides[1], 0, x.strides[2], wd, w.strides[2],
                 w.strides[1], L.ws + b * L.ws_cols + gates_off, L.ws_cols, true, num_threads);
      }
    }
    // H_{t-1} R^T (gru without linear_before_reset: the z and r parts only;
    // its h part multiplies r (.) H_{t-1}, known after the gates).
    const int64_t rec_n = (L.cell == Cell::Gru && !L.linear_before_reset) ? 2 * H : G * H;
    if (small) {
      for (int64_t b = 0; b < B; ++b)
        small_product(H, rec_n, h + b * H, 1, rt, GH, L.ws + b * L.ws_cols + (split_rec ? rec_off : gates_off));
    } else {
      gemm_f32(B, rec_n, H, h, H, 1, rd, r.strides[2], r.strides[1], L.ws + (split_rec ? rec_off : gates_off),
               L.ws_cols, true, num_threads);
    }

    for (int64_t b = 0; b < B; ++b) {
      const int64_t len = length_of(L, b);
      if (s >= len) continue;
      float* g = L.ws + b * L.ws_cols + gates_off;
      float* rec = L.ws + b * L.ws_cols + rec_off;
      float* hb = h + b * H;
      // Whole-gate passes, so that the default functions vectorize (apply).
      if (L.cell == Cell::Rnn) {
        clip_all(g, H, L.clip);
        apply(act[0], g, H);
        std::memcpy(hb, g, static_cast<size_t>(H) * sizeof(float));
      } else if (L.cell == Cell::Lstm) {
        // Gate order i, o, f, c; peepholes i, o, f (ONNX's LSTM). The
        // recurrent part's columns, which the LSTM does not use, hold
        // tanh(C_t).
        float* cb = c + b * H;
        float* gi = g;
        float* go = g + H;
        float* gf = g + 2 * H;
        float* gc = g + 3 * H;
        if (L.p) {
          for (int64_t j = 0; j < H; ++j) {
            gi[j] += at2(*L.p, d, j) * cb[j];
            gf[j] += at2(*L.p, d, 2 * H + j) * cb[j];
          }
        }
        clip_all(gi, H, L.clip);
        apply(act[0], gi, H);
        if (L.input_forget) {
          for (int64_t j = 0; j < H; ++j) gf[j] = 1.0f - gi[j];
        } else {
          clip_all(gf, H, L.clip);
          apply(act[0], gf, H);
        }
        clip_all(gc, H, L.clip);
        apply(act[1], gc, H);
        for (int64_t j = 0; j < H; ++j) cb[j] = gf[j] * cb[j] + gi[j] * gc[j];
        if (L.p)
          for (int64_t j = 0; j < H; ++j) go[j] += at2(*L.p, d, H + j) * cb[j];
        clip_all(go, H, L.clip);
        apply(act[0], go, H);
        std::memcpy(rec, cb, static_cast<size_t>(H) * sizeof(float));
        apply(act[2], rec, H);
        for (int64_t j = 0; j < H; ++j) hb[j] = go[j] * rec[j];
      } else {
        // Gate order z, r, h (ONNX's GRU).
        float* rh = L.ws + b * L.ws_cols + rh_off;
        for (int64_t j = 0; j < 2 * H; ++j) g[j] += rec[j];
        clip_all(g, 2 * H, L.clip);
        apply(act[0], g, 2 * H);  // z, r
        for (int64_t j = 0; j < H; ++j) rh[j] = g[H + j] * hb[j];
      }
    }
    if (L.cell == Cell::Gru) {
      if (!L.linear_before_reset) {
        // (r (.) H_{t-1}) Rh^T, onto Rbh.
        if (small) {
          for (int64_t b = 0; b < B; ++b)
            small_product(H, H, L.ws + b * L.ws_cols + rh_off, 1, rt + 2 * H, GH, L.ws + b * L.ws_cols + rec_off + 2 * H);
        } else {
          gemm_f32(B, H, H, L.ws + rh_off, L.ws_cols, 1, rd + 2 * H * r.strides[1], r.strides[2], r.strides[1],
                   L.ws + rec_off + 2 * H, L.ws_cols, true, num_threads);
        }
      }
      for (int64_t b = 0; b < B; ++b) {
        if (s >= length_of(L, b)) continue;
        float* g = L.ws + b * L.ws_cols + gates_off;
        const float* rec = L.ws + b * L.ws_cols + rec_off;
        float* hb = h + b * H;
        float* cand = g + 2 * H;
        if (L.linear_before_reset) {
          for (int64_t j = 0; j < H; ++j) cand[j] += g[H + j] * rec[2 * H + j];
        } else {
          for (int64_t j = 0; j < H; ++j) cand[j] += rec[2 * H + j];
        }
        clip_all(cand, H, L.clip);
        apply(act[1], cand, H);
        for (int64_t j = 0; j < H; ++j) hb[j] = (1.0f - g[j]) * cand[j] + g[j] * hb[j];
      }
    }
    // Y at each entry's own time step; the others stay zero.
    if (L.y != nullptr) {
      for (int64_t b = 0; b < B; ++b) {
        const int64_t len = length_of(L, b);
        if (s >= len) continue;
        const int64_t t = reverse ? len - 1 - s : s;
        std::memcpy(L.y + ((t * L.dirs + d) * B + b) * H, h + b * H, static_cast<size_t>(H) * sizeof(float));
      }
    }
  }
  for (int64_t b = 0; b < B; ++b) {
    if (length_of(L, b) != 0) continue;
    std::fill(h + b * H, h + (b + 1) * H, 0.0f);
    if (c) std::fill(c + b * H, c + (b + 1) * H, 0.0f);
  }
}

Error dims_error(const char* op, const char* what, const Tensor& t, const std::string& expected) {
  std::string got = "[";
  for (int i = 0; i < t.rank; ++i) got += (i ? ", " : "") + std::to_string(t.sizes[i]);
  return fail(Error::InvalidArgument, std::string(op) + ": expected " + what + " " + expected + ", got " + got + "]");
}

std::string dims_str(std::initializer_list<int64_t> dims) {
  std::string s = "[";
  bool first = true;
  for (int64_t v : dims) {
    s += (first ? "" : ", ") + std::to_string(v);
    first = false;
  }
  return s + "]";
}

bool has_dims(const Tensor& t, std::initializer_list<int64_t> dims) {
  if (t.rank != static_cast<int>(dims.size())) return false;
  int i = 0;
  for (int64_t v : dims) {
    if (t.sizes[i++] != v) return false;
  }
  return true;
}

/// An optional operand: absent past the end or when empty (rank 1, size 0).
const Tensor* optional_input(std::span<const Tensor> inputs, size_t i) {
  if (i >= inputs.size()) return nullptr;
  const Tensor& t = inputs[i];
  return (t.rank == 1 && t.sizes[0] == 0) ? nullptr : &t;
}

Error read_activations(const char* op, const Attrs& attrs, Layer& L) {
  const RecurrentDecls& d = declared<RecurrentDecls>();
  const int funcs = funcs_of(L.cell);
  static constexpr int64_t kDefaults[3][3] = {{kTanh}, {kSigmoid, kTanh}, {kSigmoid, kTanh, kTanh}};
  const int64_t* defaults = kDefaults[funcs - 1];
  const AttrValue* codes = attrs.find(d.activations.name);
  const AttrValue* alphas = attrs.find(d.activation_alpha.name);
  const AttrValue* betas = attrs.find(d.activation_beta.name);
  const auto* code_list = codes ? std::get_if<std::vector<int64_t>>(codes) : nullptr;
  const auto* alpha_list = alphas ? std::get_if<std::vector<double>>(alphas) : nullptr;
  const auto* beta_list = betas ? std::get_if<std::vector<double>>(betas) : nullptr;
  const size_t count = static_cast<size_t>(funcs * L.dirs);
  if (codes && (!code_list || (code_list->size() != count && !code_list->empty())))
    return fail(Error::InvalidArgument, std::string(op) + ": expected " + std::to_string(count) +
                                            " codes in 'activations' (" + std::to_string(funcs) +
                                            " per direction)");
  if ((alphas && (!alpha_list || alpha_list->size() != count)) || (betas && (!beta_list || beta_list->size() != count)))
    return fail(Error::InvalidArgument, std::string(op) + ": expected " + std::to_string(count) +
                                            " entries in 'activation_alpha' and 'activation_beta' (one per activation)");
  for (int64_t dir = 0; dir < L.dirs; ++dir) {
    for (int f = 0; f < funcs; ++f) {
      const size_t i = static_cast<size_t>(dir * funcs + f);
      Activation& a = L.acts[dir][f];
      a.code = code_list && !code_list->empty() ? (*code_list)[i] : defaults[f];
      if (a.code < 0 || a.code >= kNumActs)
        return fail(Error::InvalidArgument, std::string(op) + ": expected activation codes in [0, " +
                                                std::to_string(kNumActs - 1) + "], got " + std::to_string(a.code));
      a.alpha = alpha_list ? static_cast<float>((*alpha_list)[i]) : 0.0f;
      a.beta = beta_list ? static_cast<float>((*beta_list)[i]) : 0.0f;
    }
  }
  return Error::Ok;
}

template <Cell kCell>
Error recurrent_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                       std::span<Tensor> outputs) {
  const char* op = name_of(kCell);
  const size_t max_inputs = kCell == Cell::Lstm ? 8 : 6;
  const size_t num_outputs = kCell == Cell::Lstm ? 4 : 3;
  if (inputs.size() < 3 || inputs.size() > max_inputs)
    return fail(Error::InvalidArgument, std::string(op) + ": expected 3 to " + std::to_string(max_inputs) +
                                            " inputs, got " + std::to_string(inputs.size()));
  EDGEC_TRY(check_num_outputs(op, outputs, num_outputs));
  for (const Tensor& t : inputs.subspan(0, 3)) {
    if (t.dtype != DType::Float32)
      return fail(Error::InvalidType, std::string(op) + ": expected f32 X, W and R, got " +
                                          std::string(dtype_name(t.dtype)));
  }
  for (const Tensor& t : outputs) EDGEC_TRY(check_output_dtype(op, t, DType::Float32));

  Layer L;
  L.cell = kCell;
  const RecurrentDecls& d = declared<RecurrentDecls>();
  std::string_view direction;
  double clip = 0.0;
  EDGEC_TRY(read_attr(op, attrs, d.hidden_size, L.hidden));
  EDGEC_TRY(read_attr(op, attrs, d.direction, direction));
  EDGEC_TRY(read_attr(op, attrs, d.clip, clip));
  EDGEC_TRY(read_attr(op, attrs, d.input_forget, L.input_forget));
  EDGEC_TRY(read_attr(op, attrs, d.linear_before_reset, L.linear_before_reset));
  L.clip = static_cast<float>(clip);
  L.dirs = direction == "bidirectional" ? 2 : 1;
  L.reverse_only = direction == "reverse";
  EDGEC_TRY(read_activations(op, attrs, L));

  const Tensor& x = inputs[0];
  if (x.rank != 3) return dims_error(op, "X", x, "[seq, batch, input]");
  L.seq = x.sizes[0];
  L.batch = x.sizes[1];
  L.input = x.sizes[2];
  const int64_t H = L.hidden;
  const int64_t G = gates_of(kCell);
  if (!has_dims(inputs[1], {L.dirs, G * H, L.input}))
    return dims_error(op, "W", inputs[1], dims_str({L.dirs, G * H, L.input}));
  if (!has_dims(inputs[2], {L.dirs, G * H, H})) return dims_error(op, "R", inputs[2], dims_str({L.dirs, G * H, H}));
  L.x = &x;
  L.w = &inputs[1];
  L.r = &inputs[2];
  L.b = optional_input(inputs, 3);
  L.lens = optional_input(inputs, 4);
  L.h0 = optional_input(inputs, 5);
  if (kCell == Cell::Lstm) {
    L.c0 = optional_input(inputs, 6);
    L.p = optional_input(inputs, 7);
  }
  if (L.b && (L.b->dtype != DType::Float32 || !has_dims(*L.b, {L.dirs, 2 * G * H})))
    return dims_error(op, "f32 B", *L.b, dims_str({L.dirs, 2 * G * H}));
  for (const Tensor* s : {L.h0, L.c0}) {
    if (s && (s->dtype != DType::Float32 || !has_dims(*s, {L.dirs, L.batch, H})))
      return dims_error(op, "an f32 initial state", *s, dims_str({L.dirs, L.batch, H}));
  }
  if (L.p && (L.p->dtype != DType::Float32 || !has_dims(*L.p, {L.dirs, 3 * H})))
    return dims_error(op, "f32 P", *L.p, dims_str({L.dirs, 3 * H}));
  if (L.lens) {
    if ((L.lens->dtype != DType::Int32 && L.lens->dtype != DType::Int64) || !has_dims(*L.lens, {L.batch}))
      return dims_error(op, "i32 or i64 sequence_lens", *L.lens, dims_str({L.batch}));
    for (int64_t b = 0; b < L.batch; ++b) {
      const int64_t len = length_of(L, b);
      if (len < 0 || len > L.seq)
        return fail(Error::InvalidArgument, std::string(op) + ": expected sequence_lens in [0, " +
                                                std::to_string(L.seq) + "], got " + std::to_string(len));
    }
  }

  L.ws_cols = workspace_cols(kCell, H);
  const int64_t y_shape[] = {L.seq, L.dirs, L.batch, H};
  const int64_t state_shape[] = {L.dirs, L.batch, H};
  const int64_t ws_shape[] = {L.batch, L.ws_cols};
  EDGEC_TRY(resize_output(op, outputs[0], y_shape));
  EDGEC_TRY(resize_output(op, outputs[1], state_shape));
  if (kCell == Cell::Lstm) EDGEC_TRY(resize_output(op, outputs[2], state_shape));
  EDGEC_TRY(resize_output(op, outputs[num_outputs - 1], ws_shape));
  L.y = static_cast<float*>(outputs[0].data);
  L.yh = static_cast<float*>(outputs[1].data);
  L.yc = kCell == Cell::Lstm ? static_cast<float*>(outputs[2].data) : nullptr;
  L.ws = static_cast<float*>(outputs[num_outputs - 1].data);
  if (outputs[0].numel() > 0) std::memset(L.y, 0, outputs[0].nbytes());
  const int threads = std::max(ctx.num_threads, 1);
  for (int64_t dir = 0; dir < L.dirs; ++dir) run_direction(L, dir, L.reverse_only || dir == 1, threads);
  // The workspace's last contents depend on the order of the work; zero
  // keeps every result of the call deterministic (and comparable in tests).
  if (outputs[num_outputs - 1].numel() > 0) std::memset(L.ws, 0, outputs[num_outputs - 1].nbytes());
  return Error::Ok;
}

}  // namespace

std::span<const KernelEntry> recurrent_kernels() {
  const RecurrentDecls& d = declared<RecurrentDecls>();
  const OperandDecl x{"x"}, w{"w"}, r{"r"};
  const OperandDecl b{"b", OperandKind::Optional}, lens{"sequence_lens", OperandKind::Optional},
      h0{"initial_h", OperandKind::Optional}, c0{"initial_c", OperandKind::Optional}, p{"p", OperandKind::Optional};
  const std::vector<AttrDecl> common = {d.hidden_size, d.direction, d.activations, d.activation_alpha,
                                        d.activation_beta, d.clip};
  std::vector<AttrDecl> lstm_attrs = common;
  lstm_attrs.push_back(d.input_forget);
  std::vector<AttrDecl> gru_attrs = common;
  gru_attrs.push_back(d.linear_before_reset);
  static const KernelEntry kRecurrentKernels[] = {
      {declare("lstm", "nn", {x, w, r, b, lens, h0, c0, p}, lstm_attrs, kRecurrentTypes, 0,
               "ONNX LSTM, time-major: Y [seq, dirs, batch, hidden], Y_h, Y_c and a workspace"),
       recurrent_kernel<Cell::Lstm>},
      {declare("gru", "nn", {x, w, r, b, lens, h0}, gru_attrs, kRecurrentTypes, 0,
               "ONNX GRU, time-major: Y [seq, dirs, batch, hidden], Y_h and a workspace"),
       recurrent_kernel<Cell::Gru>},
      {declare("rnn", "nn", {x, w, r, b, lens, h0}, common, kRecurrentTypes, 0,
               "ONNX RNN, time-major: Y [seq, dirs, batch, hidden], Y_h and a workspace"),
       recurrent_kernel<Cell::Rnn>},
  };
  return kRecurrentKernels;
}

}  // namespace edgec
