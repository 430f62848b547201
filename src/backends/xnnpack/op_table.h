// The xnnpack delegate's operators, one row each: what the partitioner
// checks before it takes a call (with the reason it gives when it does
// not), how the runtime builds the instruction's XNNPACK operators, the
// output range a clamping operator is (so that a producer with an output
// range takes it as its own), and whether this XNNPACK has the operator
// for f16. The partitioner (compile side) and the runtime side both read
// this table and nothing else, so an operator the partitioner takes is one
// the runtime can build; XnnpackTable.EveryOperatorIsBuiltAndMatchesThePortableKernel
// walks it. docs/architecture.md, "A backend's operator list", describes
// the pattern (the onednn table is the other one).
//
// The header names no XNNPACK or IR type: the partitioner sees a call as a
// CallView made from the IR (lowering/call_view.h).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/attrs.h"
#include "base/error.h"
#include "kernels/op_decl.h"
#include "runtime/call_view.h"

namespace edgec::runtime::xnnpack {
struct Ctx;
}  // namespace edgec::runtime::xnnpack

namespace edgec::xnnpack {

/// Why the delegate cannot take the call, or nullopt. The partitioner has
/// already refused dynamic shapes, empty tensors and dtypes the row does
/// not compute.
using SupportCheck = std::optional<std::string> (*)(const CallView& call);
/// The runtime's builder: the instruction's operators (and those of the
/// instructions it fuses), at init.
using BuildFn = Error (*)(runtime::xnnpack::Ctx& c);

/// An output range [lo, hi]: what relu and clamp are, and what XNNPACK's
/// operators with an output_min / output_max apply for free.
struct Range {
  float lo, hi;
};
/// The range a clamping operator is, with its attributes read through its
/// declaration.
using RangeFn = Range (*)(const OpDecl& decl, const Attrs& attrs);

struct OpRow {
  std::string_view name;         ///< The edge operator's base name.
  SupportCheck check = nullptr;  ///< Beyond static shapes and dtypes; nullptr: none.
  BuildFn build = nullptr;
  RangeFn range = nullptr;       ///< Clamping operators only (relu, clamp).
  bool f16 = false;              ///< This XNNPACK has it for f16 (else f32 only).
  bool view = false;             ///< Its result is its input's bytes (reshape and kin).
  /// An integer operator (qlinear_conv, qlinear_matmul): its operands are
  /// u8 / i8 data, f32 scales and i32 biases, which its check types.
  bool quantized = false;
  const OpDecl* decl = nullptr;  ///< Filled from the kernels' registry.
};

/// Every row, sorted by name.
std::span<const OpRow> op_table();
/// The row of base name `op`, or nullptr.
const OpRow* find_op_row(std::string_view op);
/// The row's check applied to `call` (nullopt when it has none).
std::optional<std::string> check_call(const OpRow& row, const CallView& call);

/// How the delegate runs a qlinear_conv or qlinear_matmul on XNNPACK's
/// 8-bit operators (runtime_quant.cpp; docs/architecture.md, "The built-in
/// backends"), decided from its constant quantization parameters by the
/// partitioner and again by the runtime. XNNPACK's qc8 convolution takes
/// i8 weights with zero point 0 and a scale per output channel; its qu8
/// one u8 weights with any one zero point and one scale. Weights that are
/// neither are flipped (w ^ 0x80: u8 with zero point 128 are i8 with 0,
/// i8 with zero point z are u8 with z + 128), exactly.
struct QuantPlan {
  bool qu8 = false;           ///< XNNPACK's qu8 operator; else qc8 (i8, computed in i8).
  bool flip_weights = false;  ///< The weights are stored xor 0x80 for it.
  int32_t w_zp = 0;           ///< qu8: the weights' zero point (as u8).
  float x_scale = 0, y_scale = 0;
  std::vector<float> w_scale;  ///< One per output channel.
};
/// The plan for weights of `w_dtype` with zero points `w_zp` and scales
/// `w_scale` (one, or one per output channel: `channels`), or why XNNPACK
/// cannot run it. `op` names the operator in the reason. `w_min`: the
/// weights hold the value qc8 would see as -128 (i8 -128, or u8 0 with
/// zero point 128), which qc8 does not take: XNNPACK's ARM kernels without
/// the dot product sum pairs of i8 products in int16, exact only for
/// weights in [-127, 127] (-128 * -128 twice overflows it).
std::optional<std::string> plan_quantized(std::string_view op, DType w_dtype, const std::vector<int32_t>& w_zp,
                                          const std::vector<float>& w_scale, float x_scale, float y_scale,
                                          int64_t channels, bool w_min, QuantPlan& plan);
/// Whether weights of `w_dtype` with `values` hold what qc8 would see as
/// -128 (plan_quantized's `w_min`).
bool holds_qc8_min(DType w_dtype, const std::vector<int32_t>& w_zp, const uint8_t* values, size_t n);

}  // namespace edgec::xnnpack
