// What the onednn builders share (runtime_ops.cpp, runtime_conv.cpp,
// runtime_norm.cpp): the instruction being built, and the fusion helpers
// that look ahead at the instructions reading its result.
//
// Fusion folds later instructions into the step of an earlier one (the
// head) when nothing else reads the values in between: batch norm and
// per-channel affine into convolution weights, residual adds as a `sum`
// post-op, bias adds into matmul, unary operators (and mish written as
// softplus -> tanh -> mul) as eltwise post-ops. The folded instructions are
// marked in Delegate::fused and not built again.
#pragma once

#include <string>
#include <vector>

#include "backends/onednn/runtime_state.h"
#include "kernels/tensor.h"  // shape_string, for the errors

namespace edgec::runtime::onednn {

using Args = std::unordered_map<int, dnnl::memory>;

struct Ctx {
  static int32_t checked(std::span<const int32_t> operands, size_t i) {
    if (i >= operands.size()) throw std::out_of_range("operand index");
    return operands[i];
  }
  Delegate& d;
  const Program& program;
  size_t index;
  const Instruction& in;
  std::string what;
  /// Operand `i`; throws std::out_of_range past the last (init reports it).
  int32_t input(size_t i) const { return checked(in.inputs, i); }
  int32_t output(size_t i = 0) const { return checked(in.outputs, i); }
  const std::vector<int64_t>& shape(int32_t slot) const { return d.slots.at(static_cast<size_t>(slot)).shape; }
  bool is_constant(int32_t slot) const {
    const SlotKind k = d.slots.at(static_cast<size_t>(slot)).kind;
    return k == SlotKind::Constant || k == SlotKind::State;
  }
  const Attrs& attrs() const { return in.attrs; }
  /// Attributes through the operator's declaration (its defaults; op_table.h).
  int64_t int_attr(std::string_view name) const;
  double float_attr(std::string_view name) const;
  bool bool_attr(std::string_view name) const;
  const Instruction& at(int32_t i) const { return program.instructions()[static_cast<size_t>(i)]; }
};

Error bad(const Ctx& c, const std::string& message);

/// One eltwise operation (a post-op or a step of its own).
struct Eltwise {
  dnnl::algorithm alg;
  float alpha = 0, beta = 0;
};

/// The eltwise operation(s) unary instruction `in` is (its row's mapping in
/// op_table.cpp); empty when it is not one (hardsigmoid is two).
std::vector<Eltwise> eltwise_of(const Instruction& in);

/// The one instruction reading `slot` when exactly one does and `slot` is
/// not a delegate output; else -1.
int32_t sole_consumer(const Delegate& d, int32_t slot);

/// Mish written out, softplus(x) -> tanh -> mul(x, .), with the softplus at
/// instruction `softplus`: marks the tanh and the mul fused and returns the
/// mul's index; -1 (nothing marked) when the pattern does not hold.
int32_t match_mish(Ctx& c, int32_t softplus, int32_t x);

/// oneDNN 2.6 takes at most 32 post-ops in one primitive (the 33rd append
/// throws): a fused chain holds at most this many eltwise operations, which
/// leaves room for the one sum or binary post-op a convolution or matmul
/// adds. A longer chain continues in the next step.
inline constexpr size_t kMaxFusedEltwise = 31;

/// Absorbs the unary instructions that follow `slot` (each the sole reader
/// of the one before; mish written out counts as one) while `ops` stays
/// within kMaxFusedEltwise: appends their eltwise operations to `ops`,
/// marks them fused, adds their names to `name` ("+relu") and returns the
/// last slot (`slot` itself when none follows).
int32_t absorb_eltwise(Ctx& c, int32_t slot, std::vector<Eltwise>& ops, std::string& name);

/// eltwise post-ops for `ops` appended to `post`.
void append_eltwise(dnnl::post_ops& post, const std::vector<Eltwise>& ops);

/// The per-channel values of constant `other` when it broadcasts against a
/// tensor of rank `rank` with `channels` channels at dim 1 (shape [C],
/// [C, 1...], [1, C, 1...] or a scalar); empty otherwise.
std::vector<float> per_channel(const Ctx& c, int32_t other, size_t rank, int64_t channels);

/// A per-channel affine map y = x * scale + shift.
struct Affine {
  std::vector<float> scale, shift;
  bool any = false;
};

/// Folds the links after `slot` that are per-channel affine maps with
/// constant parameters (batch_norm; mul, add, sub, div by a per-channel
/// constant) into `aff`, channels at dim 1; marks them fused and returns
/// the last slot they produce.
int32_t absorb_affine(Ctx& c, int32_t slot, int64_t channels, Affine& aff, std::string& name);

/// True when numpy broadcasting takes shape `x` to exactly `out`.
bool broadcasts_to(const std::vector<int64_t>& x, const std::vector<int64_t>& out);

/// True when every reader of the value `slot` holds (and of every slot
/// sharing its storage) comes before instruction `before`, apart from
/// instruction `except`: its storage may then be overwritten in place.
bool free_after(const Delegate& d, int32_t slot, int32_t before, int32_t except);

/// True when `op` can read a blocked (oneDNN-chosen) layout.
bool reads_blocked(const Instruction& in, const Delegate& d, int32_t slot);

/// True when apply_eltwise implements every one of `ops`.
bool loop_eltwise_supported(const std::vector<Eltwise>& ops);
/// `ops` applied to one value (runtime_loops.cpp).
float apply_eltwise(const std::vector<Eltwise>& ops, float v);
/// `ops` applied in place to v[0..n).
void apply_eltwise(const std::vector<Eltwise>& ops, float* v, int64_t n);
/// True when `ops` is exactly max(0, x): the own kernels apply that one
/// themselves, vectorized.
bool just_relu(const std::vector<Eltwise>& ops);
/// y = a op b (add, sub, mul, div, maximum, minimum; numpy broadcasting),
/// then `ops`, as a loop step of the delegate's own; false (nothing built)
/// when it cannot (a dtype other than f32, an activation it lacks).
bool add_binary_loop(Ctx& c, std::string_view op, int32_t a, int32_t b, int32_t y, const std::vector<Eltwise>& ops,
                     const std::string& name);

// ---- builders: one per operator family; op_table.cpp maps operators to them.
// Each builds instruction c.in's primitives or loops (and those of the
// instructions it fuses), reading its operator from c.in.op.

Error build_conv(Ctx& c, bool transposed);
Error build_copy(Ctx& c);       ///< reshape and kin: a view where it can be, else a copy.
/// cast between f32 and f16 (held in f32: runtime_state.h's header): the
/// same values, a view where it can be.
Error build_cast(Ctx& c);
Error build_permute(Ctx& c);
Error build_slice(Ctx& c);
Error build_select(Ctx& c);
Error build_split(Ctx& c);
Error build_expand(Ctx& c);
Error build_concat(Ctx& c);
Error build_unary(Ctx& c);      ///< The row's eltwise operations, with the unary chain after it fused.
Error build_binary(Ctx& c);     ///< add, sub, mul, div, maximum, minimum.
Error build_pool(Ctx& c);       ///< max_pool, avg_pool, adaptive_avg_pool.
Error build_resample(Ctx& c);   ///< upsample_bilinear, upsample_nearest (the checks in op_table.cpp).
Error build_softmax(Ctx& c, bool log);
Error build_layer_norm(Ctx& c);
Error build_lrn(Ctx& c);
Error build_batch_norm(Ctx& c);
Error build_reduce(Ctx& c);     ///< sum, mean, amax, amin, prod.
Error build_gather(Ctx& c);     ///< take, index: the delegate's own loops (runtime_gather.cpp).
Error build_recurrent(Ctx& c);  ///< lstm, gru, rnn: oneDNN's RNN primitives (runtime_rnn.cpp).

/// A convolution chain as build_conv found it (runtime_conv.cpp).
struct ConvChain {
  int32_t x = -1, w = -1, bias = -1;  ///< Operands (bias -1 when none).
  int32_t residual = -1, add_at = -1;  ///< The residual add and its instruction, when there is one.
  int32_t out = -1;                    ///< The chain's last value.
  Affine aff;                          ///< Per-channel links folded into the weights.
  std::vector<Eltwise> after;          ///< Unary links after the add (or the conv).
  std::string name;                    ///< For the profile, without the residual and unary links.
  std::string after_name;
  std::vector<int64_t> stride, dilation, pad_begin, pad_end;
  int64_t groups = 1;
};
/// Constant weights `w` ([Cout, Cin/g, k...], or transposed conv's [Cin,
/// Cout/g, k...]) with the chain's affine scale folded in per output
/// channel, and the bias with the affine applied (zeros when the conv has
/// none). For a chain with affine links (ch.aff.any).
void fold_conv_params(const Ctx& c, const ConvChain& ch, bool transposed, std::vector<float>& weights,
                      std::vector<float>& bias);
/// A (non-transposed) chain's weights and bias as the own kernels read
/// them: the constants themselves (bias null when there is none), or, with
/// affine links, folded into the vectors here.
struct ConvParams {
  const float* weights = nullptr;
  const float* bias = nullptr;
  std::vector<float> folded_weights, folded_bias;
};
/// Fills `p` (its pointers may point into its own vectors).
void conv_params(const Ctx& c, const ConvChain& ch, ConvParams& p);
/// True when the chain is a 3x3, stride-1 convolution worth computing with
/// Winograd F(4x4, 3x3) (runtime_conv_own.cpp): one group, constant
/// weights, channel counts the kernel takes, at most a ReLU after it,
/// enough output tiles, and not so many channels that the transformed
/// weights (4x the plain ones) cost more memory and load time than they save.
/// EDGEC_ONEDNN_WINOGRAD=0 turns it off (for comparisons).
bool winograd_applies(const Ctx& c, const ConvChain& ch);
/// Builds the chain as one Winograd loop step in the nChw8c layout.
void build_winograd(Ctx& c, const ConvChain& ch);
/// True when the chain is a 1-D convolution (one group, constant weights,
/// activations the loops have) conv1d_gemm takes (runtime_conv_own.cpp).
bool conv1d_applies(const Ctx& c, const ConvChain& ch);
/// Builds the chain as one conv1d_gemm loop step, plain layout.
void build_conv1d(Ctx& c, const ConvChain& ch);
Error build_matmul(Ctx& c);
/// y = a op b for op add, sub, mul or div, with a 4-D in nChw16c, nChw8c
/// or NHWC and b one value per channel (dims `bd`: [N or 1, C or 1, 1,
/// 1]), then `ops`, as a loop of the delegate's own in a's layout
/// (runtime_channel_own.cpp). False (nothing built) for another layout or
/// an activation the loops lack.
bool add_per_channel_loop(Ctx& c, std::string_view op, int32_t a, int32_t b, const dnnl::memory::dims& bd, int32_t y,
                          const std::vector<Eltwise>& ops, const std::string& name);
/// A 2-D max pool with the given `dilation` (1 for none) as a loop of the
/// delegate's own, in its input's layout (NCHW, NHWC, nChw8c or nChw16c;
/// runtime_pool_own.cpp): oneDNN 2.6 runs a dilated pool on its reference
/// code. False (nothing built) for another rank or layout.
bool build_dilated_max_pool(Ctx& c, const dnnl::memory::dims& kernel, const dnnl::memory::dims& stride,
                            const dnnl::memory::dims& dilation, const dnnl::memory::dims& pad_begin);
/// instance_norm / group_norm with the per-channel affine and activations
/// that follow, as one loop (runtime_norm.cpp).
Error build_group_norm(Ctx& c, bool instance);

}  // namespace edgec::runtime::onednn
