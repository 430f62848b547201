// The delegate's own elementwise loops: numpy-broadcasting binaries (oneDNN
// 2.6 runs most broadcast patterns on its reference implementation, which
// took 1-2 ms for an image normalization of 31K elements here) and small
// same-shape ones, where a primitive's per-call overhead exceeds the work;
// and the activations they (and the norm loop) apply on the way out.
#include <cmath>

#include "backends/onednn/runtime_build.h"

namespace edgec::runtime::onednn {
namespace {

using dnnl::algorithm;

float softplus(float v) { return v > 20.f ? v : std::log1p(std::exp(v)); }

enum class BinOp { Add, Sub, Mul, Div, Max, Min };

template <BinOp K>
inline float bin(float a, float b) {
  if constexpr (K == BinOp::Add) return a + b;
  if constexpr (K == BinOp::Sub) return a - b;
  if constexpr (K == BinOp::Mul) return a * b;
  if constexpr (K == BinOp::Div) return a / b;
  if constexpr (K == BinOp::Max) return a > b || std::isnan(a) ? a : b;
  return a < b || std::isnan(a) ? a : b;
}

struct BinaryPlan {
  std::vector<int64_t> sizes;      // result dims (rank >= 1)
  std::vector<int64_t> sa, sb;     // element strides into a and b (0: broadcast)
  std::vector<Eltwise> ops;
};

template <BinOp K>
void run_binary(const BinaryPlan& p, const float* a, const float* b, float* out, std::vector<int64_t>& idx) {
  const size_t last = p.sizes.size() - 1;
  const int64_t n = p.sizes[last], ia = p.sa[last], ib = p.sb[last];
  std::fill(idx.begin(), idx.end(), 0);
  const bool post = !p.ops.empty();
  for (;;) {
    int64_t oa = 0, ob = 0;
    for (size_t k = 0; k < last; ++k) {
      oa += idx[k] * p.sa[k];
      ob += idx[k] * p.sb[k];
    }
    const float* pa = a + oa;
    const float* pb = b + ob;
    if (!post) {
      if (ia == 1 && ib == 1)
        for (int64_t j = 0; j < n; ++j) out[j] = bin<K>(pa[j], pb[j]);
      else if (ia == 1)
        for (int64_t j = 0; j < n; ++j) out[j] = bin<K>(pa[j], pb[j * ib]);
      else
        for (int64_t j = 0; j < n; ++j) out[j] = bin<K>(pa[j * ia], pb[j * ib]);
    } else {
      for (int64_t j = 0; j < n; ++j) out[j] = apply_eltwise(p.ops, bin<K>(pa[j * ia], pb[j * ib]));
    }
    out += n;
    size_t k = last;
    for (;;) {
      if (k == 0) return;
      --k;
      if (++idx[k] < p.sizes[k]) break;
      idx[k] = 0;
    }
  }
}

}  // namespace

bool loop_eltwise_supported(const std::vector<Eltwise>& ops) {
  for (const Eltwise& e : ops) {
    switch (e.alg) {
      case algorithm::eltwise_relu:
      case algorithm::eltwise_mish:
      case algorithm::eltwise_tanh:
      case algorithm::eltwise_logistic:
      case algorithm::eltwise_soft_relu:
      case algorithm::eltwise_linear:
      case algorithm::eltwise_clip_v2:
      case algorithm::eltwise_gelu_erf:
      case algorithm::eltwise_gelu_tanh:
      case algorithm::eltwise_swish:
        break;
      default:
        return false;
    }
  }
  return true;
}

float apply_eltwise(const std::vector<Eltwise>& ops, float v) {
  for (const Eltwise& e : ops) {
    switch (e.alg) {
      case algorithm::eltwise_relu: v = v > 0 ? v : v * e.alpha; break;
      case algorithm::eltwise_mish: {
        // tanh(log(1 + n)) = n (n + 2) / (n (n + 2) + 2) with n = e^v: one
        // exp instead of exp, log1p and tanh; past 20 it is v in f32.
        if (v < 20.f) {
          const float n = std::exp(v), q = n * (n + 2.f);
          v = v * q / (q + 2.f);
        }
        break;
      }
      case algorithm::eltwise_tanh: v = std::tanh(v); break;
      case algorithm::eltwise_logistic: v = 1.f / (1.f + std::exp(-v)); break;
      case algorithm::eltwise_swish: v = v / (1.f + std::exp(-e.alpha * v)); break;
      case algorithm::eltwise_soft_relu: v = softplus(v); break;
      case algorithm::eltwise_linear: v = e.alpha * v + e.beta; break;
      case algorithm::eltwise_clip_v2: v = std::min(std::max(v, e.alpha), e.beta); break;
      case algorithm::eltwise_gelu_erf: v = 0.5f * v * (1.f + std::erf(v * 0.70710678f)); break;
      case algorithm::eltwise_gelu_tanh:
        v = 0.5f * v * (1.f + std::tanh(0.79788456f * (v + 0.044715f * v * v * v)));
        break;
      default: break;
    }
  }
  return v;
}

void apply_eltwise(const std::vector<Eltwise>& ops, float* v, int64_t n) {
  // Most callers pass no operations (the kernel applied a ReLU itself or
  // nothing follows): a pass over the result for nothing cost ACT's and the
  // transformer's prepacked matmuls half their time.
  if (ops.empty()) return;
  for (int64_t i = 0; i < n; ++i) v[i] = apply_eltwise(ops, v[i]);
}

bool just_relu(const std::vector<Eltwise>& ops) {
  return ops.size() == 1 && ops[0].alg == algorithm::eltwise_relu && ops[0].alpha == 0.f;
}

bool add_binary_loop(Ctx& c, std::string_view op, int32_t a, int32_t b, int32_t y, const std::vector<Eltwise>& ops,
                     const std::string& name) {
  if (!loop_eltwise_supported(ops)) return false;
  Delegate& d = c.d;
  for (int32_t s : {a, b, y})
    if (d.slots[static_cast<size_t>(s)].dtype != DType::Float32) return false;
  require(broadcasts_to(c.shape(a), c.shape(y)) && broadcasts_to(c.shape(b), c.shape(y)),
          "operands that do not broadcast to the result's shape");
  BinaryPlan p;
  p.sizes = c.shape(y);
  if (p.sizes.empty()) p.sizes = {1};
  const size_t r = p.sizes.size();
  auto strides = [&](int32_t s) {
    const auto& sh = c.shape(s);
    std::vector<int64_t> st(r, 0);
    int64_t run = 1;
    for (size_t k = 0; k < sh.size() && k < r; ++k) {
      const size_t si = sh.size() - 1 - k, oi = r - 1 - k;
      st[oi] = sh[si] == 1 ? 0 : run;
      run *= sh[si];
    }
    return st;
  };
  p.sa = strides(a);
  p.sb = strides(b);
  p.ops = ops;
  d.need_plain(a);
  d.need_plain(b);
  d.define_plain(y);
  auto run = [&d, a, b, y, p, op = std::string(op), idx = std::vector<int64_t>(r, 0)]() mutable {
    const auto* pa = reinterpret_cast<const float*>(d.slots[static_cast<size_t>(a)].ptr);
    const auto* pb = reinterpret_cast<const float*>(d.slots[static_cast<size_t>(b)].ptr);
    auto* out = reinterpret_cast<float*>(d.slots[static_cast<size_t>(y)].ptr);
    if (op == "add") run_binary<BinOp::Add>(p, pa, pb, out, idx);
    else if (op == "sub") run_binary<BinOp::Sub>(p, pa, pb, out, idx);
    else if (op == "mul") run_binary<BinOp::Mul>(p, pa, pb, out, idx);
    else if (op == "div") run_binary<BinOp::Div>(p, pa, pb, out, idx);
    else if (op == "maximum") run_binary<BinOp::Max>(p, pa, pb, out, idx);
    else run_binary<BinOp::Min>(p, pa, pb, out, idx);
    return Error::Ok;
  };
  d.add_loop(std::move(run), c.what, name + " (loop)");
  return true;
}

}  // namespace edgec::runtime::onednn
