// The fusion helpers of runtime_build.h: which instructions may be folded
// into the step of an earlier one.
#include <algorithm>
#include <cstring>
#include <limits>

#include "backends/onednn/op_table.h"
#include "backends/onednn/runtime_build.h"

namespace edgec::runtime::onednn {

using dnnl::algorithm;

std::vector<Eltwise> eltwise_of(const Instruction& in) {
  const edgec::onednn::OpRow* row = edgec::onednn::find_op_row(in.op);
  if (!row || !row->eltwise) return {};
  return row->eltwise(*row->decl, in.attrs);
}

int32_t sole_consumer(const Delegate& d, int32_t slot) {
  const auto s = static_cast<size_t>(slot);
  if (d.is_output[s] || d.consumers[s].size() != 1) return -1;
  return d.consumers[s][0];
}

namespace {

// The instruction at `i` reads `slot` as its only input.
bool unary_of(const Ctx& c, int32_t i, int32_t slot) {
  const Instruction& in = c.at(i);
  return in.inputs.size() == 1 && in.inputs[0] == slot && in.outputs.size() == 1;
}

}  // namespace

int32_t match_mish(Ctx& c, int32_t softplus, int32_t x) {
  const Delegate& d = c.d;
  const Instruction& sp = c.at(softplus);
  if (sp.op != "softplus" || !unary_of(c, softplus, x) || !eltwise_of(sp).size()) return -1;
  // Only torch's mish, softplus with beta 1 (the partitioner takes no other).
  if (edgec::onednn::find_op_row("softplus")->decl->attr("beta")->float_value(sp.attrs) != 1.0) return -1;
  const int32_t t = sole_consumer(d, sp.outputs[0]);
  if (t < 0 || c.at(t).op != "tanh" || !unary_of(c, t, sp.outputs[0])) return -1;
  const int32_t m = sole_consumer(d, c.at(t).outputs[0]);
  if (m < 0) return -1;
  const Instruction& mul = c.at(m);
  if (mul.op != "mul" || mul.inputs.size() != 2) return -1;
  const int32_t other = mul.inputs[0] == c.at(t).outputs[0] ? mul.inputs[1] : mul.inputs[0];
  if (other != x || d.slots[static_cast<size_t>(mul.outputs[0])].shape != d.slots[static_cast<size_t>(x)].shape)
    return -1;
  // x feeds exactly the softplus and the mul (unless the caller is the
  // softplus itself, reading x as a value it keeps: then x may have others).
  c.d.fused[static_cast<size_t>(t)] = true;
  c.d.fused[static_cast<size_t>(m)] = true;
  return m;
}

namespace {

// oneDNN 2.6's convolution and matmul apply a second eltwise_linear post-op
// with the first one's parameters (conv -> hardsigmoid -> neg, or -> selu
// after neg, came out wrong; Onednn.ChainsWithTwoLinearMaps shows
// it): a fused chain holds at most one, and the next continues in a step of
// its own (whose own first operation is the primitive, not a post-op).
size_t linear_count(const std::vector<Eltwise>& ops) {
  return static_cast<size_t>(
      std::count_if(ops.begin(), ops.end(), [](const Eltwise& e) { return e.alg == algorithm::eltwise_linear; }));
}

// x * sigmoid(x) with x the value `x`, read by exactly the instructions
// `a` and `b` (the sigmoid and the mul, in either order), neither fused
// yet: the mul's index, else -1.
int32_t match_swish(const Ctx& c, int32_t a, int32_t b, int32_t x) {
  if (c.at(a).op != "sigmoid") std::swap(a, b);
  const Instruction& sig = c.at(a);
  const Instruction& mul = c.at(b);
  if (c.d.fused[static_cast<size_t>(a)] || c.d.fused[static_cast<size_t>(b)]) return -1;
  if (sig.op != "sigmoid" || !unary_of(c, a, x) || mul.op != "mul" || mul.inputs.size() != 2 ||
      mul.outputs.size() != 1)
    return -1;
  const int32_t s = sig.outputs[0];
  if (sole_consumer(c.d, s) != b) return -1;
  if (!((mul.inputs[0] == x && mul.inputs[1] == s) || (mul.inputs[0] == s && mul.inputs[1] == x))) return -1;
  const auto& xs = c.d.slots[static_cast<size_t>(x)];
  const auto& ys = c.d.slots[static_cast<size_t>(mul.outputs[0])];
  if (xs.dtype != DType::Float32 || ys.dtype != DType::Float32 || ys.shape != xs.shape ||
      c.shape(s) != xs.shape)
    return -1;
  return b;
}

}  // namespace

int32_t absorb_eltwise(Ctx& c, int32_t slot, std::vector<Eltwise>& ops, std::string& name) {
  for (;;) {
    const auto& readers = c.d.consumers[static_cast<size_t>(slot)];
    if (c.d.is_output[static_cast<size_t>(slot)] || ops.size() >= kMaxFusedEltwise) return slot;
    // mish written out reads the value twice (softplus and mul).
    if (readers.size() == 2 && c.at(readers[0]).op == "softplus" && !c.d.fused[static_cast<size_t>(readers[0])]) {
      const int32_t m = match_mish(c, readers[0], slot);
      if (m >= 0 && m == readers[1]) {
        c.d.fused[static_cast<size_t>(readers[0])] = true;
        ops.push_back({algorithm::eltwise_mish, 0.f, 0.f});
        name += "+mish";
        slot = c.at(m).outputs[0];
        continue;
      }
      if (m >= 0) {  // Matched with another mul: undo.
        c.d.fused[static_cast<size_t>(m)] = false;
        c.d.fused[static_cast<size_t>(sole_consumer(c.d, c.at(readers[0]).outputs[0]))] = false;
      }
      return slot;
    }
    // SiLU written out (EfficientNet's activations): x * sigmoid(x).
    if (readers.size() == 2) {
      const int32_t m = match_swish(c, readers[0], readers[1], slot);
      if (m < 0) return slot;
      c.d.fused[static_cast<size_t>(readers[0])] = true;
      c.d.fused[static_cast<size_t>(readers[1])] = true;
      ops.push_back({algorithm::eltwise_swish, 1.f, 0.f});
      name += "+swish";
      slot = c.at(m).outputs[0];
      continue;
    }
    const int32_t next = sole_consumer(c.d, slot);
    if (next < 0 || !unary_of(c, next, slot)) return slot;
    const Instruction& in = c.at(next);
    if (c.shape(in.outputs[0]) != c.shape(slot)) return slot;
    std::vector<Eltwise> more = eltwise_of(in);
    if (more.empty() || c.d.slots[static_cast<size_t>(in.outputs[0])].dtype != DType::Float32 ||
        ops.size() + more.size() > kMaxFusedEltwise || linear_count(ops) + linear_count(more) > 1)
      return slot;
    if (in.op == "softplus") return slot;  // Alone it is soft_relu, but may be a mish: leave it to its own step.
    ops.insert(ops.end(), more.begin(), more.end());
    name += "+" + in.op;
    c.d.fused[static_cast<size_t>(next)] = true;
    slot = in.outputs[0];
  }
}

void append_eltwise(dnnl::post_ops& post, const std::vector<Eltwise>& ops) {
  for (const Eltwise& e : ops) post.append_eltwise(1.f, e.alg, e.alpha, e.beta);
}

std::vector<float> per_channel(const Ctx& c, int32_t other, size_t rank, int64_t channels) {
  if (!c.is_constant(other)) return {};
  const SlotState& s = c.d.slots[static_cast<size_t>(other)];
  if (s.dtype != DType::Float32 || s.shape.size() > rank) return {};
  std::vector<int64_t> padded(rank - s.shape.size(), 1);
  padded.insert(padded.end(), s.shape.begin(), s.shape.end());
  // [C] (numpy aligns it with the last dim) is per channel only for rank 2.
  for (size_t i = 0; i < rank; ++i) {
    if (i == 1 && (padded[i] == channels || padded[i] == 1)) continue;
    if (padded[i] != 1) return {};
  }
  const auto* v = reinterpret_cast<const float*>(s.ptr);
  std::vector<float> out(static_cast<size_t>(channels));
  const bool scalar = s.numel() == 1;
  for (int64_t k = 0; k < channels; ++k) out[static_cast<size_t>(k)] = scalar ? v[0] : v[k];
  return out;
}

bool broadcasts_to(const std::vector<int64_t>& x, const std::vector<int64_t>& out) {
  if (x.size() > out.size()) return false;
  for (size_t k = 0; k < x.size(); ++k) {
    const int64_t xd = x[x.size() - 1 - k], od = out[out.size() - 1 - k];
    if (xd != od && xd != 1) return false;
  }
  return true;
}

bool free_after(const Delegate& d, int32_t slot, int32_t before, int32_t except) {
  const SlotState& st = d.slots[static_cast<size_t>(slot)];
  if (st.io || st.kind != SlotKind::Activation) return false;
  std::vector<int32_t> sharing{slot};
  if (st.blocked_buffer < 0 && st.buffer >= 0) sharing = d.buffers[static_cast<size_t>(st.buffer)].slots;
  for (int32_t s : sharing) {
    if (d.is_output[static_cast<size_t>(s)]) return false;
    for (int32_t i : d.consumers[static_cast<size_t>(s)])
      if (i != except && i >= before) return false;
  }
  return true;
}

bool reads_blocked(const Instruction& in, const Delegate& d, int32_t slot) {
  const edgec::onednn::OpRow* row = edgec::onednn::find_op_row(in.op);
  if (!row) return false;
  switch (row->blocked) {
    case edgec::onednn::BlockedReads::None: return false;
    case edgec::onednn::BlockedReads::First: return in.inputs[0] == slot;
    case edgec::onednn::BlockedReads::All: return true;
    case edgec::onednn::BlockedReads::SameShape:
      for (int32_t s : in.inputs)
        if (d.slots[static_cast<size_t>(s)].shape != d.slots[static_cast<size_t>(in.outputs[0])].shape) return false;
      return true;
  }
  return false;
}

}  // namespace edgec::runtime::onednn
