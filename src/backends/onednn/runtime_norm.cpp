// instance_norm and group_norm as one loop of the delegate's own, with what
// follows them fused in: the exporter writes GroupNorm as reshape ->
// InstanceNormalization -> reshape -> mul -> add, and the models we target
// put an activation after it (Diffusion Policy's conv blocks: GroupNorm ->
// Mish). On their tensors (a few thousand elements) the primitives this
// would take (a layer norm, two binaries per affine, an eltwise each) cost
// more in per-call overhead than the arithmetic; one pass over the data
// does all of it.
//
// Chain: norm(x) [-> reshape] [-> per-channel affine]* [-> unary]*, each
// link the only reader of the value before it.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "backends/onednn/op_table.h"
#include "backends/onednn/runtime_build.h"

namespace edgec::runtime::onednn {
namespace {

using dnnl::algorithm;

bool is_view(std::string_view op) {
  const edgec::onednn::OpRow* row = edgec::onednn::find_op_row(op);
  return row && row->view;
}

struct NormPlan {
  int64_t n = 1, groups = 1, channels = 1, spatial = 1;  // x viewed as [n, channels, spatial]
  float eps = 1e-5f;
  int32_t scale = -1, shift = -1;                         // slots, per x channel (-1: none)
  int64_t out_channels = 1, out_spatial = 1;              // the result viewed as [n, C, S]
  Affine after;                                           // per result channel
  std::vector<Eltwise> ops;
};

// Sums of x and of (x - m)^2 over n values in 8 float lanes (which the
// compiler vectorizes), combined in double.
double lane_sum(const float* x, int64_t n, float m, bool squares) {
  float acc[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) {
      const float d = x[i + j] - m;
      acc[j] += squares ? d * d : d;
    }
  double total = 0;
  for (; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - m;
    total += squares ? d * d : d;
  }
  for (float v : acc) total += v;
  return total;
}

void run_norm(const NormPlan& p, const float* x, const float* scale, const float* shift, float* y) {
  const int64_t per_group = p.channels / p.groups * p.spatial;
  const int64_t blocks = p.n * p.groups;
  const int64_t sample = p.channels * p.spatial;
  const bool relu = just_relu(p.ops);
#pragma omp parallel for if (blocks > 1 && blocks * per_group >= 32768)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t start = b * per_group;
    const float* xs = x + start;
    float* ys = y + start;
    // Shifted by the first value so that float lanes keep the precision a
    // large common offset would cost.
    const float x0 = xs[0];
    const double mean = x0 + lane_sum(xs, per_group, x0, false) / static_cast<double>(per_group);
    const auto m = static_cast<float>(mean);
    const double var = lane_sum(xs, per_group, m, true) / static_cast<double>(per_group);
    const auto rstd = static_cast<float>(1.0 / std::sqrt(var + p.eps));
    // Runs of elements that share their input channel (scale, shift) and
    // their result channel (the affine after): y = (x - m) * a + c.
    const int64_t within0 = start % sample;
    int64_t ch = within0 / p.spatial, ch_left = p.spatial - within0 % p.spatial;
    int64_t oc = within0 / p.out_spatial, oc_left = p.out_spatial - within0 % p.out_spatial;
    for (int64_t e = 0; e < per_group;) {
      const int64_t run = std::min({ch_left, oc_left, per_group - e});
      float a = rstd * (scale ? scale[ch] : 1.f), c = shift ? shift[ch] : 0.f;
      if (p.after.any) {
        const float s = p.after.scale[static_cast<size_t>(oc)];
        a *= s;
        c = c * s + p.after.shift[static_cast<size_t>(oc)];
      }
      for (int64_t i = e; i < e + run; ++i) ys[i] = (xs[i] - m) * a + c;
      if (relu) {
        for (int64_t i = e; i < e + run; ++i) ys[i] = ys[i] > 0.f ? ys[i] : 0.f;
      } else if (!p.ops.empty()) {
        apply_eltwise(p.ops, ys + e, run);
      }
      e += run;
      if ((ch_left -= run) == 0) {
        ++ch;
        ch_left = p.spatial;
      }
      if ((oc_left -= run) == 0) {
        ++oc;
        oc_left = p.out_spatial;
      }
    }
  }
}

}  // namespace

Error build_group_norm(Ctx& c, bool instance) {
  const int32_t x = c.input(0);
  const auto& xs = c.shape(x);
  if (xs.size() < 2) return bad(c, "expected [N, C, ...]");
  NormPlan p;
  p.n = xs[0];
  p.channels = xs[1];
  for (size_t i = 2; i < xs.size(); ++i) p.spatial *= xs[i];
  p.groups = instance ? p.channels : c.int_attr("num_groups");
  if (p.groups <= 0 || p.channels % p.groups != 0) return bad(c, "channels not divisible into groups");
  require(p.n > 0 && p.channels > 0 && p.spatial > 0, "a normalization of " + shape_string(xs) + ": expected no empty dim");
  p.eps = static_cast<float>(c.float_attr("eps"));
  // The norm's own affine, per channel of x ([C] each).
  if (c.in.inputs.size() > 1) p.scale = c.input(1);
  if (c.in.inputs.size() > 2) p.shift = c.input(2);
  for (int32_t s : {p.scale, p.shift})
    if (s >= 0 && c.d.slots[static_cast<size_t>(s)].numel() != p.channels)
      return bad(c, "expected " + std::to_string(p.channels) + " scale and shift values");
  std::string name = c.in.op;
  int32_t y = c.output();
  // A reshape back, then per-channel affine links and activations.
  if (const int32_t next = sole_consumer(c.d, y); next >= 0 && is_view(c.at(next).op) && c.at(next).inputs.size() == 1 &&
                                                  c.d.slots[static_cast<size_t>(c.at(next).outputs[0])].nbytes() ==
                                                      c.d.slots[static_cast<size_t>(y)].nbytes()) {
    c.d.fused[static_cast<size_t>(next)] = true;
    y = c.at(next).outputs[0];
    name += "+" + c.at(next).op;
  }
  const auto& ys = c.shape(y);
  p.out_channels = ys.size() >= 2 ? ys[1] : 1;
  p.out_spatial = 1;
  for (size_t i = 2; i < ys.size(); ++i) p.out_spatial *= ys[i];
  require(p.out_channels > 0 && p.out_spatial > 0,
          "a normalization result of " + shape_string(ys) + ": expected no empty dim");
  if (ys.size() >= 2 && ys[0] == p.n) y = absorb_affine(c, y, p.out_channels, p.after, name);
  std::vector<Eltwise> ops;
  std::string ops_name;
  y = absorb_eltwise(c, y, ops, ops_name);
  name += ops_name;
  require(c.d.slots[static_cast<size_t>(x)].numel() == c.d.slots[static_cast<size_t>(y)].numel() &&
              c.d.slots[static_cast<size_t>(x)].dtype == DType::Float32 &&
              c.d.slots[static_cast<size_t>(y)].dtype == DType::Float32,
          "a normalization whose result differs from its input in size or type");
  for (int32_t s : {p.scale, p.shift})
    require(s < 0 || c.d.slots[static_cast<size_t>(s)].dtype == DType::Float32,
            "scale or shift (slot " + std::to_string(s) + ") is " +
                std::string(dtype_name(c.d.slots[static_cast<size_t>(s)].dtype)) + ", expected f32");
  const bool in_loop = loop_eltwise_supported(ops);
  if (in_loop) p.ops = ops;
  Delegate& d = c.d;
  d.need_plain(x);
  if (p.scale >= 0) d.need_plain(p.scale);
  if (p.shift >= 0) d.need_plain(p.shift);
  d.define_plain(y);
  d.add_loop(
      [&d, x, y, p]() {
        auto f = [&d](int32_t s) {
          return s < 0 ? nullptr : reinterpret_cast<const float*>(d.slots[static_cast<size_t>(s)].ptr);
        };
        run_norm(p, f(x), f(p.scale), f(p.shift), reinterpret_cast<float*>(d.slots[static_cast<size_t>(y)].ptr));
        return Error::Ok;
      },
      c.what, name);
  if (!in_loop && !ops.empty()) {
    // Activations the loop lacks: one eltwise step in place.
    const dnnl::memory::desc md = plain_md(c.shape(y));
    dnnl::post_ops post;
    append_eltwise(post, std::vector<Eltwise>(ops.begin() + 1, ops.end()));
    dnnl::primitive_attr attr = d.attr();
    attr.set_post_ops(post);
    dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, ops[0].alg, md, ops[0].alpha, ops[0].beta);
    dnnl::eltwise_forward::primitive_desc pd(desc, attr, d.engine);
    dnnl::memory m = d.src(y, md);
    d.add(dnnl::eltwise_forward(pd), pd, {{DNNL_ARG_SRC, m}, {DNNL_ARG_DST, m}}, c.what, ops_name.substr(1));
  }
  return Error::Ok;
}

}  // namespace edgec::runtime::onednn
